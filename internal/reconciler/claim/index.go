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

package claim

import (
	"context"
	"fmt"
	"strings"
	"sync"

	"github.com/crossplane/crossplane-runtime/v2/pkg/errors"
	"github.com/crossplane/crossplane-runtime/v2/pkg/meta"
	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"
	kmeta "k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/util/workqueue"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
	"sigs.k8s.io/controller-runtime/pkg/source"

	"github.com/crossplane-contrib/provider-git/apis/v1alpha1"
	"github.com/crossplane-contrib/provider-git/internal/git"
	"github.com/crossplane-contrib/provider-git/internal/reconciler/managed"
)

// ReasonConflict is the Stalled reason of a later claimant: another
// resource, created first, claims what it claims.
const ReasonConflict xpv2.ConditionReason = "Conflict"

// Field indexes of the controller-runtime cache.
const (
	// fieldClaim indexes claimants by configuration, branch and location
	// key (Keys).
	fieldClaim = "claim.git.m.crossplane.io/location"
	// fieldRepository indexes both configuration kinds by the
	// RepositoryKey of their URL.
	fieldRepository = "claim.git.m.crossplane.io/repository"
)

const (
	errIndexConfig  = "cannot index configurations by repository"
	errIndexKind    = "cannot index claims of kind %s"
	errGetConfig    = "cannot get the configuration to find other claimants"
	errListConfigs  = "cannot list configurations of the same repository"
	errListRivals   = "cannot list other claimants of kind %s"
	errFmtConflict  = "%s of repository %s is claimed by %s, created first: this %s changes nothing there while that one exists (delete one of them, or point one elsewhere; %s)"
	errFmtNotObject = "claimant %T has no providerConfigRef"
)

// An Object is a resource that claims something through its configuration.
type Object interface {
	client.Object
	GetProviderConfigReference() *xpv2.ProviderConfigReference
}

// A Kind is one kind of resource that claims locations in Git.
type Kind struct {
	Name    string
	New     func() Object
	NewList func() client.ObjectList
	// Loc returns what o claims; false when it claims nothing (a spec the
	// controller refuses anyway).
	Loc func(o Object) (Loc, bool)
	// Shared reports that o's management policies let it change nothing
	// another claimant could (see Claimant.Shared); nil: never.
	Shared func(o Object) bool
	// Share says, in a Conflict message, how claimants of this kind share.
	Share string
	// Rivals are the kinds whose claims can collide with this kind's, this
	// kind included.
	Rivals []string
	// Folders: this kind's Loc may be a Prefix (a folder). A lookup of a
	// kind that never claims folders skips the folder keys.
	Folders bool
	// Describe names a location of this kind in a Conflict message; nil:
	// a branch, path or folder.
	Describe func(l Loc) string
}

// An Index finds the claimants of a location through the cache's field
// indexes. Safe for concurrent use.
type Index struct {
	client  client.Reader
	indexer client.FieldIndexer

	// mu guards configs and kinds; it is held while indexes are
	// registered, never across a lookup.
	mu      sync.Mutex
	configs bool
	kinds   map[string]Kind
}

// NewIndex returns an Index reading through c (the manager's cached client)
// and registering its field indexes with fi (the manager's field indexer).
func NewIndex(c client.Reader, fi client.FieldIndexer) *Index {
	return &Index{client: c, indexer: fi, kinds: map[string]Kind{}}
}

// Register indexes the claims of k. Call it once per kind, from the kind's
// controller setup (once its CRD exists); the configuration kinds are
// indexed with the first.
func (x *Index) Register(ctx context.Context, k Kind) error {
	x.mu.Lock()
	defer x.mu.Unlock()
	if !x.configs {
		if err := x.indexConfigs(ctx); err != nil {
			return errors.Wrap(err, errIndexConfig)
		}
		x.configs = true
	}
	err := x.indexer.IndexField(ctx, k.New(), fieldClaim, func(o client.Object) []string {
		c, ok := o.(Object)
		if !ok {
			return nil
		}
		l, ok := k.Loc(c)
		scope := scopeOf(c.GetNamespace(), c.GetProviderConfigReference())
		if !ok || scope == "" {
			return nil
		}
		keys := Keys(l)
		out := make([]string, len(keys))
		for i, key := range keys {
			out[i] = indexKey(scope, l.Branch, key)
		}
		return out
	})
	if err != nil {
		return errors.Wrapf(err, errIndexKind, k.Name)
	}
	x.kinds[k.Name] = k
	return nil
}

