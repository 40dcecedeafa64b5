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

package config

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/crossplane-contrib/provider-git/internal/git"
	ghfake "github.com/crossplane-contrib/provider-git/internal/testharness/forgetest/github"
	"github.com/crossplane-contrib/provider-git/internal/testharness/testenv"
)

// Sizes of BenchmarkCommitViaAPI: 50 files a batch, as issue 31 asks; six
// text batches within the pacer's burst of 20 requests (3 each), then ten
// past it, at its pace; one binary batch (a blob request per file), whose
// pace alone takes most of a minute.
const (
	benchFiles       = 50
	benchBurstCommit = 6
	benchTextCommits = 10
	benchBinCommits  = 1
)

// apiRow is one path's figures.
type apiRow struct {
	name     string
	commits  int
	requests int // content-creating API requests (POST and PATCH)
	wall     time.Duration
}

func (r apiRow) String() string {
	per := r.wall / time.Duration(r.commits)
	return fmt.Sprintf("| %s | %d | %.1f | %s | %.1f |", r.name, r.commits, float64(r.requests)/float64(r.commits),
		per.Round(time.Millisecond), time.Minute.Seconds()/per.Seconds())
}

// BenchmarkCommitViaAPI measures, side by side on one loopback Git server
// and the fake GitHub (whose Git data API writes into a real bare
// repository with the git CLI): batches of 50 files committed through
// GitHub's API (spec.commit.via API) against the same batches pushed.
// Per commit: GitHub's content-creating requests and wall time, and the
// commits a minute that makes, with the client's pace (20 at once, then
// 60 a minute: never over GitHub's 80). Loopback has no network latency:
// on github.com each request costs a round trip (~50–300 ms) more.
func BenchmarkCommitViaAPI(b *testing.B) {
	testenv.Integration(b)
	for range b.N {
		bed := newAPIBed(b, func(u string) string { return u })
		batch := func(i int, binary bool) git.Change {
			c := git.Change{Puts: map[string]git.File{}, Message: fmt.Sprintf("batch %d", i),
				Resource: git.Resource{Kind: "File", Namespace: "bench", Name: fmt.Sprintf("b%d", i), UID: fmt.Sprintf("uid-%d", i)}}
			for f := range benchFiles {
				content := []byte(fmt.Sprintf("name: app-%d\nreplicas: %d\n", f, i))
				if binary {
					content = append([]byte{0}, content...)
				}
				c.Puts[fmt.Sprintf("apps/app-%02d.yaml", f)] = git.File{Content: content}
			}
			return c
		}
		writes := func() int {
			return bed.gh.Count(func(r ghfake.Request) bool {
				return (r.Method == http.MethodPost || r.Method == http.MethodPatch) && strings.Contains(r.Path, "/git/")
			})
		}
		run := func(name string, repo *git.Repository, from, n int, binary bool) apiRow {
			before := writes()
			start := time.Now()
			for i := from; i < from+n; i++ {
				if res := repo.Submit(apiCtx(b), "main", batch(i, binary)); res.Err != nil {
					b.Fatal(res.Err)
				}
			}
			return apiRow{name: name, commits: n, requests: writes() - before, wall: time.Since(start)}
		}
		text, bin := benchBurstCommit+benchTextCommits, benchBurstCommit+benchTextCommits
		rows := []apiRow{
			run("push, text", bed.push, 0, text, false),
			run("API, text, within the burst", bed.api, 0, benchBurstCommit, false),
			run("API, text, paced", bed.api, benchBurstCommit, benchTextCommits, false),
			run("push, binary", bed.push, bin, benchBinCommits, true),
			run("API, binary, paced", bed.api, bin, benchBinCommits, true),
		}
		if !bed.gh.Verified(bed.repo.Head(b, "main")) {
			b.Error("the API's last commit is not Verified")
		}
		var tbl strings.Builder
		tbl.WriteString("\n| path | commits | API requests/commit | wall/commit | commits/min |\n|---|---|---|---|---|")
		for _, r := range rows {
			tbl.WriteString("\n" + r.String())
		}
		b.Log(tbl.String())
		b.ReportMetric(float64(rows[1].requests)/float64(rows[1].commits), "api-requests/commit")
		b.ReportMetric(rows[1].wall.Seconds()/float64(rows[1].commits), "api-s/commit")
		b.ReportMetric(rows[2].wall.Seconds()/float64(rows[2].commits), "api-paced-s/commit")
		b.ReportMetric(rows[0].wall.Seconds()/float64(rows[0].commits), "push-s/commit")
	}
}
