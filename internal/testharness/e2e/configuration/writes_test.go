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

package configuration_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	testingclock "k8s.io/utils/clock/testing"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/crossplane-contrib/provider-git/apis/v1alpha1"
	"github.com/crossplane-contrib/provider-git/internal/controller/config"
	"github.com/crossplane-contrib/provider-git/internal/testharness/e2e"
	"github.com/crossplane-contrib/provider-git/internal/testharness/testenv"
)

// TestWritesPerNewFile counts the API writes one new File costs, from its
// creation to Ready and its ProviderConfig counting it, by verb and
// resource. The ceiling is what the crossplane-runtime contract needs: one
// metadata write (external name, finalizer and create-pending together,
// before the external create), the ProviderConfigUsage, two status writes
// (Committing, then Available) and an Event for each of those two Ready
// transitions.
func TestWritesPerNewFile(t *testing.T) {
	const ceiling = 6
	counter := e2e.NewWriteCounter()
	e2e.StartProvider(t, "", counter.Through())
	f := e2e.NewFixture(t)
	pc := &v1alpha1.ProviderConfig{ObjectMeta: metav1.ObjectMeta{Namespace: f.Namespace, Name: "git"}}
	e2e.WaitFor(t, 30*time.Second, pc, func() error {
		if pc.GetCondition("Ready").Status != corev1.ConditionTrue {
			return fmt.Errorf("not Ready yet")
		}
		return nil
	})

	// The configuration's own Ready Event is sent in the background and may
	// land after Ready is read: wait until every Event of the namespace so
	// far (the configuration's) is counted, so that none is taken for the
	// File's.
	pcEvents := waitEventsCounted(t, counter, f.Namespace, pc.Name)
	before := counter.Of(f.Namespace)
	fl := e2e.NewFile(f, "one", "apps/one.yaml", "one\n")
	e2e.Create(t, fl)
	e2e.WaitFor(t, 30*time.Second, fl, e2e.ReadyAndCurrent(t, fl))
	e2e.WritesLanded(t)
	// Events are sent in the background, and the usage count follows the
	// usage: wait for both before counting.
	waitEvent(t, f.Namespace, fl.Name, "Available")
	e2e.WaitFor(t, 30*time.Second, pc, func() error {
		if pc.Status.Users != 1 {
			return fmt.Errorf("ProviderConfig counts %d users, want 1", pc.Status.Users)
		}
		return nil
	})
	got := e2e.Minus(counter.Of(f.Namespace), before)
	// The configuration's own status writes (the debounced usage count,
	// and a retry when one met a Conflict) are per configuration, not per
	// File: counted aside.
	pcWrites := 0
	for w, n := range got {
		if strings.Contains(w, "providerconfigs/status") {
			pcWrites += n
		}
	}
	perFile := e2e.Total(got) - pcWrites
	t.Logf("\nAPI writes for one new File, from creation to Ready (%d, ProviderConfig status aside: %d)\n| write | count |\n|---|---|\n%s", perFile, pcWrites, e2e.Show(got))
	if perFile > ceiling {
		t.Errorf("one new File cost %d API writes, want <= %d:\n%s\nEvents of the namespace (the configuration's %d counted before):\n%s",
			perFile, ceiling, e2e.Show(got), pcEvents, eventsOf(t, f.Namespace))
	}
}

// waitEventsCounted waits for name's Ready Event in ns and until counter has
// counted as many Event writes in ns as ns holds Events, and returns that
// number.
func waitEventsCounted(t *testing.T, counter *e2e.WriteCounter, ns, name string) int {
	t.Helper()
	n := 0
	testenv.Eventually(t, 30*time.Second, func() error {
		l := &corev1.EventList{}
		if err := e2e.CP.Client.List(context.Background(), l, client.InNamespace(ns)); err != nil {
			return err
		}
		n = len(l.Items)
		if n == 0 {
			return fmt.Errorf("no Event for %s yet", name)
		}
		if c := counter.Of(ns)["POST events"]; c < n {
			return fmt.Errorf("%d of %d Events of %s counted", c, n, ns)
		}
		return nil
	})
	return n
}

