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

package session

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/prometheus/client_golang/prometheus/testutil"
	corev1 "k8s.io/api/core/v1"
	kerrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/tools/record"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"

	"github.com/crossplane/crossplane-runtime/v2/pkg/errors"
	"github.com/crossplane/crossplane-runtime/v2/pkg/logging"
	"github.com/crossplane/crossplane-runtime/v2/pkg/test"
	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"
)

const cadence = 5 * time.Minute

var widgetsGR = schema.GroupResource{Group: widgetGVK.Group, Resource: "widgets"}

// logRecorder keeps Info messages so tests can assert what was logged.
type logRecorder struct{ infos []string }

func (l *logRecorder) Info(msg string, _ ...any)        { l.infos = append(l.infos, msg) }
func (l *logRecorder) Debug(string, ...any)             {}
func (l *logRecorder) WithValues(...any) logging.Logger { return l }

// trioConditions is what ApplyReadiness(r) stores at generation gen.
func trioConditions(r *Readiness, gen int64) []xpv2.Condition {
	tr := r.Trio()
	c := func(t xpv2.ConditionType, v Verdict) xpv2.Condition {
		return xpv2.Condition{Type: t, Status: v.Status, Reason: v.Reason, Message: v.Message, LastTransitionTime: t0, ObservedGeneration: gen}
	}
	return []xpv2.Condition{c(xpv2.TypeReady, tr.Ready), c(TypeReconciling, tr.Reconciling), c(TypeStalled, tr.Stalled)}
}

// converged is a readiness with nothing contributed.
func converged() *Readiness { return newTestReadiness() }

func TestCommitOutcome(t *testing.T) {
	errBoom := errors.New("boom")
	type want struct {
		err          error
		writeLost    bool
		requeue      time.Duration
		events       []string
		afterPersist int
		series       int
		logged       []string
		storedReady  *corev1.ConditionStatus
	}
	ready := corev1.ConditionTrue
	cases := map[string]struct {
		reason   string
		patchErr error
		want     want
	}{
		"Landed": {
			reason: "A landed write is not flagged as lost, keeps the caller's cadence, announces Ready, runs callbacks once.",
			want: want{
				requeue:      cadence,
				events:       []string{"Normal Available " + readyMsg},
				afterPersist: 1,
				series:       9,
				storedReady:  &ready,
			},
		},
		"Conflict": {
			reason:   "A lost race is recorded, not returned; the caller comes back in exactly 100ms; nothing announced or settled.",
			patchErr: kerrors.NewConflict(widgetsGR, testName, errors.New("object was modified")),
			want: want{
				writeLost: true,
				requeue:   RequeueWriteLostInterval,
				series:    9,
				logged:    []string{msgWriteLost},
			},
		},
		"NotFound": {
			reason:   "An object that is gone is not an error and settles nothing.",
			patchErr: kerrors.NewNotFound(widgetsGR, testName),
			want:     want{requeue: cadence, series: 9},
		},
		"OtherError": {
			reason:   "Any other failure is returned wrapped so controller-runtime backs off; metrics were still published.",
			patchErr: errBoom,
			want:     want{err: errors.Wrap(errBoom, errPatchStatus), requeue: cadence, series: 9},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			var p patchLog
			c, obj := env(t, newWidget(2), p.funcs(tc.patchErr))
			rec := record.NewFakeRecorder(10)
			m := NewConditionMetrics()
			log := &logRecorder{}
			s := Begin(c, obj, WithRecorder(rec), WithMetrics(m, testKind), WithLogger(log))
			ran := 0
			s.AfterPersist(func() { ran++ })
			s.ApplyReadiness(converged())

			err := s.Commit(context.Background())

			var storedReady *corev1.ConditionStatus
			if r := Find(stored(t, c).Status.Conditions, xpv2.TypeReady); r != nil {
				storedReady = &r.Status
			}
			got := want{
				err:          err,
				writeLost:    s.WriteLost(),
				requeue:      s.RequeueAfter(cadence),
				events:       drain(rec),
				afterPersist: ran,
				series:       testutil.CollectAndCount(m, MetricResourceCondition),
				logged:       log.infos,
				storedReady:  storedReady,
			}
			if diff := cmp.Diff(tc.want, got, test.EquateErrors(), cmp.AllowUnexported(want{})); diff != "" {
				t.Errorf("%s\nCommit(): -want, +got:\n%s", tc.reason, diff)
			}
			if len(p.bodies) != 1 {
				t.Errorf("%s\nCommit() sent %d patches, want exactly 1 (no retry)", tc.reason, len(p.bodies))
			}
		})
	}
}

