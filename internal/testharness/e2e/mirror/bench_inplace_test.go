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
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/crossplane-contrib/provider-git/apis/v1alpha1"
	"github.com/crossplane-contrib/provider-git/internal/testharness/e2e"
	"github.com/crossplane-contrib/provider-git/internal/testharness/testenv"
)

// BenchmarkMirrorInPlace2000ObjectsIn400Files mirrors 2,000 ConfigMaps kept
// by hand in 400 files of five commented documents each (layout InPlace),
// and reports the time from the Mirror's creation until it is Ready (it
// indexes every file and writes only its marker), then the time until 100
// objects changed at once (in 100 files) are on the remote, with the
// commits and pushes that took. The baseline, in the same run, is the
// Folder layout: the same objects and the same changes, starting from an
// empty folder it lays out itself. BENCH_INPLACE_OBJECTS changes the count
// (five per file, a change per twentieth object).
func BenchmarkMirrorInPlace2000ObjectsIn400Files(b *testing.B) {
	n := e2e.BenchN("BENCH_INPLACE_OBJECTS", 2000)
	for range b.N {
		type row struct {
			start, change time.Duration
			pushes        float64
			commits       int
		}
		rows := map[v1alpha1.MirrorLayout]row{}
		for _, layout := range []v1alpha1.MirrorLayout{v1alpha1.MirrorLayoutFolder, v1alpha1.MirrorLayoutInPlace} {
			bp := e2e.StartBenchProvider(b, e2e.BenchFlags{Rate: e2e.DefaultRate, Poll: e2e.DefaultPoll})
			var files map[string]string
			if layout == v1alpha1.MirrorLayoutInPlace {
				files = handWritten(n)
			}
			ns := e2e.BenchFixture(b, files)
			dir := filepath.Join(e2e.GitRoot, ns+".git")
			inPlaceObjects(b, ns, n, "v0")
			m := e2e.NewMirror(ns, "m", v1alpha1.MirrorParameters{Layout: layout, Resources: []v1alpha1.MirrorResource{{APIVersion: "v1", Kind: "ConfigMap"}}}, e2e.PCRef())
			start := time.Now()
			if err := e2e.CP.Client.Create(context.Background(), m); err != nil {
				b.Fatal(err)
			}
			waitMirrorCounts(b, m, n)
			var r row
			r.start = time.Since(start)
			for bp.Cache.Pending() != 0 {
				time.Sleep(100 * time.Millisecond) // polling interval of a wait on a condition
			}
			commits0, pushes0 := commitCount(b, dir), e2e.MetricSum(b, bp.Reg, "provider_git_pushes_total")
			start = time.Now()
			changeObjects(b, ns, n)
			waitGrep(b, dir, "v1-changed", n/20, 30*time.Minute)
			r.change = time.Since(start)
			r.pushes = e2e.MetricSum(b, bp.Reg, "provider_git_pushes_total") - pushes0
			r.commits = commitCount(b, dir) - commits0
			rows[layout] = r
			bp.Stop()
		}
		f, ip := rows[v1alpha1.MirrorLayoutFolder], rows[v1alpha1.MirrorLayoutInPlace]
		fmt.Printf("\n%d ConfigMaps, %d changed at once (commit window %s, --max-reconcile-rate %d)\n"+
			"| layout | Ready from creation | time until the changes are on the remote | pushes | commits |\n|----|----|----|----|----|\n"+
			"| Folder (baseline, this run; lays out %d files) | %s | %s | %.0f | %d |\n"+
			"| InPlace (%d hand-written files, 5 documents each) | %s | %s | %.0f | %d |\n",
			n, n/20, e2e.DefaultWindow, e2e.DefaultRate,
			n, f.start.Round(100*time.Millisecond), f.change.Round(100*time.Millisecond), f.pushes, f.commits,
			n/5, ip.start.Round(100*time.Millisecond), ip.change.Round(100*time.Millisecond), ip.pushes, ip.commits)
	}
}

// handWritten is n ConfigMaps in n/5 files under the Mirror's folder, five
// documents each, with comments and the namespace left to the Mirror.
func handWritten(n int) map[string]string {
	files := map[string]string{}
	for f := 0; f < n/5; f++ {
		var b strings.Builder
		fmt.Fprintf(&b, "# Team %03d's settings, kept by hand.\n", f)
		for i := f * 5; i < f*5+5; i++ {
			if i > f*5 {
				b.WriteString("---\n")
			}
			fmt.Fprintf(&b, "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm-%05d # object %d\ndata:\n  # what this setting is for\n  value: \"v0\"\n  owner: team-%03d\n", i, i, f)
		}
		files[fmt.Sprintf("%s/team-%03d.yaml", e2e.MirrorFolder, f)] = b.String()
	}
	return files
}

// inPlaceObjects creates the n ConfigMaps handWritten describes, from 32
// goroutines.
func inPlaceObjects(b *testing.B, ns string, n int, value string) {
	b.Helper()
	parallel(b, n, func(i int) error {
		cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: fmt.Sprintf("cm-%05d", i)},
			Data: map[string]string{"value": value, "owner": fmt.Sprintf("team-%03d", i/5)}}
		return e2e.CP.Client.Create(context.Background(), cm)
	})
}

// changeObjects changes every twentieth ConfigMap at once: n/20 objects in
// n/20 files.
func changeObjects(b *testing.B, ns string, n int) {
	b.Helper()
	parallel(b, n/20, func(k int) error {
		i := k * 20
		cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: fmt.Sprintf("cm-%05d", i)},
			Data: map[string]string{"value": "v1-changed", "owner": fmt.Sprintf("team-%03d", i/5)}}
		return e2e.CP.Client.Update(context.Background(), cm)
	})
}

func parallel(b *testing.B, n int, fn func(i int) error) {
	b.Helper()
	var wg sync.WaitGroup
	var next atomic.Int64
	errs := make(chan error, 32)
	for range 32 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := int(next.Add(1) - 1); i < n; i = int(next.Add(1) - 1) {
				if err := fn(i); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		b.Fatal(err)
	}
}

// waitGrep waits until want files of main's folder in the bare repository
// dir hold s, checking every 250ms.
func waitGrep(b *testing.B, dir, s string, want int, timeout time.Duration) {
	b.Helper()
	deadline := time.Now().Add(timeout)
	for {
		out, _ := testenv.Git(dir, nil, "grep", "-l", "-F", s, "main", "--", e2e.MirrorFolder+"/")
		got := 0
		for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
			if l != "" {
				got++
			}
		}
		if got >= want {
			return
		}
		if time.Now().After(deadline) {
			b.Fatalf("%d of %d changed files on the remote after %s", got, want, timeout)
		}
		time.Sleep(250 * time.Millisecond) // polling interval of a wait on a condition
	}
}
