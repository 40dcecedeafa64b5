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
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	kerrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	kruntime "k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/crossplane-contrib/provider-git/apis"
	"github.com/crossplane-contrib/provider-git/internal/testharness/testenv"
)

const (
	// systemNamespace is where Crossplane runs and unpacks packages.
	systemNamespace = "crossplane-system"
	// caSecret and clientSecret are what `crossplane core init` creates.
	caSecret     = "crossplane-root-ca"
	clientSecret = "crossplane-tls-client"
	// apiTimeout bounds one API request of the test itself.
	apiTimeout = 30 * time.Second
)

// crossplane is Crossplane core and its RBAC manager, run as local processes
// against a real kube-apiserver, as its Helm chart would run them in a
// cluster: `core init`, then `core start` and `rbac start`. Without a kubelet
// no package runtime can start pods, so core runs with the External package
// runtime and the test does the runtime's part (see serveRevision).
type crossplane struct {
	tl         tools
	kube       client.Client
	cp         *testenv.ControlPlane
	kubeconfig string
	ca         *pki
	core       *process
}

// startCrossplane starts a control plane with Crossplane's CRDs (and no
// provider-git CRD: the package brings them), initialises Crossplane and
// starts core and the RBAC manager.
func startCrossplane(t testing.TB, tl tools) *crossplane {
	t.Helper()
	s := kruntime.NewScheme()
	for _, add := range []func(*kruntime.Scheme) error{clientgoscheme.AddToScheme, apiextensionsv1.AddToScheme, apis.AddToScheme} {
		if err := add(s); err != nil {
			t.Fatal(err)
		}
	}
	cp, err := testenv.StartControlPlane(testenv.ControlPlaneOptions{CRDDirectoryPaths: []string{tl.coreCRDs}, Scheme: s})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cp.Stop() })
	kc, err := cp.KubeconfigFor("crossplane")
	if err != nil {
		t.Fatal(err)
	}
	x := &crossplane{tl: tl, kube: cp.Client, cp: cp, kubeconfig: filepath.Join(t.TempDir(), "kubeconfig")}
	if err := os.WriteFile(x.kubeconfig, kc, 0o600); err != nil {
		t.Fatal(err)
	}
	x.create(t, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: systemNamespace}})

	env := []string{"KUBECONFIG=" + x.kubeconfig, "POD_NAMESPACE=" + systemNamespace}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	_, stderr, err := run(ctx, tl.core, env, "core", "init", "--enable-webhooks=false",
		"--cr-ds-path="+tl.coreCRDs, "--tlsca-secret-name="+caSecret, "--tls-client-secret-name="+clientSecret)
	if err != nil {
		t.Fatalf("crossplane core init: %v\n%s", err, stderr)
	}

	// The Secrets init wrote, as the Helm chart mounts them into core's pod.
	ca := x.secret(t, systemNamespace, caSecret)
	x.ca = pkiFrom(t, ca.Data["tls.crt"], ca.Data["tls.key"])
	clientCerts := writeTLSDir(t, x.secret(t, systemNamespace, clientSecret).Data)

	probe := freePort(t)
	x.core = start(t, "crossplane-core", tl.core, env, "core", "start", "--debug",
		"--enable-webhooks=false", "--package-runtime=External",
		// A File is not Ready while its update is being pushed (Committing),
		// and an XR reads its composed resources' readiness again only at
		// its next poll: 10s instead of the default 1m keeps the test's
		// XR-Ready waits well inside their minute.
		"--poll-interval=10s",
		"--tls-client-certs-dir="+clientCerts,
		"--xpkg-cache-dir="+t.TempDir(), "--xfn-cache-dir="+t.TempDir(),
		"--metrics-port="+strconv.Itoa(freePort(t)), "--health-probe-port="+strconv.Itoa(probe),
		"--webhook-port="+strconv.Itoa(freePort(t)))
	// The RBAC manager has no flag for its metrics address and binds :8080.
	rbac := start(t, "crossplane-rbac-manager", tl.core, env, "rbac", "start", "--debug")
	// Kubernetes deletes what a deleted XR composed (owner references).
	gc := start(t, "garbage-collector", tl.garbageCollector, nil, "--kubeconfig="+x.kubeconfig)
	testenv.Eventually(t, 2*time.Minute, func() error {
		for _, p := range []*process{x.core, rbac, gc} {
			if err := p.exited(); err != nil {
				return err
			}
		}
		return httpOK("http://127.0.0.1:" + strconv.Itoa(probe) + "/readyz")
	})
	return x
}

