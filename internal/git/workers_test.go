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

package git

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"testing"
	"testing/synctest"
	"time"
)

// TestCloseWaitsForItsGoroutines: Close returns only once the fetch or the
// branch writer it cancelled has ended, so nothing writes under the cache's
// directory after it (a test's TempDir, removed next, once found refs being
// written into it). The goroutine is held in the HTTP transport's proxy
// choice, which ignores the cancellation, until the test releases it;
// synctest tells when every goroutine is blocked.
func TestCloseWaitsForItsGoroutines(t *testing.T) {
	cases := map[string]struct {
		reason string
		use    func(r *Repository)
	}{
		"Fetch": {
			reason: "A shared fetch runs on the cache's context.",
			use:    func(r *Repository) { _ = r.Refresh(context.Background(), 0, "main") },
		},
		"Writer": {
			reason: "A branch writer runs on the cache's context.",
			use: func(r *Repository) {
				_ = r.Submit(context.Background(), "main", Change{Message: "m", Puts: map[string]File{"a": {Content: []byte("a")}}})
			},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			synctest.Test(t, func(t *testing.T) {
				release := make(chan struct{})
				proxy := func(*http.Request) (*url.URL, error) {
					<-release
					return nil, errors.New("released")
				}
				c, err := NewCache(dir, WithProxy(proxy), WithIdleTimeout(0), WithCommitWindow(0))
				if err != nil {
					t.Fatal(err)
				}
				r, err := c.Repository(Remote{URL: "http://127.0.0.1:9/repo.git"})
				if err != nil {
					t.Fatal(err)
				}
				go tc.use(r)
				synctest.Wait() // held in the proxy

				closed := make(chan struct{})
				go func() {
					c.Close()
					close(closed)
				}()
				synctest.Wait()
				select {
				case <-closed:
					t.Errorf("%s Close returned while it still ran", tc.reason)
				default:
				}
				close(release)
				<-closed
			})
		})
	}
}

// TestCloseWaitIsBounded: a goroutine that ignores the cancellation holds
// Close for closeWait by the cache's clock, no longer, so a provider's
// shutdown ends within its grace period. synctest's clock is the fake one.
func TestCloseWaitIsBounded(t *testing.T) {
	dir := t.TempDir()
	synctest.Test(t, func(t *testing.T) {
		release := make(chan struct{})
		proxy := func(*http.Request) (*url.URL, error) {
			<-release
			return nil, errors.New("released")
		}
		c, err := NewCache(dir, WithProxy(proxy), WithIdleTimeout(0))
		if err != nil {
			t.Fatal(err)
		}
		r, err := c.Repository(Remote{URL: "http://127.0.0.1:9/repo.git"})
		if err != nil {
			t.Fatal(err)
		}
		go func() { _ = r.Refresh(context.Background(), 0, "main") }()
		synctest.Wait()
		start := time.Now()
		c.Close()
		if got := time.Since(start); got != closeWait {
			t.Errorf("Close returned after %s with a goroutine that never ends, want %s", got, closeWait)
		}
		close(release)
	})
}
