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

package mirror

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/crossplane-contrib/provider-git/internal/testharness/testenv"
)

var (
	configMaps  = Kind{APIVersion: "v1", Kind: "ConfigMap"}
	deployments = Kind{Group: "apps", Resource: "deployments"}
	replicaSets = Kind{APIVersion: "apps/v1", Kind: "ReplicaSet"}
	secrets     = Kind{APIVersion: "v1", Kind: "Secret"}
)

func configMap(ns, name string, l map[string]string, data string) *corev1.ConfigMap {
	return &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, Labels: l},
		Data:       map[string]string{"k": data},
	}
}

func deployment(ns, name string) *appsv1.Deployment {
	l := map[string]string{"app": name}
	return &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
		Spec: appsv1.DeploymentSpec{
			Selector: &metav1.LabelSelector{MatchLabels: l},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: l},
				Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "example.test/c:1"}}},
			},
		},
	}
}

// waitWakes waits until owner was woken n times in all.
func waitWakes(t *testing.T, h *harness, owner types.NamespacedName, n int) {
	t.Helper()
	testenv.Eventually(t, 30*time.Second, func() error {
		if got := h.wakes.of(owner); got < n {
			return fmt.Errorf("woken %d times, want %d", got, n)
		}
		return nil
	})
	if got := h.wakes.of(owner); got != n {
		t.Fatalf("woken %d times, want exactly %d", got, n)
	}
}

// TestSharedInformers checks that owners share one informer per (resource,
// namespace), that a changed request or a release stops what nobody needs,
// that access is checked once per informer start, and that Ensure in
// steady state sends no API request.
func TestSharedInformers(t *testing.T) {
	cp := controlPlane(t)
	ns := newNamespace(t, cp.Client)
	h := startSources(t, cp.Config)
	a := types.NamespacedName{Namespace: ns, Name: "a"}
	b := types.NamespacedName{Namespace: ns, Name: "b"}

	ensureSynced(t, h.s, Request{Owner: a, Kinds: []Kind{configMaps}})
	ensureSynced(t, h.s, Request{Owner: b, Kinds: []Kind{configMaps}})
	if got := h.s.Informers(); got != 1 {
		t.Errorf("two owners of ConfigMaps in one namespace: %d informers, want 1", got)
	}
	ensureSynced(t, h.s, Request{Owner: a, Kinds: []Kind{configMaps, deployments}})
	if got := h.s.Informers(); got != 2 {
		t.Errorf("owner a adds Deployments: %d informers, want 2", got)
	}
	if got := h.reqs.ssars.Load(); got != 4 {
		t.Errorf("access reviews: %d, want 4 (list and watch, once per informer started)", got)
	}

	before := len(h.reqs.requests())
	for range 50 {
		if _, err := h.s.Ensure(context.Background(), Request{Owner: a, Kinds: []Kind{configMaps, deployments}}); err != nil {
			t.Fatal(err)
		}
	}
	if got := h.reqs.requests()[before:]; len(got) != 0 {
		t.Errorf("50 steady-state Ensures sent %d API requests, want none: %v", len(got), got)
	}

	ensureSynced(t, h.s, Request{Owner: a, Kinds: []Kind{configMaps}})
	if got := h.s.Informers(); got != 1 {
		t.Errorf("owner a drops Deployments: %d informers, want 1", got)
	}
	h.s.Release(a)
	if got := h.s.Informers(); got != 1 {
		t.Errorf("owner a released, b still needs ConfigMaps: %d informers, want 1", got)
	}
	h.s.Release(b)
	if got := h.s.Informers(); got != 0 {
		t.Errorf("every owner released: %d informers, want 0", got)
	}
}