func (x *Index) indexConfigs(ctx context.Context) error {
	byURL := func(url string) []string {
		r, err := git.RepositoryKey(url)
		if err != nil {
			return nil
		}
		return []string{r}
	}
	if err := x.indexer.IndexField(ctx, &v1alpha1.ProviderConfig{}, fieldRepository, func(o client.Object) []string {
		pc, _ := o.(*v1alpha1.ProviderConfig)
		return byURL(pc.Spec.URL)
	}); err != nil {
		return err
	}
	return x.indexer.IndexField(ctx, &v1alpha1.ClusterProviderConfig{}, fieldRepository, func(o client.Object) []string {
		pc, _ := o.(*v1alpha1.ClusterProviderConfig)
		return byURL(pc.Spec.URL)
	})
}

func (x *Index) kind(name string) (Kind, bool) {
	x.mu.Lock()
	defer x.mu.Unlock()
	k, ok := x.kinds[name]
	return k, ok
}

// Check decides what o, of kind k, may do with its claim. A live o that a
// claimant created first holds off gets a Stalled Conflict error naming that
// claimant. An o being deleted whose claim a live claimant keeps gets
// letGo: it must leave what it claimed in place (the other one keeps it).
func (x *Index) Check(ctx context.Context, k Kind, o Object) (letGo bool, err error) {
	l, ok := k.Loc(o)
	if !ok {
		return false, nil
	}
	self := claimantOf(k, o, l)
	scopes, repo, err := x.scopes(ctx, o.GetNamespace(), o.GetProviderConfigReference())
	if err != nil {
		return false, err
	}
	others, err := x.claimants(ctx, k.Rivals, scopes, l)
	if err != nil {
		return false, err
	}
	h, held := Holder(self, others)
	switch {
	case !held:
		return false, nil
	case self.Deleting:
		return true, nil
	}
	if repo == "" {
		repo = "(its configuration's URL does not parse)"
	}
	what := describe(l)
	if k.Describe != nil {
		what = k.Describe(l)
	}
	return false, managed.Stalled(ReasonConflict, errors.Errorf(errFmtConflict, what, repo, h, k.Name, k.Share))
}

// describe names a location in a message.
func describe(l Loc) string {
	switch {
	case l.branchItself():
		return fmt.Sprintf("branch %q", l.Branch)
	case l.Prefix && l.Path == "":
		return fmt.Sprintf("the whole tree of branch %q", l.Branch)
	case l.Prefix:
		return fmt.Sprintf("folder %q on branch %q", l.Path, l.Branch)
	}
	return fmt.Sprintf("path %q on branch %q", l.Path, l.Branch)
}

// Source returns an event source for the controller of kind woken: when a
// resource of kind watched appears, starts being deleted or is gone, it
// enqueues the resources of woken whose claims overlap it. A later claimant
// thus takes over as soon as the first goes, and a claimant learns at once
// that another now comes before it (created within the same second, with a
// name that sorts first), without waiting for a poll.
func (x *Index) Source(c cache.Cache, watched, woken Kind) source.Source {
	wake := func(ctx context.Context, obj client.Object, q workqueue.TypedRateLimitingInterface[reconcile.Request]) {
		for _, nn := range x.overlapping(ctx, watched, woken, obj) {
			q.Add(reconcile.Request{NamespacedName: nn})
		}
	}
	h := handler.TypedFuncs[client.Object, reconcile.Request]{
		CreateFunc: func(ctx context.Context, e event.TypedCreateEvent[client.Object], q workqueue.TypedRateLimitingInterface[reconcile.Request]) {
			wake(ctx, e.Object, q)
		},
		UpdateFunc: func(ctx context.Context, e event.TypedUpdateEvent[client.Object], q workqueue.TypedRateLimitingInterface[reconcile.Request]) {
			if e.ObjectOld.GetDeletionTimestamp() == nil && e.ObjectNew.GetDeletionTimestamp() != nil {
				wake(ctx, e.ObjectNew, q)
			}
		},
		DeleteFunc: func(ctx context.Context, e event.TypedDeleteEvent[client.Object], q workqueue.TypedRateLimitingInterface[reconcile.Request]) {
			wake(ctx, e.Object, q)
		},
	}
	return source.Kind[client.Object](c, watched.New(), h)
}

