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

package mirror_test

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
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/crossplane-contrib/provider-git/apis/v1alpha1"
	mirrorcontroller "github.com/crossplane-contrib/provider-git/internal/controller/mirror"
	"github.com/crossplane-contrib/provider-git/internal/reconciler/claim"
	"github.com/crossplane-contrib/provider-git/internal/reconciler/spec"
	"github.com/crossplane-contrib/provider-git/internal/testharness/e2e"
	"github.com/crossplane-contrib/provider-git/internal/testharness/testenv"
)

// configMaps is what the Mirrors of these tests select.
var configMaps = []v1alpha1.MirrorResource{{APIVersion: "v1", Kind: "ConfigMap"}}

// stalledPolls is how many polls of a Stalled Mirror must write no status.
const stalledPolls = 3

// TestMirrorStalledWritesNoStatus drives a Mirror into each Stalled state a
// user can reach and then lets it poll: nothing it publishes changes while it
// stays Stalled, so each poll must write its status zero times. A state that
// alternates with another at each poll (Committing, a pending count, a
// message with a time in it) shows here as writes, whose bodies are printed.
func TestMirrorStalledWritesNoStatus(t *testing.T) {
	counter := e2e.NewWriteCounter()
	counter.KeepBodies(mirrorStatusWrite)
	cases := map[string]struct {
		reason string
		// args makes the fixture and the Mirror to create in it; then, if
		// set, acts once the Mirror exists.
		args func(t *testing.T) (*e2e.Fixture, *v1alpha1.Mirror)
		then func(t *testing.T, m *v1alpha1.Mirror)
		// heal, if set, undoes the cause after the polls: the Mirror
		// must still be trying, and become Ready.
		heal func(t *testing.T, f *e2e.Fixture)
		want xpv2.ConditionReason
	}{
		"FolderClaimedByAFile": {
			reason: "A File created first holds a path in the folder: Conflict, nothing read or written.",
			args: func(t *testing.T) (*e2e.Fixture, *v1alpha1.Mirror) {
				f := e2e.NewFixture(t)
				fl := e2e.NewFile(f, "first", e2e.MirrorFolder+"/notes.txt", "mine\n")
				e2e.Create(t, fl)
				e2e.WaitFor(t, time.Minute, fl, e2e.ReadyAndCurrent(t, fl))
				return f, e2e.NewMirror(f.Namespace, "m", v1alpha1.MirrorParameters{Resources: configMaps}, e2e.PCRef())
			},
			want: claim.ReasonConflict,
		},
		"ForeignFileAtAnObjectsPath": {
			reason: "The folder holds, at a ConfigMap's path, a file that is not that ConfigMap: PathConflict after the snapshot is read.",
			args: func(t *testing.T) (*e2e.Fixture, *v1alpha1.Mirror) {
				f := e2e.NewFixture(t)
				e2e.Create(t, e2e.ConfigMap(f.Namespace, "a", nil, map[string]string{"k": "v"}))
				commit(t, f, map[string]string{e2e.ObjPath(f.Namespace, "core", "configmap", "a"): "not: the configmap\n"})
				return f, e2e.NewMirror(f.Namespace, "m", v1alpha1.MirrorParameters{Resources: configMaps}, e2e.PCRef())
			},
			want: spec.ReasonPathConflict,
		},
		"InPlaceUnsupportedLayout": {
			reason: "An InPlace folder whose kustomization uses namePrefix, which it does not model.",
			args: func(t *testing.T) (*e2e.Fixture, *v1alpha1.Mirror) {
				f := e2e.NewFixture(t)
				commit(t, f, map[string]string{
					e2e.MirrorFolder + "/app/kustomization.yaml": "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources:\n- cm.yaml\nnamePrefix: p-\n",
					e2e.MirrorFolder + "/app/cm.yaml":            "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\ndata:\n  k: v\n",
				})
				e2e.Create(t, e2e.ConfigMap(f.Namespace, "a", nil, map[string]string{"k": "v"}))
				return f, e2e.NewMirror(f.Namespace, "m", v1alpha1.MirrorParameters{Layout: v1alpha1.MirrorLayoutInPlace, Resources: configMaps}, e2e.PCRef())
			},
			want: mirrorcontroller.ReasonUnsupportedLayout,
		},
		"SharedDocumentChangedLive": {
			reason: "An InPlace ConfigMap that two overlays render from one base document is changed live in one of them: UnsupportedLayout (patches are not modelled).",
			args:   sharedDocument,
			then:   changeLive,
			want:   mirrorcontroller.ReasonUnsupportedLayout,
		},
		"PushRejected": {
			reason: "A pre-receive hook refuses every push: the folder's change never lands, and is tried again at each poll.",
			args: func(t *testing.T) (*e2e.Fixture, *v1alpha1.Mirror) {
				f := e2e.NewFixture(t)
				f.Repo.SetHook(t, "pre-receive", "#!/bin/sh\necho 'this repository is frozen' >&2\nexit 1\n")
				e2e.Create(t, e2e.ConfigMap(f.Namespace, "a", nil, map[string]string{"k": "v"}))
				return f, e2e.NewMirror(f.Namespace, "m", v1alpha1.MirrorParameters{Resources: configMaps}, e2e.PCRef())
			},
			heal: func(t *testing.T, f *e2e.Fixture) {
				f.Repo.SetHook(t, "pre-receive", "#!/bin/sh\nexit 0\n")
			},
			want: spec.ReasonPushRejected,
		},
		"OtherNamespaceWithoutGrant": {
			reason: "A Mirror of another namespace through a ProviderConfig, which grants none: NotAuthorized.",
			args: func(t *testing.T) (*e2e.Fixture, *v1alpha1.Mirror) {
				f := e2e.NewFixture(t)
				return f, e2e.NewMirror(f.Namespace, "m", v1alpha1.MirrorParameters{SourceNamespaces: []string{"default"}, Resources: configMaps}, e2e.PCRef())
			},
			want: mirrorcontroller.ReasonNotAuthorized,
		},
	}
	e2e.StartProvider(t, "", counter.Through())
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			f, m := tc.args(t)
			e2e.Create(t, m)
			if tc.then != nil {
				tc.then(t, m)
			}
			e2e.WaitFor(t, time.Minute, m, e2e.StalledWith(t, m, tc.want))
			stalledStays(t, counter, f, m)
			if tc.heal != nil {
				tc.heal(t, f)
				e2e.WaitFor(t, time.Minute, m, e2e.ReadyAndCurrent(t, m))
			}
		})
	}
}

