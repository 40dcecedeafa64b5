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
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/crossplane-contrib/provider-git/internal/testharness/testenv"
)

func TestOnlyBy(t *testing.T) {
	const t0, t1, t2 = "2026-01-01T00:00:00Z", "2026-01-01T00:00:01Z", "2026-01-01T00:00:02Z"
	flux := func(at string, f uint64) fieldStamp {
		return fieldStamp{manager: "kustomize-controller", operation: "Apply", time: at, fields: f}
	}
	person := func(at string, f uint64) fieldStamp {
		return fieldStamp{manager: "kubectl-edit", operation: "Update", time: at, fields: f}
	}
	ignored := []string{"kustomize-controller", "helm"}
	type args struct {
		was, now []fieldStamp
	}
	cases := map[string]struct {
		reason string
		args   args
		want   bool
	}{
		"IgnoredManagerChanged": {
			reason: "only the ignored manager's entry has another time: theirs alone",
			args:   args{was: []fieldStamp{person(t0, 1), flux(t0, 1)}, now: []fieldStamp{person(t0, 1), flux(t1, 1)}},
			want:   true,
		},
		"IgnoredManagerAdded": {
			reason: "an ignored manager's first apply adds its entry: theirs alone",
			args:   args{was: []fieldStamp{person(t0, 1)}, now: []fieldStamp{person(t0, 1), flux(t1, 1)}},
			want:   true,
		},
		"IgnoredManagerRemoved": {
			reason: "an ignored manager giving up all its fields removes its entry: theirs alone",
			args:   args{was: []fieldStamp{person(t0, 1), flux(t0, 1)}, now: []fieldStamp{person(t0, 1)}},
			want:   true,
		},
		"TwoIgnoredManagers": {
			reason: "every changed entry is an ignored manager's",
			args:   args{was: []fieldStamp{flux(t0, 1)}, now: []fieldStamp{flux(t1, 2), {manager: "helm", operation: "Update", time: t1, fields: 1}}},
			want:   true,
		},
		"FieldsTakenFromPerson": {
			reason: "an ignored manager forcing fields away from a person leaves the person's time: theirs alone",
			args:   args{was: []fieldStamp{person(t0, 1), flux(t0, 1)}, now: []fieldStamp{person(t0, 3), flux(t1, 2)}},
			want:   true,
		},
		"AllFieldsTakenFromPerson": {
			reason: "a person's entry gone, all its fields taken by the ignored manager: theirs alone",
			args:   args{was: []fieldStamp{person(t0, 1), flux(t0, 1)}, now: []fieldStamp{flux(t1, 2)}},
			want:   true,
		},
		"PersonChanged": {
			reason: "a person's entry has another time: not theirs alone",
			args:   args{was: []fieldStamp{person(t0, 1), flux(t0, 1)}, now: []fieldStamp{person(t1, 1), flux(t0, 1)}},
			want:   false,
		},
		"BothChanged": {
			reason: "a person and the ignored manager changed it since it was taken",
			args:   args{was: []fieldStamp{person(t0, 1), flux(t0, 1)}, now: []fieldStamp{person(t2, 2), flux(t1, 2)}},
			want:   false,
		},
		"PersonAdded": {
			reason: "a person's first edit adds an entry",
			args:   args{was: []fieldStamp{flux(t0, 1)}, now: []fieldStamp{flux(t0, 1), person(t1, 1)}},
			want:   false,
		},
		"PersonLostFieldsAlone": {
			reason: "an entry that lost fields while no ignored manager changed shows no change of theirs",
			args:   args{was: []fieldStamp{person(t0, 1), flux(t0, 1)}, now: []fieldStamp{person(t0, 2), flux(t0, 1)}},
			want:   false,
		},
		"NothingChanged": {
			reason: "a change no entry shows is nobody's in particular",
			args:   args{was: []fieldStamp{person(t0, 1), flux(t0, 1)}, now: []fieldStamp{person(t0, 1), flux(t0, 1)}},
			want:   false,
		},
		"FirstSeenOnlyIgnored": {
			reason: "an object first seen that only ignored managers wrote is theirs alone",
			args:   args{now: []fieldStamp{flux(t0, 1), {manager: "helm", operation: "Update", time: t0, fields: 2}}},
			want:   true,
		},
		"FirstSeenByPerson": {
			reason: "an object first seen that a person wrote too is mirrored",
			args:   args{now: []fieldStamp{flux(t0, 1), person(t0, 1)}},
			want:   false,
		},
		"NoManagedFields": {
			reason: "an object without managedFields tells nothing",
			args:   args{},
			want:   false,
		},
		"SameManagerOtherOperation": {
			reason: "the ignored manager's Update is an entry of its own, still theirs",
			args:   args{was: []fieldStamp{flux(t0, 1)}, now: []fieldStamp{flux(t0, 1), {manager: "kustomize-controller", operation: "Update", time: t1, fields: 4}}},
			want:   true,
		},
		"PersonsStatusSubresource": {
			reason: "a person's entry of another subresource is theirs",
			args:   args{was: []fieldStamp{flux(t0, 1)}, now: []fieldStamp{flux(t1, 1), {manager: "kubectl-edit", operation: "Update", subresource: "status", time: t1, fields: 1}}},
			want:   false,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if got := onlyBy(tc.args.was, tc.args.now, ignored); got != tc.want {
				t.Errorf("%s\nonlyBy(...) = %t, want %t", tc.reason, got, tc.want)
			}
		})
	}
}

