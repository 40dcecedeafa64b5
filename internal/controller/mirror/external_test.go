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
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	xpmanaged "github.com/crossplane/crossplane-runtime/v2/pkg/reconciler/managed"
	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/crossplane-contrib/provider-git/apis/v1alpha1"
	"github.com/crossplane-contrib/provider-git/internal/mirror"
	"github.com/crossplane-contrib/provider-git/internal/mirror/plan"
	"github.com/crossplane-contrib/provider-git/internal/reconciler/claim"
	"github.com/crossplane-contrib/provider-git/internal/reconciler/managed"
	"github.com/crossplane-contrib/provider-git/internal/reconciler/spec"
	"github.com/crossplane-contrib/provider-git/internal/testharness/controllertest"
)

func TestObserve(t *testing.T) {
	a, b := object("a", "1"), object("b", "2")
	pa, pb := "live/"+a.Path, "live/"+b.Path
	mk := "live/" + MarkerFile
	synced := mirror.Snapshot{Synced: true, Objects: []mirror.Object{a, b}}
	clean := map[string]string{pa: string(a.Content), pb: string(b.Content), mk: markerOf("ns/m", a.Path, b.Path), "live/notes.md": "mine\n"}
	with := func(base map[string]string, kv ...string) map[string]string {
		out := maps.Clone(base)
		for i := 0; i < len(kv); i += 2 {
			if kv[i+1] == "" {
				delete(out, kv[i])
				continue
			}
			out[kv[i]] = kv[i+1]
		}
		return out
	}
	cpc := &v1alpha1.ClusterProviderConfig{ObjectMeta: metav1.ObjectMeta{Name: "shared"}, Spec: v1alpha1.ClusterProviderConfigSpec{
		Mirror: &v1alpha1.MirrorPolicy{MirrorNamespaces: []string{"ns"}, SourceNamespaces: []string{"granted"}},
	}}
	viaCPC := func(m *v1alpha1.Mirror) {
		m.Spec.ProviderConfigReference = &xpv2.ProviderConfigReference{Kind: v1alpha1.ClusterProviderConfigKind, Name: "shared"}
	}
	deleted := func(m *v1alpha1.Mirror) { m.SetDeletionTimestamp(&metav1.Time{Time: time.Now()}) }

	cases := map[string]struct {
		reason string
		mg     *v1alpha1.Mirror
		kube   []client.Object
		src    *fakeSources
		repo   *fakeRepository
		// claims answers the claim check; nil: nobody else claims.
		claims claim.CheckFn
		want   outcome
	}{
		"HeldByAnEarlierClaimant": {
			reason: "A File or Mirror created first claims (part of) the folder: Conflict, nothing read, watched or written.",
			mg:     newMirror(), src: &fakeSources{snap: synced}, repo: &fakeRepository{files: with(clean, pa, "edited\n")},
			claims: held,
			want:   outcome{Stalled: claim.ReasonConflict, Released: true},
		},
		"DeletingWhileAnotherClaims": {
			reason: "Being deleted while another resource still claims (part of) the folder: the folder stays as it is.",
			mg:     newMirror(deleted), src: &fakeSources{}, repo: &fakeRepository{files: clean},
			claims: letGo,
			want:   outcome{Obs: xpmanaged.ExternalObservation{ResourceExists: false}, Released: true},
		},
		"InvalidSpec": {
			reason: "A folder the CRD should have refused is InvalidSpec, and nothing is watched.",
			mg:     newMirror(func(m *v1alpha1.Mirror) { m.Spec.ForProvider.Path = "../x" }),
			src:    &fakeSources{}, repo: &fakeRepository{files: clean},
			want: outcome{Stalled: spec.ReasonInvalidSpec, Released: true},
		},
		"OtherNamespaceWithoutGrant": {
			reason: "Another namespace through a namespaced ProviderConfig is never granted; nothing is read.",
			mg:     newMirror(func(m *v1alpha1.Mirror) { m.Spec.ForProvider.SourceNamespaces = []string{"granted"} }),
			src:    &fakeSources{}, repo: &fakeRepository{files: clean},
			want: outcome{Stalled: ReasonNotAuthorized, Released: true},
		},
		"OtherNamespaceNotInGrant": {
			reason: "A namespace the ClusterProviderConfig's policy does not list is not granted.",
			mg:     newMirror(viaCPC, func(m *v1alpha1.Mirror) { m.Spec.ForProvider.SourceNamespaces = []string{"granted", "other"} }),
			kube:   []client.Object{cpc}, src: &fakeSources{}, repo: &fakeRepository{files: clean},
			want: outcome{Stalled: ReasonNotAuthorized, Released: true},
		},
		"ClusterScopedNotGranted": {
			reason: "Cluster-scoped kinds need the policy's clusterScoped.",
			mg:     newMirror(viaCPC, func(m *v1alpha1.Mirror) { m.Spec.ForProvider.ClusterScoped = true }),
			kube:   []client.Object{cpc}, src: &fakeSources{}, repo: &fakeRepository{files: clean},
			want: outcome{Stalled: ReasonNotAuthorized, Released: true},
		},
		"Granted": {
			reason: "A namespace the policy lists is read.",
			mg:     newMirror(viaCPC, func(m *v1alpha1.Mirror) { m.Spec.ForProvider.SourceNamespaces = []string{"granted", "ns"} }),
			kube:   []client.Object{cpc}, src: &fakeSources{snap: synced}, repo: &fakeRepository{files: clean},
			want: outcome{Obs: xpmanaged.ExternalObservation{ResourceExists: true, ResourceUpToDate: true}, Ensured: true},
		},
		"Syncing": {
			reason: "An unsynced snapshot drives nothing, least of all a deletion.",
			mg:     newMirror(), src: &fakeSources{snap: mirror.Snapshot{Objects: []mirror.Object{a}}}, repo: &fakeRepository{files: clean},
			want: outcome{Waiting: ReasonSyncing, Ensured: true},
		},
		"KindNotFound": {
			reason: "A kind not served yet is progressing: a CRD installed later resolves it.",
			mg:     newMirror(), src: &fakeSources{err: &mirror.KindNotFoundError{}}, repo: &fakeRepository{files: clean},
			want: outcome{Progress: ReasonResourceNotFound, Ensured: true},
		},
		"WatchNotPermitted": {
			reason: "The provider's own RBAC must grow: a human acts.",
			mg:     newMirror(), src: &fakeSources{err: &mirror.NotPermittedError{Verb: "watch"}}, repo: &fakeRepository{files: clean},
			want: outcome{Stalled: ReasonWatchNotPermitted, Ensured: true},
		},
		"UpToDate": {
			reason: "A folder that matches needs nothing; files the Mirror does not own are not its business.",
			mg:     newMirror(), src: &fakeSources{snap: synced}, repo: &fakeRepository{files: clean},
			want: outcome{Obs: xpmanaged.ExternalObservation{ResourceExists: true, ResourceUpToDate: true}, Ensured: true},
		},
		"UpToDateWithNote": {
			reason: "What the snapshot left out is said in Ready's message.",
			mg:     newMirror(), src: &fakeSources{snap: mirror.Snapshot{Synced: true, Objects: synced.Objects, Skipped: []string{"Secrets are never mirrored"}}},
			repo: &fakeRepository{files: clean},
			want: outcome{Obs: xpmanaged.ExternalObservation{ResourceExists: true, ResourceUpToDate: true}, Ensured: true, Note: true},
		},
		"NewFolder": {
			reason: "A folder without this Mirror's marker does not exist yet: every file and the marker are created.",
			mg:     newMirror(), src: &fakeSources{snap: synced}, repo: &fakeRepository{files: map[string]string{"README.md": "x"}},
			want: outcome{Obs: xpmanaged.ExternalObservation{ResourceExists: false}, Puts: []string{mk, pa, pb}, Ensured: true},
		},
		"EmptyRepository": {
			reason: "In an empty repository the Mirror's commit is the first.",
			mg:     newMirror(), src: &fakeSources{snap: synced}, repo: &fakeRepository{empty: true},
			want: outcome{Obs: xpmanaged.ExternalObservation{ResourceExists: false}, Puts: []string{mk, pa, pb}, Ensured: true},
		},
		"NoBranch": {
			reason: "A missing branch in a repository with branches is a Branch's to create: transient.",
			mg:     newMirror(), src: &fakeSources{snap: synced}, repo: &fakeRepository{},
			want: outcome{Failed: true, Ensured: true},
		},
		"DriftPutBack": {
			reason: "An owned file edited in Git is written again.",
			mg:     newMirror(), src: &fakeSources{snap: synced}, repo: &fakeRepository{files: with(clean, pa, "edited\n")},
			want: outcome{Obs: xpmanaged.ExternalObservation{ResourceExists: true}, Puts: []string{pa}, Ensured: true},
		},
		"ObjectGone": {
			reason: "An owned file whose object is gone is removed, and the marker no longer lists it.",
			mg:     newMirror(), src: &fakeSources{snap: mirror.Snapshot{Synced: true, Objects: []mirror.Object{a}}}, repo: &fakeRepository{files: clean},
			want: outcome{Obs: xpmanaged.ExternalObservation{ResourceExists: true}, Puts: []string{mk}, Deletes: []string{pb}, Ensured: true},
		},
		"PruneNever": {
			reason: "With prune Never the file stays, still owned.",
			mg:     newMirror(func(m *v1alpha1.Mirror) { m.Spec.ForProvider.Prune = v1alpha1.MirrorPruneNever }),
			src:    &fakeSources{snap: mirror.Snapshot{Synced: true, Objects: []mirror.Object{a}}}, repo: &fakeRepository{files: clean},
			want: outcome{Obs: xpmanaged.ExternalObservation{ResourceExists: true, ResourceUpToDate: true}, Ensured: true},
		},
		"AdoptSameObject": {
			reason: "A file the Mirror does not own that holds the same object is adopted.",
			mg:     newMirror(), src: &fakeSources{snap: synced},
			repo: &fakeRepository{files: with(clean, mk, markerOf("ns/m", a.Path), pb, "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: b, namespace: ns}\n")},
			want: outcome{Obs: xpmanaged.ExternalObservation{ResourceExists: true}, Puts: []string{mk, pb}, Ensured: true},
		},
		"ForeignFileAtPath": {
			reason: "A file the Mirror does not own that holds anything else is a path conflict; nothing is written.",
			mg:     newMirror(), src: &fakeSources{snap: synced},
			repo: &fakeRepository{files: with(clean, mk, markerOf("ns/m", a.Path), pb, "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: b, namespace: ns}\n---\nkind: Other\n")},
			want: outcome{Stalled: spec.ReasonPathConflict, Ensured: true},
		},
		"OtherMirrorsFolder": {
			reason: "A folder whose marker names another Mirror that exists belongs to it.",
			mg:     newMirror(), kube: []client.Object{newMirror(func(m *v1alpha1.Mirror) { m.Name = "first" })},
			src: &fakeSources{snap: synced}, repo: &fakeRepository{files: with(clean, mk, markerOf("ns/first", a.Path, b.Path))},
			want: outcome{Stalled: spec.ReasonPathConflict, Ensured: true},
		},
		"OrphanedFolder": {
			reason: "A marker naming a Mirror that is gone is taken over; its files are adopted only as the same objects.",
			mg:     newMirror(), src: &fakeSources{snap: mirror.Snapshot{Synced: true, Objects: []mirror.Object{a}}},
			repo: &fakeRepository{files: with(clean, mk, markerOf("ns/gone", a.Path, b.Path))},
			want: outcome{Obs: xpmanaged.ExternalObservation{ResourceExists: false}, Puts: []string{mk}, Ensured: true},
		},
		"Queued": {
			reason: "A change already with the branch writer is not handed over twice.",
			mg:     newMirror(), src: &fakeSources{snap: synced}, repo: &fakeRepository{files: with(clean, pa, "edited\n"), queued: true},
			want: outcome{Waiting: ReasonCommitting, Ensured: true},
		},
		"InFlight": {
			reason: "While its last change is being pushed the head does not show it: the Mirror waits for the push's wake instead of diffing a stale folder.",
			mg:     newMirror(), src: &fakeSources{snap: synced}, repo: &fakeRepository{files: with(clean, pa, "edited\n"), inflight: true},
			want: outcome{Waiting: ReasonCommitting},
		},
		"DeleteOwned": {
			reason: "Deleting removes the owned files and the marker, nothing else, and lets go of the watches.",
			mg:     newMirror(deleted), src: &fakeSources{}, repo: &fakeRepository{files: clean},
			want: outcome{Obs: xpmanaged.ExternalObservation{ResourceExists: true, ResourceUpToDate: true}, Deletes: []string{mk, pa, pb}, Released: true},
		},
		"DeleteUnclaimed": {
			reason: "A folder without this Mirror's marker has nothing of it to remove.",
			mg:     newMirror(deleted), src: &fakeSources{}, repo: &fakeRepository{files: with(clean, mk, "")},
			want: outcome{Obs: xpmanaged.ExternalObservation{ResourceExists: false}, Released: true},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			claims := tc.claims
			if claims == nil {
				claims = controllertest.Unclaimed
			}
			e := &external{kube: kube(t, tc.kube...), claims: claims, repo: tc.repo, src: tc.src, watch: fakeTracker{}, maxAge: time.Minute}
			obs, err := e.Observe(context.Background(), tc.mg)
			got := outcome{Obs: obs, Ensured: tc.src.ensured, Released: tc.src.released, Note: e.Note() != ""}
			classify(&got, err)
			if e.change != nil {
				got.Puts = slices.Sorted(maps.Keys(e.change.Puts))
				got.Deletes = e.change.Deletes
			}
			if diff := cmp.Diff(tc.want, got, cmpopts.EquateEmpty(), cmpopts.IgnoreFields(xpmanaged.ExternalObservation{}, "Diff")); diff != "" {
				t.Errorf("%s\nObserve(...): -want, +got:\n%s\nerror: %v", tc.reason, diff, err)
			}
		})
	}
}