// serveRevision does, for a package revision (ProviderRevision or
// FunctionRevision), what Crossplane's Deployment runtime does besides
// starting pods: it writes the package's TLS Secrets, signed by Crossplane's
// CA and named as that runtime names them, and records them and the
// function's endpoint in the revision's status. Core establishes the
// revision's objects only once that is done.
func (x *crossplane) serveRevision(t testing.TB, rev *unstructured.Unstructured, endpoint string) {
	t.Helper()
	pkg := rev.GetLabels()["pkg.crossplane.io/package"]
	status := map[string]any{}
	for field, suffix := range map[string]string{"tlsServerSecretName": "-tls-server", "tlsClientSecretName": "-tls-client"} {
		name := pkg + suffix
		x.apply(t, &corev1.Secret{
			ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: systemNamespace},
			Data:       x.ca.tlsData(t, rev.GetName()),
		})
		status[field] = name
	}
	if endpoint != "" {
		status["endpoint"] = endpoint
	}
	x.patchStatus(t, rev, map[string]any{"status": status})
}

// revisionOf waits for the active revision of a package and returns it.
func (x *crossplane) revisionOf(t testing.TB, kind, pkg string) *unstructured.Unstructured {
	t.Helper()
	var rev *unstructured.Unstructured
	testenv.Eventually(t, 2*time.Minute, func() error {
		if err := x.core.exited(); err != nil {
			return err
		}
		l := &unstructured.UnstructuredList{}
		l.SetAPIVersion("pkg.crossplane.io/v1")
		l.SetKind(kind + "List")
		ctx, cancel := context.WithTimeout(context.Background(), apiTimeout)
		defer cancel()
		if err := x.kube.List(ctx, l, client.MatchingLabels{"pkg.crossplane.io/package": pkg}); err != nil {
			return err
		}
		for i := range l.Items {
			if state, _, _ := unstructured.NestedString(l.Items[i].Object, "spec", "desiredState"); state == "Active" {
				rev = &l.Items[i]
				return nil
			}
		}
		return fmt.Errorf("no active %s of %s yet (%d revisions)", kind, pkg, len(l.Items))
	})
	return rev
}

// create creates obj, which must not exist.
func (x *crossplane) create(t testing.TB, obj client.Object) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), apiTimeout)
	defer cancel()
	if err := x.kube.Create(ctx, obj); err != nil {
		t.Fatalf("create %T %s: %v", obj, obj.GetName(), err)
	}
}

// apply creates obj, or updates it when it exists.
func (x *crossplane) apply(t testing.TB, obj client.Object) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), apiTimeout)
	defer cancel()
	err := x.kube.Create(ctx, obj)
	if kerrors.IsAlreadyExists(err) {
		existing, _ := obj.DeepCopyObject().(client.Object)
		if err = x.kube.Get(ctx, client.ObjectKeyFromObject(obj), existing); err == nil {
			obj.SetResourceVersion(existing.GetResourceVersion())
			err = x.kube.Update(ctx, obj)
		}
	}
	if err != nil {
		t.Fatalf("apply %T %s: %v", obj, obj.GetName(), err)
	}
}

// patchStatus merge-patches the status subresource of obj.
func (x *crossplane) patchStatus(t testing.TB, obj *unstructured.Unstructured, patch map[string]any) {
	t.Helper()
	data, err := json.Marshal(patch)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), apiTimeout)
	defer cancel()
	if err := x.kube.Status().Patch(ctx, obj, client.RawPatch(types.MergePatchType, data)); err != nil {
		t.Fatalf("patch status of %s %s: %v", obj.GetKind(), obj.GetName(), err)
	}
}

// setCondition sets one condition in the status of obj, keeping the others.
func (x *crossplane) setCondition(t testing.TB, obj *unstructured.Unstructured, cond map[string]any) {
	t.Helper()
	testenv.Eventually(t, time.Minute, func() error {
		u, err := x.get(obj.GetAPIVersion(), obj.GetKind(), obj.GetNamespace(), obj.GetName())
		if err != nil {
			return err
		}
		conds, _, _ := unstructured.NestedSlice(u.Object, "status", "conditions")
		kept := []any{cond}
		for _, c := range conds {
			if m, ok := c.(map[string]any); ok && m["type"] != cond["type"] {
				kept = append(kept, c)
			}
		}
		if err := unstructured.SetNestedSlice(u.Object, kept, "status", "conditions"); err != nil {
			return err
		}
		ctx, cancel := context.WithTimeout(context.Background(), apiTimeout)
		defer cancel()
		// A conflict means core wrote the status meanwhile: read it again.
		return x.kube.Status().Update(ctx, u)
	})
}

