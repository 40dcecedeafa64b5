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
	once sync.Once
	g    *Gitea
	dir  string
	stop func()
	err  error
}

// Get returns the package's Gitea, started by the first call. It skips tb
// as StartGitea does (-short, no ./bin/gitea outside CI), and fails every
// test that asks if the start failed. opts configure the start: the first
// call's count, later ones are ignored.
func (s *SharedGitea) Get(tb testing.TB, opts ...GiteaOption) *Gitea {
	tb.Helper()
	bin := giteaBin(tb)
	s.once.Do(func() {
		cfg := giteaConfig{}
		for _, o := range opts {
			o(&cfg)
		}
		if s.dir, s.err = os.MkdirTemp("", "gitea-"); s.err != nil {
			return
		}
		if s.g, s.stop, s.err = startGitea(bin, s.dir, cfg); s.err == nil {
			tb.Log(s.g.startLine() + ", shared by the package's tests")
		}
	})
	if s.err != nil {
		tb.Fatal(s.err)
	}
	return s.g
}

// Stop stops the Gitea Get started, if any, and removes its directory.
func (s *SharedGitea) Stop() {
	if s.stop != nil {
		s.stop()
	}
	if s.dir != "" {
		_ = os.RemoveAll(s.dir)
	}
}
