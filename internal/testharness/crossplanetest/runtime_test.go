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

package crossplanetest_test

import (
	"archive/tar"
	"context"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/crossplane-contrib/provider-git/internal/testharness/testenv"
)

// runtimeUID is the user and group Crossplane's Deployment runtime runs
// provider containers as, whatever the image says.
const runtimeUID = 2000

// serviceAccountDir is where a pod finds its ServiceAccount token.
const serviceAccountDir = "/var/run/secrets/kubernetes.io/serviceaccount"

// runProvider runs the provider from the runtime image embedded in xpkg, as
// Crossplane's Deployment runtime would run its pod:
//
//   - as a ServiceAccount named after the revision, bound to the ClusterRole
//     the RBAC manager made for the revision and to nothing else. With the
//     External runtime no Deployment exists for the RBAC manager to bind, so
//     the test makes the binding it would make;
//   - as root, in a chroot of the image's file system as uid/gid 2000, with
//     the ServiceAccount's token where in-cluster configuration reads it, and
//     the image's entrypoint and environment: a binary that is not static, a
//     missing CA bundle or a cache directory uid 2000 cannot write shows up
//     here. Without root (a developer machine) the binary runs from the
//     extracted file system as the current user, with a kubeconfig holding
//     the same token.
//
// extraArgs are the container arguments a DeploymentRuntimeConfig would add.
// It returns the process, the base URL of its health probes and the root of
// its file system.
func (x *crossplane) runProvider(t testing.TB, xpkg string, rev *unstructured.Unstructured, extraArgs ...string) (*process, string, string) {
	t.Helper()
	sa := rev.GetName()
	x.apply(t, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: sa, Namespace: systemNamespace}})
	role := "crossplane:provider:" + rev.GetName() + ":system"
	testenv.Eventually(t, time.Minute, func() error {
		cr := &rbacv1.ClusterRole{}
		ctx, cancel := context.WithTimeout(context.Background(), apiTimeout)
		defer cancel()
		return x.kube.Get(ctx, client.ObjectKey{Name: role}, cr)
	})
	x.apply(t, clusterRoleBinding(role+":e2e", role, systemNamespace, sa))
	token := x.token(t, sa)

	img, err := tarball.ImageFromPath(xpkg, nil)
	if err != nil {
		t.Fatal(err)
	}
	cf, err := img.ConfigFile()
	if err != nil {
		t.Fatal(err)
	}
	rootfs := filepath.Join(t.TempDir(), "rootfs")
	rc := mutate.Extract(img)
	defer rc.Close()
	if err := extract(rootfs, rc); err != nil {
		t.Fatalf("extract the runtime image: %v", err)
	}
	// The image's root directory, as a container sees it.
	if err := os.Chmod(rootfs, 0o755); err != nil {
		t.Fatal(err)
	}

	probe := strconv.Itoa(freePort(t))
	args := append(append(append([]string(nil), cf.Config.Entrypoint[1:]...), cf.Config.Cmd...),
		"--health-probe-bind-address=127.0.0.1:"+probe, "--metrics-bind-address=127.0.0.1:0")
	args = append(args, extraArgs...)
	env := append([]string{
		"POD_NAMESPACE=" + systemNamespace,
		"PROVIDER_NAME=" + rev.GetLabels()["pkg.crossplane.io/package"],
		"REVISION_NAME=" + rev.GetName(),
		"REVISION_UID=" + string(rev.GetUID()),
	}, cf.Config.Env...)
	host, err := url.Parse(x.cp.Config.Host)
	if err != nil {
		t.Fatal(err)
	}

	var cmd *exec.Cmd
	if os.Geteuid() == 0 {
		writeFiles(t, filepath.Join(rootfs, serviceAccountDir), map[string][]byte{
			"token": []byte(token), "ca.crt": x.cp.Config.CAData, "namespace": []byte(systemNamespace),
		})
		cmd = exec.Command(cf.Config.Entrypoint[0], args...)                                                      // Stopped in cleanup, not by a context.
		cmd.Env = append(env, "KUBERNETES_SERVICE_HOST="+host.Hostname(), "KUBERNETES_SERVICE_PORT="+host.Port()) //nolint:gocritic // env stays the common part.
		cmd.Dir = "/"
		cmd.SysProcAttr = &syscall.SysProcAttr{
			Chroot:     rootfs,
			Credential: &syscall.Credential{Uid: runtimeUID, Gid: runtimeUID},
		}
	} else {
		t.Log("not root: running the image's binary as this user, without a chroot")
		kc := filepath.Join(t.TempDir(), "kubeconfig")
		x.writeTokenKubeconfig(t, kc, token)
		cmd = exec.Command(filepath.Join(rootfs, cf.Config.Entrypoint[0]), args...)     // As above.
		cmd.Env = append(env, "KUBECONFIG="+kc, "TMPDIR="+filepath.Join(rootfs, "tmp")) //nolint:gocritic // As above.
	}
	p := startCmd(t, "provider-git", cmd)
	return p, "http://127.0.0.1:" + probe, rootfs
}

