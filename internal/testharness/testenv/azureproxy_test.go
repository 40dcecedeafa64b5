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
	"io"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestAzureProxy: the proxy advertises Azure's capabilities, refuses an
// upload-pack request without multi_ack with Azure's 400, and serves the
// git CLI (which declares multi_ack_detailed) a clone and an incremental
// fetch, as Azure DevOps does.
func TestAzureProxy(t *testing.T) {
	root := t.TempDir()
	r := seedRepo(t, root)
	srv := NewHTTPServer(t, root, "u", "p")
	proxy := NewAzureProxy(t, srv.URL)
	repoURL := proxy.RepoURL(filepath.Base(r.Dir))
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	do := func(method, url, body string) (int, string) {
		t.Helper()
		req, err := http.NewRequestWithContext(ctx, method, url, strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		req.SetBasicAuth("u", "p")
		if method == http.MethodPost {
			req.Header.Set("Content-Type", "application/x-git-upload-pack-request")
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		if err != nil {
			t.Fatal(err)
		}
		return resp.StatusCode, string(b)
	}

	for service, want := range map[string]string{
		"git-upload-pack":  AzureUploadPackCaps + " symref=HEAD:refs/heads/main",
		"git-receive-pack": AzureReceivePackCaps,
	} {
		_, body := do(http.MethodGet, repoURL+"/info/refs?service="+service, "")
		var caps string
		for _, l := range pktLines([]byte(body)) {
			if _, c, ok := strings.Cut(string(l), "\x00"); ok {
				caps = strings.TrimSuffix(c, "\n")
				break
			}
		}
		if caps != " "+want {
			t.Errorf("%s advertises %q, want %q", service, caps, " "+want)
		}
	}

	head := r.Head(t, "main")
	code, body := do(http.MethodPost, repoURL+"/git-upload-pack", pktLine("want "+head+" side-band-64k no-progress\n")+"0000"+pktLine("done\n"))
	if code != http.StatusBadRequest || !strings.Contains(body, AzureMultiACKRefusal) {
		t.Errorf("a request without multi_ack: %d %q, want 400 with %q", code, body, AzureMultiACKRefusal)
	}
	code, body = do(http.MethodPost, repoURL+"/git-upload-pack", pktLine("want "+head+" multi_ack_detailed no-progress\n")+"0000"+pktLine("done\n"))
	if code != http.StatusOK || !strings.HasPrefix(body, pktLine("NAK\n")+"PACK") {
		t.Errorf("a request with multi_ack_detailed and no have: %d %.12q, want 200, NAK and the pack", code, body)
	}

	// The git CLI declares multi_ack_detailed and negotiates: a clone, then
	// a fetch with haves after someone else's commit.
	url := AuthURL(repoURL, "u", "p")
	wt := filepath.Join(t.TempDir(), "wt")
	if _, err := Git("", nil, "clone", "--quiet", url, wt); err != nil {
		t.Fatalf("git clone through the proxy: %v", err)
	}
	want, err := r.Commit("main", CommitSpec{Files: map[string]string{"new.txt": "new\n"}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Git(wt, nil, "fetch", "--quiet", "origin"); err != nil {
		t.Fatalf("git fetch through the proxy: %v", err)
	}
	if got, err := Git(wt, nil, "rev-parse", "origin/main"); err != nil || strings.TrimSpace(got) != want {
		t.Errorf("origin/main after the fetch = %q, %v; want %s", got, err, want)
	}
	if c := proxy.Counts(); c.Refused != 1 || c.Haves == 0 {
		t.Errorf("counts %+v: want the one refusal above, and haves from git's fetch", c)
	}
}

// TestAzureProxyMultiACKOnly: in multi_ack-only mode the proxy advertises
// multi_ack without multi_ack_detailed, refuses a request that declares the
// latter, and serves one that declares multi_ack, haves included, with git's
// plain multi_ack acknowledgements ("ACK <oid> continue") before the pack.
// (The git CLI does not fetch over HTTP from such a server: its stateless
// negotiation requires multi_ack_detailed.)
func TestAzureProxyMultiACKOnly(t *testing.T) {
	root := t.TempDir()
	r := seedRepo(t, root)
	srv := NewHTTPServer(t, root, "u", "p")
	proxy := NewAzureProxy(t, srv.URL)
	proxy.SetMultiACKOnly(true)
	repoURL := proxy.RepoURL(filepath.Base(r.Dir))
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	seed := r.Head(t, "main")
	head, err := r.Commit("main", CommitSpec{Files: map[string]string{"new.txt": "new\n"}})
	if err != nil {
		t.Fatal(err)
	}
	post := func(mode string) (int, string) {
		t.Helper()
		body := pktLine("want "+head+" "+mode+" side-band-64k no-progress\n") + "0000" + pktLine("have "+seed+"\n") + pktLine("done\n")
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, repoURL+"/git-upload-pack", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		req.SetBasicAuth("u", "p")
		req.Header.Set("Content-Type", "application/x-git-upload-pack-request")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		if err != nil {
			t.Fatal(err)
		}
		return resp.StatusCode, string(b)
	}

	req, err := http.NewRequestWithContext(ctx, http.MethodGet, repoURL+"/info/refs?service=git-upload-pack", nil)
	if err != nil {
		t.Fatal(err)
	}
	req.SetBasicAuth("u", "p")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	advert, err := io.ReadAll(resp.Body)
	_ = resp.Body.Close()
	if err != nil || !strings.Contains(string(advert), "\x00 "+MultiACKOnlyUploadPackCaps+" ") {
		t.Errorf("advertisement %q, %v: want the capabilities %q", advert, err, MultiACKOnlyUploadPackCaps)
	}
	if code, body := post("multi_ack_detailed"); code != http.StatusBadRequest || !strings.Contains(body, NotAdvertisedRefusal) {
		t.Errorf("a request declaring multi_ack_detailed: %d %q, want 400 with %q", code, body, NotAdvertisedRefusal)
	}
	acks := pktLine("ACK "+seed+" continue\n") + pktLine("ACK "+seed+"\n")
	if code, body := post("multi_ack"); code != http.StatusOK || !strings.HasPrefix(body, acks) {
		t.Errorf("a request declaring multi_ack with a common have: %d %.120q, want 200 and %q before the pack", code, body, acks)
	}
	if c := proxy.Counts(); c.Refused != 1 || c.Haves != 2 || len(c.PackSizes) != 1 || c.PackSizes[0] != c.PackBytes || c.PackBytes == 0 {
		t.Errorf("counts %+v: want the one refusal above, two haves, and one answer's size", c)
	}
}
