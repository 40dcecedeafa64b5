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

package v1alpha1_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"

	corev1 "k8s.io/api/core/v1"
	kerrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/crossplane-contrib/provider-git/internal/testharness/testenv"
)

// TestExamplesAreValid creates every object in examples/ against the real API
// server (server-side dry run), so an example that drifts from the CRDs fails
// here rather than in a user's cluster.
func TestExamplesAreValid(t *testing.T) {
	testenv.Integration(t)
	files, err := filepath.Glob(filepath.Join("..", "..", "examples", "*.yaml"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no examples found: %v", err)
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			dec := utilyaml.NewYAMLOrJSONDecoder(bytes.NewReader(data), 4096)
			for {
				u := &unstructured.Unstructured{}
				if err := dec.Decode(&u.Object); errors.Is(err, io.EOF) {
					break
				} else if err != nil {
					t.Fatalf("decode: %v", err)
				}
				if len(u.Object) == 0 {
					continue
				}
				if u.GetKind() == "Composition" {
					// Crossplane's own kinds are not installed here; what
					// must stay valid is each composed resource's base.
					for _, base := range compositionBases(t, u) {
						base.SetName("composed")
						base.SetNamespace("default")
						if err := kube.Create(context.Background(), base, client.DryRunAll); err != nil {
							t.Errorf("composed %s: %v", base.GetKind(), err)
						}
					}
					continue
				}
				if u.GroupVersionKind().Group == "apiextensions.crossplane.io" {
					continue
				}
				if ns := u.GetNamespace(); ns != "" {
					// Dry-run creation still needs the namespace to exist.
					err := kube.Create(context.Background(), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}})
					if err != nil && !kerrors.IsAlreadyExists(err) {
						t.Fatalf("create namespace %s: %v", ns, err)
					}
				}
				if err := kube.Create(context.Background(), u, client.DryRunAll); err != nil {
					t.Errorf("%s %s/%s: %v", u.GetKind(), u.GetNamespace(), u.GetName(), err)
				}
			}
		})
	}
}

// compositionBases returns the base of every resource of every
// function-patch-and-transform step of a Composition.
func compositionBases(t *testing.T, c *unstructured.Unstructured) []*unstructured.Unstructured {
	t.Helper()
	steps, _, err := unstructured.NestedSlice(c.Object, "spec", "pipeline")
	if err != nil {
		t.Fatal(err)
	}
	var bases []*unstructured.Unstructured
	for _, s := range steps {
		resources, _, _ := unstructured.NestedSlice(s.(map[string]any), "input", "resources")
		for _, r := range resources {
			if base, ok, _ := unstructured.NestedMap(r.(map[string]any), "base"); ok {
				bases = append(bases, &unstructured.Unstructured{Object: base})
			}
		}
	}
	if len(bases) == 0 {
		t.Fatal("the Composition composes nothing")
	}
	return bases
}
