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

package forge

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	clocktesting "k8s.io/utils/clock/testing"
)

// resolveArgs, resolveWant and resolveCase are a Resolve table's row, for
// every forge's table.
type resolveArgs struct {
	url    string
	t      Type
	apiURL string
}

type resolveWant struct {
	c   Config
	err bool
}

type resolveCase struct {
	reason string
	args   resolveArgs
	want   resolveWant
}

// runResolve checks each case's Resolve.
func runResolve(t *testing.T, cases map[string]resolveCase) {
	t.Helper()
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			c, err := Resolve(tc.args.url, tc.args.t, tc.args.apiURL)
			if (err != nil) != tc.want.err {
				t.Fatalf("\n%s\nResolve(...): error %v, want error %t", tc.reason, err, tc.want.err)
			}
			if diff := cmp.Diff(tc.want.c, c, cmpopts.IgnoreFields(Config{}, "Token", "HTTPClient")); diff != "" {
				t.Errorf("\n%s\nResolve(...): -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}

func TestResolve(t *testing.T) {
	type args = resolveArgs
	type want = resolveWant
	cases := map[string]resolveCase{
		"GitHubHTTPS": {
			reason: "github.com is known: its API is api.github.com",
			args:   args{url: "https://github.com/acme/gitops.git"},
			want:   want{c: Config{Type: GitHub, APIURL: "https://api.github.com/", Owner: "acme", Name: "gitops"}},
		},
		"GitHubSCP": {
			reason: "an scp-like SSH URL names the same repository",
			args:   args{url: "git@github.com:acme/gitops.git"},
			want:   want{c: Config{Type: GitHub, APIURL: "https://api.github.com/", Owner: "acme", Name: "gitops"}},
		},
		"GitLabSubgroup": {
			reason: "a GitLab project's owner is its whole namespace path",
			args:   args{url: "ssh://git@gitlab.com/acme/platform/gitops.git"},
			want:   want{c: Config{Type: GitLab, APIURL: "https://gitlab.com/api/v4/", Owner: "acme/platform", Name: "gitops"}},
		},
		"GitHubEnterprise": {
			reason: "a named GitHub on another host serves its API under /api/v3/",
			args:   args{url: "https://ghe.example.com/acme/gitops", t: GitHub},
			want:   want{c: Config{Type: GitHub, APIURL: "https://ghe.example.com/api/v3/", Owner: "acme", Name: "gitops"}},
		},
		"ExplicitAPI": {
			reason: "an API URL given is kept, with a trailing slash",
			args:   args{url: "http://127.0.0.1:3000/admin/demo.git", t: Gitea, apiURL: "http://127.0.0.1:3000/api/v1"},
			want:   want{c: Config{Type: Gitea, APIURL: "http://127.0.0.1:3000/api/v1/", Owner: "admin", Name: "demo"}},
		},
		"BitbucketCloud": {
			reason: "bitbucket.org is known: its API is api.bitbucket.org/2.0, the owner the workspace",
			args:   args{url: "git@bitbucket.org:acme/gitops.git"},
			want:   want{c: Config{Type: BitbucketCloud, APIURL: "https://api.bitbucket.org/2.0/", Owner: "acme", Name: "gitops"}},
		},
		"BitbucketDataCenterHTTPS": {
			reason: "a Data Center's clone URL is [context]/scm/PROJECT/repo.git; its API is [context]/rest/api/1.0/",
			args:   args{url: "https://git.example.com/bitbucket/scm/PLAT/gitops.git", t: BitbucketDataCenter},
			want:   want{c: Config{Type: BitbucketDataCenter, APIURL: "https://git.example.com/bitbucket/rest/api/1.0/", Owner: "PLAT", Name: "gitops"}},
		},
		"BitbucketDataCenterSSH": {
			reason: "a Data Center's SSH URL names the project and repository on port 7999; the API is on https",
			args:   args{url: "ssh://git@git.example.com:7999/plat/gitops.git", t: BitbucketDataCenter},
			want:   want{c: Config{Type: BitbucketDataCenter, APIURL: "https://git.example.com/rest/api/1.0/", Owner: "plat", Name: "gitops"}},
		},
		"BitbucketDataCenterNotByHost": {
			reason: "a Data Center is never told from its host: its /scm/ path alone is no proof",
			args:   args{url: "https://git.example.com/scm/PLAT/gitops.git"},
			want:   want{err: true},
		},
		"UnknownHost": {
			reason: "a host that is not well known needs spec.forge.type",
			args:   args{url: "https://git.example.com/acme/gitops.git"},
			want:   want{err: true},
		},
		"UnknownType": {
			reason: "a type no Client speaks is refused",
			args:   args{url: "https://git.example.com/acme/gitops.git", t: "Bitbucket"},
			want:   want{err: true},
		},
		"NoOwner": {
			reason: "a path without an owner names no repository",
			args:   args{url: "https://github.com/gitops.git"},
			want:   want{err: true},
		},
		"BadAPIURL": {
			reason: "an API URL must be absolute http(s)",
			args:   args{url: "https://github.com/acme/gitops.git", apiURL: "ftp://x"},
			want:   want{err: true},
		},
	}
	runResolve(t, cases)
}

// lister is a Client that only lists, counting its lists; gate, when set,
// holds each list until it is closed.
type lister struct {
	Client
	lists       atomic.Int32
	prs         []PullRequest
	notModified bool
	gate        chan struct{}
}

func (l *lister) ListOpen(ctx context.Context) ([]PullRequest, bool, error) {
	l.lists.Add(1)
	if l.gate != nil {
		<-l.gate
	}
	return l.prs, l.notModified, nil
}

func TestBoardListsOncePerInterval(t *testing.T) {
	clk := clocktesting.NewFakeClock(time.Unix(1e9, 0))
	b := NewBoard(clk)
	c := &lister{prs: []PullRequest{{Number: 1, Head: "a", Base: "main", HeadInRepo: true, State: StateOpen}}}
	ctx := context.Background()
	for i := range 100 {
		pr, ok, err := b.For("repo", "", c, time.Minute).Find(ctx, time.Minute, "a", "main")
		if err != nil || !ok || pr.Number != 1 {
			t.Fatalf("Find #%d: %v %v %v", i, pr, ok, err)
		}
	}
	if got := c.lists.Load(); got != 1 {
		t.Errorf("100 Finds within one interval: %d lists, want 1", got)
	}
	clk.Step(time.Minute)
	if _, _, err := b.For("repo", "", c, time.Minute).Find(ctx, time.Minute, "b", "main"); err != nil {
		t.Fatal(err)
	}
	if got := c.lists.Load(); got != 2 {
		t.Errorf("a Find one interval later: %d lists, want 2", got)
	}
}

func TestBoardCoalescesConcurrentLists(t *testing.T) {
	clk := clocktesting.NewFakeClock(time.Unix(1e9, 0))
	c := &lister{gate: make(chan struct{})}
	l := NewBoard(clk).For("repo", "", c, time.Minute)
	var wg sync.WaitGroup
	for range 10 {
		wg.Go(func() {
			if _, err := l.Open(context.Background(), time.Minute); err != nil {
				t.Error(err)
			}
		})
	}
	// The first list is in flight once it counted; the others queue behind it.
	for c.lists.Load() == 0 {
		time.Sleep(time.Millisecond)
	}
	close(c.gate)
	wg.Wait()
	if got := c.lists.Load(); got != 1 {
		t.Errorf("10 concurrent Opens: %d lists, want 1", got)
	}
}

func TestBoardKeepsListWhenNotModified(t *testing.T) {
	clk := clocktesting.NewFakeClock(time.Unix(1e9, 0))
	c := &lister{prs: []PullRequest{{Number: 7, State: StateOpen}}}
	l := NewBoard(clk).For("repo", "", c, time.Minute)
	ctx := context.Background()
	if _, err := l.Open(ctx, time.Minute); err != nil {
		t.Fatal(err)
	}
	c.prs, c.notModified = nil, true
	clk.Step(time.Minute)
	prs, err := l.Open(ctx, time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]PullRequest{{Number: 7, State: StateOpen}}, prs); diff != "" {
		t.Errorf("a 304 keeps the previous list: -want, +got:\n%s", diff)
	}
}

func TestBoardRecord(t *testing.T) {
	clk := clocktesting.NewFakeClock(time.Unix(1e9, 0))
	c := &lister{prs: []PullRequest{{Number: 1, State: StateOpen}}}
	l := NewBoard(clk).For("repo", "", c, time.Minute)
	ctx := context.Background()
	if _, err := l.Open(ctx, time.Minute); err != nil {
		t.Fatal(err)
	}
	l.Record(PullRequest{Number: 2, Head: "b", Base: "main", HeadInRepo: true, State: StateOpen})
	if _, ok, _ := l.Find(ctx, time.Minute, "b", "main"); !ok {
		t.Error("a recorded create is found before the next list")
	}
	l.Record(PullRequest{Number: 1, State: StateClosed})
	if _, ok, _ := l.Number(ctx, time.Minute, 1); ok {
		t.Error("a recorded close leaves the open list")
	}
	if got := c.lists.Load(); got != 1 {
		t.Errorf("Record lists nothing: %d lists, want 1", got)
	}
	l.Invalidate()
	if _, err := l.Open(ctx, time.Minute); err != nil {
		t.Fatal(err)
	}
	if got := c.lists.Load(); got != 2 {
		t.Errorf("after Invalidate: %d lists, want 2", got)
	}
}

func TestBoardForgetsIdleRepositories(t *testing.T) {
	clk := clocktesting.NewFakeClock(time.Unix(1e9, 0))
	b := NewBoard(clk)
	b.For("old", "", &lister{}, time.Minute)
	clk.Step(idleListings*time.Minute + time.Second)
	b.For("new", "", &lister{}, time.Minute)
	if got := b.Len(); got != 1 {
		t.Errorf("a repository idle for %d intervals: Len %d, want 1", idleListings, got)
	}
}

func TestPacer(t *testing.T) {
	clk := clocktesting.NewFakeClock(time.Unix(1e9, 0))
	p := NewPacer(clk)
	r := Rate{PerMinute: 60, Burst: 2}
	for i := range 2 {
		if ok, _ := p.Take("k", r); !ok {
			t.Fatalf("take %d within the burst refused", i)
		}
	}
	ok, at := p.Take("k", r)
	if ok || !at.Equal(clk.Now().Add(time.Second)) {
		t.Errorf("take past the burst: %v %v, want false at now+1s", ok, at)
	}
	if ok, _ := p.Take("other", r); !ok {
		t.Error("another account has its own bucket")
	}
	clk.Step(time.Second)
	if ok, _ := p.Take("k", r); !ok {
		t.Error("one second later at 60/min one more may go")
	}
	until := clk.Now().Add(30 * time.Second)
	p.Hold("k", r, until)
	if h, held := p.Held("k"); !held || !h.Equal(until) {
		t.Errorf("Held after Hold: %v %v", h, held)
	}
	clk.Step(10 * time.Second)
	if ok, at := p.Take("k", r); ok || !at.Equal(until) {
		t.Errorf("take during a hold: %v %v, want false at %v", ok, at, until)
	}
	clk.Step(20 * time.Second)
	if _, held := p.Held("k"); held {
		t.Error("the hold ends at its time")
	}
	if ok, _ := p.Take("k", r); !ok {
		t.Error("after the hold a request may go")
	}
}

// TestPacerTakeN: a create that costs several content-creating requests
// spends them all, so a burst of 20 at two each is 10 creates, and the
// wait for the next is for both of its requests.
func TestPacerTakeN(t *testing.T) {
	clk := clocktesting.NewFakeClock(time.Unix(1e9, 0))
	p := NewPacer(clk)
	r := Rate{PerMinute: 60, Burst: 20}
	creates := 0
	for {
		ok, at := p.TakeN("k", r, 2)
		if !ok {
			if want := clk.Now().Add(2 * time.Second); !at.Equal(want) {
				t.Errorf("the next create of two requests waits until %v, want %v (two tokens at 60 a minute)", at, want)
			}
			break
		}
		creates++
	}
	if creates != 10 {
		t.Errorf("%d creates of two requests within a burst of 20, want 10", creates)
	}
	if ok, _ := p.TakeN("big", Rate{PerMinute: 60, Burst: 2}, 5); !ok {
		t.Error("a cost above the burst is capped at the burst, or it would never go")
	}
}

// TestPacerHourly: a rate with PerHour counts the last hour's requests:
// past it the next waits for the oldest to leave the hour, whatever the
// minute's bucket holds.
func TestPacerHourly(t *testing.T) {
	clk := clocktesting.NewFakeClock(time.Unix(1e9, 0))
	t0 := clk.Now()
	p := NewPacer(clk)
	r := Rate{PerMinute: 60, Burst: 20, PerHour: 50}
	sent := 0
	for range 30 {
		if ok, _ := p.TakeN("k", r, 2); ok {
			sent += 2
		}
		clk.Step(time.Minute)
	}
	if sent != 50 {
		t.Errorf("%d requests in half an hour, want the hour's 50", sent)
	}
	ok, at := p.TakeN("k", r, 2)
	if want := t0.Add(time.Hour); ok || !at.Equal(want) {
		t.Errorf("past the hour's 50: %v until %v, want a wait until the first take leaves the hour, %v", ok, at, want)
	}
	clk.SetTime(t0.Add(time.Hour))
	if ok, _ := p.TakeN("k", r, 2); !ok {
		t.Error("an hour after the first take, its two requests are free again")
	}
}

func TestRateOf(t *testing.T) {
	cases := map[string]struct {
		reason string
		typ    Type
		want   Rate
	}{
		"GitHub": {reason: "Within the secondary limits of 80 a minute and 500 an hour.", typ: GitHub, want: Rate{PerMinute: 60, Burst: 20, PerHour: 500}},
		"GitLab": {reason: "No documented limit this low: polite only.", typ: GitLab, want: Rate{PerMinute: 300, Burst: 50}},
		"Gitea": {reason: "Gitea opens pull requests one at a time: a small burst, the rest wait requeued, not in its queue past the reconcile's timeout.",
			typ: Gitea, want: Rate{PerMinute: 300, Burst: 10}},
		"Forgejo":             {reason: "Forgejo is Gitea's fork: the same.", typ: Forgejo, want: Rate{PerMinute: 300, Burst: 10}},
		"BitbucketCloud":      {reason: "About three requests a create within Cloud's 1,000 an hour.", typ: BitbucketCloud, want: Rate{PerMinute: 5, Burst: 10}},
		"BitbucketDataCenter": {reason: "Well within Data Center's default bucket (60, 5 a second).", typ: BitbucketDataCenter, want: Rate{PerMinute: 60, Burst: 20}},
		"AzureDevOps":         {reason: "Azure counts throughput units, not requests, and says when to wait: paced as an unknown forge.", typ: AzureDevOps, want: Rate{PerMinute: 60, Burst: 10}},
		"Unknown":             {reason: "An unknown forge is paced as carefully as GitHub.", typ: Type("other"), want: Rate{PerMinute: 60, Burst: 10}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, RateOf(tc.typ)); diff != "" {
				t.Errorf("%s\nRateOf(%s): -want, +got:\n%s", tc.reason, tc.typ, diff)
			}
		})
	}
}

