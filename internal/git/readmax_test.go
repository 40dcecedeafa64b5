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

package git

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/crossplane-contrib/provider-git/internal/testharness/testenv"
)

// TestReadFileMax reads files at, under and over a bound: one over it is
// refused with a *TooLargeError naming its path, size and the bound, and
// its content is never read (the Blob carries only its SHA and mode).
func TestReadFileMax(t *testing.T) {
	t.Parallel()
	big := strings.Repeat("x", 1000)
	root := t.TempDir()
	repo := testenv.NewBareRepo(t, root, "max.git", map[string][]testenv.CommitSpec{"main": {{Message: "seed", Files: map[string]string{
		"small.yaml": "a: 1\n",
		"big.yaml":   big,
	}}}})
	s := testenv.NewHTTPServer(t, root, testUser, testToken)
	r, _ := newRepo(t, Remote{URL: s.RepoURL(repo.Name), Auth: &BasicAuth{Username: testUser, Password: testToken}})
	if err := r.Refresh(ctx(t), time.Minute, "main"); err != nil {
		t.Fatalf("Refresh: %v", err)
	}
	head, err := r.Head("main")
	if err != nil {
		t.Fatal(err)
	}
	type want struct {
		blob Blob
		err  *TooLargeError
	}
	cases := map[string]struct {
		reason string
		path   string
		max    int64
		want   want
	}{
		"UnderTheBound": {
			reason: "A file smaller than the bound is read whole.",
			path:   "small.yaml", max: 100,
			want: want{blob: Blob{Content: []byte("a: 1\n"), SHA: hashObject(t, "a: 1\n")}},
		},
		"AtTheBound": {
			reason: "A file of exactly max bytes is read: the bound is the largest size read.",
			path:   "big.yaml", max: 1000,
			want: want{blob: Blob{Content: []byte(big), SHA: hashObject(t, big)}},
		},
		"OverTheBound": {
			reason: "A file of one byte more is refused before its content is read.",
			path:   "big.yaml", max: 999,
			want: want{blob: Blob{SHA: hashObject(t, big)}, err: &TooLargeError{Path: "big.yaml", Size: 1000, Max: 999}},
		},
		"NoBound": {
			reason: "A negative max reads any size, as ReadFile does.",
			path:   "big.yaml", max: -1,
			want: want{blob: Blob{Content: []byte(big), SHA: hashObject(t, big)}},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got, err := r.ReadFileMax(ctx(t), head, tc.path, tc.max)
			var tooLarge *TooLargeError
			if err != nil && !errors.As(err, &tooLarge) {
				t.Fatalf("%s\nReadFileMax(%s, %d): %v", tc.reason, tc.path, tc.max, err)
			}
			if diff := cmp.Diff(tc.want, want{blob: got, err: tooLarge}, cmp.AllowUnexported(want{})); diff != "" {
				t.Errorf("%s\nReadFileMax(%s, %d): -want, +got:\n%s", tc.reason, tc.path, tc.max, diff)
			}
		})
	}
	if _, err := r.ReadFileMax(ctx(t), head, "missing.yaml", 10); !errors.Is(err, ErrNotExist) {
		t.Errorf("ReadFileMax(missing) error = %v, want ErrNotExist", err)
	}
}

func TestTooLargeErrorNamesPathSizeAndBound(t *testing.T) {
	t.Parallel()
	got := (&TooLargeError{Path: "apps/huge.yaml", Size: 1 << 30, Max: 4 << 20}).Error()
	want := `file "apps/huge.yaml" is 1073741824 bytes, more than the 4194304 bytes this provider reads`
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Error(): -want, +got:\n%s", diff)
	}
}
