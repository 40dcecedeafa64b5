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

package shards_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/crossplane-contrib/provider-git/internal/testharness/e2e"
	"github.com/crossplane-contrib/provider-git/internal/testharness/e2e/sharing"
	"github.com/crossplane-contrib/provider-git/internal/testharness/testenv"
)

// TestShareThree: three replicas share the repositories: each repository
// is pushed by exactly one process (the Git server's log), the one its
// ProviderConfig names as writer; every File lands in one commit; the
// replicas' counts of repositories held add up to all of them.
func TestShareThree(t *testing.T) {
	nRepos, nFiles := sharing.Scale(sharing.DefaultRepos, sharing.DefaultFiles)
	kubeconfig := e2e.KubeconfigFile(t)
	ns := sharing.Namespace(t)
	fx := sharing.Repos(t, nRepos)
	rs := sharing.StartShared(t, kubeconfig, ns, 3)

	start := time.Now()
	byRepo := sharing.Files(t, fx, nFiles, "f")
	sharing.AllReady(t, fx, 5*time.Minute)
	converge := time.Since(start)
	lost, dup := sharing.ExactlyOnce(t, byRepo)

	all := sharing.OfRepos(fx, e2e.HTTPGit.Pushes())
	sharing.NoOverlaps(t, all)
	hs := sharing.Holders(t, fx, all, time.Time{})
	held := map[string]int{}
	for f, ua := range hs {
		r := sharing.ReplicaOf(rs, ua)
		if r == nil {
			t.Errorf("%s pushed by %q, not one of the replicas", f.Repo.Name, ua)
			continue
		}
		held[r.Name]++
		testenv.Eventually(t, 30*time.Second, func() error {
			if w := sharing.WriterOf(t, f); w != r.Name {
				return fmt.Errorf("ProviderConfig of %s names writer %q, want %q", f.Repo.Name, w, r.Name)
			}
			return nil
		})
	}
	var figures []string
	var reconciles float64
	testenv.Eventually(t, 30*time.Second, func() error {
		figures, reconciles = figures[:0], 0
		for _, r := range rs {
			h, err := r.Metric("provider_git_share_repositories_held")
			if err != nil {
				return err
			}
			if int(h) != held[r.Name] {
				return fmt.Errorf("%s says it holds %v repositories, it pushed to %d", r, h, held[r.Name])
			}
			rec, err := r.Metric("controller_runtime_reconcile_total", `controller="managed/file"`)
			if err != nil {
				return err
			}
			reconciles += rec
			figures = append(figures, fmt.Sprintf("%s:repos=%d,file-reconciles=%.0f,view-changes=%d", r.Name, held[r.Name], rec, sharing.ViewChanges(t, r)))
		}
		return nil
	})
	t.Logf("FIGURE share-three repos=%d files=%d converge=%.1fs pushes=%d lost=%d duplicated=%d file-reconciles-per-file=%.2f %s",
		nRepos, nRepos*nFiles, converge.Seconds(), len(all), lost, dup, reconciles/float64(nRepos*nFiles), strings.Join(figures, " "))
}
