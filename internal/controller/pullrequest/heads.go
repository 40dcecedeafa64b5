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

package pullrequest

import (
	"context"

	"k8s.io/apimachinery/pkg/types"

	"github.com/crossplane-contrib/provider-git/apis/v1alpha1"
	"github.com/crossplane-contrib/provider-git/internal/forge"
	"github.com/crossplane-contrib/provider-git/internal/reconciler/watch"
)

// A pull request's head commit, checks and mergeability change when its
// branches move, which the forge's shared list shows only at its next poll
// (and Gitea's list later still: it reads a ref it updates in the
// background). So a PullRequest follows its head and base branches in the
// shared clone: a move wakes it (the watcher), and a clone whose heads
// differ from what the pull request was last confirmed at makes it read
// the pull request itself, once (a Get answers from the branch).

// follower is what a PullRequest needs of the watcher.
type follower interface {
	TrackHeads(repo watch.Repository, r watch.Ref, branches ...string)
	Forget(r watch.Ref)
}

func refOf(mg *v1alpha1.PullRequest) watch.Ref {
	return watch.Ref{Kind: v1alpha1.PullRequestKind, NamespacedName: types.NamespacedName{Namespace: mg.GetNamespace(), Name: mg.GetName()}}
}

// follow wakes mg when its head or base branch moves.
func (e *external) follow(mg *v1alpha1.PullRequest) {
	if e.watch != nil {
		p := mg.Spec.ForProvider
		e.watch.TrackHeads(e.repo, refOf(mg), p.Head, p.Base)
	}
}

// unfollow stops that: a merged or closed pull request moves no more, and
// a resource being deleted is gone soon.
func (e *external) unfollow(mg *v1alpha1.PullRequest) {
	if e.watch != nil {
		e.watch.Forget(refOf(mg))
	}
	if n := numberOf(mg); n > 0 {
		e.acc.seen.Delete(n)
	}
}

// headMoved reads the clone's head of pr's head branch (fetched at most
// once per poll interval, a fetch the repository's resources share) and
// reports whether the list's entry of pr may be older than it: the head is
// elsewhere than the entry says, and was not confirmed at that commit
// before. So a push reads the pull request once, and a clone behind the
// forge (a push by someone else, not fetched yet) costs one Get, not one
// per poll. It returns the clone's head, "" when the clone lacks it.
//
// A move of the base only wakes the PullRequest: one that waits to merge
// (readiness Merged, merge Auto) reads its pull request at every look
// anyway, so its mergeability is read again at once; for the others the
// shared list's next poll says it, without a request per PullRequest at
// every commit to a busy base.
func (e *external) headMoved(ctx context.Context, mg *v1alpha1.PullRequest, pr forge.PullRequest) (string, bool) {
	p := mg.Spec.ForProvider
	if err := e.repo.Refresh(ctx, e.maxAge, p.Head, p.Base); err != nil {
		// The list stands; the next poll fetches again.
		return "", false
	}
	h, err := e.repo.Head(p.Head)
	if err != nil || h == pr.HeadSHA {
		return h, false
	}
	was, seen := e.acc.seen.Load(pr.Number)
	return h, !seen || was != h
}

// confirmed records the clone's head of pr's head branch it was read at.
func (e *external) confirmed(n int64, head string) {
	if head != "" {
		e.acc.seen.Store(n, head)
	}
}
