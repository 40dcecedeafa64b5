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

package testenv

import (
	"context"
	"strings"
	"testing"
	"time"

	"code.gitea.io/sdk/gitea"
	"github.com/google/go-cmp/cmp"
)

// TestGiteaMerge: a merge Gitea refuses is an error, never taken for a
// merge (the SDK reports it as false with no error), and one refused for
// now (405) is asked again until the context ends.
func TestGiteaMerge(t *testing.T) {
	g := StartGitea(t)
	repo := g.CreateRepo(t, "merges")
	g.CommitFile(t, repo.Name, "request/a", "main", "a.txt", "a\n")
	var pr *gitea.PullRequest
	g.call(t, "open", func(c *gitea.Client) error {
		var err error
		pr, _, err = c.CreatePullRequest(GiteaAdmin, repo.Name, gitea.CreatePullRequestOption{Head: "request/a", Base: "main", Title: "a"})
		return err
	})
	type want struct {
		err    string
		merged bool
	}
	// In order: the second merges what the first merged.
	cases := []struct {
		name    string
		reason  string
		number  int64
		timeout time.Duration
		want    want
	}{
		{name: "Merges", reason: "An open pull request is merged, asked again while Gitea still checks whether it can be.",
			number: pr.Index, timeout: time.Minute, want: want{merged: true}},
		{name: "AlreadyMerged", reason: "A merge refused with 405 is asked again until the context ends, then fails with Gitea's status.",
			number: pr.Index, timeout: 2 * time.Second, want: want{err: "405", merged: true}},
		{name: "NoSuchPullRequest", reason: "A refusal other than 405 fails at once.",
			number: 999, timeout: time.Minute, want: want{err: "404"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), tc.timeout)
			defer cancel()
			tick := time.NewTicker(mergeRetry)
			defer tick.Stop()
			err := merge(ctx, g.Client(ctx, t), repo.Name, tc.number, tick.C)
			got := want{}
			if err != nil {
				got.err = tc.want.err
				if !strings.Contains(err.Error(), tc.want.err) || tc.want.err == "" {
					got.err = err.Error()
				}
			}
			if tc.number == pr.Index {
				got.merged = g.PR(t, repo.Name, pr.Index).HasMerged
			}
			if diff := cmp.Diff(tc.want, got, cmp.AllowUnexported(want{})); diff != "" {
				t.Errorf("%s\nmerge(#%d): -want, +got:\n%s", tc.reason, tc.number, diff)
			}
		})
	}
}
