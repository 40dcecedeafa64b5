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

package receiver

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/crossplane/crossplane-runtime/v2/pkg/logging"
	"github.com/google/go-cmp/cmp"
	"github.com/prometheus/client_golang/prometheus/testutil"
)

const (
	apps     = "git.example.org/org/apps"
	pushBody = `{"ref":"refs/heads/main","repository":{"clone_url":"https://git.example.org/org/apps.git"}}`
	pullBody = `{"action":"closed","pull_request":{"head":{"ref":"env/staging"},"base":{"ref":"main"}},"repository":{"clone_url":"https://git.example.org/Org/Apps"}}`
	elseBody = `{"ref":"refs/heads/main","repository":{"clone_url":"https://git.example.org/org/other.git"}}`
)

// acts records what the Receiver asked of the watcher and the listings.
type acts struct{ calls []string }

func (a *acts) Nudge(repo string) int { a.calls = append(a.calls, "nudge "+repo); return 1 }
func (a *acts) WakeFollowing(repo string, b []string) int {
	a.calls = append(a.calls, "wake "+repo+" "+strings.Join(b, ","))
	return 1
}
func (a *acts) Invalidate(repo string) int { a.calls = append(a.calls, "list "+repo); return 1 }

func signed(body string, secret string) string {
	m := hmac.New(sha256.New, []byte(secret))
	m.Write([]byte(body))
	return "sha256=" + hex.EncodeToString(m.Sum(nil))
}

type delivery struct {
	method, path, event, id, body, sig string
}

func TestReceiver(t *testing.T) {
	reg := NewRegistry()
	path := reg.Set("ProviderConfig/team-a/git", apps, []byte("s3cret"))
	cases := map[string]struct {
		reason string
		d      delivery
		code   int
		calls  []string
	}{
		"Push": {
			reason: "A signed push polls the repository's clones now.",
			d:      delivery{path: path, event: "push", id: "1", body: pushBody, sig: signed(pushBody, "s3cret")},
			code:   http.StatusAccepted, calls: []string{"nudge " + apps},
		},
		"Replayed": {
			reason: "The same delivery again changes nothing.",
			d:      delivery{path: path, event: "push", id: "1", body: pushBody, sig: signed(pushBody, "s3cret")},
			code:   http.StatusConflict,
		},
		"PullRequest": {
			reason: "A pull request event (its URL spelled otherwise) lists again and wakes the PullRequests of its branches.",
			d:      delivery{path: path, event: "pull_request", id: "2", body: pullBody, sig: signed(pullBody, "s3cret")},
			code:   http.StatusAccepted, calls: []string{"list " + apps, "wake " + apps + " env/staging,main"},
		},
		"Forged": {
			reason: "Signed with another secret: refused, nothing done.",
			d:      delivery{path: path, event: "push", id: "3", body: pushBody, sig: signed(pushBody, "guess")},
			code:   http.StatusForbidden,
		},
		"Unsigned": {
			reason: "No signature: refused.",
			d:      delivery{path: path, event: "push", id: "4", body: pushBody},
			code:   http.StatusUnauthorized,
		},
		"OtherRepository": {
			reason: "Another repository's event, signed alike (an organization's hook), costs nothing more.",
			d:      delivery{path: path, event: "push", id: "5", body: elseBody, sig: signed(elseBody, "s3cret")},
			code:   http.StatusAccepted,
		},
		"UnknownHook": {
			reason: "A path no configuration receives at says nothing of the others.",
			d:      delivery{path: PathPrefix + "0123", event: "push", id: "6", body: pushBody, sig: signed(pushBody, "s3cret")},
			code:   http.StatusNotFound,
		},
		"Get": {
			reason: "Only POST delivers.",
			d:      delivery{method: http.MethodGet, path: path},
			code:   http.StatusMethodNotAllowed,
		},
		"TooLarge": {
			reason: "A body past the bound is refused before it is verified.",
			d:      delivery{path: path, event: "push", id: "7", body: strings.Repeat(" ", 4<<20+1), sig: "sha256=00"},
			code:   http.StatusRequestEntityTooLarge,
		},
	}
	// In order: Replayed follows Push.
	for _, name := range []string{"Push", "Replayed", "PullRequest", "Forged", "Unsigned", "OtherRepository", "UnknownHook", "Get", "TooLarge"} {
		tc := cases[name]
		t.Run(name, func(t *testing.T) {
			a := &acts{}
			rc := New(reg, a, a, logging.NewNopLogger())
			m := tc.d.method
			if m == "" {
				m = http.MethodPost
			}
			req := httptest.NewRequest(m, tc.d.path, strings.NewReader(tc.d.body))
			req.Header.Set("X-GitHub-Event", tc.d.event)
			req.Header.Set("X-GitHub-Delivery", tc.d.id)
			if tc.d.sig != "" {
				req.Header.Set("X-Hub-Signature-256", tc.d.sig)
			}
			w := httptest.NewRecorder()
			rc.ServeHTTP(w, req)
			if w.Code != tc.code {
				t.Errorf("%s\nstatus %d, want %d", tc.reason, w.Code, tc.code)
			}
			if diff := cmp.Diff(tc.calls, a.calls); diff != "" {
				t.Errorf("%s\nacted: -want, +got:\n%s", tc.reason, diff)
			}
			if got := testutil.CollectAndCount(rc.events); got != 1 {
				t.Errorf("%s\n%d series counted, want 1", tc.reason, got)
			}
		})
	}
}

