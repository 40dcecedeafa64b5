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

package resources_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/crossplane/crossplane-runtime/v2/pkg/meta"
	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"
	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"

	"github.com/crossplane-contrib/provider-git/internal/testharness/e2e"
	"github.com/crossplane-contrib/provider-git/internal/testharness/testenv"
)

func TestBranchLifecycle(t *testing.T) {
	e2e.StartProvider(t, "")
	ctx := context.Background()

	t.Run("CreateFromDefaultBranchThenDelete", func(t *testing.T) {
		t.Parallel()
		f := e2e.NewFixture(t)
		b := e2e.NewBranch(f, "feature", "feature/x", "")
		if err := e2e.CP.Client.Create(ctx, b); err != nil {
			t.Fatal(err)
		}
		e2e.WaitFor(t, 30*time.Second, b, e2e.ReadyAndCurrent(t, b))
		main := f.Repo.Head(t, "main")
		if diff := cmp.Diff(main, f.Repo.Head(t, "feature/x")); diff != "" {
			t.Errorf("new branch starts at main's head: -want, +got:\n%s", diff)
		}
		if diff := cmp.Diff(main, b.Status.AtProvider.Commit); diff != "" {
			t.Errorf("status.atProvider.commit: -want, +got:\n%s", diff)
		}
		if diff := cmp.Diff("feature/x", meta.GetExternalName(b)); diff != "" {
			t.Errorf("external name is the branch: -want, +got:\n%s", diff)
		}
		if err := e2e.CP.Client.Delete(ctx, b); err != nil {
			t.Fatal(err)
		}
		e2e.WaitGone(t, b)
		if _, err := testenv.Git(f.Repo.Dir, nil, "rev-parse", "--verify", "refs/heads/feature/x"); err == nil {
			t.Errorf("deleting a Branch with the Delete policy must delete the remote branch")
		}
	})

	t.Run("DeleteWithoutDeletePolicyOrphans", func(t *testing.T) {
		t.Parallel()
		f := e2e.NewFixture(t)
		b := e2e.NewBranch(f, "keep", "keep", "main", xpv2.ManagementActionObserve, xpv2.ManagementActionCreate,
			xpv2.ManagementActionUpdate, xpv2.ManagementActionLateInitialize)
		if err := e2e.CP.Client.Create(ctx, b); err != nil {
			t.Fatal(err)
		}
		e2e.WaitFor(t, 30*time.Second, b, e2e.ReadyAndCurrent(t, b))
		if err := e2e.CP.Client.Delete(ctx, b); err != nil {
			t.Fatal(err)
		}
		e2e.WaitGone(t, b)
		if diff := cmp.Diff(f.Repo.Head(t, "main"), f.Repo.Head(t, "keep")); diff != "" {
			t.Errorf("the branch must stay when Delete is not a management policy: -want, +got:\n%s", diff)
		}
	})

	t.Run("ObserveOnlyDoesNotCreate", func(t *testing.T) {
		t.Parallel()
		f := e2e.NewFixture(t)
		b := e2e.NewBranch(f, "observed", "observed", "main", xpv2.ManagementActionObserve)
		if err := e2e.CP.Client.Create(ctx, b); err != nil {
			t.Fatal(err)
		}
		e2e.WaitFor(t, 30*time.Second, b, func() error {
			return e2e.ConditionIs(b, xpv2.TypeSynced, corev1.ConditionFalse, xpv2.ReasonReconcileError)
		})
		if _, err := testenv.Git(f.Repo.Dir, nil, "rev-parse", "--verify", "refs/heads/observed"); err == nil {
			t.Errorf("an Observe-only Branch must not create the branch")
		}
		// Once someone else creates it, the Branch observes it.
		f.Repo.CreateBranch(t, "observed", "main")
		e2e.WaitFor(t, 30*time.Second, b, e2e.ReadyAndCurrent(t, b))
	})

	t.Run("PausedDoesNothing", func(t *testing.T) {
		t.Parallel()
		f := e2e.NewFixture(t)
		b := e2e.NewBranch(f, "paused", "paused", "main")
		meta.AddAnnotations(b, map[string]string{meta.AnnotationKeyReconciliationPaused: "true"})
		if err := e2e.CP.Client.Create(ctx, b); err != nil {
			t.Fatal(err)
		}
		e2e.WaitFor(t, 30*time.Second, b, func() error {
			return e2e.ConditionIs(b, xpv2.TypeSynced, corev1.ConditionFalse, xpv2.ReasonReconcilePaused)
		})
		// Nothing polls a paused resource: ask for reconciles, and check once
		// two have finished.
		e2e.ReconciledAgain(t, 2, true, b)
		if _, err := testenv.Git(f.Repo.Dir, nil, "rev-parse", "--verify", "refs/heads/paused"); err == nil {
			t.Errorf("a paused Branch must not create the branch")
		}
		meta.RemoveAnnotations(b, meta.AnnotationKeyReconciliationPaused)
		if err := e2e.CP.Client.Update(ctx, b); err != nil {
			t.Fatal(err)
		}
		e2e.WaitFor(t, 30*time.Second, b, e2e.ReadyAndCurrent(t, b))
	})

	t.Run("RecreatedWhenDeletedInGit", func(t *testing.T) {
		t.Parallel()
		f := e2e.NewFixture(t)
		b := e2e.NewBranch(f, "drift", "drift", "main")
		if err := e2e.CP.Client.Create(ctx, b); err != nil {
			t.Fatal(err)
		}
		e2e.WaitFor(t, 30*time.Second, b, e2e.ReadyAndCurrent(t, b))
		if _, err := testenv.Git(f.Repo.Dir, nil, "update-ref", "-d", "refs/heads/drift"); err != nil {
			t.Fatal(err)
		}
		testenv.Eventually(t, 30*time.Second, func() error {
			if _, err := testenv.Git(f.Repo.Dir, nil, "rev-parse", "--verify", "refs/heads/drift"); err != nil {
				return fmt.Errorf("a branch deleted in Git must be created again on the next poll: %w", err)
			}
			return nil
		})
	})
}
