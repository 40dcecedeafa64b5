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
	"github.com/crossplane-contrib/provider-git/internal/git"
	"github.com/crossplane-contrib/provider-git/internal/reconciler/session"
	"github.com/crossplane-contrib/provider-git/internal/reconciler/spec"
	"github.com/crossplane-contrib/provider-git/internal/testharness/e2e"
	"github.com/crossplane-contrib/provider-git/internal/testharness/testenv"
)

// subject is the first line of a commit message.
func subject(msg string) string {
	s, _, _ := strings.Cut(msg, "\n")
	return s
}

func TestFileLifecycle(t *testing.T) {
	e2e.StartProvider(t, "")
	ctx := context.Background()

	t.Run("CreateUpdateDelete", func(t *testing.T) {
		t.Parallel()
		f := e2e.NewFixture(t)
		fl := e2e.NewFile(f, "run", "bin/run.sh", "#!/bin/sh\necho 1\n")
		fl.Spec.ForProvider.Mode = v1alpha1.FileModeExecutable
		e2e.Create(t, fl)
		e2e.WaitFor(t, 30*time.Second, fl, e2e.ReadyAndCurrent(t, fl))
		f.WaitRemote(t, "main", map[string]string{"bin/run.sh": "#!/bin/sh\necho 1\n"})

		head := f.Repo.Head(t, "main")
		log := f.Repo.Log(t, "main")
		if diff := cmp.Diff("Create bin/run.sh", subject(log[0].Message)); diff != "" {
			t.Errorf("create commit subject: -want, +got:\n%s", diff)
		}
		if diff := cmp.Diff([]string{"File/" + f.Namespace + "/run"}, log[0].Trailers[git.TrailerResource]); diff != "" {
			t.Errorf("create commit names the File: -want, +got:\n%s", diff)
		}
		if diff := cmp.Diff([]string{string(fl.GetUID())}, log[0].Trailers[git.TrailerUID]); diff != "" {
			t.Errorf("create commit carries the File's UID: -want, +got:\n%s", diff)
		}
		if diff := cmp.Diff("E2E <e2e@example.org>", f.GitOut(t, "log", "-1", "--format=%an <%ae>", "main")); diff != "" {
			t.Errorf("the ProviderConfig's author writes the commit: -want, +got:\n%s", diff)
		}
		if got := f.GitOut(t, "ls-tree", "main", "bin/run.sh"); !strings.HasPrefix(got, "100755 ") {
			t.Errorf("Mode Executable must write mode 100755, ls-tree says %q", got)
		}
		want := v1alpha1.FileObservation{Blob: f.GitOut(t, "rev-parse", "main:bin/run.sh"), Commit: head}
		if diff := cmp.Diff(want, fl.Status.AtProvider); diff != "" {
			t.Errorf("status.atProvider: -want, +got:\n%s", diff)
		}
		if diff := cmp.Diff("bin/run.sh", meta.GetExternalName(fl)); diff != "" {
			t.Errorf("external name is the path: -want, +got:\n%s", diff)
		}

		// A spec update lands as a new commit on top.
		fl.Spec.ForProvider.Content = ptr.To("#!/bin/sh\necho 2\n")
		if err := e2e.CP.Client.Update(ctx, fl); err != nil {
			t.Fatal(err)
		}
		f.WaitRemote(t, "main", map[string]string{"bin/run.sh": "#!/bin/sh\necho 2\n"})
		e2e.WaitFor(t, 30*time.Second, fl, func() error {
			if err := e2e.ReadyAndCurrent(t, fl)(); err != nil {
				return err
			}
			if fl.Status.AtProvider.Commit != f.Repo.Head(t, "main") {
				return fmt.Errorf("status.atProvider.commit is %s, want the new head", fl.Status.AtProvider.Commit)
			}
			return nil
		})
		log = f.Repo.Log(t, "main")
		if diff := cmp.Diff([]string{head}, log[0].Parents); diff != "" {
			t.Errorf("the update is one new commit on the create: -want, +got:\n%s", diff)
		}
		if diff := cmp.Diff("Update bin/run.sh", subject(log[0].Message)); diff != "" {
			t.Errorf("update commit subject: -want, +got:\n%s", diff)
		}

		// Deleting it with the Delete policy commits the removal.
		if err := e2e.CP.Client.Delete(ctx, fl); err != nil {
			t.Fatal(err)
		}
		e2e.WaitGone(t, fl)
		f.WaitRemote(t, "main", map[string]string{})
		if diff := cmp.Diff("Delete bin/run.sh", subject(f.Repo.Log(t, "main")[0].Message)); diff != "" {
			t.Errorf("delete commit subject: -want, +got:\n%s", diff)
		}
		if diff := cmp.Diff("seed\n", f.Repo.Files(t, "main")["README.md"]); diff != "" {
			t.Errorf("files the File does not manage stay: -want, +got:\n%s", diff)
		}
	})

	t.Run("ObjectAsStableYAML", func(t *testing.T) {
		t.Parallel()
		f := e2e.NewFixture(t)
		fl := e2e.NewFile(f, "cm", "apps/cm.yaml", "")
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
		e2e.Create(t, fl)
		e2e.WaitFor(t, 30*time.Second, fl, e2e.ReadyAndCurrent(t, fl))
		f.WaitRemote(t, "main", map[string]string{"apps/cm.yaml": `apiVersion: v1
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
		if diff := cmp.Diff("create: apps/cm.yaml on main for "+f.Namespace+"/cm", subject(f.Repo.Log(t, "main")[0].Message)); diff != "" {
			t.Errorf("the commitMessage template names the commit: -want, +got:\n%s", diff)
		}

		// Steady state: polls neither commit nor write status.
		e2e.WaitFor(t, 30*time.Second, fl, e2e.ReadyAndCurrent(t, fl))
		rv := fl.GetResourceVersion()
		f.Stays(t, fl, false, "main", f.Repo.Head(t, "main"), "an up-to-date File must not commit")
		if err := e2e.CP.Client.Get(ctx, client.ObjectKeyFromObject(fl), fl); err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(rv, fl.GetResourceVersion()); diff != "" {
			t.Errorf("an up-to-date File must not write status on each poll (resourceVersion): -want, +got:\n%s", diff)
		}
	})

	t.Run("DriftInGitCorrected", func(t *testing.T) {
		t.Parallel()
		f := e2e.NewFixture(t)
		fl := e2e.NewFile(f, "x", "apps/x.yaml", "a: 1\n")
		e2e.Create(t, fl)
		e2e.WaitFor(t, 30*time.Second, fl, e2e.ReadyAndCurrent(t, fl))
		f.WaitRemote(t, "main", map[string]string{"apps/x.yaml": "a: 1\n"})

		// Someone edits the file in Git: the next poll writes it back.
		edited, err := f.Repo.Commit("main", testenv.CommitSpec{Message: "hand edit", Files: map[string]string{"apps/x.yaml": "a: 2\n"}})
		if err != nil {
			t.Fatal(err)
		}
		f.WaitRemote(t, "main", map[string]string{"apps/x.yaml": "a: 1\n"})
		log := f.Repo.Log(t, "main")
		if diff := cmp.Diff([]string{edited}, log[0].Parents); diff != "" {
			t.Errorf("the correction is a new commit on the edit, never a force push: -want, +got:\n%s", diff)
		}
		if diff := cmp.Diff("Update apps/x.yaml", subject(log[0].Message)); diff != "" {
			t.Errorf("correction commit subject: -want, +got:\n%s", diff)
		}
		e2e.WaitFor(t, 30*time.Second, fl, func() error {
			if err := e2e.ReadyAndCurrent(t, fl)(); err != nil {
				return err
			}
			if fl.Status.AtProvider.Commit != log[0].SHA {
				return fmt.Errorf("status.atProvider.commit is %s, want the correction %s", fl.Status.AtProvider.Commit, log[0].SHA)
			}
			return nil
		})

		// Someone deletes it: the next poll creates it again.
		if _, err := f.Repo.Commit("main", testenv.CommitSpec{Message: "hand delete", Deletes: []string{"apps/x.yaml"}}); err != nil {
			t.Fatal(err)
		}
		f.WaitRemote(t, "main", map[string]string{"apps/x.yaml": "a: 1\n"})
		if diff := cmp.Diff("Create apps/x.yaml", subject(f.Repo.Log(t, "main")[0].Message)); diff != "" {
			t.Errorf("re-creation commit subject: -want, +got:\n%s", diff)
		}
	})

	t.Run("DeleteWithoutDeletePolicyOrphans", func(t *testing.T) {
		t.Parallel()
		f := e2e.NewFixture(t)
		fl := e2e.NewFile(f, "keep", "keep.txt", "keep\n", xpv2.ManagementActionObserve, xpv2.ManagementActionCreate,
			xpv2.ManagementActionUpdate, xpv2.ManagementActionLateInitialize)
		e2e.Create(t, fl)
		e2e.WaitFor(t, 30*time.Second, fl, e2e.ReadyAndCurrent(t, fl))
		head := f.Repo.Head(t, "main")
		if err := e2e.CP.Client.Delete(ctx, fl); err != nil {
			t.Fatal(err)
		}
		e2e.WaitGone(t, fl)
		// The reconcile that let the File go is the one that would have
		// removed the file, and a removal is pushed before the finalizer goes:
		// nothing is left to reconcile that could still remove it.
		if diff := cmp.Diff(head, f.Repo.Head(t, "main")); diff != "" {
			t.Errorf("a File without the Delete policy must leave its file in Git: -want, +got:\n%s", diff)
		}
		if diff := cmp.Diff(map[string]string{"keep.txt": "keep\n"}, f.Files(t, "main")); diff != "" {
			t.Errorf("the file must stay: -want, +got:\n%s", diff)
		}
	})

	t.Run("ObserveOnlyNeverWrites", func(t *testing.T) {
		t.Parallel()
		f := e2e.NewFixture(t)
		fl := e2e.NewFile(f, "observed", "observed.txt", "wanted\n", xpv2.ManagementActionObserve)
		e2e.Create(t, fl)
		e2e.WaitFor(t, 30*time.Second, fl, func() error {
			return e2e.ConditionIs(fl, xpv2.TypeSynced, corev1.ConditionFalse, xpv2.ReasonReconcileError)
		})
		if err := e2e.ConditionIs(fl, xpv2.TypeReady, corev1.ConditionFalse, xpv2.ReasonUnavailable); err != nil {
			t.Errorf("an Observe-only File of a missing path is not ready: %v", err)
		}
		f.Stays(t, fl, false, "main", f.Repo.Head(t, "main"), "an Observe-only File must not create its file")

		// Someone else writes it, with other content: it is observed and
		// reported, not corrected.
		head, err := f.Repo.Commit("main", testenv.CommitSpec{Files: map[string]string{"observed.txt": "theirs\n"}})
		if err != nil {
			t.Fatal(err)
		}
		blob := f.GitOut(t, "rev-parse", "main:observed.txt")
		e2e.WaitFor(t, 30*time.Second, fl, func() error {
			if err := e2e.ReadyAndCurrent(t, fl)(); err != nil {
				return err
			}
			want := v1alpha1.FileObservation{Blob: blob, Commit: head}
			if diff := cmp.Diff(want, fl.Status.AtProvider); diff != "" {
				return fmt.Errorf("status.atProvider: -want, +got:\n%s", diff)
			}
			return nil
		})
		f.Stays(t, fl, false, "main", head, "an Observe-only File must not correct its file")
	})

	t.Run("PausedDoesNothing", func(t *testing.T) {
		t.Parallel()
		f := e2e.NewFixture(t)
		fl := e2e.NewFile(f, "paused", "paused.txt", "p\n")
		meta.AddAnnotations(fl, map[string]string{meta.AnnotationKeyReconciliationPaused: "true"})
		e2e.Create(t, fl)
		e2e.WaitFor(t, 30*time.Second, fl, func() error {
			return e2e.ConditionIs(fl, xpv2.TypeSynced, corev1.ConditionFalse, xpv2.ReasonReconcilePaused)
		})
		f.Stays(t, fl, true, "main", f.Repo.Head(t, "main"), "a paused File must not write")
		meta.RemoveAnnotations(fl, meta.AnnotationKeyReconciliationPaused)
		if err := e2e.CP.Client.Update(ctx, fl); err != nil {
			t.Fatal(err)
		}
		e2e.WaitFor(t, 30*time.Second, fl, e2e.ReadyAndCurrent(t, fl))
		f.WaitRemote(t, "main", map[string]string{"paused.txt": "p\n"})
	})

	t.Run("SecretRefused", func(t *testing.T) {
		t.Parallel()
		f := e2e.NewFixture(t)
		fl := e2e.NewFile(f, "secret", "secret.yaml", "")
		fl.Spec.ForProvider.Content = nil
		fl.Spec.ForProvider.Object = &runtime.RawExtension{Raw: []byte(
			`{"apiVersion":"v1","kind":"Secret","metadata":{"name":"db"},"stringData":{"password":"hunter2"}}`)}
		head := f.Repo.Head(t, "main")
		e2e.Create(t, fl)
		e2e.WaitFor(t, 30*time.Second, fl, e2e.StalledWith(t, fl, spec.ReasonSecretRefused))
		f.Stays(t, fl, false, "main", head, "a Secret must never reach Git")
		if got := f.GitOut(t, "for-each-ref", "--format=%(refname)"); got != "refs/heads/main" {
			t.Errorf("the repository must be untouched; refs are %q", got)
		}
		// A Secret File can still be deleted: nothing was written.
		if err := e2e.CP.Client.Delete(ctx, fl); err != nil {
			t.Fatal(err)
		}
		e2e.WaitGone(t, fl)
		if diff := cmp.Diff(head, f.Repo.Head(t, "main")); diff != "" {
			t.Errorf("deleting a refused File must not commit: -want, +got:\n%s", diff)
		}
	})

	t.Run("PathIsADirectoryStallsTheFile", func(t *testing.T) {
		t.Parallel()
		f := e2e.NewFixture(t)
		head, err := f.Repo.Commit("main", testenv.CommitSpec{Message: "an app", Files: map[string]string{"apps/x.yaml": "a: 1\n"}})
		if err != nil {
			t.Fatal(err)
		}
		fl := e2e.NewFile(f, "apps", "apps", "not a directory\n")
		e2e.Create(t, fl)
		// The File's own path is the problem, not its ProviderConfig: the
		// reason says so and the message names the path.
		e2e.WaitFor(t, 30*time.Second, fl, func() error {
			if err := e2e.StalledWith(t, fl, spec.ReasonPathConflict)(); err != nil {
				return err
			}
			if m := fl.GetCondition(session.TypeStalled).Message; !strings.Contains(m, `"apps"`) {
				return fmt.Errorf("Stalled message %q does not name the path", m)
			}
			return nil
		})
		pc := &v1alpha1.ProviderConfig{ObjectMeta: metav1.ObjectMeta{Namespace: f.Namespace, Name: "git"}}
		e2e.WaitFor(t, 30*time.Second, pc, func() error {
			return e2e.ConditionIs(pc, xpv2.TypeReady, corev1.ConditionTrue, session.ReasonSucceeded)
		})
		if diff := cmp.Diff(head, f.Repo.Head(t, "main")); diff != "" {
			t.Errorf("a File whose path is a directory must not commit: -want, +got:\n%s", diff)
		}
	})

	t.Run("BranchMissingThenCreated", func(t *testing.T) {
		t.Parallel()
		f := e2e.NewFixture(t)
		fl := e2e.NewFile(f, "feature", "feature.txt", "f\n")
		fl.Spec.ForProvider.Branch = "feature/x"
		e2e.Create(t, fl)
		e2e.WaitFor(t, 30*time.Second, fl, func() error {
			if err := e2e.ConditionIs(fl, xpv2.TypeSynced, corev1.ConditionFalse, xpv2.ReasonReconcileError); err != nil {
				return err
			}
			if m := fl.GetCondition(xpv2.TypeSynced).Message; !strings.Contains(m, "does not exist yet") {
				return fmt.Errorf("Synced message %q does not say the branch does not exist yet", m)
			}
			return nil
		})
		if err := e2e.ConditionIs(fl, xpv2.TypeReady, corev1.ConditionTrue, ""); err == nil {
			t.Errorf("a File on a missing branch must not be Ready")
		}
		if err := e2e.ConditionIs(fl, session.TypeStalled, corev1.ConditionTrue, ""); err == nil {
			t.Errorf("a missing branch is transient (a Branch may create it), not stalled")
		}
		// A Branch resource creates it; the File converges without help.
		e2e.Create(t, e2e.NewBranch(f, "feature", "feature/x", "main"))
		e2e.WaitFor(t, 60*time.Second, fl, e2e.ReadyAndCurrent(t, fl))
		f.WaitRemote(t, "feature/x", map[string]string{"feature.txt": "f\n"})
		if diff := cmp.Diff(map[string]string{}, f.Files(t, "main")); diff != "" {
			t.Errorf("main is untouched: -want, +got:\n%s", diff)
		}
	})

	t.Run("CreatedTogetherLandTogether", func(t *testing.T) {
		t.Parallel()
		f := e2e.NewFixture(t)
		const n = 20
		want := map[string]string{}
		for i := range n {
			p := fmt.Sprintf("many/f%02d.txt", i)
			want[p] = fmt.Sprintf("%d\n", i)
			e2e.Create(t, e2e.NewFile(f, fmt.Sprintf("f%02d", i), p, want[p]))
		}
		f.WaitRemote(t, "main", want)
		commits := len(f.Repo.Log(t, "main")) - 1 // without the seed
		t.Logf("%d Files created at once landed in %d commits", n, commits)
		// The writer batches what concurrent reconciles submit within one
		// commit window: one commit per File would mean no batching.
		if commits > n/4 {
			t.Errorf("%d Files created at once landed in %d commits, want at most %d", n, commits, n/4)
		}
	})
}
