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

package main

import (
	"context"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/crossplane-contrib/provider-git/internal/git"
)

// TestRunClosesCacheOnFailure: when the manager cannot run (here: its
// metrics address is taken), run returns the error instead of exiting, and
// the Git cache it opened is closed on the way out.
func TestRunClosesCacheOnFailure(t *testing.T) {
	dir := t.TempDir()
	// A kubeconfig nothing serves: the manager is created without reaching
	// it, and fails on its metrics listener before it needs it.
	kubeconfig := filepath.Join(dir, "kubeconfig")
	if err := os.WriteFile(kubeconfig, []byte(`apiVersion: v1
kind: Config
clusters: [{name: c, cluster: {server: "https://127.0.0.1:1"}}]
users: [{name: u, user: {token: t}}]
contexts: [{name: c, context: {cluster: c, user: u}}]
current-context: c
`), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("KUBECONFIG", kubeconfig)
	taken, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = taken.Close() })

	var opened *git.Cache
	cacheOpened = func(c *git.Cache) { opened = c }
	t.Cleanup(func() { cacheOpened = func(*git.Cache) {} })

	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	err = run(ctx, []string{"--cache-dir=" + filepath.Join(dir, "cache"), "--metrics-bind-address=" + taken.Addr().String(),
		"--health-probe-bind-address=0"})
	if err == nil || !strings.Contains(err.Error(), "cannot run the controller manager") {
		t.Fatalf("run: got %v, want the manager's failure", err)
	}
	if opened == nil {
		t.Fatal("run failed before it opened the Git cache: the test exercises nothing")
	}
	if _, err := opened.Repository(git.Remote{URL: "https://git.example.org/r.git"}); err == nil {
		t.Error("the Git cache is still open after run returned")
	}
}
