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
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"
	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/crossplane-contrib/provider-git/apis/v1alpha1"
	mirrorcontroller "github.com/crossplane-contrib/provider-git/internal/controller/mirror"
	"github.com/crossplane-contrib/provider-git/internal/manifest"
	"github.com/crossplane-contrib/provider-git/internal/testenv"
)

const mirrorFolder = "live"

func newMirror(ns, name string, p v1alpha1.MirrorParameters, ref *xpv2.ProviderConfigReference) *v1alpha1.Mirror {
	if p.Branch == "" {
		p.Branch = "main"
	}
	if p.Path == "" {
		p.Path = mirrorFolder
	}
	m := &v1alpha1.Mirror{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}, Spec: v1alpha1.MirrorSpec{ForProvider: p}}
	m.Spec.ProviderConfigReference = ref
	return m
}

func configMap(ns, name string, labels map[string]string, data map[string]string) *corev1.ConfigMap {
	return &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, Labels: labels}, Data: data}
}

// rendered is the file a live object becomes: internal/manifest's rendering
// of what the API server holds now.
func rendered(t *testing.T, obj client.Object) string {
	t.Helper()
	if err := cp.Client.Get(context.Background(), client.ObjectKeyFromObject(obj), obj); err != nil {
		t.Fatal(err)
	}
	gvk, err := cp.Client.GroupVersionKindFor(obj)
	if err != nil {
		t.Fatal(err)
	}
	obj.GetObjectKind().SetGroupVersionKind(gvk)
	j, err := json.Marshal(obj)
	if err != nil {
		t.Fatal(err)
	}
	out, err := manifest.Render(j)
	if err != nil {
		t.Fatal(err)
	}
	return string(out)
}

// mirrored is what the folder holds besides the marker and foreign files.
func (f *fixture) mirrored(t *testing.T) map[string]string {
	t.Helper()
	out := map[string]string{}
	for p, c := range f.files(t, "main") {
		if strings.HasPrefix(p, mirrorFolder+"/") && p != mirrorFolder+"/"+mirrorcontroller.MarkerFile && !strings.HasSuffix(p, ".md") {
			out[p] = c
		}
	}
	return out
}

func (f *fixture) waitMirrored(t *testing.T, want map[string]string) {
	t.Helper()
	eventually(t, 30*time.Second, func() error {
		if diff := cmp.Diff(want, f.mirrored(t)); diff != "" {
			return fmt.Errorf("the folder does not mirror the namespace: -want, +got:\n%s", diff)
		}
		return nil
	})
}

func objPath(ns, group, kind, name string) string {
	return fmt.Sprintf("%s/%s/%s/%s/%s.yaml", mirrorFolder, ns, group, kind, name)
}

