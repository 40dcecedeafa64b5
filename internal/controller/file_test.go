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

package controller_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/crossplane/crossplane-runtime/v2/pkg/meta"
	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"
	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/crossplane-contrib/provider-git/apis/v1alpha1"
	"github.com/crossplane-contrib/provider-git/internal/controller/spec"
	"github.com/crossplane-contrib/provider-git/internal/git"
	"github.com/crossplane-contrib/provider-git/internal/session"
	"github.com/crossplane-contrib/provider-git/internal/testenv"
)

func newFile(f *fixture, name, path, content string, policies ...xpv2.ManagementAction) *v1alpha1.File {
	fl := &v1alpha1.File{
		ObjectMeta: metav1.ObjectMeta{Namespace: f.ns, Name: name},
		Spec: v1alpha1.FileSpec{ForProvider: v1alpha1.FileParameters{
			Branch: "main", Path: path, Content: ptr.To(content),
		}},
	}
	fl.Spec.ProviderConfigReference = pcRef()
	if len(policies) > 0 {
		fl.Spec.ManagementPolicies = policies
	}
	return fl
}

func create(t *testing.T, o client.Object) {
	t.Helper()
	if err := cp.Client.Create(context.Background(), o); err != nil {
		t.Fatal(err)
	}
}

// waitRemote polls the fixture's repository until branch holds want (the
// seed README aside), then fails with what it saw.
func (f *fixture) waitRemote(t *testing.T, branch string, want map[string]string) {
	t.Helper()
	testenv.Eventually(t, 30*time.Second, func() error {
		if diff := cmp.Diff(want, f.files(t, branch)); diff != "" {
			return fmt.Errorf("%s does not hold what it should: -want, +got:\n%s", branch, diff)
		}
		return nil
	})
}

// stays checks that branch's head is still head once obj's controller has
// finished two more reconciles of it and every change they handed to a
// branch writer has landed. poke asks for the reconciles as a user would
// (crossplane.io/reconcile-requested-at); without it the provider is asked
// as a Git event would (a converged resource is not polled on a timer).
func (f *fixture) stays(t *testing.T, obj client.Object, poke bool, branch, head, why string) {
	t.Helper()
	reconciledAgain(t, 2, poke, obj)
	writesLanded(t)
	if got := f.repo.Head(t, branch); got != head {
		t.Fatalf("%s: %s moved from %s to %s", why, branch, head, got)
	}
}

// gitOut runs git in the fixture's bare repository.
func (f *fixture) gitOut(t *testing.T, args ...string) string {
	t.Helper()
	out, err := testenv.Git(f.repo.Dir, nil, args...)
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimSpace(out)
}

// subject is the first line of a commit message.
func subject(msg string) string {
	s, _, _ := strings.Cut(msg, "\n")
	return s
}

