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
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	kerrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/client-go/tools/record"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"

	"github.com/crossplane/crossplane-runtime/v2/pkg/errors"
	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"
)

// TestUnheardWriteAnnouncedOnce: a status write that carries a Ready
// transition fails; whatever became of it, the transition the API server
// ends up storing is announced by exactly one Event.
func TestUnheardWriteAnnouncedOnce(t *testing.T) {
	reset := errors.New("connection reset by peer")
	cases := map[string]struct {
		reason string
		// fail is the first write's fault; stored says whether it reached
		// the store anyway.
		fail   error
		stored bool
		// stale: the second reconcile reads the object as it was before
		// the first write (a lagging cache).
		stale bool
	}{
		"ReplyLost": {
			reason: "The write was stored but its reply lost: the next reconcile reads it back and announces it.",
			fail:   reset, stored: true,
		},
		"ReplyLostCacheLagging": {
			reason: "Read back from a cache that has not seen the write yet, the transition is neither announced nor forgotten; the next fresh read announces it.",
			fail:   reset, stored: true, stale: true,
		},
		"DroppedBeforeTheServer": {
			reason: "The write never reached the server: the next reconcile writes it and announces it, once.",
			fail:   reset,
		},
		"ServerTimedOut": {
			reason: "A timeout answered by the server is as ambiguous as no answer.",
			fail:   kerrors.NewTimeoutError("etcd", 1), stored: true,
		},
		"RefusedByTheServer": {
			reason: "A write the server refused was not stored: the next reconcile writes and announces it.",
			fail:   kerrors.NewInternalError(errors.New("boom")),
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			failed := false
			funcs := interceptor.Funcs{
				SubResourcePatch: func(ctx context.Context, c client.Client, sub string, obj client.Object, patch client.Patch, opts ...client.SubResourcePatchOption) error {
					if failed {
						return c.SubResource(sub).Patch(ctx, obj, patch, opts...)
					}
					failed = true
					if tc.stored {
						if err := c.SubResource(sub).Patch(ctx, obj, patch, opts...); err != nil {
							return err
						}
					}
					return tc.fail
				},
			}
			c, obj := env(t, newWidget(1), funcs)
			before := obj.DeepCopyObject().(*widget)
			rec := record.NewFakeRecorder(10)
			u := NewUnheard()
			reconcile := func(w *widget) *Session {
				s := Begin(c, w, WithRecorder(rec), WithUnheard(u))
				r := newTestReadiness()
				r.Progressing(corev1.ConditionFalse, xpv2.ReasonCreating, "cloning")
				s.ApplyReadiness(r)
				_ = s.Commit(context.Background())
				return s
			}
			if s := reconcile(obj); s.WriteLost() {
				t.Fatalf("%s\nthe first write was taken for a lost race", tc.reason)
			}
			if tc.stale {
				if s := reconcile(before); !s.WriteLost() {
					t.Fatalf("%s\na write from a stale read was not refused by the optimistic lock", tc.reason)
				}
			}
			reconcile(stored(t, c))
			reconcile(stored(t, c))
			if diff := cmp.Diff([]string{"Normal Creating cloning"}, drain(rec)); diff != "" {
				t.Errorf("%s\nEvents: -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}

// TestStoredSeenAfterStaleRead: a reconcile that read its object from before
// the last status write learns what is stored from its own metadata write
// (StoredSeen). A transition already announced is not announced again, and
// one stored by a write whose reply was lost is announced, once.
func TestStoredSeenAfterStaleRead(t *testing.T) {
	cases := map[string]struct {
		reason    string
		replyLost bool
		// then is what the second reconcile computes.
		then   *Readiness
		events []string
	}{
		"AnnouncedOnceAlready": {
			reason: "The first write landed and was announced; the second, from a stale read, computes the same Ready.",
			then:   creating(),
			events: []string{"Normal Creating cloning"},
		},
		"StoredButUnheard": {
			reason:    "The first write was stored but its reply lost; the second, from a stale read, moves on to Available.",
			replyLost: true,
			then:      converged(),
			events:    []string{"Normal Creating cloning", "Normal Available " + readyMsg},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			lost := false
			funcs := interceptor.Funcs{
				SubResourcePatch: func(ctx context.Context, c client.Client, sub string, obj client.Object, patch client.Patch, opts ...client.SubResourcePatchOption) error {
					if err := c.SubResource(sub).Patch(ctx, obj, patch, opts...); err != nil {
						return err
					}
					if tc.replyLost && !lost {
						lost = true
						return errors.New("connection reset by peer")
					}
					return nil
				},
			}
			c, obj := env(t, newWidget(1), funcs)
			stale := obj.DeepCopyObject().(*widget)
			rec := record.NewFakeRecorder(10)
			u := NewUnheard()

			s := Begin(c, obj, WithRecorder(rec), WithUnheard(u))
			s.ApplyReadiness(creating())
			_ = s.Commit(context.Background())

			s = Begin(c, stale, WithRecorder(rec), WithUnheard(u))
			fresh := stale.DeepCopyObject().(*widget)
			fresh.SetAnnotations(map[string]string{"written": "by the reconcile"})
			// A merge patch, as a finalizer or annotation write sends it: no
			// lock, and the reply is the object as stored.
			if err := c.Patch(context.Background(), fresh, client.MergeFrom(stale)); err != nil {
				t.Fatal(err)
			}
			stale.SetAnnotations(fresh.GetAnnotations())
			stale.SetResourceVersion(fresh.GetResourceVersion())
			s.MetadataWritten()
			s.StoredSeen(fresh)
			s.ApplyReadiness(tc.then)
			if err := s.Commit(context.Background()); err != nil {
				t.Fatalf("%s\nsecond Commit(): %v", tc.reason, err)
			}
			if diff := cmp.Diff(tc.events, drain(rec)); diff != "" {
				t.Errorf("%s\nEvents: -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}

func creating() *Readiness {
	r := newTestReadiness()
	r.Progressing(corev1.ConditionFalse, xpv2.ReasonCreating, "cloning")
	return r
}

// TestUnheardSettle: only an object newer than the one an unheard write
// was computed from tells whether the write was stored.
func TestUnheardSettle(t *testing.T) {
	committing := xpv2.Condition{Type: xpv2.TypeReady, Status: corev1.ConditionFalse, Reason: "Committing"}
	available := xpv2.Condition{Type: xpv2.TypeReady, Status: corev1.ConditionTrue, Reason: xpv2.ReasonAvailable}
	cases := map[string]struct {
		reason    string
		rv        string
		conds     []xpv2.Condition
		announce  bool
		remembers bool
	}{
		"NewerAndStored":    {reason: "A newer object holding the write's Ready: stored, announce it.", rv: "12", conds: []xpv2.Condition{committing}, announce: true},
		"NewerNotStored":    {reason: "A newer object without it: refused or superseded, forget it.", rv: "12", conds: []xpv2.Condition{available}},
		"Same":              {reason: "The object the write was computed from tells nothing.", rv: "10", conds: []xpv2.Condition{committing}, remembers: true},
		"OlderFromTheCache": {reason: "A lagging cache's older object tells nothing, even holding the same Ready.", rv: "9", conds: []xpv2.Condition{committing}, remembers: true},
		"NotComparable":     {reason: "A version that is no integer tells nothing.", rv: "abc", conds: []xpv2.Condition{committing}, remembers: true},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			u := NewUnheard()
			u.remember("uid", "10", committing)
			_, announce := u.settle("uid", tc.rv, tc.conds)
			_, remembers := u.m["uid"]
			if diff := cmp.Diff([]bool{tc.announce, tc.remembers}, []bool{announce, remembers}); diff != "" {
				t.Errorf("%s\n[announce, still remembered]: -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}
