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
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	kerrors "k8s.io/apimachinery/pkg/api/errors"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/crossplane-contrib/provider-git/apis/v1alpha1"
	"github.com/crossplane-contrib/provider-git/internal/attribution"
	mirrorcontroller "github.com/crossplane-contrib/provider-git/internal/controller/mirror"
	"github.com/crossplane-contrib/provider-git/internal/testharness/e2e"
	"github.com/crossplane-contrib/provider-git/internal/testharness/testenv"
)

// TestAdmissionTellsTwoUsersApart: alice and bob edit one ConfigMap inside
// one wait, bob against alice's version. Each commit that records the
// file is authored by the user whose write made what it holds (alice's
// content by alice, bob's by bob), Attributed-By: admission, and the last
// is bob's: told apart exactly, not by arrival order.
func TestAdmissionTellsTwoUsersApart(t *testing.T) {
	f, ns := admissionBed(t)
	m, cm, file, before := mirroredConfigMap(t, f, "a")

	edit(t, userClient(t, "alice"), ns, "a", "k", "alice")
	edit(t, userClient(t, "bob"), ns, "a", "k", "bob")
	final := e2e.Rendered(t, cm)
	f.WaitMirrored(t, map[string]string{file: final})
	e2e.WritesLanded(t)

	got := fileCommits(t, f, before, file)
	if len(got) == 0 {
		t.Fatal("no commit recorded the edits")
	}
	for i, c := range got {
		want := attributedCommit{By: attribution.ByAdmission, Content: c.Content}
		switch {
		case strings.Contains(c.Content, "k: alice"):
			want.Author = "alice"
		case strings.Contains(c.Content, "k: bob"):
			want.Author = "bob"
		default:
			t.Fatalf("commit %d holds neither edit:\n%s", i, c.Content)
		}
		if diff := cmp.Diff(want, c); diff != "" {
			t.Errorf("commit %d of the file: -want, +got:\n%s", i, diff)
		}
	}
	if last := got[len(got)-1]; last.Content != final {
		t.Errorf("the last commit holds\n%s\nwant what is live:\n%s", last.Content, final)
	}
	e2e.WaitFor(t, 30*time.Second, m, func() error {
		if c := m.GetCondition(mirrorcontroller.TypeAttribution); c.Status != corev1.ConditionTrue || c.Reason != mirrorcontroller.ReasonAdmissionReceived {
			return fmt.Errorf("condition Attribution is %s %s (%s), want True AdmissionReceived", c.Status, c.Reason, c.Message)
		}
		return nil
	})
}

// TestAdmissionRefusedWriteAuthorsNothing: mallory's update of a
// ConfigMap is held in admission while alice's update against the same
// version persists; let go, it is admitted (the webhook keeps its fact,
// the last of the object's) and then refused with a conflict on its stale
// resourceVersion. The commit of the object is alice's, and none names
// mallory: a join by arrival order would name her.
func TestAdmissionRefusedWriteAuthorsNothing(t *testing.T) {
	f, _ := admissionBed(t)
	_, cm, file, before := mirroredConfigMap(t, f, "c")

	ctx := context.Background()
	stale := &corev1.ConfigMap{}
	if err := e2e.CP.Client.Get(ctx, client.ObjectKeyFromObject(cm), stale); err != nil {
		t.Fatal(err)
	}
	held, release := gate.hold("mallory")
	defer release()
	refused := make(chan error, 1)
	go func() {
		w := stale.DeepCopy()
		w.Data["k"] = "mallory"
		refused <- userClient(t, "mallory").Update(ctx, w)
	}()
	select {
	case <-held:
	case err := <-refused:
		t.Fatalf("mallory's update returned before admission held it: %v", err)
	}
	ok := stale.DeepCopy()
	ok.Data["k"] = "alice"
	if err := userClient(t, "alice").Update(ctx, ok); err != nil {
		t.Fatalf("alice's update against the same version: %v", err)
	}
	release()
	if err := <-refused; !kerrors.IsConflict(err) {
		t.Fatalf("mallory's update: %v, want a conflict on its stale resourceVersion", err)
	}
	if got := admitted.Of(string(stale.UID), time.Time{}); !hasUser(got, "mallory") {
		t.Fatalf("the webhook kept no fact of mallory's write (%d facts): the test proves nothing", len(got))
	}
	final := e2e.Rendered(t, cm)
	f.WaitMirrored(t, map[string]string{file: final})
	e2e.WritesLanded(t)
	want := []attributedCommit{{Author: "alice", By: attribution.ByAdmission, Content: final}}
	if diff := cmp.Diff(want, fileCommits(t, f, before, file)); diff != "" {
		t.Errorf("commits of the file: -want, +got:\n%s", diff)
	}
}

