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

package crash_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"strconv"
	"testing"
	"time"

	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/crossplane-contrib/provider-git/apis/v1alpha1"
	"github.com/crossplane-contrib/provider-git/internal/testharness/e2e"
	"github.com/crossplane-contrib/provider-git/internal/testharness/testenv"
)

// TestFaultProviderKilled: the provider binary is killed with SIGKILL at
// random points of a burst of Files and CommitRequests, 12 times in a row
// (FAULT_KILLS), restarted each time alternately on its cache directory and
// on an empty one. Every change lands exactly once. Each life creates 25
// Files and a CommitRequest and re-observes all that came before, so the
// cost grows with the square of the kills: FAULT_KILLS=20 (500 Files) took
// 113 s and about 70 CPU-seconds of the API server alone.
func TestFaultProviderKilled(t *testing.T) {
	kills := e2e.BenchN("FAULT_KILLS", 12)
	nFiles, nCRs := 25*kills, kills
	seed := uint64(time.Now().UnixNano())
	if s := os.Getenv("FAULT_SEED"); s != "" {
		v, err := strconv.ParseUint(s, 10, 64)
		if err != nil {
			t.Fatal(err)
		}
		seed = v
	}
	t.Logf("FAULT_SEED=%d", seed)
	rnd := rand.New(rand.NewPCG(seed, 0))
	kubeconfig := e2e.KubeconfigFile(t)
	e2e.BuildProvider(t)
	f := e2e.NewFixture(t)
	e2e.SetWindow(t, f, e2e.Window)
	cache := t.TempDir()

	// The burst arrives in one wave per life, created while the provider
	// runs, and the kill comes after a random number of the wave's
	// creations: the provider is always killed at work (earlier Files of
	// the wave queued, committing or pushed but not yet recorded), however
	// fast it is, and what the wave did not create yet is created while it
	// is down.
	files := make([]*v1alpha1.File, nFiles)
	crs := make([]*v1alpha1.CommitRequest, nCRs)
	for i := range files {
		files[i] = e2e.NewFile(f, fmt.Sprintf("f-%03d", i), fmt.Sprintf("apps/f-%03d.yaml", i), fmt.Sprintf("i: %d\n", i))
	}
	for i := range crs {
		crs[i] = e2e.NewCommitRequest(f, fmt.Sprintf("cr-%02d", i), fmt.Sprintf("Release %d", i),
			v1alpha1.CommitFile{Path: fmt.Sprintf("releases/%02d.txt", i), Content: ptr.To(fmt.Sprintf("%d\n", i))})
	}
	perLife, crsPerLife := nFiles/kills, nCRs/kills

	posts0 := e2e.HTTPGit.Counts().ReceivePackPosts
	midBurst, pushedFirst := 0, 0
	for k := range kills {
		wave := make([]client.Object, 0, perLife+crsPerLife)
		for _, o := range crs[k*crsPerLife : (k+1)*crsPerLife] {
			wave = append(wave, o)
		}
		for _, o := range files[k*perLife : (k+1)*perLife] {
			wave = append(wave, o)
		}
		dir := cache
		if k%2 == 1 {
			dir = t.TempDir() // without its cache: a new pod, say
		}
		before := e2e.HTTPGit.Counts().ReceivePackPosts
		p := e2e.StartBinary(t, kubeconfig, dir)
		if k > 0 {
			// What the last wave left is waiting: let this life push some
			// of it first, so the kill finds it at work, not starting up.
			deadline := time.Now().Add(10 * time.Second)
			for e2e.HTTPGit.Counts().ReceivePackPosts == before && time.Now().Before(deadline) {
				time.Sleep(20 * time.Millisecond)
			}
			if e2e.HTTPGit.Counts().ReceivePackPosts > before {
				pushedFirst++
			}
		}
		killAfter := 1 + rnd.IntN(len(wave))
		for i, o := range wave {
			if i == killAfter {
				p.Kill()
				if pending := notReady(t, f.Namespace); pending > 0 {
					midBurst++
				}
			}
			e2e.Create(t, o)
		}
		if killAfter == len(wave) {
			p.Kill()
			if pending := notReady(t, f.Namespace); pending > 0 {
				midBurst++
			}
		}
	}

	start := time.Now()
	p := e2e.StartBinary(t, kubeconfig, cache)
	testenv.Eventually(t, 3*time.Minute, func() error {
		if n := notReady(t, f.Namespace); n > 0 {
			return fmt.Errorf("%d resources not Ready yet", n)
		}
		return nil
	})
	converge := time.Since(start)
	p.Kill()

	tree := f.Files(t, "main")
	counts := f.CommitCounts(t, "main")
	lost, dup := 0, 0
	check := func(kind, name, uid string, ok bool) {
		switch got := counts[uid]; {
		case got == 0 || !ok:
			lost++
			t.Errorf("%s %s is carried by %d commits (content in place: %t), want exactly 1", kind, name, got, ok)
		case got > 1:
			dup++
			t.Errorf("%s %s is carried by %d commits, want exactly 1", kind, name, got)
		}
	}
	for _, fl := range files {
		check("File", fl.Name, string(fl.UID), tree[fl.Spec.ForProvider.Path] == *fl.Spec.ForProvider.Content)
	}
	for _, cr := range crs {
		fc := cr.Spec.ForProvider.Files[0]
		check("CommitRequest", cr.Name, string(cr.UID), tree[fc.Path] == *fc.Content)
	}
	e2e.Figure(t, "provider-sigkill", e2e.HTTPGit.Counts().ReceivePackPosts-posts0, converge, lost, dup,
		fmt.Sprintf(" kills=%d kills-mid-burst=%d lives-that-pushed-before-their-kill=%d files=%d commitrequests=%d commits=%d", kills, midBurst, pushedFirst, nFiles, nCRs, len(f.Repo.Log(t, "main"))))
	if midBurst < kills/2 {
		t.Errorf("only %d of %d kills came while resources were still converging: the burst is too small to test anything", midBurst, kills)
	}
	if pushedFirst < (kills-1)/2 {
		t.Errorf("only %d of %d lives pushed before their kill: the kills came while the provider was starting, not at work", pushedFirst, kills-1)
	}
}

// notReady counts the Files and CommitRequests of ns that are not Ready.
func notReady(t *testing.T, ns string) int {
	t.Helper()
	ctx := context.Background()
	fl := &v1alpha1.FileList{}
	crl := &v1alpha1.CommitRequestList{}
	if err := e2e.CP.Client.List(ctx, fl, client.InNamespace(ns)); err != nil {
		t.Fatal(err)
	}
	if err := e2e.CP.Client.List(ctx, crl, client.InNamespace(ns)); err != nil {
		t.Fatal(err)
	}
	n := 0
	for i := range fl.Items {
		if fl.Items[i].GetCondition(xpv2.TypeReady).Status != corev1.ConditionTrue {
			n++
		}
	}
	for i := range crl.Items {
		if crl.Items[i].GetCondition(xpv2.TypeReady).Status != corev1.ConditionTrue {
			n++
		}
	}
	return n
}
