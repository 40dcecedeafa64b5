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

package scope_test

import (
	"context"
	"strings"
	"testing"
	"time"

	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"
	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	kerrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/util/retry"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/crossplane-contrib/provider-git/apis/v1alpha1"
	"github.com/crossplane-contrib/provider-git/internal/testharness/e2e"
)

// fluxManager is the field manager of Flux's kustomize-controller.
const fluxManager = "kustomize-controller"

// fluxApply applies data to ConfigMap ns/name with server-side apply, as
// Flux does: field manager kustomize-controller, conflicts forced.
func fluxApply(t *testing.T, ns, name string, data map[string]any) {
	t.Helper()
	u := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "v1", "kind": "ConfigMap",
		"metadata": map[string]any{"namespace": ns, "name": name},
		"data":     data,
	}}
	//nolint:staticcheck // client.Apply is what Flux-like clients send.
	if err := e2e.CP.Client.Patch(context.Background(), u, client.Apply, client.FieldOwner(fluxManager), client.ForceOwnership); err != nil {
		t.Fatal(err)
	}
}

// personEdits sets key k of ConfigMap cm to v, as kubectl edit does.
func personEdits(t *testing.T, cm *corev1.ConfigMap, k, v string) {
	t.Helper()
	err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		if err := e2e.CP.Client.Get(context.Background(), client.ObjectKeyFromObject(cm), cm); err != nil {
			return err
		}
		if cm.Data == nil {
			cm.Data = map[string]string{}
		}
		cm.Data[k] = v
		return e2e.CP.Client.Update(context.Background(), cm, client.FieldOwner("kubectl-edit"))
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestMirrorBesideFlux: a Mirror that ignores kustomize-controller commits
// nothing of what it alone applies: neither the objects it creates nor its
// changes to a person's object. The proof needs no sleep: a person's edit
// of another ConfigMap, made after Flux's, reaches Git through the same
// watch, which delivers events in order, so the Mirror has seen Flux's
// changes when it commits that edit, and the commit touches that file
// alone; then the branch stays over two more reconciles. A person's edit of
// an object Flux changed is one commit of the whole live object, what Flux
// applied included; a person's edit of Flux's own object mirrors it whole.
func TestMirrorBesideFlux(t *testing.T) {
	f := e2e.NewFixture(t)
	e2e.StartProvider(t, "")
	ns := f.Namespace
	settings := e2e.ConfigMap(ns, "settings", nil, map[string]string{"k": "1"})
	canary := e2e.ConfigMap(ns, "canary", nil, map[string]string{"n": "0"})
	e2e.Create(t, settings)
	e2e.Create(t, canary)
	fluxApply(t, ns, "app", map[string]any{"image": "web:1"})
	app := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "app"}}

	m := e2e.NewMirror(ns, "m", v1alpha1.MirrorParameters{
		Resources: []v1alpha1.MirrorResource{{APIVersion: "v1", Kind: "ConfigMap"}},
		Ignore:    &v1alpha1.MirrorIgnore{FieldManagers: []string{fluxManager, "helm"}},
	}, e2e.PCRef())
	e2e.Create(t, m)
	e2e.WaitFor(t, time.Minute, m, e2e.ReadyAndCurrent(t, m))
	cmPath := func(name string) string { return e2e.ObjPath(ns, "core", "configmap", name) }
	want := map[string]string{cmPath("settings"): e2e.Rendered(t, settings), cmPath("canary"): e2e.Rendered(t, canary)}
	f.WaitMirrored(t, want)

	// Flux changes the person's object and its own.
	before := f.Repo.Head(t, "main")
	fluxApply(t, ns, "settings", map[string]any{"k": "1", "flux": "applied"})
	fluxApply(t, ns, "app", map[string]any{"image": "web:2"})
	personEdits(t, canary, "n", "1")
	want[cmPath("canary")] = e2e.Rendered(t, canary)
	f.WaitMirrored(t, want)
	e2e.WritesLanded(t)
	after := f.Repo.Head(t, "main")
	if got := f.GitOut(t, "diff", "--name-only", before, after); got != cmPath("canary") {
		t.Errorf("the commits after Flux's changes touch %q, want the canary's file alone", got)
	}
	f.Stays(t, m, false, "main", after, "what kustomize-controller alone applied")

	// A person edits the object Flux changed: one commit, the whole live
	// object, Flux's field included.
	personEdits(t, settings, "k", "2")
	want[cmPath("settings")] = e2e.Rendered(t, settings)
	if !strings.Contains(want[cmPath("settings")], "flux: applied") {
		t.Fatalf("the live object lacks Flux's field:\n%s", want[cmPath("settings")])
	}
	f.WaitMirrored(t, want)
	e2e.WritesLanded(t)
	if n := len(f.Repo.Log(t, "main")) - len(f.Repo.Log(t, after)); n != 1 {
		t.Errorf("a person's edit took %d commits, want 1", n)
	}

	// A person edits Flux's own object: mirrored whole from then on.
	personEdits(t, app, "reviewed", "yes")
	want[cmPath("app")] = e2e.Rendered(t, app)
	f.WaitMirrored(t, want)
	e2e.WaitFor(t, time.Minute, m, e2e.ReadyAndCurrent(t, m))
}