func TestCommitLostRaceAgainstStaleRead(t *testing.T) {
	// Two reconciles read the same resourceVersion (the second from a lagging
	// cache). The first lands; the second must lose to the real optimistic
	// lock, not overwrite it.
	c, first := env(t, newWidget(1), interceptor.Funcs{})
	second := first.DeepCopyObject().(*widget)

	s1 := Begin(c, first)
	r := newTestReadiness()
	r.Progressing(corev1.ConditionFalse, xpv2.ReasonCreating, "first")
	s1.ApplyReadiness(r)
	if err := s1.Commit(context.Background()); err != nil {
		t.Fatalf("first Commit(): %v", err)
	}

	s2 := Begin(c, second)
	s2.ApplyReadiness(converged())
	if err := s2.Commit(context.Background()); err != nil {
		t.Fatalf("second Commit(): want nil for a lost race, got %v", err)
	}
	if !s2.WriteLost() || s2.RequeueAfter(cadence) != RequeueWriteLostInterval {
		t.Errorf("second session: WriteLost()=%t RequeueAfter()=%s, want true and %s", s2.WriteLost(), s2.RequeueAfter(cadence), RequeueWriteLostInterval)
	}
	if s1.WriteLost() {
		t.Error("first session: WriteLost() = true for a landed write")
	}
	if got := Find(stored(t, c).Status.Conditions, xpv2.TypeReady); got == nil || got.Message != "first" {
		t.Errorf("stored Ready = %v, want the first (winning) write", got)
	}
}

func TestCommitPatchCarriesOptimisticLock(t *testing.T) {
	var p patchLog
	c, obj := env(t, newWidget(3), p.funcs(nil))
	readRV := obj.GetResourceVersion()
	s := Begin(c, obj)
	s.ApplyReadiness(converged())
	if err := s.Commit(context.Background()); err != nil {
		t.Fatalf("Commit(): %v", err)
	}
	if len(p.bodies) != 1 {
		t.Fatalf("sent %d patches, want 1", len(p.bodies))
	}
	var body struct {
		Metadata map[string]any `json:"metadata"`
		Status   map[string]any `json:"status"`
	}
	if err := json.Unmarshal([]byte(p.bodies[0]), &body); err != nil {
		t.Fatalf("patch body %q: %v", p.bodies[0], err)
	}
	if diff := cmp.Diff(map[string]any{"resourceVersion": readRV}, body.Metadata); diff != "" {
		t.Errorf("patch metadata must be exactly the resourceVersion as read: -want, +got:\n%s", diff)
	}
	if body.Status["observedGeneration"] != float64(3) || body.Status["conditions"] == nil {
		t.Errorf("patch status = %v, want observedGeneration 3 and the conditions", body.Status)
	}
}

