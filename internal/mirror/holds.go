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
	"encoding/json"
	"hash/fnv"
	"slices"
	"strconv"
	"sync"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// Keys of a compacted managedFields entry.
const (
	stampTime   = "time"
	stampFields = "fields"
)

// fieldStamp is one managedFields entry as the ignore rule compares it: the
// manager, operation and subresource name the entry; time is when that
// manager last changed the object, and fields stands for the fields it owns
// (a digest of fieldsV1).
type fieldStamp struct {
	manager, operation, subresource string
	time                            string
	fields                          uint64
}

// compactManagedFields replaces u's managedFields by their stamps: the
// fields sets, often the larger part of a small object, are not kept in
// the informer's cache, and the rendering drops managedFields anyway.
func compactManagedFields(u *unstructured.Unstructured) {
	items, ok, _ := unstructured.NestedFieldNoCopy(u.Object, "metadata", "managedFields")
	list, isList := items.([]any)
	if !ok || !isList || len(list) == 0 {
		unstructured.RemoveNestedField(u.Object, "metadata", "managedFields")
		return
	}
	out := make([]any, 0, len(list))
	for _, it := range list {
		m, ok := it.(map[string]any)
		if !ok {
			continue
		}
		h := fnv.New64a()
		if f, ok := m["fieldsV1"]; ok {
			// encoding/json sorts map keys: the same fields, the same bytes.
			b, _ := json.Marshal(f)
			h.Write(b)
		}
		out = append(out, map[string]any{
			"manager": m["manager"], "operation": m["operation"], "subresource": m["subresource"],
			stampTime: m["time"], stampFields: strconv.FormatUint(h.Sum64(), 16),
		})
	}
	u.Object["metadata"].(map[string]any)["managedFields"] = out
}

// stampsOf reads the stamps compactManagedFields left on u.
func stampsOf(u *unstructured.Unstructured) []fieldStamp {
	items, _, _ := unstructured.NestedFieldNoCopy(u.Object, "metadata", "managedFields")
	list, _ := items.([]any)
	out := make([]fieldStamp, 0, len(list))
	for _, it := range list {
		m, ok := it.(map[string]any)
		if !ok {
			continue
		}
		s := fieldStamp{}
		s.manager, _ = m["manager"].(string)
		s.operation, _ = m["operation"].(string)
		s.subresource, _ = m["subresource"].(string)
		s.time, _ = m[stampTime].(string)
		d, _ := m[stampFields].(string)
		s.fields, _ = strconv.ParseUint(d, 16, 64)
		out = append(out, s)
	}
	return out
}

// onlyBy reports whether the change from was to now is the managers' alone:
// at least one of their entries was added, removed or changed, and every
// other manager's entry is as it was, or merely lost fields to them. The
// API server stamps the time of the manager that makes a change; one whose
// fields another takes by force keeps its time and owns fewer fields (or
// loses its entry), and that is not a change of its own. Any other entry
// changed means someone else changed the object too: not theirs alone. A
// change no entry shows is nobody's in particular, so not theirs alone.
func onlyBy(was, now []fieldStamp, managers []string) bool {
	type key struct{ manager, operation, subresource string }
	before := make(map[key]fieldStamp, len(was))
	for _, s := range was {
		before[key{s.manager, s.operation, s.subresource}] = s
	}
	theirs := false
	for _, s := range now {
		k := key{s.manager, s.operation, s.subresource}
		b, ok := before[k]
		delete(before, k)
		switch {
		case ok && b.time == s.time && b.fields == s.fields:
		case slices.Contains(managers, s.manager):
			theirs = true
		case ok && b.time == s.time:
			// Lost fields to another manager, changed nothing itself.
		default:
			return false
		}
	}
	for k := range before {
		// An entry gone: its manager lost all its fields.
		if slices.Contains(managers, k.manager) {
			theirs = true
		}
	}
	return theirs
}

// holds is one owner's record of the version of each object it last took,
// by path, for its ignored field managers: a newer version they alone
// changed is not taken, and the owner's folder keeps the taken one. It
// lives as long as the owner's interest, across requests with the same
// managers; its size is one pointer per object the owner sees, the entries
// being the watches' own.
type holds struct {
	managers []string

	mu    sync.Mutex // guards taken
	taken map[string]*entry
}

func newHolds(managers []string) *holds {
	return &holds{managers: slices.Clone(managers), taken: map[string]*entry{}}
}

// take returns the entry whose content the owner's folder holds for e, or
// nil when it holds none: the taken version while the ignored managers
// alone changed e since, else e, which it takes. An object first seen is
// compared with no managedFields at all: one that only ignored managers
// ever wrote (Flux created it and nobody else touched it) is theirs alone,
// and not mirrored until someone else changes it.
func (h *holds) take(e *entry) *entry {
	h.mu.Lock()
	defer h.mu.Unlock()
	t := h.taken[e.path]
	var was []fieldStamp
	if t != nil {
		if t == e || t.secret != e.secret {
			h.taken[e.path] = e
			return e
		}
		was = t.stamps
	}
	if onlyBy(was, e.stamps, h.managers) {
		return t
	}
	h.taken[e.path] = e
	return e
}

// keepOnly forgets the objects not at the paths seen: a deleted object
// that comes back is taken as it is.
func (h *holds) keepOnly(seen map[string]bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	for p := range h.taken {
		if !seen[p] {
			delete(h.taken, p)
		}
	}
}
