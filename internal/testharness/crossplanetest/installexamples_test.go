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
	"os"
	"path/filepath"
	"testing"

	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/crossplane-contrib/provider-git/internal/localenv"
	"github.com/crossplane-contrib/provider-git/internal/testharness/testenv"
)

// TestInstallExamplesAreValid creates every object of examples/install
// (Crossplane's own kinds: a Provider, an activation policy, a
// DeploymentRuntimeConfig) against a real API server that serves
// Crossplane's CRDs, with a server-side dry run: an example that drifts from
// Crossplane's schema fails here, not in a user's cluster. The Provider and
// the policy are also applied for real by TestProviderInCrossplane.
func TestInstallExamplesAreValid(t *testing.T) {
	testenv.Integration(t)
	root, err := localenv.ModuleRoot()
	if err != nil {
		t.Fatal(err)
	}
	crds := filepath.Join(root, "bin", "crossplane-crds")
	requireFile(t, crds)
	s := runtime.NewScheme()
	if err := clientgoscheme.AddToScheme(s); err != nil {
		t.Fatal(err)
	}
	cp, err := testenv.StartControlPlane(testenv.ControlPlaneOptions{CRDDirectoryPaths: []string{crds}, Scheme: s})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cp.Stop() })
	files, err := filepath.Glob(filepath.Join(root, "examples", "install", "*.yaml"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no install examples: %v", err)
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			for _, o := range decodeAll(t, data) {
				if err := cp.Client.Create(context.Background(), o, client.DryRunAll); err != nil {
					t.Errorf("%s %s: %v", o.GetKind(), o.GetName(), err)
				}
			}
		})
	}
}
