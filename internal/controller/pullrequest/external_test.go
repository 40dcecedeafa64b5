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

package pullrequest

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/crossplane/crossplane-runtime/v2/pkg/errors"
	"github.com/crossplane/crossplane-runtime/v2/pkg/meta"
	xpmanaged "github.com/crossplane/crossplane-runtime/v2/pkg/reconciler/managed"
	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	clocktesting "k8s.io/utils/clock/testing"
	"k8s.io/utils/ptr"

	"github.com/crossplane-contrib/provider-git/apis/v1alpha1"
	"github.com/crossplane-contrib/provider-git/internal/forge"
	"github.com/crossplane-contrib/provider-git/internal/reconciler/managed"
	"github.com/crossplane-contrib/provider-git/internal/reconciler/spec"
	"github.com/crossplane-contrib/provider-git/internal/testharness/forgetest/memory"
)

// outcome is what one call of the external client concluded, in the terms
// the reconciler acts on.
type outcome struct {
	Obs xpmanaged.ExternalObservation
	// Reason of a Stalled or Waiting error; Err its message for others.
	Reason xpv2.ConditionReason
	Stall  bool
	After  time.Duration
	Err    string
	// Name is the external name after the call; State atProvider's.
	Name  string
	State string
	Calls map[string]int
}

func outcomeOf(mg *v1alpha1.PullRequest, obs xpmanaged.ExternalObservation, err error, f *memory.Forge) outcome {
	o := outcome{Obs: obs, Name: meta.GetExternalName(mg), State: mg.Status.AtProvider.State, Calls: f.Calls()}
	if r, ok := managed.StalledReason(err); ok {
		o.Reason, o.Stall = r, true
	} else if we, ok := managed.IsWaiting(err); ok {
		o.Reason, o.After = we.Reason, we.After
	} else if err != nil {
		o.Err = err.Error()
	}
	return o
}