// token requests a token for a ServiceAccount, as the kubelet does for a
// pod's projected token.
func (x *crossplane) token(t testing.TB, sa string) string {
	t.Helper()
	cs, err := kubernetes.NewForConfig(x.cp.Config)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), apiTimeout)
	defer cancel()
	expiry := int64(2 * time.Hour / time.Second)
	tr, err := cs.CoreV1().ServiceAccounts(systemNamespace).CreateToken(ctx, sa,
		&authenticationv1.TokenRequest{Spec: authenticationv1.TokenRequestSpec{ExpirationSeconds: &expiry}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("request a token for ServiceAccount %s: %v", sa, err)
	}
	return tr.Status.Token
}

// writeTokenKubeconfig writes a kubeconfig that reaches the API server with
// a bearer token.
func (x *crossplane) writeTokenKubeconfig(t testing.TB, path, token string) {
	t.Helper()
	cfg := clientcmdapi.NewConfig()
	cfg.Clusters["envtest"] = &clientcmdapi.Cluster{Server: x.cp.Config.Host, CertificateAuthorityData: x.cp.Config.CAData}
	cfg.AuthInfos["provider"] = &clientcmdapi.AuthInfo{Token: token}
	cfg.Contexts["provider"] = &clientcmdapi.Context{Cluster: "envtest", AuthInfo: "provider"}
	cfg.CurrentContext = "provider"
	if err := clientcmd.WriteToFile(*cfg, path); err != nil {
		t.Fatal(err)
	}
}

// extract unpacks a flattened image file system into dir, keeping modes
// exactly (no umask), as a container runtime does.
func extract(dir string, r io.Reader) error {
	tr := tar.NewReader(r)
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		p := filepath.Join(dir, filepath.Clean("/"+h.Name))
		if !strings.HasPrefix(p, dir+string(filepath.Separator)) {
			return fmt.Errorf("%s escapes the file system", h.Name)
		}
		mode := os.FileMode(h.Mode).Perm()
		if h.Mode&0o1000 != 0 {
			mode |= os.ModeSticky
		}
		switch h.Typeflag {
		case tar.TypeDir:
			if err := os.MkdirAll(p, 0o750); err != nil {
				return err
			}
		case tar.TypeReg:
			if err := os.MkdirAll(filepath.Dir(p), 0o750); err != nil {
				return err
			}
			f, err := os.OpenFile(p, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o600)
			if err != nil {
				return err
			}
			if _, err := io.Copy(f, tr); err != nil {
				_ = f.Close()
				return err
			}
			if err := f.Close(); err != nil {
				return err
			}
		default:
			continue
		}
		if err := os.Chmod(p, mode); err != nil {
			return err
		}
	}
}

// writeFiles writes files readable by everyone into dir, as a projected
// volume is.
func writeFiles(t testing.TB, dir string, files map[string][]byte) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for name, data := range files {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
