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
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/crossplane-contrib/provider-git/internal/testharness/testenv"
)

// moveLog records the HeadMoves a cache tells.
type moveLog struct {
	mu    sync.Mutex
	moves []HeadMove
}

func (l *moveLog) add(m HeadMove) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.moves = append(l.moves, m)
}

// take returns what was told since the last take.
func (l *moveLog) take() []HeadMove {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := l.moves
	l.moves = nil
	return out
}

// TestHeadMoves: every change of a head in the clone is told, whoever made
// it: a branch appearing in a fetch, a push of this process (a change, a
// branch created, a branch deleted), and a commit someone else pushed once
// a fetch brings it; a fetch that moves nothing tells nothing.
func TestHeadMoves(t *testing.T) {
	t.Parallel()
	s := httpServer(t)
	r, c := newRepo(t, s.remote)
	log := &moveLog{}
	c.OnHeadMove(log.add)
	main := s.repo.Head(t, "main")
	id := r.ID()

	steps := []struct {
		reason string
		do     func(t *testing.T) (want []HeadMove)
	}{
		{
			reason: "The first fetch brings main: it appears.",
			do: func(t *testing.T) []HeadMove {
				if err := r.Refresh(ctx(t), 0, "main"); err != nil {
					t.Fatal(err)
				}
				return []HeadMove{{Repo: id, Branch: "main", New: main}}
			},
		},
		{
			reason: "A fetch that finds nothing moved tells nothing.",
			do: func(t *testing.T) []HeadMove {
				if err := r.Refresh(ctx(t), 0, "main"); err != nil {
					t.Fatal(err)
				}
				return nil
			},
		},
		{
			reason: "A branch this process creates is told with its head.",
			do: func(t *testing.T) []HeadMove {
				if res := r.CreateBranch(ctx(t), "feature", "main"); res.Err != nil {
					t.Fatal(res.Err)
				}
				return []HeadMove{{Repo: id, Branch: "feature", New: main}}
			},
		},
		{
			reason: "A change this process pushes moves the branch from its old head to the commit.",
			do: func(t *testing.T) []HeadMove {
				res := r.Submit(ctx(t), "feature", Change{Puts: map[string]File{"f.txt": {Content: []byte("f")}}})
				if res.Err != nil {
					t.Fatal(res.Err)
				}
				return []HeadMove{{Repo: id, Branch: "feature", Old: main, New: res.Commit}}
			},
		},
		{
			reason: "A commit someone else pushed is told once a fetch brings it, and only then.",
			do: func(t *testing.T) []HeadMove {
				if _, err := s.repo.Commit("main", testenv.CommitSpec{Message: "by hand", Files: map[string]string{"h.txt": "h"}}); err != nil {
					t.Fatal(err)
				}
				if got := log.take(); len(got) != 0 {
					t.Errorf("before a fetch: told %+v, want nothing", got)
				}
				if err := r.Refresh(ctx(t), 0, "main"); err != nil {
					t.Fatal(err)
				}
				return []HeadMove{{Repo: id, Branch: "main", Old: main, New: s.repo.Head(t, "main")}}
			},
		},
		{
			reason: "A branch this process deletes goes: New is empty.",
			do: func(t *testing.T) []HeadMove {
				was := s.repo.Head(t, "feature")
				if res := r.DeleteBranch(ctx(t), "feature"); res.Err != nil {
					t.Fatal(res.Err)
				}
				return []HeadMove{{Repo: id, Branch: "feature", Old: was}}
			},
		},
	}
	for _, st := range steps {
		want := st.do(t)
		if diff := cmp.Diff(want, log.take()); diff != "" {
			t.Errorf("%s\nHeadMoves: -want, +got:\n%s", st.reason, diff)
		}
	}
}
