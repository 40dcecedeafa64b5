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
	"fmt"
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
	clone    = "clone-of-team-a"
	pushBody = `{"ref":"refs/heads/main","repository":{"clone_url":"https://git.example.org/org/apps.git"}}`
	pullBody = `{"action":"closed","pull_request":{"head":{"ref":"env/staging"},"base":{"ref":"main"}},"repository":{"clone_url":"https://git.example.org/Org/Apps"}}`
	elseBody = `{"ref":"refs/heads/main","repository":{"clone_url":"https://git.example.org/org/other.git"}}`
)

// acts records what the Receiver asked of the watcher and the listings.
type acts struct{ calls []string }

func (a *acts) Nudge(clone string) bool { a.calls = append(a.calls, "nudge "+clone); return true }
func (a *acts) WakeFollowing(clone string, b []string) int {
	a.calls = append(a.calls, "wake "+clone+" "+strings.Join(b, ","))
	return 1
}
func (a *acts) Invalidate(clone string) int { a.calls = append(a.calls, "list "+clone); return 1 }
func (a *acts) Heard(clone string)          { a.calls = append(a.calls, "heard "+clone) }

func signed(body string, secret string) string {
	m := hmac.New(sha256.New, []byte(secret))
	m.Write([]byte(body))
	return "sha256=" + hex.EncodeToString(m.Sum(nil))
}

type delivery struct {
	method, path, event, id, body, sig string
	gitlab                             bool
}

// target is team-a's: its repository, its own clone, GitHub's deliveries.
var target = Target{Repo: apps, Clone: clone, Sources: []string{"GitHub"}}

const secret = "s3cret-of-sixteen-bytes"

