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

// Package localenv starts what provider-git runs against outside a cluster:
// a real kube-apiserver + etcd (envtest) from ./bin, Git repositories on disk
// and Git servers on loopback (smart HTTP, SSH). Everything returns errors and
// nothing imports testing, so the local default (cmd/local, 'make run') links
// it without the test bed; internal/testharness/testenv wraps it for tests.
package localenv

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"time"

	"github.com/crossplane/crossplane-runtime/v2/pkg/errors"
	corev1 "k8s.io/api/core/v1"
	kruntime "k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"

	"github.com/crossplane-contrib/provider-git/apis"
)

// envtestK8sVersion is the control plane version the Makefile builds into
// ./bin (see ENVTEST_K8S_VERSION there); the two must agree.
const envtestK8sVersion = "1.37.2"

const (
	errNoModuleRoot = "cannot find the module root (no go.mod above the working directory)"
	errNoBinaries   = "envtest binaries not found: run 'make setup-envtest' (or 'make test'), or set KUBEBUILDER_ASSETS"
	errStartFmt     = "cannot start the envtest control plane (etcd's last output:\n%s\nkube-apiserver's:\n%s)"
	errStop         = "cannot stop the envtest control plane"
	errClient       = "cannot create a client for the envtest control plane"
	errScheme       = "cannot build the scheme"
	errAddUser      = "cannot add a control plane user"
	errKubeconfig   = "cannot write a kubeconfig for the control plane user"
)

// ControlPlaneOptions configures StartControlPlane.
type ControlPlaneOptions struct {
	// CRDDirectoryPaths are installed, and waited for, before Start returns.
	// Empty means the provider's own CRDs in package/crds.
	CRDDirectoryPaths []string

	// Scheme for the client. Nil means client-go's scheme plus provider-git's APIs.
	Scheme *kruntime.Scheme

	// APIServerArgs are set on the kube-apiserver's command line (an
	// audit policy and webhook, say), replacing envtest's of the same name.
	APIServerArgs map[string][]string
}

// ControlPlane is a running kube-apiserver + etcd.
type ControlPlane struct {
	// Config reaches the API server as a cluster administrator, with a
	// bearer token (adminToken says why not envtest's certificate).
	Config *rest.Config
	// Client is an uncached client with Scheme.
	Client client.Client
	// Scheme knows the types the client was built for.
	Scheme *kruntime.Scheme

	env   *envtest.Environment
	token *adminToken
}

// StartControlPlane starts kube-apiserver and etcd from ./bin (or
// KUBEBUILDER_ASSETS) and installs CRDs. Call Stop when done.
func StartControlPlane(o ControlPlaneOptions) (*ControlPlane, error) {
	root, err := ModuleRoot()
	if err != nil {
		return nil, err
	}
	assets, err := binaryAssets(root)
	if err != nil {
		return nil, err
	}
	s := o.Scheme
	if s == nil {
		if s, err = defaultScheme(); err != nil {
			return nil, err
		}
	}
	crds := o.CRDDirectoryPaths
	if len(crds) == 0 {
		crds = []string{filepath.Join(root, "package", "crds")}
	}
	apiOut, etcdOut := &tail{}, &tail{}
	env := &envtest.Environment{
		// Explicit paths: envtest would otherwise prefer KUBEBUILDER_ASSETS
		// as given, which may be relative to the module root rather than to
		// the package folder the test runs in.
		ControlPlane: envtest.ControlPlane{
			APIServer: &envtest.APIServer{Path: filepath.Join(assets, "kube-apiserver"), Out: apiOut, Err: apiOut},
			Etcd:      &envtest.Etcd{Path: filepath.Join(assets, "etcd"), Out: etcdOut, Err: etcdOut},
		},
		BinaryAssetsDirectory: assets,
		CRDDirectoryPaths:     crds,
		ErrorIfCRDPathMissing: true,
		Scheme:                s,
		// Two shared cores running a cold test build can be slow to start etcd.
		ControlPlaneStartTimeout: 90 * time.Second,
		ControlPlaneStopTimeout:  30 * time.Second,
	}
	// API Priority and Fairness queues requests only under overload, which
	// no test makes of its own API server; off, it costs the API server a
	// tenth less CPU per request (e2e/async: 26.4 to 23.9 CPU-seconds), and
	// the API servers spend about 40% of make test's. A test can set it
	// back in APIServerArgs.
	env.ControlPlane.APIServer.Configure().Set("enable-priority-and-fairness", "false")
	tok, err := newAdminToken()
	if err != nil {
		return nil, err
	}
	env.ControlPlane.APIServer.Configure().Set("token-auth-file", tok.file())
	for k, v := range o.APIServerArgs {
		env.ControlPlane.APIServer.Configure().Set(k, v...)
	}
	certCfg, err := env.Start()
	if err != nil {
		_ = tok.remove()
		return nil, errors.Wrapf(err, errStartFmt, etcdOut, apiOut)
	}
	cfg := tok.config(certCfg)
	// Tests create hundreds of objects quickly; client-go's default 5 QPS
	// would measure its own throttle instead of the code under test.
	cfg.QPS, cfg.Burst = 1000, 2000
	c, err := client.New(cfg, client.Options{Scheme: s})
	if err != nil {
		_ = env.Stop()
		_ = tok.remove()
		return nil, errors.Wrap(err, errClient)
	}
	return &ControlPlane{Config: cfg, Client: c, Scheme: s, env: env, token: tok}, nil
}

