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
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
	kerrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"

	"github.com/crossplane/crossplane-runtime/v2/pkg/logging"
)

func object(apiVersion, kind, namespace, name string, mutate ...func(*unstructured.Unstructured)) *unstructured.Unstructured {
	u := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": apiVersion, "kind": kind,
		"metadata": map[string]any{
			"name": name, "namespace": namespace, "uid": "0b5e", "resourceVersion": "7",
			"creationTimestamp": "2026-01-01T00:00:00Z",
			"managedFields":     []any{map[string]any{"manager": "kubectl"}},
		},
		"data": map[string]any{"k": "v"},
	}}
	if namespace == "" {
		unstructured.RemoveNestedField(u.Object, "metadata", "namespace")
	}
	for _, m := range mutate {
		m(u)
	}
	return u
}

func withLabels(l map[string]string) func(*unstructured.Unstructured) {
	return func(u *unstructured.Unstructured) { u.SetLabels(l) }
}

func controlledBy(kind string) func(*unstructured.Unstructured) {
	return func(u *unstructured.Unstructured) {
		yes := true
		_ = unstructured.SetNestedSlice(u.Object, []any{map[string]any{
			"apiVersion": "apps/v1", "kind": kind, "name": "owner", "uid": "1", "controller": yes,
		}}, "metadata", "ownerReferences")
	}
}

