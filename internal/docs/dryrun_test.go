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

package docs

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	corev1 "k8s.io/api/core/v1"
	kerrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/crossplane-contrib/provider-git/internal/testharness/testenv"
)

// docObject is one object the docs or examples show, and where.
type docObject struct {
	src yamlSource
	obj *unstructured.Unstructured
}

func (o docObject) String() string {
	return o.src.String() + ": " + o.obj.GetKind() + " " + o.obj.GetName()
}

// TestDocObjectsAreValid creates every object of every ```yaml block of
// README.md and docs/, and of every file of examples/, on a real API
// server serving the provider's CRDs and Crossplane's, as a server-side
// dry run with strict field validation: a field the schema does not have,
// a value it refuses (a pattern, an enum, a CEL rule) or a kind it does
// not serve fails here rather than for a reader who copies it. Kinds no
// API server the test can start serves are in skipKinds, each with why;
// blocks that are part of an object start with fragmentMark and are only
// parsed. The namespaces the objects name are created first.
func TestDocObjectsAreValid(t *testing.T) {
	testenv.Integration(t)
	objs := docObjects(t)
	cp := startDocsControlPlane(t)
	ctx := context.Background()

	// Cluster-scoped objects first: a Namespace the docs show is checked
	// before the test creates the namespaces the other objects name.
	var namespaced []docObject
	tried := 0
	for _, o := range objs {
		isNamespaced, err := cp.Client.IsObjectNamespaced(o.obj)
		if err != nil {
			t.Errorf("%s: the test control plane does not serve %s (add it to skipKinds with why, or install its CRD): %v",
				o, o.obj.GetAPIVersion(), err)
			continue
		}
		if isNamespaced {
			if o.obj.GetNamespace() == "" {
				o.obj.SetNamespace(metav1.NamespaceDefault) // as kubectl apply does
			}
			namespaced = append(namespaced, o)
			continue
		}
		tried++
		dryRun(ctx, t, cp.Client, o)
	}
	for _, ns := range namespaces(namespaced) {
		n := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}
		if err := cp.Client.Create(ctx, n); err != nil && !kerrors.IsAlreadyExists(err) {
			t.Fatalf("cannot create namespace %s: %v", ns, err)
		}
	}
	for _, o := range namespaced {
		tried++
		dryRun(ctx, t, cp.Client, o)
	}
	// A walk or parse that lost most of the blocks would pass on nothing.
	if tried < 40 {
		t.Errorf("dry-ran %d objects: the walk of the docs and examples is broken", tried)
	}
}

func dryRun(ctx context.Context, t *testing.T, c client.Client, o docObject) {
	t.Helper()
	// A copy: the dry run writes the server's answer back into the object.
	if err := c.Create(ctx, o.obj.DeepCopy(), client.DryRunAll, client.FieldValidation(metav1.FieldValidationStrict)); err != nil {
		t.Errorf("%s: %v", o, err)
	}
}

// docObjects returns the objects of every block and example to dry-run:
// all but those of skipKinds and the composite resources of an XRD shown.
func docObjects(t *testing.T) []docObject {
	t.Helper()
	var all []docObject
	for _, s := range docSources(t) {
		objs, err := objects(s)
		if err != nil {
			t.Errorf("%s: %v", s, err)
			continue
		}
		for _, o := range objs {
			all = append(all, docObject{src: s, obj: o})
		}
	}
	xrs := compositeKinds(all)
	var out []docObject
	for _, o := range all {
		why, skip := skipKinds[o.obj.GetAPIVersion()+" "+o.obj.GetKind()]
		if xrs[o.obj.GroupVersionKind().GroupKind().String()] {
			why, skip = skipXR, true
		}
		if skip {
			t.Logf("%s: not dry-run: %s", o, why)
			continue
		}
		out = append(out, o)
	}
	return out
}

// compositeKinds returns the group kinds (Kind.group) of the composite
// resources the XRDs among objs define (skipXR says why they are skipped).
func compositeKinds(objs []docObject) map[string]bool {
	out := map[string]bool{}
	for _, o := range objs {
		if o.obj.GetKind() != "CompositeResourceDefinition" {
			continue
		}
		group, _, _ := unstructured.NestedString(o.obj.Object, "spec", "group")
		kind, _, _ := unstructured.NestedString(o.obj.Object, "spec", "names", "kind")
		out[kind+"."+group] = true
	}
	return out
}

// namespaces returns the namespaces objs are in, each once.
func namespaces(objs []docObject) []string {
	seen := map[string]bool{}
	var out []string
	for _, o := range objs {
		if ns := o.obj.GetNamespace(); !seen[ns] {
			seen[ns] = true
			out = append(out, ns)
		}
	}
	return out
}

// startDocsControlPlane starts an API server serving the provider's CRDs
// and Crossplane's (built into ./bin by make test-tools, as
// internal/testharness/crossplanetest uses them).
func startDocsControlPlane(t *testing.T) *testenv.ControlPlane {
	t.Helper()
	xp := filepath.Join(root, "bin", "crossplane-crds")
	if _, err := os.Stat(xp); err != nil {
		msg := xp + " not found: run 'make crossplane-tools' (make test does)"
		if os.Getenv("CI") != "" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	crds, err := filepath.Abs(filepath.Join(root, "package", "crds"))
	if err != nil {
		t.Fatal(err)
	}
	xp, err = filepath.Abs(xp)
	if err != nil {
		t.Fatal(err)
	}
	cp, err := testenv.StartControlPlane(testenv.ControlPlaneOptions{CRDDirectoryPaths: []string{crds, xp}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := cp.Stop(); err != nil {
			t.Error(err)
		}
	})
	return cp
}
