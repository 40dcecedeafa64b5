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
	"testing"
	"time"
)

// burstChanges is the burst BenchmarkEnqueueBurst10000 enqueues.
const burstChanges = 10000

// scannedBurst is what the burst cost when the writer found a resource's
// change by scanning every queued and in-flight change (commit 1ef30f3, on
// the two shared cores this tree is tested on, three runs of 3 bursts:
// 1.87 s, 1.97 s, 2.07 s per burst): quadratic in the burst.
const scannedBurst = 1970 * time.Millisecond

// BenchmarkEnqueueBurst10000 enqueues a burst of burstChanges changes, one
// per resource, on one branch within one commit window, then asks for each
// whether it is queued (what every Observe of a resource with a write under
// way asks), and prints the cost next to the figure measured before the
// writer indexed its changes. Nothing is pushed while it is measured: the
// window is an hour.
func BenchmarkEnqueueBurst10000(b *testing.B) {
	s := httpServer(b)
	changes := make([]Change, burstChanges)
	keys := make([]string, burstChanges)
	window := time.Hour // each change names its configuration's window, as a File's does
	for i := range changes {
		p := fmt.Sprintf("apps/f%05d.yaml", i)
		keys[i] = "File/bench/" + p
		changes[i] = Change{Puts: map[string]File{p: {Content: []byte(fmt.Sprintf("v: %d\n", i))}},
			Message: "set " + p, Resource: Resource{Kind: "File", Namespace: "bench", Name: p}, Window: &window}
	}
	var took time.Duration
	b.ResetTimer()
	for range b.N {
		b.StopTimer()
		c, err := NewCache(b.TempDir(), WithCommitWindow(time.Hour))
		if err != nil {
			b.Fatal(err)
		}
		r, err := c.Repository(s.remote)
		if err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		start := time.Now()
		for i := range changes {
			r.Enqueue("main", keys[i], changes[i], func(Result) {})
		}
		for i := range changes {
			if !r.Queued("main", keys[i], changes[i]) {
				b.Fatalf("change %d is not queued", i)
			}
		}
		took += time.Since(start)
		b.StopTimer()
		c.Close()
	}
	per := took / time.Duration(b.N)
	b.ReportMetric(float64(per.Microseconds())/1000, "ms/burst")
	b.ReportMetric(float64(scannedBurst.Milliseconds()), "scanned-ms/burst")
	fmt.Printf("\nenqueue a burst of %d changes on one branch, then ask of each whether it is queued\n"+
		"| writer | burst |\n|----|----|\n"+
		"| scanning every queued change (1ef30f3) | %s |\n"+
		"| indexed by key (this tree) | %s |\n", burstChanges, scannedBurst, per.Round(time.Millisecond))
}
