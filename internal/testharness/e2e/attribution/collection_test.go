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

package attribution_test

import (
	"context"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/crossplane-contrib/provider-git/apis/v1alpha1"
	"github.com/crossplane-contrib/provider-git/internal/testharness/e2e"
)

// TestDeleteCollectionAttributed: bob deletes the ConfigMaps labelled
// app=web with one deletecollection request (its audit event names no
// object); the deletion of both is one commit authored by bob, and the
// ConfigMap his selector did not match stays.
func TestDeleteCollectionAttributed(t *testing.T) {
	f := e2e.NewFixture(t)
	e2e.StartProvider(t, "", e2e.WithAudit(store, wait))
	ns := f.Namespace
	m := e2e.NewMirror(ns, "m", attributed(v1alpha1.MirrorParameters{}), e2e.PCRef())
	e2e.Create(t, m)
	e2e.WaitFor(t, time.Minute, m, e2e.ReadyAndCurrent(t, m))

	alice, bob := userClient(t, "alice"), userClient(t, "bob")
	web := map[string]string{"app": "web"}
	a, b, c := e2e.ConfigMap(ns, "a", web, map[string]string{"k": "1"}), e2e.ConfigMap(ns, "b", web, map[string]string{"k": "1"}), e2e.ConfigMap(ns, "c", nil, map[string]string{"k": "1"})
	for _, o := range []*corev1.ConfigMap{a, b, c} {
		if err := alice.Create(context.Background(), o); err != nil {
			t.Fatal(err)
		}
	}
	keep := map[string]string{e2e.ObjPath(ns, "core", "configmap", "c"): e2e.Rendered(t, c)}
	all := map[string]string{e2e.ObjPath(ns, "core", "configmap", "a"): e2e.Rendered(t, a), e2e.ObjPath(ns, "core", "configmap", "b"): e2e.Rendered(t, b)}
	for p, v := range keep {
		all[p] = v
	}
	f.WaitMirrored(t, all)
	e2e.WritesLanded(t)
	before := f.Repo.Head(t, "main")

	if err := bob.DeleteAllOf(context.Background(), &corev1.ConfigMap{}, client.InNamespace(ns), client.MatchingLabels(web)); err != nil {
		t.Fatal(err)
	}
	f.WaitMirrored(t, keep)
	e2e.WritesLanded(t)
	got, _ := commitsSince(t, f, before)
	bobs := "bob <bob@users.noreply.example.org>"
	want := []commit{{Author: bobs, Committer: committer, Files: []string{e2e.ObjPath(ns, "core", "configmap", "a"), e2e.ObjPath(ns, "core", "configmap", "b")}}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("commits after bob's deletecollection: -want, +got:\n%s", diff)
	}
}
