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
// advertisement it decodes, because it cannot read a multi_ack negotiation
// (its decoder's own words: "TODO: Implement support for multi_ack").
// go-git v6 implements the negotiation, but is a pre-release.
//
// So for such a server the engine fetches without haves: declaring
// multi_ack_detailed (on this request only; go-git's globals are left
// alone) is then truthful, because with no have there is nothing to
// negotiate and the server's whole answer is one NAK before the pack, which
// go-git v5 reads as it reads any clone's. The price is that a fetch which
// brings anything brings everything reachable from the branches in use, as
// a clone does; a fetch that brings nothing (the branch did not move) costs
// the reference advertisement alone, as everywhere. Measured in
// BenchmarkAzureFullFetch; docs/guides/azure-devops.md has the figures.
//
// Which servers: the Azure DevOps hosts from the start, and any other (an
// Azure DevOps Server on a company host) from its first refusal on, which
// the fetch that met it retries at once without haves.

import (
	"context"
	"strings"

	"github.com/crossplane/crossplane-runtime/v2/pkg/errors"
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

// uploadPack asks the server for the pack of wants. It sends haves, and
// go-git's capabilities, unless the server requires multi_ack: then it
// sends none and declares multi_ack_detailed (see above). A refusal for
// lacking multi_ack marks the clone as such and is retried at once, so the
// fetch that meets it succeeds.
func (r *Repository) uploadPack(ctx context.Context, sess transport.UploadPackSession, ar *packp.AdvRefs, wants, haves []plumbing.Hash) (*packp.UploadPackResponse, *packp.UploadPackRequest, error) {
	for {
		full := r.fullFetch.Load()
		req := packp.NewUploadPackRequestFromCapabilities(ar.Capabilities)
		if ar.Capabilities.Supports(capability.NoProgress) {
			_ = req.Capabilities.Set(capability.NoProgress)
		}
		req.Wants, req.Haves = wants, haves
		r.filterRequest(req, ar.Capabilities)
		if full {
			req.Haves = nil
			if !req.Capabilities.Supports(capability.MultiACK) {
				_ = req.Capabilities.Set(capability.MultiACKDetailed)
			}
		}
		resp, err := sess.UploadPack(ctx, req)
		if err != nil && !full && refusedForMultiACK(err) {
			r.fullFetch.Store(true)
			continue
		}
		return resp, req, err
	}
}
