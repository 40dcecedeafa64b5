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
	"context"
	"fmt"
	"testing"
	"time"

	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/crossplane-contrib/provider-git/apis/v1alpha1"
	"github.com/crossplane-contrib/provider-git/internal/testharness/e2e"
	"github.com/crossplane-contrib/provider-git/internal/testharness/e2e/sharing"
)

// TestStaticShards: two provider processes with disjoint
// --watch-label-selector split the resources of one branch between them.
// Each publishes (so saw and reconciled) exactly its own shard's Files and
// configuration, never the other's; both push to the one branch, racing,
// and rebase-and-retry keeps every change: each File in one commit, nothing
// lost, the history linear (never forced).
func TestStaticShards(t *testing.T) {
	const perShard = 40
	kubeconfig := e2e.KubeconfigFile(t)
	f := e2e.NewFixture(t)
	base := &v1alpha1.ProviderConfig{}
	if err := e2e.CP.Client.Get(context.Background(), client.ObjectKey{Namespace: f.Namespace, Name: "git"}, base); err != nil {
		t.Fatal(err)
	}
	shards := []string{"a", "b"}
	for _, s := range shards {
		pc := &v1alpha1.ProviderConfig{
			ObjectMeta: metav1.ObjectMeta{Namespace: f.Namespace, Name: "git-" + s, Labels: map[string]string{"shard": s}},
			Spec:       *base.Spec.DeepCopy(),
		}
		pc.Spec.Commit.Window = &metav1.Duration{Duration: e2e.Window}
		e2e.Create(t, pc)
	}
	rs := map[string]*e2e.Replica{}
	for _, s := range shards {
		rs[s] = e2e.StartReplica(t, kubeconfig, "shard-"+s, "--watch-label-selector=shard="+s)
	}
	byShard := map[string][]*v1alpha1.File{}
	for i := range perShard {
		for _, s := range shards {
			fl := e2e.NewFile(f, fmt.Sprintf("%s-%03d", s, i), fmt.Sprintf("apps/%s-%03d.yaml", s, i), fmt.Sprintf("%s: %d\n", s, i))
			fl.Labels = map[string]string{"shard": s}
			fl.Spec.ProviderConfigReference = &xpv2.ProviderConfigReference{Kind: "ProviderConfig", Name: "git-" + s}
			e2e.Create(t, fl)
			byShard[s] = append(byShard[s], fl)
		}
	}
	sharing.AllReady(t, []*e2e.Fixture{f}, 3*time.Minute)

	lost, dup := sharing.ExactlyOnce(t, map[*e2e.Fixture][]*v1alpha1.File{f: append(append([]*v1alpha1.File(nil), byShard["a"]...), byShard["b"]...)})
	for _, s := range shards {
		r := rs[s]
		// The condition metrics count the objects a process reconciled
		// and published: its shard's Files and configuration alone.
		files := r.MustMetric(t, "provider_git_resources", `kind="File"`, `type="Ready"`, `status="True"`)
		configs := r.MustMetric(t, "provider_git_resources", `kind="ProviderConfig"`, `type="Ready"`, `status="True"`)
		if files != perShard || configs != 1 {
			t.Errorf("%s publishes %v Ready Files and %v ProviderConfigs, want its own %d and 1", r, files, configs, perShard)
		}
	}
	pushes := sharing.PushesTo(f, e2e.HTTPGit.Pushes())
	by := map[string]int{}
	for _, p := range pushes {
		by[p.UserAgent]++
	}
	for _, s := range shards {
		if by[rs[s].UserAgent()] == 0 {
			t.Errorf("%s pushed nothing: pushes by agent %v", rs[s], by)
		}
	}
	if len(by) != 2 {
		t.Errorf("pushes by agent %v, want the two shards only", by)
	}
	// Linear: every commit has at most one parent, so no push replaced
	// another's (a forced push would have lost commits exactlyOnce counts).
	if merges := f.GitOut(t, "rev-list", "--merges", "--count", "main"); merges != "0" {
		t.Errorf("%s merge commits on main, want 0", merges)
	}
	t.Logf("FIGURE static-shards files=%d pushes=%v commits=%d lost=%d duplicated=%d", 2*perShard, by, len(f.Repo.Log(t, "main")), lost, dup)
}
