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

package git

import (
	"bytes"
	"io"
	"time"
	"unicode/utf8"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-git/go-git/v5/plumbing/storer"
	"github.com/go-git/go-git/v5/utils/merkletrie"
)

// What a batch may hold to go through the API; a larger one is pushed
// (the fallback is counted in provider_git_api_fallbacks_total by reason).
// GitHub documents 80 content-creating requests a minute and 500 an hour
// (its secondary limits): a batch that needs more than APIMaxRequests
// would wait most of a minute for its own requests, past a reconcile's
// deadline, and a few such batches spend the hour's budget.
const (
	// APIMaxFiles bounds the paths a batch writes or deletes, over all its
	// commits: one tree request carries them all, and GitHub answers a
	// tree request of a few hundred entries in seconds, not milliseconds.
	APIMaxFiles = 100
	// APIMaxBytes bounds the content a batch sends (4 MiB, base64 or
	// JSON-escaped on the wire): a push sends it compressed, in one pack.
	APIMaxBytes = 4 << 20
	// APIMaxRequests bounds a batch's content-creating requests: a blob per
	// file that cannot go inline (binary, or holding NUL), a tree and a
	// commit per commit, and the ref update.
	APIMaxRequests = 60
)

// Reasons a batch is pushed rather than sent through the API, the values of
// provider_git_api_fallbacks_total's reason label.
const (
	fallbackFiles    = "files"
	fallbackBytes    = "bytes"
	fallbackRequests = "requests"
	fallbackEmpty    = "empty-repository"
	fallbackDiffers  = "object-differs"
)

// apiPlan is a batch's commits as the API creates them, oldest first.
type apiPlan struct {
	commits []*apiCommit
}

// apiCommit is one planned commit: its tree as entries on its parent's.
type apiCommit struct {
	local            plumbing.Hash
	tree, parentTree plumbing.Hash
	message          string
	author           Signature
	when             time.Time
	entries          []apiEntry
}

type apiEntry struct {
	path       string
	executable bool
	del        bool
	blob       plumbing.Hash
	content    []byte
	// inline: the content is text the tree request carries itself, so it
	// costs no blob request.
	inline bool
}

// planAPI sets p.api when the repository commits through an API and the
// batch suits it, else counts why it is pushed. st holds the planned
// objects; the caller holds Repository.mu.
func (w *writer) planAPI(st storer.EncodedObjectStorer, head plumbing.Hash, p *plan) error {
	r := w.repo
	if r.api == nil {
		return nil
	}
	a, reason, err := apiPlanOf(st, head, p.head)
	if err != nil {
		return err
	}
	if reason != "" {
		r.cache.opts.Metrics.apiFellBack(r.conn.host, reason)
	}
	p.api = a
	return nil
}

// apiPlanOf returns the commits from head (exclusive) to tip as the API
// creates them, or the reason the batch must be pushed instead. st holds
// the planned objects; the caller holds Repository.mu.
func apiPlanOf(st storer.EncodedObjectStorer, head, tip plumbing.Hash) (*apiPlan, string, error) {
	if head.IsZero() {
		// GitHub's Git data API answers 409 for an empty repository: its
		// first commit is pushed.
		return nil, fallbackEmpty, nil
	}
	var commits []*apiCommit
	files, size, requests := 0, 0, 1 // the ref update
	for h := tip; h != head; {
		c, err := object.GetCommit(st, h)
		if err != nil {
			return nil, "", err
		}
		ac, err := apiCommitOf(st, c)
		if err != nil {
			return nil, "", err
		}
		commits = append(commits, ac)
		requests += 2 // tree, commit
		for _, e := range ac.entries {
			files++
			size += len(e.content)
			if !e.del && !e.inline {
				requests++
			}
		}
		switch {
		case files > APIMaxFiles:
			return nil, fallbackFiles, nil
		case size > APIMaxBytes:
			return nil, fallbackBytes, nil
		case requests > APIMaxRequests:
			return nil, fallbackRequests, nil
		}
		h = c.ParentHashes[0] // every planned commit but a root has one parent
	}
	for i, j := 0, len(commits)-1; i < j; i, j = i+1, j-1 {
		commits[i], commits[j] = commits[j], commits[i]
	}
	return &apiPlan{commits: commits}, "", nil
}

// apiCommitOf describes c as the API creates it: the paths its tree
// changes on its parent's.
func apiCommitOf(st storer.EncodedObjectStorer, c *object.Commit) (*apiCommit, error) {
	parent, err := object.GetCommit(st, c.ParentHashes[0])
	if err != nil {
		return nil, err
	}
	from, err := object.GetTree(st, parent.TreeHash)
	if err != nil {
		return nil, err
	}
	to, err := object.GetTree(st, c.TreeHash)
	if err != nil {
		return nil, err
	}
	changes, err := object.DiffTree(from, to)
	if err != nil {
		return nil, err
	}
	ac := &apiCommit{local: c.Hash, tree: c.TreeHash, parentTree: parent.TreeHash, message: c.Message,
		author: Signature{Name: c.Author.Name, Email: c.Author.Email}, when: c.Author.When}
	for _, ch := range changes {
		action, err := ch.Action()
		if err != nil {
			return nil, err
		}
		if action == merkletrie.Delete {
			ac.entries = append(ac.entries, apiEntry{path: ch.From.Name, del: true})
			continue
		}
		e := apiEntry{path: ch.To.Name, executable: ch.To.TreeEntry.Mode == filemode.Executable, blob: ch.To.TreeEntry.Hash}
		if e.content, err = blobContent(st, e.blob); err != nil {
			return nil, err
		}
		e.inline = utf8.Valid(e.content) && !bytes.ContainsRune(e.content, 0)
		ac.entries = append(ac.entries, e)
	}
	return ac, nil
}

func blobContent(st storer.EncodedObjectStorer, h plumbing.Hash) ([]byte, error) {
	b, err := object.GetBlob(st, h)
	if err != nil {
		return nil, err
	}
	rd, err := b.Reader()
	if err != nil {
		return nil, err
	}
	defer rd.Close() //nolint:errcheck // read-only
	return io.ReadAll(rd)
}
