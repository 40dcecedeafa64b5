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
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/crossplane-contrib/provider-git/internal/testharness/testenv"
)

// BenchmarkPartsPush updates every one of 1,000 files of one folder in one
// push, as one commit (the baseline, a Batched Mirror's change) and as
// 1,000 commits (a change of 1,000 parts, a PerChange Mirror's), each on a
// fresh repository of its own on the local HTTP server, and reports the
// time to build the commits, the pack they make, and the time of the whole
// Submit (build, push, the server's indexing). What more commits cost is
// the trees: each commit carries a new 1,000-entry tree of the folder.
func BenchmarkPartsPush(b *testing.B) {
	const n = 1000
	content := func(i, v int) []byte {
		return []byte(fmt.Sprintf("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm-%05d\n  namespace: ns\ndata:\n  round: \"%d\"\n", i, v))
	}
	pathOf := func(i int) string { return fmt.Sprintf("live/ns/core/configmap/cm-%05d.yaml", i) }
	seed := map[string]string{}
	for i := range n {
		seed[pathOf(i)] = string(content(i, 0))
	}
	type row struct {
		name         string
		build, total time.Duration
		pack         int
	}
	for range b.N {
		var rows []row
		for _, perPart := range []bool{false, true} {
			root := b.TempDir()
			repo := testenv.NewBareRepo(b, root, "repo.git", map[string][]testenv.CommitSpec{"main": {{Message: "seed", Files: seed}}})
			s := testenv.NewHTTPServer(b, root, testUser, testToken)
			r, _ := newRepo(b, Remote{URL: s.RepoURL(repo.Name), Auth: &BasicAuth{Username: testUser, Password: testToken}}, WithCommitWindow(0))
			if err := r.Refresh(ctx(b), 0, "main"); err != nil {
				b.Fatal(err)
			}
			c := Change{Resource: Resource{Kind: "Mirror", Namespace: "ns", Name: "m"}, Message: "Mirror ns/m"}
			if perPart {
				for i := range n {
					c.Parts = append(c.Parts, Part{Puts: map[string]File{pathOf(i): {Content: content(i, 1)}}, Message: fmt.Sprintf("Update ConfigMap ns/cm-%05d", i)})
				}
			} else {
				c.Puts = map[string]File{}
				for i := range n {
					c.Puts[pathOf(i)] = File{Content: content(i, 1)}
				}
			}
			head, err := r.head("main")
			if err != nil {
				b.Fatal(err)
			}
			start := time.Now()
			p, err := r.writerFor("main").build(head, []*op{{kind: opChange, change: &c}})
			if err != nil {
				b.Fatal(err)
			}
			build := time.Since(start)
			start = time.Now()
			if res := r.Submit(ctx(b), "main", c); res.Err != nil {
				b.Fatal(res.Err)
			}
			name := "1 commit (baseline, this run)"
			if perPart {
				name = fmt.Sprintf("%d commits (one per part)", n)
			}
			rows = append(rows, row{name: name, build: build, total: time.Since(start), pack: len(p.pack)})
		}
		fmt.Fprintf(os.Stdout, "\n%d files of one folder updated in one push (local HTTP server)\n"+
			"| commits | build | pack | Submit (build + push + server) |\n|----|----|----|----|\n", n)
		for _, r := range rows {
			fmt.Fprintf(os.Stdout, "| %s | %s | %.1f MiB | %s |\n", r.name, r.build.Round(time.Millisecond), float64(r.pack)/(1<<20), r.total.Round(time.Millisecond))
		}
	}
}
