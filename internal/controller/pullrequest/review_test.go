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
	"strings"
	"testing"
	"time"

	xpmanaged "github.com/crossplane/crossplane-runtime/v2/pkg/reconciler/managed"
	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	clocktesting "k8s.io/utils/clock/testing"
	"k8s.io/utils/ptr"

	"github.com/crossplane-contrib/provider-git/apis/v1alpha1"
	"github.com/crossplane-contrib/provider-git/internal/forge"
	"github.com/crossplane-contrib/provider-git/internal/reconciler/managed"
	"github.com/crossplane-contrib/provider-git/internal/testharness/forgetest/memory"
)

func edited(n int64, edit func(*forge.PullRequest)) forge.PullRequest {
	p := open(n)
	edit(&p)
	return p
}

// TestObserveNotOurs: a number the external name names whose head or base
// differ, or whose head is in a fork, is Stalled NotOurs and left alone.
func TestObserveNotOurs(t *testing.T) {
	type args struct {
		pr forge.PullRequest
		mg *v1alpha1.PullRequest
	}
	cases := map[string]struct {
		reason string
		args   args
		want   outcome
	}{
		"OtherHead": {
			reason: "Another head is not this resource's: Stalled, no Update.",
			args:   args{pr: edited(1, func(p *forge.PullRequest) { p.Head = "someone/else"; p.Title = "x" }), mg: pullRequest(numbered("1"))},
			want:   outcome{Reason: ReasonNotOurs, Stall: true, Name: "1", Calls: map[string]int{"ListOpen": 1}},
		},
		"OtherBase": {
			reason: "Another base is not this resource's.",
			args:   args{pr: edited(1, func(p *forge.PullRequest) { p.Base = "release" }), mg: pullRequest(numbered("1"))},
			want:   outcome{Reason: ReasonNotOurs, Stall: true, Name: "1", Calls: map[string]int{"ListOpen": 1}},
		},
		"Fork": {
			reason: "A head of the same name in a fork is not this resource's.",
			args:   args{pr: edited(1, func(p *forge.PullRequest) { p.HeadRepo = "mallory/fork" }), mg: pullRequest(numbered("1"))},
			want:   outcome{Reason: ReasonNotOurs, Stall: true, Name: "1", Calls: map[string]int{"ListOpen": 1}},
		},
		"DeletingOtherHead": {
			reason: "Deleting a resource whose number is not its own reports it gone: the finalizer goes, nothing is closed.",
			args:   args{pr: edited(1, func(p *forge.PullRequest) { p.Head = "someone/else" }), mg: pullRequest(numbered("1"), deleting)},
			want:   outcome{Name: "1", Calls: map[string]int{"ListOpen": 1}},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			f := memory.New(tc.args.pr)
			obs, err := newExternal(f, clocktesting.NewFakeClock(t0), "request/demo", "main").Observe(context.Background(), tc.args.mg)
			if diff := cmp.Diff(tc.want, outcomeOf(tc.args.mg, obs, err, f)); diff != "" {
				t.Errorf("%s\nObserve(...): -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}

// TestAdoptNeverAFork: Find's answer is checked again by the controller.
func TestAdoptNeverAFork(t *testing.T) {
	f := memory.New(edited(3, func(p *forge.PullRequest) { p.HeadRepo = "mallory/fork" }))
	mg := pullRequest()
	obs, err := newExternal(f, clocktesting.NewFakeClock(t0), "request/demo", "main").Observe(context.Background(), mg)
	want := outcome{Calls: map[string]int{"ListOpen": 1}}
	if diff := cmp.Diff(want, outcomeOf(mg, obs, err, f)); diff != "" {
		t.Errorf("a fork's pull request is never adopted: -want, +got:\n%s", diff)
	}
}

// TestDeleteNotOurs: Delete re-checks and never closes another's.
func TestDeleteNotOurs(t *testing.T) {
	cases := map[string]struct {
		reason string
		pr     forge.PullRequest
		want   forge.State
	}{
		"OtherHead": {reason: "Another head's pull request is left open.", pr: edited(1, func(p *forge.PullRequest) { p.Head = "x" }), want: forge.StateOpen},
		"Fork":      {reason: "A fork's pull request is left open.", pr: edited(1, func(p *forge.PullRequest) { p.HeadRepo = "m/f" }), want: forge.StateOpen},
		"Ours":      {reason: "Its own is closed.", pr: open(1), want: forge.StateClosed},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			f := memory.New(tc.pr)
			if _, err := newExternal(f, clocktesting.NewFakeClock(t0)).Delete(context.Background(), pullRequest(numbered("1"))); err != nil {
				t.Fatal(err)
			}
			got, _ := f.PR(1)
			if diff := cmp.Diff(tc.want, got.State); diff != "" {
				t.Errorf("%s\nDelete: -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}

// pinned records the Merge arguments and answers as told.
type pinned struct {
	*memory.Forge
	got  []forge.Merge
	auto error
	errs map[int64]error
}

func (p *pinned) Merge(ctx context.Context, n int64, m forge.Merge) error {
	p.got = append(p.got, m)
	if err := p.errs[n]; err != nil {
		return err
	}
	return p.Forge.Merge(ctx, n, m)
}

func (p *pinned) AutoMerge(ctx context.Context, n int64, m forge.Merge) error {
	p.got = append(p.got, m)
	if err := p.errs[n]; err != nil {
		return err
	}
	if p.auto != nil {
		return p.auto
	}
	return p.Forge.AutoMerge(ctx, n, m)
}

func autoMerge(mg *v1alpha1.PullRequest) { mg.Spec.ForProvider.Merge.Strategy = v1alpha1.MergeAuto }

// TestMergePinnedToHead: every merge names the head judged; a moved head
// is judged again, not an error and not merged.
func TestMergePinnedToHead(t *testing.T) {
	mergeable := edited(1, func(p *forge.PullRequest) { p.Mergeable = ptr.To(true) })
	type want struct {
		got   []forge.Merge
		err   bool
		state forge.State
	}
	cases := map[string]struct {
		reason string
		auto   error
		errs   map[int64]error
		want   want
	}{
		"AutoMergePinned": {reason: "Auto-merge is asked at the head judged.", want: want{got: []forge.Merge{{Method: forge.MethodMerge, HeadSHA: "abc"}}, state: forge.StateOpen}},
		"MergePinned": {reason: "The provider's own merge names the head judged.", auto: forge.ErrUnsupported,
			want: want{got: []forge.Merge{{Method: forge.MethodMerge, HeadSHA: "abc"}, {Method: forge.MethodMerge, HeadSHA: "abc"}}, state: forge.StateMerged}},
		"HeadMoved": {reason: "A moved head is no error: judged again at the next reconcile.", errs: map[int64]error{1: forge.ErrHeadMoved},
			want: want{got: []forge.Merge{{Method: forge.MethodMerge, HeadSHA: "abc"}}, state: forge.StateOpen}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			f := memory.New(mergeable)
			p := &pinned{Forge: f, auto: tc.auto, errs: tc.errs}
			e := newExternal(f, clocktesting.NewFakeClock(t0))
			e.acc.client = p
			err := e.merge(context.Background(), pullRequest(numbered("1"), autoMerge), mergeable)
			st, _ := f.PR(1)
			got := want{got: p.got, err: err != nil, state: st.State}
			if diff := cmp.Diff(tc.want, got, cmp.AllowUnexported(want{})); diff != "" {
				t.Errorf("%s\nmerge: -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}

// TestAutoMergeRefusalPerPullRequest: one pull request's refusal does not
// turn auto-merge off for the account, and Ready says which path is taken.
func TestAutoMergeRefusalPerPullRequest(t *testing.T) {
	f := memory.New(open(1), open(2))
	e := newExternal(f, clocktesting.NewFakeClock(t0))
	e.acc.client = &pinned{Forge: f, errs: map[int64]error{1: forge.ErrUnsupported}}
	if err := e.merge(context.Background(), pullRequest(numbered("1"), autoMerge), open(1)); err != nil {
		t.Fatal(err)
	}
	got := map[string]bool{
		"pr2AsksForge":    e.wantsMerge(pullRequest(numbered("2"), autoMerge), open(2)),
		"pr1NotUntilMerg": e.wantsMerge(pullRequest(numbered("1"), autoMerge), open(1)),
	}
	want := map[string]bool{"pr2AsksForge": true, "pr1NotUntilMerg": false}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("per pull request: -want, +got:\n%s", diff)
	}
	if err := e.openOutcome(pullRequest(numbered("1"), autoMerge), open(1)); err != nil {
		t.Fatal(err)
	}
	if want := "pull request #1 is open at https://forge/pulls/1" + msgProviderMergesFmt; e.note != want {
		t.Errorf("note: -want, +got:\n%s", cmp.Diff(want, e.note))
	}
}

// TestAskedPruned: what is remembered of a pull request goes once it is
// no longer open.
func TestAskedPruned(t *testing.T) {
	f := memory.New(edited(1, func(p *forge.PullRequest) { p.State, p.MergeCommit = forge.StateMerged, "m" }))
	e := newExternal(f, clocktesting.NewFakeClock(t0))
	e.acc.asked.Store(int64(1), "abc")
	e.acc.refused.Store(int64(1), "abc")
	if _, err := e.Observe(context.Background(), pullRequest(numbered("1"))); err != nil {
		t.Fatal(err)
	}
	_, asked := e.acc.asked.Load(int64(1))
	_, refused := e.acc.refused.Load(int64(1))
	if diff := cmp.Diff([]bool{false, false}, []bool{asked, refused}); diff != "" {
		t.Errorf("pruned: -want, +got:\n%s", diff)
	}
}

// TestBranchMissingBacksOff: a missing base is named as such, and each
// wait is longer, up to the poll interval.
func TestBranchMissingBacksOff(t *testing.T) {
	type step struct {
		Reason xpv2.ConditionReason
		After  time.Duration
	}
	cases := map[string]struct {
		reason string
		heads  []string
		want   []step
	}{
		"BaseMissing": {reason: "The base is named, with its own reason.", heads: []string{"request/demo"},
			want: []step{{ReasonBaseBranchMissing, 5 * time.Second}, {ReasonBaseBranchMissing, 10 * time.Second}, {ReasonBaseBranchMissing, 20 * time.Second}, {ReasonBaseBranchMissing, 40 * time.Second}, {ReasonBaseBranchMissing, time.Minute}, {ReasonBaseBranchMissing, time.Minute}}},
		"HeadMissing": {reason: "The head too backs off.", heads: []string{"main"},
			want: []step{{ReasonHeadBranchMissing, 5 * time.Second}, {ReasonHeadBranchMissing, 10 * time.Second}}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			f := memory.New()
			e := newExternal(f, clocktesting.NewFakeClock(t0), tc.heads...)
			var got []step
			for range tc.want {
				_, err := e.Observe(context.Background(), pullRequest())
				we, _ := managed.IsWaiting(err)
				if we == nil {
					t.Fatalf("not waiting: %v", err)
				}
				got = append(got, step{we.Reason, we.After})
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("%s\nObserve: -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}

// TestRefusedTokenHoldsAccount: one refusal holds the account, so the
// other resources of it wait without asking the forge.
func TestRefusedTokenHoldsAccount(t *testing.T) {
	f := memory.New(open(1), open(2))
	f.Fail("ListOpen", forge.ErrUnauthorized)
	clk := clocktesting.NewFakeClock(t0)
	e := newExternal(f, clk)
	_, err := e.Observe(context.Background(), pullRequest(numbered("1")))
	if r, _ := managed.StalledReason(err); r == "" {
		t.Fatalf("want stalled, got %v", err)
	}
	other := newExternal(f, clk)
	other.acc, other.pacer = e.acc, e.pacer
	obs, err := other.Observe(context.Background(), pullRequest(numbered("2")))
	want := outcome{Reason: ReasonRateLimited, After: time.Minute, Name: "2", Calls: map[string]int{"ListOpen": 1}}
	if diff := cmp.Diff(want, outcomeOf(pullRequest(numbered("2")), obs, err, f)); diff != "" {
		t.Errorf("the account waits: -want, +got:\n%s", diff)
	}
}

// TestCreateBlockedByAFork: a forge that refuses the create because a
// fork's pull request of the same branch name is open (ErrExists) leaves
// the resource Stalled naming that pull request and its fork; it is never
// adopted. Before, a fork's pull request was adopted by branch name.
func TestCreateBlockedByAFork(t *testing.T) {
	f := memory.New(edited(4, func(p *forge.PullRequest) { p.HeadRepo = "mallory/apps" }))
	f.Fail("Create", &forge.APIError{Status: 409, Message: "pull request already exists for these targets", Kind: forge.ErrExists})
	mg := pullRequest()
	_, err := newExternal(f, clocktesting.NewFakeClock(t0)).Create(context.Background(), mg)
	want := outcome{Reason: ReasonForgeRefused, Stall: true, Calls: map[string]int{"Create": 1, "ListOpen": 1}}
	if diff := cmp.Diff(want, outcomeOf(mg, xpmanaged.ExternalObservation{}, err, f), cmpopts.EquateEmpty()); diff != "" {
		t.Errorf("Create(...): -want, +got:\n%s", diff)
	}
	if err == nil || !strings.Contains(err.Error(), `#4 ("request/demo" of "mallory/apps")`) {
		t.Errorf("the message must name the fork's pull request: %v", err)
	}
}
