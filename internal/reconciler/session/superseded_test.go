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

	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"
	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	kerrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// TestSupersededRecognisesAStaleRead: after a landed status write, the
// version it replaced is a stale read (the cache has not seen the write);
// the version it made, or any other, is not, and ends the memory. A write
// that did not land replaced nothing; a gone object is forgotten.
func TestSupersededRecognisesAStaleRead(t *testing.T) {
	type want struct {
		staleAsRead bool
		staleAfter  bool
	}
	cases := map[string]struct {
		reason     string
		patchErr   error
		metadata   bool
		noChange   bool
		secondRead bool
		// seeded: an earlier write of the object replaced the version as read.
		seeded bool
		want   want
	}{
		"LandedWrite": {
			reason: "The version the write replaced is stale; the one it made is news.",
			want:   want{staleAsRead: true},
		},
		"SecondReadOfTheReplacedVersion": {
			reason:     "A stale read does not end the memory: the cache may serve it again until it caught up.",
			secondRead: true,
			want:       want{staleAsRead: true},
		},
		"NoChange": {
			reason:   "Nothing written, nothing replaced: the version as read is current.",
			noChange: true,
			want:     want{},
		},
		"MetadataThenNoStatusChange": {
			reason:   "A metadata write of the reconcile replaced the version as read, even when the status patch is empty.",
			metadata: true,
			noChange: true,
			want:     want{staleAsRead: true},
		},
		"Conflict": {
			reason:   "A refused write replaced nothing (this row proves the test can fail).",
			patchErr: kerrors.NewConflict(schema.GroupResource{Resource: "widgets"}, testName, nil),
			want:     want{},
		},
		"Gone": {
			reason:   "A gone object is forgotten, whatever an earlier write replaced.",
			patchErr: kerrors.NewNotFound(schema.GroupResource{Resource: "widgets"}, testName),
			seeded:   true,
			want:     want{},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			var p patchLog
			w := newWidget(1)
			w.Status.ObservedGeneration = 1
			c, obj := env(t, w, p.funcs(tc.patchErr))
			readRV := obj.GetResourceVersion()
			sup := NewSuperseded()
			if sup.Stale(testKey, readRV) {
				t.Fatalf("Stale(%q) before any write = true", readRV)
			}
			if tc.seeded {
				sup.record(testKey, []string{readRV})
			}
			s := Begin(c, obj, WithSuperseded(sup))
			if tc.metadata {
				obj.SetFinalizers([]string{"f"})
				if err := c.Update(context.Background(), obj); err != nil {
					t.Fatal(err)
				}
				s.MetadataWritten()
			}
			if !tc.noChange {
				r := newTestReadiness()
				r.Progressing(corev1.ConditionFalse, xpv2.ReasonCreating, "new")
				s.ApplyReadiness(r)
			}
			if err := s.Commit(context.Background()); err != nil {
				t.Fatalf("Commit(): %v", err)
			}
			got := want{staleAsRead: sup.Stale(testKey, readRV)}
			if tc.secondRead {
				got.staleAsRead = sup.Stale(testKey, readRV)
			}
			now := &widget{}
			if err := c.Get(context.Background(), client.ObjectKeyFromObject(obj), now); err == nil && now.GetResourceVersion() != readRV {
				got.staleAfter = sup.Stale(testKey, now.GetResourceVersion())
				if sup.Stale(testKey, readRV) {
					t.Errorf("%s\nStale(as read) after the current version was read = true, want the memory ended", tc.reason)
				}
			}
			if diff := cmp.Diff(tc.want, got, cmp.AllowUnexported(want{})); diff != "" {
				t.Errorf("%s\n-want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}
