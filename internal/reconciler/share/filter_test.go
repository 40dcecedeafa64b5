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

package share

import (
	"context"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/util/workqueue"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/crossplane-contrib/provider-git/apis/v1alpha1"
)

// fixed is a Share whose view the test sets.
type fixed struct {
	mu      sync.Mutex
	view    View
	changed chan struct{}
}

func newFixed(v View) *fixed { return &fixed{view: v, changed: make(chan struct{})} }

func (f *fixed) View() View {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.view
}

func (f *fixed) Changed() <-chan struct{} {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.changed
}

func (f *fixed) set(v View) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.view = v
	close(f.changed)
	f.changed = make(chan struct{})
}

// configs are ProviderConfigs of n repositories.
func configs(n int) []client.Object {
	out := make([]client.Object, n)
	for i := range out {
		out[i] = &v1alpha1.ProviderConfig{
			ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "pc-" + string(rune('a'+i))},
			Spec:       v1alpha1.ProviderConfigSpec{URL: "https://git.example.org/org/repo-" + string(rune('a'+i)) + ".git"},
		}
	}
	return out
}

// TestFilter: only the events of objects whose repository this replica
// holds pass; deletions always do.
func TestFilter(t *testing.T) {
	objs := configs(20)
	v := View{Self: "a", Members: []string{"a", "b"}, Active: true}
	p := Filter(newFixed(v), Keys{})
	var passed, held int
	for _, o := range objs {
		want := v.Holds(urlKey(o.(*v1alpha1.ProviderConfig).Spec.URL, ""))
		if want {
			held++
		}
		got := []bool{p.Create(event.CreateEvent{Object: o}), p.Update(event.UpdateEvent{ObjectOld: o, ObjectNew: o}), p.Generic(event.GenericEvent{Object: o})}
		if diff := cmp.Diff([]bool{want, want, want}, got); diff != "" {
			t.Errorf("%s (held: %t): create, update, generic: -want, +got:\n%s", o.GetName(), want, diff)
		}
		if !p.Delete(event.DeleteEvent{Object: o}) {
			t.Errorf("%s: a deletion was filtered", o.GetName())
		}
		if got[0] {
			passed++
		}
	}
	if held == 0 || held == len(objs) {
		t.Fatalf("a holds %d of %d: the test needs some held and some not", held, len(objs))
	}
	if passed != held {
		t.Errorf("%d passed, want the %d held", passed, held)
	}
}

// TestHandover: at start the objects already held are enqueued once; when
// a member joins, exactly the objects whose holding changed are enqueued:
// on the replica that lost them (to forget them) as on the one that gained
// them (to observe them).
func TestHandover(t *testing.T) {
	objs := configs(20)
	two := View{Self: "a", Members: []string{"a"}, Active: true}
	s := newFixed(two)
	h := NewHandover(s, Keys{}, func(context.Context) ([]client.Object, error) { return objs, nil })
	q := workqueue.NewTypedRateLimitingQueue(workqueue.DefaultTypedControllerRateLimiter[reconcile.Request]())
	t.Cleanup(q.ShutDown)
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	if err := h.Start(ctx, q); err != nil {
		t.Fatal(err)
	}
	if got := drain(t, q, len(objs)); len(got) != len(objs) {
		t.Fatalf("at start %d enqueued, want all %d held", len(got), len(objs))
	}

	joined := View{Self: "a", Members: []string{"a", "b"}, Active: true}
	var want []string
	for _, o := range objs {
		if !joined.Holds(urlKey(o.(*v1alpha1.ProviderConfig).Spec.URL, "")) {
			want = append(want, o.GetName())
		}
	}
	s.set(joined)
	got := drain(t, q, len(want))
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("enqueued when b joined: -want (those b took), +got:\n%s", diff)
	}
}

// drain takes n requests off q (or fails after a while) and returns their
// names, in order of objects' names.
func drain(t *testing.T, q workqueue.TypedRateLimitingInterface[reconcile.Request], n int) []string {
	t.Helper()
	got := make(chan string, n)
	go func() {
		for range n {
			r, shutdown := q.Get()
			if shutdown {
				return
			}
			q.Done(r)
			got <- r.Name
		}
	}()
	var names []string
	timeout := time.After(10 * time.Second)
	for len(names) < n {
		select {
		case name := <-got:
			names = append(names, name)
		case <-timeout:
			t.Fatalf("%d of %d requests enqueued", len(names), n)
		}
	}
	slices.Sort(names)
	if q.Len() != 0 {
		t.Errorf("%d more requests enqueued than the %d expected", q.Len(), n)
	}
	return names
}