func TestCommitNoOp(t *testing.T) {
	// A reconcile that computes what the object already holds sends nothing
	// (breaking the status-write -> watch event -> requeue loop), still
	// publishes metrics, settles callbacks and announces nothing.
	storedObj := newWidget(2, trioConditions(converged(), 2)...)
	storedObj.Status.ObservedGeneration = 2

	t.Run("FakeClient", func(t *testing.T) {
		var p patchLog
		c, obj := env(t, storedObj, p.funcs(nil))
		rec := record.NewFakeRecorder(10)
		m := NewConditionMetrics()
		s := Begin(c, obj, WithRecorder(rec), WithMetrics(m, testKind))
		ran := false
		s.AfterPersist(func() { ran = true })
		s.ApplyReadiness(converged())
		if err := s.Commit(context.Background()); err != nil {
			t.Fatalf("Commit(): %v", err)
		}
		if len(p.bodies) != 0 || !ran || testutil.CollectAndCount(m, MetricResourceCondition) != 9 {
			t.Errorf("patches=%d afterPersist=%t series=%d, want 0, true, 9", len(p.bodies), ran, testutil.CollectAndCount(m, MetricResourceCondition))
		}
		if ev := drain(rec); len(ev) != 0 {
			t.Errorf("no-op commit emitted Events %v", ev)
		}
	})
	t.Run("NilClient", func(t *testing.T) {
		// A nil client proves no API call is made at all.
		obj := storedObj.DeepCopyObject().(*widget)
		m := NewConditionMetrics()
		s := Begin(nil, obj, WithMetrics(m, testKind))
		s.ApplyReadiness(converged())
		if err := s.Commit(context.Background()); err != nil {
			t.Fatalf("Commit(): %v", err)
		}
		if n := testutil.CollectAndCount(m, MetricResourceCondition); n != 9 {
			t.Errorf("series = %d, want 9 published on a no-op commit", n)
		}
	})
}

func TestAfterPersistRunsInOrderOnce(t *testing.T) {
	c, obj := env(t, newWidget(1), interceptor.Funcs{})
	s := Begin(c, obj)
	var order []int
	s.AfterPersist(func() { order = append(order, 1) })
	s.AfterPersist(func() { order = append(order, 2) })
	s.ApplyReadiness(converged())
	for range 2 {
		if err := s.Commit(context.Background()); err != nil {
			t.Fatalf("Commit(): %v", err)
		}
	}
	if diff := cmp.Diff([]int{1, 2}, order); diff != "" {
		t.Errorf("callbacks run in registration order, once across commits: -want, +got:\n%s", diff)
	}
}

func TestCommitDeletedForGood(t *testing.T) {
	// The reconcile that removed the last finalizer of an object being
	// deleted sends no status patch (the API server deleted the object, so
	// it could only be answered NotFound), announces nothing and leaves no
	// series behind. While a finalizer holds the object its status is
	// written.
	cases := map[string]struct {
		reason     string
		finalizers []string
		patches    int
		series     int
	}{
		"NoFinalizerLeft": {
			reason: "Nothing holds the object: it is gone.",
		},
		"AnotherFinalizerHolds": {
			reason:     "Another finalizer keeps the object: Deleting is written and published.",
			finalizers: []string{"example.org/other"},
			patches:    1,
			series:     9,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			stored := newWidget(2, trioConditions(converged(), 2)...)
			stored.Status.ObservedGeneration = 2
			now := metav1.Now()
			stored.DeletionTimestamp = &now
			stored.Finalizers = append([]string{"finalizer.example.org"}, tc.finalizers...)
			var p patchLog
			c, obj := env(t, stored, p.funcs(nil))
			rec := record.NewFakeRecorder(10)
			m := NewConditionMetrics()
			s := Begin(c, obj, WithRecorder(rec), WithMetrics(m, testKind))
			// What removing the reconcile's own finalizer leaves.
			obj.SetFinalizers(tc.finalizers)
			s.MetadataWritten()
			deleting := newTestReadiness()
			deleting.Progressing(corev1.ConditionFalse, xpv2.ReasonDeleting, "deleting")
			s.ApplyReadiness(deleting)
			if err := s.Commit(context.Background()); err != nil {
				t.Fatalf("Commit(): %v", err)
			}
			if got := len(p.bodies); got != tc.patches {
				t.Errorf("%s\nstatus patches: want %d, got %d", tc.reason, tc.patches, got)
			}
			if got := testutil.CollectAndCount(m, MetricResourceCondition); got != tc.series {
				t.Errorf("%s\nseries: want %d, got %d", tc.reason, tc.series, got)
			}
			if ev := drain(rec); tc.patches == 0 && len(ev) != 0 {
				t.Errorf("%s\nEvents of a gone object: %v", tc.reason, ev)
			}
		})
	}
}
