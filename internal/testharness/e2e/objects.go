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

package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/util/retry"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/crossplane-contrib/provider-git/apis/v1alpha1"
	"github.com/crossplane-contrib/provider-git/internal/manifest"
)

// SetContent changes fl's spec.forProvider.content.
func SetContent(t *testing.T, fl *v1alpha1.File, content string) {
	t.Helper()
	err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		if err := CP.Client.Get(context.Background(), client.ObjectKeyFromObject(fl), fl); err != nil {
			return err
		}
		fl.Spec.ForProvider.Content = ptr.To(content)
		return CP.Client.Update(context.Background(), fl)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// ReleaseMessage is the message of the release CommitRequests make.
const ReleaseMessage = "Release 1.2\n\nBumps the app and retires the seed README."

// NewCommitRequest is a CommitRequest of files on the fixture's main.
func NewCommitRequest(f *Fixture, name, message string, files ...v1alpha1.CommitFile) *v1alpha1.CommitRequest {
	cr := &v1alpha1.CommitRequest{
		ObjectMeta: metav1.ObjectMeta{Namespace: f.Namespace, Name: name},
		Spec: v1alpha1.CommitRequestSpec{ForProvider: v1alpha1.CommitRequestParameters{
			Branch: "main", Message: message, Files: files,
		}},
	}
	cr.Spec.ProviderConfigReference = PCRef()
	return cr
}

// ReleaseFiles write a file, an object and delete the seed README.
func ReleaseFiles() []v1alpha1.CommitFile {
	return []v1alpha1.CommitFile{
		{Path: "VERSION", Content: ptr.To("1.2\n")},
		{Path: "apps/cm.yaml", Object: &runtime.RawExtension{Raw: []byte(
			`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"app","uid":"x"},"data":{"v":"1.2"}}`)}},
		{Path: "README.md", Delete: true},
	}
}

// ReleaseTree is what main holds once ReleaseFiles landed, the seed gone.
var ReleaseTree = map[string]string{
	"VERSION":      "1.2\n",
	"apps/cm.yaml": "apiVersion: v1\ndata:\n  v: \"1.2\"\nkind: ConfigMap\nmetadata:\n  name: app\n",
}

// NewFile is a File of content at path on the fixture's main, with
// policies when given (else the default, every action).
func NewFile(f *Fixture, name, path, content string, policies ...xpv2.ManagementAction) *v1alpha1.File {
	fl := &v1alpha1.File{
		ObjectMeta: metav1.ObjectMeta{Namespace: f.Namespace, Name: name},
		Spec: v1alpha1.FileSpec{ForProvider: v1alpha1.FileParameters{
			Branch: "main", Path: path, Content: ptr.To(content),
		}},
	}
	fl.Spec.ProviderConfigReference = PCRef()
	if len(policies) > 0 {
		fl.Spec.ManagementPolicies = policies
	}
	return fl
}

// NewBranch is a Branch name creating branch from from (the default
// branch when empty) through the fixture's ProviderConfig, with policies
// when given (else the default, every action).
func NewBranch(f *Fixture, name, branch, from string, policies ...xpv2.ManagementAction) *v1alpha1.Branch {
	b := &v1alpha1.Branch{
		ObjectMeta: metav1.ObjectMeta{Namespace: f.Namespace, Name: name},
		Spec:       v1alpha1.BranchSpec{ForProvider: v1alpha1.BranchParameters{Branch: branch, From: from}},
	}
	b.Spec.ProviderConfigReference = PCRef()
	if len(policies) > 0 {
		b.Spec.ManagementPolicies = policies
	}
	return b
}

// SetSecretData replaces the data of Secret ns/name.
func SetSecretData(t *testing.T, ns, name string, data map[string][]byte) {
	t.Helper()
	s := &corev1.Secret{}
	err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		if err := CP.Client.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: name}, s); err != nil {
			return err
		}
		s.Data = data
		return CP.Client.Update(context.Background(), s)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// Create creates o on the control plane or fails the test.
func Create(t testing.TB, o client.Object) {
	t.Helper()
	if err := CP.Client.Create(context.Background(), o); err != nil {
		t.Fatal(err)
	}
}

// MirrorFolder is the folder NewMirror mirrors into.
const MirrorFolder = "live"

// NewMirror is a Mirror of p into MirrorFolder of main (unless p names
// them) through the configuration ref.
func NewMirror(ns, name string, p v1alpha1.MirrorParameters, ref *xpv2.ProviderConfigReference) *v1alpha1.Mirror {
	if p.Branch == "" {
		p.Branch = "main"
	}
	if p.Path == "" {
		p.Path = MirrorFolder
	}
	m := &v1alpha1.Mirror{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}, Spec: v1alpha1.MirrorSpec{ForProvider: p}}
	m.Spec.ProviderConfigReference = ref
	return m
}

// ConfigMap is a ConfigMap with labels and data.
func ConfigMap(ns, name string, labels map[string]string, data map[string]string) *corev1.ConfigMap {
	return &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, Labels: labels}, Data: data}
}

// Rendered is the file a live object becomes: internal/manifest's rendering
// of what the API server holds now.
func Rendered(t *testing.T, obj client.Object) string {
	t.Helper()
	if err := CP.Client.Get(context.Background(), client.ObjectKeyFromObject(obj), obj); err != nil {
		t.Fatal(err)
	}
	gvk, err := CP.Client.GroupVersionKindFor(obj)
	if err != nil {
		t.Fatal(err)
	}
	obj.GetObjectKind().SetGroupVersionKind(gvk)
	j, err := json.Marshal(obj)
	if err != nil {
		t.Fatal(err)
	}
	out, err := manifest.Render(j)
	if err != nil {
		t.Fatal(err)
	}
	return string(out)
}

// ObjPath is where a Mirror writes an object, under MirrorFolder.
func ObjPath(ns, group, kind, name string) string {
	return fmt.Sprintf("%s/%s/%s/%s/%s.yaml", MirrorFolder, ns, group, kind, name)
}

// SetWindow sets the fixture's ProviderConfig commit window.
func SetWindow(t *testing.T, f *Fixture, d time.Duration) {
	t.Helper()
	err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		pc := &v1alpha1.ProviderConfig{}
		if err := CP.Client.Get(context.Background(), client.ObjectKey{Namespace: f.Namespace, Name: "git"}, pc); err != nil {
			return err
		}
		pc.Spec.Commit.Window = &metav1.Duration{Duration: d}
		return CP.Client.Update(context.Background(), pc)
	})
	if err != nil {
		t.Fatal(err)
	}
}