// TestWakes checks which changes wake an owner: an add, a change of the
// rendered manifest and a delete do; a status-only write and a no-op apply
// do not. A later real change on the same informer is the barrier that
// proves the earlier event was handled without a wake.
func TestWakes(t *testing.T) {
	cp := controlPlane(t)
	ns := newNamespace(t, cp.Client)
	ctx := context.Background()
	h := startSources(t, cp.Config)
	owner := types.NamespacedName{Namespace: ns, Name: "m"}
	req := Request{Owner: owner, Kinds: []Kind{configMaps, deployments}, SkipControlled: true}
	ensureSynced(t, h.s, req)
	// Each informer wakes its owners once its list is complete, from a
	// goroutine of its own that may run after Ensure reported Synced.
	n := len(req.Kinds)
	waitWakes(t, h, owner, n)

	cm := configMap(ns, "settings", nil, "1")
	if err := cp.Client.Create(ctx, cm); err != nil {
		t.Fatal(err)
	}
	n++
	waitWakes(t, h, owner, n)
	snap := ensureSynced(t, h.s, req)
	want := fmt.Sprintf("apiVersion: v1\ndata:\n  k: \"1\"\nkind: ConfigMap\nmetadata:\n  name: settings\n  namespace: %s\n", ns)
	if i := slices.IndexFunc(snap.Objects, func(o Object) bool { return o.Name == "settings" }); i < 0 {
		t.Fatalf("created ConfigMap missing: %v", paths(snap))
	} else if diff := cmp.Diff(want, string(snap.Objects[i].Content)); diff != "" {
		t.Errorf("rendered ConfigMap: -want, +got:\n%s", diff)
	}

	cm.Data["k"] = "2"
	if err := cp.Client.Update(ctx, cm); err != nil {
		t.Fatal(err)
	}
	n++
	waitWakes(t, h, owner, n)

	// A no-op apply: only what the rendering drops changes.
	cm.Annotations = map[string]string{"kubectl.kubernetes.io/last-applied-configuration": `{"data":{"k":"2"}}`}
	if err := cp.Client.Update(ctx, cm); err != nil {
		t.Fatal(err)
	}
	if err := cp.Client.Create(ctx, configMap(ns, "barrier", nil, "x")); err != nil {
		t.Fatal(err)
	}
	n++
	waitWakes(t, h, owner, n)

	d := deployment(ns, "web")
	if err := cp.Client.Create(ctx, d); err != nil {
		t.Fatal(err)
	}
	n++
	waitWakes(t, h, owner, n)
	// Status only, through the status subresource: no controller runs here,
	// so nothing else writes the Deployment.
	d.Status.Replicas, d.Status.ObservedGeneration = 3, 1
	if err := cp.Client.Status().Update(ctx, d); err != nil {
		t.Fatal(err)
	}
	d.Annotations = map[string]string{"barrier": "1"}
	if err := cp.Client.Update(ctx, d); err != nil {
		t.Fatal(err)
	}
	n++
	waitWakes(t, h, owner, n)

	if err := cp.Client.Delete(ctx, cm); err != nil {
		t.Fatal(err)
	}
	n++
	waitWakes(t, h, owner, n)
	snap = ensureSynced(t, h.s, req)
	wantPaths := []string{ns + "/apps/deployment/web.yaml", ns + "/core/configmap/barrier.yaml"}
	if diff := cmp.Diff(wantPaths, paths(snap)); diff != "" {
		t.Errorf("paths after delete: -want, +got:\n%s", diff)
	}
	wantRes := []ResourceCount{
		{GVR: schema.GroupVersionResource{Version: "v1", Resource: "configmaps"}, Count: 1},
		{GVR: schema.GroupVersionResource{Group: "apps", Version: "v1", Resource: "deployments"}, Count: 1},
	}
	if diff := cmp.Diff(wantRes, snap.Resources); diff != "" {
		t.Errorf("resources: -want, +got:\n%s", diff)
	}
}