func TestMirrorLifecycle(t *testing.T) {
	ctx := context.Background()
	f := newFixtureOf(t, map[string][]testenv.CommitSpec{
		"main": {{Message: "seed", Files: map[string]string{"README.md": "seed\n", mirrorFolder + "/notes.md": "kept by people\n"}}},
	})
	startProvider(t, "")
	ns := f.ns

	a := configMap(ns, "a", map[string]string{"app": "demo"}, map[string]string{"k": "1"})
	b := configMap(ns, "b", nil, map[string]string{"k": "2"})
	dep := &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "web"},
		Spec: appsv1.DeploymentSpec{
			Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "web"}},
				Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "web", Image: "nginx:1.27"}}},
			},
		},
	}
	for _, o := range []client.Object{a, b, dep} {
		create(t, o)
	}
	// What the Deployment's controller would make, made by hand: envtest
	// runs no controllers. Controlled, so not mirrored.
	rs := &appsv1.ReplicaSet{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "web-1", OwnerReferences: []metav1.OwnerReference{{
			APIVersion: "apps/v1", Kind: "Deployment", Name: dep.Name, UID: dep.UID, Controller: ptr.To(true),
		}}},
		Spec: appsv1.ReplicaSetSpec{Selector: dep.Spec.Selector, Template: dep.Spec.Template},
	}
	create(t, rs)
	seed := f.repo.Head(t, "main")

	m := newMirror(ns, "m", v1alpha1.MirrorParameters{Resources: []v1alpha1.MirrorResource{
		{APIVersion: "v1", Kind: "ConfigMap"}, {APIVersion: "apps/v1", Kind: "Deployment"}, {APIVersion: "apps/v1", Kind: "ReplicaSet"},
	}}, pcRef())
	create(t, m)
	waitFor(t, time.Minute, m, readyAndCurrent(t, m))

	want := map[string]string{
		objPath(ns, "core", "configmap", "a"):    rendered(t, a),
		objPath(ns, "core", "configmap", "b"):    rendered(t, b),
		objPath(ns, "apps", "deployment", "web"): rendered(t, dep),
	}
	if diff := cmp.Diff(want, f.mirrored(t)); diff != "" {
		t.Fatalf("the first commit does not hold exactly the sanitized objects (ReplicaSet skipped): -want, +got:\n%s", diff)
	}
	if got := f.files(t, "main")[mirrorFolder+"/notes.md"]; got != "kept by people\n" {
		t.Errorf("a file the Mirror does not own changed: %q", got)
	}
	log := f.repo.Log(t, "main")
	if len(log) < 2 || log[1].SHA != seed {
		t.Errorf("the initial mirror took %d commits, want 1", len(log)-1)
	}
	if m.Status.AtProvider.Objects != 3 || m.Status.AtProvider.Commit != log[0].SHA {
		t.Errorf("atProvider = %+v, want 3 objects and commit %s", m.Status.AtProvider, log[0].SHA)
	}
	if strings.Contains(f.files(t, "main")[objPath(ns, "core", "configmap", "a")], "resourceVersion") {
		t.Errorf("the rendering is not sanitized")
	}

	t.Run("UpdateFollows", func(t *testing.T) {
		a.Data = map[string]string{"k": "changed"}
		if err := cp.Client.Update(ctx, a); err != nil {
			t.Fatal(err)
		}
		want[objPath(ns, "core", "configmap", "a")] = rendered(t, a)
		f.waitMirrored(t, want)
		waitFor(t, time.Minute, m, readyAndCurrent(t, m))
	})

	t.Run("StatusOnlyMakesNoCommit", func(t *testing.T) {
		head := f.repo.Head(t, "main")
		if err := cp.Client.Get(ctx, client.ObjectKeyFromObject(dep), dep); err != nil {
			t.Fatal(err)
		}
		dep.Status.ObservedGeneration = dep.Generation
		dep.Status.Replicas = 1
		if err := cp.Client.Status().Update(ctx, dep); err != nil {
			t.Fatal(err)
		}
		// A no-op update: the API server keeps the object as it is.
		if err := cp.Client.Update(ctx, b); err != nil {
			t.Fatal(err)
		}
		rv := m.ResourceVersion
		f.stays(t, m, false, "main", head, "a status-only change and a no-op update")
		if err := readyAndCurrent(t, m)(); err != nil {
			t.Error(err)
		}
		if m.ResourceVersion != rv {
			t.Errorf("a converged Mirror's reconciles wrote it (resourceVersion %s, was %s)", m.ResourceVersion, rv)
		}
	})

	t.Run("DeleteRemovesFile", func(t *testing.T) {
		if err := cp.Client.Delete(ctx, b); err != nil {
			t.Fatal(err)
		}
		delete(want, objPath(ns, "core", "configmap", "b"))
		f.waitMirrored(t, want)
		waitFor(t, time.Minute, m, func() error {
			if err := readyAndCurrent(t, m)(); err != nil {
				return err
			}
			if m.Status.AtProvider.Objects != 2 {
				return fmt.Errorf("atProvider.objects = %d, want 2", m.Status.AtProvider.Objects)
			}
			return nil
		})
	})

	t.Run("GitDriftIsPutBack", func(t *testing.T) {
		p := objPath(ns, "core", "configmap", "a")
		if _, err := f.repo.Commit("main", testenv.CommitSpec{Message: "hand edit", Files: map[string]string{p: "edited: by hand\n"}}); err != nil {
			t.Fatal(err)
		}
		f.waitMirrored(t, want)
	})

	outer := t
	t.Run("RestartSweeps", func(t *testing.T) {
		running.stop()
		c := configMap(ns, "c", nil, map[string]string{"k": "3"})
		create(t, c)
		if err := cp.Client.Delete(ctx, a); err != nil {
			t.Fatal(err)
		}
		if err := cp.Client.Get(ctx, client.ObjectKeyFromObject(dep), dep); err != nil {
			t.Fatal(err)
		}
		dep.Spec.Template.Spec.Containers[0].Image = "nginx:1.28"
		if err := cp.Client.Update(ctx, dep); err != nil {
			t.Fatal(err)
		}
		// The outer test's: a subtest's cleanup would stop it when the
		// subtest ends.
		startProvider(outer, "")
		delete(want, objPath(ns, "core", "configmap", "a"))
		want[objPath(ns, "core", "configmap", "c")] = rendered(t, c)
		want[objPath(ns, "apps", "deployment", "web")] = rendered(t, dep)
		f.waitMirrored(t, want)
		if got := f.files(t, "main")[mirrorFolder+"/notes.md"]; got != "kept by people\n" {
			t.Errorf("a file the Mirror does not own changed: %q", got)
		}
	})

	t.Run("SecondMirrorConflicts", func(t *testing.T) {
		head := f.repo.Head(t, "main")
		second := newMirror(ns, "second", v1alpha1.MirrorParameters{Resources: []v1alpha1.MirrorResource{{APIVersion: "v1", Kind: "ConfigMap"}}}, pcRef())
		create(t, second)
		waitFor(t, time.Minute, second, stalledWith(t, second, "PathConflict"))
		if msg := second.GetCondition(xpv2.TypeReady).Message; !strings.Contains(msg, ns+"/m") {
			t.Errorf("PathConflict does not name the Mirror that owns the folder: %q", msg)
		}
		writesLanded(t)
		if got := f.repo.Head(t, "main"); got != head {
			t.Errorf("a Mirror in conflict wrote to the branch")
		}
		if err := cp.Client.Delete(ctx, second); err != nil {
			t.Fatal(err)
		}
		waitGone(t, second)
		if got := f.repo.Head(t, "main"); got != head {
			t.Errorf("deleting a Mirror in conflict removed another's files")
		}
	})

	t.Run("DeleteRemovesOwnedFiles", func(t *testing.T) {
		if err := cp.Client.Delete(ctx, m); err != nil {
			t.Fatal(err)
		}
		waitGone(t, m)
		if diff := cmp.Diff(map[string]string{mirrorFolder + "/notes.md": "kept by people\n"}, f.files(t, "main")); diff != "" {
			t.Errorf("deleting the Mirror must remove its files and marker only: -want, +got:\n%s", diff)
		}
	})
}