func TestFileLifecycle(t *testing.T) {
	startProvider(t, "")
	ctx := context.Background()

	t.Run("CreateUpdateDelete", func(t *testing.T) {
		t.Parallel()
		f := newFixture(t)
		fl := newFile(f, "run", "bin/run.sh", "#!/bin/sh\necho 1\n")
		fl.Spec.ForProvider.Mode = v1alpha1.FileModeExecutable
		create(t, fl)
		waitFor(t, 30*time.Second, fl, readyAndCurrent(t, fl))
		f.waitRemote(t, "main", map[string]string{"bin/run.sh": "#!/bin/sh\necho 1\n"})

		head := f.repo.Head(t, "main")
		log := f.repo.Log(t, "main")
		if diff := cmp.Diff("Create bin/run.sh", subject(log[0].Message)); diff != "" {
			t.Errorf("create commit subject: -want, +got:\n%s", diff)
		}
		if diff := cmp.Diff([]string{"File/" + f.ns + "/run"}, log[0].Trailers[git.TrailerResource]); diff != "" {
			t.Errorf("create commit names the File: -want, +got:\n%s", diff)
		}
		if diff := cmp.Diff([]string{string(fl.GetUID())}, log[0].Trailers[git.TrailerUID]); diff != "" {
			t.Errorf("create commit carries the File's UID: -want, +got:\n%s", diff)
		}
		if diff := cmp.Diff("E2E <e2e@example.org>", f.gitOut(t, "log", "-1", "--format=%an <%ae>", "main")); diff != "" {
			t.Errorf("the ProviderConfig's author writes the commit: -want, +got:\n%s", diff)
		}
		if got := f.gitOut(t, "ls-tree", "main", "bin/run.sh"); !strings.HasPrefix(got, "100755 ") {
			t.Errorf("Mode Executable must write mode 100755, ls-tree says %q", got)
		}
		want := v1alpha1.FileObservation{Blob: f.gitOut(t, "rev-parse", "main:bin/run.sh"), Commit: head}
		if diff := cmp.Diff(want, fl.Status.AtProvider); diff != "" {
			t.Errorf("status.atProvider: -want, +got:\n%s", diff)
		}
		if diff := cmp.Diff("bin/run.sh", meta.GetExternalName(fl)); diff != "" {
			t.Errorf("external name is the path: -want, +got:\n%s", diff)
		}

		// A spec update lands as a new commit on top.
		fl.Spec.ForProvider.Content = ptr.To("#!/bin/sh\necho 2\n")
		if err := cp.Client.Update(ctx, fl); err != nil {
			t.Fatal(err)
		}
		f.waitRemote(t, "main", map[string]string{"bin/run.sh": "#!/bin/sh\necho 2\n"})
		waitFor(t, 30*time.Second, fl, func() error {
			if err := readyAndCurrent(t, fl)(); err != nil {
				return err
			}
			if fl.Status.AtProvider.Commit != f.repo.Head(t, "main") {
				return fmt.Errorf("status.atProvider.commit is %s, want the new head", fl.Status.AtProvider.Commit)
			}
			return nil
		})
		log = f.repo.Log(t, "main")
		if diff := cmp.Diff([]string{head}, log[0].Parents); diff != "" {
			t.Errorf("the update is one new commit on the create: -want, +got:\n%s", diff)
		}
		if diff := cmp.Diff("Update bin/run.sh", subject(log[0].Message)); diff != "" {
			t.Errorf("update commit subject: -want, +got:\n%s", diff)
		}

		// Deleting it with the Delete policy commits the removal.
		if err := cp.Client.Delete(ctx, fl); err != nil {
			t.Fatal(err)
		}
		waitGone(t, fl)
		f.waitRemote(t, "main", map[string]string{})
		if diff := cmp.Diff("Delete bin/run.sh", subject(f.repo.Log(t, "main")[0].Message)); diff != "" {
			t.Errorf("delete commit subject: -want, +got:\n%s", diff)
		}
		if diff := cmp.Diff("seed\n", f.repo.Files(t, "main")["README.md"]); diff != "" {
			t.Errorf("files the File does not manage stay: -want, +got:\n%s", diff)
		}
	})

	t.Run("ObjectAsStableYAML", func(t *testing.T) {
		t.Parallel()
		f := newFixture(t)
		fl := newFile(f, "cm", "apps/cm.yaml", "")
		fl.Spec.ForProvider.Content = nil
		fl.Spec.ForProvider.Object = &runtime.RawExtension{Raw: []byte(`{
			"apiVersion": "v1", "kind": "ConfigMap",
			"metadata": {"name": "app", "namespace": "apps", "labels": {"z": "1", "a": "2"},
				"uid": "0f0f", "resourceVersion": "42", "generation": 3, "creationTimestamp": "2026-01-01T00:00:00Z",
				"managedFields": [{"manager": "kubectl", "operation": "Apply", "apiVersion": "v1", "fieldsType": "FieldsV1", "fieldsV1": {"f:data": {}}}],
				"annotations": {"kubectl.kubernetes.io/last-applied-configuration": "{}"}},
			"data": {"b": "2", "a": "1"},
			"status": {"phase": "whatever"}}`)}
		fl.Spec.ForProvider.CommitMessage = "{{.Action}}: {{.Path}} on {{.Branch}} for {{.Namespace}}/{{.Name}}"
		create(t, fl)
		waitFor(t, 30*time.Second, fl, readyAndCurrent(t, fl))
		f.waitRemote(t, "main", map[string]string{"apps/cm.yaml": `apiVersion: v1
data:
  a: "1"
  b: "2"
kind: ConfigMap
metadata:
  labels:
    a: "2"
    z: "1"
  name: app
  namespace: apps
`})
		if diff := cmp.Diff("create: apps/cm.yaml on main for "+f.ns+"/cm", subject(f.repo.Log(t, "main")[0].Message)); diff != "" {
			t.Errorf("the commitMessage template names the commit: -want, +got:\n%s", diff)
		}

		// Steady state: polls neither commit nor write status.
		waitFor(t, 30*time.Second, fl, readyAndCurrent(t, fl))
		rv := fl.GetResourceVersion()
		f.stays(t, fl, false, "main", f.repo.Head(t, "main"), "an up-to-date File must not commit")
		if err := cp.Client.Get(ctx, client.ObjectKeyFromObject(fl), fl); err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(rv, fl.GetResourceVersion()); diff != "" {
			t.Errorf("an up-to-date File must not write status on each poll (resourceVersion): -want, +got:\n%s", diff)
		}
	})

	t.Run("DriftInGitCorrected", func(t *testing.T) {
		t.Parallel()
		f := newFixture(t)
		fl := newFile(f, "x", "apps/x.yaml", "a: 1\n")
		create(t, fl)
		waitFor(t, 30*time.Second, fl, readyAndCurrent(t, fl))
		f.waitRemote(t, "main", map[string]string{"apps/x.yaml": "a: 1\n"})

		// Someone edits the file in Git: the next poll writes it back.
		edited, err := f.repo.Commit("main", testenv.CommitSpec{Message: "hand edit", Files: map[string]string{"apps/x.yaml": "a: 2\n"}})
		if err != nil {
			t.Fatal(err)
		}
		f.waitRemote(t, "main", map[string]string{"apps/x.yaml": "a: 1\n"})
		log := f.repo.Log(t, "main")
		if diff := cmp.Diff([]string{edited}, log[0].Parents); diff != "" {
			t.Errorf("the correction is a new commit on the edit, never a force push: -want, +got:\n%s", diff)
		}
		if diff := cmp.Diff("Update apps/x.yaml", subject(log[0].Message)); diff != "" {
			t.Errorf("correction commit subject: -want, +got:\n%s", diff)
		}
		waitFor(t, 30*time.Second, fl, func() error {
			if err := readyAndCurrent(t, fl)(); err != nil {
				return err
			}
			if fl.Status.AtProvider.Commit != log[0].SHA {
				return fmt.Errorf("status.atProvider.commit is %s, want the correction %s", fl.Status.AtProvider.Commit, log[0].SHA)
			}
			return nil
		})

		// Someone deletes it: the next poll creates it again.
		if _, err := f.repo.Commit("main", testenv.CommitSpec{Message: "hand delete", Deletes: []string{"apps/x.yaml"}}); err != nil {
			t.Fatal(err)
		}
		f.waitRemote(t, "main", map[string]string{"apps/x.yaml": "a: 1\n"})
		if diff := cmp.Diff("Create apps/x.yaml", subject(f.repo.Log(t, "main")[0].Message)); diff != "" {
			t.Errorf("re-creation commit subject: -want, +got:\n%s", diff)
		}
	})

	t.Run("DeleteWithoutDeletePolicyOrphans", func(t *testing.T) {
		t.Parallel()
		f := newFixture(t)
		fl := newFile(f, "keep", "keep.txt", "keep\n", xpv2.ManagementActionObserve, xpv2.ManagementActionCreate,
			xpv2.ManagementActionUpdate, xpv2.ManagementActionLateInitialize)
		create(t, fl)
		waitFor(t, 30*time.Second, fl, readyAndCurrent(t, fl))
		head := f.repo.Head(t, "main")
		if err := cp.Client.Delete(ctx, fl); err != nil {
			t.Fatal(err)
		}
		waitGone(t, fl)
		// The reconcile that let the File go is the one that would have
		// removed the file, and a removal is pushed before the finalizer goes:
		// nothing is left to reconcile that could still remove it.
		if diff := cmp.Diff(head, f.repo.Head(t, "main")); diff != "" {
			t.Errorf("a File without the Delete policy must leave its file in Git: -want, +got:\n%s", diff)
		}
		if diff := cmp.Diff(map[string]string{"keep.txt": "keep\n"}, f.files(t, "main")); diff != "" {
			t.Errorf("the file must stay: -want, +got:\n%s", diff)
		}
	})

	t.Run("ObserveOnlyNeverWrites", func(t *testing.T) {
		t.Parallel()
		f := newFixture(t)
		fl := newFile(f, "observed", "observed.txt", "wanted\n", xpv2.ManagementActionObserve)
		create(t, fl)
		waitFor(t, 30*time.Second, fl, func() error {
			return conditionIs(fl, xpv2.TypeSynced, corev1.ConditionFalse, xpv2.ReasonReconcileError)
		})
		if err := conditionIs(fl, xpv2.TypeReady, corev1.ConditionFalse, xpv2.ReasonUnavailable); err != nil {
			t.Errorf("an Observe-only File of a missing path is not ready: %v", err)
		}
		f.stays(t, fl, false, "main", f.repo.Head(t, "main"), "an Observe-only File must not create its file")

		// Someone else writes it, with other content: it is observed and
		// reported, not corrected.
		head, err := f.repo.Commit("main", testenv.CommitSpec{Files: map[string]string{"observed.txt": "theirs\n"}})
		if err != nil {
			t.Fatal(err)
		}
		blob := f.gitOut(t, "rev-parse", "main:observed.txt")
		waitFor(t, 30*time.Second, fl, func() error {
			if err := readyAndCurrent(t, fl)(); err != nil {
				return err
			}
			want := v1alpha1.FileObservation{Blob: blob, Commit: head}
			if diff := cmp.Diff(want, fl.Status.AtProvider); diff != "" {
				return fmt.Errorf("status.atProvider: -want, +got:\n%s", diff)
			}
			return nil
		})
		f.stays(t, fl, false, "main", head, "an Observe-only File must not correct its file")
	})

	t.Run("PausedDoesNothing", func(t *testing.T) {
		t.Parallel()
		f := newFixture(t)
		fl := newFile(f, "paused", "paused.txt", "p\n")
		meta.AddAnnotations(fl, map[string]string{meta.AnnotationKeyReconciliationPaused: "true"})
		create(t, fl)
		waitFor(t, 30*time.Second, fl, func() error {
			return conditionIs(fl, xpv2.TypeSynced, corev1.ConditionFalse, xpv2.ReasonReconcilePaused)
		})
		f.stays(t, fl, true, "main", f.repo.Head(t, "main"), "a paused File must not write")
		meta.RemoveAnnotations(fl, meta.AnnotationKeyReconciliationPaused)
		if err := cp.Client.Update(ctx, fl); err != nil {
			t.Fatal(err)
		}
		waitFor(t, 30*time.Second, fl, readyAndCurrent(t, fl))
		f.waitRemote(t, "main", map[string]string{"paused.txt": "p\n"})
	})

	t.Run("SecretRefused", func(t *testing.T) {
		t.Parallel()
		f := newFixture(t)
		fl := newFile(f, "secret", "secret.yaml", "")
		fl.Spec.ForProvider.Content = nil
		fl.Spec.ForProvider.Object = &runtime.RawExtension{Raw: []byte(
			`{"apiVersion":"v1","kind":"Secret","metadata":{"name":"db"},"stringData":{"password":"hunter2"}}`)}
		head := f.repo.Head(t, "main")
		create(t, fl)
		waitFor(t, 30*time.Second, fl, stalledWith(t, fl, spec.ReasonSecretRefused))
		f.stays(t, fl, false, "main", head, "a Secret must never reach Git")
		if got := f.gitOut(t, "for-each-ref", "--format=%(refname)"); got != "refs/heads/main" {
			t.Errorf("the repository must be untouched; refs are %q", got)
		}
		// A Secret File can still be deleted: nothing was written.
		if err := cp.Client.Delete(ctx, fl); err != nil {
			t.Fatal(err)
		}
		waitGone(t, fl)
		if diff := cmp.Diff(head, f.repo.Head(t, "main")); diff != "" {
			t.Errorf("deleting a refused File must not commit: -want, +got:\n%s", diff)
		}
	})

	t.Run("PathIsADirectoryStallsTheFile", func(t *testing.T) {
		t.Parallel()
		f := newFixture(t)
		head, err := f.repo.Commit("main", testenv.CommitSpec{Message: "an app", Files: map[string]string{"apps/x.yaml": "a: 1\n"}})
		if err != nil {
			t.Fatal(err)
		}
		fl := newFile(f, "apps", "apps", "not a directory\n")
		create(t, fl)
		// The File's own path is the problem, not its ProviderConfig: the
		// reason says so and the message names the path.
		waitFor(t, 30*time.Second, fl, func() error {
			if err := stalledWith(t, fl, spec.ReasonPathConflict)(); err != nil {
				return err
			}
			if m := fl.GetCondition(session.TypeStalled).Message; !strings.Contains(m, `"apps"`) {
				return fmt.Errorf("Stalled message %q does not name the path", m)
			}
			return nil
		})
		pc := &v1alpha1.ProviderConfig{ObjectMeta: metav1.ObjectMeta{Namespace: f.ns, Name: "git"}}
		waitFor(t, 30*time.Second, pc, func() error {
			return conditionIs(pc, xpv2.TypeReady, corev1.ConditionTrue, session.ReasonSucceeded)
		})
		if diff := cmp.Diff(head, f.repo.Head(t, "main")); diff != "" {
			t.Errorf("a File whose path is a directory must not commit: -want, +got:\n%s", diff)
		}
	})

	t.Run("BranchMissingThenCreated", func(t *testing.T) {
		t.Parallel()
		f := newFixture(t)
		fl := newFile(f, "feature", "feature.txt", "f\n")
		fl.Spec.ForProvider.Branch = "feature/x"
		create(t, fl)
		waitFor(t, 30*time.Second, fl, func() error {
			if err := conditionIs(fl, xpv2.TypeSynced, corev1.ConditionFalse, xpv2.ReasonReconcileError); err != nil {
				return err
			}
			if m := fl.GetCondition(xpv2.TypeSynced).Message; !strings.Contains(m, "does not exist yet") {
				return fmt.Errorf("Synced message %q does not say the branch does not exist yet", m)
			}
			return nil
		})
		if err := conditionIs(fl, xpv2.TypeReady, corev1.ConditionTrue, ""); err == nil {
			t.Errorf("a File on a missing branch must not be Ready")
		}
		if err := conditionIs(fl, session.TypeStalled, corev1.ConditionTrue, ""); err == nil {
			t.Errorf("a missing branch is transient (a Branch may create it), not stalled")
		}
		// A Branch resource creates it; the File converges without help.
		create(t, newBranch(f, "feature", "feature/x", "main"))
		waitFor(t, 60*time.Second, fl, readyAndCurrent(t, fl))
		f.waitRemote(t, "feature/x", map[string]string{"feature.txt": "f\n"})
		if diff := cmp.Diff(map[string]string{}, f.files(t, "main")); diff != "" {
			t.Errorf("main is untouched: -want, +got:\n%s", diff)
		}
	})

	t.Run("CreatedTogetherLandTogether", func(t *testing.T) {
		t.Parallel()
		f := newFixture(t)
		const n = 20
		want := map[string]string{}
		for i := range n {
			p := fmt.Sprintf("many/f%02d.txt", i)
			want[p] = fmt.Sprintf("%d\n", i)
			create(t, newFile(f, fmt.Sprintf("f%02d", i), p, want[p]))
		}
		f.waitRemote(t, "main", want)
		commits := len(f.repo.Log(t, "main")) - 1 // without the seed
		t.Logf("%d Files created at once landed in %d commits", n, commits)
		// The writer batches what concurrent reconciles submit within one
		// commit window: one commit per File would mean no batching.
		if commits > n/4 {
			t.Errorf("%d Files created at once landed in %d commits, want at most %d", n, commits, n/4)
		}
	})
}