// TestAdmittedIsStored: the object validating admission sees is the one
// stored, but for metadata.resourceVersion (the claim the exact join
// rests on: it runs after the strategy's PrepareForUpdate).
func TestAdmittedIsStored(t *testing.T) {
	f := e2e.NewFixture(t)
	ns := f.Namespace
	webhookFor(t, ns, "on", webhook, admittedProbe(t, ns))
	cm := e2e.ConfigMap(ns, "s", nil, map[string]string{"k": "0"})
	e2e.Create(t, cm)
	edit(t, userClient(t, "erin"), ns, "s", "k", "erin")
	objs := gate.objects("erin")
	if len(objs) == 0 {
		t.Fatal("the webhook saw no write of erin's")
	}
	raw := rawGet(t, "/api/v1/namespaces/"+ns+"/configmaps/s")
	strip := func(b []byte) map[string]any {
		var m map[string]any
		if err := json.Unmarshal(b, &m); err != nil {
			t.Fatal(err)
		}
		delete(m["metadata"].(map[string]any), "resourceVersion")
		return m
	}
	if diff := cmp.Diff(strip(raw), strip(objs[len(objs)-1])); diff != "" {
		t.Errorf("admitted object minus resourceVersion, against the stored one: -stored, +admitted:\n%s", diff)
	}
}

// TestAdmissionWebhookStopped: with the webhook down (its configuration
// points at a port nobody serves), a write succeeds (failurePolicy Ignore)
// and the Mirror goes on mirroring: the change is authored unresolved, and
// its Attribution condition, not part of Ready, says the webhook saw no
// write of it.
func TestAdmissionWebhookStopped(t *testing.T) {
	f := e2e.NewFixture(t)
	ns := f.Namespace
	dead := httptest.NewTLSServer(http.NotFoundHandler())
	url := dead.URL + "/admit"
	dead.Close()
	webhookFor(t, ns, "stopped", url, func() bool { return failedOpen(t, webhookName(ns)) })
	e2e.StartProvider(t, "", e2e.WithAudit(store, wait), e2e.WithAdmission(admitted))
	m := admissionMirror(ns)
	e2e.Create(t, m)
	e2e.WaitFor(t, time.Minute, m, e2e.ReadyAndCurrent(t, m))
	before := f.Repo.Head(t, "main")
	cm := e2e.ConfigMap(ns, "d", map[string]string{"mirror": "yes"}, map[string]string{"k": "0"})
	if err := userClient(t, "alice").Create(context.Background(), cm); err != nil {
		t.Fatalf("a write with the webhook down: %v, want it to succeed", err)
	}
	file := e2e.ObjPath(ns, "core", "configmap", "d")
	final := e2e.Rendered(t, cm)
	f.WaitMirrored(t, map[string]string{file: final})
	e2e.WritesLanded(t)
	want := []attributedCommit{{Author: attribution.UnresolvedName, By: attribution.ByUnresolved, Content: final}}
	if diff := cmp.Diff(want, fileCommits(t, f, before, file)); diff != "" {
		t.Errorf("commits of the file: -want, +got:\n%s", diff)
	}
	e2e.WaitFor(t, 30*time.Second, m, func() error {
		c := m.GetCondition(mirrorcontroller.TypeAttribution)
		if c.Status != corev1.ConditionFalse || c.Reason != mirrorcontroller.ReasonAdmissionNotReceived || !strings.Contains(c.Message, ns+"/d") {
			return fmt.Errorf("condition Attribution is %s %s (%s), want False AdmissionNotReceived naming %s/d", c.Status, c.Reason, c.Message, ns)
		}
		return e2e.ReadyAndCurrent(t, m)()
	})
}