func TestObserve(t *testing.T) {
	upToDate := xpmanaged.ExternalObservation{ResourceExists: true, ResourceUpToDate: true}
	type args struct {
		forge *memory.Forge
		mg    *v1alpha1.PullRequest
		heads []string
	}
	cases := map[string]struct {
		reason string
		args   args
		want   outcome
	}{
		"OpenAsDeclared": {
			reason: "An open pull request as declared is up to date, read from the shared list alone.",
			args:   args{forge: memory.New(open(1)), mg: pullRequest(numbered("1"))},
			want:   outcome{Obs: upToDate, Name: "1", State: "Open", Calls: map[string]int{"ListOpen": 1}},
		},
		"Adopt": {
			reason: "With no number yet (a restart, a lost status write), the open one for the same branches is adopted, never duplicated.",
			args:   args{forge: memory.New(open(3)), mg: pullRequest()},
			want:   outcome{Obs: upToDate, Name: "3", State: "Open", Calls: map[string]int{"ListOpen": 1}},
		},
		"AdoptNotAnotherBase": {
			reason: "An open pull request of the same head into another base is not this one's; the head exists, so it is to be created.",
			args:   args{forge: memory.New(func() forge.PullRequest { p := open(3); p.Base = "release"; return p }()), mg: pullRequest(), heads: []string{"request/demo", "main"}},
			want:   outcome{Calls: map[string]int{"ListOpen": 1}},
		},
		"HeadMissing": {
			reason: "A head branch that does not exist yet is a wait (progressing, back soon), not a stall, so a Branch and its PullRequest converge in any order.",
			args:   args{forge: memory.New(), mg: pullRequest()},
			want:   outcome{Reason: ReasonHeadBranchMissing, After: headRetry, Calls: map[string]int{"ListOpen": 1}},
		},
		"TitleEdited": {
			reason: "A person's edit of the title is drift: Update puts it back.",
			args:   args{forge: memory.New(func() forge.PullRequest { p := open(1); p.Title = "Edited"; return p }()), mg: pullRequest(numbered("1"))},
			want:   outcome{Obs: xpmanaged.ExternalObservation{ResourceExists: true, Diff: "title differ from the spec"}, Name: "1", State: "Open", Calls: map[string]int{"ListOpen": 1}},
		},
		"LabelAdded": {
			reason: "A label a person added is drift too: labels are kept as declared.",
			args:   args{forge: memory.New(func() forge.PullRequest { p := open(1); p.Labels = []string{"env", "wip"}; return p }()), mg: pullRequest(numbered("1"))},
			want:   outcome{Obs: xpmanaged.ExternalObservation{ResourceExists: true, Diff: "labels differ from the spec"}, Name: "1", State: "Open", Calls: map[string]int{"ListOpen": 1}},
		},
		"ClosedByAPerson": {
			reason: "A pull request closed without a merge is Stalled Closed (never reopened); the list does not hold it, so one Get says so.",
			args:   args{forge: memory.New(func() forge.PullRequest { p := open(1); p.State = forge.StateClosed; return p }()), mg: pullRequest(numbered("1"))},
			want:   outcome{Reason: ReasonClosed, Stall: true, Name: "1", State: "Closed", Calls: map[string]int{"ListOpen": 1, "Get": 1}},
		},
		"ClosedIsFinal": {
			reason: "Once status says Closed, nothing is asked of the forge again.",
			args:   args{forge: memory.New(), mg: pullRequest(numbered("1"), func(mg *v1alpha1.PullRequest) { mg.Status.AtProvider.State = "Closed" })},
			want:   outcome{Reason: ReasonClosed, Stall: true, Name: "1", State: "Closed", Calls: map[string]int{}},
		},
		"Merged": {
			reason: "A merged pull request is up to date (Ready with either readiness), found by a Get.",
			args:   args{forge: memory.New(func() forge.PullRequest { p := open(1); p.State, p.MergeCommit = forge.StateMerged, "m3rg3"; return p }()), mg: pullRequest(numbered("1"))},
			want:   outcome{Obs: upToDate, Name: "1", State: "Merged", Calls: map[string]int{"ListOpen": 1, "Get": 1}},
		},
		"MergedIsFinal": {
			reason: "Once status says Merged, nothing is asked of the forge again, even if its title changed since.",
			args:   args{forge: memory.New(), mg: pullRequest(numbered("1"), func(mg *v1alpha1.PullRequest) { mg.Status.AtProvider.State = "Merged" })},
			want:   outcome{Obs: upToDate, Name: "1", State: "Merged", Calls: map[string]int{}},
		},
		"AwaitingMerge": {
			reason: "With readiness Merged an open pull request as declared waits for the merge: progressing (kstatus InProgress), polled, with a Get for its checks.",
			args:   args{forge: memory.New(open(1)), mg: pullRequest(numbered("1"), func(mg *v1alpha1.PullRequest) { mg.Spec.ForProvider.Readiness = v1alpha1.ReadinessMerged })},
			want:   outcome{Obs: upToDate, Reason: ReasonAwaitingMerge, After: time.Minute, Name: "1", State: "Open", Calls: map[string]int{"ListOpen": 1, "Get": 1}},
		},
		"AutoNotRequested": {
			reason: "merge Auto the forge was not asked for yet is drift: Update asks it.",
			args:   args{forge: memory.New(open(1)), mg: pullRequest(numbered("1"), func(mg *v1alpha1.PullRequest) { mg.Spec.ForProvider.Merge.Strategy = v1alpha1.MergeAuto })},
			want:   outcome{Obs: xpmanaged.ExternalObservation{ResourceExists: true, Diff: "merge Auto is not requested of the forge yet"}, Name: "1", State: "Open", Calls: map[string]int{"ListOpen": 1, "Get": 1}},
		},
		"AutoRequested": {
			reason: "merge Auto the forge holds is up to date.",
			args:   args{forge: memory.New(func() forge.PullRequest { p := open(1); p.AutoMerge = true; return p }()), mg: pullRequest(numbered("1"), func(mg *v1alpha1.PullRequest) { mg.Spec.ForProvider.Merge.Strategy = v1alpha1.MergeAuto })},
			want:   outcome{Obs: upToDate, Name: "1", State: "Open", Calls: map[string]int{"ListOpen": 1, "Get": 1}},
		},
		"GoneFromTheForge": {
			reason: "A number the forge does not know (an owner deleted the merge request) is forgotten: the pull request is opened again.",
			args:   args{forge: memory.New(), mg: pullRequest(numbered("4")), heads: []string{"request/demo", "main"}},
			want:   outcome{Calls: map[string]int{"ListOpen": 1, "Get": 1}},
		},
		"DeletingOpen": {
			reason: "Being deleted, an open pull request exists: the reconciler calls Delete (only if managementPolicies include it).",
			args:   args{forge: memory.New(open(1)), mg: pullRequest(numbered("1"), deleting)},
			want:   outcome{Obs: xpmanaged.ExternalObservation{ResourceExists: true}, Name: "1", State: "Open", Calls: map[string]int{"ListOpen": 1}},
		},
		"DeletingMerged": {
			reason: "Being deleted, a merged pull request is left alone: it is reported gone.",
			args:   args{forge: memory.New(), mg: pullRequest(numbered("1"), deleting, func(mg *v1alpha1.PullRequest) { mg.Status.AtProvider.State = "Merged" })},
			want:   outcome{Obs: xpmanaged.ExternalObservation{ResourceUpToDate: true}, Name: "1", State: "Merged", Calls: map[string]int{}},
		},
		"DeletingClosed": {
			reason: "Being deleted, a closed pull request is gone.",
			args:   args{forge: memory.New(), mg: pullRequest(numbered("1"), deleting, func(mg *v1alpha1.PullRequest) { mg.Status.AtProvider.State = "Closed" })},
			want:   outcome{Name: "1", State: "Closed", Calls: map[string]int{}},
		},
		"RateLimited": {
			reason: "A rate-limited list is progressing until the forge's time, never Stalled.",
			args: args{forge: func() *memory.Forge {
				f := memory.New(open(1))
				f.Fail("ListOpen", &forge.RateLimitError{At: t0.Add(90 * time.Second), Msg: "secondary rate limit"})
				return f
			}(), mg: pullRequest(numbered("1"))},
			want: outcome{Reason: ReasonRateLimited, After: 90 * time.Second, Name: "1", Calls: map[string]int{"ListOpen": 1}},
		},
		"Unauthorized": {
			reason: "A refused token is Stalled AuthenticationFailed, naming where the token came from.",
			args: args{forge: func() *memory.Forge {
				f := memory.New(open(1))
				f.Fail("ListOpen", &forge.APIError{Status: 401, Message: "Bad credentials", Kind: forge.ErrUnauthorized})
				return f
			}(), mg: pullRequest(numbered("1"))},
			want: outcome{Reason: spec.ReasonAuthenticationFailed, Stall: true, Name: "1", Calls: map[string]int{"ListOpen": 1}},
		},
		"Transient": {
			reason: "Anything else is transient: retried with backoff.",
			args: args{forge: func() *memory.Forge {
				f := memory.New(open(1))
				f.Fail("ListOpen", errors.New("502 Bad Gateway"))
				return f
			}(), mg: pullRequest(numbered("1"))},
			want: outcome{Err: "cannot find the pull request among the open ones: cannot list the open pull requests: 502 Bad Gateway", Name: "1", Calls: map[string]int{"ListOpen": 1}},
		},
		"InvalidBody": {
			reason: "A body template that ranges over anything but .Files is Stalled InvalidSpec before any request.",
			args:   args{forge: memory.New(open(1)), mg: pullRequest(numbered("1"), func(mg *v1alpha1.PullRequest) { mg.Spec.ForProvider.Body = "{{range 2000000000}}{{end}}" })},
			want:   outcome{Reason: spec.ReasonInvalidSpec, Stall: true, Name: "1", Calls: map[string]int{}},
		},
		"RequiredAndOptional": {
			reason: "A reviewer both required and optional (the CRD's rule, again in code) is Stalled InvalidSpec before any request.",
			args: args{forge: memory.New(open(1)), mg: pullRequest(numbered("1"), func(mg *v1alpha1.PullRequest) {
				mg.Spec.ForProvider.Reviewers, mg.Spec.ForProvider.OptionalReviewers = []string{"alice"}, []string{"alice"}
			})},
			want: outcome{Reason: spec.ReasonInvalidSpec, Stall: true, Name: "1", Calls: map[string]int{}},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			e := newExternal(tc.args.forge, clocktesting.NewFakeClock(t0), tc.args.heads...)
			obs, err := e.Observe(context.Background(), tc.args.mg)
			got := outcomeOf(tc.args.mg, obs, err, tc.args.forge)
			if diff := cmp.Diff(tc.want, got, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("%s\nObserve(...): -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}

func TestCreate(t *testing.T) {
	cases := map[string]struct {
		reason string
		forge  *memory.Forge
		want   outcome
	}{
		"Opened": {
			reason: "A new pull request is opened and named by its number.",
			forge:  memory.New(),
			want:   outcome{Name: "1", State: "Open", Calls: map[string]int{"Create": 1}},
		},
		"AlreadyOpen": {
			reason: "A create the forge refuses as existing (422 on GitHub) adopts the open one: never a duplicate.",
			forge: func() *memory.Forge {
				f := memory.New(open(5))
				return f
			}(),
			want: outcome{Name: "5", State: "Open", Calls: map[string]int{"Create": 1, "ListOpen": 1}},
		},
		"OpenIntoAnotherBase": {
			reason: "GitLab refuses a second open merge request from one head even into another base: Stalled with the forge's words, never an empty adoption.",
			forge: func() *memory.Forge {
				f := memory.New()
				f.Fail("Create", &forge.APIError{Status: 409, Message: "Another open merge request already exists for this source branch: !4", Kind: forge.ErrExists})
				return f
			}(),
			want: outcome{Reason: ReasonForgeRefused, Stall: true, Calls: map[string]int{"Create": 1, "ListOpen": 1}},
		},
		"NoSuchBranch": {
			reason: "A head the forge does not know yet is a wait, not a stall.",
			forge: func() *memory.Forge {
				f := memory.New()
				f.Fail("Create", &forge.APIError{Status: 422, Message: "head does not exist", Kind: forge.ErrNoSuchBranch})
				return f
			}(),
			want: outcome{Reason: ReasonHeadBranchMissing, After: headRetry, Calls: map[string]int{"Create": 1}},
		},
		"RateLimited": {
			reason: "A 403 secondary limit with Retry-After is progressing until then.",
			forge: func() *memory.Forge {
				f := memory.New()
				f.Fail("Create", &forge.RateLimitError{At: t0.Add(time.Minute), Msg: "You have exceeded a secondary rate limit"})
				return f
			}(),
			want: outcome{Reason: ReasonRateLimited, After: time.Minute, Calls: map[string]int{"Create": 1}},
		},
		"UnknownReviewer": {
			reason: "A request the forge refuses as invalid (an unknown reviewer) needs a person: Stalled with the forge's words.",
			forge: func() *memory.Forge {
				f := memory.New()
				f.Fail("Create", &forge.APIError{Status: 422, Message: "Reviews may only be requested from collaborators", Kind: forge.ErrInvalidInput})
				return f
			}(),
			want: outcome{Reason: ReasonForgeRefused, Stall: true, Calls: map[string]int{"Create": 1}},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			mg := pullRequest()
			e := newExternal(tc.forge, clocktesting.NewFakeClock(t0))
			_, err := e.Create(context.Background(), mg)
			got := outcomeOf(mg, xpmanaged.ExternalObservation{}, err, tc.forge)
			if diff := cmp.Diff(tc.want, got, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("%s\nCreate(...): -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}

// TestCreatePaced: creates beyond the forge's burst (or the one the
// Connector was given, WithRates) wait for their turn (progressing), and
// are not sent.
func TestCreatePaced(t *testing.T) {
	cases := map[string]struct {
		reason string
		rates  func(forge.Type) forge.Rate
		// cost is what each create costs in content-creating requests
		// (0: the client does not say).
		cost  int
		burst int
	}{
		"ForgesOwn": {
			reason: "Without rates, Gitea's own burst goes at once.",
			burst:  int(forge.RateOf(forge.Gitea).Burst),
		},
		"Given": {
			reason: "With rates, their burst goes at once, not the forge's.",
			rates:  func(forge.Type) forge.Rate { return forge.Rate{PerMinute: 60, Burst: 3} },
			burst:  3,
		},
		"CostlyCreates": {
			reason: "A create the forge follows with more content-creating requests (GitHub's labels) spends them all: a burst of 4 is 2 creates of 2.",
			rates:  func(forge.Type) forge.Rate { return forge.Rate{PerMinute: 60, Burst: 4} },
			cost:   2,
			burst:  2,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			f := memory.New()
			clk := clocktesting.NewFakeClock(t0)
			e := newExternal(f, clk)
			if tc.cost > 0 {
				e.acc.client = costly{Forge: f, cost: tc.cost}
			}
			e.rates = tc.rates
			for i := range tc.burst + 1 {
				mg := pullRequest(func(mg *v1alpha1.PullRequest) { mg.Spec.ForProvider.Head = fmt.Sprintf("request/%d", i) })
				_, err := e.Create(context.Background(), mg)
				we, waiting := managed.IsWaiting(err)
				switch {
				case i < tc.burst && err != nil:
					t.Fatalf("%s\ncreate %d of a burst of %d: %v", tc.reason, i, tc.burst, err)
				case i == tc.burst && (!waiting || we.Reason != ReasonRateLimited):
					t.Fatalf("%s\ncreate %d beyond the burst: got %v, want a RateLimited wait", tc.reason, i, err)
				}
			}
			if diff := cmp.Diff(tc.burst, f.Calls()["Create"]); diff != "" {
				t.Errorf("%s\ncreates sent: -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}

// costly is a forge whose every create costs cost content-creating
// requests.
type costly struct {
	*memory.Forge
	cost int
}

func (c costly) CreateCost(forge.Spec) int { return c.cost }

func TestUpdate(t *testing.T) {
	cases := map[string]struct {
		reason string
		forge  *memory.Forge
		mg     *v1alpha1.PullRequest
		want   outcome
		title  string
		state  forge.State
	}{
		"PutTitleBack": {
			reason: "A person's title edit is put back.",
			forge:  memory.New(func() forge.PullRequest { p := open(1); p.Title = "Edited"; return p }()),
			mg:     pullRequest(numbered("1")),
			want:   outcome{Name: "1", State: "Open", Calls: map[string]int{"ListOpen": 1, "Update": 1}},
			title:  "Add demo", state: forge.StateOpen,
		},
		"AutoMerge": {
			reason: "merge Auto asks the forge to merge once checks and reviews allow.",
			forge:  memory.New(open(1)),
			mg:     pullRequest(numbered("1"), func(mg *v1alpha1.PullRequest) { mg.Spec.ForProvider.Merge.Strategy = v1alpha1.MergeAuto }),
			want:   outcome{Name: "1", State: "Open", Calls: map[string]int{"ListOpen": 1, "Get": 1, "AutoMerge": 1}},
			title:  "Add demo", state: forge.StateOpen,
		},
		"MergeWhereNoAutoMerge": {
			reason: "Where the forge has no auto-merge, the provider merges once the pull request is mergeable and no check failed.",
			forge: func() *memory.Forge {
				p := open(1)
				p.Mergeable, p.Checks = ptr.To(true), forge.ChecksSuccess
				f := memory.New(p)
				f.NoAutoMerge()
				return f
			}(),
			mg:    pullRequest(numbered("1"), func(mg *v1alpha1.PullRequest) { mg.Spec.ForProvider.Merge.Strategy = v1alpha1.MergeAuto }),
			want:  outcome{Name: "1", State: "Open", Calls: map[string]int{"ListOpen": 1, "Get": 1, "AutoMerge": 1, "Merge": 1}},
			title: "Add demo", state: forge.StateMerged,
		},
		"NoMergeWhileChecksFail": {
			reason: "Without auto-merge, failing checks hold the merge.",
			forge: func() *memory.Forge {
				p := open(1)
				p.Mergeable, p.Checks = ptr.To(true), forge.ChecksFailure
				f := memory.New(p)
				f.NoAutoMerge()
				return f
			}(),
			mg:    pullRequest(numbered("1"), func(mg *v1alpha1.PullRequest) { mg.Spec.ForProvider.Merge.Strategy = v1alpha1.MergeAuto }),
			want:  outcome{Name: "1", State: "Open", Calls: map[string]int{"ListOpen": 1, "Get": 1, "AutoMerge": 1}},
			title: "Add demo", state: forge.StateOpen,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			e := newExternal(tc.forge, clocktesting.NewFakeClock(t0))
			if _, err := e.Observe(context.Background(), tc.mg); err != nil {
				t.Fatalf("Observe: %v", err)
			}
			_, err := e.Update(context.Background(), tc.mg)
			got := outcomeOf(tc.mg, xpmanaged.ExternalObservation{}, err, tc.forge)
			if diff := cmp.Diff(tc.want, got, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("%s\nUpdate(...): -want, +got:\n%s", tc.reason, diff)
			}
			pr, _ := tc.forge.PR(1)
			if diff := cmp.Diff([]any{tc.title, tc.state}, []any{pr.Title, pr.State}); diff != "" {
				t.Errorf("%s\nthe forge's pull request (title, state): -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}

func TestDelete(t *testing.T) {
	f := memory.New(open(1))
	mg := pullRequest(numbered("1"), deleting)
	e := newExternal(f, clocktesting.NewFakeClock(t0))
	if _, err := e.Delete(context.Background(), mg); err != nil {
		t.Fatal(err)
	}
	if pr, _ := f.PR(1); pr.State != forge.StateClosed {
		t.Errorf("Delete left the pull request %s, want Closed", pr.State)
	}
	// The next Observe reports it gone, and the finalizer can go.
	obs, err := newExternal(f, clocktesting.NewFakeClock(t0)).Observe(context.Background(), mg)
	if err != nil || obs.ResourceExists {
		t.Errorf("Observe after Delete: exists %v, err %v; want gone", obs.ResourceExists, err)
	}
}

// TestSteadyStateOneListPerPoll: 100 open PullRequests of one repository,
// observed once each per poll interval, cost one list request per poll and
// no other request.
func TestSteadyStateOneListPerPoll(t *testing.T) {
	const n = 100
	var prs []forge.PullRequest
	for i := int64(1); i <= n; i++ {
		p := open(i)
		p.Head = fmt.Sprintf("request/%d", i)
		prs = append(prs, p)
	}
	f := memory.New(prs...)
	clk := clocktesting.NewFakeClock(t0)
	board := forge.NewBoard(clk)
	pacer := forge.NewPacer(clk)
	acc := &account{client: f}
	const polls = 3
	for poll := range polls {
		for i := int64(1); i <= n; i++ {
			// A Connect per reconcile, as the reconciler makes.
			e := &external{acc: acc, key: "k", typ: forge.Gitea, repo: fakeRepo{}, listing: board.For("k", "", f, time.Minute),
				pacer: pacer, clock: clk, maxAge: time.Minute}
			mg := pullRequest(numbered(fmt.Sprint(i)), func(mg *v1alpha1.PullRequest) { mg.Spec.ForProvider.Head = fmt.Sprintf("request/%d", i) })
			obs, err := e.Observe(context.Background(), mg)
			if err != nil || !obs.ResourceUpToDate {
				t.Fatalf("poll %d, pull request %d: %+v, %v", poll, i, obs, err)
			}
		}
		clk.Step(time.Minute)
	}
	t.Logf("%d open PullRequests, %d polls: %v", n, polls, f.Calls())
	if diff := cmp.Diff(map[string]int{"ListOpen": polls}, f.Calls()); diff != "" {
		t.Errorf("forge requests: -want, +got:\n%s", diff)
	}
}

// TestAutoMergeAskedOncePerHead: a forge that does not report a scheduled
// auto-merge (Gitea) is asked once per head commit, not at every poll.
func TestAutoMergeAskedOncePerHead(t *testing.T) {
	f := memory.New(open(1))
	clk := clocktesting.NewFakeClock(t0)
	acc := &account{client: f}
	auto := func(mg *v1alpha1.PullRequest) { mg.Spec.ForProvider.Merge.Strategy = v1alpha1.MergeAuto }
	observe := func() xpmanaged.ExternalObservation {
		e := newExternal(f, clk)
		e.acc = acc
		mg := pullRequest(numbered("1"), auto)
		obs, err := e.Observe(context.Background(), mg)
		if err != nil {
			t.Fatal(err)
		}
		if !obs.ResourceUpToDate {
			if _, err := e.Update(context.Background(), mg); err != nil {
				t.Fatal(err)
			}
		}
		// The forge does not say it is scheduled.
		f.Edit(1, func(p *forge.PullRequest) { p.AutoMerge = false })
		return obs
	}
	observe()
	if obs := observe(); !obs.ResourceUpToDate {
		t.Errorf("asked again for the same head: %+v", obs)
	}
	f.Edit(1, func(p *forge.PullRequest) { p.HeadSHA = "def" })
	if obs := observe(); obs.ResourceUpToDate {
		t.Errorf("not asked again after the head moved")
	}
	if diff := cmp.Diff(2, f.Calls()["AutoMerge"]); diff != "" {
		t.Errorf("auto-merge requests: -want, +got:\n%s", diff)
	}
}
