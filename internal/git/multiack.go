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

// Servers that require multi_ack (Azure DevOps Repos, cloud and Server).
//
// Azure DevOps refuses every upload-pack request whose capabilities lack
// multi_ack (HTTP 400, "TF401041: … Clients must support multi-ack."), and
// go-git v5 never declares it: it lists multi_ack and multi_ack_detailed in
// transport.UnsupportedCapabilities and strips them from every
// advertisement it decodes, because it does not implement the multi-round
// negotiation those modes are for.
//
// The engine needs no rounds: a request carries its wants, its haves and
// "done" (negotiate.go: a second request only after a force-push). To it a multi_ack server answers, before
// the pack, one "ACK <oid> continue" per have in common (multi_ack_detailed:
// "ACK <oid> common", and "ACK <oid> ready" once it could stop), over SSH a
// "NAK" where go-git's flush ends the haves, and last "ACK <oid>" (the last
// common commit) or "NAK" (none). go-git v5's response decoder
// (packp.ServerResponse.Decode) reads ACK and NAK lines until the next line
// is neither, so the pack reader starts at the pack whichever mode
// answered; TestMultiACKResponse pins that against the lines git's
// upload-pack writes. So the request declares multi_ack (on this request
// only; go-git's globals are left alone) and carries haves as any other:
// a fetch after a new commit brings about that commit's objects.
//
// multi_ack, not multi_ack_detailed: go-git hides which of the two the
// server advertised, and multi_ack is the one a server that requires
// either offers (multi_ack_detailed extends it; Azure and git advertise
// both). In one round ending with "done" the detailed answers say nothing
// the pack does not.
//
// With it, thin-pack: the changed trees and files of a new commit then come
// as deltas against what the clone holds (0.6 KB of pack for one changed
// manifest of 200, not 3.4 KB), whose bases the indexer reads from the clone
// (thinBase). go-git strips thin-pack from every advertisement too, and a
// client must not ask for what was not offered; a server that requires
// multi_ack is Azure DevOps (known by its host or its refusal), whose
// upload-pack advertises thin-pack (testenv.AzureUploadPackCaps), so there
// it is asked for. Other servers are fetched as before, whole objects.
//
// Which servers: the Azure DevOps hosts from the start, and any other (an
// Azure DevOps Server on a company host) from its first refusal on, which
// the fetch that met it retries at once with multi_ack.

import (
	"context"
	"errors"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/protocol/packp"
	"github.com/go-git/go-git/v5/plumbing/protocol/packp/capability"
	"github.com/go-git/go-git/v5/plumbing/transport"
	githttp "github.com/go-git/go-git/v5/plumbing/transport/http"
)

// requiresMultiACK reports whether host is Azure DevOps' (dev.azure.com and
// ssh.dev.azure.com, and the older {org}.visualstudio.com and
// vs-ssh.visualstudio.com), whose Git servers require multi_ack.
func requiresMultiACK(host string) bool {
	h := strings.TrimSuffix(strings.ToLower(host), ".")
	return h == "dev.azure.com" || h == "ssh.dev.azure.com" || strings.HasSuffix(h, ".visualstudio.com")
}

// refusedForMultiACK reports whether err is a server's refusal of an
// upload-pack request for lacking multi_ack: Azure DevOps answers 400 with
// TF401041 and "Clients must support multi-ack.".
func refusedForMultiACK(err error) bool {
	var ue *plumbing.UnexpectedError
	if errors.As(err, &ue) {
		err = ue.Err
	}
	var he *githttp.Err
	if !errors.As(err, &he) || he.StatusCode() != 400 {
		return false
	}
	reason := strings.ToLower(he.Reason)
	return strings.Contains(reason, "tf401041") || strings.Contains(reason, "multi-ack") || strings.Contains(reason, "multi_ack")
}

// uploadPack asks the server for the pack of wants, telling it haves, with
// go-git's capabilities and, if the server requires it, multi_ack and
// thin-pack (see above). A refusal for lacking multi_ack marks the clone as
// such and is retried at once, so the fetch that meets it succeeds.
func (r *Repository) uploadPack(ctx context.Context, sess transport.UploadPackSession, ar *packp.AdvRefs, wants, haves []plumbing.Hash) (*packp.UploadPackResponse, *packp.UploadPackRequest, error) {
	for {
		multiACK := r.multiACK.Load()
		req := packp.NewUploadPackRequestFromCapabilities(ar.Capabilities)
		if ar.Capabilities.Supports(capability.NoProgress) {
			_ = req.Capabilities.Set(capability.NoProgress)
		}
		req.Wants, req.Haves = wants, haves
		if err := r.boundRequest(ctx, req, ar.Capabilities); err != nil {
			return nil, nil, err
		}
		r.filterRequest(req, ar.Capabilities)
		if multiACK {
			_ = req.Capabilities.Set(capability.MultiACK)
			_ = req.Capabilities.Set(capability.ThinPack)
		}
		resp, err := sess.UploadPack(ctx, req)
		if err != nil && !multiACK && refusedForMultiACK(err) {
			r.multiACK.Store(true)
			continue
		}
		return resp, req, err
	}
}