// TestRegistryPath: the path is the same for the same owner and secret,
// another for another secret (a rotation moves it) or owner, and Remove
// stops receiving.
func TestRegistryPath(t *testing.T) {
	reg := NewRegistry()
	p1 := reg.Set("ProviderConfig/a/git", apps, []byte("one"))
	if p := reg.Set("ProviderConfig/a/git", apps, []byte("one")); p != p1 {
		t.Errorf("Set again moved the path: %s, then %s", p1, p)
	}
	if p := PathOf("ProviderConfig/b/git", []byte("one")); p == p1 {
		t.Errorf("two configurations share path %s", p)
	}
	p2 := reg.Set("ProviderConfig/a/git", apps, []byte("two"))
	if p2 == p1 {
		t.Errorf("a new secret kept the path %s", p1)
	}
	if _, _, ok := reg.lookup(p1); ok {
		t.Errorf("the path of the old secret still receives")
	}
	reg.Remove("ProviderConfig/a/git")
	if _, _, ok := reg.lookup(p2); ok {
		t.Errorf("a removed hook still receives")
	}
}

// stalled is a body that sends nothing until released, as a slow client's.
type stalled struct {
	reading chan struct{}
	release chan struct{}
}

func (s *stalled) Read([]byte) (int, error) {
	s.reading <- struct{}{}
	<-s.release
	return 0, io.EOF
}

// TestReceiverBusy: while MaxInFlight deliveries are being read, one more
// is answered 503 at once, unread, and counted; once they end it is served.
func TestReceiverBusy(t *testing.T) {
	reg := NewRegistry()
	path := reg.Set("ProviderConfig/team-a/git", apps, []byte("s3cret"))
	rc := New(reg, &acts{}, &acts{}, logging.NewNopLogger())
	body := &stalled{reading: make(chan struct{}), release: make(chan struct{})}
	var wg sync.WaitGroup
	for range MaxInFlight {
		wg.Go(func() {
			rc.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest(http.MethodPost, path, body))
		})
		<-body.reading
	}
	w := httptest.NewRecorder()
	rc.ServeHTTP(w, httptest.NewRequest(http.MethodPost, path, strings.NewReader(pushBody)))
	if w.Code != http.StatusServiceUnavailable {
		t.Errorf("delivery beyond %d in flight: status %d, want 503", MaxInFlight, w.Code)
	}
	close(body.release)
	wg.Wait()
	w = httptest.NewRecorder()
	rc.ServeHTTP(w, httptest.NewRequest(http.MethodPost, path, strings.NewReader(pushBody)))
	if w.Code != http.StatusBadRequest {
		t.Errorf("a delivery of no forge once the others ended: status %d, want 400 (served: it names no forge; not busy)", w.Code)
	}
	if got := testutil.ToFloat64(rc.events.WithLabelValues("", "", ResultBusy)); got != 1 {
		t.Errorf("busy counted %v times, want 1", got)
	}
}
