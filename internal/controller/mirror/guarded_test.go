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

	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/crossplane-contrib/provider-git/apis/v1alpha1"
	"github.com/crossplane-contrib/provider-git/internal/encrypt"
	"github.com/crossplane-contrib/provider-git/internal/mirror"
)

// TestPlanGuardedSecret: a Secret a configuration reads is never in the
// folder. Its file, owned from before it became a configuration's Secret,
// is removed whatever prune says: prune is about objects that no longer
// exist, and this one exists but must stay out of Git, even encrypted. A
// file the Mirror does not own is not its to remove.
func TestPlanGuardedSecret(t *testing.T) {
	keys, s, earlier := encryptedSecret(t)
	full, mk := "live/"+s.Path, "live/"+MarkerFile
	snap := mirror.Snapshot{Synced: true, Objects: []mirror.Object{s}}
	type want struct {
		deletes []string
		owned   bool // the marker lists the Secret's file afterwards
	}
	cases := map[string]struct {
		reason string
		prune  v1alpha1.MirrorPrune
		files  map[string]string
		want   want
	}{
		"OwnedOnDelete": {
			reason: "An owned file of a guarded Secret is removed, and the marker no longer lists it.",
			prune:  v1alpha1.MirrorPruneOnDelete,
			files:  map[string]string{full: string(earlier), mk: markerOf("ns/m", s.Path)},
			want:   want{deletes: []string{full}},
		},
		"OwnedPruneNever": {
			reason: "prune Never keeps the files of objects gone; a guarded Secret is not gone, and its file goes.",
			prune:  v1alpha1.MirrorPruneNever,
			files:  map[string]string{full: string(earlier), mk: markerOf("ns/m", s.Path)},
			want:   want{deletes: []string{full}},
		},
		"NotOwned": {
			reason: "A file at the Secret's path the Mirror does not own is someone else's: it stays, and is not adopted.",
			prune:  v1alpha1.MirrorPruneNever,
			files:  map[string]string{full: string(earlier)},
			want:   want{},
		},
		"NoFile": {
			reason: "A guarded Secret with no file is not written.",
			prune:  v1alpha1.MirrorPruneOnDelete,
			files:  map[string]string{},
			want:   want{},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			e := &external{repo: &fakeRepository{files: tc.files}, keys: keys, sealer: encrypt.NewSealer(0)}
			mg := newMirror(func(m *v1alpha1.Mirror) { m.Spec.ForProvider.Prune = tc.prune })
			f, err := e.read(t.Context(), mg, head)
			if err != nil {
				t.Fatal(err)
			}
			d, err := e.plan(context.Background(), &planning{mg: mg, head: head, folder: f, snap: snap, guarded: map[string]bool{s.Path: true}}, nil)
			if err != nil {
				t.Fatalf("%s\nplan: %v", tc.reason, err)
			}
			got := want{deletes: d.Deletes, owned: markerLists(d, tc.files, s.Path)}
			if diff := cmp.Diff(tc.want, got, cmp.AllowUnexported(want{}), cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("%s\nplan: -want, +got:\n%s", tc.reason, diff)
			}
			if _, ok := d.Puts[full]; ok {
				t.Errorf("%s\nplan writes the guarded Secret's file", tc.reason)
			}
			if diff := cmp.Diff([]string{s.NamespacedName()}, d.Guarded); diff != "" {
				t.Errorf("%s\nguarded Secrets named in Ready: -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}
