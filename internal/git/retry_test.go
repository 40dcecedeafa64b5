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
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// TestPushRetriesBackOff: changes, branch creation and branch deletion share
// one retry loop, so each waits a jittered, growing backoff before it pushes
// again after losing a race. The race is a ref lock held on the server
// (git's receive-pack answers "failed to lock", as when another push is
// updating the branch); the injected sleep records each wait instead of
// sleeping, and releases the lock at the second wait.
func TestPushRetriesBackOff(t *testing.T) {
	s := httpServer(t)
	s.repo.CreateBranch(t, "doomed", "main")
	main := s.repo.Head(t, "main")
	const base = 40 * time.Millisecond
	var mu sync.Mutex
	var waits []time.Duration
	var unlock func()
	r, _ := newRepo(t, s.remote, WithCommitWindow(time.Millisecond), func(o *Options) {
		o.MaxPushAttempts, o.RetryBackoff = 5, base
		o.sleep = func(_ context.Context, d time.Duration) error {
			mu.Lock()
			defer mu.Unlock()
			waits = append(waits, d)
			if len(waits) == 2 {
				unlock()
			}
			return nil
		}
	})
	type want struct {
		Waits int
		// Bounded: wait n (from 1) is at most base·2^(n-1).
		Bounded bool
		Head    string
	}
	cases := map[string]struct {
		reason string
		branch string
		do     func() Result
		want   want
	}{
		"Change": {
			reason: "A batch of changes backs off between pushes.",
			branch: "main",
			do: func() Result {
				return r.Submit(ctx(t), "main", Change{Puts: map[string]File{"retry.txt": {Content: []byte("r")}}})
			},
			want: want{Waits: 2, Bounded: true},
		},
		"CreateBranch": {
			reason: "Branch creation backs off like changes do (it used to retry at once).",
			branch: "created",
			do:     func() Result { return r.CreateBranch(ctx(t), "created", main) },
			want:   want{Waits: 2, Bounded: true, Head: main},
		},
		"DeleteBranch": {
			reason: "Branch deletion backs off like changes do.",
			branch: "doomed",
			do:     func() Result { return r.DeleteBranch(ctx(t), "doomed") },
			want:   want{Waits: 2, Bounded: true, Head: ""},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			lock := filepath.Join(s.repo.Dir, "refs", "heads", tc.branch+".lock")
			if err := os.WriteFile(lock, nil, 0o600); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = os.Remove(lock) })
			mu.Lock()
			waits, unlock = nil, func() { _ = os.Remove(lock) }
			mu.Unlock()

			res := tc.do()
			if res.Err != nil {
				t.Fatalf("%s\n%v", tc.reason, res.Err)
			}
			mu.Lock()
			got := want{Waits: len(waits), Bounded: true}
			for i, d := range waits {
				got.Bounded = got.Bounded && d >= 0 && d <= base<<i
			}
			mu.Unlock()
			got.Head = s.repo.Head(t, tc.branch)
			if name == "Change" {
				got.Head = "" // a new commit; only its arrival is checked
				if s.repo.Files(t, "main")["retry.txt"] != "r" {
					t.Errorf("%s\nthe change did not land", tc.reason)
				}
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("%s\nwaits %v: -want, +got:\n%s", tc.reason, waits, diff)
			}
		})
	}
}
