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

package claims_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"
	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/crossplane-contrib/provider-git/apis/v1alpha1"
	"github.com/crossplane-contrib/provider-git/internal/reconciler/claim"
	"github.com/crossplane-contrib/provider-git/internal/testharness/e2e"
	"github.com/crossplane-contrib/provider-git/internal/testharness/testenv"
)

// clusterConfigOf is a ClusterProviderConfig reaching f's repository with
// f's Secret: a second way into the same repository, from any namespace.
func clusterConfigOf(t *testing.T, f *e2e.Fixture) *v1alpha1.ClusterProviderConfig {
	t.Helper()
	pc := &v1alpha1.ProviderConfig{}
	if err := e2e.CP.Client.Get(context.Background(), client.ObjectKey{Namespace: f.Namespace, Name: "git"}, pc); err != nil {
		t.Fatal(err)
	}
	cpc := &v1alpha1.ClusterProviderConfig{
		ObjectMeta: metav1.ObjectMeta{Name: f.Namespace + "-shared"},
		Spec: v1alpha1.ClusterProviderConfigSpec{
			URL: pc.Spec.URL,
			Credentials: v1alpha1.ClusterProviderCredentials{
				Source:    xpv2.CredentialsSourceSecret,
				SecretRef: &v1alpha1.CredentialsSecretRef{Namespace: f.Namespace, Name: pc.Spec.Credentials.SecretRef.Name},
			},
		},
	}
	e2e.Create(t, cpc)
	t.Cleanup(func() { removeClusterConfig(cpc) })
	return cpc
}

// removeClusterConfig deletes cpc without the provider, as purge does for
// namespaced objects: a cluster-scoped configuration outlives the test's
// namespaces, and its in-use finalizer would keep it for later tests.
func removeClusterConfig(cpc *v1alpha1.ClusterProviderConfig) {
	ctx := context.Background()
	_ = e2e.CP.Client.Delete(ctx, cpc)
	_ = e2e.CP.Client.Patch(ctx, cpc, client.RawPatch(types.MergePatchType, []byte(`{"metadata":{"finalizers":null}}`)))
}

// otherNamespace is a namespace without configuration of its own.
func otherNamespace(t *testing.T) string {
	t.Helper()
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: "e2e-other-"}}
	e2e.Create(t, ns)
	t.Cleanup(func() { e2e.Purge(t, ns.Name) })
	return ns.Name
}

// aSecondLater waits until the API server's clock, whose creationTimestamp
// has a resolution of one second, stamps a new object later than obj.
func aSecondLater(t *testing.T, obj client.Object) {
	t.Helper()
	testenv.Eventually(t, 5*time.Second, func() error {
		if !time.Now().After(obj.GetCreationTimestamp().Add(time.Second)) {
			return fmt.Errorf("still within the second %s was created in", obj.GetName())
		}
		return nil
	})
}

// conflictNaming is a resource Stalled with Conflict (kstatus Failed) whose
// message names the first claimant.
func conflictNaming(t *testing.T, o interface {
	client.Object
	GetCondition(xpv2.ConditionType) xpv2.Condition
}, first string) func() error {
	return func() error {
		if err := e2e.StalledWith(t, o, claim.ReasonConflict)(); err != nil {
			return err
		}
		if msg := o.GetCondition(xpv2.TypeReady).Message; !strings.Contains(msg, first) {
			return fmt.Errorf("Ready's message %q does not name the first claimant %q", msg, first)
		}
		return nil
	}
}

func TestTwoFilesOnePath(t *testing.T) {
	e2e.StartProvider(t, "")
	f := e2e.NewFixture(t)

	first := e2e.NewFile(f, "owner", "shared/app.yaml", "first\n")
	e2e.Create(t, first)
	e2e.WaitFor(t, 30*time.Second, first, e2e.ReadyAndCurrent(t, first))
	f.WaitRemote(t, "main", map[string]string{"shared/app.yaml": "first\n"})
	aSecondLater(t, first)

	// Another namespace reaches the same repository through a
	// ClusterProviderConfig, and claims the same path.
	cpc := clusterConfigOf(t, f)
	other := otherNamespace(t)
	second := &v1alpha1.File{
		ObjectMeta: metav1.ObjectMeta{Namespace: other, Name: "intruder"},
		Spec: v1alpha1.FileSpec{ForProvider: v1alpha1.FileParameters{
			Branch: "main", Path: "shared/app.yaml", Content: ptrTo("second\n"),
		}},
	}
	second.Spec.ProviderConfigReference = &xpv2.ProviderConfigReference{Kind: v1alpha1.ClusterProviderConfigKind, Name: cpc.Name}
	e2e.Create(t, second)
	e2e.WaitFor(t, 30*time.Second, second, conflictNaming(t, second, "File "+f.Namespace+"/owner"))

	// Nothing fights: the second writes nothing, the first stays Ready.
	f.Stays(t, second, true, "main", f.Repo.Head(t, "main"), "a File held off by a Conflict must write nothing")
	f.WaitRemote(t, "main", map[string]string{"shared/app.yaml": "first\n"})
	e2e.WaitFor(t, 10*time.Second, first, e2e.ReadyAndCurrent(t, first))

	// The first goes: it leaves the file to the second, which is woken
	// and takes over.
	if err := e2e.CP.Client.Delete(context.Background(), first); err != nil {
		t.Fatal(err)
	}
	e2e.WaitGone(t, first)
	e2e.WaitFor(t, 30*time.Second, second, e2e.ReadyAndCurrent(t, second))
	f.WaitRemote(t, "main", map[string]string{"shared/app.yaml": "second\n"})
	if log := f.GitOut(t, "log", "--format=%s", "main", "--", "shared/app.yaml"); strings.Count(log, "\n")+1 != 2 {
		t.Errorf("the path must have had exactly two writes (first, then second after the handover), and no removal in between:\n%s", log)
	}
}