// A create recorded while a list is in flight survives that list's answer,
// which the forge may have computed before the create: otherwise the next
// Find misses the pull request just opened and the caller opens it again.
func TestBoardRecordDuringList(t *testing.T) {
	clk := clocktesting.NewFakeClock(time.Unix(1e9, 0))
	c := &lister{gate: make(chan struct{})}
	l := NewBoard(clk).For("repo", "", c, time.Minute)
	ctx := context.Background()
	done := make(chan error)
	go func() {
		_, err := l.Open(ctx, time.Minute)
		done <- err
	}()
	for c.lists.Load() == 0 {
		time.Sleep(time.Millisecond)
	}
	l.Record(PullRequest{Number: 9, Head: "b", Base: "main", HeadInRepo: true, State: StateOpen})
	close(c.gate)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if _, ok, _ := l.Find(ctx, time.Minute, "b", "main"); !ok {
		t.Error("a pull request recorded during a list is missing once that list answered")
	}
	if got := c.lists.Load(); got != 1 {
		t.Errorf("Find after the list: %d lists, want 1", got)
	}
}

// An Invalidate while a list is in flight makes the next Open list again:
// the answer in flight may predate what made the caller invalidate.
func TestBoardInvalidateDuringList(t *testing.T) {
	clk := clocktesting.NewFakeClock(time.Unix(1e9, 0))
	c := &lister{gate: make(chan struct{})}
	l := NewBoard(clk).For("repo", "", c, time.Minute)
	ctx := context.Background()
	done := make(chan error)
	go func() {
		_, err := l.Open(ctx, time.Minute)
		done <- err
	}()
	for c.lists.Load() == 0 {
		time.Sleep(time.Millisecond)
	}
	l.Invalidate()
	close(c.gate)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if _, err := l.Open(ctx, time.Minute); err != nil {
		t.Fatal(err)
	}
	if got := c.lists.Load(); got != 2 {
		t.Errorf("Open after an Invalidate during a list: %d lists, want 2", got)
	}
}

