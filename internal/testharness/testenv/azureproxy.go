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
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// The capabilities Azure DevOps Repos advertises, as its Git server
// (Microsoft.TeamFoundation.Git.Server's RefAdvertiser, Azure DevOps Server
// 2022) writes them: upload-pack offers multi_ack but neither ofs-delta nor
// agent, and filter only where partial clone is enabled; receive-pack offers
// four. Each list follows the NUL after a space, as Azure writes it.
const (
	AzureUploadPackCaps  = "multi_ack thin-pack side-band side-band-64k no-progress multi_ack_detailed no-done shallow allow-tip-sha1-in-want filter"
	AzureReceivePackCaps = "report-status side-band-64k quiet delete-refs"
)

// MultiACKOnlyUploadPackCaps is what a server that requires multi_ack but
// does not speak multi_ack_detailed advertises (SetMultiACKOnly): Azure's
// list without multi_ack_detailed.
const MultiACKOnlyUploadPackCaps = "multi_ack thin-pack side-band side-band-64k no-progress no-done shallow allow-tip-sha1-in-want filter"

// NotAdvertisedRefusal is the body a server in SetMultiACKOnly mode answers,
// with HTTP 400, to a request that declares multi_ack_detailed, which it did
// not advertise.
const NotAdvertisedRefusal = "capability not advertised: multi_ack_detailed"

// AzureMultiACKRefusal is the body Azure DevOps answers, with HTTP 400, to an
// upload-pack request whose capabilities lack multi_ack: its V1 upload-pack
// parser throws "Clients must support multi-ack." on the first want line,
// before reading any have (reported in src-d/go-git#335 and go-git/go-git#64).
const AzureMultiACKRefusal = "TF401041: The Git protocol sent is not as expected (Clients must support multi-ack.)."

// AzureProxy is a reverse proxy in front of a smart-HTTP Git server (git
// http-backend) that makes it look to a client as Azure DevOps does, as far
// as go-git v5's trouble with it goes: the reference advertisements carry
// Azure's capabilities, and an upload-pack request that does not declare
// multi_ack (or multi_ack_detailed) is refused with Azure's 400. Requests
// that pass are forwarded unchanged, so git's upload-pack negotiates and
// packs as a multi_ack server does.
type AzureProxy struct {
	// URL is the proxy's base URL; repositories are at URL/<name>.
	URL string

	srv *http.Server
	fwd *httputil.ReverseProxy

	mu sync.Mutex
	// passthrough forwards everything unchanged, only counting: the
	// baseline of a measurement.
	passthrough bool
	// multiACKOnly advertises multi_ack without multi_ack_detailed and
	// refuses requests that declare the latter.
	multiACKOnly bool
	counts       AzureCounts
	// gen counts ResetCounts calls: a response that began before one
	// counts nothing after it.
	gen int
	// refusal, when set, is the reason every push's ref is refused with
	// (RefusePushes).
	refusal string
}

// AzureCounts is what an AzureProxy saw.
type AzureCounts struct {
	// UploadPacks counts upload-pack POSTs (fetches that asked for a pack);
	// Refused those answered with AzureMultiACKRefusal.
	UploadPacks, Refused int64
	// Haves counts have lines over every upload-pack POST: a client that
	// cannot negotiate with multi_ack should send none.
	Haves int64
	// PackBytes counts the response bytes of upload-pack POSTs: what
	// fetches downloaded; PackSizes has those of each POST, in the order
	// they arrived.
	PackBytes int64
	PackSizes []int64
	// PushAdverts counts receive-pack advertisements (push attempts: the
	// engine reads one and sends nothing when the branch moved), and
	// ReceivePacks the receive-pack POSTs (pushes sent).
	PushAdverts, ReceivePacks int64
}