func TestTwoBranchesOneBranch(t *testing.T) {
	e2e.StartProvider(t, "")
	f := e2e.NewFixture(t)
	ctx := context.Background()
	exists := func() error {
		_, err := testenv.Git(f.Repo.Dir, nil, "rev-parse", "--verify", "refs/heads/shared")
		return err
	}

	first := e2e.NewBranch(f, "first", "shared", "main")
	e2e.Create(t, first)
	e2e.WaitFor(t, 30*time.Second, first, e2e.ReadyAndCurrent(t, first))
	aSecondLater(t, first)

	second := e2e.NewBranch(f, "second", "shared", "main")
	e2e.Create(t, second)
	e2e.WaitFor(t, 30*time.Second, second, conflictNaming(t, second, "Branch "+f.Namespace+"/first"))

	// Deleting a later claimant leaves the branch to the first.
	third := e2e.NewBranch(f, "third", "shared", "main")
	e2e.Create(t, third)
	e2e.WaitFor(t, 30*time.Second, third, conflictNaming(t, third, "Branch "+f.Namespace+"/first"))
	if err := e2e.CP.Client.Delete(ctx, third); err != nil {
		t.Fatal(err)
	}
	e2e.WaitGone(t, third)
	if err := exists(); err != nil {
		t.Fatalf("deleting a Branch held off by a Conflict must leave the branch: %v", err)
	}

	// Deleting the first while the second still claims the branch leaves
	// it too; the second is woken and takes it over.
	if err := e2e.CP.Client.Delete(ctx, first); err != nil {
		t.Fatal(err)
	}
	e2e.WaitGone(t, first)
	if err := exists(); err != nil {
		t.Fatalf("deleting a Branch another Branch still claims must leave the branch: %v", err)
	}
	e2e.WaitFor(t, 30*time.Second, second, e2e.ReadyAndCurrent(t, second))

	// The last claimant deletes it.
	if err := e2e.CP.Client.Delete(ctx, second); err != nil {
		t.Fatal(err)
	}
	e2e.WaitGone(t, second)
	if diff := cmp.Diff(true, exists() != nil); diff != "" {
		t.Errorf("deleting the last Branch of a branch deletes it: -want, +got:\n%s", diff)
	}
}

// TestBranchesWithoutDeleteShare: Branches that may not delete their branch
// (what a Composition composes per XR for a branch they all share) are no
// conflict, and a Branch that may delete it leaves it while they rely on it.
func TestBranchesWithoutDeleteShare(t *testing.T) {
	e2e.StartProvider(t, "")
	f := e2e.NewFixture(t)
	keep := []xpv2.ManagementAction{xpv2.ManagementActionObserve, xpv2.ManagementActionCreate,
		xpv2.ManagementActionUpdate, xpv2.ManagementActionLateInitialize}
	a := e2e.NewBranch(f, "xr-a", "env/staging", "main", keep...)
	b := e2e.NewBranch(f, "xr-b", "env/staging", "main", keep...)
	e2e.Create(t, a)
	e2e.Create(t, b)
	e2e.WaitFor(t, 30*time.Second, a, e2e.ReadyAndCurrent(t, a))
	e2e.WaitFor(t, 30*time.Second, b, e2e.ReadyAndCurrent(t, b))

	owner := e2e.NewBranch(f, "owner", "env/staging", "main")
	e2e.Create(t, owner)
	e2e.WaitFor(t, 30*time.Second, owner, e2e.ReadyAndCurrent(t, owner))
	if err := e2e.CP.Client.Delete(context.Background(), owner); err != nil {
		t.Fatal(err)
	}
	e2e.WaitGone(t, owner)
	if _, err := testenv.Git(f.Repo.Dir, nil, "rev-parse", "--verify", "refs/heads/env/staging"); err != nil {
		t.Errorf("a Branch deleted while others rely on the branch must leave it: %v", err)
	}
}

// TestClaimOrderSurvivesRestart: claimants created while no provider runs
// are ordered by what the API server stores, not by which one a starting
// provider happens to reconcile first. The later one is created with a name
// that sorts first, and many workers reconcile both at once.
func TestClaimOrderSurvivesRestart(t *testing.T) {
	f := e2e.NewFixture(t)
	first := e2e.NewFile(f, "z-first", "app.yaml", "first\n")
	e2e.Create(t, first)
	aSecondLater(t, first)
	second := e2e.NewFile(f, "a-second", "app.yaml", "second\n")
	e2e.Create(t, second)

	e2e.StartProvider(t, "")
	e2e.WaitFor(t, 30*time.Second, first, e2e.ReadyAndCurrent(t, first))
	e2e.WaitFor(t, 30*time.Second, second, conflictNaming(t, second, "File "+f.Namespace+"/z-first"))
	e2e.WritesLanded(t)
	f.WaitRemote(t, "main", map[string]string{"app.yaml": "first\n"})
	if log := f.GitOut(t, "log", "--format=%s", "main", "--", "app.yaml"); strings.Count(log, "\n") != 0 {
		t.Errorf("only the first claimant may have written the path, once:\n%s", log)
	}
}

func ptrTo(s string) *string { return &s }