func TestGenerated(t *testing.T) {
	obj := func(apiVersion, kind, name string, extra map[string]any) *unstructured.Unstructured {
		u := &unstructured.Unstructured{Object: map[string]any{}}
		for k, v := range extra {
			u.Object[k] = v
		}
		u.SetAPIVersion(apiVersion)
		u.SetKind(kind)
		u.SetNamespace("team")
		u.SetName(name)
		return u
	}
	cases := map[string]struct {
		reason string
		u      *unstructured.Unstructured
		want   bool
	}{
		"RootCA":        {reason: "the root CA publisher's ConfigMap", u: obj("v1", "ConfigMap", "kube-root-ca.crt", nil), want: true},
		"OtherCM":       {reason: "any other ConfigMap is a person's", u: obj("v1", "ConfigMap", "settings", nil), want: false},
		"DefaultSA":     {reason: "the service account controller's default ServiceAccount", u: obj("v1", "ServiceAccount", "default", nil), want: true},
		"OtherSA":       {reason: "another ServiceAccount", u: obj("v1", "ServiceAccount", "deployer", nil), want: false},
		"TokenSecret":   {reason: "a service-account token Secret", u: obj("v1", "Secret", "deployer-token", map[string]any{"type": "kubernetes.io/service-account-token"}), want: true},
		"OpaqueSecret":  {reason: "an Opaque Secret", u: obj("v1", "Secret", "db", map[string]any{"type": "Opaque"}), want: false},
		"OtherGroup":    {reason: "a ConfigMap-named kind of another group is not the core one", u: obj("example.org/v1", "ConfigMap", "kube-root-ca.crt", nil), want: false},
		"DefaultNonSA":  {reason: "a ConfigMap named default", u: obj("v1", "ConfigMap", "default", nil), want: false},
		"UntypedSecret": {reason: "a Secret without a type", u: obj("v1", "Secret", "x", nil), want: false},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if got := generated(tc.u); got != tc.want {
				t.Errorf("%s\ngenerated(...) = %t, want %t", tc.reason, got, tc.want)
			}
		})
	}
}

// TestCompactManagedFields: the stamps keep who, and change exactly when the
// time or the fields of an entry do.
func TestCompactManagedFields(t *testing.T) {
	mk := func(time string, fields map[string]any) *unstructured.Unstructured {
		u := &unstructured.Unstructured{Object: map[string]any{"metadata": map[string]any{"name": "x", "managedFields": []any{
			map[string]any{"manager": "kustomize-controller", "operation": "Apply", "apiVersion": "v1", "time": time, "fieldsType": "FieldsV1", "fieldsV1": fields},
			map[string]any{"manager": "kubectl", "operation": "Update", "subresource": "status", "time": "2026-01-01T00:00:00Z", "fieldsType": "FieldsV1", "fieldsV1": map[string]any{"f:status": map[string]any{}}},
		}}}}
		compactManagedFields(u)
		return u
	}
	fields := map[string]any{"f:data": map[string]any{"f:a": map[string]any{}, "f:b": map[string]any{}}}
	base := stampsOf(mk("2026-01-01T00:00:00Z", fields))
	if got := []string{base[0].manager + "/" + base[0].operation, base[1].manager + "/" + base[1].operation + "/" + base[1].subresource}; !cmp.Equal(got, []string{"kustomize-controller/Apply", "kubectl/Update/status"}) {
		t.Errorf("stamps name %v", got)
	}
	same := func(a, b fieldStamp) bool { return a.time == b.time && a.fields == b.fields }
	if again := stampsOf(mk("2026-01-01T00:00:00Z", map[string]any{"f:data": map[string]any{"f:b": map[string]any{}, "f:a": map[string]any{}}})); !same(base[0], again[0]) || !same(base[1], again[1]) {
		t.Errorf("the same entries give other stamps: %v, %v", base, again)
	}
	if later := stampsOf(mk("2026-01-01T00:00:01Z", fields)); later[0].time == base[0].time || later[0].fields != base[0].fields || !same(later[1], base[1]) {
		t.Errorf("another time must change that entry's time alone: %v, %v", base, later)
	}
	if other := stampsOf(mk("2026-01-01T00:00:00Z", map[string]any{"f:data": map[string]any{"f:a": map[string]any{}}})); other[0].fields == base[0].fields {
		t.Errorf("other fields must change the stamp: %v, %v", base, other)
	}
	u := mk("2026-01-01T00:00:00Z", fields)
	if s := fmt.Sprint(u.Object); strings.Contains(s, "f:data") {
		t.Errorf("the fields are still held: %s", s)
	}
}