// The marker a plan writes lists exactly what the Mirror owns afterwards,
// and Create hands exactly Observe's change to the branch writer.
func TestPlanMarkerAndCreate(t *testing.T) {
	a, b := object("a", "1"), object("b", "2")
	repo := &fakeRepository{files: map[string]string{"live/keep.md": "x"}}
	src := &fakeSources{snap: mirror.Snapshot{Synced: true, Objects: []mirror.Object{a, b}}}
	e := newExternal(t, repo, src)
	mg := newMirror()
	if _, err := e.Observe(context.Background(), mg); err != nil {
		t.Fatal(err)
	}
	m, ok := plan.ParseMarker(e.change.Puts["live/"+MarkerFile].Content)
	if !ok {
		t.Fatalf("the marker does not parse:\n%s", e.change.Puts["live/"+MarkerFile].Content)
	}
	want := plan.Marker{Mirror: plan.MarkerOwner{Namespace: "ns", Name: "m"}, Files: []string{a.Path, b.Path}}
	if diff := cmp.Diff(want, m); diff != "" {
		t.Errorf("marker: -want, +got:\n%s", diff)
	}
	_, err := e.Create(context.Background(), mg)
	if w, ok := managed.IsWaiting(err); !ok || w.Reason != ReasonCommitting {
		t.Errorf("Create: %v, want Waiting Committing", err)
	}
	if repo.enqueued == nil || len(repo.enqueued.Puts) != 3 || mg.Status.AtProvider.Pending != 3 {
		t.Errorf("Create enqueued %+v with pending %d, want the 3 puts Observe found", repo.enqueued, mg.Status.AtProvider.Pending)
	}
	if repo.enqueued.Resource.Kind != v1alpha1.MirrorKind || !strings.HasPrefix(repo.enqueued.Message, "Mirror ns/m") {
		t.Errorf("the change names %+v with message %q, want the Mirror", repo.enqueued.Resource, repo.enqueued.Message)
	}
}

