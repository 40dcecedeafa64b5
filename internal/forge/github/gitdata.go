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
	"encoding/base64"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	gh "github.com/google/go-github/v75/github"
	"k8s.io/utils/clock"

	"github.com/crossplane-contrib/provider-git/internal/forge"
)

// Commits through GitHub's Git data API ("REST API endpoints for Git
// database"): POST /git/blobs, /git/trees and /git/commits, then PATCH
// /git/refs/heads/{branch} with force false. A commit an App creates there,
// naming no author, committer or signature, GitHub signs with its own key
// and shows as Verified ("Signature verification for bots"); so the request
// names none, and the App is the commit's author and committer.
//
// Each of those requests is content-creating: GitHub's secondary limit
// allows 80 of them a minute (and 500 an hour) per installation. The
// client paces them (commitPerMinute) and waits for its turn on its clock;
// the engine keeps a batch under a minute's worth (git.APIMaxRequests).

const (
	errBlob       = "cannot create the blob on GitHub"
	errTree       = "cannot create the tree on GitHub"
	errCommit     = "cannot create the commit on GitHub"
	errUpdateRef  = "cannot move the branch on GitHub"
	errPaceWait   = "gave up waiting for GitHub's content-creation pace"
	errBadRefName = "refusing to update the branch %q: it is no branch name"

	// msgNotFastForward is GitHub's 422 message when a ref update without
	// force does not descend from the ref ("Update a reference").
	msgNotFastForward = "Update is not a fast forward"
)

// The pace of content-creating requests of the Git data API: a burst of
// 20 and 60 a minute after it, so no minute holds more than GitHub's 80.
const (
	commitPerMinute = 60
	commitBurst     = 20
)

// TreeEntry is one path of a tree created on a base tree.
type TreeEntry struct {
	Path       string
	Executable bool
	// Delete removes Path. Else exactly one of SHA (a blob GitHub holds)
	// and Content (text GitHub stores as the blob) is set.
	Delete  bool
	SHA     string
	Content *string
}

// NewCommit is a commit GitHub creates and signs: its author and committer
// are the App.
type NewCommit struct {
	Message string
	Tree    string
	Parent  string
}

// WithPacer paces the client's content-creating requests on p under key
// (an installation: GitHub's secondary limit is per App installation);
// by default each Client has a pacer of its own.
func WithPacer(p *forge.Pacer, key string) Option {
	return func(cl *Client) { cl.pacer, cl.paceKey = p, key }
}

// WithTimer sets the clock a paced request waits on; the real clock by
// default.
func WithTimer(c clock.Clock) Option { return func(cl *Client) { cl.timer = c } }

// pace waits until a content-creating request may go.
func (c *Client) pace(ctx context.Context) error {
	for {
		ok, at := c.pacer.Take(c.paceKey, forge.Rate{PerMinute: commitPerMinute, Burst: commitBurst})
		if ok {
			return nil
		}
		t := c.timer.NewTimer(max(at.Sub(c.timer.Now()), time.Millisecond))
		select {
		case <-t.C():
		case <-ctx.Done():
			t.Stop()
			return fmt.Errorf("%s: %w", errPaceWait, ctx.Err())
		}
	}
}

// CreateBlob is POST /git/blobs with content in base64, which carries any
// bytes; it returns the blob's SHA.
func (c *Client) CreateBlob(ctx context.Context, content []byte) (string, error) {
	if err := c.write(ctx); err != nil {
		return "", err
	}
	enc := base64.StdEncoding.EncodeToString(content)
	b, _, err := c.gh.Git.CreateBlob(ctx, c.owner, c.name, gh.Blob{Content: &enc, Encoding: ptr("base64")})
	if err != nil {
		return "", c.fail(err, errBlob)
	}
	return b.GetSHA(), nil
}

// CreateTree is POST /git/trees with base_tree and one entry per path: a
// blob's SHA, inline content, or a null SHA to delete.
func (c *Client) CreateTree(ctx context.Context, base string, entries []TreeEntry) (string, error) {
	if err := c.write(ctx); err != nil {
		return "", err
	}
	es := make([]*gh.TreeEntry, 0, len(entries))
	for _, e := range entries {
		mode := "100644"
		if e.Executable {
			mode = "100755"
		}
		te := &gh.TreeEntry{Path: ptr(e.Path), Mode: ptr(mode), Type: ptr("blob")}
		switch {
		case e.Delete:
			// go-github sends "sha": null for an entry with neither.
		case e.Content != nil:
			te.Content = e.Content
		default:
			te.SHA = ptr(e.SHA)
		}
		es = append(es, te)
	}
	t, _, err := c.gh.Git.CreateTree(ctx, c.owner, c.name, base, es)
	if err != nil {
		return "", c.fail(err, errTree)
	}
	return t.GetSHA(), nil
}

// CreateCommit is POST /git/commits naming no author, committer or
// signature, so GitHub signs it.
func (c *Client) CreateCommit(ctx context.Context, m NewCommit) (string, error) {
	if err := c.write(ctx); err != nil {
		return "", err
	}
	in := gh.Commit{Message: ptr(m.Message), Tree: &gh.Tree{SHA: ptr(m.Tree)}, Parents: []*gh.Commit{{SHA: ptr(m.Parent)}}}
	out, _, err := c.gh.Git.CreateCommit(ctx, c.owner, c.name, in, nil)
	if err != nil {
		return "", c.fail(err, errCommit)
	}
	return out.GetSHA(), nil
}

// UpdateBranch is PATCH /git/refs/heads/{branch} to sha with force false.
// moved reports GitHub's 422 "Update is not a fast forward": the branch is
// no longer an ancestor of sha, because someone else moved it.
func (c *Client) UpdateBranch(ctx context.Context, branch, sha string) (bool, error) {
	if !pathSafe(branch) {
		return false, fmt.Errorf(errBadRefName, branch)
	}
	if err := c.write(ctx); err != nil {
		return false, err
	}
	_, _, err := c.gh.Git.UpdateRef(ctx, c.owner, c.name, "heads/"+branch, gh.UpdateRef{SHA: sha, Force: ptr(false)})
	if err == nil {
		return false, nil
	}
	var re *respError
	if r := refusal(err); errors.As(r, &re) && re.status == http.StatusUnprocessableEntity &&
		strings.Contains(re.body.Message, msgNotFastForward) {
		return true, nil
	}
	return false, c.fail(err, errUpdateRef)
}

// write admits one content-creating request: none while a rate limit
// lasts, and each at its turn of the pace.
func (c *Client) write(ctx context.Context) error {
	if err := c.begin(); err != nil {
		return err
	}
	return c.pace(ctx)
}
