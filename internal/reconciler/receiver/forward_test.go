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
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/crossplane/crossplane-runtime/v2/pkg/logging"
	"github.com/google/go-cmp/cmp"
	"github.com/prometheus/client_golang/prometheus/testutil"
	clocktesting "k8s.io/utils/clock/testing"

	"github.com/crossplane-contrib/provider-git/internal/forge/events"
)

// now is the replicas' clock.
var now = time.Date(2026, 12, 6, 10, 0, 0, 0, time.UTC)

// holders is a fixed answer to HolderOf, whatever the key.
type holders struct {
	self    bool
	addr    string
	members int
}

func (h holders) HolderOf(string) (bool, string, int) { return h.self, h.addr, h.members }

func TestDecide(t *testing.T) {
	type args struct {
		h         Holders
		forwarded bool
	}
	cases := map[string]struct {
		reason string
		args   args
		want   route
	}{
		"NoSharing": {
			reason: "A replica that shares nothing acts on every delivery, and its polls relax.",
			args:   args{},
			want:   route{act: true, relax: true},
		},
		"HolderAlone": {
			reason: "A holder that shares with nobody gets every delivery: it acts and relaxes.",
			args:   args{h: holders{self: true, members: 1}},
			want:   route{act: true, relax: true},
		},
		"HolderDirect": {
			reason: "A holder acts on a delivery the forge sent it, but does not relax on it: that shows only that the forge reaches it, not that the others' reach it.",
			args:   args{h: holders{self: true, members: 3}},
			want:   route{act: true},
		},
		"HolderForwarded": {
			reason: "A holder acts on a forwarded delivery and relaxes: the others' deliveries reach it.",
			args:   args{h: holders{self: true, members: 3}, forwarded: true},
			want:   route{act: true, relax: true},
		},
		"NotHolder": {
			reason: "A replica that does not hold the repository forwards the forge's delivery to the one that does, and acts on nothing.",
			args:   args{h: holders{addr: "10.0.0.7:8090", members: 3}},
			want:   route{to: "10.0.0.7:8090"},
		},
		"NotHolderForwarded": {
			reason: "A forwarded delivery is never forwarded again: replicas whose views disagree cannot pass it back and forth.",
			args:   args{h: holders{addr: "10.0.0.7:8090", members: 3}, forwarded: true},
			want:   route{},
		},
		"HolderUnknown": {
			reason: "A holder that publishes no address (or none known) gets nothing; its poll is the safety net.",
			args:   args{h: holders{members: 3}},
			want:   route{},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got := decide(tc.args.h, apps, tc.args.forwarded)
			if diff := cmp.Diff(tc.want, got, cmp.AllowUnexported(route{})); diff != "" {
				t.Errorf("%s\ndecide: -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}

// replica is one Receiver of a pair sharing the repositories: its own
// registry (the same hook, as every replica has), its own acts, served
// on loopback.
type replica struct {
	rc   *Receiver
	acts *acts
	srv  *httptest.Server
	path string
	// sent counts the forwards it made.
	sent atomic.Int32
}

func newReplica(t *testing.T, h Holders) *replica {
	t.Helper()
	r := &replica{acts: &acts{}}
	reg := NewRegistry()
	r.path = reg.Set("ProviderConfig/team-a/git", target, []byte(secret))
	f := NewForwarder()
	r.rc = New(reg, r.acts, r.acts, logging.NewNopLogger(), WithClock(clocktesting.NewFakePassiveClock(now)), WithHolders(h, ForwarderFn(
		func(ctx context.Context, addr, path string, hd http.Header, body []byte) error {
			r.sent.Add(1)
			return f.Forward(ctx, addr, path, hd, body)
		})))
	r.srv = httptest.NewServer(r.rc)
	t.Cleanup(r.srv.Close)
	return r
}

// addr is where the replica serves: an IP and a port.
func (r *replica) addr() string { return strings.TrimPrefix(r.srv.URL, "http://") }

// results are the replica's counted deliveries, by result.
func (r *replica) results(results ...string) map[string]float64 {
	out := map[string]float64{}
	for _, res := range results {
		out[res] = testutil.ToFloat64(r.rc.events.WithLabelValues("GitHub", "push", res))
	}
	return out
}

// TestReceiverForwards: a delivery that reaches the replica that does not
// hold its repository is acted on by the one that does, verified there
// again; a forged forward is refused like a forged event; a forwarded
// delivery is not forwarded again; a replay is refused where it was seen.
func TestReceiverForwards(t *testing.T) {
	holder := newReplica(t, holders{self: true, members: 2})
	other := newReplica(t, holders{addr: holder.addr(), members: 2})
	d := delivery{path: other.path, event: "push", id: "1", body: pushBody, sig: signed(pushBody, secret)}

	w := httptest.NewRecorder()
	other.rc.ServeHTTP(w, d.request())
	if w.Code != http.StatusAccepted {
		t.Errorf("the non-holder answered %d, want %d", w.Code, http.StatusAccepted)
	}
	if diff := cmp.Diff([]string(nil), other.acts.calls); diff != "" {
		t.Errorf("the non-holder acts on nothing: -want, +got:\n%s", diff)
	}
	if diff := cmp.Diff([]string{"heard " + clone, "nudge " + clone}, holder.acts.calls); diff != "" {
		t.Errorf("the holder polls its clone and relaxes on the forwarded push: -want, +got:\n%s", diff)
	}

	// The same delivery again, to the non-holder: refused there, not sent on.
	w = httptest.NewRecorder()
	other.rc.ServeHTTP(w, d.request())
	if w.Code != http.StatusConflict || other.sent.Load() != 1 {
		t.Errorf("a replay to the non-holder: status %d and %d forwards, want %d and 1", w.Code, other.sent.Load(), http.StatusConflict)
	}

	// The same delivery, from the forge, to the holder: it had it forwarded.
	w = httptest.NewRecorder()
	holder.rc.ServeHTTP(w, delivery{path: holder.path, event: "push", id: "1", body: pushBody, sig: signed(pushBody, secret)}.request())
	if w.Code != http.StatusConflict || len(holder.acts.calls) != 2 {
		t.Errorf("the forge's redelivery to the holder: status %d, acts %v; want %d and nothing more", w.Code, holder.acts.calls, http.StatusConflict)
	}

	want := map[string]float64{ResultForwarded: 1, ResultReplayed: 1, ResultAccepted: 0}
	if diff := cmp.Diff(want, other.results(ResultForwarded, ResultReplayed, ResultAccepted)); diff != "" {
		t.Errorf("the non-holder's counts: -want, +got:\n%s", diff)
	}
	want = map[string]float64{ResultAccepted: 1, ResultReplayed: 1, ResultForwarded: 0}
	if diff := cmp.Diff(want, holder.results(ResultAccepted, ResultReplayed, ResultForwarded)); diff != "" {
		t.Errorf("the holder's counts: -want, +got:\n%s", diff)
	}
}

// TestReceiverForwardedRefused: what reaches a replica marked forwarded is
// verified with the hook's secret as a forge's delivery is, and is never
// sent on.
func TestReceiverForwardedRefused(t *testing.T) {
	body2 := strings.Replace(pushBody, `"ref"`, `"before":"x","ref"`, 1)
	cases := map[string]struct {
		reason string
		h      Holders
		header http.Header
		// at is when the forward was made; zero: now.
		at     time.Time
		body   string
		code   int
		calls  []string
		result string
	}{
		"Forged": {
			reason: "A forward made without the secret (anyone who can reach the pod port) is refused 403 and does nothing.",
			h:      holders{self: true, members: 2},
			header: events.Forward(http.Header{"X-Github-Event": {"push"}}, "", []byte(pushBody), []byte("a guess of sixteen bytes"), now),
			body:   pushBody, code: http.StatusForbidden, result: ResultBadSignature,
		},
		"ForgeSignatureOnly": {
			reason: "A forge's valid signature under a forward's marker is no forward: refused.",
			h:      holders{self: true, members: 2},
			header: http.Header{"X-Github-Event": {"push"}, "X-Hub-Signature-256": {signed(pushBody, secret)}, events.HeaderForwarded: {signed(pushBody, secret)}},
			body:   pushBody, code: http.StatusForbidden, result: ResultBadSignature,
		},
		"NotForwardedAgain": {
			reason: "A verified forward to a replica that does not hold the repository (the views disagree) is not sent on: no loop.",
			h:      holders{addr: "127.0.0.1:1", members: 2},
			body:   body2, code: http.StatusAccepted, result: ResultNotHeld,
		},
		"Replayed": {
			reason: "A forward recorded on the pod network and sent again after events.MaxForwardAge is refused 409 and does nothing.",
			h:      holders{self: true, members: 2},
			at:     now.Add(-events.MaxForwardAge - time.Second),
			body:   pushBody, code: http.StatusConflict, result: ResultStale,
		},
		"Holder": {
			reason: "A verified forward to the holder acts and relaxes its polls.",
			h:      holders{self: true, members: 2},
			body:   pushBody, code: http.StatusAccepted, result: ResultAccepted, calls: []string{"heard " + clone, "nudge " + clone},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			r := newReplica(t, tc.h)
			h := tc.header
			if h == nil {
				at := tc.at
				if at.IsZero() {
					at = now
				}
				h = events.Forward(http.Header{"X-Github-Event": {"push"}}, r.path, []byte(tc.body), []byte(secret), at)
			}
			req := httptest.NewRequest(http.MethodPost, r.path, strings.NewReader(tc.body))
			req.Header = h
			w := httptest.NewRecorder()
			r.rc.ServeHTTP(w, req)
			if w.Code != tc.code {
				t.Errorf("%s\nstatus %d, want %d", tc.reason, w.Code, tc.code)
			}
			if diff := cmp.Diff(tc.calls, r.acts.calls); diff != "" {
				t.Errorf("%s\nacted: -want, +got:\n%s", tc.reason, diff)
			}
			if r.sent.Load() != 0 {
				t.Errorf("%s\n%d forwards, want none", tc.reason, r.sent.Load())
			}
			kind := "push"
			if tc.code == http.StatusForbidden || tc.code == http.StatusConflict {
				kind = ""
			}
			source := "GitHub"
			if kind == "" {
				source = ""
			}
			if got := testutil.ToFloat64(r.rc.events.WithLabelValues(source, kind, tc.result)); got != 1 {
				t.Errorf("%s\ncounted %s %v times, want 1", tc.reason, tc.result, got)
			}
		})
	}
}

func TestHTTPForwarder(t *testing.T) {
	var elsewhere atomic.Int32
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		elsewhere.Add(1)
		w.WriteHeader(http.StatusAccepted)
	}))
	defer other.Close()
	answer := func(code int) string {
		s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if code == http.StatusTemporaryRedirect {
				http.Redirect(w, r, other.URL+r.URL.Path, code)
				return
			}
			w.WriteHeader(code)
		}))
		t.Cleanup(s.Close)
		return strings.TrimPrefix(s.URL, "http://")
	}
	down := httptest.NewServer(http.NotFoundHandler())
	downAddr := strings.TrimPrefix(down.URL, "http://")
	down.Close()
	cases := map[string]struct {
		reason string
		addr   string
		ok     bool
	}{
		"Accepted":  {reason: "The holder acted.", addr: answer(http.StatusAccepted), ok: true},
		"Conflict":  {reason: "The holder had the delivery from the forge already: nothing lost.", addr: answer(http.StatusConflict), ok: true},
		"Refused":   {reason: "A holder that refuses the forward (another secret: the configuration changed between them) is a failure to log.", addr: answer(http.StatusForbidden)},
		"Redirect":  {reason: "A redirect is never followed: the delivery goes to the address the Lease names, or nowhere.", addr: answer(http.StatusTemporaryRedirect)},
		"Down":      {reason: "A holder that does not answer is a failure.", addr: downAddr},
		"HostName":  {reason: "An address that is not an IP is never resolved.", addr: "holder.example.org:8090"},
		"NoPort":    {reason: "An address without a port is refused.", addr: "10.0.0.7"},
		"WithPath":  {reason: "An address cannot carry a path or a user.", addr: "user@10.0.0.7:8090/x"},
		"Malformed": {reason: "Anything else is refused.", addr: ":8090"},
	}
	f := NewForwarder()
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			err := f.Forward(context.Background(), tc.addr, "/hooks/secret-derived", http.Header{"X-Github-Event": {"push"}}, []byte(pushBody))
			if (err == nil) != tc.ok {
				t.Errorf("%s\nForward: %v, want success %t", tc.reason, err, tc.ok)
			}
			if err != nil && strings.Contains(err.Error(), "secret-derived") {
				t.Errorf("%s\nthe error, which is logged, names the hook's path: %v", tc.reason, err)
			}
		})
	}
	if n := elsewhere.Load(); n != 0 {
		t.Errorf("the redirect's target got %d requests, want none", n)
	}
}
