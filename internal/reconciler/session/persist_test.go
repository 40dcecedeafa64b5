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

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/record"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"

	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"
)

func TestMetadataWritten(t *testing.T) {
	const finalizer = "finalizer.git.m.crossplane.io"
	type want struct {
		writeLost          bool
		patchMetadata      map[string]any
		finalizers         []string
		observedGeneration int64
		ready              bool
	}
	cases := map[string]struct {
		reason          string
		metadataWritten bool
		want            want
	}{
		"MetadataWritten": {
			reason:          "After the reconcile's own Update, the lock is taken on the version that Update left and the patch carries no metadata diff.",
			metadataWritten: true,
			want: want{
				patchMetadata:      map[string]any{"resourceVersion": "1000"},
				finalizers:         []string{finalizer},
				observedGeneration: 5,
				ready:              true,
			},
		},
		"WithoutMetadataWritten": {
			reason: "Without it the session conflicts with the reconcile's own write (this row proves the test can fail).",
			want: want{
				writeLost:     true,
				patchMetadata: map[string]any{"resourceVersion": "999", "finalizers": []any{finalizer}},
				finalizers:    []string{finalizer},
			},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			var p patchLog
			c, obj := env(t, newWidget(5), p.funcs(nil))
			s := Begin(c, obj)
			obj.Finalizers = append(obj.Finalizers, finalizer)
			if err := c.Update(context.Background(), obj); err != nil {
				t.Fatalf("Update(): %v", err)
			}
			if tc.metadataWritten {
				s.MetadataWritten()
			}
			s.ApplyReadiness(converged())
			if err := s.Commit(context.Background()); err != nil {
				t.Fatalf("Commit(): %v", err)
			}
			var body struct {
				Metadata map[string]any `json:"metadata"`
			}
			if len(p.bodies) != 1 {
				t.Fatalf("sent %d patches, want 1", len(p.bodies))
			}
			if err := json.Unmarshal([]byte(p.bodies[0]), &body); err != nil {
				t.Fatal(err)
			}
			got := stored(t, c)
			g := want{
				writeLost:          s.WriteLost(),
				patchMetadata:      body.Metadata,
				finalizers:         got.Finalizers,
				observedGeneration: got.Status.ObservedGeneration,
				ready:              Find(got.Status.Conditions, xpv2.TypeReady) != nil,
			}
			if diff := cmp.Diff(tc.want, g, cmp.AllowUnexported(want{})); diff != "" {
				t.Errorf("%s\n-want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}

func TestBeginStampsObservedGeneration(t *testing.T) {
	obj := newWidget(7)
	s := Begin(nil, obj)
	if obj.Status.ObservedGeneration != 7 {
		t.Errorf("status.observedGeneration = %d after Begin, want 7", obj.Status.ObservedGeneration)
	}
	if base := s.before.(*widget); base.Status.ObservedGeneration != 0 {
		t.Errorf("patch base observedGeneration = %d, want 0: the base must be taken before the stamp", base.Status.ObservedGeneration)
	}
	s.Set(xpv2.Condition{Type: "Axis", Status: corev1.ConditionTrue, Reason: "Ok"})
	if len(obj.Status.Conditions) != 1 || obj.Status.Conditions[0].ObservedGeneration != 7 {
		t.Errorf("Set must land in the object's own list at generation 7, got %+v", obj.Status.Conditions)
	}
}

func TestBeginTheStampAloneIsPersisted(t *testing.T) {
	// The only news is a new generation: it must still be written, or
	// kstatus reports the object stale forever.
	w := newWidget(4, trioConditions(converged(), 3)...)
	w.Status.ObservedGeneration = 3
	c, obj := env(t, w, interceptor.Funcs{})
	if err := Begin(c, obj).Commit(context.Background()); err != nil {
		t.Fatalf("Commit(): %v", err)
	}
	if got := stored(t, c).Status.ObservedGeneration; got != 4 {
		t.Errorf("stored observedGeneration = %d, want 4", got)
	}
}

func TestSetRefusesTheTrio(t *testing.T) {
	// ApplyReadiness is the only writer of Ready, Reconciling and Stalled; a
	// direct write is refused and logged rather than silently winning.
	trio := trioConditions(converged(), 1)
	obj := newWidget(1, trio...)
	log := &logRecorder{}
	s := Begin(nil, obj, WithLogger(log))
	s.Set(xpv2.Condition{Type: xpv2.TypeReady, Status: corev1.ConditionFalse, Reason: "Nope"})
	s.SetValue(TypeStalled, Verdict{Status: corev1.ConditionTrue, Reason: "Nope"})
	s.Remove(TypeReconciling)
	if diff := cmp.Diff(trio, obj.Status.Conditions); diff != "" {
		t.Errorf("trio must be untouched by Set/SetValue/Remove: -want, +got:\n%s", diff)
	}
	if diff := cmp.Diff([]string{msgTrioRefused, msgTrioRefused, msgTrioRefused}, log.infos); diff != "" {
		t.Errorf("each refusal is logged: -want, +got:\n%s", diff)
	}
}

func TestWritesArePersisted(t *testing.T) {
	axis := func(t xpv2.ConditionType, r xpv2.ConditionReason) xpv2.Condition {
		return xpv2.Condition{Type: t, Status: corev1.ConditionTrue, Reason: r, LastTransitionTime: t0, ObservedGeneration: 1}
	}
	cases := map[string]struct {
		reason string
		before []xpv2.Condition
		write  func(s *Session)
		want   []xpv2.Condition
	}{
		"EmptyReasonStoresUnspecified": {
			reason: "The API would reject an empty reason; Unspecified is stored instead.",
			write:  func(s *Session) { s.SetValue("Axis", Verdict{Status: corev1.ConditionTrue}) },
			want:   []xpv2.Condition{axis("Axis", ReasonUnspecified)},
		},
		"RemoveDropsOneAndKeepsOrder": {
			reason: "Remove persists the absence of the condition and the order of the rest.",
			before: []xpv2.Condition{axis("A", "Ok"), axis("B", "Ok"), axis("C", "Ok")},
			write:  func(s *Session) { s.Remove("B") },
			want:   []xpv2.Condition{axis("A", "Ok"), axis("C", "Ok")},
		},
		"RemoveTheLastCondition": {
			reason: "Removing the only condition persists an empty list.",
			before: []xpv2.Condition{axis("A", "Ok")},
			write:  func(s *Session) { s.Remove("A") },
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			c, obj := env(t, newWidget(1, tc.before...), interceptor.Funcs{})
			s := Begin(c, obj)
			s.now = func() metav1.Time { return t0 }
			tc.write(s)
			if err := s.Commit(context.Background()); err != nil {
				t.Fatalf("Commit(): %v", err)
			}
			if diff := cmp.Diff(tc.want, stored(t, c).Status.Conditions); diff != "" {
				t.Errorf("%s\nstored conditions: -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}

func TestSecondCommitBuildsOnTheFirst(t *testing.T) {
	// A session commits once by contract, but a second Commit must not
	// conflict with the first or announce its transition again: each commit
	// writes what changed since the last persisted state.
	var p patchLog
	c, obj := env(t, newWidget(1), p.funcs(nil))
	rec := record.NewFakeRecorder(10)
	s := Begin(c, obj, WithRecorder(rec))
	r := newTestReadiness()
	r.Progressing(corev1.ConditionFalse, xpv2.ReasonCreating, "cloning")
	s.ApplyReadiness(r)
	if err := s.Commit(context.Background()); err != nil {
		t.Fatalf("first Commit(): %v", err)
	}
	s.ApplyReadiness(converged())
	for range 2 {
		if err := s.Commit(context.Background()); err != nil {
			t.Fatalf("later Commit(): %v", err)
		}
	}
	if s.WriteLost() {
		t.Error("WriteLost() = true: the second commit conflicted with the first")
	}
	want := []string{"Normal Creating cloning", "Normal Available " + readyMsg}
	if diff := cmp.Diff(want, drain(rec)); diff != "" {
		t.Errorf("one Event per persisted transition: -want, +got:\n%s", diff)
	}
	if len(p.bodies) != 2 {
		t.Errorf("patches = %d, want 2 (the third commit is a no-op)", len(p.bodies))
	}
	if got := Find(stored(t, c).Status.Conditions, xpv2.TypeReady); got == nil || got.Status != corev1.ConditionTrue {
		t.Errorf("stored Ready = %v, want True", got)
	}
}
