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

package claim

import (
	"context"
	"strings"
	"testing"
	"time"

	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"
	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	"github.com/crossplane-contrib/provider-git/apis/v1alpha1"
	"github.com/crossplane-contrib/provider-git/internal/reconciler/managed"
)

// builderIndexer registers field indexes with a fake client builder, so the
// Index's own index functions serve the lookups.
type builderIndexer struct{ b *fake.ClientBuilder }

func (bi builderIndexer) IndexField(_ context.Context, obj client.Object, field string, fn client.IndexerFunc) error {
	bi.b.WithIndex(obj, field, fn)
	return nil
}

var t0 = metav1.NewTime(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))

func later(s int) metav1.Time { return metav1.NewTime(t0.Add(time.Duration(s) * time.Second)) }

func pcAt(ns, name, url string) *v1alpha1.ProviderConfig {
	return &v1alpha1.ProviderConfig{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}, Spec: v1alpha1.ProviderConfigSpec{URL: url}}
}

func cpcAt(name, url string) *v1alpha1.ClusterProviderConfig {
	return &v1alpha1.ClusterProviderConfig{ObjectMeta: metav1.ObjectMeta{Name: name}, Spec: v1alpha1.ClusterProviderConfigSpec{URL: url}}
}

func fileAt(ns, name string, created metav1.Time, ref *xpv2.ProviderConfigReference, branch, path string) *v1alpha1.File {
	f := &v1alpha1.File{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, CreationTimestamp: created},
		Spec:       v1alpha1.FileSpec{ForProvider: v1alpha1.FileParameters{Branch: branch, Path: path, Content: ptr.To("x")}},
	}
	f.Spec.ProviderConfigReference = ref
	return f
}

func branchAt(ns, name string, created metav1.Time, ref *xpv2.ProviderConfigReference, branch string) *v1alpha1.Branch {
	b := &v1alpha1.Branch{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, CreationTimestamp: created},
		Spec:       v1alpha1.BranchSpec{ForProvider: v1alpha1.BranchParameters{Branch: branch}},
	}
	b.Spec.ProviderConfigReference = ref
	return b
}

func mirrorAt(ns, name string, created metav1.Time, ref *xpv2.ProviderConfigReference, branch, folder string) *v1alpha1.Mirror {
	m := &v1alpha1.Mirror{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, CreationTimestamp: created},
		Spec: v1alpha1.MirrorSpec{ForProvider: v1alpha1.MirrorParameters{Branch: branch, Path: folder,
			Resources: []v1alpha1.MirrorResource{{APIVersion: "v1", Kind: "ConfigMap"}}}},
	}
	m.Spec.ProviderConfigReference = ref
	return m
}

func pullAt(ns, name string, created metav1.Time, ref *xpv2.ProviderConfigReference, head, base string) *v1alpha1.PullRequest {
	pr := &v1alpha1.PullRequest{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, CreationTimestamp: created},
		Spec:       v1alpha1.PullRequestSpec{ForProvider: v1alpha1.PullRequestParameters{Head: head, Base: base, Title: "t"}},
	}
	pr.Spec.ProviderConfigReference = ref
	return pr
}

func deleting[T client.Object](o T) T {
	o.SetDeletionTimestamp(ptr.To(later(100)))
	o.SetFinalizers([]string{"finalizer.managedresource.crossplane.io"})
	return o
}

func withPolicies[T interface {
	client.Object
	SetManagementPolicies(xpv2.ManagementPolicies)
}](o T, p ...xpv2.ManagementAction) T {
	o.SetManagementPolicies(p)
	return o
}

var (
	local  = &xpv2.ProviderConfigReference{Kind: v1alpha1.ProviderConfigKind, Name: "git"}
	shared = &xpv2.ProviderConfigReference{Kind: v1alpha1.ClusterProviderConfigKind, Name: "shared"}
)

