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
	"github.com/crossplane-contrib/provider-git/internal/testharness/testenv"
)

// TestProviderBinary runs the real binary, as a user would, against a
// kubeconfig: it must serve its probes and metrics, reconcile a Branch into
// a local Git server, and stop cleanly on SIGTERM.
func TestProviderBinary(t *testing.T) {
	testenv.Integration(t)
	dir := t.TempDir()
	bin := filepath.Join(dir, "provider")
	if err := testenv.BuildProvider(bin); err != nil {
		t.Fatal(err)
	}
	// The binary as the image ships it (static, trimmed, stripped). A
	// dependency that drags in SDKs the provider never calls shows here
	// first: the whole client-go clientset alone is 8 MiB of it. 80 MiB is
	// the budget with the forges' own clients (GitLab's client-go is 4.8
	// MiB of it: docs/development.md, The binary).
	const maxBinary = 80 << 20
	if fi, err := os.Stat(bin); err != nil {
		t.Fatal(err)
	} else if fi.Size() > maxBinary {
		t.Errorf("the provider binary is %.1f MiB, more than %d MiB", float64(fi.Size())/(1<<20), maxBinary>>20)
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

	// Port 0 for both servers: the binary's listeners hold the ports the
	// kernel picked, where a port reserved here and closed before the binary
	// binds it could be taken by another process in between.
	cmd := exec.Command(bin, "--poll=2s", "--allow-insecure-remotes", "--cache-dir="+filepath.Join(dir, "cache"),
		"--metrics-bind-address=127.0.0.1:0", "--health-probe-bind-address=127.0.0.1:0")
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

	testenv.Eventually(t, 60*time.Second, func() error {
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
	metricsAddr, probeAddr := serverAddrs(t, cmd.Process.Pid)
	for _, probe := range []string{"/healthz", "/readyz"} {
		if code, _ := get(t, "http://"+probeAddr+probe); code != http.StatusOK {
			t.Errorf("%s: HTTP %d, want 200", probe, code)
		}
	}
	_, metrics := get(t, "http://"+metricsAddr+"/metrics")
	for _, family := range []string{"provider_git_resource_condition", "provider_git_resources", "provider_git_fetches_total"} {
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

// serverAddrs returns the addresses of the binary's metrics and probe
// servers. The binary logs the address of neither: they are the loopback
// ports its process listens on, and the metrics server is the one that
// serves /metrics.
func serverAddrs(t *testing.T, pid int) (metrics, probe string) {
	t.Helper()
	var ports []int
	testenv.Eventually(t, 30*time.Second, func() error {
		var err error
		if ports, err = testenv.ListeningPorts(pid); err != nil {
			return err
		}
		if len(ports) != 2 {
			return fmt.Errorf("provider listens on ports %v, want 2 (metrics and probes)", ports)
		}
		return nil
	})
	addrs := []string{fmt.Sprintf("127.0.0.1:%d", ports[0]), fmt.Sprintf("127.0.0.1:%d", ports[1])}
	if code, _ := get(t, "http://"+addrs[1]+"/metrics"); code == http.StatusOK {
		addrs[0], addrs[1] = addrs[1], addrs[0]
	}
	return addrs[0], addrs[1]
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
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(body)
}
