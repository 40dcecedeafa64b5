/*
Copyright 2026 The provider-git Authors.

Licensed under the Apache License, Version 2.0 (the "License");
you may not use this file except in compliance with the License.
You may obtain a copy of the License at

    http://www.apache.org/licenses/LICENSE-2.0

Unless required by applicable law or agreed to in writing, software
distributed under the License is distributed on an "AS IS" BASIS,
WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
See the License for the specific language governing permissions and
limitations under the License.
*/

package gitlab

import "time"

// A throttle is how the fake answers one request before GitLab would:
// Rack::Attack's 429, or a proxy's error page.
type throttle struct {
	retryAfter time.Duration
	reset      time.Time
	// status, when set, is a proxy's error page instead of GitLab's 429.
	status int
}

// Throttle answers the next n requests 429, with Retry-After when
// retryAfter > 0 and RateLimit-Reset and RateLimit-ResetTime when reset is
// set.
func (s *Server) Throttle(n int, retryAfter time.Duration, reset time.Time) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for range n {
		s.throttle = append(s.throttle, throttle{retryAfter: retryAfter, reset: reset})
	}
}

// ProxyError answers the next n requests with status and an HTML error
// page, as a reverse proxy in front of GitLab does (a 502 while Puma
// restarts): whether GitLab acted on the request is not known.
func (s *Server) ProxyError(n, status int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for range n {
		s.throttle = append(s.throttle, throttle{status: status})
	}
}
