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
	"fmt"
	"testing"

	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"
	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"

	"github.com/crossplane-contrib/provider-git/apis/v1alpha1"
	"github.com/crossplane-contrib/provider-git/internal/git"
	"github.com/crossplane-contrib/provider-git/internal/mirror"
	"github.com/crossplane-contrib/provider-git/internal/reconciler/managed"
)

// TestHoldPublishedWait: a Mirror that published it waits for a push, and
// has seen no push land since, publishes the same wait (Ready's message and
// atProvider) however the change it hands to the branch writer grew; a
// landed push, a Mirror that was not waiting, or a wait published for
// another folder publishes what this reconcile found.
func TestHoldPublishedWait(t *testing.T) {
	a, b := object("a", "1"), object("b", "2")
	mk := "live/" + MarkerFile
	// The folder at the last push holds a; the snapshot holds a and b now.
	folder := map[string]string{"live/" + a.Path: string(a.Content), mk: markerOf("ns/m", a.Path)}
	snap := mirror.Snapshot{Synced: true, Objects: []mirror.Object{a, b}}
	waitingFor := func(path string, pending int) func(*v1alpha1.Mirror) {
		return func(m *v1alpha1.Mirror) {
			m.SetConditions(xpv2.Condition{Type: xpv2.TypeReady, Status: corev1.ConditionFalse, Reason: ReasonCommitting,
				Message: fmt.Sprintf(msgCommittingFmt, pending, path, "main")})
			m.Status.AtProvider = v1alpha1.MirrorObservation{Objects: 1, Pending: pending, Commit: "c0"}
		}
	}
	available := func(m *v1alpha1.Mirror) {
		m.SetConditions(xpv2.Condition{Type: xpv2.TypeReady, Status: corev1.ConditionTrue, Reason: xpv2.ReasonAvailable})
		m.Status.AtProvider = v1alpha1.MirrorObservation{Objects: 1, Commit: "c0"}
	}
	type want struct {
		message string
		at      v1alpha1.MirrorObservation
	}
	// This reconcile's change: b's file and the marker.
	fresh := v1alpha1.MirrorObservation{Objects: 2, Pending: 2, Commit: "c0"}
	cases := map[string]struct {
		reason string
		mg     *v1alpha1.Mirror
		result *git.Result
		want   want
	}{
		"Waiting": {
			reason: "The published wait stands: Committing is still true, and the counts are those it began with.",
			mg:     newMirror(waitingFor("live", 1)),
			want:   want{message: fmt.Sprintf(msgCommittingFmt, 1, "live", "main"), at: v1alpha1.MirrorObservation{Objects: 1, Pending: 1, Commit: "c0"}},
		},
		"PushLanded": {
			reason: "A landed push is news: its commit, the counts and the next wait are published.",
			mg:     newMirror(waitingFor("live", 1)), result: &git.Result{Commit: "c1"},
			want: want{message: fmt.Sprintf(msgCommittingFmt, 2, "live", "main"), at: v1alpha1.MirrorObservation{Objects: 2, Pending: 2, Commit: "c1"}},
		},
		"NotWaitingBefore": {
			reason: "A Mirror that published no wait publishes this one (this row proves the test can fail).",
			mg:     newMirror(available),
			want:   want{message: fmt.Sprintf(msgCommittingFmt, 2, "live", "main"), at: fresh},
		},
		"WaitForAnotherFolder": {
			reason: "A wait published for another folder (the path was changed) is not this one.",
			mg:     newMirror(waitingFor("old", 1)),
			want:   want{message: fmt.Sprintf(msgCommittingFmt, 2, "live", "main"), at: fresh},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			repo := &fakeRepository{files: folder, result: tc.result}
			e := newExternal(t, repo, &fakeSources{snap: snap})
			if _, err := e.Observe(context.Background(), tc.mg); err != nil {
				t.Fatalf("Observe: %v", err)
			}
			_, err := e.Update(context.Background(), tc.mg)
			w, ok := managed.IsWaiting(err)
			if !ok || w.Reason != ReasonCommitting {
				t.Fatalf("Update: %v, want Waiting %s", err, ReasonCommitting)
			}
			got := want{message: w.Message, at: tc.mg.Status.AtProvider}
			got.at.Resources = nil
			if diff := cmp.Diff(tc.want, got, cmp.AllowUnexported(want{})); diff != "" {
				t.Errorf("%s\n-want, +got:\n%s", tc.reason, diff)
			}
			if repo.enqueued == nil || len(repo.enqueued.Puts) != 2 {
				t.Errorf("%s\nenqueued %+v, want b's file and the marker whatever is published", tc.reason, repo.enqueued)
			}
		})
	}
}

// TestPushLandingDuringObserve: a push that lands while a reconcile asks
// whether it is under way and for its result costs one status write, not
// two. The reconcile that catches it landing publishes the wait it
// published, and the one its result wakes publishes the commit with the
// counts. Asked the other way round (the result, then whether it is under
// way), the first found neither, planned on the head that already shows
// the push, and published Ready without its commit; the result then
// published it again (a third status write for one push in the e2e test
// TestMirrorStatusWritesPerCommitWindow under load).
func TestPushLandingDuringObserve(t *testing.T) {
	a := object("a", "1")
	// The push deleted b: the head shows a alone, as does the snapshot.
	folder := map[string]string{"live/" + a.Path: string(a.Content), "live/" + MarkerFile: markerOf("ns/m", a.Path)}
	snap := mirror.Snapshot{Synced: true, Objects: []mirror.Object{a}}
	waiting := fmt.Sprintf(msgCommittingFmt, 1, "live", "main")
	mg := newMirror(func(m *v1alpha1.Mirror) {
		m.SetConditions(xpv2.Condition{Type: xpv2.TypeReady, Status: corev1.ConditionFalse, Reason: ReasonCommitting, Message: waiting})
		m.Status.AtProvider = v1alpha1.MirrorObservation{Objects: 2, Pending: 1, Commit: "c0"}
	})
	published := *mg.Status.AtProvider.DeepCopy()
	repo := &fakeRepository{files: folder, inflight: true, finishing: &git.Result{Commit: "c1"}}

	// The reconcile during which the push lands.
	_, err := newExternal(t, repo, &fakeSources{snap: snap}).Observe(context.Background(), mg)
	w, ok := managed.IsWaiting(err)
	if !ok || w.Reason != ReasonCommitting || w.Message != waiting {
		t.Fatalf("Observe as the push lands: %v, want the published Waiting %s %q", err, ReasonCommitting, waiting)
	}
	if diff := cmp.Diff(published, mg.Status.AtProvider); diff != "" {
		t.Errorf("Observe as the push lands publishes what was published (no status write)\n-want, +got:\n%s", diff)
	}

	// The reconcile the result wakes.
	obs, err := newExternal(t, repo, &fakeSources{snap: snap}).Observe(context.Background(), mg)
	if err != nil || !obs.ResourceUpToDate {
		t.Fatalf("Observe woken by the result: %+v, %v; want up to date", obs, err)
	}
	mg.Status.AtProvider.Resources = nil
	if diff := cmp.Diff(v1alpha1.MirrorObservation{Objects: 1, Commit: "c1"}, mg.Status.AtProvider); diff != "" {
		t.Errorf("Observe woken by the result publishes the push's commit and counts\n-want, +got:\n%s", diff)
	}
}