// eventsOf lists the Events of ns, one per line, for a failure's message.
func eventsOf(t *testing.T, ns string) string {
	t.Helper()
	l := &corev1.EventList{}
	if err := e2e.CP.Client.List(context.Background(), l, client.InNamespace(ns)); err != nil {
		return err.Error()
	}
	var b strings.Builder
	for _, e := range l.Items {
		fmt.Fprintf(&b, "%s %s/%s %s %s (x%d): %s\n", e.CreationTimestamp.UTC().Format(time.RFC3339), e.InvolvedObject.Kind, e.InvolvedObject.Name, e.Type, e.Reason, e.Count, e.Message)
	}
	return b.String()
}

// waitEvent waits for an Event with reason about the object named name in ns.
func waitEvent(t *testing.T, ns, name, reason string) {
	t.Helper()
	testenv.Eventually(t, 30*time.Second, func() error {
		l := &corev1.EventList{}
		if err := e2e.CP.Client.List(context.Background(), l, client.InNamespace(ns)); err != nil {
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
	counter := e2e.NewWriteCounter()
	clk := testingclock.NewFakeClock(time.Now())
	p := e2e.StartProvider(t, "", e2e.WithClock(clk), e2e.WithPoll(time.Hour), counter.Through())
	f := e2e.NewFixture(t)
	pc := &v1alpha1.ProviderConfig{ObjectMeta: metav1.ObjectMeta{Namespace: f.Namespace, Name: "git"}}
	e2e.WaitFor(t, 30*time.Second, pc, func() error {
		if pc.GetCondition("Ready").Status != corev1.ConditionTrue {
			return fmt.Errorf("not Ready yet")
		}
		return nil
	})
	// The write that made it Ready was counted before it was sent
	// (e2e.WriteCounter), so it is not taken for a count below.
	// Reconciles already asked for (the echo of the configuration's own
	// finalizer, its Secret's event) run before the burst, not in it, where
	// they would count usages on their own: a reconcile asked for now has
	// finished once the next one started.
	e2e.ReconciledAgain(t, 1, true, pc)
	before := counter.Of(f.Namespace)
	for i := range n {
		e2e.Create(t, e2e.NewFile(f, fmt.Sprintf("f-%03d", i), fmt.Sprintf("apps/f-%03d.yaml", i), "x\n"))
	}
	// Every usage is in the controllers' cache, so the count made when the
	// debounce passes sees them all.
	testenv.Eventually(t, time.Minute, func() error {
		l := &v1alpha1.ProviderConfigUsageList{}
		if err := p.Client.List(context.Background(), l, client.InNamespace(f.Namespace)); err != nil {
			return err
		}
		if len(l.Items) != n {
			return fmt.Errorf("%d of %d usages in the provider's cache", len(l.Items), n)
		}
		return nil
	})
	writes := func() int { return e2e.Minus(counter.Of(f.Namespace), before)["PATCH providerconfigs/status"] }
	clk.Step(config.UsageDebounce - time.Nanosecond)
	if !clk.HasWaiters() {
		t.Fatal("no debounce waits for the clock: the usages asked for no count")
	}
	if got := writes(); got != 0 {
		t.Errorf("%d ProviderConfig status writes before the debounce passed, want 0", got)
	}
	clk.Step(time.Nanosecond)
	e2e.WaitFor(t, time.Minute, pc, func() error {
		if pc.Status.Users != n {
			return fmt.Errorf("ProviderConfig counts %d users, want %d", pc.Status.Users, n)
		}
		return nil
	})
	if got := writes(); got != 1 {
		t.Errorf("%d ProviderConfig status writes for %d new Files once the debounce passed, want 1", got, n)
	}
}