// stalledStays lets the Stalled m poll stalledPolls times and fails on any
// status write of it meanwhile, or on its leaving the state it was in.
func stalledStays(t *testing.T, counter *e2e.WriteCounter, f *e2e.Fixture, m *v1alpha1.Mirror) {
	t.Helper()
	before, bodies0 := counter.Of(f.Namespace), len(counter.Bodies(f.Namespace))
	settled := m.Status.DeepCopy()
	// A reconcile has finished once the next one started: the polls
	// counted are those that start after the Stalled state was read, and
	// one more start ends the last of them.
	r0 := e2e.ReconcilesOf(m)
	testenv.Eventually(t, time.Minute, func() error {
		if got := e2e.ReconcilesOf(m) - r0; got < stalledPolls+1 {
			return fmt.Errorf("%d of %d reconciles of the Stalled Mirror started", got, stalledPolls+1)
		}
		return nil
	})
	if err := e2e.CP.Client.Get(context.Background(), client.ObjectKeyFromObject(m), m); err != nil {
		t.Fatal(err)
	}
	got := e2e.Minus(counter.Of(f.Namespace), before)
	if n := got[mirrorStatusWrite] + got[mirrorStatusConflict]; n != 0 {
		t.Errorf("%d Mirror status writes over %d polls of a Stalled Mirror, want 0:\n%s\nstatus, -stalled +now:\n%s\nthe writes:\n%s",
			n, stalledPolls, e2e.Show(got), cmp.Diff(settled, &m.Status), strings.Join(counter.Bodies(f.Namespace)[bodies0:], "\n"))
	}
}

