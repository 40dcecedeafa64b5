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

package bitbucket

import (
	"context"
	"net/http"
	"net/url"
	"strconv"

	"github.com/crossplane-contrib/provider-git/internal/forge"
)

const (
	errListHooks  = "cannot list the repository's webhooks on Bitbucket"
	errCreateHook = "cannot create the webhook on Bitbucket"
	errUpdateHook = "cannot update the webhook on Bitbucket"
	errDeleteHook = "cannot delete the webhook on Bitbucket"

	// hookName names the provider's hook in Bitbucket's settings pages.
	hookName = "provider-git"
)

// cloudEvents are the Cloud events the receiver acts on
// (internal/forge/events cloudKinds, comments left out). Registering them
// needs an access token with the webhook, repository and pullrequest
// scopes.
var cloudEvents = []string{
	"repo:push", "repo:commit_status_created", "repo:commit_status_updated",
	"pullrequest:created", "pullrequest:updated", "pullrequest:fulfilled", "pullrequest:rejected",
	"pullrequest:approved", "pullrequest:unapproved",
	"pullrequest:changes_request_created", "pullrequest:changes_request_removed",
}

// dcEvents are the Data Center events the receiver acts on
// (internal/forge/events dcKinds, comments left out). Keeping hooks needs
// REPO_ADMIN.
var dcEvents = []string{
	"repo:refs_changed", "pr:opened", "pr:from_ref_updated", "pr:to_ref_updated", "pr:modified",
	"pr:merged", "pr:declined", "pr:deleted",
	"pr:reviewer:approved", "pr:reviewer:unapproved", "pr:reviewer:needs_work",
}

// ListHooks lists GET hooks, every page.
func (c *Cloud) ListHooks(ctx context.Context) ([]forge.Hook, error) {
	hs, err := cloudAll[cloudHook](ctx, c, c.repoPath()+"hooks?pagelen=100")
	if err != nil {
		return nil, c.fail(err, errListHooks)
	}
	out := make([]forge.Hook, 0, len(hs))
	for _, h := range hs {
		out = append(out, forge.Hook{ID: h.UUID, URL: h.URL, Active: h.Active})
	}
	return out, nil
}

// CreateHook is POST hooks with the secret Cloud signs deliveries with
// (X-Hub-Signature).
func (c *Cloud) CreateHook(ctx context.Context, h forge.Hook) (forge.Hook, error) {
	var got cloudHook
	body := cloudHook{URL: h.URL, Description: hookName, Active: true, Events: cloudEvents, Secret: h.Secret}
	if _, err := c.do(ctx, call{method: http.MethodPost, path: c.repoPath() + "hooks", body: body}, &got); err != nil {
		return forge.Hook{}, c.fail(err, errCreateHook)
	}
	return forge.Hook{ID: got.UUID, URL: got.URL, Active: got.Active}, nil
}

// UpdateHook is PUT hooks/{uid}.
func (c *Cloud) UpdateHook(ctx context.Context, h forge.Hook) (forge.Hook, error) {
	body := cloudHook{URL: h.URL, Description: hookName, Active: true, Events: cloudEvents, Secret: h.Secret}
	if _, err := c.do(ctx, call{method: http.MethodPut, path: c.repoPath() + "hooks/" + url.PathEscape(h.ID), body: body}, nil); err != nil {
		return forge.Hook{}, c.fail(err, errUpdateHook)
	}
	return forge.Hook{ID: h.ID, URL: h.URL, Active: true}, nil
}

// DeleteHook is DELETE hooks/{uid}; 404 is ErrNotFound.
func (c *Cloud) DeleteHook(ctx context.Context, id string) error {
	if _, err := c.do(ctx, call{method: http.MethodDelete, path: c.repoPath() + "hooks/" + url.PathEscape(id)}, nil); err != nil {
		return c.fail(err, errDeleteHook)
	}
	return nil
}

// ListHooks lists GET webhooks, every page.
func (d *DataCenter) ListHooks(ctx context.Context) ([]forge.Hook, error) {
	hs, err := dcAll[dcHook](ctx, d, d.repoPath()+"webhooks")
	if err != nil {
		return nil, d.fail(err, errListHooks)
	}
	out := make([]forge.Hook, 0, len(hs))
	for _, h := range hs {
		out = append(out, forge.Hook{ID: strconv.FormatInt(h.ID, 10), URL: h.URL, Active: h.Active})
	}
	return out, nil
}

// CreateHook is POST webhooks with configuration.secret, which Data
// Center signs deliveries with (X-Hub-Signature).
func (d *DataCenter) CreateHook(ctx context.Context, h forge.Hook) (forge.Hook, error) {
	var got dcHook
	if _, err := d.do(ctx, call{method: http.MethodPost, path: d.repoPath() + "webhooks", body: dcHookBody(h)}, &got); err != nil {
		return forge.Hook{}, d.fail(err, errCreateHook)
	}
	return forge.Hook{ID: strconv.FormatInt(got.ID, 10), URL: got.URL, Active: got.Active}, nil
}

// UpdateHook is PUT webhooks/{id}.
func (d *DataCenter) UpdateHook(ctx context.Context, h forge.Hook) (forge.Hook, error) {
	if _, err := d.do(ctx, call{method: http.MethodPut, path: d.repoPath() + "webhooks/" + url.PathEscape(h.ID), body: dcHookBody(h)}, nil); err != nil {
		return forge.Hook{}, d.fail(err, errUpdateHook)
	}
	return forge.Hook{ID: h.ID, URL: h.URL, Active: true}, nil
}

// DeleteHook is DELETE webhooks/{id}; 404 is ErrNotFound.
func (d *DataCenter) DeleteHook(ctx context.Context, id string) error {
	if _, err := d.do(ctx, call{method: http.MethodDelete, path: d.repoPath() + "webhooks/" + url.PathEscape(id)}, nil); err != nil {
		return d.fail(err, errDeleteHook)
	}
	return nil
}

func dcHookBody(h forge.Hook) dcHook {
	return dcHook{Name: hookName, URL: h.URL, Active: true, Events: dcEvents, Configuration: map[string]string{"secret": h.Secret}}
}
