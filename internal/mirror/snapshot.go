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
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/tools/cache"

	"github.com/crossplane/crossplane-runtime/v2/pkg/errors"
)

const errNoNamespace = "a namespace to read must be named: the empty namespace would read every namespace"

// noteSecretsNotRead is the note for a request that names core Secrets
// without opting in to them.
const noteSecretsNotRead = "Secrets are never mirrored in plain text: Secrets (v1) are not read (configure encryption to mirror them encrypted)"

// maxNamesInNote bounds the names a note lists, so that a thousand broken
// objects make a readable message, not a wall.
const maxNamesInNote = 5

// noteGeneratedFmt is the note for a generated kind left out.
const noteGeneratedFmt = "%s are made by the cluster itself and not read (the request skips generated objects)"

var secretsGVR = schema.GroupVersionResource{Version: "v1", Resource: "secrets"}

// generatedKinds are the resources the cluster makes and changes by itself
// in every namespace: a record of them in Git is noise.
var generatedKinds = map[schema.GroupResource]bool{
	{Resource: "endpoints"}:                                 true,
	{Group: "discovery.k8s.io", Resource: "endpointslices"}: true,
	{Resource: "events"}:                                    true,
	{Group: "events.k8s.io", Resource: "events"}:            true,
	{Group: "coordination.k8s.io", Resource: "leases"}:      true,
}

// plan resolves r's kinds and names the watches they need, one per
// namespace for a namespaced kind and one for a cluster-scoped kind. A kind
// it cannot mirror is left out, and the first such error returned.
func (s *Sources) plan(ctx context.Context, r Request) (res []resolved, keys []watchKey, skipped []string, firstErr error) {
	nss := slices.Clone(r.Namespaces)
	if len(nss) == 0 {
		nss = []string{r.Owner.Namespace}
	}
	slices.Sort(nss)
	nss = slices.Compact(nss)
	if nss[0] == "" {
		// An empty namespace would watch every namespace.
		return nil, nil, nil, errors.New(errNoNamespace)
	}
	seen := map[schema.GroupVersionResource]bool{}
	for _, k := range r.Kinds {
		rs, err := s.resolver.resolve(ctx, k)
		switch {
		case err != nil:
		case r.SkipGenerated && generatedKinds[rs.gvr.GroupResource()]:
			// Not even watched: Events and Leases change all the time.
			skipped = addNote(skipped, fmt.Sprintf(noteGeneratedFmt, resourceName(rs.gvr)))
			continue
		case rs.cluster && !r.ClusterScoped:
			err = &ClusterScopedError{Kind: k}
		}
		if err != nil {
			if firstErr == nil {
				firstErr = err
			}
			continue
		}
		if seen[rs.gvr] {
			continue
		}
		seen[rs.gvr] = true
		if rs.cluster {
			res = append(res, rs)
			keys = append(keys, watchKey{gvr: rs.gvr})
			continue
		}
		read := nss
		if rs.gvr.GroupResource() == secretsGVR.GroupResource() {
			// Not even watched elsewhere: a Secret informer would hold
			// every Secret of the namespace in the provider's memory.
			read = secretNamespaces(nss, r.SecretNamespaces)
			if len(read) < len(nss) {
				skipped = addNote(skipped, cmp.Or(r.SecretsNote, noteSecretsNotRead))
			}
			if len(read) == 0 {
				continue
			}
		}
		res = append(res, rs)
		for _, ns := range read {
			keys = append(keys, watchKey{gvr: rs.gvr, namespace: ns})
		}
	}
	return res, keys, skipped, firstErr
}

// secretNamespaces are those of nss whose Secrets may be read.
func secretNamespaces(nss, allowed []string) []string {
	var out []string
	for _, ns := range nss {
		if slices.Contains(allowed, ns) {
			out = append(out, ns)
		}
	}
	return out
}

// addNote adds n to notes once.
func addNote(notes []string, n string) []string {
	if slices.Contains(notes, n) {
		return notes
	}
	return append(notes, n)
}

// snapshot collects what the owner with view v sees in ws, with the
// version of each watch it read, or the error of a watch that failed.
func snapshot(res []resolved, ws []*watch, v view, skipped []string, h *holds) (Snapshot, []uint64, error) {
	snap := Snapshot{Synced: true, Skipped: slices.Clone(skipped)}
	counts := map[schema.GroupVersionResource]int{}
	problems := map[string][]string{}
	versions := make([]uint64, len(ws))
	n := 0
	for _, w := range ws {
		w.mu.RLock()
		if w.feed != nil {
			n += len(w.feed.items)
		}
		w.mu.RUnlock()
	}
	snap.Objects = make([]Object, 0, n)
	seen := map[string]bool{}
	for i, w := range ws {
		w.mu.RLock()
		versions[i] = w.version
		if w.state == failed {
			err := w.err
			w.mu.RUnlock()
			return Snapshot{}, nil, err
		}
		if w.state != running || !cache.IsDone(w.feed.synced) {
			snap.Synced = false
		}
		if w.feed != nil {
			counts[w.key.gvr] += collect(&snap, w, v, h, seen, problems)
		}
		w.mu.RUnlock()
	}
	if h != nil {
		h.keepOnly(seen)
	}
	slices.SortFunc(snap.Objects, func(a, b Object) int { return strings.Compare(a.Path, b.Path) })
	for _, r := range res {
		snap.Resources = append(snap.Resources, ResourceCount{GVR: r.gvr, Count: counts[r.gvr]})
	}
	for _, p := range []string{problemPath, problemRender} {
		if names := problems[p]; len(names) > 0 {
			snap.Skipped = append(snap.Skipped, note(p, names))
		}
	}
	return snap, versions, nil
}

// collect appends to snap the objects of w (read-locked by the caller)
// that v sees and the ignore rule h leaves, noting in seen what h was asked
// about and in problems what cannot be mirrored; it returns how many it
// appended.
func collect(snap *Snapshot, w *watch, v view, h *holds, seen map[string]bool, problems map[string][]string) int {
	n := 0
	for _, e := range w.feed.items {
		if !v.sees(e) {
			continue
		}
		if h != nil {
			seen[e.path] = true
			if e = h.take(e); e == nil {
				// Only ignored managers ever wrote it.
				continue
			}
		}
		if e.problem != "" {
			problems[e.problem] = append(problems[e.problem], qualified(e))
			continue
		}
		snap.Objects = append(snap.Objects, Object{
			Path: e.path, Content: e.content, Secret: e.secret, GVK: e.gvk, Resource: w.key.gvr.Resource,
			Namespace: e.namespace, Name: e.name, ResourceVersion: e.rv, UID: e.uid, Prev: e.prev,
		})
		n++
	}
	return n
}

// note is "what (n skipped): a, b, c, …".
func note(what string, names []string) string {
	slices.Sort(names)
	shown := names[:min(len(names), maxNamesInNote)]
	more := ""
	if len(names) > len(shown) {
		more = ", …"
	}
	return fmt.Sprintf("%s (%d skipped): %s%s", what, len(names), strings.Join(shown, ", "), more)
}

func qualified(e *entry) string {
	if e.namespace == "" {
		return e.name
	}
	return e.namespace + "/" + e.name
}