// TestMirrorSkipsWhatTheClusterMakes: the kube-root-ca.crt ConfigMap, the
// default ServiceAccount, a service-account token Secret and Events (made
// here as the cluster's controllers would: envtest runs none) are not
// mirrored by default, and Ready says the Events were not read;
// skipClusterGenerated: false mirrors them.
func TestMirrorSkipsWhatTheClusterMakes(t *testing.T) {
	ctx := context.Background()
	f := e2e.NewFixture(t)
	e2e.StartProvider(t, "")
	ns := f.Namespace
	// Labelled, and the Mirror selects the label: the events the provider
	// itself records about the Mirror stay out of its folder, or every
	// commit would record one more.
	l := map[string]string{"app": "demo"}
	rootCA := e2e.ConfigMap(ns, "kube-root-ca.crt", l, map[string]string{"ca.crt": "-----BEGIN CERTIFICATE-----\n"})
	sa := &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "default", Labels: l}}
	deployer := &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "deployer", Labels: l}}
	settings := e2e.ConfigMap(ns, "settings", l, map[string]string{"k": "1"})
	ev := &corev1.Event{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "settings.1", Labels: l},
		InvolvedObject: corev1.ObjectReference{Kind: "ConfigMap", Namespace: ns, Name: "settings"}, Reason: "Seen", Message: "seen", Type: "Normal"}
	for _, o := range []client.Object{rootCA, sa, deployer, settings, ev} {
		if err := e2e.CP.Client.Create(ctx, o); err != nil && !kerrors.IsAlreadyExists(err) {
			t.Fatal(err)
		}
	}
	m := e2e.NewMirror(ns, "m", v1alpha1.MirrorParameters{Resources: []v1alpha1.MirrorResource{
		{APIVersion: "v1", Kind: "ConfigMap"}, {APIVersion: "v1", Kind: "ServiceAccount"}, {APIVersion: "v1", Kind: "Event"},
	}, LabelSelector: &metav1.LabelSelector{MatchLabels: l}}, e2e.PCRef())
	e2e.Create(t, m)
	e2e.WaitFor(t, time.Minute, m, e2e.ReadyAndCurrent(t, m))
	want := map[string]string{
		e2e.ObjPath(ns, "core", "configmap", "settings"):      e2e.Rendered(t, settings),
		e2e.ObjPath(ns, "core", "serviceaccount", "deployer"): e2e.Rendered(t, deployer),
	}
	f.WaitMirrored(t, want)
	e2e.WaitFor(t, time.Minute, m, e2e.ReadyAndCurrent(t, m))
	if msg := m.GetCondition(xpv2.TypeReady).Message; !strings.Contains(msg, "events are made by the cluster") {
		t.Errorf("Ready's message does not say Events are left out: %q", msg)
	}

	// The override.
	err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		if err := e2e.CP.Client.Get(ctx, client.ObjectKeyFromObject(m), m); err != nil {
			return err
		}
		m.Spec.ForProvider.SkipClusterGenerated = ptr.To(false)
		return e2e.CP.Client.Update(ctx, m)
	})
	if err != nil {
		t.Fatal(err)
	}
	want[e2e.ObjPath(ns, "core", "configmap", "kube-root-ca.crt")] = e2e.Rendered(t, rootCA)
	want[e2e.ObjPath(ns, "core", "serviceaccount", "default")] = e2e.Rendered(t, sa)
	want[e2e.ObjPath(ns, "core", "event", "settings.1")] = e2e.Rendered(t, ev)
	f.WaitMirrored(t, want)
	if diff := cmp.Diff(want, f.Mirrored(t)); diff != "" {
		t.Errorf("with skipClusterGenerated: false: -want, +got:\n%s", diff)
	}
}

// TestMirrorIgnoreUsersRefused: ignore.users needs attribution: Audit (who
// made a change is known only from audit events); without it the Mirror is
// refused, saying so, and nothing is written.
func TestMirrorIgnoreUsersRefused(t *testing.T) {
	f := e2e.NewFixture(t)
	e2e.StartProvider(t, "")
	head := f.Repo.Head(t, "main")
	m := e2e.NewMirror(f.Namespace, "m", v1alpha1.MirrorParameters{
		Resources: []v1alpha1.MirrorResource{{APIVersion: "v1", Kind: "ConfigMap"}},
		Ignore:    &v1alpha1.MirrorIgnore{Users: []string{"system:serviceaccount:flux-system:kustomize-controller"}},
	}, e2e.PCRef())
	// Refused at admission (the CRD's rule; the controller checks the same
	// rule again, TestRequestIgnore).
	err := e2e.CP.Client.Create(context.Background(), m)
	if err == nil || !strings.Contains(err.Error(), "ignore.users needs attribution Audit, Admission or Auto") {
		t.Fatalf("creating a Mirror with ignore.users and no attribution: %v, want the CRD's refusal", err)
	}
	e2e.WritesLanded(t)
	if got := f.Repo.Head(t, "main"); got != head {
		t.Errorf("a refused Mirror wrote to the branch")
	}
}
