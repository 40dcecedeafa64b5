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

package azure

import (
	"context"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/crossplane-contrib/provider-git/internal/forge"
	fake "github.com/crossplane-contrib/provider-git/internal/testharness/forgetest/azure"
)

func TestMerge(t *testing.T) {
	type want struct {
		err    error
		status string
		fake   fake.PullRequest
	}
	building := []fake.Policy{{Type: fake.PolicyBuild, Name: "Build", Status: "running", Blocking: true}}
	cases := map[string]struct {
		reason string
		auto   bool
		merge  forge.Merge
		edit   func(*fake.PullRequest)
		moved  bool
		want   want
	}{
		"Complete": {
			reason: "completed at the judged head, squashed, its branch deleted",
			merge:  forge.Merge{Method: forge.MethodSquash, DeleteBranch: true},
			want:   want{status: "completed", fake: fake.PullRequest{MergeStrategy: "squash", DeleteSourceBranch: true}},
		},
		"HeadMoved": {
			reason: "a head pushed since it was judged: Azure's 409 GitPullRequestStaleException is ErrHeadMoved, nothing merged",
			merge:  forge.Merge{Method: forge.MethodMerge},
			moved:  true,
			want:   want{err: forge.ErrHeadMoved, status: "active"},
		},
		"PolicyBlocks": {
			reason: "a blocking policy not passed: Azure's 403 is ErrNotMergeable",
			merge:  forge.Merge{Method: forge.MethodRebase},
			edit:   func(p *fake.PullRequest) { p.Policies = building },
			want:   want{err: forge.ErrNotMergeable, status: "active", fake: fake.PullRequest{Policies: building}},
		},
		"AutoCompletes": {
			reason: "auto-complete set by the token's identity with noFastForward; nothing blocks, so Azure completes",
			auto:   true,
			merge:  forge.Merge{Method: forge.MethodMerge},
			want:   want{status: "completed", fake: fake.PullRequest{MergeStrategy: "noFastForward", AutoCompleteSetBy: fake.MeID}},
		},
		"AutoWaits": {
			reason: "auto-complete set while the build runs: open, Azure completes it later",
			auto:   true,
			merge:  forge.Merge{Method: forge.MethodRebase, DeleteBranch: true},
			edit:   func(p *fake.PullRequest) { p.Policies = building },
			want:   want{status: "active", fake: fake.PullRequest{MergeStrategy: "rebase", DeleteSourceBranch: true, AutoCompleteSetBy: fake.MeID, Policies: building}},
		},
		"AutoHeadMoved": {
			reason: "auto-complete names no head: a head other than the judged one is ErrHeadMoved before it is set",
			auto:   true,
			moved:  true,
			want:   want{err: forge.ErrHeadMoved, status: "active"},
		},
		"AutoDraft": {
			reason: "a draft is not completed: ErrNotMergeable, nothing set",
			auto:   true,
			edit:   func(p *fake.PullRequest) { p.Draft = true },
			want:   want{err: forge.ErrNotMergeable, status: "active", fake: fake.PullRequest{Draft: true}},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			srv, c, _ := newFake(t)
			srv.AddBranch("feature")
			n := srv.Open("feature", "main", "t")
			if tc.edit != nil {
				srv.Edit(n, tc.edit)
			}
			judged, _ := srv.PR(n)
			if tc.moved {
				srv.AddBranch("feature")
			}
			m := tc.merge
			m.HeadSHA = judged.Head
			var err error
			if tc.auto {
				err = c.AutoMerge(context.Background(), n, m)
			} else {
				err = c.Merge(context.Background(), n, m)
			}
			if !errorsIs(err, tc.want.err) || (tc.want.err == nil) != (err == nil) {
				t.Fatalf("\n%s\nerror %v, want %v", tc.reason, err, tc.want.err)
			}
			got, _ := srv.PR(n)
			if got.Status != tc.want.status {
				t.Errorf("\n%s\nAzure holds it %s, want %s", tc.reason, got.Status, tc.want.status)
			}
			if diff := cmp.Diff(tc.want.fake, got, cmpopts.IgnoreFields(fake.PullRequest{}, "ID", "Title", "Source", "Target", "Status", "Head", "MergeCommit", "AutoCompleteSetAt")); diff != "" {
				t.Errorf("\n%s\nAzure holds: -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}

func TestAutoMergeOnce(t *testing.T) {
	srv, c, _ := newFake(t)
	srv.AddBranch("feature")
	n := srv.Open("feature", "main", "t")
	srv.Edit(n, func(p *fake.PullRequest) {
		p.Policies = []fake.Policy{{Type: fake.PolicyBuild, Name: "Build", Status: "running", Blocking: true}}
	})
	pr, _ := srv.PR(n)
	m := forge.Merge{Method: forge.MethodSquash, HeadSHA: pr.Head}
	for range 2 {
		if err := c.AutoMerge(context.Background(), n, m); err != nil {
			t.Fatal(err)
		}
	}
	got, err := c.Get(context.Background(), n)
	if err != nil || !got.AutoMerge || got.Checks != forge.ChecksPending {
		t.Fatalf("Get(): %+v, %v: want auto-merge set, checks pending", got, err)
	}
	// connectionData once, the PATCH once: asking again reads only.
	if w := writes(srv.Requests()); w != 1 {
		t.Errorf("%d writes for two AutoMerge calls, want 1: %+v", w, srv.Requests())
	}
	srv.Edit(n, func(p *fake.PullRequest) { p.Policies[0].Status = "approved" })
	if got, _ := c.Get(context.Background(), n); got.State != forge.StateMerged {
		t.Errorf("once the build passes Azure completes it: %+v", got)
	}
}

func TestClose(t *testing.T) {
	srv, c, _ := newFake(t)
	srv.AddBranch("feature")
	n := srv.Open("feature", "main", "t")
	if err := c.Close(context.Background(), n); err != nil {
		t.Fatal(err)
	}
	if got, _ := srv.PR(n); got.Status != "abandoned" {
		t.Errorf("Close abandons: Azure holds it %s", got.Status)
	}
}

// TestAutoCompletePinned: Azure's auto-complete names no commit and
// completes whatever the source branch holds once nothing blocks. A head
// pushed after the provider judged it and set auto-complete must not be
// completed: the next Get cancels the auto-complete and reports none, so
// the controller judges the new head first. One a person set is left.
func TestAutoCompletePinned(t *testing.T) {
	type want struct {
		autoMerge bool
		setBy     string
		status    string
	}
	building := []fake.Policy{{Type: fake.PolicyBuild, Name: "Build", Status: "running", Blocking: true}}
	cases := map[string]struct {
		reason string
		// restart reads with a new client, which remembers no pin.
		restart bool
		// person sets auto-complete instead of the provider.
		person bool
		moved  bool
		want   want
	}{
		"Unmoved": {
			reason: "the head it was set at: auto-complete stays, and Azure completes once the build passes",
			want:   want{autoMerge: true, setBy: fake.MeID, status: "completed"},
		},
		"HeadMoved": {
			reason: "a push after it was set: cancelled, and the build passing completes nothing",
			moved:  true,
			want:   want{status: "active"},
		},
		"Restarted": {
			reason:  "a client that never judged the head (a restart) cancels the token's auto-complete: fail closed",
			restart: true,
			want:    want{status: "active"},
		},
		"PersonsAutoComplete": {
			reason: "auto-complete a person set is theirs, moved head or not",
			person: true,
			moved:  true,
			want:   want{autoMerge: true, setBy: "a-person", status: "completed"},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			srv, c, _ := newFake(t)
			srv.AddBranch("feature")
			n := srv.Open("feature", "main", "t")
			srv.Edit(n, func(p *fake.PullRequest) { p.Policies = slices.Clone(building) })
			judged, _ := srv.PR(n)
			if tc.person {
				srv.Edit(n, func(p *fake.PullRequest) { p.AutoCompleteSetBy = "a-person" })
			} else if err := c.AutoMerge(context.Background(), n, forge.Merge{Method: forge.MethodSquash, HeadSHA: judged.Head}); err != nil {
				t.Fatal(err)
			}
			if tc.moved {
				srv.AddBranch("feature")
			}
			reader := c
			if tc.restart {
				reader = newClient(t, srv.APIURL(), fake.PAT, srv.Client(), nil)
			}
			got, err := reader.Get(context.Background(), n)
			if err != nil {
				t.Fatal(err)
			}
			if got.AutoMerge != tc.want.autoMerge {
				t.Errorf("\n%s\nGet reports auto-merge %v, want %v", tc.reason, got.AutoMerge, tc.want.autoMerge)
			}
			if p, _ := srv.PR(n); p.AutoCompleteSetBy != tc.want.setBy {
				t.Errorf("\n%s\nAzure holds auto-complete set by %q, want %q", tc.reason, p.AutoCompleteSetBy, tc.want.setBy)
			}
			srv.Edit(n, func(p *fake.PullRequest) { p.Policies[0].Status = "approved" })
			if p, _ := srv.PR(n); p.Status != tc.want.status {
				t.Errorf("\n%s\nonce the build passes Azure holds it %s, want %s", tc.reason, p.Status, tc.want.status)
			}
		})
	}
}
