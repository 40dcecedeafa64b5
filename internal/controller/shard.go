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

package controller

import (
	"k8s.io/apimachinery/pkg/labels"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/crossplane-contrib/provider-git/apis/v1alpha1"
)

// ShardCache returns the cache options of a static shard: the managed
// resources and configurations the manager's cache holds (and so its
// controllers ever see) are those sel matches; nothing else is listed or
// watched by this instance. A shard's resources find their configuration
// through the same cache, so a configuration carries its shard's label too.
// ProviderConfigUsages are not selected: a configuration counts every user,
// and the usage tracker labels them itself. The CRDs the safe-start gate
// watches are not either. An empty selector selects everything: no shard.
func ShardCache(sel labels.Selector) map[client.Object]cache.ByObject {
	if sel == nil || sel.Empty() {
		return nil
	}
	out := map[client.Object]cache.ByObject{}
	for _, o := range []client.Object{
		&v1alpha1.ProviderConfig{}, &v1alpha1.ClusterProviderConfig{},
		&v1alpha1.Branch{}, &v1alpha1.File{}, &v1alpha1.CommitRequest{}, &v1alpha1.Mirror{}, &v1alpha1.PullRequest{},
	} {
		out[o] = cache.ByObject{Label: sel}
	}
	return out
}