var configMapsGVR = schema.GroupVersionResource{Version: "v1", Resource: "configmaps"}

// fluxApply applies data to ConfigMap ns/name with server-side apply as
// field manager "kustomize-controller", as Flux does.
func fluxApply(t *testing.T, c client.Client, ns, name string, data map[string]any) string {
	t.Helper()
	u := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "v1", "kind": "ConfigMap",
		"metadata": map[string]any{"namespace": ns, "name": name},
		"data":     data,
	}}
	//nolint:staticcheck // client.Apply is what Flux-like clients still send.
	if err := c.Patch(context.Background(), u, client.Apply, client.FieldOwner("kustomize-controller"), client.ForceOwnership); err != nil {
		t.Fatal(err)
	}
	return u.GetResourceVersion()
}

// seenAt waits until the ConfigMap watch of ns holds name at resourceVersion rv.
func seenAt(t *testing.T, s *Sources, ns, name, rv string) {
	t.Helper()
	testenv.Eventually(t, 30*time.Second, func() error {
		s.mu.Lock()
		w := s.watches[watchKey{gvr: configMapsGVR, namespace: ns}]
		s.mu.Unlock()
		if w == nil {
			return fmt.Errorf("no watch")
		}
		w.mu.RLock()
		defer w.mu.RUnlock()
		if w.feed == nil || w.feed.items[ns+"/"+name] == nil || w.feed.items[ns+"/"+name].rv != rv {
			return fmt.Errorf("the watch has not seen %s at %s", name, rv)
		}
		return nil
	})
}

func contentOf(t *testing.T, s *Sources, r Request, path string) string {
	t.Helper()
	snap, err := s.Ensure(context.Background(), r)
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range snap.Objects {
		if o.Path == path {
			return string(o.Content)
		}
	}
	return ""
}

