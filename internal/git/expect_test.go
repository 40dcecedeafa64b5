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
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"

	"github.com/crossplane-contrib/provider-git/internal/testharness/testenv"
)

// TestExpectHoldsWhereTheCommitLands: a change's Expect is checked on the
// tree its commit is built on. The clone reads the branch, then someone
// else pushes (between), then the batch is submitted: it is built on the
// head the clone read, the push finds the branch moved, and the batch is
// rebuilt on the new head. There a change whose expectation no longer holds
// fails alone with a PreconditionError and the rest of the batch lands;
// nothing is left to timing, as the clone does not fetch before its first
// build.
func TestExpectHoldsWhereTheCommitLands(t *testing.T) {
	t.Parallel()
	const hand = "written by a person\n"
	put := func(name, path, content string, expect map[string]string) Change {
		return Change{Puts: map[string]File{path: {Content: []byte(content)}}, Expect: expect, Message: name,
			Resource: Resource{Kind: "Mirror", Namespace: "ns", Name: name}}
	}
	other := put("other", "other/y.txt", "y\n", nil)
	type want struct {
		// errs is each change's PreconditionError, nil where it must land
		// (or be up to date).
		errs []*PreconditionError
		// files are paths the server must hold afterwards, with their
		// content; "" where the path must not exist.
		files map[string]string
		// retried says whether the batch was rebuilt on a newer head.
		retried bool
	}
	cases := map[string]struct {
		reason string
		// between is pushed by someone else after the clone read the
		// branch; fetched says the clone fetched it before the batch, so
		// the first build already sees it.
		between map[string]string
		deletes []string
		fetched bool
		changes []Change
		want    want
	}{
		"NewPathTakenAfterRead": {
			reason:  "A file expected absent that a person pushed after the read is neither overwritten nor does it hold the others back.",
			between: map[string]string{"hand/x.txt": hand},
			changes: []Change{put("m", "hand/x.txt", "mine\n", map[string]string{"hand/x.txt": ""}), other},
			want: want{
				errs:    []*PreconditionError{{Path: "hand/x.txt", Have: BlobSHA([]byte(hand))}, nil},
				files:   map[string]string{"hand/x.txt": hand, "other/y.txt": "y\n"},
				retried: true,
			},
		},
		"AdoptedFileEditedAfterRead": {
			reason:  "A file adopted for what it held when read is not overwritten once it holds something else.",
			between: map[string]string{"apps/a.yaml": hand},
			changes: []Change{other, put("m", "apps/a.yaml", "a: 2\n", map[string]string{"apps/a.yaml": BlobSHA([]byte("a: 1\n"))})},
			want: want{
				errs:    []*PreconditionError{nil, {Path: "apps/a.yaml", Want: BlobSHA([]byte("a: 1\n")), Have: BlobSHA([]byte(hand))}},
				files:   map[string]string{"apps/a.yaml": hand, "other/y.txt": "y\n"},
				retried: true,
			},
		},
		"RecordWrittenAfterRead": {
			reason:  "An expected path the change writes nothing to (an ownership record) fails the change when it appears.",
			between: map[string]string{"live/.mirror.yaml": hand},
			changes: []Change{put("m", "live/a.yaml", "a\n", map[string]string{"live/a.yaml": "", "live/.mirror.yaml": ""}), other},
			want: want{
				errs:    []*PreconditionError{{Path: "live/.mirror.yaml", Have: BlobSHA([]byte(hand))}, nil},
				files:   map[string]string{"live/.mirror.yaml": hand, "live/a.yaml": "", "other/y.txt": "y\n"},
				retried: true,
			},
		},
		"DeletionWhoseRecordChanged": {
			reason:  "A deletion justified by a record read at the old head does not land once the record changed.",
			between: map[string]string{"apps/c.yaml": hand},
			changes: []Change{
				{Deletes: []string{"apps/b.yaml"}, Expect: map[string]string{"apps/c.yaml": BlobSHA([]byte("c: 1\n"))}, Message: "rm",
					Resource: Resource{Kind: "Mirror", Namespace: "ns", Name: "m"}},
				other,
			},
			want: want{
				errs:    []*PreconditionError{{Path: "apps/c.yaml", Want: BlobSHA([]byte("c: 1\n")), Have: BlobSHA([]byte(hand))}, nil},
				files:   map[string]string{"apps/b.yaml": "b: 1\n", "apps/c.yaml": hand, "other/y.txt": "y\n"},
				retried: true,
			},
		},
		"FileRemovedAfterRead": {
			reason:  "A file expected present that someone removed fails the change: what it decided on is gone.",
			deletes: []string{"apps/a.yaml"},
			changes: []Change{put("m", "apps/a.yaml", "a: 2\n", map[string]string{"apps/a.yaml": BlobSHA([]byte("a: 1\n"))}), other},
			want: want{
				errs:    []*PreconditionError{{Path: "apps/a.yaml", Want: BlobSHA([]byte("a: 1\n"))}, nil},
				files:   map[string]string{"apps/a.yaml": "", "other/y.txt": "y\n"},
				retried: true,
			},
		},
		"OwnCommitFailsAlone": {
			reason:  "A change in a commit of its own fails alone too; the changes around it keep their commits.",
			between: map[string]string{"hand/x.txt": hand},
			changes: []Change{
				other,
				func() Change {
					c := put("cr", "hand/x.txt", "mine\n", map[string]string{"hand/x.txt": ""})
					c.OwnCommit = true
					return c
				}(),
				put("z", "other/z.txt", "z\n", nil),
			},
			want: want{
				errs:    []*PreconditionError{nil, {Path: "hand/x.txt", Have: BlobSHA([]byte(hand))}, nil},
				files:   map[string]string{"hand/x.txt": hand, "other/y.txt": "y\n", "other/z.txt": "z\n"},
				retried: true,
			},
		},
		"AlreadyWhatItWrites": {
			reason:  "A path that meanwhile holds exactly what the change writes passes: the outcome is the same.",
			between: map[string]string{"hand/x.txt": "mine\n"},
			changes: []Change{put("m", "hand/x.txt", "mine\n", map[string]string{"hand/x.txt": ""}), other},
			want: want{
				errs:    []*PreconditionError{nil, nil},
				files:   map[string]string{"hand/x.txt": "mine\n", "other/y.txt": "y\n"},
				retried: true,
			},
		},
		"UnrelatedCommitBetween": {
			reason:  "Expectations that still hold on the new head let the change land after the rebase.",
			between: map[string]string{"unrelated/z.txt": "z\n"},
			changes: []Change{put("m", "hand/x.txt", "mine\n", map[string]string{"hand/x.txt": "", "apps/a.yaml": BlobSHA([]byte("a: 1\n"))}), other},
			want: want{
				errs:    []*PreconditionError{nil, nil},
				files:   map[string]string{"hand/x.txt": "mine\n", "unrelated/z.txt": "z\n", "other/y.txt": "y\n"},
				retried: true,
			},
		},
		"CheckedAtFirstBuild": {
			reason:  "The first build checks too: a clone that already fetched the person's file builds without the change.",
			between: map[string]string{"hand/x.txt": hand},
			fetched: true,
			changes: []Change{put("m", "hand/x.txt", "mine\n", map[string]string{"hand/x.txt": ""}), other},
			want: want{
				errs:  []*PreconditionError{{Path: "hand/x.txt", Have: BlobSHA([]byte(hand))}, nil},
				files: map[string]string{"hand/x.txt": hand, "other/y.txt": "y\n"},
			},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			s := httpServer(t)
			m := NewMetrics()
			reg := prometheus.NewRegistry()
			if err := m.Register(reg); err != nil {
				t.Fatal(err)
			}
			r := newWindowRepo(t, s.remote, time.Second, WithMetrics(m), func(o *Options) {
				// The retry needs no backoff here: nobody else is pushing.
				o.sleep = func(context.Context, time.Duration) error { return nil }
			})
			if err := r.Refresh(ctx(t), 0, "main"); err != nil {
				t.Fatal(err)
			}
			if _, err := s.repo.Commit("main", testenv.CommitSpec{Message: "by hand", Files: tc.between, Deletes: tc.deletes}); err != nil {
				t.Fatal(err)
			}
			if tc.fetched {
				if err := r.Refresh(ctx(t), 0, "main"); err != nil {
					t.Fatal(err)
				}
			}
			results := submitInOrder(t, r, "main", tc.changes)
			got := make([]*PreconditionError, len(results))
			for i, res := range results {
				var pe *PreconditionError
				switch {
				case errors.As(res.Err, &pe) && KindOf(res.Err) == KindPathConflict:
					got[i] = pe
				case res.Err != nil:
					t.Errorf("%s\nchange %d: unexpected error %v", tc.reason, i, res.Err)
				}
			}
			if diff := cmp.Diff(tc.want.errs, got); diff != "" {
				t.Errorf("%s\nprecondition errors: -want, +got:\n%s", tc.reason, diff)
			}
			files := s.repo.Files(t, "main")
			gotFiles := map[string]string{}
			for p := range tc.want.files {
				gotFiles[p] = files[p]
			}
			if diff := cmp.Diff(tc.want.files, gotFiles); diff != "" {
				t.Errorf("%s\nfiles on the server: -want, +got:\n%s", tc.reason, diff)
			}
			if got := retriesOf(t, reg) > 0; got != tc.want.retried {
				t.Errorf("%s\nbatch rebuilt on a newer head: got %v, want %v", tc.reason, got, tc.want.retried)
			}
		})
	}
}

