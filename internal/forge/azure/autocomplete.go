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

package azure

import (
	"context"
	"fmt"
	"net/http"
	"strings"
)

// errUnpinFmt: cancelling an auto-complete whose head moved failed.
const errUnpinFmt = "cannot cancel auto-complete on pull request %d on Azure DevOps, whose head moved from %s to %s since it was judged"

// noIdentity is the empty GUID: autoCompleteSetBy.id set to it cancels
// auto-complete (what the web UI's "Cancel auto-complete" sends).
const noIdentity = "00000000-0000-0000-0000-000000000000"

// Azure's auto-complete names no commit: Pull Requests - Update (REST 7.1)
// takes autoCompleteSetBy.id and completionOptions, and lastMergeSourceCommit
// only with status completed. Once set, Azure completes whatever the source
// branch holds when nothing blocks, a commit pushed after the provider
// judged the head included. So the client pins it itself: it remembers the
// head each auto-complete it set was judged at (pins), and Get, finding
// auto-complete set by the token's identity on another head, cancels it and
// reports none; the controller then judges the new head and sets it again,
// pinned there. After a restart no pin is remembered: an auto-complete of
// the token's identity is cancelled and set again at the head read then
// (fail closed). One a person set is theirs and left alone. What remains is
// the time between a push and the next Get (the PullRequest's poll, or the
// wake of a push the clone saw), which a build validation policy that
// expires on a push closes.

// pin remembers that auto-complete on pull request n was set at head.
func (c *Client) pin(n int64, head string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.pins[n]; !ok && len(c.pins) >= maxKept {
		// Full: one pin goes, not all. A pull request that lost its pin
		// is cancelled and set again at its next Get (fail closed), so
		// forgetting all at once would be a burst of both.
		for k := range c.pins {
			delete(c.pins, k)
			break
		}
	}
	c.pins[n] = head
}

// unpin cancels the auto-complete of p when the token's identity set it
// at another head than p's (or at a head this client never judged), and
// reports whether it did.
func (c *Client) unpin(ctx context.Context, p *pullRequest) (bool, error) {
	if p.Status != statusActive || p.AutoCompleteSetBy == nil || p.AutoCompleteSetBy.ID == "" || p.AutoCompleteSetBy.ID == noIdentity {
		return false, nil
	}
	head := ""
	if p.LastMergeSourceCommit != nil {
		head = p.LastMergeSourceCommit.CommitID
	}
	c.mu.Lock()
	judged, ok := c.pins[p.PullRequestID]
	c.mu.Unlock()
	if ok && judged == head {
		return false, nil
	}
	me, err := c.whoAmI(ctx)
	if err != nil {
		return false, fmt.Errorf(errUnpinFmt+": %w", p.PullRequestID, judged, head, err)
	}
	if !strings.EqualFold(p.AutoCompleteSetBy.ID, me) {
		return false, nil
	}
	b := updateBody{AutoCompleteSetBy: &identityRef{ID: noIdentity}}
	if _, err := c.do(ctx, call{method: http.MethodPatch, path: c.pullPath(p.PullRequestID, ""), body: b}, nil); err != nil {
		return false, fmt.Errorf(errUnpinFmt+": %w", p.PullRequestID, judged, head, err)
	}
	c.mu.Lock()
	delete(c.pins, p.PullRequestID)
	c.mu.Unlock()
	p.AutoCompleteSetBy = nil
	return true, nil
}
