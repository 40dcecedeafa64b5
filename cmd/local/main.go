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

// Command local runs provider-git on an embedded default: a local control
// plane (kube-apiserver + etcd from ./bin), a local smart-HTTP Git server with
// one repository, the CRDs and examples/ applied, and the provider binary
// pointed at both. It prints the resources' READY/SYNCED and every commit as
// it lands, until Ctrl-C stops everything.
package main

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"io"
	"maps"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"text/tabwriter"
	"time"

	"github.com/crossplane/crossplane-runtime/v2/pkg/errors"
	kerrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/crossplane-contrib/provider-git/internal/localenv"
)

const (
	repoName  = "gitops.git"
	gitUser   = "provider-git"
	namespace = "default"
	// The examples' ProviderConfig and Secret; run() points them at the local server.
	exampleProviderConfig = "gitops"
	exampleSecret         = "git-credentials"
)

const (
	errFmtMkdir      = "cannot create %s"
	errFmtWrite      = "cannot write %s"
	errToken         = "cannot generate the Git server's token"
	errFmtExample    = "cannot apply %s"
	errFmtCreate     = "cannot create %s %s"
	errBuildProvider = "cannot build the provider"
	errFmtOpen       = "cannot open %s"
	errStartProvider = "cannot start the provider"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "local:", err)
		os.Exit(1)
	}
}

func run() error {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()

	root, err := localenv.ModuleRoot()
	if err != nil {
		return err
	}
	work := filepath.Join(root, "_output", "local", time.Now().Format("20060102-150405"))
	if err := os.MkdirAll(work, 0o700); err != nil {
		return errors.Wrapf(err, errFmtMkdir, work)
	}

	step("starting the control plane (kube-apiserver + etcd from ./bin) with the CRDs from package/crds")
	cp, err := localenv.StartControlPlane(localenv.ControlPlaneOptions{})
	if err != nil {
		return err
	}
	defer func() { step("stopping the control plane"); _ = cp.Stop() }()
	kubeconfig := filepath.Join(work, "kubeconfig")
	kc, err := cp.KubeconfigFor("local-admin")
	if err != nil {
		return err
	}
	if err := os.WriteFile(kubeconfig, kc, 0o600); err != nil {
		return errors.Wrapf(err, errFmtWrite, kubeconfig)
	}

	step("starting a smart-HTTP Git server on 127.0.0.1 with one repository")
	token, err := randomToken()
	if err != nil {
		return err
	}
	repos := filepath.Join(work, "repos")
	repo, err := localenv.NewBareRepo(repos, repoName, map[string][]localenv.CommitSpec{
		// A first commit on main, so that branches have something to start from.
		"main": {{
			Message: "Initial commit",
			Files:   map[string]string{"README.md": "# gitops\n\nWritten to by provider-git's local default.\n"},
		}},
	})
	if err != nil {
		return err
	}
	srv, err := localenv.StartHTTPServer(repos, gitUser, token)
	if err != nil {
		return err
	}
	defer srv.Close()
	url := srv.RepoURL(repoName)

	step("applying examples/ with the ProviderConfig pointed at " + url)
	if err := applyExamples(ctx, cp.Client, filepath.Join(root, "examples"), url, token); err != nil {
		return err
	}

	step("building and starting the provider")
	provider, err := startProvider(ctx, root, kubeconfig, filepath.Join(work, "cache"), filepath.Join(work, "provider.log"))
	if err != nil {
		return err
	}
	defer func() {
		step("stopping the provider")
		_ = provider.Process.Signal(syscall.SIGTERM)
		_ = provider.Wait()
	}()

	fmt.Printf("\n  KUBECONFIG=%s kubectl get managed\n"+
		"  KUBECONFIG=%[1]s kubectl create configmap demo --from-literal=k=v   (the Mirror commits it)\n"+
		"  provider log: %s\n  repository:   %s\n  Ctrl-C stops everything.\n\n",
		kubeconfig, filepath.Join(work, "provider.log"), repo.Dir)
	watch(ctx, cp.Client, repo.Dir)
	return nil
}

func step(msg string) { fmt.Printf("==> %s\n", msg) }

func randomToken() (string, error) {
	b := make([]byte, 16)
	if _, err := rand.Read(b); err != nil {
		return "", errors.Wrap(err, errToken)
	}
	return hex.EncodeToString(b), nil
}

// applyExamples creates every object in examples/, pointing the example
// ProviderConfig and its Secret at the local server. Objects for kinds this
// build does not serve yet are skipped with a note.
func applyExamples(ctx context.Context, c client.Client, dir, url, token string) error {
	files, err := filepath.Glob(filepath.Join(dir, "*.yaml"))
	if err != nil {
		return errors.Wrapf(err, errFmtExample, dir)
	}
	sort.Strings(files)
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			return errors.Wrapf(err, errFmtExample, f)
		}
		dec := utilyaml.NewYAMLOrJSONDecoder(bytes.NewReader(data), 4096)
		for {
			u := &unstructured.Unstructured{}
			if err := dec.Decode(&u.Object); errors.Is(err, io.EOF) {
				break
			} else if err != nil {
				return errors.Wrapf(err, errFmtExample, f)
			}
			if len(u.Object) == 0 || u.GetNamespace() != namespace && u.GetNamespace() != "" {
				continue // only the default namespace's examples run locally
			}
			if g := u.GroupVersionKind().Group; g != "" && g != "git.m.crossplane.io" {
				continue // Crossplane's own kinds (the Composition) need Crossplane
			}
			if u.GetKind() == "ClusterProviderConfig" {
				continue // the local default uses the namespaced ProviderConfig
			}
			if u.GetKind() == "PullRequest" {
				continue // the local Git server is no forge: a PullRequest would stall ForgeUnknown
			}
			localize(u, url, token)
			if err := c.Create(ctx, u); err != nil && !kerrors.IsAlreadyExists(err) {
				return errors.Wrapf(errors.Wrapf(err, errFmtCreate, u.GetKind(), u.GetName()), errFmtExample, f)
			}
			fmt.Printf("    created %s %s/%s\n", u.GetKind(), u.GetNamespace(), u.GetName())
		}
	}
	return nil
}

