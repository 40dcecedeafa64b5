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

package pullrequest

import (
	"context"
	"testing"

	"github.com/crossplane/crossplane-runtime/v2/pkg/test"
	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"
	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/crossplane-contrib/provider-git/apis/v1alpha1"
	"github.com/crossplane-contrib/provider-git/internal/forge"
)

// TestBodyListsTheFilesOnTheHead: a body template sees the Files of the
// same configuration on the head branch, sorted by path, and may range
// over them (and over nothing else).
func TestBodyListsTheFilesOnTheHead(t *testing.T) {
	file := func(name, branch, path, config string) v1alpha1.File {
		f := v1alpha1.File{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: name}}
		f.Spec.ForProvider.Branch, f.Spec.ForProvider.Path = branch, path
		f.SetProviderConfigReference(&xpv2.ProviderConfigReference{Kind: "ProviderConfig", Name: config})
		return f
	}
	kube := &test.MockClient{MockList: func(_ context.Context, l client.ObjectList, _ ...client.ListOption) error {
		l.(*v1alpha1.FileList).Items = []v1alpha1.File{
			file("b", "request/demo", "apps/b.yaml", "git"),
			file("a", "request/demo", "apps/a.yaml", "git"),
			file("main", "main", "apps/main.yaml", "git"),
			file("other", "request/demo", "apps/other.yaml", "other-repo"),
		}
		return nil
	}}
	mg := pullRequest(func(mg *v1alpha1.PullRequest) {
		mg.Spec.ForProvider.Body = "Adds {{len .Files}} files to {{.Base}}:\n{{range .Files}}- {{.Path}} ({{.Name}})\n{{end}}"
	})
	got, err := desired(context.Background(), kube, mg)
	if err != nil {
		t.Fatal(err)
	}
	want := forge.Spec{Head: "request/demo", Base: "main", Title: "Add demo", Labels: []string{"env"},
		Body: "Adds 2 files to main:\n- apps/a.yaml (a)\n- apps/b.yaml (b)"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("desired(...): -want, +got:\n%s", diff)
	}
}