// NewAzureProxy serves a proxy to target (e.g. an HTTPServer's URL) on a free
// loopback port until the test ends.
func NewAzureProxy(tb testing.TB, target string) *AzureProxy {
	tb.Helper()
	Integration(tb)
	u, err := url.Parse(target)
	if err != nil {
		tb.Fatal(err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	p := &AzureProxy{URL: "http://" + l.Addr().String()}
	p.fwd = &httputil.ReverseProxy{
		Rewrite: func(r *httputil.ProxyRequest) {
			r.SetURL(u)
			// Azure DevOps speaks protocol v0 only: it ignores a client's
			// request for v2, and so does the proxy.
			r.Out.Header.Del("Git-Protocol")
		},
		ModifyResponse: p.rewriteAdvert,
		ErrorLog:       log.New(io.Discard, "", 0),
	}
	p.srv = &http.Server{Handler: http.HandlerFunc(p.serve), ReadHeaderTimeout: readHeaderTimeout}
	go func() { _ = p.srv.Serve(l) }()
	tb.Cleanup(func() { _ = p.srv.Close() })
	return p
}

// RepoURL returns the clone URL of the repository name behind the proxy.
func (p *AzureProxy) RepoURL(name string) string { return p.URL + "/" + name }

// SetPassthrough switches the proxy to forwarding everything unchanged (a
// plain Git server, counted the same way) or back to behaving as Azure.
func (p *AzureProxy) SetPassthrough(on bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.passthrough = on
}

// SetMultiACKOnly makes the proxy answer as a server that requires
// multi_ack but does not offer multi_ack_detailed: its advertisement lists
// MultiACKOnlyUploadPackCaps, and a request that declares
// multi_ack_detailed is refused with NotAdvertisedRefusal (counted in
// Refused). git's upload-pack behind it then negotiates in plain multi_ack
// mode ("ACK <oid> continue"), as the request asks. The git CLI cannot
// fetch from it over HTTP (its stateless negotiation requires
// multi_ack_detailed); a client that sends one round ending in "done" can.
func (p *AzureProxy) SetMultiACKOnly(on bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.multiACKOnly = on
}

func (p *AzureProxy) isMultiACKOnly() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.multiACKOnly
}

// Counts returns what the proxy saw so far.
func (p *AzureProxy) Counts() AzureCounts {
	p.mu.Lock()
	defer p.mu.Unlock()
	c := p.counts
	c.PackSizes = append([]int64(nil), c.PackSizes...)
	return c
}

// ResetCounts zeroes the counts.
func (p *AzureProxy) ResetCounts() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.counts = AzureCounts{}
	p.gen++
}

// RefusePushes makes every push's ref refused with reason in the report
// status ("ng refs/heads/main <reason>"), as Azure DevOps answers a push
// its branch policies forbid; "" forwards pushes again.
func (p *AzureProxy) RefusePushes(reason string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.refusal = reason
}

// refuse answers a receive-pack request with its first ref refused for
// reason: "unpack ok", then "ng <ref> <reason>", on side band 1 (the proxy
// advertises side-band-64k and report-status only).
func refuse(w http.ResponseWriter, r *http.Request, reason string) {
	body, err := io.ReadAll(io.LimitReader(r.Body, 64<<20))
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	lines := pktLines(body)
	if len(lines) == 0 || lines[0] == nil {
		http.Error(w, "no ref update", http.StatusBadRequest)
		return
	}
	cmd, _, _ := strings.Cut(strings.TrimSuffix(string(lines[0]), "\n"), "\x00")
	fields := strings.Fields(cmd)
	if len(fields) != 3 {
		http.Error(w, "malformed ref update", http.StatusBadRequest)
		return
	}
	report := pktLine("unpack ok\n") + pktLine("ng "+fields[2]+" "+reason+"\n") + "0000"
	w.Header().Set("Content-Type", "application/x-git-receive-pack-result")
	_, _ = io.WriteString(w, pktLine("\x01"+report)+"0000")
}

func (p *AzureProxy) isPassthrough() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.passthrough
}

func (p *AzureProxy) serve(w http.ResponseWriter, r *http.Request) {
	switch {
	case r.Method == http.MethodPost && strings.HasSuffix(r.URL.Path, "/git-upload-pack"):
		p.uploadPack(w, r)
	case r.Method == http.MethodPost && strings.HasSuffix(r.URL.Path, "/git-receive-pack"):
		p.mu.Lock()
		p.counts.ReceivePacks++
		refusal := p.refusal
		p.mu.Unlock()
		if refusal != "" {
			refuse(w, r, refusal)
			return
		}
		p.fwd.ServeHTTP(w, r)
	default:
		if r.URL.Query().Get("service") == "git-receive-pack" {
			p.mu.Lock()
			p.counts.PushAdverts++
			p.mu.Unlock()
		}
		p.fwd.ServeHTTP(w, r)
	}
}

// uploadPack reads the request's want and have lines, refuses it as Azure
// does when it lacks multi_ack, and forwards it otherwise.
func (p *AzureProxy) uploadPack(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	plain := body
	if r.Header.Get("Content-Encoding") == "gzip" {
		zr, err := gzip.NewReader(bytes.NewReader(body))
		if err == nil {
			plain, err = io.ReadAll(zr)
		}
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
	}
	caps, haves := readUploadRequest(plain)
	refusal := ""
	switch {
	case p.isPassthrough():
	case !hasCap(caps, "multi_ack") && !hasCap(caps, "multi_ack_detailed"):
		refusal = AzureMultiACKRefusal
	case p.isMultiACKOnly() && hasCap(caps, "multi_ack_detailed"):
		refusal = NotAdvertisedRefusal
	}
	p.mu.Lock()
	p.counts.UploadPacks++
	p.counts.Haves += int64(haves)
	i, gen := len(p.counts.PackSizes), p.gen
	if refusal == "" {
		p.counts.PackSizes = append(p.counts.PackSizes, 0)
	}
	if refusal != "" {
		p.counts.Refused++
	}
	p.mu.Unlock()
	if refusal != "" {
		http.Error(w, refusal, http.StatusBadRequest)
		return
	}
	r.Body = io.NopCloser(bytes.NewReader(body))
	p.fwd.ServeHTTP(&countingWriter{ResponseWriter: w, p: p, i: i, gen: gen}, r)
}