func TestReceiver(t *testing.T) {
	reg := NewRegistry()
	path := reg.Set("ProviderConfig/team-a/git", target, []byte(secret))
	cases := map[string]struct {
		reason string
		d      delivery
		code   int
		calls  []string
	}{
		"Push": {
			reason: "A signed push polls the configuration's own clone now, and only it.",
			d:      delivery{path: path, event: "push", id: "1", body: pushBody, sig: signed(pushBody, secret)},
			code:   http.StatusAccepted, calls: []string{"heard " + clone, "nudge " + clone},
		},
		"Replayed": {
			reason: "The same delivery again changes nothing.",
			d:      delivery{path: path, event: "push", id: "1", body: pushBody, sig: signed(pushBody, secret)},
			code:   http.StatusConflict,
		},
		"ReplayedWithAnotherID": {
			reason: "The same signed body under a new delivery id (the id is not signed) is the same delivery.",
			d:      delivery{path: path, event: "push", id: "1b", body: pushBody, sig: signed(pushBody, secret)},
			code:   http.StatusConflict,
		},
		"PullRequest": {
			reason: "A pull request event (its URL spelled otherwise) lists again and wakes the PullRequests of its branches.",
			d:      delivery{path: path, event: "pull_request", id: "2", body: pullBody, sig: signed(pullBody, secret)},
			code:   http.StatusAccepted, calls: []string{"heard " + clone, "list " + clone, "wake " + clone + " env/staging,main"},
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
		"WrongSource": {
			reason: "A GitLab delivery carrying the secret as its token, to a GitHub configuration: refused.",
			d:      delivery{path: path, gitlab: true, body: `{"object_kind":"push","ref":"refs/heads/main","project":{"git_http_url":"https://git.example.org/org/apps.git"}}`, sig: secret},
			code:   http.StatusBadRequest,
		},
		"OtherRepository": {
			reason: "Another repository's event, signed alike (an organization's hook), costs nothing more.",
			d:      delivery{path: path, event: "push", id: "5", body: elseBody, sig: signed(elseBody, secret)},
			code:   http.StatusAccepted,
		},
		"UnknownHook": {
			reason: "A path no configuration receives at says nothing of the others.",
			d:      delivery{path: PathPrefix + "0123", event: "push", id: "6", body: pushBody, sig: signed(pushBody, secret)},
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
	// In order: the replays follow Push.
	for _, name := range []string{"Push", "Replayed", "ReplayedWithAnotherID", "PullRequest", "Forged", "Unsigned", "WrongSource", "OtherRepository", "UnknownHook", "Get", "TooLarge"} {
		tc := cases[name]
		t.Run(name, func(t *testing.T) {
			a := &acts{}
			rc := New(reg, a, a, logging.NewNopLogger())
			w := httptest.NewRecorder()
			rc.ServeHTTP(w, tc.d.request())
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

// request is the HTTP request of d: GitHub's headers, or GitLab's.
func (d delivery) request() *http.Request {
	m := d.method
	if m == "" {
		m = http.MethodPost
	}
	req := httptest.NewRequest(m, d.path, strings.NewReader(d.body))
	if d.gitlab {
		req.Header.Set("X-Gitlab-Event", "Push Hook")
		req.Header.Set("X-Gitlab-Token", d.sig)
		return req
	}
	req.Header.Set("X-GitHub-Event", d.event)
	req.Header.Set("X-GitHub-Delivery", d.id)
	if d.sig != "" {
		req.Header.Set("X-Hub-Signature-256", d.sig)
	}
	return req
}

// TestReceiverTwoTenants: two configurations of one repository, another
// tenant's with its own secret and clone: a delivery to one hook acts on
// its own clone only, whatever repository its owner names, so a tenant
// cannot make the provider fetch or list with another's credentials, nor
// relax another's polls.
func TestReceiverTwoTenants(t *testing.T) {
	reg := NewRegistry()
	pathA := reg.Set("ProviderConfig/team-a/git", target, []byte(secret))
	reg.Set("ProviderConfig/team-b/git", Target{Repo: apps, Clone: "clone-of-team-b"}, []byte("team-b-secret-of-16"))
	a := &acts{}
	rc := New(reg, a, a, logging.NewNopLogger())
	for i, body := range []string{pushBody, pullBody} {
		event := []string{"push", "pull_request"}[i]
		rc.ServeHTTP(httptest.NewRecorder(), delivery{path: pathA, event: event, body: body, sig: signed(body, secret)}.request())
	}
	want := []string{"heard " + clone, "nudge " + clone, "heard " + clone, "list " + clone, "wake " + clone + " env/staging,main"}
	if diff := cmp.Diff(want, a.calls); diff != "" {
		t.Errorf("team-a's deliveries act on team-a's clone alone: -want, +got:\n%s", diff)
	}
}

// TestRegistryPath: the path is the same for the same owner and secret,
// another for another secret (a rotation moves it) or owner, and Remove
// stops receiving.
func TestRegistryPath(t *testing.T) {
	reg := NewRegistry()
	one, two := []byte("one-sixteen-byte"), []byte("two-sixteen-byte")
	p1 := reg.Set("ProviderConfig/a/git", target, one)
	if p := reg.Set("ProviderConfig/a/git", target, one); p != p1 {
		t.Errorf("Set again moved the path: %s, then %s", p1, p)
	}
	if p := PathOf("ProviderConfig/b/git", one); p == p1 {
		t.Errorf("two configurations share path %s", p)
	}
	m := hmac.New(sha256.New, one)
	m.Write([]byte("ProviderConfig/a/git"))
	if sig := hex.EncodeToString(m.Sum(nil)); strings.Contains(sig, strings.TrimPrefix(p1, PathPrefix)) {
		t.Errorf("the path %s is the secret's signature of the owner's name: it must be derived apart", p1)
	}
	p2 := reg.Set("ProviderConfig/a/git", target, two)
	if p2 == p1 {
		t.Errorf("a new secret kept the path %s", p1)
	}
	if _, _, ok, _ := reg.enter(p1); ok {
		t.Errorf("the path of the old secret still receives")
	}
	reg.Remove("ProviderConfig/a/git")
	if _, _, ok, _ := reg.enter(p2); ok {
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

// hold starts n deliveries to path whose bodies stall until body is
// released; it returns once all are being read.
func hold(rc *Receiver, path string, n int, body *stalled, wg *sync.WaitGroup) {
	for range n {
		wg.Go(func() {
			rc.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest(http.MethodPost, path, body))
		})
		<-body.reading
	}
}

// TestReceiverBusy: one hook's owner (its path is in its status) holds at
// most perHook slots, so another hook's delivery is still served; while
// MaxInFlight deliveries are read in all, one more is answered 503 at
// once, unread, and counted; a path of no hook takes no slot.
func TestReceiverBusy(t *testing.T) {
	reg := NewRegistry()
	rc := New(reg, &acts{}, &acts{}, logging.NewNopLogger())
	paths := make([]string, MaxInFlight/perHook+1)
	for i := range paths {
		paths[i] = reg.Set(fmt.Sprintf("ProviderConfig/team-%d/git", i), target, []byte(secret))
	}
	body := &stalled{reading: make(chan struct{}), release: make(chan struct{})}
	var wg sync.WaitGroup
	serve := func(path string) int {
		w := httptest.NewRecorder()
		rc.ServeHTTP(w, httptest.NewRequest(http.MethodPost, path, strings.NewReader(pushBody)))
		return w.Code
	}
	hold(rc, paths[0], perHook, body, &wg)
	got := []int{serve(paths[0]), serve(paths[1])}
	for _, p := range paths[1 : len(paths)-1] {
		if p != paths[1] {
			hold(rc, p, perHook, body, &wg)
		}
	}
	hold(rc, paths[1], perHook, body, &wg)
	got = append(got, serve(paths[len(paths)-1]), serve(PathPrefix+"none"))
	close(body.release)
	wg.Wait()
	got = append(got, serve(paths[0]))
	// 400: served, and it names no forge.
	want := []int{http.StatusServiceUnavailable, http.StatusBadRequest, http.StatusServiceUnavailable, http.StatusNotFound, http.StatusBadRequest}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("a hook's %d held, another's; all %d held, then a path of none; all released: -want, +got:\n%s", perHook, MaxInFlight, diff)
	}
	if got := testutil.ToFloat64(rc.events.WithLabelValues("", "", ResultBusy)); got != 2 {
		t.Errorf("busy counted %v times, want 2", got)
	}
}