// TestLabelSelector checks that an owner sees and is woken by only the
// objects its selector matches, including an object relabelled into it.
func TestLabelSelector(t *testing.T) {
	cp := controlPlane(t)
	ns := newNamespace(t, cp.Client)
	ctx := context.Background()
	a1, b1 := configMap(ns, "a1", map[string]string{"app": "a"}, "1"), configMap(ns, "b1", map[string]string{"app": "b"}, "1")
	for _, o := range []client.Object{a1, b1} {
		if err := cp.Client.Create(ctx, o); err != nil {
			t.Fatal(err)
		}
	}
	h := startSources(t, cp.Config)
	owner := types.NamespacedName{Namespace: ns, Name: "m"}
	req := Request{Owner: owner, Kinds: []Kind{configMaps}, Selector: labels.SelectorFromSet(labels.Set{"app": "a"})}
	snap := ensureSynced(t, h.s, req)
	if diff := cmp.Diff([]string{ns + "/core/configmap/a1.yaml"}, paths(snap)); diff != "" {
		t.Errorf("selected: -want, +got:\n%s", diff)
	}
	n := len(req.Kinds) // the sync wakes, as in TestWakes
	waitWakes(t, h, owner, n)

	b1.Data["k"] = "2"
	if err := cp.Client.Update(ctx, b1); err != nil {
		t.Fatal(err)
	}
	a1.Data["k"] = "2"
	if err := cp.Client.Update(ctx, a1); err != nil {
		t.Fatal(err)
	}
	n++ // a1 only
	waitWakes(t, h, owner, n)

	b1.Labels["app"] = "a"
	if err := cp.Client.Update(ctx, b1); err != nil {
		t.Fatal(err)
	}
	n++
	waitWakes(t, h, owner, n)
	snap = ensureSynced(t, h.s, req)
	if diff := cmp.Diff([]string{ns + "/core/configmap/a1.yaml", ns + "/core/configmap/b1.yaml"}, paths(snap)); diff != "" {
		t.Errorf("after relabel: -want, +got:\n%s", diff)
	}
}

// TestSkipControlled checks that a ReplicaSet a Deployment controls is
// skipped when asked, and mirrored when not.
func TestSkipControlled(t *testing.T) {
	cp := controlPlane(t)
	ns := newNamespace(t, cp.Client)
	ctx := context.Background()
	d := deployment(ns, "web")
	if err := cp.Client.Create(ctx, d); err != nil {
		t.Fatal(err)
	}
	rs := &appsv1.ReplicaSet{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "web-1", Labels: d.Spec.Selector.MatchLabels},
		Spec:       appsv1.ReplicaSetSpec{Selector: d.Spec.Selector, Template: d.Spec.Template},
	}
	yes := true
	rs.OwnerReferences = []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "Deployment", Name: d.Name, UID: d.UID, Controller: &yes}}
	if err := cp.Client.Create(ctx, rs); err != nil {
		t.Fatal(err)
	}
	h := startSources(t, cp.Config)
	kinds := []Kind{deployments, replicaSets}
	skip := ensureSynced(t, h.s, Request{Owner: types.NamespacedName{Namespace: ns, Name: "skip"}, Kinds: kinds, SkipControlled: true})
	if diff := cmp.Diff([]string{ns + "/apps/deployment/web.yaml"}, paths(skip)); diff != "" {
		t.Errorf("SkipControlled: -want, +got:\n%s", diff)
	}
	all := ensureSynced(t, h.s, Request{Owner: types.NamespacedName{Namespace: ns, Name: "all"}, Kinds: kinds})
	if diff := cmp.Diff([]string{ns + "/apps/deployment/web.yaml", ns + "/apps/replicaset/web-1.yaml"}, paths(all)); diff != "" {
		t.Errorf("without SkipControlled: -want, +got:\n%s", diff)
	}
	for _, o := range all.Objects {
		for _, noise := range []string{"status:", "uid:", "resourceVersion:", "managedFields:", "creationTimestamp:"} {
			if o.Name == "web" && strings.Contains(string(o.Content), noise) {
				t.Errorf("%s holds %q:\n%s", o.Path, noise, o.Content)
			}
		}
	}
}