// scopes returns the index scopes of every configuration that reaches the
// same repository as ref does from namespace, and that repository's key.
// Without a readable configuration, only ref's own scope: claimants through
// the very same configuration still collide.
func (x *Index) scopes(ctx context.Context, namespace string, ref *xpv2.ProviderConfigReference) ([]string, string, error) {
	own := scopeOf(namespace, ref)
	if own == "" {
		return nil, "", nil
	}
	var url string
	switch ref.Kind {
	case v1alpha1.ClusterProviderConfigKind:
		pc := &v1alpha1.ClusterProviderConfig{}
		err := x.client.Get(ctx, types.NamespacedName{Name: ref.Name}, pc)
		if client.IgnoreNotFound(err) != nil {
			return nil, "", errors.Wrap(err, errGetConfig)
		}
		url = pc.Spec.URL
	default:
		pc := &v1alpha1.ProviderConfig{}
		err := x.client.Get(ctx, types.NamespacedName{Namespace: namespace, Name: ref.Name}, pc)
		if client.IgnoreNotFound(err) != nil {
			return nil, "", errors.Wrap(err, errGetConfig)
		}
		url = pc.Spec.URL
	}
	repo, err := git.RepositoryKey(url)
	if url == "" || err != nil {
		// The configuration's own check reports a bad URL; the URL itself
		// is never echoed (it might carry a credential).
		return []string{own}, "", nil //nolint:nilerr // See above.
	}
	pcs := &v1alpha1.ProviderConfigList{}
	if err := x.client.List(ctx, pcs, client.MatchingFields{fieldRepository: repo}, client.UnsafeDisableDeepCopy); err != nil {
		return nil, "", errors.Wrap(err, errListConfigs)
	}
	cpcs := &v1alpha1.ClusterProviderConfigList{}
	if err := x.client.List(ctx, cpcs, client.MatchingFields{fieldRepository: repo}, client.UnsafeDisableDeepCopy); err != nil {
		return nil, "", errors.Wrap(err, errListConfigs)
	}
	out := []string{own}
	for i := range pcs.Items {
		if s := scopeOf(pcs.Items[i].Namespace, &xpv2.ProviderConfigReference{Kind: v1alpha1.ProviderConfigKind, Name: pcs.Items[i].Name}); s != own {
			out = append(out, s)
		}
	}
	for i := range cpcs.Items {
		if s := scopeOf("", &xpv2.ProviderConfigReference{Kind: v1alpha1.ClusterProviderConfigKind, Name: cpcs.Items[i].Name}); s != own {
			out = append(out, s)
		}
	}
	return out, repo, nil
}

// claimants returns the resources of kinds that may overlap l in scopes.
// Kinds not registered (a CRD not active) have none.
func (x *Index) claimants(ctx context.Context, kinds, scopes []string, l Loc) ([]Claimant, error) {
	var out []Claimant
	for _, name := range kinds {
		k, ok := x.kind(name)
		if !ok {
			continue
		}
		for _, s := range scopes {
			for _, q := range Queries(l) {
				if !k.Folders && strings.HasPrefix(q, keyFolder) {
					continue
				}
				found, err := x.lookup(ctx, k, indexKey(s, l.Branch, q))
				if err != nil {
					return nil, err
				}
				out = append(out, found...)
			}
		}
	}
	return out, nil
}

// lookup returns the claimants of kind k stored under index key.
func (x *Index) lookup(ctx context.Context, k Kind, key string) ([]Claimant, error) {
	list := k.NewList()
	// Read only: the cache's objects need not be copied.
	if err := x.client.List(ctx, list, client.MatchingFields{fieldClaim: key}, client.UnsafeDisableDeepCopy); err != nil {
		return nil, errors.Wrapf(err, errListRivals, k.Name)
	}
	items, err := kmeta.ExtractList(list)
	if err != nil {
		return nil, errors.Wrapf(err, errListRivals, k.Name)
	}
	out := make([]Claimant, 0, len(items))
	for _, item := range items {
		o, ok := item.(Object)
		if !ok {
			return nil, errors.Errorf(errFmtNotObject, item)
		}
		if ol, ok := k.Loc(o); ok {
			out = append(out, claimantOf(k, o, ol))
		}
	}
	return out, nil
}

func claimantOf(k Kind, o Object, l Loc) Claimant {
	return Claimant{Kind: k.Name, Namespace: o.GetNamespace(), Name: o.GetName(),
		Created: o.GetCreationTimestamp().Time, Deleting: meta.WasDeleted(o),
		Shared: k.Shared != nil && k.Shared(o), Loc: l}
}

// scopeOf names the configuration ref names from namespace; "" for none.
func scopeOf(namespace string, ref *xpv2.ProviderConfigReference) string {
	switch {
	case ref == nil || ref.Name == "":
		return ""
	case ref.Kind == v1alpha1.ClusterProviderConfigKind:
		return ref.Kind + "/" + ref.Name
	}
	return v1alpha1.ProviderConfigKind + "/" + namespace + "/" + ref.Name
}

func indexKey(scope, branch, key string) string {
	return scope + "\x00" + branch + "\x00" + key
}

// A CheckFn checks claims as Index.Check does; a controller's table tests
// pass one instead of an Index.
type CheckFn func(ctx context.Context, k Kind, o Object) (letGo bool, err error)

// Check calls fn.
func (fn CheckFn) Check(ctx context.Context, k Kind, o Object) (bool, error) { return fn(ctx, k, o) }
