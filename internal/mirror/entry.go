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

package mirror

import (
	"bytes"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/crossplane-contrib/provider-git/internal/manifest"
	"github.com/crossplane-contrib/provider-git/internal/validate"
)

// Why an object is in the cache but cannot be a file.
const (
	problemPath   = "objects whose name cannot be a path"
	problemRender = "objects that cannot be rendered"
)

// entry is one cached object, rendered once when it arrived.
type entry struct {
	gvk             schema.GroupVersionKind
	namespace, name string
	rv              string
	uid             string
	// prev is the version before the one that last changed content, as
	// the watch delivered them (Object.Prev); "" when not known.
	prev       string
	labels     labels.Set
	controlled bool
	// generated marks an object the cluster makes by itself (see generated).
	generated bool
	// stamps are the object's managedFields, as holds compares them.
	stamps []fieldStamp
	// secret marks a core Secret: content is plaintext, for the caller to
	// encrypt. Only a request with Secrets starts a watch that holds one.
	secret  bool
	path    string
	content []byte
	// problem says why the object cannot be mirrored (one of the problem
	// constants); content is empty then.
	problem string
}

// newEntry renders u. It never fails: an object that cannot be a file is
// kept with its problem, so a Snapshot can say what it left out.
func newEntry(u *unstructured.Unstructured) *entry {
	e := &entry{
		gvk:        u.GroupVersionKind(),
		namespace:  u.GetNamespace(),
		name:       u.GetName(),
		rv:         u.GetResourceVersion(),
		uid:        string(u.GetUID()),
		labels:     u.GetLabels(),
		controlled: metav1.GetControllerOfNoCopy(u) != nil,
		generated:  generated(u),
		stamps:     stampsOf(u),
	}
	e.path = Path(e.gvk, e.namespace, e.name)
	if validate.Path(e.path) != nil {
		e.problem = problemPath
		return e
	}
	render := manifest.Render
	if e.gvk.Group == "" && e.gvk.Kind == "Secret" {
		// Rendered for encryption: a Secret informer runs only for
		// requests that encrypt (Request.Secrets).
		e.secret = true
		render = manifest.RenderForEncryption
	}
	j, err := u.MarshalJSON()
	if err == nil {
		e.content, err = render(j)
	}
	if err != nil {
		e.problem = problemRender
	}
	return e
}

// follow records in e, the version the watch delivered after old (nil: the
// first it delivered), which version its content was made against: old's
// when the content changed, else what old knew.
func (e *entry) follow(old *entry) {
	switch {
	case old == nil || old.uid != e.uid:
	case bytes.Equal(old.content, e.content) && old.problem == e.problem:
		e.prev = old.prev
	default:
		e.prev = old.rv
	}
}

// same reports whether e and o give the same file and the same selection.
// Status and server-side noise are not in the rendering, so a status-only
// update or a no-op apply is the same.
func (e *entry) same(o *entry) bool {
	return e.problem == o.problem && e.secret == o.secret && e.path == o.path && e.controlled == o.controlled &&
		e.generated == o.generated && labels.Equals(e.labels, o.labels) && bytes.Equal(e.content, o.content)
}

// view is how one owner looks at a watch.
type view struct {
	selector       labels.Selector // never nil
	skipControlled bool
	skipGenerated  bool
}

// sees reports whether the owner selects e (nil: no object).
func (v view) sees(e *entry) bool {
	if e == nil || (v.skipControlled && e.controlled) || (v.skipGenerated && e.generated) {
		return false
	}
	return v.selector.Matches(e.labels)
}

// serviceAccountToken is the type of the Secrets that hold a
// ServiceAccount's token, which the token controller makes.
const serviceAccountToken = "kubernetes.io/service-account-token"

// generated reports whether u is one of the objects the cluster makes by
// itself in every namespace: the kube-root-ca.crt ConfigMap (the root CA
// publisher), the default ServiceAccount (the service account controller),
// and service-account token Secrets (the token controller). The generated
// kinds (Endpoints, Events...) are left out before they are watched.
func generated(u *unstructured.Unstructured) bool {
	gvk := u.GroupVersionKind()
	if gvk.Group != "" {
		return false
	}
	switch gvk.Kind {
	case "ConfigMap":
		return u.GetName() == "kube-root-ca.crt"
	case "ServiceAccount":
		return u.GetName() == "default"
	case "Secret":
		t, _, _ := unstructured.NestedString(u.Object, "type")
		return t == serviceAccountToken
	}
	return false
}