func TestNewEntry(t *testing.T) {
	type want struct {
		path, content, problem string
		controlled             bool
	}
	cases := map[string]struct {
		reason string
		obj    *unstructured.Unstructured
		want   want
	}{
		"Rendered": {
			reason: "An object is rendered once, without the noise the API server adds.",
			obj:    object("v1", "ConfigMap", "a", "settings"),
			want: want{
				path:    "a/core/configmap/settings.yaml",
				content: "apiVersion: v1\ndata:\n  k: v\nkind: ConfigMap\nmetadata:\n  name: settings\n  namespace: a\n",
			},
		},
		"StatusDropped": {
			reason: "Status is not part of the manifest.",
			obj: object("apps/v1", "Deployment", "a", "web", func(u *unstructured.Unstructured) {
				_ = unstructured.SetNestedField(u.Object, int64(3), "status", "replicas")
			}),
			want: want{
				path:    "a/apps/deployment/web.yaml",
				content: "apiVersion: apps/v1\ndata:\n  k: v\nkind: Deployment\nmetadata:\n  name: web\n  namespace: a\n",
			},
		},
		"Controlled": {
			reason: "A controller ownerReference is recorded, so an owner can skip the object.",
			obj:    object("apps/v1", "ReplicaSet", "a", "web-1", controlledBy("Deployment")),
			want: want{
				path:       "a/apps/replicaset/web-1.yaml",
				content:    "apiVersion: apps/v1\ndata:\n  k: v\nkind: ReplicaSet\nmetadata:\n  name: web-1\n  namespace: a\n  ownerReferences:\n  - apiVersion: apps/v1\n    controller: true\n    kind: Deployment\n    name: owner\n    uid: \"1\"\n",
				controlled: true,
			},
		},
		"NameNotAPath": {
			reason: "A name some kinds allow but a path cannot hold is kept with its problem, not rendered.",
			obj:    object("rbac.authorization.k8s.io/v1", "ClusterRole", "", "bad\x01name"),
			want:   want{path: "_cluster/rbac.authorization.k8s.io/clusterrole/bad\x01name.yaml", problem: problemPath},
		},
		"Secret": {
			reason: "A Secret that reaches the cache anyway is never rendered.",
			obj:    object("v1", "Secret", "a", "creds"),
			want:   want{path: "a/core/secret/creds.yaml", problem: problemSecret},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			e := newEntry(tc.obj)
			got := want{path: e.path, content: string(e.content), problem: e.problem, controlled: e.controlled}
			if diff := cmp.Diff(tc.want, got, cmp.AllowUnexported(want{})); diff != "" {
				t.Errorf("%s\nnewEntry(...): -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}

func TestViewSees(t *testing.T) {
	plain := newEntry(object("v1", "ConfigMap", "a", "plain", withLabels(map[string]string{"app": "web"})))
	owned := newEntry(object("apps/v1", "ReplicaSet", "a", "web-1", controlledBy("Deployment"), withLabels(map[string]string{"app": "web"})))
	other := newEntry(object("v1", "ConfigMap", "a", "other", withLabels(map[string]string{"app": "db"})))
	web := labels.SelectorFromSet(labels.Set{"app": "web"})
	cases := map[string]struct {
		reason string
		v      view
		e      *entry
		want   bool
	}{
		"Everything":          {reason: "No selector sees every object.", v: view{selector: labels.Everything()}, e: other, want: true},
		"SelectorMatches":     {reason: "A matching label is seen.", v: view{selector: web}, e: plain, want: true},
		"SelectorMisses":      {reason: "Another label is not seen.", v: view{selector: web}, e: other},
		"ControlledSkipped":   {reason: "SkipControlled hides a controlled object.", v: view{selector: web, skipControlled: true}, e: owned},
		"ControlledKept":      {reason: "Without SkipControlled a controlled object is seen.", v: view{selector: web}, e: owned, want: true},
		"UncontrolledStaysIn": {reason: "SkipControlled does not hide an object without a controller.", v: view{selector: web, skipControlled: true}, e: plain, want: true},
		"Nothing":             {reason: "No object is never seen.", v: view{selector: labels.Everything()}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if got := tc.v.sees(tc.e); got != tc.want {
				t.Errorf("%s\nsees(...) = %t, want %t", tc.reason, got, tc.want)
			}
		})
	}
}

func TestEntrySame(t *testing.T) {
	base := object("v1", "ConfigMap", "a", "c")
	cases := map[string]struct {
		reason string
		next   *unstructured.Unstructured
		want   bool
	}{
		"StatusOnly": {
			reason: "A status write changes nothing a Mirror sees.",
			next: object("v1", "ConfigMap", "a", "c", func(u *unstructured.Unstructured) {
				_ = unstructured.SetNestedField(u.Object, "Ready", "status", "phase")
				u.SetResourceVersion("8")
			}),
			want: true,
		},
		"NoOpApply": {
			reason: "An apply that only touches managedFields and last-applied changes nothing.",
			next: object("v1", "ConfigMap", "a", "c", func(u *unstructured.Unstructured) {
				u.SetAnnotations(map[string]string{"kubectl.kubernetes.io/last-applied-configuration": "{}"})
				u.SetManagedFields(nil)
				u.SetResourceVersion("9")
			}),
			want: true,
		},
		"Data": {
			reason: "Changed data is a change.",
			next: object("v1", "ConfigMap", "a", "c", func(u *unstructured.Unstructured) {
				_ = unstructured.SetNestedField(u.Object, "w", "data", "k")
			}),
		},
		"Labels": {
			reason: "Changed labels are a change (and may change selection).",
			next:   object("v1", "ConfigMap", "a", "c", withLabels(map[string]string{"x": "y"})),
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if got := newEntry(base).same(newEntry(tc.next)); got != tc.want {
				t.Errorf("%s\nsame(...) = %t, want %t", tc.reason, got, tc.want)
			}
		})
	}
}

// TestWatchErrorForbidden checks that a Forbidden LIST or WATCH while an
// informer runs (a grant revoked) fails the watch with a NotPermittedError
// naming the verb, wakes its owners, and drops the informer's later events.
func TestWatchErrorForbidden(t *testing.T) {
	gvr := schema.GroupVersionResource{Version: "v1", Resource: "configmaps"}
	var woken []types.NamespacedName
	w := newWatch(watchKey{gvr: gvr, namespace: "a"}, func(o types.NamespacedName) { woken = append(woken, o) }, logging.NewNopLogger())
	owner := types.NamespacedName{Namespace: "a", Name: "m"}
	w.views[owner] = view{selector: labels.Everything()}
	cancelled := false
	f := &feed{items: map[string]*entry{}, cancel: func() { cancelled = true }}
	w.state, w.feed = running, f

	w.onWatchError(f, errors.New("connection reset"))
	if w.state != running || len(woken) != 0 {
		t.Fatalf("a transient error must leave the watch running and wake nobody: state %v, woken %v", w.state, woken)
	}
	w.onWatchError(f, kerrors.NewForbidden(gvr.GroupResource(), "", errors.New(`User "p" cannot watch resource "configmaps" in API group "" in the namespace "a"`)))
	want := &NotPermittedError{GVR: gvr, Namespace: "a", Verb: "watch"}
	if diff := cmp.Diff(want, w.err); diff != "" {
		t.Errorf("err: -want, +got:\n%s", diff)
	}
	if w.state != failed || !cancelled || w.feed != nil {
		t.Errorf("a Forbidden watch must fail and stop its informer: state %v, cancelled %t", w.state, cancelled)
	}
	if diff := cmp.Diff([]types.NamespacedName{owner}, woken); diff != "" {
		t.Errorf("woken: -want, +got:\n%s", diff)
	}
	w.onAdd(f, object("v1", "ConfigMap", "a", "late"), false)
	if len(f.items) != 0 || len(woken) != 1 {
		t.Errorf("an event of a stopped feed must be dropped: items %d, woken %v", len(f.items), woken)
	}
}