func TestMirrorOrphanedKeepsFilesAndReleasesWatches(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t)
	p := startProvider(t, "")
	cm := configMap(f.ns, "kept", nil, map[string]string{"k": "1"})
	create(t, cm)
	m := newMirror(f.ns, "m", v1alpha1.MirrorParameters{Resources: []v1alpha1.MirrorResource{{APIVersion: "v1", Kind: "ConfigMap"}}}, pcRef())
	m.Spec.ManagementPolicies = xpv2.ManagementPolicies{xpv2.ManagementActionObserve, xpv2.ManagementActionCreate, xpv2.ManagementActionUpdate, xpv2.ManagementActionLateInitialize}
	create(t, m)
	waitFor(t, time.Minute, m, readyAndCurrent(t, m))
	want := map[string]string{objPath(f.ns, "core", "configmap", "kept"): rendered(t, cm)}
	f.waitMirrored(t, want)
	if n := p.mirrors.Informers(); n != 1 {
		t.Fatalf("%d informers run for one Mirror of one kind in one namespace, want 1", n)
	}
	if err := cp.Client.Delete(ctx, m); err != nil {
		t.Fatal(err)
	}
	waitGone(t, m)
	eventually(t, 30*time.Second, func() error {
		if n := p.mirrors.Informers(); n != 0 {
			return fmt.Errorf("%d informers still run for a Mirror that is gone", n)
		}
		return nil
	})
	if diff := cmp.Diff(want, f.mirrored(t)); diff != "" {
		t.Errorf("without Delete in managementPolicies the files stay: -want, +got:\n%s", diff)
	}
}

