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
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestFaultProxy: each mode does to the git CLI what it says, and the
// requests are counted under the mode that received them.
func TestFaultProxy(t *testing.T) {
	root := t.TempDir()
	r := seedRepo(t, root)
	srv := NewHTTPServer(t, root, "u", "p")
	proxy := NewFaultProxy(t, srv.URL)
	url := AuthURL(proxy.RepoURL(filepath.Base(r.Dir)), "u", "p")
	clone := func() error {
		_, err := Git("", nil, "clone", "--quiet", url, filepath.Join(t.TempDir(), "wt"))
		return err
	}
	cases := map[string]struct {
		reason  string
		fault   Fault
		wantErr string // "" for success
	}{
		"None":   {reason: "Forwards.", fault: Fault{Mode: FaultNone}},
		"Reset":  {reason: "The host is down: the connection is reset.", fault: Fault{Mode: FaultReset}, wantErr: "unable to access"},
		"Status": {reason: "The host answers 503.", fault: Fault{Mode: FaultStatus, Status: http.StatusServiceUnavailable}, wantErr: "503"},
		"Slow":   {reason: "The host is slow but answers.", fault: Fault{Mode: FaultSlow, Delay: 50 * time.Millisecond}},
		"Drop":   {reason: "The pack is cut mid-transfer.", fault: Fault{Mode: FaultDropMidPack, DropAfter: 64}, wantErr: "fatal"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			before := proxy.Requests(tc.fault.Mode)
			proxy.Set(tc.fault)
			defer proxy.Set(Fault{})
			err := clone()
			switch {
			case tc.wantErr == "" && err != nil:
				t.Errorf("%s\nclone through the proxy: %v", tc.reason, err)
			case tc.wantErr != "" && (err == nil || !strings.Contains(strings.ToLower(err.Error()), tc.wantErr)):
				t.Errorf("%s\nclone through the proxy: %v, want an error with %q", tc.reason, err, tc.wantErr)
			}
			if proxy.Requests(tc.fault.Mode) == before {
				t.Errorf("%s\nno request counted under mode %s", tc.reason, tc.fault.Mode)
			}
		})
	}
	if proxy.Cuts("git-upload-pack") == 0 {
		t.Error("the drop mode cut no pack")
	}
}