// An object whose path inside this folder Git refuses (here: too long) is
// left out of the plan, not failing the rest, and Ready's note names it
// beside what the snapshot left out.
func TestPlanSaysWhatItLeavesOut(t *testing.T) {
	ok := object("a", "1")
	long := object("long", "2")
	long.Path = "ns/core/configmap/" + strings.Repeat("x", 1000) + ".yaml"
	snap := mirror.Snapshot{Synced: true, Objects: []mirror.Object{ok, long}, Skipped: []string{"Secrets (1 skipped): ns/s"}}
	e := newExternal(t, &fakeRepository{files: map[string]string{}}, &fakeSources{})
	d, err := e.plan(context.Background(), &planning{mg: newMirror(), head: head, folder: plan.Folder{Files: map[string]string{}, Owned: map[string]bool{}}, snap: snap}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"live/" + MarkerFile, "live/" + ok.Path}, slices.Sorted(maps.Keys(d.Puts))); diff != "" {
		t.Errorf("puts: -want, +got:\n%s", diff)
	}
	want := "The folder is up to date; left out: Secrets (1 skipped): ns/s; objects whose path in this folder Git refuses (1 skipped): ns/long"
	if diff := cmp.Diff(want, noteOf(snap, d.Skipped)); diff != "" {
		t.Errorf("note: -want, +got:\n%s", diff)
	}
	if got := noteOf(mirror.Snapshot{}, nil); got != "" {
		t.Errorf("nothing left out, yet the note is %q", got)
	}
}
