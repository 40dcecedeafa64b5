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
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/crossplane-contrib/provider-git/internal/testharness/testenv"
)

// The kinds the package brings: configurations as CRDs, managed resources as
// ManagedResourceDefinitions that an activation policy must activate.
var (
	configCRDs = []string{
		"providerconfigs.git.m.crossplane.io",
		"clusterproviderconfigs.git.m.crossplane.io",
		"providerconfigusages.git.m.crossplane.io",
	}
	managedMRDs = []string{
		"branches.git.m.crossplane.io",
		"files.git.m.crossplane.io",
		"commitrequests.git.m.crossplane.io",
		"pullrequests.git.m.crossplane.io",
	}
)

// providerPoll is the provider's --poll here: how soon it sees what
// happened on the forge or in Git without it (a reviewer's merge).
const providerPoll = 10 * time.Second

// TestProviderInCrossplane installs the package into real Crossplane core
// from an in-process registry, runs the provider from the package's runtime
// image with the permissions Crossplane grants it, and drives the example
// Compositions end to end: the AppEnvironment against a Git server, the
// EnvironmentRequest against a real Gitea and a reviewer there.
func TestProviderInCrossplane(t *testing.T) {
	tl := requireTools(t)
	requireFile(t, tl.garbageCollector)
	xpkgs := requireXpkgs(t, tl.root)
	testenv.RequireSSHD(t)
	x := startCrossplane(t, tl)
	reg := startRegistry(t)

	// Not subtests: the provider and the function must outlive them.
	provider, rootfs := installProvider(t, x, reg, xpkgs, providerPoll)
	serveFunction(t, x, reg)
	t.Run("Composition", func(t *testing.T) {
		testComposition(t, x, provider)
	})
	t.Run("RequestComposition", func(t *testing.T) {
		testRequestComposition(t, x, provider)
	})
	t.Run("CacheWrittenAsTheRuntimeUser", func(t *testing.T) {
		if os.Geteuid() != 0 {
			t.Skip("the provider ran as this user, not in a chroot as uid 2000")
		}
		// The default --cache-dir, $TMPDIR/provider-git with TMPDIR unset.
		fi, err := os.Stat(filepath.Join(rootfs, "tmp", "provider-git"))
		if err != nil {
			t.Fatalf("the provider kept no clone in the image's /tmp: %v", err)
		}
		if st, ok := fi.Sys().(*syscall.Stat_t); !ok || st.Uid != runtimeUID {
			t.Errorf("/tmp/provider-git is not owned by uid %d: %+v", runtimeUID, fi.Sys())
		}
	})
	t.Run("NoPermissionMissing", func(t *testing.T) {
		// The provider ran with what the RBAC manager granted; anything it
		// lacked is in its log as a refusal.
		for _, l := range strings.Split(provider.tail(100000), "\n") {
			if strings.Contains(l, "forbidden") {
				t.Errorf("the provider was refused something it needs: %s", l)
			}
		}
	})
}

// installProvider installs the package as a user does (a Provider object and
// the activation policy from examples/install), does the External runtime's
// part, and returns the running provider, polling every poll, with extra
// arguments.
func installProvider(t testing.TB, x *crossplane, reg string, xpkgs map[string]string, poll time.Duration, extra ...string) (*process, string) {
	t.Helper()
	ref := pushPackages(t, reg+"/crossplane-contrib/provider-git:v0.0.0-e2e", xpkgs)
	p := loadExample(t, x.tl.root, "install/provider.yaml")[0]
	if err := unstructured.SetNestedField(p.Object, ref, "spec", "package"); err != nil {
		t.Fatal(err)
	}
	applied := time.Now()
	x.apply(t, p)

	rev := x.revisionOf(t, "ProviderRevision", p.GetName())
	x.serveRevision(t, rev, "")
	testenv.Eventually(t, 3*time.Minute, x.conditionTrue("pkg.crossplane.io/v1", "ProviderRevision", "", rev.GetName(), "RevisionHealthy"))
	t.Logf("FIGURE Provider applied -> ProviderRevision %s Healthy: %s", rev.GetName(), time.Since(applied).Round(10*time.Millisecond))

	for _, name := range configCRDs {
		testenv.Eventually(t, time.Minute, x.crdEstablished(name))
	}
	// Safe start: the managed resource kinds wait, inactive, for a policy.
	for _, name := range managedMRDs {
		testenv.Eventually(t, time.Minute, x.mrdState(name, "Inactive"))
		if _, err := x.get("apiextensions.k8s.io/v1", "CustomResourceDefinition", "", name); err == nil {
			t.Errorf("the CRD %s exists while its ManagedResourceDefinition is inactive", name)
		}
	}
	for _, o := range loadExample(t, x.tl.root, "install/activationpolicy.yaml") {
		x.apply(t, o)
	}
	for _, name := range managedMRDs {
		testenv.Eventually(t, time.Minute, x.mrdState(name, "Active"))
		testenv.Eventually(t, time.Minute, x.crdEstablished(name))
	}

	// http:// on loopback for Gitea; a poll short enough that a merge made
	// on the forge shows within seconds.
	provider, probe, rootfs := x.runProvider(t, xpkgs["linux/"+runtime.GOARCH], rev,
		append([]string{"--debug", "--allow-insecure-remotes", "--poll=" + poll.String()}, extra...)...)
	testenv.Eventually(t, 2*time.Minute, func() error {
		if err := provider.exited(); err != nil {
			return err
		}
		return httpOK(probe + "/readyz")
	})
	// The runtime reports its workload healthy; the Provider is then Healthy.
	x.setCondition(t, rev, map[string]any{
		"type": "RuntimeHealthy", "status": "True", "reason": "HealthyPackageRevision",
		"lastTransitionTime": time.Now().UTC().Format(time.RFC3339),
	})
	testenv.Eventually(t, time.Minute, x.conditionTrue("pkg.crossplane.io/v1", "Provider", "", p.GetName(), "Healthy"))
	return provider, rootfs
}

// crdEstablished is a check for eventually: the named CRD is Established.
func (x *crossplane) crdEstablished(name string) func() error {
	return func() error {
		crd := &apiextensionsv1.CustomResourceDefinition{}
		ctx, cancel := context.WithTimeout(context.Background(), apiTimeout)
		defer cancel()
		if err := x.kube.Get(ctx, client.ObjectKey{Name: name}, crd); err != nil {
			return err
		}
		for _, c := range crd.Status.Conditions {
			if c.Type == apiextensionsv1.Established && c.Status == apiextensionsv1.ConditionTrue {
				return nil
			}
		}
		return fmt.Errorf("CRD %s is not established", name)
	}
}

// mrdState is a check for eventually: the named ManagedResourceDefinition
// is in state (Active or Inactive).
func (x *crossplane) mrdState(name, state string) func() error {
	return func() error {
		if err := x.core.exited(); err != nil {
			return err
		}
		mrd, err := x.get("apiextensions.crossplane.io/v1alpha1", "ManagedResourceDefinition", "", name)
		if err != nil {
			return err
		}
		if got, _, _ := unstructured.NestedString(mrd.Object, "spec", "state"); got != state {
			return fmt.Errorf("ManagedResourceDefinition %s is %q, want %q", name, got, state)
		}
		return nil
	}
}

// loadExample decodes a file under examples/.
func loadExample(t testing.TB, root, name string) []*unstructured.Unstructured {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(root, "examples", name))
	if err != nil {
		t.Fatal(err)
	}
	return decodeAll(t, data)
}
