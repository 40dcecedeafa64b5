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

package main_test

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/crossplane-contrib/provider-git/apis/v1alpha1"
	"github.com/crossplane-contrib/provider-git/internal/testenv"
)

// TestProviderBinary runs the real binary, as a user would, against a
// kubeconfig: it must serve its probes and metrics, reconcile a Branch into
// a local Git server, and stop cleanly on SIGTERM.
func TestProviderBinary(t *testing.T) {
	dir := t.TempDir()
	bin := filepath.Join(dir, "provider")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}

	cp, err := testenv.StartControlPlane(testenv.ControlPlaneOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cp.Stop() })
	kc, err := cp.KubeconfigFor("provider")
	if err != nil {
		t.Fatal(err)
	}
	kubeconfig := filepath.Join(dir, "kubeconfig")
	if err := os.WriteFile(kubeconfig, kc, 0o600); err != nil {
		t.Fatal(err)
	}

	root := t.TempDir()
	repo := testenv.NewBareRepo(t, root, "repo.git", map[string][]testenv.CommitSpec{
		"main": {{Message: "seed", Files: map[string]string{"README.md": "seed\n"}}},
	})
	srv := testenv.NewHTTPServer(t, root, "bot", "token")

	metricsAddr, probeAddr := freeAddr(t), freeAddr(t)
	cmd := exec.Command(bin, "--poll=2s", "--allow-insecure-remotes", "--cache-dir="+filepath.Join(dir, "cache"),
		"--metrics-bind-address="+metricsAddr, "--health-probe-bind-address="+probeAddr)
	cmd.Env = append(os.Environ(), "KUBECONFIG="+kubeconfig)
	log, err := os.Create(filepath.Join(dir, "provider.log"))
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stdout, cmd.Stderr = log, log
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		if t.Failed() {
			b, _ := os.ReadFile(log.Name())
			t.Logf("provider log:\n%s", b)
		}
	})

	ctx := context.Background()
	objs := []client.Object{
		&corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "creds"},
			StringData: map[string]string{"username": "bot", "password": "token"}},
		&v1alpha1.ProviderConfig{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "git"},
			Spec: v1alpha1.ProviderConfigSpec{URL: srv.RepoURL(repo.Name), Credentials: v1alpha1.ProviderCredentials{
				Source: xpv2.CredentialsSourceSecret, SecretRef: &v1alpha1.LocalCredentialsSecretRef{Name: "creds"}}}},
	}
	b := &v1alpha1.Branch{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "feature"},
		Spec: v1alpha1.BranchSpec{ForProvider: v1alpha1.BranchParameters{Branch: "feature", From: "main"}}}
	b.Spec.ProviderConfigReference = &xpv2.ProviderConfigReference{Kind: "ProviderConfig", Name: "git"}
	for _, o := range append(objs, b) {
		if err := cp.Client.Create(ctx, o); err != nil {
			t.Fatal(err)
		}
	}

	eventually(t, 60*time.Second, func() error {
		if err := cp.Client.Get(ctx, client.ObjectKeyFromObject(b), b); err != nil {
			return err
		}
		if c := b.GetCondition(xpv2.TypeReady); c.Status != corev1.ConditionTrue {
			return fmt.Errorf("Branch Ready is %s/%s: %s", c.Status, c.Reason, c.Message)
		}
		return nil
	})
	if got, want := repo.Head(t, "feature"), repo.Head(t, "main"); got != want {
		t.Errorf("branch feature at %s, want main's head %s", got, want)
	}
	for _, probe := range []string{"/healthz", "/readyz"} {
		if code, _ := get(t, "http://"+probeAddr+probe); code != http.StatusOK {
			t.Errorf("%s: HTTP %d, want 200", probe, code)
		}
	}
	_, metrics := get(t, "http://"+metricsAddr+"/metrics")
	for _, family := range []string{"provider_git_resource_condition", "provider_git_fetches_total"} {
		if !strings.Contains(metrics, family) {
			t.Errorf("/metrics has no %s", family)
		}
	}

	// Graceful shutdown: SIGTERM ends the process, successfully, promptly.
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-exited:
		if err != nil {
			t.Errorf("provider exited with %v after SIGTERM, want success", err)
		}
	case <-time.After(30 * time.Second):
		t.Errorf("provider still running 30s after SIGTERM")
	}
}

func freeAddr(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close() //nolint:errcheck // only reserving a port number
	return l.Addr().String()
}

func get(t *testing.T, url string) (int, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, err.Error()
	}
	defer resp.Body.Close() //nolint:errcheck // read-only
	body, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(body)
}

func eventually(t *testing.T, timeout time.Duration, check func() error) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	var err error
	for time.Now().Before(deadline) {
		if err = check(); err == nil {
			return
		}
		time.Sleep(200 * time.Millisecond)
	}
	t.Fatalf("gave up after %s: %v", timeout, err)
}