func TestMirrorSelectsAndNeverWritesSecrets(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t)
	startProvider(t, "")
	ns := f.ns
	demo := configMap(ns, "demo", map[string]string{"app": "demo"}, map[string]string{"k": "1"})
	other := configMap(ns, "other", map[string]string{"app": "other"}, map[string]string{"k": "2"})
	const secretValue = "hunter2-never-in-git"
	secret := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "s", Labels: map[string]string{"app": "demo"}},
		StringData: map[string]string{"password": secretValue}}
	for _, o := range []client.Object{demo, other, secret} {
		create(t, o)
	}
	m := newMirror(ns, "m", v1alpha1.MirrorParameters{
		Resources:     []v1alpha1.MirrorResource{{APIVersion: "v1", Kind: "ConfigMap"}, {APIVersion: "v1", Kind: "Secret"}},
		LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "demo"}},
	}, pcRef())
	create(t, m)
	waitFor(t, time.Minute, m, readyAndCurrent(t, m))
	f.waitMirrored(t, map[string]string{objPath(ns, "core", "configmap", "demo"): rendered(t, demo)})
	if msg := m.GetCondition(xpv2.TypeReady).Message; !strings.Contains(msg, "Secret") {
		t.Errorf("Ready's message does not say Secrets were left out: %q", msg)
	}
	// The label selector follows label changes.
	other.Labels["app"] = "demo"
	if err := cp.Client.Update(ctx, other); err != nil {
		t.Fatal(err)
	}
	f.waitMirrored(t, map[string]string{
		objPath(ns, "core", "configmap", "demo"):  rendered(t, demo),
		objPath(ns, "core", "configmap", "other"): rendered(t, other),
	})
	if out := f.gitOut(t, "log", "-p", "--all"); strings.Contains(out, secretValue) || strings.Contains(out, "aHVudGVyMi") {
		t.Errorf("a Secret's value is in the repository's history")
	}
}

