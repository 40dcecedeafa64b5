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

package watch

import "slices"

// A resource that follows branch heads as a whole (a PullRequest: its head
// branch for the commit it proposes, its base for mergeability) is woken by
// any move of them, this provider's own pushes included, not only by
// another's change of a path. It lives beside its one Loc, if it has one.

// headsLoc is the branches of one repository a resource follows.
type headsLoc struct {
	repo     string
	branches []string
}

// TrackHeads records that r follows the heads of branches of repo,
// forgetting those it followed before.
func (x *Index) TrackHeads(r Ref, repo string, branches []string) {
	x.mu.Lock()
	defer x.mu.Unlock()
	if was, ok := x.headsOf[r]; ok {
		if was.repo == repo && slices.Equal(was.branches, branches) {
			return
		}
		x.forgetHeadsLocked(r)
	}
	l := headsLoc{repo: repo, branches: slices.Clone(branches)}
	x.headsOf[r] = l
	for _, b := range l.branches {
		x.heads.add(r, repo, b, "")
	}
}

func (x *Index) forgetHeadsLocked(r Ref) {
	l, ok := x.headsOf[r]
	if !ok {
		return
	}
	for _, b := range l.branches {
		x.heads.remove(r, l.repo, b, "")
	}
	delete(x.headsOf, r)
}

// Following returns the resources that follow the head of branch in repo.
func (x *Index) Following(repo, branch string) []Ref {
	x.mu.Lock()
	defer x.mu.Unlock()
	refs := x.heads[repo][branch][""]
	out := make([]Ref, 0, len(refs))
	for r := range refs {
		out = append(out, r)
	}
	return out
}

// FollowingAny returns the resources that follow any head in repo.
func (x *Index) FollowingAny(repo string) []Ref {
	x.mu.Lock()
	defer x.mu.Unlock()
	var out []Ref
	for _, paths := range x.heads[repo] {
		for r := range paths[""] {
			out = append(out, r)
		}
	}
	return out
}
