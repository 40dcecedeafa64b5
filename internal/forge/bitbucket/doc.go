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

// Package bitbucket is the forge.Client (and forge.Hooks) of Bitbucket
// Cloud (REST 2.0, api.bitbucket.org) and Bitbucket Data Center and Server
// (REST 1.0, <host>[/context]/rest/api/1.0/): one package, two adapters
// (Cloud, DataCenter) over one HTTP core, because both share what is not
// their payloads: credentials ("user:secret" is basic authentication,
// anything else a bearer token), the refusals' mapping, the rate-limit
// hold, and the folding of build statuses and reviews. Two packages would
// copy that core or need a third.
//
// Hand-written on net/http and encoding/json against the documented REST
// APIs (Atlassian's OpenAPI documents of Bitbucket Cloud 2.0 and Data
// Center 9.2), on the one hardened client of forgehttp: there is no
// maintained official Go client for either product (Atlassian publishes
// none; the community ones cover one product each, lag the APIs, and would
// bring their own HTTP clients). Only the fields read and written are
// modelled (cloudtypes.go, dctypes.go).
//
// # Credentials
//
// forge.Config.Token returns the API credential. "user:secret" (a colon;
// no access token contains one) is sent as basic authentication: a
// Bitbucket Cloud app password with its user name, or an Atlassian API
// token with the account's email. Anything else is sent as a bearer
// token: a Cloud repository, project or workspace access token, or a Data
// Center HTTP access token (personal, project or repository). The
// configuration package decides which a Secret holds (see
// docs/guides/credentials.md). A credential is set on each request, never
// by a RoundTripper, and forgehttp refuses every request and redirect off
// the API's origin: a pagination link or a redirect elsewhere carries
// nothing.
//
// # Lifecycle
//
// Both list open pull requests once per poll, every page (Cloud follows
// next, Data Center nextPageStart until isLastPage), without conditional
// requests: neither reference documents an ETag on these lists (Cloud
// answers some resources with one; whether a 304 costs its rate limit is
// not documented either). Open work: measure it on Cloud. A pull request whose
// source repository is not the destination (a fork) is reported with
// HeadInRepo false, so it is never adopted, and never merged or deleted by
// the provider. Neither has labels or assignees: a Spec that declares any
// is refused (ErrInvalidInput), as the forge would silently drop them and
// the provider would then find drift at every poll. Reviewers are a floor:
// declared ones are added, none is removed (an update replaces the list,
// and removing a reviewer drops their approval).
//
// Bitbucket Cloud: reviewers are named by Atlassian account ID or by
// {UUID} (Cloud no longer accepts user names); PullRequest.Reviewers names
// each reviewer both ways, so either spelling is found. Draft is Cloud's
// draft flag. A pull request's commits are 12-character hashes in Cloud's
// answers: the head of an open one from this repository is expanded to
// the full SHA (GET commit/{hash}) once per head and kept, so the same
// head is never asked twice. Creating a pull request whose head and base
// already have an open one does not fail on Cloud: it updates that one
// (not in the reference; reported by the
// atlassian-python-api maintainers). So Create first looks for an open one of
// this repository with the same head and base (one filtered list) and
// answers ErrExists when there is one; a 200 to the create (Cloud answers
// a new one 201) is taken as the same. Mergeable is false for a draft,
// when Cloud says the merge checks do not pass (mergeable false), or when
// the pull request's file conflicts (GET pullrequests/{id}/conflicts,
// redirected on the API's origin) list any; else true, and a merge Cloud
// refuses (400) is ErrNotMergeable. Checks fold the head commit's build
// statuses (FAILED and STOPPED fail, INPROGRESS is pending). Cloud has no
// expected head on a merge: Merge reads the pull request and then the
// head branch (GET refs/branches/{name}, the full SHA) immediately before
// it posts the merge, and refuses (ErrHeadMoved) when either is not the
// judged head. What remains is the time between that read and Cloud's
// merge, one round trip (well under a second): a push landing exactly
// then is merged unjudged; Cloud's own 409 ("one of the refs involved
// changed") covers a push during the merge itself. Methods: merge →
// merge_commit, squash → squash, rebase → rebase_fast_forward (commits
// replayed on the base, no merge commit, as GitHub's rebase; a plain
// fast_forward would refuse every head not already ahead of the base),
// each refused before the merge when the destination branch does not
// allow it. DeleteBranch is close_source_branch. Cloud's auto-merge exists
// only in its web UI: AutoMerge is ErrUnsupported, and the provider merges
// once Mergeable and no check failed.
//
// Bitbucket Data Center: reviewers are user names. Draft needs a server
// with draft pull requests (the 9.2 REST reference has them); a server
// that answers without the draft field cannot keep a draft, and a draft
// Spec is refused there (ErrInvalidInput). Merge reads the pull request,
// refuses a head other than the judged one (ErrHeadMoved), and merges
// with the pull request's version: Data Center refuses a stale version
// (409, PullRequestOutOfDateException → ErrHeadMoved). A push changes the
// version once Data Center rescopes the pull request (the fake models
// that; the reference says only that a stale version is refused): what it
// merges in the moment between a push landing and its rescope is not
// documented, and that moment is the window left. Mergeable is the merge
// preview's canMerge (GET …/merge: conflicts and merge-check vetoes),
// Checks the build-status statistics of the head commit. Methods: merge →
// no-ff, squash → squash, rebase → rebase-ff-only. DeleteBranch deletes
// the head through the branch-utils API after the merge, pinned to the
// merged head (endPoint): a branch moved since is left alone. AutoMerge
// uses Data Center's auto-merge (in its 9.2 REST reference: POST …/merge
// with autoMerge, pinned to the version like a merge); a repository with
// auto-merge off answers 403, and a merge that must also delete the head
// is not left to it (its auto-merge keeps no such option): both are
// ErrUnsupported, and the provider merges. A server older than
// auto-merge ignores the flag and merges at once when its merge checks
// allow, else refuses (409, ErrNotMergeable: asked again at the next
// poll). Data Center does not say in a pull request whether auto-merge is
// set, so PullRequest.AutoMerge stays false; the provider asks once per
// head.
//
// # Rate limits
//
// A 429 is a *forge.RateLimitError until Retry-After, else for a while:
// Bitbucket Cloud counts requests in a rolling hour (1,000 an hour for a
// token's /2.0/repositories calls, scaled up to 10,000 for large paid
// workspaces) and sends no reset time, so a minute (a sixtieth of the
// hour's budget comes back each minute); Data Center's token bucket
// refills every second (5 a second by default), so ten seconds. Until then
// the Client sends nothing and answers the same error.
//
// Locking: core.mu guards until and limitMsg; Cloud.mu guards full. Neither
// is held across a request.
package bitbucket