func TestMirrorOtherNamespaceNeedsGrant(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t)
	startProvider(t, "")
	src := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: "e2e-src-", Labels: map[string]string{"mirror": "ok"}}}
	create(t, src)
	cm := configMap(src.Name, "x", nil, map[string]string{"k": "1"})
	create(t, cm)

	cpc := &v1alpha1.ClusterProviderConfig{
		ObjectMeta: metav1.ObjectMeta{Name: f.ns},
		Spec: v1alpha1.ClusterProviderConfigSpec{
			URL: httpGit.RepoURL(f.ns + ".git"),
			Credentials: v1alpha1.ClusterProviderCredentials{Source: xpv2.CredentialsSourceSecret,
				SecretRef: &v1alpha1.CredentialsSecretRef{Namespace: f.ns, Name: "git-credentials"}},
		},
	}
	create(t, cpc)
	t.Cleanup(func() { _ = cp.Client.Delete(context.Background(), cpc) })
	cpcRef := &xpv2.ProviderConfigReference{Kind: v1alpha1.ClusterProviderConfigKind, Name: cpc.Name}
	head := f.repo.Head(t, "main")

	// With a namespaced ProviderConfig no grant is possible.
	viaPC := newMirror(f.ns, "via-pc", v1alpha1.MirrorParameters{
		Resources: []v1alpha1.MirrorResource{{APIVersion: "v1", Kind: "ConfigMap"}}, SourceNamespaces: []string{src.Name},
	}, pcRef())
	create(t, viaPC)
	waitFor(t, time.Minute, viaPC, stalledWith(t, viaPC, mirrorcontroller.ReasonNotAuthorized))

	m := newMirror(f.ns, "m", v1alpha1.MirrorParameters{
		Path: "other", Resources: []v1alpha1.MirrorResource{{APIVersion: "v1", Kind: "ConfigMap"}}, SourceNamespaces: []string{src.Name},
	}, cpcRef)
	create(t, m)
	waitFor(t, time.Minute, m, stalledWith(t, m, mirrorcontroller.ReasonNotAuthorized))
	// Cluster-scoped kinds: asked for without the grant, and named without
	// asking (the kind's scope, not the spec, decides).
	cluster := newMirror(f.ns, "cluster", v1alpha1.MirrorParameters{
		Path: "cluster", Resources: []v1alpha1.MirrorResource{{APIVersion: "v1", Kind: "Namespace"}}, ClusterScoped: true,
	}, cpcRef)
	unflagged := newMirror(f.ns, "unflagged", v1alpha1.MirrorParameters{
		Path: "unflagged", Resources: []v1alpha1.MirrorResource{{APIVersion: "v1", Kind: "Namespace"}},
	}, pcRef())
	create(t, cluster)
	create(t, unflagged)
	waitFor(t, time.Minute, cluster, stalledWith(t, cluster, mirrorcontroller.ReasonNotAuthorized))
	waitFor(t, time.Minute, unflagged, stalledWith(t, unflagged, mirrorcontroller.ReasonNotAuthorized))
	if msg := m.GetCondition(xpv2.TypeReady).Message; !strings.Contains(msg, "mirror policy") {
		t.Errorf("NotAuthorized does not say what is missing: %q", msg)
	}
	if err := kstatusIs(t, m, "Failed"); err != nil {
		t.Error(err)
	}
	writesLanded(t)
	if got := f.repo.Head(t, "main"); got != head {
		t.Fatalf("a Mirror without a grant wrote to the repository")
	}

	// The grant, by the source namespace's labels.
	if err := cp.Client.Get(ctx, client.ObjectKeyFromObject(cpc), cpc); err != nil {
		t.Fatal(err)
	}
	cpc.Spec.Mirror = &v1alpha1.MirrorPolicy{MirrorNamespaces: []string{f.ns}, ClusterScoped: true,
		SourceNamespaceSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"mirror": "ok"}}}
	if err := cp.Client.Update(ctx, cpc); err != nil {
		t.Fatal(err)
	}
	// A grant is read at the next reconcile: ask for one, as a user would.
	reconciledAgain(t, 1, true, m, cluster)
	waitFor(t, time.Minute, m, readyAndCurrent(t, m))
	waitFor(t, time.Minute, cluster, readyAndCurrent(t, cluster))
	eventually(t, 30*time.Second, func() error {
		got := f.files(t, "main")["cluster/_cluster/core/namespace/"+src.Name+".yaml"]
		if got != rendered(t, src) {
			return fmt.Errorf("the granted cluster-scoped Namespace is not mirrored: %q", got)
		}
		return nil
	})
	eventually(t, 30*time.Second, func() error {
		got := f.files(t, "main")[fmt.Sprintf("other/%s/core/configmap/x.yaml", src.Name)]
		if got != rendered(t, cm) {
			return fmt.Errorf("the granted namespace's ConfigMap is not mirrored: %q", got)
		}
		return nil
	})
	// The namespaced ProviderConfig still grants nothing.
	reconciledAgain(t, 1, true, viaPC, unflagged)
	for _, o := range []*v1alpha1.Mirror{viaPC, unflagged} {
		if err := stalledWith(t, o, mirrorcontroller.ReasonNotAuthorized)(); err != nil {
			t.Errorf("%s: %v", o.Name, err)
		}
	}
}

func kstatusIs(t *testing.T, obj client.Object, want string) error {
	if got := kstatusOf(t, obj); string(got) != want {
		return fmt.Errorf("kstatus is %s, want %s", got, want)
	}
	return nil
}

