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

package mirror_test

import (
	"context"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/crossplane-contrib/provider-git/apis/v1alpha1"
	"github.com/crossplane-contrib/provider-git/internal/testharness/e2e"
	"github.com/crossplane-contrib/provider-git/internal/testharness/testenv"
)

// recordedMirrorBurstStatus is what BenchmarkMirrorBurstStatusWrites
// measured at 25ce996, before a Mirror held its published wait between
// pushes and before the managed reconciler skipped a read of what its own
// last write replaced, on the same shared two-core machine with the
// defaults: the Mirror's status writes, those refused with Conflict, the
// pushes and the steady state's writes (9.9 s for the three phases). It is
// history: the code that ran it is gone.
const recordedMirrorBurstStatus = "144 | 46 | 10 | 0"

// BenchmarkMirrorBurstStatusWrites creates 1,000 ConfigMaps in a namespace a
// Mirror mirrors, one after another as kubectl apply does (the events then
// span several commit windows), then edits 100 of them and deletes 10, with
// the provider's default flags, and counts the Mirror's status writes (and
// those the optimistic lock refused) next to the pushes, and then over a
// steady poll. Goal: at most one status write per push, plus one per phase
// (the Mirror going from Available to Committing); no Conflict; none in
// steady state. BENCH_MIRROR_OBJECTS changes the count (the edits and
// deletes stay a tenth and a hundredth of it).
func BenchmarkMirrorBurstStatusWrites(b *testing.B) {
	n := e2e.BenchN("BENCH_MIRROR_OBJECTS", 1000)
	edits, deletes := max(n/10, 1), max(n/100, 1)
	for range b.N {
		bp, ns, dir, m := startMirrorBench(b, e2e.BenchFlags{Rate: e2e.DefaultRate, Poll: 10 * time.Second})
		// The namespace's kube-root-ca.crt is mirrored too.
		base := mirroredIn(b, dir, ns)
		waitMirrorCounts(b, m, base)
		writes0, refused0 := bp.API.Count(mirrorStatusWrite), bp.API.Count(mirrorStatusConflict)
		pushes0 := e2e.MetricSum(b, bp.Reg, "provider_git_pushes_total")

		start := time.Now()
		createConfigMapsInTurn(b, ns, n)
		waitMirroredCount(b, dir, ns, base+n, false, 30*time.Minute)
		for i := range edits {
			patch := []byte(`{"data":{"round":"1"}}`)
			cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: fmt.Sprintf("cm-%05d", i)}}
			if err := e2e.CP.Client.Patch(context.Background(), cm, client.RawPatch(types.MergePatchType, patch)); err != nil {
				b.Fatal(err)
			}
		}
		waitFolder(b, dir, 10*time.Minute, func(out string) bool { return strings.Count(out, "round:") >= edits }, "grep", "round:", "main", "--", e2e.MirrorFolder+"/")
		deleteConfigMaps(b, ns, n-deletes, n)
		waitFolder(b, dir, 10*time.Minute, func(out string) bool { return mirroredOf(out, ns) == base+n-deletes }, "ls-tree", "-r", "--name-only", "main", e2e.MirrorFolder+"/")
		waitMirrorCounts(b, m, base+n-deletes)
		for bp.Cache.Pending() != 0 {
			time.Sleep(100 * time.Millisecond) // polling interval of a wait on a condition
		}
		took := time.Since(start)
		writes, refused := bp.API.Count(mirrorStatusWrite)-writes0, bp.API.Count(mirrorStatusConflict)-refused0
		pushes := e2e.MetricSum(b, bp.Reg, "provider_git_pushes_total") - pushes0

		// Steady state: two polls of the repository.
		writes0, refused0 = bp.API.Count(mirrorStatusWrite), bp.API.Count(mirrorStatusConflict)
		polls0 := e2e.MetricSum(b, bp.Reg, "provider_git_polls_total")
		for e2e.MetricSum(b, bp.Reg, "provider_git_polls_total") < polls0+2 {
			time.Sleep(100 * time.Millisecond) // polling interval of a wait on a condition
		}
		steady := bp.API.Count(mirrorStatusWrite) - writes0 + bp.API.Count(mirrorStatusConflict) - refused0
		bp.Stop()

		fmt.Printf("\nOne Mirror: %d ConfigMaps created one after another, then %d edited and %d deleted (commit window %s, --max-reconcile-rate %d, --poll 10s), %s\n"+
			"| | Mirror status writes | refused (Conflict) | pushes | status writes in steady state (2 polls) |\n|----|----|----|----|----|\n"+
			"| before (recorded) | %s |\n"+
			"| now | %d | %d | %.0f | %d |\n"+
			"goal: status writes <= pushes + 3 (one per phase going Committing), no Conflict, 0 in steady state\n",
			n, edits, deletes, e2e.DefaultWindow, e2e.DefaultRate, took.Round(100*time.Millisecond),
			recordedMirrorBurstStatus, writes, refused, pushes, steady)
	}
}

