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

// Partial clones. A server that serves `filter` and lets a client want any
// object reachable from its refs (GitHub, GitLab, Gitea and Forgejo do; git
// needs uploadpack.allowFilter and uploadpack.allowReachableSHA1InWant or
// allowAnySHA1InWant) gets fetches with `filter blob:none`: commits and
// trees only. What the engine does with a clone needs no blob but the ones
// a resource reads: writes compare blob SHAs (batch.go check, expect.go),
// stage their own new blobs, and push exactly those; drift is a tree diff
// (watch.go); the trailer search reads commits. A read that meets an absent
// blob fetches it, in a batch with the other absent blobs resources read
// (blobfetch.go), and the clone keeps it.
//
// The choice is made once, by the first fetch into an empty clone, and kept
// in the clone's config as git keeps it (extensions.partialclone names the
// promisor remote, remote.origin.promisor and partialclonefilter describe
// it), so a clone reopened by a restarted provider is still known partial.
// A clone that began full stays full: it holds every blob already, and an
// incremental fetch brings only the new commit's. A server that does not
// offer filter gets the full fetch it always got.

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/go-git/go-git/v5/plumbing/format/config"
	"github.com/go-git/go-git/v5/plumbing/protocol/packp"
	"github.com/go-git/go-git/v5/plumbing/protocol/packp/capability"
)

const errMarkPartial = "cannot record the clone as partial in its config"

// The clone's config entries of a partial clone, as git writes them for
// `git clone --filter=blob:none` (gitrepository-layout(5), partial-clone
// in git's technical docs). The remote has no url: the engine keeps its
// remote and credentials in memory, and git run on the clone by hand must
// not go fetching on its own.
const (
	partialRemote = "origin"
	partialFilter = "blob:none"
)

// servesPartial reports whether a server's capabilities allow a partial
// clone: the filter itself, and wants of objects that are not ref tips
// (the blobs fetched later). git advertises allow-reachable-sha1-in-want
// for uploadpack.allowReachableSHA1InWant and allowAnySHA1InWant alike.
func servesPartial(caps *capability.List) bool {
	return caps != nil && caps.Supports(capability.Filter) && caps.Supports(capability.AllowReachableSHA1InWant)
}

// choosePartialLocked makes a clone that holds nothing yet partial when the
// server serves it, and records that in its config before the first
// filtered pack arrives. Call it with r.mu held.
func (r *Repository) choosePartialLocked(caps *capability.List) error {
	// Not where multi_ack is required: its fetches declare thin-pack, whose
	// deltas may have a blob the partial clone never fetched as base.
	if r.partial.Load() || r.multiACK.Load() || !servesPartial(caps) || !r.freshLocked() {
		return nil
	}
	if err := markPartial(r.dir); err != nil {
		return fmt.Errorf("%s: %w", errMarkPartial, err)
	}
	r.partial.Store(true)
	return nil
}

// freshLocked reports whether the clone holds no object and no branch yet.
func (r *Repository) freshLocked() bool {
	packs, err := r.st.ObjectPacks()
	return err == nil && len(packs) == 0 && len(r.localHeadsLocked()) == 0
}

// filterRequest asks for commits and trees only when the clone is partial.
// go-git encodes the filter line; the capability must be declared with it,
// or git's upload-pack refuses the request ("filtering capability not
// negotiated").
func (r *Repository) filterRequest(req *packp.UploadPackRequest, caps *capability.List) {
	if !r.partial.Load() || !caps.Supports(capability.Filter) {
		return
	}
	req.Filter = packp.FilterBlobNone()
	_ = req.Capabilities.Set(capability.Filter)
}

// Partial reports whether the clone is partial: fetched without blobs,
// which reads fetch when they meet one absent.
func (r *Repository) Partial() bool { return r.partial.Load() }

// isPartial reads from the config of the clone at dir whether it is partial.
func isPartial(dir string) bool {
	cfg, err := readRawConfig(dir)
	return err == nil && cfg.Section("extensions").Option("partialclone") != ""
}

// markPartial writes the partial clone's entries into the config of the
// clone at dir, keeping everything else, and replaces the file at once (a
// crash leaves the old config or the new one, never half of one).
func markPartial(dir string) error {
	cfg, err := readRawConfig(dir)
	if err != nil {
		return err
	}
	cfg.Section("extensions").SetOption("partialclone", partialRemote)
	cfg.Section("remote").Subsection(partialRemote).
		SetOption("promisor", "true").
		SetOption("partialclonefilter", partialFilter)
	// go-git's storage would refuse to write a remote without a url
	// (config.RemoteConfig.Validate): the file is written as parsed.
	f, err := os.CreateTemp(dir, "config-*")
	if err != nil {
		return err
	}
	defer os.Remove(f.Name()) //nolint:errcheck // gone once renamed
	err = config.NewEncoder(f).Encode(cfg)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	return os.Rename(f.Name(), filepath.Join(dir, "config"))
}

// readRawConfig parses the config of the clone at dir as written; a clone
// without one has an empty config.
func readRawConfig(dir string) (*config.Config, error) {
	cfg := config.New()
	f, err := os.Open(filepath.Join(dir, "config")) //nolint:gosec // the clone's own config under the cache directory
	if errors.Is(err, os.ErrNotExist) {
		return cfg, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close() //nolint:errcheck // read-only
	return cfg, config.NewDecoder(f).Decode(cfg)
}