// TestAutoBesideAudit: audit events and admission reviews of one cluster
// at once. A Mirror with attribution Auto and one with Audit, in folders of
// their own, mirror the same ConfigMaps; alice and bob each edit one. Both
// Mirrors name the same author for each change, the Auto one from
// admission and the Audit one from audit events, and each records each
// change in exactly one commit: none authored twice.
func TestAutoBesideAudit(t *testing.T) {
	f, ns := admissionBed(t)
	auto := admissionMirror(ns)
	auto.Spec.ForProvider.Attribution = v1alpha1.MirrorAttributionAuto
	audited := admissionMirror(ns)
	audited.Name, audited.Spec.ForProvider.Path, audited.Spec.ForProvider.Attribution = "audited", "audited", v1alpha1.MirrorAttributionAudit
	for _, m := range []*v1alpha1.Mirror{auto, audited} {
		e2e.Create(t, m)
		e2e.WaitFor(t, time.Minute, m, e2e.ReadyAndCurrent(t, m))
	}
	want := map[string]string{}
	for _, n := range []string{"a", "b"} {
		cm := e2e.ConfigMap(ns, n, map[string]string{"mirror": "yes"}, map[string]string{"k": "0"})
		e2e.Create(t, cm)
		want[e2e.ObjPath(ns, "core", "configmap", n)] = e2e.Rendered(t, cm)
	}
	f.WaitMirrored(t, want)
	e2e.WritesLanded(t)
	before := f.Repo.Head(t, "main")

	authors := map[string]string{"a": "alice", "b": "bob"}
	for n, u := range authors {
		edit(t, userClient(t, u), ns, n, "k", u)
		want[e2e.ObjPath(ns, "core", "configmap", n)] = e2e.Rendered(t, e2e.ConfigMap(ns, n, nil, nil))
	}
	f.WaitMirrored(t, want)
	inAudited := func(n string) string {
		return "audited/" + strings.TrimPrefix(e2e.ObjPath(ns, "core", "configmap", n), e2e.MirrorFolder+"/")
	}
	testenv.Eventually(t, 30*time.Second, func() error {
		for n, u := range authors {
			if got := fileCommits(t, f, before, inAudited(n)); len(got) == 0 || !strings.Contains(got[len(got)-1].Content, "k: "+u) {
				return fmt.Errorf("the Audit Mirror has not recorded %s's edit of %s yet", u, n)
			}
		}
		return nil
	})
	e2e.WritesLanded(t)
	for n, u := range authors {
		file := e2e.ObjPath(ns, "core", "configmap", n)
		content := want[file]
		if diff := cmp.Diff([]attributedCommit{{Author: u, By: attribution.ByAdmission, Content: content}}, fileCommits(t, f, before, file)); diff != "" {
			t.Errorf("the Auto Mirror's commits of %s: -want, +got:\n%s", n, diff)
		}
		if diff := cmp.Diff([]attributedCommit{{Author: u, By: attribution.ByAudit, Content: content}}, fileCommits(t, f, before, inAudited(n))); diff != "" {
			t.Errorf("the Audit Mirror's commits of %s: -want, +got:\n%s", n, diff)
		}
	}
}

// TestAdmissionIgnoredUsers: a Mirror with attribution Admission that
// ignores Flux's ServiceAccount, as admission names it (no audit event is
// joined), commits nothing of what Flux alone creates or changes; a
// person's edit of Flux's object is one commit, authored by them.
func TestAdmissionIgnoredUsers(t *testing.T) {
	flux := "system:serviceaccount:flux-system:kustomize-controller"
	f, ns := admissionBed(t)
	m := admissionMirror(ns)
	m.Spec.ForProvider.Ignore = &v1alpha1.MirrorIgnore{Users: []string{flux}}
	e2e.Create(t, m)
	e2e.WaitFor(t, time.Minute, m, e2e.ReadyAndCurrent(t, m))
	before := f.Repo.Head(t, "main")

	fluxClient, alice := impersonating(t, flux), userClient(t, "alice")
	app := e2e.ConfigMap(ns, "app", map[string]string{"mirror": "yes"}, map[string]string{"image": "web:1"})
	if err := fluxClient.Create(context.Background(), app); err != nil {
		t.Fatal(err)
	}
	canary := e2e.ConfigMap(ns, "canary", map[string]string{"mirror": "yes"}, map[string]string{"n": "0"})
	if err := alice.Create(context.Background(), canary); err != nil {
		t.Fatal(err)
	}
	canaryFile, appFile := e2e.ObjPath(ns, "core", "configmap", "canary"), e2e.ObjPath(ns, "core", "configmap", "app")
	want := map[string]string{canaryFile: e2e.Rendered(t, canary)}
	f.WaitMirrored(t, want)
	e2e.WritesLanded(t)
	head := f.Repo.Head(t, "main")
	f.Stays(t, m, false, "main", head, "what the ignored user alone created")
	if got := fileCommits(t, f, before, appFile); len(got) != 0 {
		t.Errorf("Flux's own object was committed: %+v", got)
	}

	edit(t, alice, ns, "app", "image", "web:2")
	want[appFile] = e2e.Rendered(t, app)
	f.WaitMirrored(t, want)
	e2e.WritesLanded(t)
	if diff := cmp.Diff([]attributedCommit{{Author: "alice", By: attribution.ByAdmission, Content: want[appFile]}}, fileCommits(t, f, head, appFile)); diff != "" {
		t.Errorf("commits after a person's edit of Flux's object: -want, +got:\n%s", diff)
	}
}
