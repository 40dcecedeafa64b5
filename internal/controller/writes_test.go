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

package controller_test

import (
	"context"
	"fmt"
	"maps"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	testingclock "k8s.io/utils/clock/testing"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/crossplane-contrib/provider-git/apis/v1alpha1"
	"github.com/crossplane-contrib/provider-git/internal/controller/config"
	"github.com/crossplane-contrib/provider-git/internal/testenv"
)

// writeCounter counts the provider's API writes per namespace, as
// "VERB resource[/subresource]" (PUT files, PATCH files/status, POST events).
type writeCounter struct {
	next http.RoundTripper
	mu   sync.Mutex
	n    map[string]map[string]int
}

func (c *writeCounter) RoundTrip(r *http.Request) (*http.Response, error) {
	resp, err := c.next.RoundTrip(r)
	if r.Method == http.MethodGet {
		return resp, err
	}
	if ns, what, ok := writeOf(r.Method, r.URL.Path); ok {
		if resp != nil && resp.StatusCode >= http.StatusBadRequest {
			// A refused write (a conflict) is counted apart.
			what += " (" + http.StatusText(resp.StatusCode) + ")"
		}
		c.mu.Lock()
		if c.n[ns] == nil {
			c.n[ns] = map[string]int{}
		}
		c.n[ns][what]++
		c.mu.Unlock()
	}
	return resp, err
}

// newWriteCounter counts nothing yet.
func newWriteCounter() *writeCounter { return &writeCounter{n: map[string]map[string]int{}} }

// through has the provider's API requests pass through c.
func (c *writeCounter) through() providerOption {
	return withTransport(func(rt http.RoundTripper) http.RoundTripper {
		c.next = rt
		return c
	})
}

// writeOf reads a namespaced request path:
// /api/v1/namespaces/NS/RESOURCE[/NAME[/SUB]] or
// /apis/GROUP/VERSION/namespaces/NS/RESOURCE[/NAME[/SUB]].
func writeOf(verb, path string) (ns, what string, ok bool) {
	_, rest, found := strings.Cut(path, "/namespaces/")
	if !found {
		return "", "", false
	}
	parts := strings.Split(rest, "/")
	if len(parts) < 2 {
		return "", "", false
	}
	what = verb + " " + parts[1]
	if len(parts) > 3 {
		what += "/" + parts[3]
	}
	return parts[0], what, true
}

// of returns a copy of the counts of ns.
func (c *writeCounter) of(ns string) map[string]int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return maps.Clone(c.n[ns])
}

func total(m map[string]int) int {
	n := 0
	for _, v := range m {
		n += v
	}
	return n
}

func show(m map[string]int) string {
	var b strings.Builder
	for _, k := range slices.Sorted(maps.Keys(m)) {
		fmt.Fprintf(&b, "| %s | %d |\n", k, m[k])
	}
	return b.String()
}

// minus returns after - before, per key, leaving out zeroes.
func minus(after, before map[string]int) map[string]int {
	d := map[string]int{}
	for k, v := range after {
		if v-before[k] != 0 {
			d[k] = v - before[k]
		}
	}
	return d
}

// TestWritesPerNewFile counts the API writes one new File costs, from its
// creation to Ready and its ProviderConfig counting it, by verb and
// resource. The ceiling is what the crossplane-runtime contract needs: one
// metadata write (external name, finalizer and create-pending together,
// before the external create), the ProviderConfigUsage, two status writes
// (Committing, then Available) and an Event for each of those two Ready
// transitions.
func TestWritesPerNewFile(t *testing.T) {
	const ceiling = 6
	counter := newWriteCounter()
	startProvider(t, "", counter.through())
	f := newFixture(t)
	pc := &v1alpha1.ProviderConfig{ObjectMeta: metav1.ObjectMeta{Namespace: f.ns, Name: "git"}}
	waitFor(t, 30*time.Second, pc, func() error {
		if pc.GetCondition("Ready").Status != corev1.ConditionTrue {
			return fmt.Errorf("not Ready yet")
		}
		return nil
	})

	before := counter.of(f.ns)
	fl := newFile(f, "one", "apps/one.yaml", "one\n")
	create(t, fl)
	waitFor(t, 30*time.Second, fl, readyAndCurrent(t, fl))
	writesLanded(t)
	// Events are sent in the background, and the usage count follows the
	// usage: wait for both before counting.
	waitEvent(t, f.ns, fl.Name, "Available")
	waitFor(t, 30*time.Second, pc, func() error {
		if pc.Status.Users != 1 {
			return fmt.Errorf("ProviderConfig counts %d users, want 1", pc.Status.Users)
		}
		return nil
	})
	got := minus(counter.of(f.ns), before)
	// The configuration's own status writes (the debounced usage count,
	// and a retry when one met a Conflict) are per configuration, not per
	// File: counted aside.
	pcWrites := 0
	for w, n := range got {
		if strings.Contains(w, "providerconfigs/status") {
			pcWrites += n
		}
	}
	perFile := total(got) - pcWrites
	t.Logf("\nAPI writes for one new File, from creation to Ready (%d, ProviderConfig status aside: %d)\n| write | count |\n|---|---|\n%s", perFile, pcWrites, show(got))
	if perFile > ceiling {
		t.Errorf("one new File cost %d API writes, want <= %d:\n%s", perFile, ceiling, show(got))
	}
}

