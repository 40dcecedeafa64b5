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

// stampKey is the key of a compacted managedFields entry's digest.
const stampKey = "digest"

// fieldStamp is one managedFields entry as the ignore rule compares it: the
// manager, operation and subresource name the entry, and digest stands for
// its time and fieldsV1, which the API server changes whenever the manager
// changes the object (or another manager takes fields from it).
type fieldStamp struct {
	manager, operation, subresource string
	digest                          uint64
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
		t, _ := m["time"].(string)
		h.Write([]byte(t))
		h.Write([]byte{0})
		if f, ok := m["fieldsV1"]; ok {
			// encoding/json sorts map keys: the same fields, the same bytes.
			b, _ := json.Marshal(f)
			h.Write(b)
		}
		out = append(out, map[string]any{
			"manager": m["manager"], "operation": m["operation"], "subresource": m["subresource"],
			stampKey: strconv.FormatUint(h.Sum64(), 16),
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
		d, _ := m[stampKey].(string)
		s.digest, _ = strconv.ParseUint(d, 16, 64)
		out = append(out, s)
	}
	return out
}

// onlyBy reports whether every managedFields entry that differs between was
// and now (added, removed, or with another time or fields) belongs to one
// of the managers, and at least one does: a change they alone made. A
// change no entry shows is nobody's in particular, so not theirs alone.
func onlyBy(was, now []fieldStamp, managers []string) bool {
	type key struct{ manager, operation, subresource string }
	before := make(map[key]uint64, len(was))
	for _, s := range was {
		before[key{s.manager, s.operation, s.subresource}] = s.digest
	}
	changed := false
	for _, s := range now {
		k := key{s.manager, s.operation, s.subresource}
		d, ok := before[k]
		delete(before, k)
		if ok && d == s.digest {
			continue
		}
		if !slices.Contains(managers, s.manager) {
			return false
		}
		changed = true
	}
	for k := range before {
		if !slices.Contains(managers, k.manager) {
			return false
		}
		changed = true
	}
	return changed
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

// take returns the entry whose content the owner's folder holds for e: the
// taken version while the ignored managers alone changed e since, else e,
// which it takes.
func (h *holds) take(e *entry) *entry {
	h.mu.Lock()
	defer h.mu.Unlock()
	t := h.taken[e.path]
	if t != nil && t != e && t.secret == e.secret && onlyBy(t.stamps, e.stamps, h.managers) {
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