// retriesOf reads provider_git_push_retries_total from reg.
func retriesOf(t *testing.T, reg *prometheus.Registry) float64 {
	t.Helper()
	return counterOf(t, reg, "provider_git_push_retries_total", "")
}

// counterOf sums the series of the counter name in reg, of those with
// result (any, when empty).
func counterOf(t *testing.T, reg *prometheus.Registry, name, result string) float64 {
	t.Helper()
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	sum := 0.0
	for _, mf := range mfs {
		if mf.GetName() != name {
			continue
		}
		for _, m := range mf.GetMetric() {
			if result == "" || slices.ContainsFunc(m.GetLabel(), func(l *dto.LabelPair) bool {
				return l.GetName() == "result" && l.GetValue() == result
			}) {
				sum += m.GetCounter().GetValue()
			}
		}
	}
	return sum
}

// TestPreconditionErrorNamesThePath: the message tells a person which path
// changed and how, as conditions show it.
func TestPreconditionErrorNamesThePath(t *testing.T) {
	t.Parallel()
	err := error(&Error{Kind: KindPathConflict, Err: &PreconditionError{Path: "live/a.yaml", Have: "abc"}})
	want := fmt.Sprintf("%q changed on the branch after the change was computed: expected no file, found blob abc", "live/a.yaml")
	if diff := cmp.Diff(want, err.Error()); diff != "" {
		t.Errorf("message: -want, +got:\n%s", diff)
	}
	if !IsTerminal(err) {
		t.Errorf("a precondition that failed needs a human, or a new plan: terminal")
	}
}
