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
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/types"

	"github.com/crossplane-contrib/provider-git/internal/audit"
	"github.com/crossplane-contrib/provider-git/internal/mirror"
	"github.com/crossplane-contrib/provider-git/internal/reconciler/managed"
)

// collectionOf is a deletecollection of the ConfigMaps of namespace ns
// ("" for all) by user: its fact names no object.
func collectionOf(b *joinBed, ns, user string) {
	f := by(user)
	f.Verb = "deletecollection"
	b.store.Add(audit.Key{GroupResource: configMapsGR, Namespace: ns}, f)
}

func deleteOf(b *joinBed, name, user string) {
	f := by(user)
	f.Verb = "delete"
	b.store.Add(keyOfCM(name), f)
}

// aliceCreatedAB is a join bed whose Mirror committed the ConfigMaps a and b
// that alice created.
func aliceCreatedAB(t *testing.T) *joinBed {
	t.Helper()
	b := newJoinBed(t)
	b.store.Add(keyOfCM("a"), by("alice"))
	b.store.Add(keyOfCM("b"), by("alice"))
	created, err := b.observe(cm("a", "1"), cm("b", "1"))
	if err != nil || created == nil {
		t.Fatalf("creating a and b: %v, %v", created, err)
	}
	b.land(created)
	return b
}

// TestAttributionDeleteCollection: the deletions that follow a
// deletecollection of their resource, in their namespace or all, in the
// join's window are authored by its user once the wait for a fact of the
// object's own is over, unless such a fact names who deleted it (before the
// deletecollection's or after it, within the wait); it attributes nothing
// else. Each case observes within the wait (waiting), lets after run, then
// observes once the wait is over (commits).
func TestAttributionDeleteCollection(t *testing.T) {
	const (
		a = "live/ns/core/configmap/a.yaml"
		c = "live/ns/core/configmap/b.yaml"
		m = "live/" + MarkerFile
	)
	type want struct {
		waiting bool
		woken   []types.NamespacedName
		commits []commit
	}
	cases := map[string]struct {
		reason string
		before func(b *joinBed)
		after  func(b *joinBed)
		live   []mirror.Object
		want   want
	}{
		"Namespace": {
			reason: "bob's deletecollection of the namespace's ConfigMaps authors the deletion of both, once no fact of their own came.",
			before: func(b *joinBed) { collectionOf(b, "ns", "bob") },
			want:   want{waiting: true, commits: []commit{{Author: user("bob"), Files: []string{m, a, c}}}},
		},
		"AllNamespaces": {
			reason: "A deletecollection across namespaces covers the objects of every one.",
			before: func(b *joinBed) { collectionOf(b, "", "bob") },
			want:   want{waiting: true, commits: []commit{{Author: user("bob"), Files: []string{m, a, c}}}},
		},
		"OwnFactFirst": {
			reason: "A deletion with a fact of its own object is that fact's: carol deleted a herself.",
			before: func(b *joinBed) {
				deleteOf(b, "a", "carol")
				b.clk.Step(10 * time.Millisecond)
				collectionOf(b, "ns", "bob")
			},
			// a is written at once, b waits for a fact of its own.
			want: want{waiting: false, commits: []commit{{Author: user("carol"), Files: []string{a}}, {Author: user("bob"), Files: []string{m, c}}}},
		},
		"OwnFactLater": {
			reason: "An earlier, unrelated deletecollection (kubectl delete cm -l app=x) does not author deletions whose own facts arrive within the wait: carol's deletes do.",
			before: func(b *joinBed) { collectionOf(b, "ns", "bob") },
			after: func(b *joinBed) {
				b.clk.Step(time.Second)
				deleteOf(b, "a", "carol")
				deleteOf(b, "b", "carol")
			},
			want: want{
				waiting: true,
				woken:   []types.NamespacedName{{Namespace: "ns", Name: "m"}, {Namespace: "ns", Name: "m"}},
				commits: []commit{{Author: user("carol"), Files: []string{m, a, c}}},
			},
		},
		"OtherNamespace": {
			reason: "A deletecollection of another namespace deleted nothing here: the deletions wait, then are unresolved.",
			before: func(b *joinBed) { collectionOf(b, "other", "bob") },
			want:   want{waiting: true, commits: []commit{{Author: unresolved(), Files: []string{m, a, c}}}},
		},
		"NotAPut": {
			reason: "A deletecollection authors deletions only: a changed object waits for a fact of its own.",
			before: func(b *joinBed) { collectionOf(b, "ns", "bob") },
			live:   []mirror.Object{cm("a", "2"), cm("b", "1")},
			want:   want{waiting: true, commits: []commit{{Author: unresolved(), Files: []string{a}}}},
		},
		"Wakes": {
			reason: "A deletecollection that arrives while the deletions wait wakes the Mirror.",
			after:  func(b *joinBed) { collectionOf(b, "ns", "bob") },
			want: want{
				waiting: true,
				woken:   []types.NamespacedName{{Namespace: "ns", Name: "m"}},
				commits: []commit{{Author: user("bob"), Files: []string{m, a, c}}},
			},
		},
		"WakesNotOthers": {
			reason: "A deletecollection of another namespace wakes nobody.",
			after:  func(b *joinBed) { collectionOf(b, "other", "bob") },
			want:   want{waiting: true, commits: []commit{{Author: unresolved(), Files: []string{m, a, c}}}},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			b := aliceCreatedAB(t)
			if _, err := b.observe(cm("a", "1"), cm("b", "1")); err != nil {
				t.Fatal(err)
			}
			// The creations' facts are out of the window.
			b.clk.Step(time.Minute)
			if tc.before != nil {
				tc.before(b)
			}
			_, err := b.observe(tc.live...)
			_, waiting := managed.IsWaiting(err)
			if err != nil && !waiting {
				t.Fatal(err)
			}
			b.woken = nil
			if tc.after != nil {
				tc.after(b)
			}
			woken := b.woken
			// The wait (3s) is over.
			b.clk.Step(3 * time.Second)
			ch, err := b.observe(tc.live...)
			if err != nil {
				t.Fatalf("Observe() once the wait is over: %v", err)
			}
			got := want{waiting: waiting, woken: woken, commits: commitsOf(ch)}
			if diff := cmp.Diff(tc.want, got, cmp.AllowUnexported(want{})); diff != "" {
				t.Errorf("%s\n-want +got:\n%s", tc.reason, diff)
			}
		})
	}
}