// TestIgnoredManagersKeepTheFile: with kustomize-controller ignored, what it
// alone applies to an object does not reach the owner's snapshot, once the
// watch has seen it; an owner that ignores nobody sees it at once; a
// person's edit afterwards takes the whole live object, what Flux applied
// included; a new object Flux creates is taken as it is.
func TestIgnoredManagersKeepTheFile(t *testing.T) {
	cp := controlPlane(t)
	ns := newNamespace(t, cp.Client)
	ctx := context.Background()
	cm := configMap(ns, "app", nil, "person")
	if err := cp.Client.Create(ctx, cm, client.FieldOwner("kubectl-create")); err != nil {
		t.Fatal(err)
	}
	h := startSources(t, cp.Config)
	beside := Request{Owner: types.NamespacedName{Namespace: ns, Name: "beside"}, Kinds: []Kind{configMaps}, IgnoreManagers: []string{"kustomize-controller"}}
	plain := Request{Owner: types.NamespacedName{Namespace: ns, Name: "plain"}, Kinds: []Kind{configMaps}}
	ensureSynced(t, h.s, beside)
	ensureSynced(t, h.s, plain)
	p := ns + "/core/configmap/app.yaml"
	first := contentOf(t, h.s, beside, p)
	if !strings.Contains(first, "k: person") {
		t.Fatalf("the first version is not taken: %s", first)
	}

	rv := fluxApply(t, cp.Client, ns, "app", map[string]any{"k": "person", "flux": "applied"})
	seenAt(t, h.s, ns, "app", rv)
	if got := contentOf(t, h.s, beside, p); got != first {
		t.Errorf("a change by kustomize-controller alone reached the snapshot: -was, +now:\n%s", cmp.Diff(first, got))
	}
	if got := contentOf(t, h.s, plain, p); !strings.Contains(got, "flux: applied") {
		t.Errorf("an owner that ignores nobody does not see the change: %s", got)
	}
	rv = fluxApply(t, cp.Client, ns, "app", map[string]any{"k": "person", "flux": "again"})
	seenAt(t, h.s, ns, "app", rv)
	if got := contentOf(t, h.s, beside, p); got != first {
		t.Errorf("a second change by kustomize-controller alone reached the snapshot:\n%s", got)
	}

	// A person's edit: the whole live object, Flux's field included.
	if err := cp.Client.Get(ctx, client.ObjectKeyFromObject(cm), cm); err != nil {
		t.Fatal(err)
	}
	cm.Data["edited"] = "by hand"
	if err := cp.Client.Update(ctx, cm, client.FieldOwner("kubectl-edit")); err != nil {
		t.Fatal(err)
	}
	seenAt(t, h.s, ns, "app", cm.ResourceVersion)
	got := contentOf(t, h.s, beside, p)
	for _, want := range []string{"edited: by hand", "flux: again"} {
		if !strings.Contains(got, want) {
			t.Errorf("after a person's edit the snapshot lacks %q:\n%s", want, got)
		}
	}

	// An object Flux creates is Flux's alone: not mirrored, until a person
	// changes it.
	fresh := ns + "/core/configmap/fresh.yaml"
	rv = fluxApply(t, cp.Client, ns, "fresh", map[string]any{"k": "flux"})
	seenAt(t, h.s, ns, "fresh", rv)
	if got := contentOf(t, h.s, beside, fresh); got != "" {
		t.Errorf("an object only kustomize-controller wrote is in the snapshot:\n%s", got)
	}
	if got := contentOf(t, h.s, plain, fresh); !strings.Contains(got, "k: flux") {
		t.Errorf("an owner that ignores nobody does not see the new object: %q", got)
	}
	fc := &corev1.ConfigMap{}
	if err := cp.Client.Get(ctx, types.NamespacedName{Namespace: ns, Name: "fresh"}, fc); err != nil {
		t.Fatal(err)
	}
	fc.Labels = map[string]string{"reviewed": "yes"}
	if err := cp.Client.Update(ctx, fc, client.FieldOwner("kubectl-edit")); err != nil {
		t.Fatal(err)
	}
	seenAt(t, h.s, ns, "fresh", fc.ResourceVersion)
	if got := contentOf(t, h.s, beside, fresh); !strings.Contains(got, "reviewed: \"yes\"") || !strings.Contains(got, "k: flux") {
		t.Errorf("after a person's edit the object is not mirrored whole:\n%s", got)
	}
}

// TestSecretsOnlyInGrantedNamespaces: an owner reading two namespaces, with
// Secrets granted in one, lists and watches Secrets there alone, and its
// snapshot says why the other's are left out.
func TestSecretsOnlyInGrantedNamespaces(t *testing.T) {
	cp := controlPlane(t)
	granted, other := newNamespace(t, cp.Client), newNamespace(t, cp.Client)
	h := startSources(t, cp.Config)
	r := Request{Owner: types.NamespacedName{Namespace: granted, Name: "m"}, Kinds: []Kind{secrets, configMaps},
		Namespaces: []string{granted, other}, SecretNamespaces: []string{granted}, SecretsNote: "not granted"}
	snap := ensureSynced(t, h.s, r)
	if diff := cmp.Diff([]string{"not granted"}, snap.Skipped); diff != "" {
		t.Errorf("skipped: -want, +got:\n%s", diff)
	}
	var secretReqs []string
	for _, q := range h.reqs.requests() {
		if strings.Contains(q, "/secrets") {
			secretReqs = append(secretReqs, q)
		}
	}
	if len(secretReqs) == 0 {
		t.Errorf("no Secret request in the granted namespace")
	}
	for _, q := range secretReqs {
		if !strings.Contains(q, "/namespaces/"+granted+"/secrets") {
			t.Errorf("a Secret request outside the granted namespace: %s", q)
		}
	}
	if got := h.s.Informers(); got != 3 {
		t.Errorf("informers: %d, want 3 (ConfigMaps of both namespaces, Secrets of one)", got)
	}
}
