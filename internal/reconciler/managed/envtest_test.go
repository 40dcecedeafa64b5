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

package managed

import (
	"context"
	"fmt"
	"strconv"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/cli-utils/pkg/kstatus/status"

	"github.com/crossplane/crossplane-runtime/v2/pkg/meta"
	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"

	"github.com/crossplane-contrib/provider-git/internal/testharness/testkind/v1alpha1"
)

func TestEnvCreateToAvailable(t *testing.T) {
	e := startEnv(t, envOptions{poll: time.Second})
	e.create(t, e.thing("a"))
	th := e.waitFor(t, "a", "Ready=True", converges)

	if got := kstatusOf(t, th); got != status.CurrentStatus {
		t.Errorf("kstatus of a converged resource: want Current, got %s", got)
	}
	if got := condOf(th, xpv2.TypeReady).Reason; got != xpv2.ReasonAvailable {
		t.Errorf("Ready reason: want Available, got %s", got)
	}
	if _, ok := e.st.get(e.ns + "/a"); !ok {
		t.Error("external thing was not created")
	}
	if !meta.FinalizerExists(th, finalizerName) || meta.GetExternalName(th) != "a" {
		t.Errorf("finalizer or external name missing: %v %v", th.Finalizers, th.Annotations)
	}
	for _, c := range th.Status.Conditions {
		if c.ObservedGeneration != th.Generation {
			t.Errorf("condition %s observedGeneration: want %d, got %d", c.Type, th.Generation, c.ObservedGeneration)
		}
	}
}

func TestEnvDriftAndSpecChange(t *testing.T) {
	e := startEnv(t, envOptions{poll: time.Second})
	e.create(t, e.thing("a"))
	e.waitFor(t, "a", "Ready=True", converges)
	k := e.ns + "/a"

	// Drift in the external system is found by polling and corrected.
	e.st.put(k, extThing{Value: "drifted", Colour: "blue"})
	e.waitFor(t, "a", "drift corrected", func(th *v1alpha1.Thing, ok bool) bool {
		x, _ := e.st.get(k)
		return converges(th, ok) && x.Value == "v1" && th.Status.AtProvider.Value == "v1"
	})
	if e.st.updates.Load() == 0 {
		t.Error("drift was not corrected through Update")
	}

	// A spec change not yet observed reads InProgress (observedGeneration
	// lags), then Current once reconciled.
	updated := e.mutate(t, "a", func(th *v1alpha1.Thing) { th.Spec.ForProvider.Value = "v2" })
	if got := kstatusOf(t, updated); got != status.InProgressStatus {
		t.Errorf("kstatus right after a spec change: want InProgress, got %s", got)
	}
	th := e.waitFor(t, "a", "v2 applied", func(th *v1alpha1.Thing, ok bool) bool {
		x, _ := e.st.get(k)
		return converges(th, ok) && x.Value == "v2" && th.Status.AtProvider.Value == "v2"
	})
	if got := kstatusOf(t, th); got != status.CurrentStatus {
		t.Errorf("kstatus after the change converged: want Current, got %s", got)
	}
}

func TestEnvDelete(t *testing.T) {
	cases := map[string]struct {
		reason   string
		policies xpv2.ManagementPolicies
		wantKept bool
	}{
		"WithDelete": {
			reason:   "With Delete in managementPolicies the external resource is deleted before the finalizer goes.",
			policies: xpv2.ManagementPolicies{xpv2.ManagementActionAll},
		},
		"WithoutDelete": {
			reason:   "Without Delete the external resource is orphaned.",
			policies: xpv2.ManagementPolicies{xpv2.ManagementActionObserve, xpv2.ManagementActionCreate, xpv2.ManagementActionUpdate, xpv2.ManagementActionLateInitialize},
			wantKept: true,
		},
	}
	e := startEnv(t, envOptions{poll: time.Second})
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			th := e.thing(name)
			th.Name = "del-" + map[bool]string{true: "orphan", false: "delete"}[tc.wantKept]
			th.Spec.ManagementPolicies = tc.policies
			e.create(t, th)
			e.waitFor(t, th.Name, "Ready=True", converges)
			if err := e.c.Delete(context.Background(), th); err != nil {
				t.Fatal(err)
			}
			e.waitFor(t, th.Name, "gone", func(_ *v1alpha1.Thing, ok bool) bool { return !ok })
			if _, kept := e.st.get(e.ns + "/" + th.Name); kept != tc.wantKept {
				t.Errorf("%s\nexternal resource kept: want %v, got %v", tc.reason, tc.wantKept, kept)
			}
		})
	}
}