// commit adds files to the fixture's main in one commit, as a person's push.
func commit(t *testing.T, f *e2e.Fixture, files map[string]string) {
	t.Helper()
	if _, err := f.Repo.BareRepo.Commit("main", testenv.CommitSpec{Message: "by hand", Files: files}); err != nil {
		t.Fatal(err)
	}
}

// sharedDocument is a fixture whose folder holds two overlays of one base,
// each in a namespace of its own, and an InPlace Mirror of both.
func sharedDocument(t *testing.T) (*e2e.Fixture, *v1alpha1.Mirror) {
	t.Helper()
	f := e2e.NewFixture(t)
	var nss []string
	files := map[string]string{
		e2e.MirrorFolder + "/base/kustomization.yaml": "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources:\n- cm.yaml\n",
		e2e.MirrorFolder + "/base/cm.yaml":            "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: shared\ndata:\n  k: v\n",
	}
	for _, env := range []string{"staging", "production"} {
		n := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: "e2e-" + env + "-", Labels: map[string]string{"mirror": f.Namespace}}}
		e2e.Create(t, n)
		nss = append(nss, n.Name)
		files[e2e.MirrorFolder+"/"+env+"/kustomization.yaml"] = "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nnamespace: " + n.Name + "\nresources:\n- ../base\n"
		e2e.Create(t, e2e.ConfigMap(n.Name, "shared", nil, map[string]string{"k": "v"}))
	}
	commit(t, f, files)
	return f, e2e.NewMirror(f.Namespace, "m", v1alpha1.MirrorParameters{Layout: v1alpha1.MirrorLayoutInPlace, SourceNamespaces: nss, Resources: configMaps}, grantedConfig(t, f))
}

// changeLive changes, once the Mirror adopted the overlays, the data of the
// base's ConfigMap in the first of its namespaces: a change the layout
// cannot express without moving the other overlay.
func changeLive(t *testing.T, m *v1alpha1.Mirror) {
	t.Helper()
	e2e.WaitFor(t, time.Minute, m, e2e.ReadyAndCurrent(t, m))
	cm := &corev1.ConfigMap{}
	ctx := context.Background()
	if err := e2e.CP.Client.Get(ctx, client.ObjectKey{Namespace: m.Spec.ForProvider.SourceNamespaces[0], Name: "shared"}, cm); err != nil {
		t.Fatal(err)
	}
	cm.Data["k"] = "changed live"
	if err := e2e.CP.Client.Update(ctx, cm); err != nil {
		t.Fatal(err)
	}
}

// grantedConfig is a ClusterProviderConfig for f's repository that lets
// Mirrors of f's namespace read the namespaces labelled mirror=<it>.
func grantedConfig(t *testing.T, f *e2e.Fixture) *xpv2.ProviderConfigReference {
	t.Helper()
	cpc := &v1alpha1.ClusterProviderConfig{
		ObjectMeta: metav1.ObjectMeta{Name: f.Namespace},
		Spec: v1alpha1.ClusterProviderConfigSpec{
			URL: e2e.HTTPGit.RepoURL(f.Namespace + ".git"),
			Credentials: v1alpha1.ClusterProviderCredentials{Source: xpv2.CredentialsSourceSecret,
				SecretRef: &v1alpha1.CredentialsSecretRef{Namespace: f.Namespace, Name: "git-credentials"}},
			Mirror: &v1alpha1.MirrorPolicy{MirrorNamespaces: []string{f.Namespace},
				SourceNamespaceSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"mirror": f.Namespace}}},
		},
	}
	e2e.Create(t, cpc)
	t.Cleanup(func() { _ = e2e.CP.Client.Delete(context.Background(), cpc) })
	return &xpv2.ProviderConfigReference{Kind: v1alpha1.ClusterProviderConfigKind, Name: cpc.Name}
}
