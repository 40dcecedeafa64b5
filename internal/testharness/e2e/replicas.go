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

package e2e

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/crossplane-contrib/provider-git/internal/testharness/testenv"
)

// Replica is one provider binary of several on one control plane, with a
// name (its --replica-name, in the User-Agent of its Git requests, so the
// Git server's push log tells which process pushed) and its metrics
// endpoint.
type Replica struct {
	*BinaryProvider
	Name string
	// EventsURL is where it serves forge events (http://IP:port), when
	// its arguments name an --events-bind-address with a port.
	EventsURL string

	mu      sync.Mutex
	metrics string // the metrics URL, once known (metricsURL)
}

// StartReplica runs the provider binary as replica name with its own cache
// and metrics port, the test settings of StartBinary, and args.
//
// The metrics server binds port 0 and the process keeps the kernel's pick:
// a port found free here and closed before the process bound it was once
// taken by another test's process in between (TestSharePause: `bind:
// address already in use`). The process logs the address it was given, not
// the one it got, so metricsURL reads it from /proc. The probes are off
// (port "0"): no test asks a replica's, and the metrics port is then the
// only one it listens on, which needs no request to tell apart, so a paused
// replica's is known too.
//
// A flag in args replaces the default of the same name (--poll=1h), and an
// --events-bind-address with a port is the replica's EventsURL, its port
// not taken for the metrics one.
func StartReplica(t testing.TB, kubeconfig, name string, args ...string) *Replica {
	t.Helper()
	var argv []string
	for _, d := range []string{"--poll=2s", "--allow-insecure-remotes", "--cache-dir=" + t.TempDir(), "--max-reconcile-rate=50",
		"--metrics-bind-address=127.0.0.1:0", "--health-probe-bind-address=0", "--replica-name=" + name} {
		if !given(args, d) {
			argv = append(argv, d)
		}
	}
	r := &Replica{Name: name}
	for _, a := range args {
		if addr, ok := strings.CutPrefix(a, "--events-bind-address="); ok {
			r.EventsURL = "http://" + addr
		}
	}
	r.BinaryProvider = RunBinary(t, kubeconfig, nil, append(argv, args...)...)
	return r
}

// given reports whether args set the flag def sets (--name=value).
func given(args []string, def string) bool {
	name, _, _ := strings.Cut(def, "=")
	for _, a := range args {
		if n, _, _ := strings.Cut(a, "="); n == name {
			return true
		}
	}
	return false
}

// FreePort is a loopback port free now, for a replica's
// --events-bind-address: the replicas forward deliveries to each other at
// the address each publishes, so it is chosen before the process starts
// (port 0 would publish nothing). Another process may take it in between,
// rarely; the replica then fails to start, and the test with it.
func FreePort(t testing.TB) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return strconv.Itoa(l.Addr().(*net.TCPAddr).Port)
}

// UserAgent is what the replica's Git requests say they are.
func (r *Replica) UserAgent() string { return "provider-git/" + r.Name }

// metricsURL is the replica's metrics endpoint: the one port its process
// listens on, once it does (the manager binds it while it starts).
func (r *Replica) metricsURL(ctx context.Context) (string, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	for r.metrics == "" {
		ports, err := testenv.ListeningPorts(r.Cmd.Process.Pid)
		ports = slices.DeleteFunc(ports, func(p int) bool { return r.EventsURL != "" && strings.HasSuffix(r.EventsURL, ":"+strconv.Itoa(p)) })
		switch {
		case err != nil:
			return "", err
		case len(ports) == 1:
			r.metrics = "http://" + net.JoinHostPort("127.0.0.1", strconv.Itoa(ports[0])) + "/metrics"
			continue
		case len(ports) > 1:
			return "", fmt.Errorf("replica %s listens on ports %v, want one (metrics)", r.Name, ports)
		}
		select {
		case <-ctx.Done():
			return "", fmt.Errorf("replica %s listens on no port yet: %w", r.Name, ctx.Err())
		case <-tick.C:
		}
	}
	return r.metrics, nil
}

// Metric sums the replica's samples of family name whose labels include
// every one of labels (`key="value"`), as it serves them now.
func (r *Replica) Metric(name string, labels ...string) (float64, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	url, err := r.metricsURL(ctx)
	if err != nil {
		return 0, err
	}
	ctx, cancelGet := context.WithTimeout(ctx, 5*time.Second)
	defer cancelGet()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return 0, err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return 0, err
	}
	return SumSamples(string(b), name, labels...), nil
}

// SumSamples adds the samples of family name, in Prometheus' text format,
// whose labels include all of labels.
func SumSamples(text, name string, labels ...string) float64 {
	var sum float64
	for _, line := range strings.Split(text, "\n") {
		if strings.HasPrefix(line, "#") {
			continue
		}
		series, value, ok := strings.Cut(line, " ")
		if !ok {
			continue
		}
		family, rest, _ := strings.Cut(series, "{")
		if family != name {
			continue
		}
		match := true
		for _, l := range labels {
			if !strings.Contains(rest, l) {
				match = false
			}
		}
		if !match {
			continue
		}
		if v, err := strconv.ParseFloat(strings.TrimSpace(value), 64); err == nil {
			sum += v
		}
	}
	return sum
}

// MustMetric is Metric, failing the test when the endpoint cannot be read.
func (r *Replica) MustMetric(t testing.TB, name string, labels ...string) float64 {
	t.Helper()
	v, err := r.Metric(name, labels...)
	if err != nil {
		t.Fatalf("replica %s: metrics: %v", r.Name, err)
	}
	return v
}

// Pause stops the process (SIGSTOP) as a node freezing would: its clock
// runs on, its Lease is not renewed. Resume continues it.
func (r *Replica) Pause(t testing.TB) {
	t.Helper()
	if err := r.Cmd.Process.Signal(syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
}

// Resume continues a paused process (SIGCONT).
func (r *Replica) Resume(t testing.TB) {
	t.Helper()
	if err := r.Cmd.Process.Signal(syscall.SIGCONT); err != nil {
		t.Fatal(err)
	}
}

// String names the replica in messages.
func (r *Replica) String() string {
	return fmt.Sprintf("replica %s (pid %d)", r.Name, r.Cmd.Process.Pid)
}