func TestEnvObserveOnly(t *testing.T) {
	e := startEnv(t, envOptions{poll: time.Second})
	e.st.put(e.ns+"/present", extThing{Value: "theirs", Colour: "green"})

	e.create(t, e.thing("present", withPolicies(xpv2.ManagementActionObserve)))
	th := e.waitFor(t, "present", "Ready=True", converges)
	if x, _ := e.st.get(e.ns + "/present"); x.Value != "theirs" {
		t.Errorf("observe-only changed the external resource: %+v", x)
	}
	if th.Status.AtProvider.Value != "theirs" || kstatusOf(t, th) != status.CurrentStatus {
		t.Errorf("observe-only present: want atProvider theirs and Current, got %q %s", th.Status.AtProvider.Value, kstatusOf(t, th))
	}

	e.create(t, e.thing("missing", withPolicies(xpv2.ManagementActionObserve)))
	th = e.waitFor(t, "missing", "Unavailable", func(th *v1alpha1.Thing, ok bool) bool {
		return ok && condOf(th, xpv2.TypeReady).Reason == xpv2.ReasonUnavailable
	})
	if got := kstatusOf(t, th); got != status.InProgressStatus {
		t.Errorf("observe-only missing: want InProgress, got %s", got)
	}
	if e.st.creates.Load() != 0 {
		t.Errorf("observe-only created %d external resources", e.st.creates.Load())
	}
}

func TestEnvPause(t *testing.T) {
	e := startEnv(t, envOptions{poll: 200 * time.Millisecond})
	e.create(t, e.thing("a"))
	e.waitFor(t, "a", "Ready=True", converges)
	k := e.ns + "/a"

	e.mutate(t, "a", func(th *v1alpha1.Thing) {
		meta.AddAnnotations(th, map[string]string{meta.AnnotationKeyReconciliationPaused: "true"})
	})
	e.waitFor(t, "a", "paused", func(th *v1alpha1.Thing, ok bool) bool {
		return ok && condOf(th, xpv2.TypeSynced).Reason == xpv2.ReasonReconcilePaused
	})
	e.st.put(k, extThing{Value: "drifted", Colour: "blue"})
	updates := e.st.updates.Load()
	// A paused resource is not polled, so waiting would prove nothing: make
	// the controller run. Each label change is a desired-state change that
	// queues a reconcile; wait for each to start before the next, so they
	// are not merged into one. Four starts after the drift are three
	// finished reconciles that left it alone.
	from := e.reconcilesStarted("a")
	for i := range 4 {
		e.mutate(t, "a", func(th *v1alpha1.Thing) { meta.AddLabels(th, map[string]string{"poke": strconv.Itoa(i)}) })
		e.waitReconciled(t, "a", from, i)
	}
	if x, _ := e.st.get(k); x.Value != "drifted" || e.st.updates.Load() != updates {
		t.Errorf("a paused resource was reconciled: %+v", x)
	}

	e.mutate(t, "a", func(th *v1alpha1.Thing) { meta.RemoveAnnotations(th, meta.AnnotationKeyReconciliationPaused) })
	e.waitFor(t, "a", "resumed and corrected", func(th *v1alpha1.Thing, ok bool) bool {
		x, _ := e.st.get(k)
		return converges(th, ok) && x.Value == "v1"
	})
}

