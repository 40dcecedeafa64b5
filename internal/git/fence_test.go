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
	"sync/atomic"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// fence holds the repositories it is told to, and records what it was asked.
type fence struct {
	held  atomic.Bool
	mu    sync.Mutex
	asked []string
}

func (f *fence) MayPush(key string) bool {
	f.mu.Lock()
	f.asked = append(f.asked, key)
	f.mu.Unlock()
	return f.held.Load()
}

// TestFence: a push the Fence withholds does not reach the server (the
// remote's head and the server's push log stay as they were) and fails
// transiently; once the repository is held again the same change lands.
// Every request carries the User-Agent the cache was given.
func TestFence(t *testing.T) {
	t.Parallel()
	s := httpServer(t)
	f := &fence{}
	r, _ := newRepo(t, s.remote, WithFence(f), WithUserAgent("provider-git/replica-a"))
	before := s.repo.Head(t, "main")

	res := r.Submit(ctx(t), "main", putChange("x", "1"))
	if KindOf(res.Err) != KindTransient {
		t.Fatalf("Submit while not held = %+v, want a transient error", res)
	}
	if got := s.repo.Head(t, "main"); got != before {
		t.Errorf("main moved to %s while the repository was not held", got)
	}
	if got := len(s.http.Pushes()); got != 0 {
		t.Errorf("%d pushes reached the server while the repository was not held, want 0", got)
	}

	f.held.Store(true)
	res = r.Submit(ctx(t), "main", putChange("x", "1"))
	if res.Err != nil {
		t.Fatalf("Submit while held: %v", res.Err)
	}
	if got := s.repo.Files(t, "main")["x"]; got != "1" {
		t.Errorf("x = %q once held, want 1", got)
	}
	pushes := s.http.Pushes()
	if len(pushes) != 1 || pushes[0].UserAgent != "provider-git/replica-a" || pushes[0].Repo != s.repo.Name {
		t.Errorf("pushes = %+v, want one to %s by provider-git/replica-a", pushes, s.repo.Name)
	}
	key, err := RepositoryKey(s.remote.URL)
	if err != nil {
		t.Fatal(err)
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if diff := cmp.Diff([]string{key, key}, f.asked); diff != "" {
		t.Errorf("the fence was asked: -want, +got:\n%s", diff)
	}
}
