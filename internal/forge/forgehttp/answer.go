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

package forgehttp

import (
	"net/http"
	"strconv"
	"strings"
	"time"
	"unicode"
)

// maxText bounds the forge's words carried into a status message.
const maxText = 500

// Text is a refusal's body as a status message may carry it: what a proxy
// or an error page answers (HTML) is not the forge's words, so it becomes
// the status text; other text loses control characters and runs of space,
// and is cut at maxText. A forge's JSON message is read by its client and
// passed through Text too.
func Text(body []byte, status int) string {
	s := strings.TrimSpace(string(body))
	if s == "" || strings.HasPrefix(s, "<") {
		return statusText(status)
	}
	s = strings.Join(strings.FieldsFunc(s, func(r rune) bool {
		return unicode.IsSpace(r) || unicode.IsControl(r)
	}), " ")
	if r := []rune(s); len(r) > maxText {
		s = string(r[:maxText]) + "…"
	}
	return s
}

func statusText(status int) string {
	if t := http.StatusText(status); t != "" {
		return t
	}
	return "HTTP " + strconv.Itoa(status)
}

// RetryAt is when the forge allows the next request, from Retry-After
// (seconds or an HTTP date), else from the first of resets present (Unix
// seconds or an HTTP date: X-RateLimit-Reset on GitHub and Gitea,
// RateLimit-Reset and RateLimit-ResetTime on GitLab); false when none says.
func RetryAt(h http.Header, now time.Time, resets ...string) (time.Time, bool) {
	if at, ok := when(h.Get("Retry-After"), now, true); ok {
		return at, true
	}
	for _, k := range resets {
		if at, ok := when(h.Get(k), now, false); ok {
			return at, true
		}
	}
	return time.Time{}, false
}

// when reads v as seconds (relative to now, or Unix seconds) or an HTTP
// date.
func when(v string, now time.Time, relative bool) (time.Time, bool) {
	v = strings.TrimSpace(v)
	if v == "" {
		return time.Time{}, false
	}
	if s, err := strconv.ParseInt(v, 10, 64); err == nil && s >= 0 {
		if relative {
			return now.Add(time.Duration(s) * time.Second), true
		}
		if s > 0 {
			return time.Unix(s, 0), true
		}
		return time.Time{}, false
	}
	if t, err := http.ParseTime(v); err == nil {
		return t, true
	}
	return time.Time{}, false
}