// TestMirrorWatchNotPermitted runs Mirrors as an identity that may read
// ConfigMaps but not Deployments, as a provider whose ServiceAccount nobody
// granted them: the Mirror is Stalled WatchNotPermitted naming the kind and
// the verb, writes nothing, and recovers once RBAC grants the kind.
func TestMirrorWatchNotPermitted(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t)
	user := "mirror-limited-" + f.ns
	rule := func(group, resource string) rbacv1.PolicyRule {
		return rbacv1.PolicyRule{APIGroups: []string{group}, Resources: []string{resource}, Verbs: []string{"get", "list", "watch"}}
	}
	role := &rbacv1.Role{ObjectMeta: metav1.ObjectMeta{Namespace: f.ns, Name: "mirror"}, Rules: []rbacv1.PolicyRule{rule("", "configmaps")}}
	binding := &rbacv1.RoleBinding{
		ObjectMeta: metav1.ObjectMeta{Namespace: f.ns, Name: "mirror"},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: role.Name},
		Subjects:   []rbacv1.Subject{{Kind: rbacv1.UserKind, APIGroup: rbacv1.GroupName, Name: user}},
	}
	create(t, role)
	create(t, binding)
	cfg, err := cp.UserConfig(user)
	if err != nil {
		t.Fatal(err)
	}
	startProvider(t, "", withMirrorIdentity(cfg))
	head := f.repo.Head(t, "main")

	m := newMirror(f.ns, "m", v1alpha1.MirrorParameters{Resources: []v1alpha1.MirrorResource{
		{APIVersion: "v1", Kind: "ConfigMap"}, {APIVersion: "apps/v1", Kind: "Deployment"},
	}}, pcRef())
	create(t, m)
	waitFor(t, time.Minute, m, stalledWith(t, m, mirrorcontroller.ReasonWatchNotPermitted))
	if msg := m.GetCondition(xpv2.TypeReady).Message; !strings.Contains(msg, "deployments.apps") || !strings.Contains(msg, "list") {
		t.Errorf("WatchNotPermitted does not name the kind and the verb: %q", msg)
	}
	writesLanded(t)
	if got := f.repo.Head(t, "main"); got != head {
		t.Fatalf("a Mirror that may not watch a kind wrote to the branch")
	}

	if err := cp.Client.Get(ctx, client.ObjectKeyFromObject(role), role); err != nil {
		t.Fatal(err)
	}
	role.Rules = append(role.Rules, rule("apps", "deployments"))
	if err := cp.Client.Update(ctx, role); err != nil {
		t.Fatal(err)
	}
	// The grant is seen at the Mirror's next poll, once the denial's
	// recheck interval has passed.
	waitFor(t, time.Minute, m, readyAndCurrent(t, m))
}

// TestMirrorRacesAnExternalPusher churns objects while someone else pushes
// to the same branch: every object's last state lands, every foreign commit
// stays, and the branch only ever moves forward (no force push).
func TestMirrorRacesAnExternalPusher(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t)
	startProvider(t, "")
	const objects, rounds = 5, 20
	cms := make([]*corev1.ConfigMap, objects)
	for i := range cms {
		cms[i] = configMap(f.ns, fmt.Sprintf("cm-%d", i), nil, map[string]string{"round": "0"})
		create(t, cms[i])
	}
	m := newMirror(f.ns, "m", v1alpha1.MirrorParameters{Resources: []v1alpha1.MirrorResource{{APIVersion: "v1", Kind: "ConfigMap"}}}, pcRef())
	create(t, m)
	waitFor(t, time.Minute, m, readyAndCurrent(t, m))

	foreign := map[string]string{}
	for r := 1; r <= rounds; r++ {
		cm := cms[r%objects]
		cm.Data = map[string]string{"round": fmt.Sprint(r)}
		if err := cp.Client.Update(ctx, cm); err != nil {
			t.Fatal(err)
		}
		p := fmt.Sprintf("other/ext-%02d.txt", r)
		foreign[p] = fmt.Sprintf("round %d\n", r)
		// The external pusher loses races to the provider too, and does
		// what a person does: fetch and push again.
		var err error
		for try := 0; try < 10; try++ {
			if _, err = f.repo.Commit("main", testenv.CommitSpec{Message: "external " + p, Files: map[string]string{p: foreign[p]}}); err == nil {
				break
			}
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	want := map[string]string{}
	for _, cm := range cms {
		want[objPath(f.ns, "core", "configmap", cm.Name)] = rendered(t, cm)
	}
	f.waitMirrored(t, want)
	waitFor(t, time.Minute, m, readyAndCurrent(t, m))
	files := f.files(t, "main")
	for p, c := range foreign {
		if files[p] != c {
			t.Errorf("the external pusher's %s is %q, want %q", p, files[p], c)
		}
	}
	for _, u := range f.repo.Reflog(t, "main") {
		if u.Old != "" && strings.Trim(u.Old, "0") != "" && !f.repo.IsAncestor(t, u.Old, u.New) {
			t.Errorf("main moved from %s to %s, not a fast-forward", u.Old, u.New)
		}
	}
}

// TestMirrorMeetsAFile: a File that already holds a path where a Mirror
// wants an object's file is not the Mirror's to overwrite: the Mirror is
// Stalled PathConflict naming that path and writes nothing, the File stays
// Ready; once the File is gone the Mirror writes the folder.
func TestMirrorMeetsAFile(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t)
	startProvider(t, "")
	cm := configMap(f.ns, "app", nil, map[string]string{"k": "1"})
	create(t, cm)
	p := objPath(f.ns, "core", "configmap", "app")
	fl := newFile(f, "notes", p, "written by a File\n")
	create(t, fl)
	waitFor(t, time.Minute, fl, readyAndCurrent(t, fl))
	head := f.repo.Head(t, "main")

	m := newMirror(f.ns, "m", v1alpha1.MirrorParameters{Resources: []v1alpha1.MirrorResource{{APIVersion: "v1", Kind: "ConfigMap"}}}, pcRef())
	create(t, m)
	waitFor(t, time.Minute, m, stalledWith(t, m, "PathConflict"))
	if msg := m.GetCondition(xpv2.TypeReady).Message; !strings.Contains(msg, p) {
		t.Errorf("PathConflict does not name the path: %q", msg)
	}
	writesLanded(t)
	if got := f.repo.Head(t, "main"); got != head {
		t.Fatalf("a Mirror in conflict with a File wrote to the branch")
	}
	if err := readyAndCurrent(t, fl)(); err != nil {
		t.Errorf("the File: %v", err)
	}

	if err := cp.Client.Delete(ctx, fl); err != nil {
		t.Fatal(err)
	}
	waitGone(t, fl)
	// The File's removal is a change in the folder: the poll wakes the
	// Mirror.
	waitFor(t, time.Minute, m, readyAndCurrent(t, m))
	f.waitMirrored(t, map[string]string{p: rendered(t, cm)})
}

