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

package gitea_test

import (
	"errors"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/crossplane-contrib/provider-git/internal/forge"
	"github.com/crossplane-contrib/provider-git/internal/testharness/testenv"
)

// testForks: a stranger's pull request from a fork reads as such (its
// head repository named, HeadInRepo false) in Get and ListOpen; before,
// it read as the repository's own branch of that name. A merge naming a
// judged head that moved since is ErrHeadMoved and merges nothing.
func testForks(t *testing.T, b *bed) {
	t.Run("FromFork", func(t *testing.T) {
		stranger := b.g.CreateUser(t, "stranger")
		n, sha := b.g.OpenFromFork(t, stranger, b.repo.Name, "fork-1", "main", "fork.yaml")
		type head struct {
			Head, SHA, Repo string
			InRepo          bool
		}
		want := head{"fork-1", sha, "stranger/" + b.repo.Name, false}
		pr := must(b.c.Get(ctx(t), n))(t)
		if diff := cmp.Diff(want, head{pr.Head, pr.HeadSHA, pr.HeadRepo, pr.HeadInRepo}); diff != "" {
			t.Errorf("Get(fork): -want, +got:\n%s", diff)
		}
		open, _ := must2(b.c.ListOpen(ctx(t)))(t)
		for _, p := range open {
			if p.Number == n {
				if diff := cmp.Diff(want, head{p.Head, p.HeadSHA, p.HeadRepo, p.HeadInRepo}); diff != "" {
					t.Errorf("ListOpen(fork): -want, +got:\n%s", diff)
				}
			}
		}
	})

	t.Run("MergeHeadMoved", func(t *testing.T) {
		judged := b.branch(t, "pinned")
		pr := must(b.c.Create(ctx(t), forge.Spec{Head: "pinned", Base: "main", Title: "Pinned"}))(t)
		if !pr.HeadInRepo || pr.HeadRepo != b.repo.Owner+"/"+b.repo.Name {
			t.Errorf("the repository's own head: HeadRepo %q, HeadInRepo %t", pr.HeadRepo, pr.HeadInRepo)
		}
		waitMergeable(t, b, pr.Number, judged)
		moved := b.g.CommitFile(t, b.repo.Name, "pinned", "", "pinned-again.yaml", "name: again\n")
		waitMergeable(t, b, pr.Number, moved)
		// Gitea answers 405 "Please try again later" while it checks the
		// pull request again after the push: it judged and merged nothing.
		// Its mergeable flag cannot show when that check starts (it reads
		// the judged head's check until then), so the merge is asked until
		// Gitea judges it, as the provider asks again after ErrNotMergeable.
		var err error
		testenv.Eventually(t, time.Minute, func() error {
			if err = b.c.Merge(ctx(t), pr.Number, forge.Merge{Method: forge.MethodMerge, HeadSHA: judged}); errors.Is(err, forge.ErrNotMergeable) {
				return err
			}
			return nil
		})
		if !errors.Is(err, forge.ErrHeadMoved) {
			t.Errorf("a merge of the judged head after it moved: want ErrHeadMoved, got %v", err)
		}
		err = b.c.AutoMerge(ctx(t), pr.Number, forge.Merge{Method: forge.MethodMerge, HeadSHA: judged})
		if !errors.Is(err, forge.ErrHeadMoved) {
			t.Errorf("an auto-merge of the judged head after it moved: want ErrHeadMoved, got %v", err)
		}
		if got := must(b.c.Get(ctx(t), pr.Number))(t); got.State != forge.StateOpen {
			t.Errorf("the moved head was merged: state %s", got.State)
		}
	})
}