// countingWriter counts the bytes of a response body into PackBytes, each
// before it is written: a client that has read the whole response finds
// every byte of it counted (counted after the handler returned, they could
// arrive after the client's next look at Counts).
type countingWriter struct {
	http.ResponseWriter
	p   *AzureProxy
	i   int // its index in PackSizes
	gen int // the proxy's gen when it began
}

func (c *countingWriter) Write(b []byte) (int, error) {
	c.p.mu.Lock()
	if c.gen == c.p.gen {
		c.p.counts.PackBytes += int64(len(b))
		c.p.counts.PackSizes[c.i] += int64(len(b))
	}
	c.p.mu.Unlock()
	return c.ResponseWriter.Write(b)
}

// Flush lets the reverse proxy stream the pack as it arrives.
func (c *countingWriter) Flush() { http.NewResponseController(c.ResponseWriter).Flush() } //nolint:errcheck // best effort, as ReverseProxy's

// readUploadRequest returns the capabilities of an upload-pack request's
// first want line and how many have lines it holds.
func readUploadRequest(b []byte) (caps []string, haves int) {
	first := true
	for _, line := range pktLines(b) {
		s := strings.TrimSuffix(string(line), "\n")
		switch {
		case strings.HasPrefix(s, "want ") && first:
			first = false
			if f := strings.Fields(s); len(f) > 2 {
				caps = f[2:]
			}
		case strings.HasPrefix(s, "have "):
			haves++
		}
	}
	return caps, haves
}

func hasCap(caps []string, name string) bool {
	for _, c := range caps {
		if c == name {
			return true
		}
	}
	return false
}

// pktLines splits b into its pkt-line payloads; a flush is an empty one. It
// stops at the first malformed length.
func pktLines(b []byte) [][]byte {
	var out [][]byte
	for len(b) >= 4 {
		n, err := strconv.ParseUint(string(b[:4]), 16, 16)
		if err != nil {
			return out
		}
		if n < 4 {
			out = append(out, nil)
			b = b[4:]
			continue
		}
		if int(n) > len(b) {
			return out
		}
		out = append(out, b[4:n])
		b = b[n:]
	}
	return out
}

func pktLine(s string) string { return fmt.Sprintf("%04x%s", len(s)+4, s) }

// rewriteAdvert replaces the capabilities of an info/refs answer with
// Azure's. An empty repository's upload-pack advertisement is a bare flush,
// as Azure writes it (no capabilities^{} line).
func (p *AzureProxy) rewriteAdvert(resp *http.Response) error {
	service := resp.Request.URL.Query().Get("service")
	if !strings.HasSuffix(resp.Request.URL.Path, "/info/refs") || resp.StatusCode != http.StatusOK || p.isPassthrough() {
		return nil
	}
	var caps string
	switch service {
	case "git-upload-pack":
		caps = AzureUploadPackCaps
		if p.isMultiACKOnly() {
			caps = MultiACKOnlyUploadPackCaps
		}
	case "git-receive-pack":
		caps = AzureReceivePackCaps
	default:
		return nil
	}
	body, err := io.ReadAll(resp.Body)
	_ = resp.Body.Close()
	if err != nil {
		return err
	}
	var out strings.Builder
	refLine := 0
	for _, line := range pktLines(body) {
		s := string(line)
		if line == nil {
			out.WriteString("0000")
			continue
		}
		if strings.HasPrefix(s, "# service=") {
			out.WriteString(pktLine(s))
			continue
		}
		refLine++
		if refLine > 1 {
			out.WriteString(pktLine(s))
			continue
		}
		ref, gitCaps, _ := strings.Cut(strings.TrimSuffix(s, "\n"), "\x00")
		if service == "git-upload-pack" && strings.HasSuffix(ref, " capabilities^{}") {
			continue // an empty repository: Azure writes only the flush
		}
		c := caps
		if service == "git-upload-pack" {
			for _, f := range strings.Fields(gitCaps) {
				if strings.HasPrefix(f, "symref=HEAD:") {
					c += " " + f
				}
			}
		}
		out.WriteString(pktLine(ref + "\x00 " + c + "\n"))
	}
	resp.Body = io.NopCloser(strings.NewReader(out.String()))
	resp.ContentLength = int64(out.Len())
	resp.Header.Set("Content-Length", strconv.Itoa(out.Len()))
	return nil
}
