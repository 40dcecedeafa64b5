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

package gitea

import (
	"context"
	"errors"
	"fmt"
	"strconv"

	sdk "code.gitea.io/sdk/gitea"

	"github.com/crossplane-contrib/provider-git/internal/forge"
)

const (
	errListHooks      = "cannot list the repository's webhooks"
	errCreateHook     = "cannot create the repository's webhook"
	errReplaceHookFmt = "cannot delete webhook %s, replaced by %s"
	errDelHookFmt     = "cannot delete webhook %s"
	errHookIDFmt      = "webhook id %q is not a number"
)

// hookEvents are the deliveries a registered hook sends: pushes, and the
// pull request changes a PullRequest's readiness reads (opened, edited,
// closed or merged, a new head, labels, reviews). Status and check events
// are not Gitea's to send; a check's result reaches the PullRequest at its
// next listing.
var hookEvents = []string{"push", "pull_request", "pull_request_sync", "pull_request_label",
	"pull_request_review_approved", "pull_request_review_rejected"}

var _ forge.Hooks = (*client)(nil)

func (c *client) ListHooks(ctx context.Context) ([]forge.Hook, error) {
	cl, err := c.sdk(ctx)
	if err != nil {
		return nil, err
	}
	var out []forge.Hook
	for page := 1; page > 0; {
		var hs []*sdk.Hook
		var resp *sdk.Response
		if err := c.run(cl, errListHooks, func(s *sdk.Client) (*sdk.Response, error) {
			var err error
			hs, resp, err = s.ListRepoHooks(c.owner, c.name, sdk.ListHooksOptions{ListOptions: sdk.ListOptions{Page: page, PageSize: pageSize}})
			return resp, err
		}); err != nil {
			return nil, err
		}
		for _, h := range hs {
			out = append(out, forge.Hook{ID: strconv.FormatInt(h.ID, 10), URL: h.Config["url"], Active: h.Active})
		}
		page = nextPage(resp, page, len(hs))
	}
	return out, nil
}

func (c *client) CreateHook(ctx context.Context, h forge.Hook) (forge.Hook, error) {
	cl, err := c.sdk(ctx)
	if err != nil {
		return forge.Hook{}, err
	}
	var got *sdk.Hook
	if err := c.run(cl, errCreateHook, func(s *sdk.Client) (*sdk.Response, error) {
		var resp *sdk.Response
		var err error
		got, resp, err = s.CreateRepoHook(c.owner, c.name, sdk.CreateHookOption{
			Type: sdk.HookTypeGitea, Active: true, Events: hookEvents, Config: hookConfig(h),
		})
		return resp, err
	}); err != nil {
		return forge.Hook{}, err
	}
	return forge.Hook{ID: strconv.FormatInt(got.ID, 10), URL: got.Config["url"], Active: got.Active}, nil
}

// UpdateHook replaces the hook: Gitea's and Forgejo's edit API changes a
// hook's URL and events but never its secret (routers/api/v1/utils/hook.go
// reads no "secret" on edit), so a rotated secret needs a new hook. The new
// one is created before the old is deleted, so no delivery falls between.
func (c *client) UpdateHook(ctx context.Context, h forge.Hook) (forge.Hook, error) {
	if _, err := hookID(h.ID); err != nil {
		return forge.Hook{}, err
	}
	created, err := c.CreateHook(ctx, h)
	if err != nil {
		return forge.Hook{}, err
	}
	if err := c.DeleteHook(ctx, h.ID); err != nil && !errors.Is(err, forge.ErrNotFound) {
		return created, fmt.Errorf(errReplaceHookFmt+": %w", h.ID, created.ID, err)
	}
	return created, nil
}

func (c *client) DeleteHook(ctx context.Context, id string) error {
	n, err := hookID(id)
	if err != nil {
		return err
	}
	cl, err := c.sdk(ctx)
	if err != nil {
		return err
	}
	return c.run(cl, fmt.Errorf(errDelHookFmt, id).Error(), func(s *sdk.Client) (*sdk.Response, error) {
		return s.DeleteRepoHook(c.owner, c.name, n)
	})
}

// hookConfig is a Gitea hook's configuration: JSON deliveries to h.URL,
// signed with h.Secret (X-Gitea-Signature).
func hookConfig(h forge.Hook) map[string]string {
	return map[string]string{"url": h.URL, "content_type": "json", "secret": h.Secret}
}

func hookID(id string) (int64, error) {
	n, err := strconv.ParseInt(id, 10, 64)
	if err != nil || n <= 0 {
		return 0, fmt.Errorf(errHookIDFmt, id)
	}
	return n, nil
}