// TestFindSkipsForks: a fork's pull request from a branch of the same name
// is never found for adoption, even listed first; Forks names it. Before,
// Find matched head and base only and returned the fork's.
func TestFindSkipsForks(t *testing.T) {
	fork := PullRequest{Number: 1, Head: "env/staging", Base: "main", HeadRepo: "stranger/apps", State: StateOpen}
	ours := PullRequest{Number: 2, Head: "env/staging", Base: "main", HeadRepo: "acme/apps", HeadInRepo: true, State: StateOpen}
	cases := map[string]struct {
		reason string
		prs    []PullRequest
		want   int64
		forks  []int64
	}{
		"ForkOnly":  {"A fork's alone is not found.", []PullRequest{fork}, 0, []int64{1}},
		"ForkFirst": {"Listed first, the fork's is passed over for ours.", []PullRequest{fork, ours}, 2, []int64{1}},
		"OursOnly":  {"Ours is found; no fork.", []PullRequest{ours}, 2, nil},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			l := NewBoard(clocktesting.NewFakeClock(time.Unix(1e9, 0))).For("repo", "", &lister{prs: tc.prs}, time.Minute)
			pr, _, err := l.Find(context.Background(), time.Minute, "env/staging", "main")
			if err != nil {
				t.Fatal(err)
			}
			if pr.Number != tc.want {
				t.Errorf("%s\nFind: want #%d, got #%d", tc.reason, tc.want, pr.Number)
			}
			forks, _ := l.Forks(context.Background(), time.Minute, "env/staging", "main")
			var got []int64
			for _, f := range forks {
				got = append(got, f.Number)
			}
			if diff := cmp.Diff(tc.forks, got); diff != "" {
				t.Errorf("%s\nForks: -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}

// TestBoardInvalidate: an event for a clone makes each listing read
// through it (one per set of forge credentials) list again at its next
// use, and leaves another clone's list alone.
func TestBoardInvalidate(t *testing.T) {
	ctx := context.Background()
	clk := clocktesting.NewFakeClock(time.Unix(1e9, 0))
	b := NewBoard(clk)
	a1, a2, other := &lister{}, &lister{}, &lister{}
	ls := []*Listing{
		b.For("a-alice", "clone-a", a1, time.Hour),
		b.For("a-bob", "clone-a", a2, time.Hour),
		b.For("b-alice", "clone-b", other, time.Hour),
	}
	for _, l := range ls {
		if _, err := l.Open(ctx, time.Hour); err != nil {
			t.Fatal(err)
		}
	}
	if got := b.Invalidate("clone-a"); got != 2 {
		t.Errorf("Invalidate(clone-a) invalidated %d listings, want 2", got)
	}
	if got := b.Invalidate(""); got != 0 {
		t.Errorf("Invalidate(\"\") invalidated %d listings, want 0: a listing of no known clone is never named", got)
	}
	clk.Step(EventRelist)
	for _, l := range ls {
		if _, err := l.Open(ctx, time.Hour); err != nil {
			t.Fatal(err)
		}
	}
	got := []int32{a1.lists.Load(), a2.lists.Load(), other.lists.Load()}
	if diff := cmp.Diff([]int32{2, 2, 1}, got); diff != "" {
		t.Errorf("lists per listing after an event for clone-a (fresh for an hour otherwise): -want, +got:\n%s", diff)
	}
}

// TestBoardEventsSpaceLists: forge events invalidate the listings of their
// clone only, and a list they ask for comes no sooner than EventRelist
// after the last one, however many events came: a caller that cannot wait
// that long gets its context's error, not a list.
func TestBoardEventsSpaceLists(t *testing.T) {
	clk := clocktesting.NewFakeClock(time.Unix(1e9, 0))
	b := NewBoard(clk)
	c, other := &lister{}, &lister{}
	l := b.For("repo", "clone-a", c, time.Minute)
	b.For("repo-b", "clone-b", other, time.Minute)
	if _, err := l.Open(context.Background(), time.Minute); err != nil {
		t.Fatal(err)
	}
	for range 100 {
		b.Invalidate("clone-a")
	}
	ctx, cancel := context.WithTimeout(context.Background(), EventRelist/10)
	defer cancel()
	_, early := l.Open(ctx, time.Minute)
	clk.Step(EventRelist)
	_, err := l.Open(context.Background(), time.Minute)
	got := []any{early != nil, err, c.lists.Load(), other.lists.Load()}
	if diff := cmp.Diff([]any{true, nil, int32(2), int32(0)}, got, cmpopts.EquateErrors()); diff != "" {
		t.Errorf("an Open within EventRelist of the last list refused, one after it listed, 100 events cost one list, clone-b untouched: -want, +got:\n%s", diff)
	}
}

func TestSpecFor(t *testing.T) {
	s := Spec{Reviewers: []string{"alice"}, OptionalReviewers: []string{"bob"}}
	cases := map[string]struct {
		reason string
		typ    Type
		want   Spec
	}{
		"AzureDevOps": {reason: "Azure tells an optional reviewer from a required one: kept apart.", typ: AzureDevOps, want: s},
		"GitHub": {reason: "GitHub requests every reviewer alike: optional ones are requested as reviewers.", typ: GitHub,
			want: Spec{Reviewers: []string{"alice", "bob"}}},
		"BitbucketCloud": {reason: "So does Bitbucket.", typ: BitbucketCloud, want: Spec{Reviewers: []string{"alice", "bob"}}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, s.For(tc.typ)); diff != "" {
				t.Errorf("%s\nFor(%s): -want, +got:\n%s", tc.reason, tc.typ, diff)
			}
		})
	}
	if len(s.Reviewers) != 1 {
		t.Errorf("For changed the Spec it was called on: %v", s.Reviewers)
	}
}
