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
	"bytes"
	"context"
	"fmt"
	"sync"
	"testing"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/google/go-cmp/cmp"
	"github.com/prometheus/client_golang/prometheus/testutil"
)

// recordingAPI is a CommitAPI that records its calls, stores blobs as Git
// would name them, and answers every tree with tree (a SHA of its choosing).
type recordingAPI struct {
	tree string

	mu    sync.Mutex
	calls []string
}

func (a *recordingAPI) record(c string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.calls = append(a.calls, c)
}

func (a *recordingAPI) CreateBlob(_ context.Context, content []byte) (string, error) {
	a.record("blob")
	return plumbing.ComputeHash(plumbing.BlobObject, content).String(), nil
}

func (a *recordingAPI) CreateTree(context.Context, string, []APIEntry) (string, error) {
	a.record("tree")
	return a.tree, nil
}

func (a *recordingAPI) CreateCommit(context.Context, APICommit) (string, error) {
	a.record("commit")
	return "", fmt.Errorf("no commit expected")
}

func (a *recordingAPI) UpdateRef(context.Context, string, string) (bool, error) {
	a.record("ref")
	return false, fmt.Errorf("no ref update expected")
}

// TestAPIFallsBack: a batch the API would serve badly, or whose tree the
// API builds otherwise than the clone, is pushed instead, counted by
// reason, with no commit or ref update sent to the API.
func TestAPIFallsBack(t *testing.T) {
	binary := func(n, size int) Change {
		c := Change{Puts: map[string]File{}, Message: "binary", Resource: Resource{Kind: "File", Namespace: "ns", Name: "b", UID: "uid-b"}}
		for i := range n {
			c.Puts[fmt.Sprintf("bin/%03d", i)] = File{Content: append([]byte{0, byte(i)}, bytes.Repeat([]byte("x"), size)...)}
		}
		return c
	}
	cases := map[string]struct {
		reason string
		change Change
		calls  []string
		want   string // the fallback's reason label
	}{
		"Requests": {
			reason: "59 binary files need 59 blobs, a tree, a commit and a ref update: 62 requests, over a minute's pace.",
			change: binary(APIMaxRequests-1, 1),
			want:   fallbackRequests,
		},
		"Bytes": {
			reason: "Over 4 MiB of content goes in one pack, not in JSON.",
			change: binary(1, APIMaxBytes),
			want:   fallbackBytes,
		},
		"Files": {
			reason: "Over 100 paths is more than one tree request serves well.",
			change: func() Change {
				c := putChange("many/0", "0")
				for i := range APIMaxFiles {
					c.Puts[fmt.Sprintf("many/%d", i+1)] = File{Content: []byte("x")}
				}
				return c
			}(),
			want: fallbackFiles,
		},
		"TreeDiffers": {
			reason: "A tree the API builds otherwise than the push path would is never committed.",
			change: putChange("apps/d.yaml", "d: 1\n"),
			calls:  []string{"tree"},
			want:   fallbackDiffers,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			s := httpServer(t)
			m := NewMetrics()
			r, _ := newRepo(t, s.remote, WithMetrics(m), WithCommitWindow(0))
			api := &recordingAPI{tree: plumbing.ComputeHash(plumbing.TreeObject, []byte("not the tree")).String()}
			r.api = api
			res := r.Submit(ctx(t), "main", tc.change)
			if res.Err != nil {
				t.Fatal(res.Err)
			}
			if head := s.repo.Head(t, "main"); head != res.Commit {
				t.Errorf("%s\nthe branch is at %s, the result names %s: want the pushed commit", tc.reason, head, res.Commit)
			}
			if diff := cmp.Diff(tc.calls, api.calls); diff != "" {
				t.Errorf("%s\nAPI calls: -want, +got:\n%s", tc.reason, diff)
			}
			if got := testutil.ToFloat64(m.apiFallbacks.WithLabelValues(r.conn.host, tc.want)); got != 1 {
				t.Errorf("%s\nprovider_git_api_fallbacks_total{reason=%q} = %v, want 1", tc.reason, tc.want, got)
			}
		})
	}
}
