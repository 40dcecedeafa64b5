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

package attribution_test

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/crossplane-contrib/provider-git/internal/testharness/e2e"
)

// The webhook's cost to a write, measured where the API server pays it.

// webhookTimeout is the timeoutSeconds webhookFor configures, as the
// provider's configuration does (hookconfig.go).
const webhookTimeout = 2 * time.Second

// latency is what one paced run of writes measured.
type latency struct {
	p50, p99, max time.Duration
	writes        int
	failed        int
	// firstErr is the first failed write's error.
	firstErr string
}

// BenchmarkAdmissionWriteLatency patches ConfigMaps at a steady 100 writes
// per second (BENCH_ADMISSION_RATE) for BENCH_ADMISSION_SECONDS (default
// 10) through the test
// bed's real kube-apiserver, each write in a namespace of its own set-up:
// no webhook (the baseline, in the same run), the provider's admission
// webhook serving (internal/admission, over TLS, answering from memory),
// its endpoint stopped (the configuration points at a port nobody listens
// on: connection refused), and its endpoint hanging (a server that accepts
// and never answers: the API server gives up at the configuration's
// timeoutSeconds, 2). Every configuration is failurePolicy Ignore,
// sideEffects None, as Crossplane installs the provider's. It reports p50,
// p99 and the slowest write, and the writes that failed (want none: the
// webhook never refuses, and Ignore lets a write through when it fails).
// The writes are sent on a ticker, each in a goroutine of its own, so a
// slow answer does not lower the rate.
func BenchmarkAdmissionWriteLatency(b *testing.B) {
	secs, rate := e2e.BenchN("BENCH_ADMISSION_SECONDS", 10), e2e.BenchN("BENCH_ADMISSION_RATE", 100)
	c := benchUser(b, "writer")
	for range b.N {
		none := benchNamespace(b)
		serving := benchNamespace(b)
		webhookFor(b, serving, serving, webhook, admittedProbe(b, serving))
		// The hanging endpoint binds its port first, so that the stopped
		// one's, closed, cannot be handed to it.
		hang := hangingEndpoint(b)
		stopped := benchNamespace(b)
		dead := httptest.NewTLSServer(http.NotFoundHandler())
		deadURL := dead.URL + "/admit"
		dead.Close()
		webhookFor(b, stopped, stopped, deadURL, func() bool { return failedOpen(b, webhookName(stopped)) })
		hanging := benchNamespace(b)
		webhookFor(b, hanging, hanging, hang, func() bool { return failedOpen(b, webhookName(hanging)) })

		rows := []struct {
			what string
			l    latency
		}{
			{"no webhook (baseline, this run)", paced(b, c, none, secs, rate)},
			{"the provider's webhook serving", paced(b, c, serving, secs, rate)},
			{"its endpoint stopped (connection refused)", paced(b, c, stopped, secs, rate)},
			{fmt.Sprintf("its endpoint hanging (timeoutSeconds %d)", int(webhookTimeout.Seconds())), paced(b, c, hanging, secs, rate)},
		}
		fmt.Printf("\n%d writes/s for %ds (merge patches of %d ConfigMaps), the API server calling the validating webhook over TLS (failurePolicy Ignore, sideEffects None, timeoutSeconds %d)\n"+
			"| webhook | write p50 | p99 | slowest | writes | failed |\n|----|----|----|----|----|----|\n",
			rate, secs, latencyObjects, int(webhookTimeout.Seconds()))
		for _, r := range rows {
			fmt.Printf("| %s | %s | %s | %s | %d | %d |\n", r.what, r.l.p50, r.l.p99, r.l.max, r.l.writes, r.l.failed)
		}
		for i, r := range rows {
			switch {
			case r.l.failed > 0 && i < len(rows)-1:
				b.Errorf("%s: %d of %d writes failed, want none (failurePolicy Ignore): %s", r.what, r.l.failed, r.l.writes, r.l.firstErr)
			case r.l.failed > 0:
				// Not the webhook's refusal: at this rate a hanging
				// endpoint keeps rate x timeout writes in flight, the API
				// server's --max-mutating-requests-inflight (200) by
				// default, past which it answers 429.
				fmt.Printf("%s: %d writes failed, the first with: %s\n", r.what, r.l.failed, r.l.firstErr)
			}
		}
		base, on := rows[0].l, rows[1].l
		fmt.Printf("added by the serving webhook: p50 %s, p99 %s\n", on.p50-base.p50, on.p99-base.p99)
	}
}

// latencyObjects are the ConfigMaps the writes go round.
const latencyObjects = 50

// hangingEndpoint is the URL of an endpoint that accepts connections and
// never answers (not even the TLS handshake), until the benchmark ends.
func hangingEndpoint(b *testing.B) string {
	b.Helper()
	var lc net.ListenConfig
	l, err := lc.Listen(context.Background(), "tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	var mu sync.Mutex
	var conns []net.Conn
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			conns = append(conns, c)
			mu.Unlock()
		}
	}()
	b.Cleanup(func() {
		_ = l.Close()
		<-done
		mu.Lock()
		defer mu.Unlock()
		for _, c := range conns {
			_ = c.Close()
		}
	})
	return "https://" + l.Addr().String() + "/admit"
}

// benchNamespace is a new namespace of the benchmark's.
func benchNamespace(b *testing.B) string {
	b.Helper()
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: "bench-admission-"}}
	if err := e2e.CP.Client.Create(context.Background(), ns); err != nil {
		b.Fatal(err)
	}
	return ns.Name
}

// paced creates latencyObjects ConfigMaps in ns, then patches them round
// robin at rate writes per second for secs, as c, and returns what
// the writes took, as the client saw it.
func paced(b *testing.B, c client.Client, ns string, secs, rate int) latency {
	b.Helper()
	ctx := context.Background()
	for i := range latencyObjects {
		cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: fmt.Sprintf("w-%03d", i)}, Data: map[string]string{"seq": "0"}}
		if err := c.Create(ctx, cm); err != nil {
			b.Fatal(err)
		}
	}
	total := secs * rate
	took := make([]time.Duration, total)
	failed := make([]error, total)
	tick := time.NewTicker(time.Second / time.Duration(rate))
	defer tick.Stop()
	var wg sync.WaitGroup
	for seq := range total {
		<-tick.C
		cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: fmt.Sprintf("w-%03d", seq%latencyObjects)}}
		patch := client.RawPatch("application/merge-patch+json", []byte(`{"data":{"seq":"`+strconv.Itoa(seq+1)+`"}}`))
		wg.Go(func() {
			start := time.Now()
			err := c.Patch(ctx, cm, patch)
			took[seq], failed[seq] = time.Since(start), err
		})
	}
	wg.Wait()
	l := latency{writes: total}
	for _, err := range failed {
		if err != nil {
			if l.failed == 0 {
				l.firstErr = err.Error()
			}
			l.failed++
		}
	}
	slices.Sort(took)
	q := func(p float64) time.Duration {
		return took[min(total-1, int(p*float64(total)))].Round(100 * time.Microsecond)
	}
	l.p50, l.p99, l.max = q(0.5), q(0.99), took[total-1].Round(100*time.Microsecond)
	return l
}