// tryMergePatch merge-patches an object and returns the API server's answer.
func (x *crossplane) tryMergePatch(apiVersion, kind, namespace, name string, patch map[string]any) error {
	data, err := json.Marshal(patch)
	if err != nil {
		return err
	}
	u := &unstructured.Unstructured{}
	u.SetAPIVersion(apiVersion)
	u.SetKind(kind)
	u.SetNamespace(namespace)
	u.SetName(name)
	ctx, cancel := context.WithTimeout(context.Background(), apiTimeout)
	defer cancel()
	return x.kube.Patch(ctx, u, client.RawPatch(types.MergePatchType, data))
}

// jsonPatch applies a JSON patch to obj, which must succeed.
func (x *crossplane) jsonPatch(t testing.TB, obj *unstructured.Unstructured, patch string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), apiTimeout)
	defer cancel()
	if err := x.kube.Patch(ctx, obj.DeepCopy(), client.RawPatch(types.JSONPatchType, []byte(patch))); err != nil {
		t.Fatalf("patch %s %s: %v", obj.GetKind(), obj.GetName(), err)
	}
}

// mergePatch merge-patches an object, which must succeed.
func (x *crossplane) mergePatch(t testing.TB, apiVersion, kind, namespace, name string, patch map[string]any) {
	t.Helper()
	if err := x.tryMergePatch(apiVersion, kind, namespace, name, patch); err != nil {
		t.Fatalf("patch %s %s/%s: %v", kind, namespace, name, err)
	}
}

// warningOn returns nil when a Warning event on obj says all of want.
func (x *crossplane) warningOn(obj *unstructured.Unstructured, want ...string) error {
	l := &corev1.EventList{}
	ctx, cancel := context.WithTimeout(context.Background(), apiTimeout)
	defer cancel()
	if err := x.kube.List(ctx, l, client.InNamespace(obj.GetNamespace())); err != nil {
		return err
	}
	var seen []string
	for _, e := range l.Items {
		if e.InvolvedObject.UID != obj.GetUID() || e.Type != corev1.EventTypeWarning {
			continue
		}
		seen = append(seen, e.Message)
		ok := true
		for _, w := range want {
			ok = ok && strings.Contains(e.Message, w)
		}
		if ok {
			return nil
		}
	}
	return fmt.Errorf("no Warning event on %s %s says %q; it has %q", obj.GetKind(), obj.GetName(), want, seen)
}

// secret reads a Secret.
func (x *crossplane) secret(t testing.TB, namespace, name string) *corev1.Secret {
	t.Helper()
	s := &corev1.Secret{}
	ctx, cancel := context.WithTimeout(context.Background(), apiTimeout)
	defer cancel()
	if err := x.kube.Get(ctx, types.NamespacedName{Namespace: namespace, Name: name}, s); err != nil {
		t.Fatalf("get Secret %s/%s: %v", namespace, name, err)
	}
	return s
}

// get reads an object of the given kind into a new Unstructured.
func (x *crossplane) get(apiVersion, kind, namespace, name string) (*unstructured.Unstructured, error) {
	u := &unstructured.Unstructured{}
	u.SetAPIVersion(apiVersion)
	u.SetKind(kind)
	ctx, cancel := context.WithTimeout(context.Background(), apiTimeout)
	defer cancel()
	err := x.kube.Get(ctx, types.NamespacedName{Namespace: namespace, Name: name}, u)
	return u, err
}

// condition returns the status, reason and message of a condition of u.
func condition(u *unstructured.Unstructured, typ string) (string, string, string) {
	conds, _, _ := unstructured.NestedSlice(u.Object, "status", "conditions")
	for _, c := range conds {
		m, ok := c.(map[string]any)
		if !ok || m["type"] != typ {
			continue
		}
		s, _ := m["status"].(string)
		r, _ := m["reason"].(string)
		msg, _ := m["message"].(string)
		return s, r, msg
	}
	return "", "", ""
}

// conditionTrue is a check for eventually: obj's condition typ is True.
func (x *crossplane) conditionTrue(apiVersion, kind, namespace, name, typ string) func() error {
	return func() error {
		if err := x.core.exited(); err != nil {
			return err
		}
		u, err := x.get(apiVersion, kind, namespace, name)
		if err != nil {
			return err
		}
		if s, r, m := condition(u, typ); s != string(corev1.ConditionTrue) {
			return fmt.Errorf("%s %s: %s=%q (%s: %s)", kind, name, typ, s, r, m)
		}
		return nil
	}
}

// clusterRoleBinding binds a ClusterRole to a ServiceAccount.
func clusterRoleBinding(name, role, namespace, serviceAccount string) *rbacv1.ClusterRoleBinding {
	return &rbacv1.ClusterRoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: role},
		Subjects:   []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Namespace: namespace, Name: serviceAccount}},
	}
}

// httpOK is a check for eventually: url answers 200.
func httpOK(url string) error {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("%s: %s", url, resp.Status)
	}
	return nil
}
