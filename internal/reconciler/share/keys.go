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
	"time"

	"github.com/crossplane/crossplane-runtime/v2/pkg/resource"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/crossplane-contrib/provider-git/apis/v1alpha1"
	"github.com/crossplane-contrib/provider-git/internal/git"
)

// readTimeout bounds one read of a configuration from the cache: an event
// filter has no context of its own.
const readTimeout = 10 * time.Second

// Keys maps an object to the key of the repository it writes: the
// RepositoryKey of a configuration's URL, for a managed resource that of the
// configuration its providerConfigRef names. A repository is one writer's
// whatever configuration or credentials reach it: two configurations of one
// URL are held by one replica. A resource whose configuration cannot be read
// (not created yet, a bad URL) is keyed by the configuration's name, so
// exactly one replica reconciles it and says what is wrong.
type Keys struct {
	c client.Reader
}

// NewKeys reads configurations through c (the manager's cache).
func NewKeys(c client.Reader) Keys { return Keys{c: c} }

// Of returns the repository key of o.
func (k Keys) Of(ctx context.Context, o client.Object) string {
	switch pc := o.(type) {
	case *v1alpha1.ProviderConfig:
		return urlKey(pc.Spec.URL, "ProviderConfig/"+pc.Namespace+"/"+pc.Name)
	case *v1alpha1.ClusterProviderConfig:
		return urlKey(pc.Spec.URL, "ClusterProviderConfig/"+pc.Name)
	}
	mg, ok := o.(resource.ModernManaged)
	if !ok {
		return ""
	}
	ref := mg.GetProviderConfigReference()
	if ref == nil {
		return ""
	}
	ctx, cancel := context.WithTimeout(ctx, readTimeout)
	defer cancel()
	switch ref.Kind {
	case v1alpha1.ClusterProviderConfigKind:
		pc := &v1alpha1.ClusterProviderConfig{}
		if err := k.c.Get(ctx, types.NamespacedName{Name: ref.Name}, pc); err != nil {
			return "ClusterProviderConfig/" + ref.Name
		}
		return k.Of(ctx, pc)
	default:
		pc := &v1alpha1.ProviderConfig{}
		if err := k.c.Get(ctx, types.NamespacedName{Namespace: o.GetNamespace(), Name: ref.Name}, pc); err != nil {
			return "ProviderConfig/" + o.GetNamespace() + "/" + ref.Name
		}
		return k.Of(ctx, pc)
	}
}

// InUse returns the keys of every configuration's repository, for the count
// of those held.
func (k Keys) InUse(ctx context.Context) []string {
	seen := map[string]bool{}
	var out []string
	add := func(key string) {
		if !seen[key] {
			seen[key] = true
			out = append(out, key)
		}
	}
	pcs := &v1alpha1.ProviderConfigList{}
	if err := k.c.List(ctx, pcs); err == nil {
		for i := range pcs.Items {
			add(k.Of(ctx, &pcs.Items[i]))
		}
	}
	cpcs := &v1alpha1.ClusterProviderConfigList{}
	if err := k.c.List(ctx, cpcs); err == nil {
		for i := range cpcs.Items {
			add(k.Of(ctx, &cpcs.Items[i]))
		}
	}
	return out
}

// urlKey is url's RepositoryKey, or fallback when url names none.
func urlKey(url, fallback string) string {
	key, err := git.RepositoryKey(url)
	if err != nil {
		return fallback
	}
	return key
}
