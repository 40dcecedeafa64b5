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

package commits

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/crossplane-contrib/provider-git/internal/git"
	"github.com/crossplane-contrib/provider-git/internal/mirror/plan"
)

// TestChange: a plan's change is one commit, unless the Mirror commits
// PerChange and the folder is already its own: then one commit per object,
// oldest change first, deletions after, the marker's expectation with the
// first and its rewrite with the last. A message that cannot render fails
// the change.
func TestChange(t *testing.T) {
	const (
		mk = "live/.mirror.yaml"
		pa = "live/ns/core/configmap/a.yaml"
		pb = "live/ns/core/configmap/b.yaml"
		pc = "live/ns/core/configmap/c.yaml"
	)
	window := time.Second
	self := git.Signature{Name: "provider", Email: "provider@example.org"}
	res := git.Resource{Kind: "Mirror", Namespace: "ns", Name: "m", UID: "uid"}
	file := func(s string) git.File { return git.File{Content: []byte(s)} }
	diff := func(claimed bool) plan.Diff {
		return plan.Diff{
			Puts:    map[string]git.File{pa: file("a"), pb: file("b"), mk: file("marker")},
			Deletes: []string{pc},
			Expect:  map[string]string{mk: "m1", pb: ""},
			Claimed: claimed,
			Changes: []plan.Change{
				{File: pa, Verb: plan.VerbUpdate, Kind: "ConfigMap", Namespace: "ns", Name: "a", RV: "20"},
				{File: pb, Verb: plan.VerbCreate, Kind: "ConfigMap", Namespace: "ns", Name: "b", RV: "3"},
				{File: pc, Verb: plan.VerbDelete, Kind: "ConfigMap", Namespace: "ns", Name: "c"},
			},
		}
	}
	mirror := func(perChange bool) Mirror {
		return Mirror{
			Path: "live", PerChange: perChange, Resource: res, Author: self, Window: &window,
			Message:       func(n int) (string, error) { return fmt.Sprintf("%d file(s)", n), nil },
			ChangeMessage: func(c plan.Change) (string, error) { return c.Verb + " " + c.Name, nil },
		}
	}
	// one is d as one commit.
	one := func(d plan.Diff) git.Change {
		return git.Change{Message: "4 file(s)", Author: self, Window: &window, Resource: res, Puts: d.Puts, Deletes: d.Deletes, Expect: d.Expect}
	}
	errBoom := errors.New("boom")
	type want struct {
		change git.Change
		err    error
	}
	cases := map[string]struct {
		reason string
		mirror Mirror
		diff   plan.Diff
		want   want
	}{
		"Batched": {
			reason: "A Batched Mirror's change is one commit of everything the plan writes and removes.",
			mirror: mirror(false),
			diff:   diff(true),
			want:   want{change: one(diff(true))},
		},
		"PerChangeFirstWrite": {
			reason: "The write that claims the folder is one commit even with PerChange.",
			mirror: mirror(true),
			diff:   diff(false),
			want:   want{change: one(diff(false))},
		},
		"PerChange": {
			reason: "Once the folder is the Mirror's, each object's change is a commit of its own, by resourceVersion, deletions last; the marker's expectation rides with the first part, its rewrite with the last.",
			mirror: mirror(true),
			diff:   diff(true),
			want: want{change: git.Change{
				Message: "4 file(s)", Author: self, Window: &window, Resource: res,
				Parts: []git.Part{
					{Message: "Create b", Puts: map[string]git.File{pb: file("b")}, Expect: map[string]string{pb: "", mk: "m1"}},
					{Message: "Update a", Puts: map[string]git.File{pa: file("a")}},
					{Message: "Delete c", Deletes: []string{pc}, Puts: map[string]git.File{mk: file("marker")}},
				},
			}},
		},
		"MessageRefused": {
			reason: "A commit message that cannot render fails the change.",
			mirror: func() Mirror {
				m := mirror(true)
				m.ChangeMessage = func(plan.Change) (string, error) { return "", errBoom }
				return m
			}(),
			diff: diff(true),
			want: want{err: errBoom},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			c, err := tc.mirror.Change(tc.diff, nil)
			if diff := cmp.Diff(tc.want.err, err, cmpopts.EquateErrors()); diff != "" {
				t.Errorf("%s\nChange(...): -want error, +got error:\n%s", tc.reason, diff)
			}
			if diff := cmp.Diff(tc.want.change, c, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("%s\nChange(...): -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}
