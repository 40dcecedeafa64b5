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
	"fmt"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/go-git/go-git/v5/plumbing/object"

	"github.com/crossplane-contrib/provider-git/internal/testharness/testenv"
)

// BenchmarkReadFileInLargeDirectory reads every file of a directory of
// 10,000 subdirectories once, as the Files of a restarted provider do, and
// prints the time per read next to a baseline measured in the same run:
// go-git's own lookup, which decodes every tree on the path from storage
// again on each read. BENCH_READ_FILES changes the count.
func BenchmarkReadFileInLargeDirectory(b *testing.B) {
	n := benchCount("BENCH_READ_FILES", 10000)
	files := make(map[string]string, n)
	for i := range n {
		files[readPath(i)] = fmt.Sprintf("index: %d\n", i)
	}
	root := b.TempDir()
	repo := testenv.NewBareRepo(b, root, "large.git", map[string][]testenv.CommitSpec{"main": {{Message: "seed", Files: files}}})
	s := testenv.NewHTTPServer(b, root, testUser, testToken)
	r, _ := newRepo(b, Remote{URL: s.RepoURL(repo.Name), Auth: &BasicAuth{Username: testUser, Password: testToken}})
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	if err := r.Refresh(ctx, 0, "main"); err != nil {
		b.Fatal(err)
	}
	head, err := r.Head("main")
	if err != nil {
		b.Fatal(err)
	}
	for range b.N {
		start := time.Now()
		for i := range n {
			if _, err := r.ReadFile(ctx, head, readPath(i)); err != nil {
				b.Fatal(err)
			}
		}
		ours := time.Since(start) / time.Duration(n)

		start = time.Now()
		for i := range n {
			if err := goGitRead(r, head, readPath(i)); err != nil {
				b.Fatal(err)
			}
		}
		baseline := time.Since(start) / time.Duration(n)
		fmt.Printf("\nReadFile of each of %d files in one directory, per read\n"+
			"| go-git lookup, trees decoded on every read (baseline) | ReadFile (this tree) |\n"+
			"|----|----|\n| %s | %s |\n", n, baseline.Round(time.Microsecond), ours.Round(time.Microsecond))
	}
}

func readPath(i int) string { return fmt.Sprintf("apps/app-%05d/config.yaml", i) }

// goGitRead reads p at commit as go-git does by itself.
func goGitRead(r *Repository, commit, p string) error {
	h, err := parseSHA(commit)
	if err != nil {
		return err
	}
	c, err := object.GetCommit(r.st, h)
	if err != nil {
		return err
	}
	f, err := c.File(p)
	if err != nil {
		return err
	}
	_, err = f.Contents()
	return err
}

// benchCount is the positive integer in the environment variable name, or def.
func benchCount(name string, def int) int {
	if v, err := strconv.Atoi(os.Getenv(name)); err == nil && v > 0 {
		return v
	}
	return def
}