// TestSecretsNeverRead checks that a request naming Secrets mirrors the
// rest, says so in Skipped, and never lists or watches a Secret.
func TestSecretsNeverRead(t *testing.T) {
	cp := controlPlane(t)
	ns := newNamespace(t, cp.Client)
	ctx := context.Background()
	if err := cp.Client.Create(ctx, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "creds"}, StringData: map[string]string{"token": "s3cr3t"}}); err != nil {
		t.Fatal(err)
	}
	if err := cp.Client.Create(ctx, configMap(ns, "c", nil, "1")); err != nil {
		t.Fatal(err)
	}
	h := startSources(t, cp.Config)
	snap := ensureSynced(t, h.s, Request{Owner: types.NamespacedName{Namespace: ns, Name: "m"}, Kinds: []Kind{secrets, configMaps}})
	if diff := cmp.Diff([]string{ns + "/core/configmap/c.yaml"}, paths(snap)); diff != "" {
		t.Errorf("objects: -want, +got:\n%s", diff)
	}
	if diff := cmp.Diff([]string{noteSecretsNotRead}, snap.Skipped); diff != "" {
		t.Errorf("skipped: -want, +got:\n%s", diff)
	}
	if got := h.s.Informers(); got != 1 {
		t.Errorf("informers: %d, want 1 (none for Secrets)", got)
	}
	for _, r := range h.reqs.requests() {
		if strings.Contains(r, "/secrets") {
			t.Errorf("a Secret request went out: %s", r)
		}
	}
}

// TestSyncedOnlyAfterList holds the initial LIST back and checks that the
// snapshot says it is not synced until it completes, and that completing
// it wakes the owner once.
func TestSyncedOnlyAfterList(t *testing.T) {
	cp := controlPlane(t)
	ns := newNamespace(t, cp.Client)
	if err := cp.Client.Create(context.Background(), configMap(ns, "c", nil, "1")); err != nil {
		t.Fatal(err)
	}
	h := startSources(t, cp.Config)
	release := make(chan struct{})
	h.reqs.mu.Lock()
	h.reqs.gate = func(r *http.Request) {
		if r.Method == http.MethodGet && !isWatch(r) && strings.HasSuffix(r.URL.Path, "/namespaces/"+ns+"/configmaps") {
			<-release
		}
	}
	h.reqs.mu.Unlock()
	owner := types.NamespacedName{Namespace: ns, Name: "m"}
	req := Request{Owner: owner, Kinds: []Kind{configMaps}}
	snap, err := h.s.Ensure(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	if snap.Synced || len(snap.Objects) != 0 || h.wakes.of(owner) != 0 {
		t.Fatalf("before the LIST completes: synced %t, objects %v, wakes %d; want false, none, 0", snap.Synced, paths(snap), h.wakes.of(owner))
	}
	close(release)
	waitWakes(t, h, owner, 1)
	snap, err = h.s.Ensure(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	if !snap.Synced || len(snap.Objects) != 1 {
		t.Errorf("after the sync wake: synced %t, objects %v; want true and the ConfigMap", snap.Synced, paths(snap))
	}
}

// TestEnsureBeforeStart checks that an Ensure before Start (a controller
// that runs before the manager starts Sources) registers the watch, and
// that Start starts it and wakes the owner when it has synced.
func TestEnsureBeforeStart(t *testing.T) {
	cp := controlPlane(t)
	ns := newNamespace(t, cp.Client)
	if err := cp.Client.Create(context.Background(), configMap(ns, "c", nil, "1")); err != nil {
		t.Fatal(err)
	}
	h := newHarness(t, cp.Config)
	owner := types.NamespacedName{Namespace: ns, Name: "m"}
	req := Request{Owner: owner, Kinds: []Kind{configMaps}}
	snap, err := h.s.Ensure(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	if snap.Synced || h.s.Informers() != 0 {
		t.Fatalf("before Start: synced %t, informers %d; want false, 0", snap.Synced, h.s.Informers())
	}
	h.start(t)
	waitWakes(t, h, owner, 1)
	snap, err = h.s.Ensure(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	if !snap.Synced || len(snap.Objects) != 1 || h.s.Informers() != 1 {
		t.Errorf("after Start: synced %t, objects %v, informers %d; want true, the ConfigMap, 1", snap.Synced, paths(snap), h.s.Informers())
	}
}