// TestAttributionDeleteCollectionNoticedApart: the deletions of one
// deletecollection noticed by two plans a second apart are one commit
// authored by its user: the first, whose wait ends first, is held until the
// wait of the second ends, not committed alone.
func TestAttributionDeleteCollectionNoticedApart(t *testing.T) {
	const (
		a = "live/ns/core/configmap/a.yaml"
		c = "live/ns/core/configmap/b.yaml"
		m = "live/" + MarkerFile
	)
	b := aliceCreatedAB(t)
	b.clk.Step(time.Minute)

	// a's deletion is noticed first, b's a second later; the
	// deletecollection's fact arrives once both are gone.
	if _, err := b.observe(cm("b", "1")); !isWaiting(err) {
		t.Fatalf("Observe() with a deleted: want waiting, got %v", err)
	}
	b.clk.Step(time.Second)
	if _, err := b.observe(); !isWaiting(err) {
		t.Fatalf("Observe() with b deleted too: want waiting, got %v", err)
	}
	b.clk.Step(500 * time.Millisecond)
	collectionOf(b, "ns", "bob")

	// a's wait is over, b's is not.
	b.clk.Step(1500 * time.Millisecond)
	ch, err := b.observe()
	if !isWaiting(err) || ch != nil {
		t.Errorf("Observe() once a's wait is over: want waiting and no change, got %v, %v", commitsOf(ch), err)
	}
	b.clk.Step(time.Second)
	ch, err = b.observe()
	if err != nil {
		t.Fatalf("Observe() once b's wait is over: %v", err)
	}
	want := []commit{{Author: user("bob"), Files: []string{m, a, c}}}
	if diff := cmp.Diff(want, commitsOf(ch)); diff != "" {
		t.Errorf("commits once both waits are over: -want +got:\n%s", diff)
	}
}

func isWaiting(err error) bool {
	_, ok := managed.IsWaiting(err)
	return ok
}