// TestMirrorKindServedLater names a kind whose CRD is not installed yet: the
// Mirror is progressing (ResourceNotFound, kstatus InProgress), not stalled,
// and mirrors the kind once the CRD is installed, with nobody touching it.
func TestMirrorKindServedLater(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t)
	startProvider(t, "")
	group := strings.ReplaceAll(f.ns, "-", "") + ".example.org"
	m := newMirror(f.ns, "m", v1alpha1.MirrorParameters{Resources: []v1alpha1.MirrorResource{{APIVersion: group + "/v1", Kind: "Widget"}}}, pcRef())
	create(t, m)
	waitFor(t, time.Minute, m, func() error {
		if err := conditionIs(m, xpv2.TypeReady, corev1.ConditionUnknown, mirrorcontroller.ReasonResourceNotFound); err != nil {
			return err
		}
		return kstatusIs(t, m, "InProgress")
	})

	crd := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
		"metadata": map[string]any{"name": "widgets." + group},
		"spec": map[string]any{
			"group": group, "scope": "Namespaced",
			"names": map[string]any{"plural": "widgets", "singular": "widget", "kind": "Widget", "listKind": "WidgetList"},
			"versions": []any{map[string]any{"name": "v1", "served": true, "storage": true,
				"schema": map[string]any{"openAPIV3Schema": map[string]any{"type": "object", "x-kubernetes-preserve-unknown-fields": true}}}},
		},
	}}
	create(t, crd)
	t.Cleanup(func() { _ = cp.Client.Delete(context.Background(), crd) })
	w := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": group + "/v1", "kind": "Widget",
		"metadata": map[string]any{"name": "w", "namespace": f.ns},
		"spec":     map[string]any{"size": int64(3)},
	}}
	eventually(t, 30*time.Second, func() error { return cp.Client.Create(ctx, w) })
	waitFor(t, time.Minute, m, readyAndCurrent(t, m))
	eventually(t, 30*time.Second, func() error {
		if got := f.files(t, "main")[fmt.Sprintf("%s/%s/%s/widget/w.yaml", mirrorFolder, f.ns, group)]; !strings.Contains(got, "size: 3") {
			return fmt.Errorf("the Widget is not mirrored: %q", got)
		}
		return nil
	})
}
