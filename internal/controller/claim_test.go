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

	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"
	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/crossplane-contrib/provider-git/apis/v1alpha1"
	"github.com/crossplane-contrib/provider-git/internal/controller/claim"
	"github.com/crossplane-contrib/provider-git/internal/testenv"
)

// clusterConfigOf is a ClusterProviderConfig reaching f's repository with
// f's Secret: a second way into the same repository, from any namespace.
func clusterConfigOf(t *testing.T, f *fixture) *v1alpha1.ClusterProviderConfig {
	t.Helper()
	pc := &v1alpha1.ProviderConfig{}
	if err := cp.Client.Get(context.Background(), client.ObjectKey{Namespace: f.ns, Name: "git"}, pc); err != nil {
		t.Fatal(err)
	}
	cpc := &v1alpha1.ClusterProviderConfig{
		ObjectMeta: metav1.ObjectMeta{Name: f.ns + "-shared"},
		Spec: v1alpha1.ClusterProviderConfigSpec{
			URL: pc.Spec.URL,
			Credentials: v1alpha1.ClusterProviderCredentials{
				Source:    xpv2.CredentialsSourceSecret,
				SecretRef: &v1alpha1.CredentialsSecretRef{Namespace: f.ns, Name: pc.Spec.Credentials.SecretRef.Name},
			},
		},
	}
	create(t, cpc)
	t.Cleanup(func() { removeClusterConfig(cpc) })
	return cpc
}

// removeClusterConfig deletes cpc without the provider, as purge does for
// namespaced objects: a cluster-scoped configuration outlives the test's
// namespaces, and its in-use finalizer would keep it for later tests.
func removeClusterConfig(cpc *v1alpha1.ClusterProviderConfig) {
	ctx := context.Background()
	_ = cp.Client.Delete(ctx, cpc)
	_ = cp.Client.Patch(ctx, cpc, client.RawPatch(types.MergePatchType, []byte(`{"metadata":{"finalizers":null}}`)))
}

// otherNamespace is a namespace without configuration of its own.
func otherNamespace(t *testing.T) string {
	t.Helper()
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: "e2e-other-"}}
	create(t, ns)
	t.Cleanup(func() { purge(t, ns.Name) })
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
		if err := stalledWith(t, o, claim.ReasonConflict)(); err != nil {
			return err
		}
		if msg := o.GetCondition(xpv2.TypeReady).Message; !strings.Contains(msg, first) {
			return fmt.Errorf("Ready's message %q does not name the first claimant %q", msg, first)
		}
		return nil
	}
}

func TestTwoFilesOnePath(t *testing.T) {
	startProvider(t, "")
	f := newFixture(t)

	first := newFile(f, "owner", "shared/app.yaml", "first\n")
	create(t, first)
	waitFor(t, 30*time.Second, first, readyAndCurrent(t, first))
	f.waitRemote(t, "main", map[string]string{"shared/app.yaml": "first\n"})
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
	create(t, second)
	waitFor(t, 30*time.Second, second, conflictNaming(t, second, "File "+f.ns+"/owner"))

	// Nothing fights: the second writes nothing, the first stays Ready.
	f.stays(t, second, true, "main", f.repo.Head(t, "main"), "a File held off by a Conflict must write nothing")
	f.waitRemote(t, "main", map[string]string{"shared/app.yaml": "first\n"})
	waitFor(t, 10*time.Second, first, readyAndCurrent(t, first))

	// The first goes: it leaves the file to the second, which is woken
	// and takes over.
	if err := cp.Client.Delete(context.Background(), first); err != nil {
		t.Fatal(err)
	}
	waitGone(t, first)
	waitFor(t, 30*time.Second, second, readyAndCurrent(t, second))
	f.waitRemote(t, "main", map[string]string{"shared/app.yaml": "second\n"})
	if log := f.gitOut(t, "log", "--format=%s", "main", "--", "shared/app.yaml"); strings.Count(log, "\n")+1 != 2 {
		t.Errorf("the path must have had exactly two writes (first, then second after the handover), and no removal in between:\n%s", log)
	}
}

