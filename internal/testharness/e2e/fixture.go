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

package e2e

import (
	"context"
	"fmt"
	"testing"

	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/cli-utils/pkg/kstatus/status"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/crossplane-contrib/provider-git/apis/v1alpha1"
	"github.com/crossplane-contrib/provider-git/internal/reconciler/session"
	"github.com/crossplane-contrib/provider-git/internal/testharness/testenv"
)

// Fixture is a namespace with a ProviderConfig "git" and its Secret, pointing
// at a fresh repository on the HTTP server.
type Fixture struct {
	Namespace string
	Repo      *testenv.BareRepo
}

// NewFixture is a fixture whose repository's main holds a seed README.
func NewFixture(t *testing.T) *Fixture {
	t.Helper()
	return NewFixtureOf(t, map[string][]testenv.CommitSpec{
		"main": {{Message: "seed", Files: map[string]string{"README.md": "seed\n"}}},
	})
}

// NewFixtureOf is NewFixture with a repository holding branches; with none
// it is empty, as a forge creates it.
func NewFixtureOf(t *testing.T, branches map[string][]testenv.CommitSpec) *Fixture {
	t.Helper()
	return NewFixtureAt(t, HTTPGit.RepoURL, branches)
}

// NewFixtureAt is NewFixtureOf with the ProviderConfig's URL taken from
// repoURL (a fault proxy's, say) rather than from the HTTP server's.
func NewFixtureAt(t *testing.T, repoURL func(name string) string, branches map[string][]testenv.CommitSpec) *Fixture {
	t.Helper()
	ctx := context.Background()
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: "e2e-"}}
	if err := CP.Client.Create(ctx, ns); err != nil {
		t.Fatal(err)
	}
	name := ns.Name + ".git"
	repo := testenv.NewBareRepo(t, GitRoot, name, branches)
	secret := &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns.Name, Name: "git-credentials"},
		StringData: map[string]string{"username": GitUser, "password": GitToken},
	}
	pc := &v1alpha1.ProviderConfig{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns.Name, Name: "git"},
		Spec: v1alpha1.ProviderConfigSpec{
			URL: repoURL(name),
			Credentials: v1alpha1.ProviderCredentials{
				Source: xpv2.CredentialsSourceSecret, SecretRef: &v1alpha1.LocalCredentialsSecretRef{Name: secret.Name},
			},
			Commit: v1alpha1.CommitConfig{Author: &v1alpha1.CommitAuthor{Name: "E2E", Email: "e2e@example.org"}},
		},
	}
	for _, o := range []client.Object{secret, pc} {
		if err := CP.Client.Create(ctx, o); err != nil {
			t.Fatal(err)
		}
	}
	t.Cleanup(func() { Purge(t, ns.Name) })
	return &Fixture{Namespace: ns.Name, Repo: repo}
}

// Purge removes every provider-git object of a namespace without the
// provider (finalizers dropped), so a later test's provider does not
// reconcile an earlier test's leftovers: envtest has no namespace controller
// or garbage collector to do it.
func Purge(t testing.TB, ns string) {
	ctx := context.Background()
	for _, l := range []client.ObjectList{
		&v1alpha1.BranchList{}, &v1alpha1.FileList{}, &v1alpha1.CommitRequestList{}, &v1alpha1.MirrorList{}, &v1alpha1.PullRequestList{},
		&v1alpha1.ProviderConfigList{},
	} {
		if err := CP.Client.List(ctx, l, client.InNamespace(ns)); err != nil {
			t.Errorf("purge %s: %v", ns, err)
			continue
		}
		items, err := meta.ExtractList(l)
		if err != nil {
			t.Errorf("purge %s: %v", ns, err)
			continue
		}
		objs := make([]client.Object, 0, len(items))
		for _, item := range items {
			if o, ok := item.(client.Object); ok {
				objs = append(objs, o)
			}
		}
		// At once: a hundred PullRequests purged one after another took
		// ten seconds of round trips.
		_ = atOnce(objs, func(o client.Object) error {
			_ = CP.Client.Delete(ctx, o)
			_ = CP.Client.Patch(ctx, o, client.RawPatch(types.MergePatchType, []byte(`{"metadata":{"finalizers":null}}`)))
			return nil
		})
	}
	// Usages go last, after the resources that make them. They carry no
	// finalizer, so one request deletes them all, where a delete and a
	// patch each cost two requests per resource of the test.
	if err := CP.Client.DeleteAllOf(ctx, &v1alpha1.ProviderConfigUsage{}, client.InNamespace(ns)); err != nil {
		t.Errorf("purge %s: %v", ns, err)
	}
}

// PCRef names the fixture's ProviderConfig.
func PCRef() *xpv2.ProviderConfigReference {
	return &xpv2.ProviderConfigReference{Kind: "ProviderConfig", Name: "git"}
}

// ConditionIs checks a condition's status and reason.
func ConditionIs(o interface {
	GetCondition(xpv2.ConditionType) xpv2.Condition
}, t xpv2.ConditionType, s corev1.ConditionStatus, reason xpv2.ConditionReason) error {
	c := o.GetCondition(t)
	if c.Status != s || (reason != "" && c.Reason != reason) {
		return fmt.Errorf("%s is %s/%s (%q), want %s/%s", t, c.Status, c.Reason, c.Message, s, reason)
	}
	return nil
}

// KstatusOf is what kstatus (Flux health checks, kubectl wait tooling) reads.
func KstatusOf(t *testing.T, obj client.Object) status.Status {
	t.Helper()
	u, err := runtime.DefaultUnstructuredConverter.ToUnstructured(obj)
	if err != nil {
		t.Fatal(err)
	}
	res, err := status.Compute(&unstructured.Unstructured{Object: u})
	if err != nil {
		t.Fatal(err)
	}
	return res.Status
}

// KstatusIs checks that kstatus reads obj as want.
func KstatusIs(t *testing.T, obj client.Object, want string) error {
	if got := KstatusOf(t, obj); string(got) != want {
		return fmt.Errorf("kstatus is %s, want %s", got, want)
	}
	return nil
}

// ReadyAndCurrent is the converged state every kind must reach.
func ReadyAndCurrent(t *testing.T, o interface {
	client.Object
	GetCondition(xpv2.ConditionType) xpv2.Condition
}) func() error {
	return func() error {
		if err := ConditionIs(o, xpv2.TypeReady, corev1.ConditionTrue, xpv2.ReasonAvailable); err != nil {
			return err
		}
		if err := ConditionIs(o, xpv2.TypeSynced, corev1.ConditionTrue, xpv2.ReasonReconcileSuccess); err != nil {
			return err
		}
		if s := KstatusOf(t, o); s != status.CurrentStatus {
			return fmt.Errorf("kstatus is %s, want Current", s)
		}
		return nil
	}
}

// StalledWith is the state of a resource that needs a human.
func StalledWith(t *testing.T, o interface {
	client.Object
	GetCondition(xpv2.ConditionType) xpv2.Condition
}, reason xpv2.ConditionReason) func() error {
	return func() error {
		if err := ConditionIs(o, session.TypeStalled, corev1.ConditionTrue, reason); err != nil {
			return err
		}
		if s := KstatusOf(t, o); s != status.FailedStatus {
			return fmt.Errorf("kstatus is %s, want Failed", s)
		}
		return nil
	}
}

// Files is what branch holds in the fixture's repository, without the seed.
func (f *Fixture) Files(t *testing.T, branch string) map[string]string {
	t.Helper()
	files := f.Repo.Files(t, branch)
	delete(files, "README.md")
	return files
}
