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

// Package gitlab is the forge.Client of GitLab (gitlab.com and self-managed
// GitLab), for merge requests, and its forge.Hooks, for the project's
// webhooks.
//
// It speaks GitLab's REST API v4 through GitLab's maintained Go client,
// gitlab.com/gitlab-org/api/client-go/v2 (pinned at v2.64.0), on the one
// hardened http.Client of forgehttp. client-go adds 4.8 MiB and 4 modules
// (client-go, go-retryablehttp, go-cleanhttp, go-querystring) to the
// stripped provider binary: 53.86 -> 58.71 MiB (56,479,906 -> 61,558,946
// bytes; 1,229 -> 1,235 packages, 105 -> 109 modules besides the
// provider's), measured 2026-12-06 with Go 1.26.8 on linux/amd64 against
// main's state before the move; the GitHub client's own move is measured
// apart. The calls:
//
//	GET    /projects/:id/merge_requests?state=opened&per_page=100  ListOpen (every page)
//	GET    /projects/:id/merge_requests/:iid                       Get
//	GET    /projects/:id/merge_requests/:iid/approvals             Get (review decision)
//	POST   /projects/:id/merge_requests                            Create
//	PUT    /projects/:id/merge_requests/:iid                       Update, Close
//	PUT    /projects/:id/merge_requests/:iid/rebase                Merge with MethodRebase
//	PUT    /projects/:id/merge_requests/:iid/merge                 Merge, AutoMerge
//	GET    /users?username=                                        reviewer and assignee ids
//	GET    /projects/:id/hooks?per_page=100                        ListHooks (every page)
//	POST   /projects/:id/hooks                                     CreateHook
//	PUT    /projects/:id/hooks/:hook_id                            UpdateHook
//	DELETE /projects/:id/hooks/:hook_id                            DeleteHook
//
// :id is the project's full path (Config.Owner + "/" + Config.Name) escaped
// as one path segment (group%2Fsub%2Fproject); a pull request's number is the
// merge request's iid. client-go appends api/v4/ to an API URL that does
// not end in it.
//
// How client-go is held:
//
//   - The token is read per request (a client-go AuthSource calling
//     Config.Token), so one client-go client serves a Client's life and a
//     refreshed token is used from the next request on.
//   - Every request goes through forgehttp's client (WithHTTPClient): a
//     redirect to another host or scheme is refused before the token can
//     follow it, and so is a request client-go would build off the API's
//     origin.
//   - client-go's retries are off (WithoutRetries, and at most 0 retries),
//     and its rate limiter never waits. By default it retries a 429 and a
//     5xx of any method, a POST included, after sleeping on the wall clock,
//     and paces every call from the first answer's RateLimit-Limit: a merge
//     request GitLab opened behind a proxy's 502 would be opened again, and
//     a worker would sleep where forge.Pacer requeues it. Each refusal
//     comes back at once, a 429 as a *forge.RateLimitError that the
//     PullRequest controller requeues at.
//   - A response handler reads every answer: a 2xx or 304 goes on to
//     client-go with its body bounded to 32 MiB; any other status is read
//     (bounded), closed and returned as *forge.APIError with GitLab's words
//     passed through forgehttp.Text, or *forge.RateLimitError. client-go's
//     own ErrorResponse (which drops a 404's body) is never seen.
//
// Decisions, each where GitLab differs from the other forges:
//
//   - Authentication: the token is sent as PRIVATE-TOKEN, the header GitLab
//     documents for personal, project and group access tokens, which is what
//     a configuration's Secret holds. An OAuth 2 access token needs
//     Authorization: Bearer instead; WithBearer selects it.
//   - Draft is the documented "Draft: " title prefix (the API has no draft
//     parameter); the Title reported back has the prefix removed, so it
//     compares with the declared title.
//   - Locked is GitLab's state while a merge is in progress: it is reported
//     as Open, never as final.
//   - Checks are the head pipeline's status: success is success; failed and
//     canceled are failure; created, waiting_for_resource, preparing,
//     pending, running, scheduled and manual are pending; skipped, or no
//     pipeline, is "" (nothing ran).
//   - ReviewDecision: CHANGES_REQUESTED when detailed_merge_status says
//     requested_changes, REVIEW_REQUIRED while approvals_left > 0, APPROVED
//     when GitLab says approved and someone has approved, else "" (GitLab
//     says approved: true also when no approval is required, which GitHub
//     would call no decision).
//   - Mergeable comes from detailed_merge_status: true for mergeable, nil
//     while GitLab is still computing it (unchecked, checking, preparing,
//     approvals_syncing), false for every other status.
//   - Merge method: GitLab merges by the project's merge method; the API
//     only chooses squash. MethodSquash sends squash: true. MethodRebase first
//     rebases the source branch (PUT .../rebase, asynchronous on GitLab) when
//     it is behind the target, and answers ErrNotMergeable until the rebase
//     is done; the next call merges. With the project's "Fast-forward merge"
//     method the result is GitHub's rebase merge; with "Merge commit" it is a
//     merge commit over a rebased branch (GitLab's semi-linear history).
//   - AutoMerge sends auto_merge: true (GitLab 17.11 and later) together with
//     the deprecated merge_when_pipeline_succeeds: true (earlier versions,
//     still accepted), so either GitLab sets auto-merge. The answer is
//     accepted as set when merge_when_pipeline_succeeds is true (GitLab's
//     answers carry no auto_merge field), or when GitLab merged at once.
//   - Merge refusals 405, 406 and 422 are ErrNotMergeable, and so is a 200
//     that leaves the merge request open with merge_error (GitLab's merge
//     service records a refused push there). 409 on create ("Another open
//     merge request already exists for this source branch: !N") is
//     ErrExists: GitLab allows one open merge request per source branch
//     whatever its target, so the open one may have another base (its iid is
//     in the APIError's message); 429 is a *forge.RateLimitError until Retry-After,
//     RateLimit-Reset or RateLimit-ResetTime, or one minute (GitLab's default
//     throttle period) when it names none.
//   - ListOpen sends If-None-Match per page when the previous answer for that
//     page had an ETag; it is notModified only when every page answered 304.
//     GitLab counts a 304 against its rate limit like any request, so this
//     saves bandwidth, not quota; it is used, never required.
//   - Webhooks (forge.Hooks) need the Maintainer role: another token's list
//     is 403, ErrForbidden with GitLab's words. The provider's hook has the
//     secret as its token (GitLab sends it back as X-Gitlab-Token), push
//     events and merge request events of every branch (an empty branch
//     filter, strategy all_branches), no tag push events, and TLS
//     verification on. Pipeline events are not asked for: the events
//     receiver reads push and merge_request payloads only, a pipeline that
//     ends in an auto-merge is followed by the merge request's own event,
//     and checks are read at the next poll. UpdateHook always sends the
//     token, as GitLab drops it when the URL changes, and puts the events
//     back. GitLab's hooks have no active flag: a hook GitLab stopped
//     delivering to after failures (alert_status temporarily_disabled or
//     disabled) is reported not Active. A hook already gone is ErrNotFound
//     on delete.
package gitlab
