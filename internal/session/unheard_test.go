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
