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

package testenv

import (
	"os"
	"sync"
	"testing"
)

// A SharedGitea is one Gitea for every test of a package, each test in
// repositories of its own: a start costs seconds (migrate, the admin, the
// web server up; 7 s on a loaded machine), paid once. The first test that
// asks starts it; the package's TestMain stops it once every test ran:
//
//	var forge testenv.SharedGitea
//
//	func TestMain(m *testing.M) {
//		code := e2e.Main(m)
//		forge.Stop()
//		os.Exit(code)
//	}
type SharedGitea struct {
	mu sync.Mutex
	// by is one forge per binary (GiteaBinary): Gitea, or Forgejo.
	by map[string]*sharedOne
}

type sharedOne struct {
	once sync.Once
	g    *Gitea
	dir  string
	stop func()
	err  error
}

// Get returns the package's Gitea (or the forge GiteaBinary names), started
// by the first call for that binary. It skips tb as StartGitea does
// (-short, no binary where it is not required), and fails every test that
// asks if the start failed. opts configure the start: the first call's
// count, later ones are ignored.
func (s *SharedGitea) Get(tb testing.TB, opts ...GiteaOption) *Gitea {
	tb.Helper()
	cfg := giteaConfig{binary: "gitea"}
	for _, o := range opts {
		o(&cfg)
	}
	bin := giteaBin(tb, cfg.binary)
	s.mu.Lock()
	if s.by == nil {
		s.by = map[string]*sharedOne{}
	}
	one := s.by[cfg.binary]
	if one == nil {
		one = &sharedOne{}
		s.by[cfg.binary] = one
	}
	s.mu.Unlock()
	one.once.Do(func() {
		if one.dir, one.err = os.MkdirTemp("", cfg.binary+"-"); one.err != nil {
			return
		}
		if one.g, one.stop, one.err = startGitea(bin, one.dir, cfg); one.err == nil {
			tb.Log(one.g.startLine() + ", shared by the package's tests")
		}
	})
	if one.err != nil {
		tb.Fatal(one.err)
	}
	return one.g
}

// Stop stops every forge Get started, and removes their directories.
func (s *SharedGitea) Stop() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, one := range s.by {
		if one.stop != nil {
			one.stop()
		}
		if one.dir != "" {
			_ = os.RemoveAll(one.dir)
		}
	}
}
