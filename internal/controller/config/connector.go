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

package config

import (
	"context"

	"github.com/crossplane/crossplane-runtime/v2/pkg/errors"
	"github.com/crossplane/crossplane-runtime/v2/pkg/resource"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/crossplane-contrib/provider-git/apis/v1alpha1"
	"github.com/crossplane-contrib/provider-git/internal/git"
)

const (
	errTrackUsage = "cannot track ProviderConfig usage"
	errCache      = "cannot open the repository cache"
)

// A Connector opens, for a managed resource, the shared clone of the
// repository its configuration names, after recording that the resource
// uses that configuration. It does not touch the network.
type Connector struct {
	usage    *resource.ProviderConfigUsageTracker
	resolver *Resolver
	cache    *git.Cache
}

// NewConnector returns a Connector reading configurations through c, their
// Secrets through s, and opening clones in cache.
func NewConnector(c client.Client, s SecretReader, cache *git.Cache, allowInsecure bool) *Connector {
	return &Connector{
		usage:    resource.NewProviderConfigUsageTracker(c, &v1alpha1.ProviderConfigUsage{}),
		resolver: NewResolver(c, s, allowInsecure),
		cache:    cache,
	}
}

// Connect returns mg's repository and the connection it was opened with.
// Usage is tracked first, so a resource that names a broken configuration
// still counts as its user.
func (c *Connector) Connect(ctx context.Context, mg resource.ModernManaged) (*git.Repository, *Connection, error) {
	return c.connect(ctx, mg, nil)
}

// ConnectForge is Connect for a resource that also reaches the forge's
// API (a PullRequest): it returns what the configuration says of it too.
func (c *Connector) ConnectForge(ctx context.Context, mg resource.ModernManaged) (*git.Repository, *Connection, ForgeAccess, error) {
	fa := ForgeAccess{}
	repo, conn, err := c.connect(ctx, mg, &fa)
	return repo, conn, fa, err
}

func (c *Connector) connect(ctx context.Context, mg resource.ModernManaged, fa *ForgeAccess) (*git.Repository, *Connection, error) {
	if err := c.usage.Track(ctx, mg); err != nil {
		return nil, nil, errors.Wrap(err, errTrackUsage)
	}
	conn, err := c.resolver.forManaged(ctx, mg, fa)
	if err != nil {
		return nil, nil, err
	}
	repo, err := conn.Open(c.cache)
	if err != nil {
		return nil, nil, errors.Wrap(err, errCache)
	}
	return repo, conn, nil
}