// startMirrorBench starts a provider with flags and a fixture whose Mirror
// of every ConfigMap of its namespace ns has landed its empty folder's
// marker, so every commit from then on is the benchmark's. dir is the
// fixture's bare repository.
func startMirrorBench(b *testing.B, flags e2e.BenchFlags) (bp *e2e.BenchProvider, ns, dir string, m *v1alpha1.Mirror) {
	b.Helper()
	bp = e2e.StartBenchProvider(b, flags)
	ns = e2e.BenchFixture(b, nil)
	dir = filepath.Join(e2e.GitRoot, ns+".git")
	m = e2e.NewMirror(ns, "m", v1alpha1.MirrorParameters{Resources: []v1alpha1.MirrorResource{{APIVersion: "v1", Kind: "ConfigMap"}}}, e2e.PCRef())
	if err := e2e.CP.Client.Create(context.Background(), m); err != nil {
		b.Fatal(err)
	}
	waitMirroredCount(b, dir, ns, 0, true, time.Minute)
	return bp, ns, dir, m
}

// waitMirrorCounts waits until the Mirror m is Ready and counts objects
// objects and nothing pending.
func waitMirrorCounts(b *testing.B, m *v1alpha1.Mirror, objects int) {
	b.Helper()
	deadline := time.Now().Add(10 * time.Minute)
	for {
		if err := e2e.CP.Client.Get(context.Background(), client.ObjectKeyFromObject(m), m); err != nil {
			b.Fatal(err)
		}
		at := m.Status.AtProvider
		if m.GetCondition("Ready").Status == corev1.ConditionTrue && at.Objects == objects && at.Pending == 0 {
			return
		}
		if time.Now().After(deadline) {
			b.Fatalf("Mirror Ready %s with %d objects, %d pending; want True, %d, 0", m.GetCondition("Ready").Status, at.Objects, at.Pending, objects)
		}
		time.Sleep(100 * time.Millisecond) // polling interval of a wait on a condition
	}
}

// waitFolder runs git args in dir every 250ms until done accepts its output.
func waitFolder(b *testing.B, dir string, timeout time.Duration, done func(string) bool, args ...string) {
	b.Helper()
	deadline := time.Now().Add(timeout)
	for {
		out, _ := testenv.Git(dir, nil, args...)
		if done(out) {
			return
		}
		if time.Now().After(deadline) {
			b.Fatalf("git %s: not there after %s", strings.Join(args, " "), timeout)
		}
		time.Sleep(250 * time.Millisecond) // polling interval of a wait on a condition
	}
}

// mirroredIn counts the objects of ns the Mirror's folder holds on main.
func mirroredIn(b *testing.B, dir, ns string) int {
	b.Helper()
	out, err := testenv.Git(dir, nil, "ls-tree", "-r", "--name-only", "main", e2e.MirrorFolder+"/")
	if err != nil {
		b.Fatal(err)
	}
	return mirroredOf(out, ns)
}

// mirroredOf counts the object files of ns in an ls-tree listing.
func mirroredOf(ls, ns string) int {
	n := 0
	for _, l := range strings.Split(ls, "\n") {
		if strings.HasPrefix(l, e2e.MirrorFolder+"/"+ns+"/") {
			n++
		}
	}
	return n
}

// createConfigMapsInTurn creates n ConfigMaps in ns one after another, named
// as createConfigMaps names them.
func createConfigMapsInTurn(b *testing.B, ns string, n int) {
	b.Helper()
	for i := range n {
		cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: fmt.Sprintf("cm-%05d", i)},
			Data: map[string]string{"index": strconv.Itoa(i)}}
		if err := e2e.CP.Client.Create(context.Background(), cm); err != nil {
			b.Fatal(err)
		}
	}
}

// deleteConfigMaps deletes ConfigMaps from..to-1 of ns, as createConfigMaps
// named them.
func deleteConfigMaps(b *testing.B, ns string, from, to int) {
	b.Helper()
	for i := from; i < to; i++ {
		cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: fmt.Sprintf("cm-%05d", i)}}
		if err := e2e.CP.Client.Delete(context.Background(), cm); err != nil {
			b.Fatal(err)
		}
	}
}