func TestTwoBranchesOneBranch(t *testing.T) {
	startProvider(t, "")
	f := newFixture(t)
	ctx := context.Background()
	exists := func() error {
		_, err := testenv.Git(f.repo.Dir, nil, "rev-parse", "--verify", "refs/heads/shared")
		return err
	}

	first := newBranch(f, "first", "shared", "main")
	create(t, first)
	waitFor(t, 30*time.Second, first, readyAndCurrent(t, first))
	aSecondLater(t, first)

	second := newBranch(f, "second", "shared", "main")
	create(t, second)
	waitFor(t, 30*time.Second, second, conflictNaming(t, second, "Branch "+f.ns+"/first"))

	// Deleting a later claimant leaves the branch to the first.
	third := newBranch(f, "third", "shared", "main")
	create(t, third)
	waitFor(t, 30*time.Second, third, conflictNaming(t, third, "Branch "+f.ns+"/first"))
	if err := cp.Client.Delete(ctx, third); err != nil {
		t.Fatal(err)
	}
	waitGone(t, third)
	if err := exists(); err != nil {
		t.Fatalf("deleting a Branch held off by a Conflict must leave the branch: %v", err)
	}

	// Deleting the first while the second still claims the branch leaves
	// it too; the second is woken and takes it over.
	if err := cp.Client.Delete(ctx, first); err != nil {
		t.Fatal(err)
	}
	waitGone(t, first)
	if err := exists(); err != nil {
		t.Fatalf("deleting a Branch another Branch still claims must leave the branch: %v", err)
	}
	waitFor(t, 30*time.Second, second, readyAndCurrent(t, second))

	// The last claimant deletes it.
	if err := cp.Client.Delete(ctx, second); err != nil {
		t.Fatal(err)
	}
	waitGone(t, second)
	if diff := cmp.Diff(true, exists() != nil); diff != "" {
		t.Errorf("deleting the last Branch of a branch deletes it: -want, +got:\n%s", diff)
	}
}

// TestBranchesWithoutDeleteShare: Branches that may not delete their branch
// (what a Composition composes per XR for a branch they all share) are no
// conflict, and a Branch that may delete it leaves it while they rely on it.
func TestBranchesWithoutDeleteShare(t *testing.T) {
	startProvider(t, "")
	f := newFixture(t)
	keep := []xpv2.ManagementAction{xpv2.ManagementActionObserve, xpv2.ManagementActionCreate,
		xpv2.ManagementActionUpdate, xpv2.ManagementActionLateInitialize}
	a := newBranch(f, "xr-a", "env/staging", "main", keep...)
	b := newBranch(f, "xr-b", "env/staging", "main", keep...)
	create(t, a)
	create(t, b)
	waitFor(t, 30*time.Second, a, readyAndCurrent(t, a))
	waitFor(t, 30*time.Second, b, readyAndCurrent(t, b))

	owner := newBranch(f, "owner", "env/staging", "main")
	create(t, owner)
	waitFor(t, 30*time.Second, owner, readyAndCurrent(t, owner))
	if err := cp.Client.Delete(context.Background(), owner); err != nil {
		t.Fatal(err)
	}
	waitGone(t, owner)
	if _, err := testenv.Git(f.repo.Dir, nil, "rev-parse", "--verify", "refs/heads/env/staging"); err != nil {
		t.Errorf("a Branch deleted while others rely on the branch must leave it: %v", err)
	}
}

// TestClaimOrderSurvivesRestart: claimants created while no provider runs
// are ordered by what the API server stores, not by which one a starting
// provider happens to reconcile first. The later one is created with a name
// that sorts first, and many workers reconcile both at once.
func TestClaimOrderSurvivesRestart(t *testing.T) {
	f := newFixture(t)
	first := newFile(f, "z-first", "app.yaml", "first\n")
	create(t, first)
	aSecondLater(t, first)
	second := newFile(f, "a-second", "app.yaml", "second\n")
	create(t, second)

	startProvider(t, "")
	waitFor(t, 30*time.Second, first, readyAndCurrent(t, first))
	waitFor(t, 30*time.Second, second, conflictNaming(t, second, "File "+f.ns+"/z-first"))
	writesLanded(t)
	f.waitRemote(t, "main", map[string]string{"app.yaml": "first\n"})
	if log := f.gitOut(t, "log", "--format=%s", "main", "--", "app.yaml"); strings.Count(log, "\n") != 0 {
		t.Errorf("only the first claimant may have written the path, once:\n%s", log)
	}
}

func ptrTo(s string) *string { return &s }
