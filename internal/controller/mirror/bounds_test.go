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
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/crossplane-contrib/provider-git/apis/v1alpha1"
	"github.com/crossplane-contrib/provider-git/internal/encrypt"
	"github.com/crossplane-contrib/provider-git/internal/git"
	"github.com/crossplane-contrib/provider-git/internal/mirror"
	"github.com/crossplane-contrib/provider-git/internal/reconciler/managed"
	"github.com/crossplane-contrib/provider-git/internal/reconciler/spec"
	"github.com/crossplane-contrib/provider-git/internal/yamledit"
)

// boundedRepo is a fakeRepository that records the bound of every read: a
// read for parsing must never be unbounded, nor past yamledit.MaxFileBytes.
type boundedRepo struct {
	*fakeRepository
	mu      sync.Mutex
	unbound []string
}

func (r *boundedRepo) ReadFileMax(ctx context.Context, commit, p string, limit int64) (git.Blob, error) {
	if limit < 0 || limit > yamledit.MaxFileBytes {
		r.mu.Lock()
		r.unbound = append(r.unbound, fmt.Sprintf("%s (limit %d)", p, limit))
		r.mu.Unlock()
	}
	return r.fakeRepository.ReadFileMax(ctx, commit, p, limit)
}

// TestPlanFileTooLarge plans folders holding a file past
// yamledit.MaxFileBytes wherever the Mirror reads one to parse: it is
// never read whole, and the Mirror reports it as its own problem naming
// the path, its size and the bound, or replaces it where it owns it.
func TestPlanFileTooLarge(t *testing.T) {
	keys, s, _ := encryptedSecret(t)
	a := object("a", "1")
	huge := strings.Repeat("#", yamledit.MaxFileBytes+1)
	bound := func(p string) string {
		return (&git.TooLargeError{Path: p, Size: int64(len(huge)), Max: yamledit.MaxFileBytes}).Error()
	}
	inPlace := func(m *v1alpha1.Mirror) { m.Spec.ForProvider.Layout = v1alpha1.MirrorLayoutInPlace }
	type want struct {
		stalled string
		message string // the error's text contains it
		puts    []string
	}
	cases := map[string]struct {
		reason string
		mg     *v1alpha1.Mirror
		files  map[string]string
		objs   []mirror.Object
		want   want
	}{
		"ForeignFileAtPath": {
			reason: "A file the Mirror does not own at an object's path, past the bound, is someone else's: PathConflict naming path, size and bound.",
			mg:     newMirror(), objs: []mirror.Object{a},
			files: map[string]string{"live/" + a.Path: huge},
			want:  want{stalled: string(spec.ReasonPathConflict), message: bound("live/" + a.Path)},
		},
		"Marker": {
			reason: "A marker past the bound is not one (someone else wrote it): the folder is planned as unclaimed, its file written.",
			mg:     newMirror(), objs: []mirror.Object{a},
			files: map[string]string{"live/" + MarkerFile: huge},
			want:  want{puts: []string{"live/" + MarkerFile, "live/" + a.Path}},
		},
		"ForeignSecretFile": {
			reason: "A Secret's file the Mirror does not own, past the bound, is someone else's: PathConflict naming path, size and bound.",
			mg:     newMirror(), objs: []mirror.Object{s},
			files: map[string]string{"live/" + s.Path: huge},
			want:  want{stalled: string(spec.ReasonPathConflict), message: bound("live/" + s.Path)},
		},
		"OwnedSecretFile": {
			reason: "An owned Secret's file past the bound cannot hold the Secret: it is encrypted afresh and replaced.",
			mg:     newMirror(), objs: []mirror.Object{s},
			files: map[string]string{"live/" + s.Path: huge, "live/" + MarkerFile: markerOf("ns/m", s.Path)},
			want:  want{puts: []string{"live/" + s.Path}},
		},
		"InPlaceFile": {
			reason: "A YAML file of an InPlace folder past the bound stalls the Mirror as UnsupportedLayout naming the file by its path in the repository, its size and the bound.",
			mg:     newMirror(inPlace), objs: []mirror.Object{a},
			files: map[string]string{"live/big.yaml": huge},
			want:  want{stalled: string(ReasonUnsupportedLayout), message: "live/big.yaml uses a file past the bounds of what this provider reads (" + bound("live/big.yaml") + ")"},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			repo := &boundedRepo{fakeRepository: &fakeRepository{files: tc.files}}
			e := &external{repo: repo, keys: keys, sealer: encrypt.NewSealer(0), memo: newSealedFiles()}
			f, err := e.read(t.Context(), tc.mg, head)
			if err != nil {
				t.Fatal(err)
			}
			d, err := e.plan(context.Background(), &planning{mg: tc.mg, head: head, folder: f, snap: mirror.Snapshot{Synced: true, Objects: tc.objs}}, nil)
			var got want
			if reason, ok := managed.StalledReason(err); ok {
				got.stalled = string(reason)
			} else if err != nil {
				t.Fatalf("%s\nplan: %v", tc.reason, err)
			}
			if err != nil && strings.Contains(err.Error(), tc.want.message) {
				got.message = tc.want.message
			} else if err != nil {
				got.message = err.Error()
			}
			for p := range d.Puts {
				got.puts = append(got.puts, p)
			}
			if diff := cmp.Diff(tc.want, got, cmp.AllowUnexported(want{}), cmpopts.SortSlices(func(a, b string) bool { return a < b }), cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("%s\nplan: -want, +got:\n%s", tc.reason, diff)
			}
			if len(repo.unbound) > 0 {
				t.Errorf("%s\nreads not bounded by yamledit.MaxFileBytes: %v", tc.reason, repo.unbound)
			}
		})
	}
}
