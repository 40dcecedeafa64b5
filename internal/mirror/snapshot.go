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

var secretsGVR = schema.GroupVersionResource{Version: "v1", Resource: "secrets"}

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
		case rs.gvr.GroupResource() == secretsGVR.GroupResource() && !r.Secrets:
			// Not even watched: a Secret informer would hold every
			// Secret of the namespace in the provider's memory.
			if !slices.Contains(skipped, noteSecretsNotRead) {
				skipped = append(skipped, noteSecretsNotRead)
			}
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
		res = append(res, rs)
		if rs.cluster {
			keys = append(keys, watchKey{gvr: rs.gvr})
			continue
		}
		for _, ns := range nss {
			keys = append(keys, watchKey{gvr: rs.gvr, namespace: ns})
		}
	}
	return res, keys, skipped, firstErr
}

// snapshot collects what the owner with view v sees in ws, with the
// version of each watch it read, or the error of a watch that failed.
func snapshot(res []resolved, ws []*watch, v view, skipped []string) (Snapshot, []uint64, error) {
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
			for _, e := range w.feed.items {
				if !v.sees(e) {
					continue
				}
				if e.problem != "" {
					problems[e.problem] = append(problems[e.problem], qualified(e))
					continue
				}
				snap.Objects = append(snap.Objects, Object{
					Path: e.path, Content: e.content, Secret: e.secret, GVK: e.gvk,
					Namespace: e.namespace, Name: e.name,
				})
				counts[w.key.gvr]++
			}
		}
		w.mu.RUnlock()
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
