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

	"github.com/crossplane/crossplane-runtime/v2/pkg/logging"
	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	kwatch "k8s.io/apimachinery/pkg/watch"
)

// configMapAt is ConfigMap a/cm at resourceVersion rv holding v.
func configMapAt(rv, v string) *unstructured.Unstructured {
	u := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": "ConfigMap", "data": map[string]any{"k": v}}}
	u.SetNamespace("a")
	u.SetName("cm")
	u.SetUID("u1")
	u.SetResourceVersion(rv)
	return u
}

// TestRelistPrev: the version a relist delivers after an expired watch may
// have skipped versions, so what it was made against is unknown (""), and
// the join falls back to UID and fingerprint; the watch's own events keep
// the exact predecessor, before and after the relist. Before, the relisted
// version was said to be made against the last version the old watch
// delivered, so the admission fact of the write that made it (made against
// a skipped version) joined nothing.
func TestRelistPrev(t *testing.T) {
	type step struct {
		u      *unstructured.Unstructured
		listed bool
	}
	cases := map[string]struct {
		reason string
		steps  []step
		want   string
	}{
		"Watched": {
			reason: "A version the watch delivers was made against the one before.",
			steps:  []step{{u: configMapAt("5", "x"), listed: true}, {u: configMapAt("6", "y")}},
			want:   "5",
		},
		"Relisted": {
			reason: "A version a relist delivers, its content changed, was made against a version nobody saw.",
			steps:  []step{{u: configMapAt("5", "x"), listed: true}, {u: configMapAt("6", "y")}, {u: configMapAt("9", "z"), listed: true}},
			want:   "",
		},
		"RelistedSameContent": {
			reason: "A relisted version whose content did not change keeps what the content was made against.",
			steps:  []step{{u: configMapAt("5", "x"), listed: true}, {u: configMapAt("6", "y")}, {u: configMapAt("9", "y"), listed: true}},
			want:   "5",
		},
		"WatchedAfterRelist": {
			reason: "After the relist, the watch's events are exact again.",
			steps:  []step{{u: configMapAt("5", "x"), listed: true}, {u: configMapAt("9", "z"), listed: true}, {u: configMapAt("10", "w")}},
			want:   "9",
		},
	}
	gvr := schema.GroupVersionResource{Version: "v1", Resource: "configmaps"}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			w := newWatch(watchKey{gvr: gvr, namespace: "a"}, func(types.NamespacedName) {}, logging.NewNopLogger(), time.Now)
			f := &feed{items: map[string]*entry{}, listed: newListedVersions()}
			w.state, w.feed = running, f
			for i, s := range tc.steps {
				if s.listed {
					f.listed.reset()
					f.listed.note(s.u)
				}
				w.onAdd(f, s.u, i == 0)
			}
			if diff := cmp.Diff(tc.want, f.items["a/cm"].prev); diff != "" {
				t.Errorf("%s\nprev: -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}

// TestRecordingWatch: a watch that lists records each added object's
// version before the reflector can hand it on, and a version is taken
// once; Stop stops the watch it wraps and ends its events.
func TestRecordingWatch(t *testing.T) {
	in := kwatch.NewFake()
	l := newListedVersions()
	r := recording(in, l)
	go in.Add(configMapAt("9", "z"))
	ev := <-r.ResultChan()
	if ev.Type != kwatch.Added {
		t.Fatalf("event %v, want Added", ev.Type)
	}
	if l.take("a/cm", "8") {
		t.Error("another version of the object was taken as listed")
	}
	if !l.take("a/cm", "9") || l.take("a/cm", "9") {
		t.Error("the listed version was not taken exactly once")
	}
	r.Stop()
	for range r.ResultChan() {
		// Drained: Stop closes it.
	}
	if !in.IsStopped() {
		t.Error("Stop did not stop the wrapped watch")
	}
}
