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

package mirror

import (
	"context"
	"fmt"
	"os"
	"runtime"
	"sync"
	"testing"
	"text/tabwriter"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/dynamic"

	"github.com/crossplane-contrib/provider-git/internal/manifest"
)

const (
	benchObjects = 5000
	// benchEnsures is how many Ensures one measurement averages over:
	// make bench runs each benchmark once (-benchtime=1x).
	benchEnsures = 200
	// benchRenders is how many full re-renderings the baseline averages.
	benchRenders = 5
)

// measure runs fn n times and returns the time and allocations per run.
func measure(n int, fn func()) (time.Duration, float64, float64) {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	start := time.Now()
	for range n {
		fn()
	}
	d := time.Since(start)
	runtime.ReadMemStats(&after)
	return d / time.Duration(n), float64(after.Mallocs-before.Mallocs) / float64(n), float64(after.TotalAlloc-before.TotalAlloc) / float64(n)
}

func heapInUse() uint64 {
	var m runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// BenchmarkEnsure measures Ensure for a Mirror of 5,000 cached ConfigMaps,
// next to a baseline that renders every object on every Ensure (what a
// cache of objects rather than of renderings would cost), and counts the
// API requests steady-state Ensures send.
func BenchmarkEnsure(b *testing.B) {
	cp := controlPlane(b)
	ns := newNamespace(b, cp.Client)
	ctx := context.Background()

	start := time.Now()
	var wg sync.WaitGroup
	errs := make(chan error, benchObjects)
	work := make(chan int)
	for range 16 {
		wg.Go(func() {
			for i := range work {
				if err := cp.Client.Create(ctx, configMap(ns, fmt.Sprintf("cm-%05d", i), map[string]string{"app": "bench"}, fmt.Sprintf("value %d", i))); err != nil {
					errs <- err
				}
			}
		})
	}
	for i := range benchObjects {
		work <- i
	}
	close(work)
	wg.Wait()
	close(errs)
	for err := range errs {
		b.Fatal(err)
	}
	created := time.Since(start)

	heap0 := heapInUse()
	h := startSources(b, cp.Config)
	req := Request{Owner: types.NamespacedName{Namespace: ns, Name: "m"}, Kinds: []Kind{configMaps}, SkipControlled: true}
	start = time.Now()
	snap := ensureSynced(b, h.s, req)
	synced := time.Since(start)
	if len(snap.Objects) != benchObjects {
		b.Fatalf("snapshot holds %d objects, want %d", len(snap.Objects), benchObjects)
	}
	heap := heapInUse() - heap0

	reqs := len(h.reqs.requests())
	ensure := func() {
		if _, err := h.s.Ensure(ctx, req); err != nil {
			b.Fatal(err)
		}
	}
	perEnsure, allocs, bytes := measure(benchEnsures, ensure)
	requests := len(h.reqs.requests()) - reqs

	// An Ensure after a change: the snapshot is built again from the
	// cached renderings.
	h.s.mu.Lock()
	reg := h.s.owners[req.Owner]
	h.s.mu.Unlock()
	res, _, skipped, err := h.s.plan(ctx, req)
	if err != nil {
		b.Fatal(err)
	}
	v := view{selector: labels.Everything(), skipControlled: true}
	perBuild, bAllocs, bBytes := measure(benchEnsures/10, func() {
		if _, _, err := snapshot(res, reg.watches, v, skipped, nil); err != nil {
			b.Fatal(err)
		}
	})

	// Baseline: the same snapshot, rendering every object again.
	dyn, err := dynamic.NewForConfig(cp.Config)
	if err != nil {
		b.Fatal(err)
	}
	list, err := dyn.Resource(schema.GroupVersionResource{Version: "v1", Resource: "configmaps"}).Namespace(ns).List(ctx, metav1.ListOptions{})
	if err != nil {
		b.Fatal(err)
	}
	perRender, rAllocs, rBytes := measure(benchRenders, func() {
		for i := range list.Items {
			j, err := list.Items[i].MarshalJSON()
			if err != nil {
				b.Fatal(err)
			}
			if _, err := manifest.Render(j); err != nil {
				b.Fatal(err)
			}
		}
	})

	for b.Loop() {
		ensure()
	}
	b.ReportMetric(float64(perEnsure.Microseconds()), "µs/Ensure")
	b.ReportMetric(allocs, "allocs/Ensure")

	tw := tabwriter.NewWriter(os.Stdout, 0, 4, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "\nEnsure with %d ConfigMaps cached (%d Ensures averaged)\t\t\t\t\n", benchObjects, benchEnsures)
	fmt.Fprintf(tw, "\ttime/Ensure\tallocs/Ensure\tbytes/Ensure\tAPI requests\t\n")
	fmt.Fprintf(tw, "mirror.Sources (renderings cached)\t%s\t%.0f\t%.0f\t%d\t\n", perEnsure.Round(time.Microsecond), allocs, bytes, requests)
	fmt.Fprintf(tw, "mirror.Sources after a change (snapshot rebuilt)\t%s\t%.0f\t%.0f\t0\t\n", perBuild.Round(time.Microsecond), bAllocs, bBytes)
	fmt.Fprintf(tw, "baseline: render every object per Ensure\t%s\t%.0f\t%.0f\t-\t\n", perRender.Round(time.Microsecond), rAllocs, rBytes)
	fmt.Fprintf(tw, "setup: created in %s, first Ensure to Synced %s, heap held %.1f MiB (%.1f KiB/object)\t\t\t\t\t\n",
		created.Round(time.Millisecond), synced.Round(time.Millisecond), float64(heap)/(1<<20), float64(heap)/1024/benchObjects)
	_ = tw.Flush()
}
