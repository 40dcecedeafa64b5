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
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/discovery/cached/memory"
	"k8s.io/client-go/restmapper"

	"github.com/crossplane/crossplane-runtime/v2/pkg/errors"
)

const (
	errKindEmpty   = "a kind needs apiVersion and kind, or resource"
	errAPIVersion  = "cannot parse apiVersion"
	errResolveKind = "cannot resolve kind"
)

// resolved is a Kind as the API server serves it.
type resolved struct {
	gvk     schema.GroupVersionKind
	gvr     schema.GroupVersionResource
	cluster bool // cluster-scoped
}

// resolver maps Kinds to resources through discovery, cached. A miss
// refreshes the cache at most once per refresh interval, so a CRD installed
// after a Mirror asked for its kind resolves on a later Ensure without every
// Ensure of an unknown kind costing a full discovery.
type resolver struct {
	mapper  *restmapper.DeferredDiscoveryRESTMapper
	refresh time.Duration
	now     func() time.Time

	mu        sync.Mutex // guards lastReset; never held across the network
	lastReset time.Time
}

func newResolver(disco discovery.DiscoveryInterface, refresh time.Duration) *resolver {
	return &resolver{
		mapper:  restmapper.NewDeferredDiscoveryRESTMapper(memory.NewMemCacheClient(disco)),
		refresh: refresh,
		now:     time.Now,
	}
}

// resolve returns the resource k names, or a KindNotFoundError.
func (r *resolver) resolve(ctx context.Context, k Kind) (resolved, error) {
	res, err := r.lookup(ctx, k)
	if meta.IsNoMatchError(err) && r.mayReset() {
		r.mapper.ResetWithContext(ctx)
		res, err = r.lookup(ctx, k)
	}
	if meta.IsNoMatchError(err) {
		return resolved{}, &KindNotFoundError{Kind: k}
	}
	return res, errors.Wrapf(err, "%s %s", errResolveKind, k)
}

// mayReset reports whether a refresh is due, and if so counts it as done.
func (r *resolver) mayReset() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	now := r.now()
	if !r.lastReset.IsZero() && now.Sub(r.lastReset) < r.refresh {
		return false
	}
	r.lastReset = now
	return true
}

func (r *resolver) lookup(ctx context.Context, k Kind) (resolved, error) {
	var gk schema.GroupKind
	var versions []string
	switch {
	case k.Kind != "":
		gv, err := schema.ParseGroupVersion(k.APIVersion)
		if err != nil || gv.Version == "" {
			return resolved{}, errors.Errorf("%s %q of kind %s", errAPIVersion, k.APIVersion, k.Kind)
		}
		gk, versions = gv.WithKind(k.Kind).GroupKind(), []string{gv.Version}
	case k.Resource != "":
		gvk, err := r.mapper.KindForWithContext(ctx, schema.GroupVersionResource{Group: k.Group, Resource: k.Resource})
		if err != nil {
			return resolved{}, err
		}
		// No version: RESTMapping picks the group's preferred one.
		gk = gvk.GroupKind()
	default:
		return resolved{}, errors.New(errKindEmpty)
	}
	m, err := r.mapper.RESTMappingWithContext(ctx, gk, versions...)
	if err != nil {
		return resolved{}, err
	}
	return resolved{gvk: m.GroupVersionKind, gvr: m.Resource, cluster: m.Scope.Name() == meta.RESTScopeNameRoot}, nil
}
