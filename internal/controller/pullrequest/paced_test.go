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
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	clocktesting "k8s.io/utils/clock/testing"
	"k8s.io/utils/ptr"

	"github.com/crossplane-contrib/provider-git/apis/v1alpha1"
	"github.com/crossplane-contrib/provider-git/internal/forge"
	"github.com/crossplane-contrib/provider-git/internal/reconciler/managed"
	"github.com/crossplane-contrib/provider-git/internal/testharness/forgetest/memory"
)

// TestWritesPaced: GitHub's secondary limit counts every content-creating
// request, not only creates, so an edit put back, an auto-merge asked, a
// merge and a close each wait for the account's pace once a burst of
// creates spent it, and none reaches the forge until then.
func TestWritesPaced(t *testing.T) {
	edited := func() forge.PullRequest { p := open(1); p.Title = "Edited"; return p }
	mergeable := func() forge.PullRequest {
		p := open(1)
		p.Mergeable, p.Checks = ptr.To(true), forge.ChecksSuccess
		return p
	}
	auto := func(mg *v1alpha1.PullRequest) { mg.Spec.ForProvider.Merge.Strategy = v1alpha1.MergeAuto }
	cases := map[string]struct {
		reason string
		pr     forge.PullRequest
		noAuto bool
		mg     *v1alpha1.PullRequest
		call   func(*external, *v1alpha1.PullRequest) error
		// want is the forge's calls once the pace allows, none before.
		want string
	}{
		"EditPutBack": {
			reason: "A title a person edited is put back at the account's pace.",
			pr:     edited(), mg: pullRequest(numbered("1")),
			call: update, want: "Update",
		},
		"AutoMerge": {
			reason: "Asking the forge to merge once it may is a content-creating request.",
			pr:     open(1), mg: pullRequest(numbered("1"), auto),
			call: update, want: "AutoMerge",
		},
		"Merge": {
			reason: "Where the forge has no auto-merge, the provider's merge waits for the pace.",
			pr:     mergeable(), noAuto: true, mg: pullRequest(numbered("1"), auto),
			call: update, want: "Merge",
		},
		"Close": {
			reason: "Closing a deleted PullRequest's pull request waits for the pace.",
			pr:     open(1), mg: pullRequest(numbered("1"), deleting),
			call: func(e *external, mg *v1alpha1.PullRequest) error {
				_, err := e.Delete(context.Background(), mg)
				return err
			},
			want: "Close",
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			f := memory.New(tc.pr)
			if tc.noAuto {
				f.NoAutoMerge()
			}
			clk := clocktesting.NewFakeClock(t0)
			e := newExternal(f, clk)
			if tc.noAuto {
				// The forge refused auto-merge at this head before.
				e.acc.refused.Store(int64(1), tc.pr.HeadSHA)
			}
			rate := forge.RateOf(forge.Gitea)
			if ok, _ := e.pacer.TakeN(e.key, rate, int(rate.Burst)); !ok {
				t.Fatal("the burst of creates was not spent")
			}
			if _, err := e.Observe(context.Background(), tc.mg); err != nil {
				t.Fatalf("Observe: %v", err)
			}
			err := tc.call(e, tc.mg)
			if we, ok := managed.IsWaiting(err); !ok || we.Reason != ReasonRateLimited {
				t.Errorf("%s\nwith the pace spent: got %v, want a RateLimited wait", tc.reason, err)
			}
			if got := f.Calls()[tc.want]; got != 0 {
				t.Errorf("%s\n%s sent %d times while the pace was spent, want 0", tc.reason, tc.want, got)
			}
			clk.Step(time.Minute)
			if err := tc.call(e, tc.mg); err != nil {
				t.Fatalf("%s\nonce the pace allows: %v", tc.reason, err)
			}
			if diff := cmp.Diff(1, f.Calls()[tc.want]); diff != "" {
				t.Errorf("%s\n%s once the pace allows: -want, +got:\n%s", tc.reason, tc.want, diff)
			}
		})
	}
}

func update(e *external, mg *v1alpha1.PullRequest) error {
	_, err := e.Update(context.Background(), mg)
	return err
}

// TestUpdateCost: an edit costs one request per part the forge edits
// with a request of its own.
func TestUpdateCost(t *testing.T) {
	base := forge.Spec{Title: "t", Body: "b", Labels: []string{"env"}, Reviewers: []string{"ann"}}
	have := forge.PullRequest{Title: "t", Body: "b\n", Labels: []string{"env"}, Reviewers: []string{"ann"}}
	cases := map[string]struct {
		reason string
		want   func(*forge.Spec)
		cost   int
	}{
		"Nothing":   {reason: "Nothing differs: still one, the least a call costs.", want: func(*forge.Spec) {}, cost: 1},
		"TitleBody": {reason: "Title and body go in one request.", want: func(s *forge.Spec) { s.Title, s.Body = "x", "y" }, cost: 1},
		"All": {reason: "Title, draft, labels and reviewers: four requests.", want: func(s *forge.Spec) {
			s.Title, s.Draft, s.Labels, s.Reviewers = "x", true, nil, []string{"bob"}
		}, cost: 4},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			s := base
			tc.want(&s)
			if diff := cmp.Diff(tc.cost, updateCost(s, have)); diff != "" {
				t.Errorf("%s\nupdateCost: -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}
