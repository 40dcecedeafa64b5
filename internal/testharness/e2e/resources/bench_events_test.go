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

package resources_test

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/http"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/crossplane-contrib/provider-git/internal/localenv"
	"github.com/crossplane-contrib/provider-git/internal/testharness/e2e"
	"github.com/crossplane-contrib/provider-git/internal/testharness/testenv"
)

// burstSecret signs the burst's deliveries.
const burstSecret = "burst-secret-of-at-least-16-bytes"

// BenchmarkForgeEventsBurst: 100 repositories, one File each, the provider
// polling every hour; a person's edit lands over every File, then 1,000
// signed push deliveries arrive within a minute, each repository's ten in
// one burst sent back to back, the bursts spread over the minute. Measured: deliveries
// answered (none may be refused or dropped), fetches and ref
// advertisements per repository (counted at the Git server: a burst
// coalesces into about one), the process's CPU over the minute, and that
// every edit was put back, which only a delivery can explain.
// BENCH_EVENT_REPOS and BENCH_EVENTS change the counts.
func BenchmarkForgeEventsBurst(b *testing.B) {
	repos, total := e2e.BenchN("BENCH_EVENT_REPOS", 100), e2e.BenchN("BENCH_EVENTS", 1000)
	for range b.N {
		bp := e2e.StartBenchProvider(b, e2e.BenchFlags{Rate: e2e.DefaultRate, Poll: time.Hour, Events: true})
		nss, paths := make([]string, repos), make([]string, repos)
		for i := range repos {
			nss[i] = e2e.BenchFixture(b, nil)
			createFiles(b, nss[i], 0, 1)
		}
		for i, ns := range nss {
			waitReady(b, ns, 1, 5*time.Minute)
			paths[i] = webhookPath(b, ns)
		}
		for _, ns := range nss {
			repo := testenv.BareRepo{BareRepo: localenv.BareRepo{Dir: filepath.Join(e2e.GitRoot, ns+".git")}}
			if _, err := repo.Commit("main", testenv.CommitSpec{Message: "a person's edit", Files: map[string]string{benchPath(0): "index: edited\n"}}); err != nil {
				b.Fatal(err)
			}
		}
		before := readsOf(nss)
		cpu0 := cpuTime(b)
		start := time.Now()
		answered, refused := burst(b, bp.EventsURL, nss, paths, total/repos, time.Minute)
		took := time.Since(start)
		cpu := cpuTime(b) - cpu0
		restored := putBack(b, nss, 2*time.Minute)
		after := readsOf(nss)
		var fetches, adverts, most int64
		for _, ns := range nss {
			d := after[ns].Fetches - before[ns].Fetches
			fetches, adverts, most = fetches+d, adverts+after[ns].Adverts-before[ns].Adverts, max(most, d)
		}
		fmt.Printf("\n%d push deliveries to %d repositories in %s (each repository's %d in one burst), polls an hour apart\n"+
			"| measure | value |\n|----|----|\n"+
			"| deliveries answered 2xx | %d of %d (refused: %d) |\n"+
			"| edits put back | %d of %d |\n"+
			"| fetches per repository | %.2f (most: %d; goal: about one per burst) |\n"+
			"| ref advertisements per repository | %.2f |\n"+
			"| CPU of the test process over the burst | %s (%.0f%% of one core) |\n",
			answered+refused, repos, took.Round(time.Millisecond), total/repos, answered, answered+refused, refused, restored, repos,
			float64(fetches)/float64(repos), most, float64(adverts)/float64(repos), cpu.Round(time.Millisecond), 100*cpu.Seconds()/took.Seconds())
		b.ReportMetric(float64(fetches)/float64(repos), "fetches/repo")
		b.ReportMetric(float64(refused), "refused")
		b.ReportMetric(cpu.Seconds(), "cpu-s")
		if refused > 0 || restored < repos {
			b.Errorf("%d deliveries refused, %d of %d edits put back: want none refused and all put back", refused, restored, repos)
		}
	}
}

// webhookPath gives ns's configuration the burst's webhook secret and
// returns its events path once published.
func webhookPath(b *testing.B, ns string) string {
	b.Helper()
	return e2e.SetWebhook(b, ns, "git-credentials", burstSecret, nil, e2e.EventsPublished).Status.Events.Path
}

// burst posts per deliveries to each repository, one after another as a
// forge's delivery queue sends a hook's, the repositories' bursts started
// evenly over span, and counts the answers.
func burst(b *testing.B, eventsURL string, nss, paths []string, per int, span time.Duration) (answered, refused int) {
	b.Helper()
	var ok, bad atomic.Int64
	var wg sync.WaitGroup
	gap := span / time.Duration(len(nss))
	for i, ns := range nss {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for k := range per {
				if deliver(eventsURL+paths[i], e2e.HTTPGit.RepoURL(ns+".git"), i*per+k) {
					ok.Add(1)
				} else {
					bad.Add(1)
				}
			}
		}()
		time.Sleep(gap) // the load's pacing over the minute, not a synchronisation
	}
	wg.Wait()
	return int(ok.Load()), int(bad.Load())
}

// deliver posts one push to main signed as Gitea signs it, and reports
// whether it was answered 2xx.
func deliver(url, cloneURL string, id int) bool {
	body := fmt.Sprintf(`{"ref":"refs/heads/main","after":"%040d","repository":{"clone_url":%q}}`, id, cloneURL)
	m := hmac.New(sha256.New, []byte(burstSecret))
	m.Write([]byte(body))
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		return false
	}
	req.Header.Set("X-Gitea-Event", "push")
	req.Header.Set("X-Gitea-Delivery", fmt.Sprintf("burst-%d", id))
	req.Header.Set("X-Gitea-Signature", hex.EncodeToString(m.Sum(nil)))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return false
	}
	_ = resp.Body.Close()
	return resp.StatusCode/100 == 2
}

// putBack waits until every repository's File is back on its remote, and
// returns how many were within timeout.
func putBack(b *testing.B, nss []string, timeout time.Duration) int {
	b.Helper()
	deadline := time.Now().Add(timeout)
	n := 0
	for _, ns := range nss {
		repo := testenv.BareRepo{BareRepo: localenv.BareRepo{Dir: filepath.Join(e2e.GitRoot, ns+".git")}}
		for repo.Files(b, "main")[benchPath(0)] != benchContent(0) && time.Now().Before(deadline) {
			time.Sleep(100 * time.Millisecond) // polling interval of a wait on a condition
		}
		if repo.Files(b, "main")[benchPath(0)] == benchContent(0) {
			n++
		}
	}
	return n
}

func readsOf(nss []string) map[string]localenv.RepoReads {
	out := map[string]localenv.RepoReads{}
	for _, ns := range nss {
		out[ns] = e2e.HTTPGit.ReadsOf(ns + ".git")
	}
	return out
}

// cpuTime is the process's user and system CPU so far.
func cpuTime(b *testing.B) time.Duration {
	b.Helper()
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
