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

package gitlab

import (
	"context"
	"fmt"
	"strconv"

	gl "gitlab.com/gitlab-org/api/client-go/v2"

	"github.com/crossplane-contrib/provider-git/internal/forge"
)

const (
	errListHooks     = "cannot list the GitLab project's webhooks"
	errCreateHook    = "cannot add a webhook to the GitLab project"
	errUpdateHookFmt = "cannot edit the GitLab project's webhook %s"
	errDeleteHookFmt = "cannot delete the GitLab project's webhook %s"
	errHookIDFmt     = "%q is not a GitLab webhook id"
)

// Alert statuses of a hook GitLab stopped delivering to after failures
// (WebHooks::AutoDisabling): temporarily for a while, or until a person
// re-enables it.
var disabled = map[string]bool{"disabled": true, "temporarily_disabled": true}

// ListHooks returns every webhook of the project, following its pages.
// GitLab shows them to a Maintainer (or an administrator) only; another
// token's 403 is ErrForbidden with GitLab's words.
func (c *Client) ListHooks(ctx context.Context) ([]forge.Hook, error) {
	var out []forge.Hook
	for page, n := int64(1), 0; page != 0; n++ {
		if n >= maxPages {
			return nil, fmt.Errorf("%s: %w", errListHooks, fmt.Errorf(errPagesFmt, maxPages))
		}
		opt := &gl.ListProjectHooksOptions{ListOptions: gl.ListOptions{PerPage: perPage, Page: page}}
		hs, resp, err := c.api.Projects.ListProjectHooks(c.path, opt, c.opts(ctx)...)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", errListHooks, err)
		}
		for _, h := range hs {
			if h != nil {
				out = append(out, hook(h))
			}
		}
		page = nextPage(resp.Header, page)
	}
	return out, nil
}

// CreateHook adds h delivering push and merge request events.
func (c *Client) CreateHook(ctx context.Context, h forge.Hook) (forge.Hook, error) {
	// The same fields as an edit's: the conversion fails to compile
	// should client-go's two option types ever differ.
	opt := gl.AddProjectHookOptions(events(h))
	got, _, err := c.api.Projects.AddProjectHook(c.path, &opt, c.opts(ctx)...)
	if err != nil {
		return forge.Hook{}, fmt.Errorf("%s: %w", errCreateHook, err)
	}
	r := hook(got)
	h.ID, h.URL, h.Active = r.ID, r.URL, r.Active
	return h, nil
}

// UpdateHook points hook h.ID at h.URL with h.Secret and the same events.
// The token is always sent: GitLab drops a hook's token when its URL
// changes.
func (c *Client) UpdateHook(ctx context.Context, h forge.Hook) (forge.Hook, error) {
	id, err := hookID(h.ID)
	if err != nil {
		return forge.Hook{}, fmt.Errorf(errUpdateHookFmt+": %w", h.ID, err)
	}
	opt := events(h)
	got, _, err := c.api.Projects.EditProjectHook(c.path, id, &opt, c.opts(ctx)...)
	if err != nil {
		return forge.Hook{}, fmt.Errorf(errUpdateHookFmt+": %w", h.ID, err)
	}
	return hook(got), nil
}

// DeleteHook removes hook id; GitLab's 404 is ErrNotFound.
func (c *Client) DeleteHook(ctx context.Context, id string) error {
	n, err := hookID(id)
	if err != nil {
		return fmt.Errorf(errDeleteHookFmt+": %w", id, err)
	}
	if _, err := c.api.Projects.DeleteProjectHook(c.path, n, c.opts(ctx)...); err != nil {
		return fmt.Errorf(errDeleteHookFmt+": %w", id, err)
	}
	return nil
}

// events is what the provider's hook asks of GitLab: push and merge request
// events (the receiver reads those two object kinds and nothing else), no
// tag pushes, no pipeline events (a pipeline that ends an auto-merge sends
// a merge request event as it merges; checks are read at the next poll),
// every branch, with TLS verification on.
func events(h forge.Hook) gl.EditProjectHookOptions {
	return gl.EditProjectHookOptions{
		URL:                    gl.Ptr(h.URL),
		Token:                  gl.Ptr(h.Secret),
		PushEvents:             gl.Ptr(true),
		PushEventsBranchFilter: gl.Ptr(""),
		BranchFilterStrategy:   gl.Ptr("all_branches"),
		MergeRequestsEvents:    gl.Ptr(true),
		TagPushEvents:          gl.Ptr(false),
		PipelineEvents:         gl.Ptr(false),
		EnableSSLVerification:  gl.Ptr(true),
	}
}

// hook is the forge's view of h: active unless GitLab disabled it.
func hook(h *gl.ProjectHook) forge.Hook {
	return forge.Hook{ID: strconv.FormatInt(h.ID, 10), URL: h.URL, Active: !disabled[h.AlertStatus]}
}

func hookID(id string) (int64, error) {
	n, err := strconv.ParseInt(id, 10, 64)
	if err != nil || n <= 0 {
		return 0, fmt.Errorf(errHookIDFmt+": %w", id, forge.ErrInvalidInput)
	}
	return n, nil
}