// waitEvent waits for an Event with reason about the object named name in ns.
func waitEvent(t *testing.T, ns, name, reason string) {
	t.Helper()
	testenv.Eventually(t, 30*time.Second, func() error {
		l := &corev1.EventList{}
		if err := cp.Client.List(context.Background(), l, client.InNamespace(ns)); err != nil {
			return err
		}
		for _, e := range l.Items {
			if e.InvolvedObject.Name == name && e.Reason == reason {
				return nil
			}
		}
		return fmt.Errorf("no Event %s for %s yet", reason, name)
	})
}

// TestUsageCountDebounced creates a burst of Files on one ProviderConfig
// while the provider's clock stands still: no count is written while the
// debounce waits, however many usages arrive, and once config.UsageDebounce
// has passed one count covers them all, exactly, in one status write. The
// configuration's own poll is an hour here, so every count is the
// debounce's.
func TestUsageCountDebounced(t *testing.T) {
	const n = 100
	counter := newWriteCounter()
	clk := testingclock.NewFakeClock(time.Now())
	p := startProvider(t, "", withClock(clk), withPoll(time.Hour), counter.through())
	f := newFixture(t)
	pc := &v1alpha1.ProviderConfig{ObjectMeta: metav1.ObjectMeta{Namespace: f.ns, Name: "git"}}
	waitFor(t, 30*time.Second, pc, func() error {
		if pc.GetCondition("Ready").Status != corev1.ConditionTrue {
			return fmt.Errorf("not Ready yet")
		}
		return nil
	})
	// The write that made it Ready is counted once its response is back,
	// which may be after the test read Ready: wait for it, so that it is
	// not taken for a count.
	testenv.Eventually(t, 30*time.Second, func() error {
		if counter.of(f.ns)["PATCH providerconfigs/status"] == 0 {
			return fmt.Errorf("the Ready status write is not counted yet")
		}
		return nil
	})
	// Reconciles already asked for (the echo of the configuration's own
	// finalizer, its Secret's event) run before the burst, not in it, where
	// they would count usages on their own: a reconcile asked for now has
	// finished once the next one started.
	reconciledAgain(t, 1, true, pc)
	before := counter.of(f.ns)
	for i := range n {
		create(t, newFile(f, fmt.Sprintf("f-%03d", i), fmt.Sprintf("apps/f-%03d.yaml", i), "x\n"))
	}
	// Every usage is in the controllers' cache, so the count made when the
	// debounce passes sees them all.
	testenv.Eventually(t, time.Minute, func() error {
		l := &v1alpha1.ProviderConfigUsageList{}
		if err := p.client.List(context.Background(), l, client.InNamespace(f.ns)); err != nil {
			return err
		}
		if len(l.Items) != n {
			return fmt.Errorf("%d of %d usages in the provider's cache", len(l.Items), n)
		}
		return nil
	})
	writes := func() int { return minus(counter.of(f.ns), before)["PATCH providerconfigs/status"] }
	clk.Step(config.UsageDebounce - time.Nanosecond)
	if !clk.HasWaiters() {
		t.Fatal("no debounce waits for the clock: the usages asked for no count")
	}
	if got := writes(); got != 0 {
		t.Errorf("%d ProviderConfig status writes before the debounce passed, want 0", got)
	}
	clk.Step(time.Nanosecond)
	waitFor(t, time.Minute, pc, func() error {
		if pc.Status.Users != n {
			return fmt.Errorf("ProviderConfig counts %d users, want %d", pc.Status.Users, n)
		}
		return nil
	})
	if got := writes(); got != 1 {
		t.Errorf("%d ProviderConfig status writes for %d new Files once the debounce passed, want 1", got, n)
	}
}
