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

package gitea_test

import (
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"sync"
	"testing"
	"time"
)

// relay passes Gitea's deliveries on to the provider's events endpoint
// unchanged and notes when each reached it: a benchmark then tells the
// time Gitea's own queue took (its level queue pops with a backoff of up
// to 2 s) from the provider's share.
type relay struct {
	url string
	mu  sync.Mutex
	at  []time.Time
}

// startRelay relays to target (an http:// URL on loopback) until b ends.
func startRelay(b *testing.B, target string) *relay {
	b.Helper()
	u, err := url.Parse(target)
	if err != nil {
		b.Fatal(err)
	}
	d := &relay{}
	p := httputil.NewSingleHostReverseProxy(u)
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		d.mu.Lock()
		d.at = append(d.at, time.Now())
		d.mu.Unlock()
		p.ServeHTTP(w, r)
	}))
	b.Cleanup(s.Close)
	d.url = s.URL
	return d
}

// firstAfter is when the first delivery after t reached the relay; false
// when none did, or d is nil.
func (d *relay) firstAfter(t time.Time) (time.Time, bool) {
	if d == nil {
		return time.Time{}, false
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	for _, at := range d.at {
		if at.After(t) {
			return at, true
		}
	}
	return time.Time{}, false
}
