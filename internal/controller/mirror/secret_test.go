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

	"bytes"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/crossplane-contrib/provider-git/internal/encrypt"
	"github.com/crossplane-contrib/provider-git/internal/mirror"
	"github.com/crossplane-contrib/provider-git/internal/mirror/plan"
	"github.com/crossplane-contrib/provider-git/internal/reconciler/managed"
	"github.com/crossplane-contrib/provider-git/internal/reconciler/spec"
)

const secretValue = "c3VwZXJzZWNyZXQ=" // base64 of a value that must never reach Git

var secretGVK = schema.GroupVersionKind{Version: "v1", Kind: "Secret"}

func secretObject() mirror.Object {
	return mirror.Object{
		Path: mirror.Path(secretGVK, "ns", "db"), GVK: secretGVK, Namespace: "ns", Name: "db", Secret: true,
		Content: []byte("apiVersion: v1\nkind: Secret\nmetadata:\n  name: db\n  namespace: ns\ndata:\n  password: " + secretValue + "\n"),
	}
}

// newKeys is a fresh age identity's keys, to encrypt Secrets to and read
// them back.
func newKeys(tb testing.TB) *encrypt.Keys {
	tb.Helper()
	id, _, err := encrypt.GenerateIdentity()
	if err != nil {
		tb.Fatal(err)
	}
	keys, err := encrypt.NewKeys(id)
	if err != nil {
		tb.Fatal(err)
	}
	return keys
}

// encryptedSecret is secretObject, keys to encrypt it to, and the file an
// earlier encryption of it left in the folder.
func encryptedSecret(t *testing.T) (*encrypt.Keys, mirror.Object, []byte) {
	t.Helper()
	keys := newKeys(t)
	s := secretObject()
	earlier, err := encrypt.Encrypt(keys, s.Content)
	if err != nil {
		t.Fatal(err)
	}
	return keys, s, earlier
}

// markerLists reports whether the marker lists path once d lands: the
// marker d writes, or else the one the folder (files) holds.
func markerLists(d plan.Diff, files map[string]string, path string) bool {
	if m, ok := d.Puts["live/"+MarkerFile]; ok {
		return bytes.Contains(m.Content, []byte(path))
	}
	return bytes.Contains([]byte(files["live/"+MarkerFile]), []byte(path))
}

// TestPlanSecrets checks how plan writes a Secret: encrypted, compared by
// what the file decrypts to, adopted only when the file is that Secret, and
// never at all without keys.
func TestPlanSecrets(t *testing.T) {
	keys, s, earlier := encryptedSecret(t)
	full := "live/" + s.Path
	owned := markerOf("ns/m", s.Path)
	snap := mirror.Snapshot{Synced: true, Objects: []mirror.Object{s}}

	type want struct {
		stalled   bool
		sealedPut bool // the Secret's file is written, encrypted
		owned     bool // the marker lists it
	}
	cases := map[string]struct {
		reason string
		keys   *encrypt.Keys
		files  map[string]string
		want   want
	}{
		"Missing": {
			reason: "A Secret with no file is written encrypted.",
			keys:   keys, files: map[string]string{},
			want: want{sealedPut: true, owned: true},
		},
		"Unchanged": {
			reason: "A file that decrypts to the Secret is not written again, though another encryption's bytes differ.",
			keys:   keys, files: map[string]string{full: string(earlier), "live/" + MarkerFile: owned},
			want: want{owned: true},
		},
		"AdoptEncryptedSameSecret": {
			reason: "A file the Mirror does not own that is that very Secret, encrypted, is adopted as it is.",
			keys:   keys, files: map[string]string{full: string(earlier)},
			want: want{owned: true},
		},
		"ForeignFile": {
			reason: "A file the Mirror does not own that is not that Secret is someone else's.",
			keys:   keys, files: map[string]string{full: "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: db\n  namespace: ns\n"},
			want: want{stalled: true},
		},
		"NoKeys": {
			reason: "Without keys a Secret is never written, even if a snapshot held one.",
			files:  map[string]string{},
			want:   want{},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			repo := &fakeRepository{files: tc.files}
			e := &external{repo: repo, keys: tc.keys, sealer: encrypt.NewSealer(0)}
			mg := newMirror()
			f, err := e.read(t.Context(), mg, head)
			if err != nil {
				t.Fatal(err)
			}
			d, err := e.plan(context.Background(), &planning{mg: mg, head: head, folder: f, snap: snap}, nil)
			reason, stalled := managed.StalledReason(err)
			if stalled && reason != spec.ReasonPathConflict {
				t.Errorf("%s\nplan: stalled %s, want PathConflict", tc.reason, reason)
			}
			if !stalled && err != nil {
				t.Fatal(err)
			}
			put, ok := d.Puts[full]
			got := want{stalled: stalled, sealedPut: ok && encrypt.IsEncrypted(put.Content)}
			if !stalled {
				got.owned = markerLists(d, tc.files, s.Path)
			}
			if diff := cmp.Diff(tc.want, got, cmp.AllowUnexported(want{})); diff != "" {
				t.Errorf("%s\nplan: -want, +got:\n%s", tc.reason, diff)
			}
			for p, fl := range d.Puts {
				if bytes.Contains(fl.Content, []byte(secretValue)) {
					t.Errorf("%s\n%s holds the Secret's value in plain text", tc.reason, p)
				}
			}
			if _, ok := d.Puts[full]; ok && !encrypt.IsEncrypted(d.Puts[full].Content) {
				t.Errorf("%s\nthe Secret's file is not a SOPS document", tc.reason)
			}
		})
	}
}