func TestCheck(t *testing.T) {
	type want struct {
		letGo  bool
		reason xpv2.ConditionReason
		msg    string
	}
	cases := map[string]struct {
		reason  string
		objects []client.Object
		kind    Kind
		self    Object
		want    want
	}{
		"Alone": {
			reason:  "A File no other File shares a path with holds it.",
			objects: []client.Object{pcAt("a", "git", "https://h/org/r.git")},
			kind:    File(),
			self:    fileAt("a", "f", t0, local, "main", "x.yaml"),
		},
		"LaterInOneNamespace": {
			reason: "The later of two Files on one path is held off, naming the first.",
			objects: []client.Object{pcAt("a", "git", "https://h/org/r.git"),
				fileAt("a", "first", t0, local, "main", "x.yaml")},
			kind: File(),
			self: fileAt("a", "second", later(1), local, "main", "x.yaml"),
			want: want{reason: ReasonConflict, msg: `path "x.yaml" on branch "main" of repository h/org/r is claimed by File a/first, created first: this File changes nothing there while that one exists (delete one of them, or point one elsewhere; an Observe-only File shares it)`},
		},
		"FirstKeepsIt": {
			reason: "The first of two Files on one path is not held off by the later one.",
			objects: []client.Object{pcAt("a", "git", "https://h/org/r.git"),
				fileAt("a", "second", later(1), local, "main", "x.yaml")},
			kind: File(),
			self: fileAt("a", "first", t0, local, "main", "x.yaml"),
		},
		"AcrossNamespacesThroughAClusterConfig": {
			reason: "A File in another namespace reaching the same repository through a ClusterProviderConfig, spelled otherwise, collides.",
			objects: []client.Object{pcAt("a", "git", "https://h/org/r.git"), cpcAt("shared", "ssh://git@h/org/r"),
				fileAt("a", "first", t0, local, "main", "x.yaml")},
			kind: File(),
			self: fileAt("b", "second", later(1), shared, "main", "x.yaml"),
			want: want{reason: ReasonConflict, msg: "File a/first"},
		},
		"AcrossNamespacesThroughTheirOwnConfigs": {
			reason: "Two namespaces' own ProviderConfigs of one repository collide too.",
			objects: []client.Object{pcAt("a", "git", "https://h/org/r.git"), pcAt("b", "git", "https://H/org/r/"),
				fileAt("a", "first", t0, local, "main", "x.yaml")},
			kind: File(),
			self: fileAt("b", "second", later(1), local, "main", "x.yaml"),
			want: want{reason: ReasonConflict, msg: "File a/first"},
		},
		"OtherRepository": {
			reason: "The same path in another repository is another file.",
			objects: []client.Object{pcAt("a", "git", "https://h/org/r.git"), pcAt("b", "git", "https://h/org/other.git"),
				fileAt("a", "first", t0, local, "main", "x.yaml")},
			kind: File(),
			self: fileAt("b", "second", later(1), local, "main", "x.yaml"),
		},
		"OtherBranch": {
			reason: "The same path on another branch is another file.",
			objects: []client.Object{pcAt("a", "git", "https://h/org/r.git"),
				fileAt("a", "first", t0, local, "dev", "x.yaml")},
			kind: File(),
			self: fileAt("a", "second", later(1), local, "main", "x.yaml"),
		},
		"ConfigurationMissing": {
			reason:  "Without a readable configuration, Files through the very same reference still collide.",
			objects: []client.Object{fileAt("a", "first", t0, local, "main", "x.yaml")},
			kind:    File(),
			self:    fileAt("a", "second", later(1), local, "main", "x.yaml"),
			want:    want{reason: ReasonConflict, msg: "File a/first"},
		},
		"DeletingWhileAnotherKeepsIt": {
			reason: "The first File, being deleted while a later one lives, lets go.",
			objects: []client.Object{pcAt("a", "git", "https://h/org/r.git"),
				fileAt("a", "second", later(1), local, "main", "x.yaml")},
			kind: File(),
			self: deleting(fileAt("a", "first", t0, local, "main", "x.yaml")),
			want: want{letGo: true},
		},
		"FirstBeingDeleted": {
			reason: "A first File being deleted holds nothing against a later, live one.",
			objects: []client.Object{pcAt("a", "git", "https://h/org/r.git"),
				deleting(fileAt("a", "first", t0, local, "main", "x.yaml"))},
			kind: File(),
			self: fileAt("a", "second", later(1), local, "main", "x.yaml"),
		},
		"TwoPullRequests": {
			reason: "The later of two PullRequests of one repository, head and base, in two namespaces, is held off: both would rewrite and close one pull request.",
			objects: []client.Object{pcAt("a", "git", "https://h/org/r.git"), cpcAt("shared", "https://h/org/r"),
				pullAt("a", "first", t0, local, "env/staging", "main")},
			kind: PullRequest(),
			self: pullAt("b", "second", later(1), shared, "env/staging", "main"),
			want: want{reason: ReasonConflict, msg: `the pull request from "env/staging" into "main" of repository h/org/r is claimed by PullRequest a/first`},
		},
		"PullRequestOtherBase": {
			reason: "Another base is another pull request.",
			objects: []client.Object{pcAt("a", "git", "https://h/org/r.git"),
				pullAt("a", "first", t0, local, "env/staging", "release")},
			kind: PullRequest(),
			self: pullAt("a", "second", later(1), local, "env/staging", "main"),
		},
		"PullRequestBesideAFile": {
			reason: "A PullRequest's base is no path: a File at path \"main\" of the head branch is no rival.",
			objects: []client.Object{pcAt("a", "git", "https://h/org/r.git"),
				fileAt("a", "first", t0, local, "env/staging", "main")},
			kind: PullRequest(),
			self: pullAt("a", "second", later(1), local, "env/staging", "main"),
		},
		"TwoBranches": {
			reason: "The later of two Branches of one branch is held off.",
			objects: []client.Object{pcAt("a", "git", "https://h/org/r.git"),
				branchAt("a", "first", t0, local, "env/prod")},
			kind: Branch(),
			self: branchAt("a", "second", later(1), local, "env/prod"),
			want: want{reason: ReasonConflict, msg: `branch "env/prod" of repository h/org/r is claimed by Branch a/first`},
		},
		"BranchesWithoutDeleteShare": {
			reason: "Branches that may not delete the branch share it: a Composition's branch per environment, composed by every XR, is no conflict.",
			objects: []client.Object{pcAt("a", "git", "https://h/org/r.git"),
				withPolicies(branchAt("a", "first", t0, local, "env/prod"), xpv2.ManagementActionObserve, xpv2.ManagementActionCreate)},
			kind: Branch(),
			self: withPolicies(branchAt("a", "second", later(1), local, "env/prod"), xpv2.ManagementActionObserve, xpv2.ManagementActionCreate),
		},
		"SharedFirstDoesNotHoldOff": {
			reason: "A first Branch that may not delete holds off no later one that may.",
			objects: []client.Object{pcAt("a", "git", "https://h/org/r.git"),
				withPolicies(branchAt("a", "first", t0, local, "env/prod"), xpv2.ManagementActionObserve)},
			kind: Branch(),
			self: branchAt("a", "second", later(1), local, "env/prod"),
		},
		"DeletingWhileASharerRelies": {
			reason: "A Branch being deleted lets go while a Branch without Delete still relies on the branch.",
			objects: []client.Object{pcAt("a", "git", "https://h/org/r.git"),
				withPolicies(branchAt("a", "second", later(1), local, "env/prod"), xpv2.ManagementActionObserve, xpv2.ManagementActionCreate)},
			kind: Branch(),
			self: deleting(branchAt("a", "first", t0, local, "env/prod")),
			want: want{letGo: true},
		},
		"ObserveOnlyFile": {
			reason: "An Observe-only File only reads its path: never held off.",
			objects: []client.Object{pcAt("a", "git", "https://h/org/r.git"),
				fileAt("a", "first", t0, local, "main", "x.yaml")},
			kind: File(),
			self: withPolicies(fileAt("a", "second", later(1), local, "main", "x.yaml"), xpv2.ManagementActionObserve),
		},
		"BranchAndFile": {
			reason: "A Branch does not compete with a File on its branch.",
			objects: []client.Object{pcAt("a", "git", "https://h/org/r.git"),
				fileAt("a", "first", t0, local, "env/prod", "x.yaml")},
			kind: Branch(),
			self: branchAt("a", "second", later(1), local, "env/prod"),
		},
		"FileInAnEarlierMirrorsFolder": {
			reason: "A File created after a Mirror, anywhere in its folder, is held off naming the Mirror.",
			objects: []client.Object{pcAt("a", "git", "https://h/org/r.git"),
				mirrorAt("a", "live", t0, local, "main", "clusters/prod")},
			kind: File(),
			self: fileAt("a", "notes", later(1), local, "main", "clusters/prod/a/core/configmap/x.yaml"),
			want: want{reason: ReasonConflict, msg: `path "clusters/prod/a/core/configmap/x.yaml" on branch "main" of repository h/org/r is claimed by Mirror a/live, created first`},
		},
		"FileNextToAMirrorsFolder": {
			reason: "A File beside a Mirror's folder (a name that merely starts the same) is no conflict.",
			objects: []client.Object{pcAt("a", "git", "https://h/org/r.git"),
				mirrorAt("a", "live", t0, local, "main", "clusters/prod")},
			kind: File(),
			self: fileAt("a", "notes", later(1), local, "main", "clusters/prod2/x.yaml"),
		},
		"MirrorOverAnEarlierFile": {
			reason: "A Mirror created after a File in its folder is held off naming the File.",
			objects: []client.Object{pcAt("a", "git", "https://h/org/r.git"),
				fileAt("a", "notes", t0, local, "main", "clusters/prod/README.md")},
			kind: Mirror(),
			self: mirrorAt("a", "live", later(1), local, "main", "clusters/prod"),
			want: want{reason: ReasonConflict, msg: `folder "clusters/prod" on branch "main" of repository h/org/r is claimed by File a/notes, created first: this Mirror changes nothing there while that one exists (delete one of them, or point one elsewhere; an Observe-only Mirror shares it)`},
		},
		"NestedMirrors": {
			reason: "A Mirror whose folder lies inside an earlier Mirror's folder is held off.",
			objects: []client.Object{pcAt("a", "git", "https://h/org/r.git"),
				mirrorAt("a", "outer", t0, local, "main", "clusters")},
			kind: Mirror(),
			self: mirrorAt("a", "inner", later(1), local, "main", "clusters/prod"),
			want: want{reason: ReasonConflict, msg: "Mirror a/outer"},
		},
		"MirrorAroundAnEarlierMirror": {
			reason: "A Mirror whose folder holds an earlier Mirror's folder is held off too.",
			objects: []client.Object{pcAt("a", "git", "https://h/org/r.git"),
				mirrorAt("a", "inner", t0, local, "main", "clusters/prod")},
			kind: Mirror(),
			self: mirrorAt("a", "root", later(1), local, "main", "."),
			want: want{reason: ReasonConflict, msg: `the whole tree of branch "main" of repository h/org/r is claimed by Mirror a/inner`},
		},
		"TwoMirrorsOneSecond": {
			reason: "Two Mirrors on one folder created in one second: the name that sorts first holds it, whichever is checked.",
			objects: []client.Object{pcAt("a", "git", "https://h/org/r.git"),
				mirrorAt("a", "alpha", t0, local, "main", "live")},
			kind: Mirror(),
			self: mirrorAt("a", "beta", t0, local, "main", "live"),
			want: want{reason: ReasonConflict, msg: "Mirror a/alpha"},
		},
		"MirrorsOnTwoBranches": {
			reason: "The same folder on another branch is another folder.",
			objects: []client.Object{pcAt("a", "git", "https://h/org/r.git"),
				mirrorAt("a", "first", t0, local, "dev", "live")},
			kind: Mirror(),
			self: mirrorAt("a", "second", later(1), local, "main", "live"),
		},
		"MirrorDeletingWhileAFileWaits": {
			reason: "A Mirror being deleted while a later File in its folder lives removes its own files: the File then writes its own.",
			objects: []client.Object{pcAt("a", "git", "https://h/org/r.git"),
				fileAt("a", "notes", later(1), local, "main", "live/x.yaml")},
			kind: Mirror(),
			self: deleting(mirrorAt("a", "m", t0, local, "main", "live")),
		},
		"MirrorDeletingWhileAnotherKeepsTheFolder": {
			reason: "A Mirror being deleted while a later Mirror claims the same folder lets go: the folder stays for it.",
			objects: []client.Object{pcAt("a", "git", "https://h/org/r.git"), pcAt("b", "git", "https://h/org/r.git"),
				mirrorAt("b", "second", later(1), local, "main", "live")},
			kind: Mirror(),
			self: deleting(mirrorAt("a", "m", t0, local, "main", "live")),
			want: want{letGo: true},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			s := runtime.NewScheme()
			if err := v1alpha1.SchemeBuilder.AddToScheme(s); err != nil {
				t.Fatal(err)
			}
			b := fake.NewClientBuilder().WithScheme(s).WithObjects(append(tc.objects, tc.self)...)
			x := NewIndex(nil, builderIndexer{b})
			for _, k := range []Kind{File(), Branch(), Mirror(), PullRequest()} {
				if err := x.Register(context.Background(), k); err != nil {
					t.Fatal(err)
				}
			}
			x.client = b.Build()
			letGo, err := x.Check(context.Background(), tc.kind, tc.self)
			reason, _ := managed.StalledReason(err)
			if err != nil && reason == "" {
				t.Fatalf("%s\nCheck: unexpected error: %v", tc.reason, err)
			}
			got := want{letGo: letGo, reason: reason, msg: tc.want.msg}
			if err != nil && !strings.Contains(err.Error(), tc.want.msg) {
				got.msg = err.Error()
			}
			if diff := cmp.Diff(tc.want, got, cmp.AllowUnexported(want{})); diff != "" {
				t.Errorf("%s\nCheck(...): -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}
