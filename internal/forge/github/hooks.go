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

package github

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strconv"

	gh "github.com/google/go-github/v75/github"

	"github.com/crossplane-contrib/provider-git/internal/forge"
)

const (
	errListHooks  = "cannot list the repository's webhooks on GitHub"
	errCreateHook = "cannot create the webhook on GitHub"
	errUpdateHook = "cannot update the webhook on GitHub"
	errDeleteHook = "cannot delete the webhook on GitHub"
	errHookIDFmt  = "%q is not a GitHub webhook ID"
	errNoSecret   = "a webhook without a secret: the events endpoint refuses its unsigned deliveries"
)

// hookEvents are the events the provider's hook subscribes to: push (a
// branch moved: poll the clone now) and pull_request (opened, edited,
// closed, merged, auto-merge on or off); and, for a PullRequest waiting
// for readiness Merged or for its own merge, what changes whether it may
// be merged: pull_request_review (approved, changes requested), check_suite
// (GitHub Actions and Apps finished their checks) and status (a CI that
// reports commit statuses). The events endpoint reads each as a pull
// request event (internal/forge/events); one without a pull request in it
// wakes the repository's PullRequests, each of which costs a conditional
// read, free when unchanged.
func hookEvents() []string {
	return []string{"push", "pull_request", "pull_request_review", "check_suite", "status"}
}

// ListHooks lists GET /repos/{o}/{r}/hooks, every page. GitHub answers 404,
// not 403, to a token that may read the repository but not administer its
// hooks (a classic token without admin:repo_hook, a user who is no admin),
// and 403 to an App without the webhooks permission: both are
// ErrForbidden with GitHub's words.
func (c *Client) ListHooks(ctx context.Context) ([]forge.Hook, error) {
	if err := c.begin(); err != nil {
		return nil, err
	}
	var out []forge.Hook
	for page := 1; page != 0; {
		hs, resp, err := c.gh.Repositories.ListHooks(ctx, c.owner, c.name, &gh.ListOptions{Page: page, PerPage: perPage})
		if err != nil {
			return nil, forbiddenIfNotFound(c.fail(err, errListHooks))
		}
		for _, h := range hs {
			out = append(out, forge.Hook{ID: strconv.FormatInt(h.GetID(), 10), URL: h.GetConfig().GetURL(), Active: h.GetActive()})
		}
		page = resp.NextPage
	}
	return out, nil
}

// CreateHook is POST /repos/{o}/{r}/hooks: a "web" hook delivering
// hookEvents as JSON to h.URL, signed with h.Secret, TLS verified, active.
// A 404 is ErrForbidden, as for ListHooks. A hook of the same URL already
// there is GitHub's 422 "Hook already exists on this repository":
// ErrInvalidInput with those words (list the hooks and update that one).
func (c *Client) CreateHook(ctx context.Context, h forge.Hook) (forge.Hook, error) {
	if h.Secret == "" {
		return forge.Hook{}, fmt.Errorf("%s: %w", errCreateHook, fmt.Errorf("%s: %w", errNoSecret, forge.ErrInvalidInput))
	}
	if err := c.begin(); err != nil {
		return forge.Hook{}, err
	}
	got, _, err := c.gh.Repositories.CreateHook(ctx, c.owner, c.name, hookRequest(h))
	if err != nil {
		return forge.Hook{}, forbiddenIfNotFound(c.fail(err, errCreateHook))
	}
	h.ID, h.Active = strconv.FormatInt(got.GetID(), 10), got.GetActive()
	return h, nil
}

// UpdateHook is PATCH /repos/{o}/{r}/hooks/{id} with the whole
// configuration (URL, JSON, secret, TLS verified), hookEvents, active:
// GitHub changes a hook's secret in place, so the hook keeps its ID. A 404
// is ErrNotFound: the hook is gone.
func (c *Client) UpdateHook(ctx context.Context, h forge.Hook) (forge.Hook, error) {
	id, err := hookID(h.ID)
	if err != nil {
		return forge.Hook{}, fmt.Errorf("%s: %w", errUpdateHook, err)
	}
	if h.Secret == "" {
		return forge.Hook{}, fmt.Errorf("%s: %w", errUpdateHook, fmt.Errorf("%s: %w", errNoSecret, forge.ErrInvalidInput))
	}
	if err := c.begin(); err != nil {
		return forge.Hook{}, err
	}
	got, _, err := c.gh.Repositories.EditHook(ctx, c.owner, c.name, id, hookRequest(h))
	if err != nil {
		return forge.Hook{}, c.fail(err, errUpdateHook)
	}
	h.Active = got.GetActive()
	return h, nil
}

// DeleteHook is DELETE /repos/{o}/{r}/hooks/{id}; a 404 is ErrNotFound.
func (c *Client) DeleteHook(ctx context.Context, id string) error {
	n, err := hookID(id)
	if err != nil {
		return fmt.Errorf("%s: %w", errDeleteHook, err)
	}
	if err := c.begin(); err != nil {
		return err
	}
	if _, err := c.gh.Repositories.DeleteHook(ctx, c.owner, c.name, n); err != nil {
		return c.fail(err, errDeleteHook)
	}
	return nil
}

// hookRequest is the hook GitHub is asked to keep. insecure_ssl is "0"
// whatever the hook had: the provider never asks for deliveries whose TLS
// is not verified.
func hookRequest(h forge.Hook) *gh.Hook {
	return &gh.Hook{
		Config: &gh.HookConfig{URL: &h.URL, ContentType: ptr("json"), Secret: &h.Secret, InsecureSSL: ptr("0")},
		Events: hookEvents(),
		Active: ptr(true),
	}
}

// hookID is GitHub's numeric hook ID.
func hookID(id string) (int64, error) {
	n, err := strconv.ParseInt(id, 10, 64)
	if err != nil || n <= 0 {
		return 0, fmt.Errorf(errHookIDFmt+": %w", id, forge.ErrInvalidInput)
	}
	return n, nil
}

// forbiddenIfNotFound makes a 404 of the hooks endpoints ErrForbidden,
// keeping GitHub's words.
func forbiddenIfNotFound(err error) error {
	var a *forge.APIError
	if errors.As(err, &a) && a.Status == http.StatusNotFound {
		a.Kind = forge.ErrForbidden
	}
	return err
}