func localize(u *unstructured.Unstructured, url, token string) {
	switch {
	case u.GetKind() == "ProviderConfig" && u.GetName() == exampleProviderConfig:
		_ = unstructured.SetNestedField(u.Object, url, "spec", "url")
	case u.GetKind() == "Secret" && u.GetName() == exampleSecret:
		_ = unstructured.SetNestedStringMap(u.Object, map[string]string{"username": gitUser, "password": token}, "stringData")
	}
}

func startProvider(ctx context.Context, root, kubeconfig, cacheDir, logPath string) (*exec.Cmd, error) {
	bin := filepath.Join(root, "bin", "provider")
	build := exec.CommandContext(ctx, "go", "build", "-o", bin, "./cmd/provider")
	build.Dir, build.Stdout, build.Stderr = root, os.Stdout, os.Stderr
	if err := build.Run(); err != nil {
		return nil, errors.Wrap(err, errBuildProvider)
	}
	logf, err := os.Create(logPath)
	if err != nil {
		return nil, errors.Wrapf(err, errFmtOpen, logPath)
	}
	// Not CommandContext: Ctrl-C reaches the provider through its process
	// group, and the deferred SIGTERM lets it shut down gracefully.
	cmd := exec.Command(bin, "--debug", "--poll=15s", "--allow-insecure-remotes",
		"--cache-dir="+cacheDir, "--metrics-bind-address=127.0.0.1:0", "--health-probe-bind-address=127.0.0.1:0")
	cmd.Env = append(os.Environ(), "KUBECONFIG="+kubeconfig)
	cmd.Stdout, cmd.Stderr = logf, logf
	if err := cmd.Start(); err != nil {
		return nil, errors.Wrap(err, errStartProvider)
	}
	return cmd, nil
}

// watch prints the managed resources' READY/SYNCED whenever they change, and
// every new commit with its stat, until ctx ends.
func watch(ctx context.Context, c client.Client, repo string) {
	var lastTable string
	seen, heads := map[string]bool{}, map[string]string{}
	tick := time.NewTicker(2 * time.Second)
	defer tick.Stop()
	for {
		if t := table(ctx, c); t != lastTable {
			fmt.Printf("--- %s\n%s", time.Now().Format(time.TimeOnly), t)
			lastTable = t
		}
		printNewCommits(repo, seen)
		printBranches(repo, heads)
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
	}
}

// kinds the local default shows, in order; kinds whose CRD is not installed
// are left out.
var kinds = []string{"ProviderConfig", "Branch", "File", "CommitRequest", "Mirror", "PullRequest"}

func table(ctx context.Context, c client.Client) string {
	var b strings.Builder
	w := tabwriter.NewWriter(&b, 0, 4, 2, ' ', 0)
	fmt.Fprintln(w, "KIND\tNAME\tREADY\tSYNCED\tREASON")
	for _, k := range kinds {
		l := &unstructured.UnstructuredList{}
		l.SetAPIVersion("git.m.crossplane.io/v1alpha1")
		l.SetKind(k + "List")
		if err := c.List(ctx, l, client.InNamespace(namespace)); err != nil {
			continue
		}
		for _, o := range l.Items {
			ready, reason := condition(o, "Ready")
			synced, _ := condition(o, "Synced")
			fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%s\n", k, o.GetName(), ready, synced, reason)
		}
	}
	_ = w.Flush()
	return b.String()
}

func condition(o unstructured.Unstructured, t string) (string, string) {
	conds, _, _ := unstructured.NestedSlice(o.Object, "status", "conditions")
	for _, c := range conds {
		m, _ := c.(map[string]any)
		if m["type"] == t {
			return fmt.Sprint(m["status"]), fmt.Sprint(m["reason"])
		}
	}
	return "-", ""
}

// printBranches prints each branch as it appears, moves or goes.
func printBranches(repo string, heads map[string]string) {
	out, err := localenv.Git(repo, nil, "for-each-ref", "--format=%(refname:short) %(objectname:short)", "refs/heads")
	if err != nil {
		return
	}
	now := map[string]string{}
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		if name, sha, ok := strings.Cut(line, " "); ok {
			now[name] = sha
		}
	}
	for name, sha := range now {
		if old, ok := heads[name]; !ok {
			fmt.Printf("branch %s created at %s\n", name, sha)
		} else if old != sha {
			fmt.Printf("branch %s moved %s -> %s\n", name, old, sha)
		}
	}
	for name := range heads {
		if _, ok := now[name]; !ok {
			fmt.Printf("branch %s deleted\n", name)
		}
	}
	clear(heads)
	maps.Copy(heads, now)
}

func printNewCommits(repo string, seen map[string]bool) {
	out, err := localenv.Git(repo, nil, "log", "--all", "--reverse", "--format=%H")
	if err != nil {
		return
	}
	for _, sha := range strings.Fields(out) {
		if seen[sha] {
			continue
		}
		seen[sha] = true
		if stat, err := localenv.Git(repo, nil, "show", "--stat", "--format=commit %h %d%n%an <%ae>  %ad%n%n    %s%n", sha); err == nil {
			fmt.Print(stat)
		}
	}
}