func TestEnvErrors(t *testing.T) {
	cases := map[string]struct {
		reason      string
		err         error
		wantKstatus status.Status
		wantReady   corev1.ConditionStatus
		wantReason  xpv2.ConditionReason
	}{
		"Transient": {
			reason:      "A plain error is progressing: InProgress while it lasts, Current once it clears.",
			err:         fmt.Errorf("connection reset"),
			wantKstatus: status.InProgressStatus,
			wantReady:   corev1.ConditionUnknown,
			wantReason:  xpv2.ReasonReconcileError,
		},
		"Stalled": {
			reason:      "A Stalled error is Failed with its own reason until a human fixes it.",
			err:         Stalled("AuthenticationFailed", fmt.Errorf("token refused")),
			wantKstatus: status.FailedStatus,
			wantReady:   corev1.ConditionFalse,
			wantReason:  "AuthenticationFailed",
		},
	}
	e := startEnv(t, envOptions{poll: 500 * time.Millisecond})
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			_, stalled := StalledReason(tc.err)
			n := "err-" + map[bool]string{true: "stalled", false: "transient"}[stalled]
			e.create(t, e.thing(n))
			e.waitFor(t, n, "Ready=True", converges)

			e.st.setObserveErr(e.ns+"/"+n, tc.err)
			th := e.waitFor(t, n, "error reported", func(th *v1alpha1.Thing, ok bool) bool {
				return ok && condOf(th, xpv2.TypeSynced).Reason == xpv2.ReasonReconcileError
			})
			if got := kstatusOf(t, th); got != tc.wantKstatus {
				t.Errorf("%s\nkstatus: want %s, got %s", tc.reason, tc.wantKstatus, got)
			}
			if r := condOf(th, xpv2.TypeReady); r.Status != tc.wantReady || r.Reason != tc.wantReason {
				t.Errorf("%s\nReady: want %s/%s, got %s/%s", tc.reason, tc.wantReady, tc.wantReason, r.Status, r.Reason)
			}

			e.st.setObserveErr(e.ns+"/"+n, nil)
			th = e.waitFor(t, n, "recovered", converges)
			if got := kstatusOf(t, th); got != status.CurrentStatus {
				t.Errorf("%s\nkstatus after recovery: want Current, got %s", tc.reason, got)
			}
		})
	}
}

func TestEnvLostStatusWriteComesBack(t *testing.T) {
	// The poll interval is an hour: only the prompt lost-write requeue can
	// bring the resource back, because the predicate filters status-only
	// updates.
	e := startEnv(t, envOptions{poll: time.Hour})
	e.create(t, e.thing("a"))
	th := e.waitFor(t, "a", "Ready=True", converges)

	// A spec change that needs no external update converges in one
	// reconcile; the first status write for the new generation is rejected.
	e.fc.rejectGen.Store(th.Generation + 1)
	e.mutate(t, "a", func(th *v1alpha1.Thing) { th.Spec.ForProvider.Colour = ptr("red") })
	th = e.waitFor(t, "a", "status of the new generation persisted", converges)

	// The API server may store the landed write, and this test read it,
	// before the write's reply reaches the client that records it.
	deadline := time.Now().Add(waitTimeout)
	e.fc.mu.Lock()
	for e.fc.lostSeq > 0 && e.fc.landSeq == 0 && time.Now().Before(deadline) {
		e.fc.mu.Unlock()
		time.Sleep(10 * time.Millisecond)
		e.fc.mu.Lock()
	}
	defer e.fc.mu.Unlock()
	if e.fc.lostSeq == 0 {
		t.Fatal("no status write was rejected; the test proves nothing")
	}
	if e.fc.landSeq < e.fc.lostSeq {
		t.Errorf("the rejected write was never replaced by a landed one")
	}
	if got := kstatusOf(t, th); got != status.CurrentStatus {
		t.Errorf("kstatus: want Current, got %s", got)
	}
	t.Logf("lost write replaced after %s (poll interval 1h)", e.fc.landAt.Sub(e.fc.lostAt))
}

func TestEnvSteadyStateWritesNoStatus(t *testing.T) {
	e := startEnv(t, envOptions{poll: 100 * time.Millisecond})
	e.create(t, e.thing("a"))
	th := e.waitFor(t, "a", "Ready=True", converges)
	// Once the cache holds the converged resource, every reconcile that
	// starts works from it; one that started earlier, from an older copy,
	// may still write. Let one later reconcile finish so it has.
	e.waitCached(t, "a", th.ResourceVersion)
	e.waitReconciled(t, "a", e.reconcilesStarted("a"), 1)
	writes, observes, rv := e.fc.statusWrites.Load(), e.st.observes.Load(), th.ResourceVersion

	// Polled every 100ms; three reconciles that started after the counts
	// above, and finished, are three polls.
	e.waitReconciled(t, "a", e.reconcilesStarted("a"), 3)
	if got := e.st.observes.Load() - observes; got < 3 {
		t.Fatalf("only %d observations in 3 polls; the test proves nothing", got)
	}
	if got := e.fc.statusWrites.Load() - writes; got != 0 {
		t.Errorf("status writes in steady state: want 0, got %d", got)
	}
	if th, _ := e.get(t, "a"); th.ResourceVersion != rv {
		t.Errorf("resourceVersion moved in steady state: %s -> %s", rv, th.ResourceVersion)
	}
}
