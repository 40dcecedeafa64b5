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

package mirror

import (
	"context"
	"testing"

	"github.com/crossplane/crossplane-runtime/v2/pkg/errors"
	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"
	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"

	"github.com/crossplane-contrib/provider-git/internal/git"
	"github.com/crossplane-contrib/provider-git/internal/mirror"
	"github.com/crossplane-contrib/provider-git/internal/reconciler/managed"
	"github.com/crossplane-contrib/provider-git/internal/reconciler/spec"
)

// TestRefusedRetryStaysStalled: a Mirror Stalled on a refused push retries
// the push at each poll and stays Stalled as published while the retry is
// under way. A reconcile that comes while the retry waits in the commit
// window (Queued) or is being pushed (InFlight), woken by anything or by a
// poll that outran a slow push, published Committing, and the retry's
// refusal then published the Stalled state again: two status writes for
// nothing that changed (TestMirrorStalledWritesNoStatus/PushRejected, once
// in a full run).
func TestRefusedRetryStaysStalled(t *testing.T) {
	a := object("a", "1")
	snap := mirror.Snapshot{Synced: true, Objects: []mirror.Object{a}}
	hook := git.Result{Err: &git.Error{Kind: git.KindRejected, Err: errors.New("pre-receive hook declined: this repository is frozen")}}
	type want struct {
		Stalled  xpv2.ConditionReason
		Waiting  xpv2.ConditionReason
		Message  string
		Pending  int
		Enqueued bool
	}
	cases := map[string]struct {
		reason string
		// published: the Mirror as read publishes the refusal it keeps.
		published bool
		queued    bool
		inflight  bool
		// edited: the spec changed after the refusal was published.
		edited bool
		want   want
	}{
		"RetryQueued": {
			reason:    "The retry waits in the commit window: the refusal stays published, nothing is enqueued twice.",
			published: true, queued: true,
			want: want{Stalled: spec.ReasonPushRejected, Pending: 2},
		},
		"RetryInFlight": {
			reason:    "The retry is being pushed: the refusal stays published.",
			published: true, inflight: true,
			want: want{Stalled: spec.ReasonPushRejected, Pending: 2},
		},
		"RetryDue": {
			reason:    "No retry under way: the change is handed to the writer again, and the refusal stays published.",
			published: true,
			want:      want{Stalled: spec.ReasonPushRejected, Pending: 2, Enqueued: true},
		},
		"SpecEditedQueued": {
			reason:    "The spec changed since the refusal was published (another branch, say): the change under way is its answer, and the Mirror waits for it as Committing.",
			published: true, queued: true, edited: true,
			want: want{Waiting: ReasonCommitting, Pending: 2},
		},
		"OtherStatusQueued": {
			reason: "A Mirror that publishes something else (a person edited its status away) waits for the push under way as Committing.",
			queued: true,
			want:   want{Waiting: ReasonCommitting, Pending: 2},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			// The first write was refused: its result stalls the Mirror.
			repo := &fakeRepository{files: map[string]string{}, result: &hook}
			e := newExternal(t, repo, &fakeSources{snap: snap})
			e.refused = newRefusals()
			mg := newMirror()
			_, refusal := e.Observe(context.Background(), mg)
			if r, ok := managed.StalledReason(refusal); !ok || r != spec.ReasonPushRejected {
				t.Fatalf("Observe of the refused write: %v, want Stalled %s", refusal, spec.ReasonPushRejected)
			}
			mg.Status.AtProvider.Pending = 2
			if tc.published {
				mg.SetConditions(xpv2.Condition{Type: xpv2.TypeReady, Status: corev1.ConditionFalse, Reason: spec.ReasonPushRejected, Message: refusal.Error()})
				if tc.want.Waiting == "" {
					tc.want.Message = refusal.Error()
				}
			}

			if tc.edited {
				mg.SetGeneration(mg.GetGeneration() + 1)
			}

			// A later reconcile, with the retry under way or not.
			repo.queued, repo.inflight, repo.enqueued = tc.queued, tc.inflight, nil
			e = newExternal(t, repo, &fakeSources{snap: snap})
			e.refused = newRefusals()
			e.refused.set(keyOf(mg), refusal)
			_, err := e.Observe(context.Background(), mg)
			got := want{Pending: mg.Status.AtProvider.Pending, Enqueued: repo.enqueued != nil}
			if r, ok := managed.StalledReason(err); ok {
				got.Stalled, got.Message = r, err.Error()
			}
			if w, ok := managed.IsWaiting(err); ok {
				got.Waiting = w.Reason
			}
			if tc.want.Waiting != "" {
				got.Message = ""
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("%s\nObserve(...): -want, +got:\n%s\nerror: %v", tc.reason, diff, err)
			}
		})
	}
}
