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
	"bufio"
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/crossplane-contrib/provider-git/internal/testharness/e2e"
)

// binaryMemory runs the provider's real binary, with its default flags, on
// n converged Files until it has finished at least n File reconciles (its
// start reconciles each File once) and its File queue is empty, then reads
// its resident set now and at its peak: the
// figures a pod's memory limit meets, without the harness and Git server
// that the benchmark process also holds.
func binaryMemory(b *testing.B, n int) (rss, peak uint64, took time.Duration) {
	b.Helper()
	start := time.Now()
	// Port 0 for metrics and pprof, their ports read back (ListenAddrs);
	// the probes off, so those two are all it listens on.
	p := e2e.RunBinary(b, e2e.KubeconfigFile(b), nil, "--allow-insecure-remotes", "--cache-dir="+b.TempDir(),
		"--metrics-bind-address=127.0.0.1:0", "--health-probe-bind-address=0", "--pprof-bind-address=127.0.0.1:0")
	defer p.Kill()
	addrs := p.ListenAddrs(b, 2)
	metrics, pprof := addrs[0], addrs[1]
	if !servesMetrics(b, metrics) {
		metrics, pprof = pprof, metrics
	}
	url := "http://" + metrics + "/metrics"
	for {
		reconciled, depth, err := fileQueue(url)
		if err == nil && reconciled >= float64(n) && depth == 0 {
			break
		}
		select {
		case <-p.Exited:
			b.Fatalf("the provider binary exited; its log is %s", p.Log)
		default:
		}
		if time.Since(start) > 10*time.Minute {
			b.Fatalf("the provider binary reconciled %.0f of %d Files in 10 minutes (last error: %v)", reconciled, n, err)
		}
		time.Sleep(200 * time.Millisecond) // polling interval of a wait on a condition
	}
	took = time.Since(start)
	if out := os.Getenv("BENCH_HEAP_PROFILE"); out != "" {
		saveHeapProfile(b, "http://"+pprof+"/debug/pprof/heap", out)
	}
	status, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", p.Cmd.Process.Pid))
	if err != nil {
		b.Fatal(err)
	}
	return statusKiB(b, status, "VmRSS:"), statusKiB(b, status, "VmHWM:"), took
}

// saveHeapProfile writes the provider's heap profile to path, for
// `go tool pprof`, when BENCH_HEAP_PROFILE names one.
func saveHeapProfile(b *testing.B, url, path string) {
	b.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		b.Fatal(err)
	}
	rsp, err := http.DefaultClient.Do(req)
	if err != nil {
		b.Fatal(err)
	}
	defer rsp.Body.Close()
	f, err := os.Create(path)
	if err != nil {
		b.Fatal(err)
	}
	if _, err := io.Copy(f, rsp.Body); err != nil {
		b.Fatal(err)
	}
	if err := f.Close(); err != nil {
		b.Fatal(err)
	}
}

// servesMetrics reports whether the server at addr answers /metrics (the
// pprof server answers it 404).
func servesMetrics(b *testing.B, addr string) bool {
	b.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, "http://"+addr+"/metrics", nil)
	if err != nil {
		b.Fatal(err)
	}
	rsp, err := http.DefaultClient.Do(req)
	if err != nil {
		b.Fatal(err)
	}
	_ = rsp.Body.Close()
	return rsp.StatusCode == http.StatusOK
}

// fileQueue reads, from the provider's metrics, how many File reconciles
// have finished and how many Files wait in the File controller's queue.
func fileQueue(url string) (reconciled, depth float64, err error) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return 0, 0, err
	}
	rsp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, 0, err
	}
	defer rsp.Body.Close()
	depth = -1
	s := bufio.NewScanner(rsp.Body)
	for s.Scan() {
		name, value, ok := strings.Cut(s.Text(), " ")
		if !ok {
			continue
		}
		v, err := strconv.ParseFloat(value, 64)
		if err != nil {
			continue
		}
		switch {
		case strings.HasPrefix(name, "controller_runtime_reconcile_total{") && strings.Contains(name, `controller="managed/file"`):
			reconciled += v
		case strings.HasPrefix(name, "workqueue_depth{") && strings.Contains(name, `name="managed/file"`):
			depth = v
		}
	}
	if err := s.Err(); err != nil {
		return 0, 0, err
	}
	if depth < 0 {
		return reconciled, depth, fmt.Errorf("no File queue in %s", url)
	}
	return reconciled, depth, nil
}

// statusKiB is the value of a kB field of /proc/<pid>/status, in bytes.
func statusKiB(b *testing.B, status []byte, field string) uint64 {
	b.Helper()
	for line := range strings.Lines(string(status)) {
		if v, ok := strings.CutPrefix(line, field); ok {
			kb, err := strconv.ParseUint(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			if err != nil {
				b.Fatal(err)
			}
			return kb << 10
		}
	}
	b.Fatalf("no %s in the process status", field)
	return 0
}