// Stop stops the API server and etcd and removes their data.
func (c *ControlPlane) Stop() error {
	err := c.env.Stop()
	if rerr := c.token.remove(); err == nil {
		err = rerr
	}
	return errors.Wrap(err, errStop)
}

// KubeconfigFor writes a kubeconfig that reaches this control plane as a
// cluster administrator, for processes outside the test (kubectl, a provider).
func (c *ControlPlane) KubeconfigFor(user string) ([]byte, error) {
	u, err := c.env.ControlPlane.AddUser(envtest.User{Name: user, Groups: []string{"system:masters"}}, nil)
	if err != nil {
		return nil, errors.Wrap(err, errAddUser)
	}
	kc, err := u.KubeConfig()
	return kc, errors.Wrap(err, errKubeconfig)
}

// UserConfig returns a client configuration that reaches this control plane
// as user, in groups: with no groups, the user may do only what RBAC grants
// it, which is how a test plays an identity with limited rights.
func (c *ControlPlane) UserConfig(user string, groups ...string) (*rest.Config, error) {
	u, err := c.env.ControlPlane.AddUser(envtest.User{Name: user, Groups: groups}, nil)
	if err != nil {
		return nil, errors.Wrap(err, errAddUser)
	}
	cfg := u.Config()
	cfg.QPS, cfg.Burst = c.Config.QPS, c.Config.Burst
	return cfg, nil
}

// defaultScheme is client-go's scheme plus provider-git's APIs.
func defaultScheme() (*kruntime.Scheme, error) {
	s := kruntime.NewScheme()
	if err := corev1.AddToScheme(s); err != nil {
		return nil, errors.Wrap(err, errScheme)
	}
	if err := apis.AddToScheme(s); err != nil {
		return nil, errors.Wrap(err, errScheme)
	}
	return s, nil
}

// ModuleRoot returns the directory holding go.mod, found by walking up from
// the working directory (go test runs each package in its own folder).
func ModuleRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", errors.Wrap(err, errNoModuleRoot)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New(errNoModuleRoot)
		}
		dir = parent
	}
}

// binaryAssets finds kube-apiserver and etcd: KUBEBUILDER_ASSETS when make set
// it, else the setup-envtest store under ./bin, so that 'go test' in one
// package works once 'make setup-envtest' has run.
func binaryAssets(root string) (string, error) {
	candidates := []string{
		os.Getenv("KUBEBUILDER_ASSETS"),
		filepath.Join(root, "bin", "k8s", fmt.Sprintf("%s-%s-%s", envtestK8sVersion, runtime.GOOS, runtime.GOARCH)),
	}
	for _, dir := range candidates {
		if dir == "" {
			continue
		}
		if !filepath.IsAbs(dir) {
			// go test runs each package in its own folder: a relative path
			// means relative to the module root, where make runs.
			dir = filepath.Join(root, dir)
		}
		if _, err := os.Stat(filepath.Join(dir, "kube-apiserver")); err == nil {
			return dir, nil
		}
	}
	return "", errors.New(errNoBinaries)
}
