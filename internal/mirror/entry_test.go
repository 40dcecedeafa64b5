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
	"errors"
	"testing"
	"time"

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
		controlled, secret     bool
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
			reason: "A Secret reaches the cache only for a request that encrypts: it is rendered for encryption, at its .sops.yaml path, and marked.",
			obj:    object("v1", "Secret", "a", "creds"),
			want: want{
				path:    "a/core/secret/creds.sops.yaml",
				content: "apiVersion: v1\ndata:\n  k: v\nkind: Secret\nmetadata:\n  name: creds\n  namespace: a\n",
				secret:  true,
			},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			e := newEntry(tc.obj)
			got := want{path: e.path, content: string(e.content), problem: e.problem, controlled: e.controlled, secret: e.secret}
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

// TestWatchErrorFails checks that a watch error that retrying cannot fix
// (a grant revoked: Forbidden; the CRD deleted: NotFound) fails the watch
// with the typed error, stops its informer, wakes its owners, and drops the
// informer's later events; any other error leaves it to the informer.
func TestWatchErrorFails(t *testing.T) {
	gvr := schema.GroupVersionResource{Group: "apps", Version: "v1", Resource: "deployments"}
	owner := types.NamespacedName{Namespace: "a", Name: "m"}
	type want struct {
		err   error
		woken []types.NamespacedName
	}
	cases := map[string]struct {
		reason string
		err    error
		want   want
	}{
		"Transient": {
			reason: "A dropped connection is the informer's to retry: nothing fails, nobody is woken.",
			err:    errors.New("connection reset"),
		},
		"ForbiddenList": {
			reason: "A Forbidden LIST names the verb list.",
			err:    kerrors.NewForbidden(gvr.GroupResource(), "", errors.New(`User "p" cannot list resource "deployments" in API group "apps" in the namespace "a"`)),
			want:   want{err: &NotPermittedError{GVR: gvr, Namespace: "a", Verb: "list"}, woken: []types.NamespacedName{owner}},
		},
		"ForbiddenWatch": {
			reason: "A Forbidden WATCH names the verb watch.",
			err:    kerrors.NewForbidden(gvr.GroupResource(), "", errors.New(`User "p" cannot watch resource "deployments" in API group "apps" in the namespace "a"`)),
			want:   want{err: &NotPermittedError{GVR: gvr, Namespace: "a", Verb: "watch"}, woken: []types.NamespacedName{owner}},
		},
		"NotFound": {
			reason: "A resource no longer served (its CRD deleted) is a KindNotFoundError.",
			err:    kerrors.NewNotFound(gvr.GroupResource(), ""),
			want:   want{err: &KindNotFoundError{Kind: Kind{Group: "apps", Resource: "deployments"}}, woken: []types.NamespacedName{owner}},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			var woken []types.NamespacedName
			w := newWatch(watchKey{gvr: gvr, namespace: "a"}, func(o types.NamespacedName) { woken = append(woken, o) }, logging.NewNopLogger(), time.Now)
			w.views[owner] = view{selector: labels.Everything()}
			cancelled := false
			f := &feed{items: map[string]*entry{}, cancel: func() { cancelled = true }}
			w.state, w.feed = running, f

			w.onWatchError(f, tc.err)
			if diff := cmp.Diff(tc.want, want{err: w.err, woken: woken}, cmp.AllowUnexported(want{})); diff != "" {
				t.Errorf("%s\n-want, +got:\n%s", tc.reason, diff)
			}
			failedNow := tc.want.err != nil
			if (w.state == failed) != failedNow || cancelled != failedNow || (w.feed == nil) != failedNow {
				t.Errorf("%s\nstate %v, informer cancelled %t, feed dropped %t; want failed and stopped: %t", tc.reason, w.state, cancelled, w.feed == nil, failedNow)
			}
			w.onAdd(f, object("apps/v1", "Deployment", "a", "late"), false)
			if got := len(f.items) == 1; got == failedNow {
				t.Errorf("%s\nan event after the error was handled: %t, want %t", tc.reason, got, !failedNow)
			}
		})
	}
}

// TestSnapshotNotes checks that a snapshot leaves out the objects that
// cannot be files, and lists them in a note, sorted and bounded.
func TestSnapshotNotes(t *testing.T) {
	gvr := schema.GroupVersionResource{Group: "rbac.authorization.k8s.io", Version: "v1", Resource: "clusterroles"}
	w := newWatch(watchKey{gvr: gvr}, func(types.NamespacedName) {}, logging.NewNopLogger(), time.Now)
	f := &feed{items: map[string]*entry{}, synced: doneChecker{}}
	w.state, w.feed = running, f
	for _, n := range []string{"ok", "bad\x01g", "bad\x01f", "bad\x01e", "bad\x01d", "bad\x01c", "bad\x01b", "bad\x01a"} {
		f.items[n] = newEntry(object("rbac.authorization.k8s.io/v1", "ClusterRole", "", n))
	}
	v := view{selector: labels.Everything()}
	snap, _, err := snapshot([]resolved{{gvr: gvr, cluster: true}}, []*watch{w}, v, []string{noteSecretsNotRead}, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := Snapshot{
		Synced:    true,
		Objects:   []Object{{Path: "_cluster/rbac.authorization.k8s.io/clusterrole/ok.yaml", Content: f.items["ok"].content, GVK: gvr.GroupVersion().WithKind("ClusterRole"), Resource: "clusterroles", Name: "ok", ResourceVersion: "7", UID: "0b5e"}},
		Resources: []ResourceCount{{GVR: gvr, Count: 1}},
		Skipped: []string{
			noteSecretsNotRead,
			problemPath + " (7 skipped): bad\x01a, bad\x01b, bad\x01c, bad\x01d, bad\x01e, …",
		},
	}
	if diff := cmp.Diff(want, snap); diff != "" {
		t.Errorf("snapshot: -want, +got:\n%s", diff)
	}
}

// doneChecker is a cache.DoneChecker that is done.
type doneChecker struct{}

func (doneChecker) Name() string { return "done" }

func (doneChecker) Done() <-chan struct{} {
	c := make(chan struct{})
	close(c)
	return c
}

// TestEmptyNamespaceRefused checks that a request can never turn into a
// watch of every namespace.
func TestEmptyNamespaceRefused(t *testing.T) {
	s := NewSources(nil, nil, nil, func(types.NamespacedName) {}, logging.NewNopLogger())
	cases := map[string]struct {
		reason string
		r      Request
	}{
		"EmptyInList": {reason: "An empty string among the namespaces.", r: Request{Owner: types.NamespacedName{Namespace: "a", Name: "m"}, Kinds: []Kind{{APIVersion: "v1", Kind: "ConfigMap"}}, Namespaces: []string{"b", ""}}},
		"NoOwnerNS":   {reason: "No namespaces and an owner without one.", r: Request{Owner: types.NamespacedName{Name: "m"}, Kinds: []Kind{{APIVersion: "v1", Kind: "ConfigMap"}}}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if _, err := s.Ensure(context.Background(), tc.r); err == nil || err.Error() != errNoNamespace {
				t.Errorf("%s\nEnsure: %v, want %q", tc.reason, err, errNoNamespace)
			}
			if got := s.Informers() + len(s.watches); got != 0 {
				t.Errorf("%s\nwatches registered: %d, want none", tc.reason, got)
			}
		})
	}
}
