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
	"fmt"

	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
)

// Kind names what to mirror: APIVersion ("v1", "apps/v1") and Kind, or Group
// ("" for core) and Resource (the plural, "deployments"), resolved through
// discovery to the group's preferred version. Kind wins when both are set.
type Kind struct {
	APIVersion, Kind string
	Group, Resource  string
}

// String names the kind as the user wrote it.
func (k Kind) String() string {
	if k.Kind != "" {
		return k.Kind + "." + k.APIVersion
	}
	if k.Group == "" {
		return k.Resource
	}
	return k.Resource + "." + k.Group
}

// Request is what one owner (a Mirror) wants mirrored. Sources.Ensure
// replaces the owner's previous request with it.
type Request struct {
	// Owner is the Mirror; it is what wake is called with.
	Owner types.NamespacedName
	// Kinds to mirror.
	Kinds []Kind
	// Namespaces read for namespaced kinds. Empty means the owner's own
	// namespace only; the caller has checked any other against its grant.
	Namespaces []string
	// ClusterScoped allows cluster-scoped kinds (the caller has checked the
	// grant); a cluster-scoped kind without it is a ClusterScopedError.
	ClusterScoped bool
	// Selector picks objects by label; nil means every object.
	Selector labels.Selector
	// SkipControlled leaves out objects with a controller ownerReference: the
	// controller writes them, so their owner is what a person changes.
	SkipControlled bool
	// SecretNamespaces opts in to the core Secrets of these namespaces (of
	// those the request reads): the caller encrypts them before they leave
	// memory (Object.Secret), and has checked that it may. In any other
	// namespace a Secret kind is not even watched, and the Snapshot says so
	// in Skipped, with SecretsNote when set.
	SecretNamespaces []string
	// SecretsNote says why Secrets are not read where they are not, for a
	// person; a default note when empty.
	SecretsNote string
	// SkipGenerated leaves out what the cluster makes by itself: the
	// generated kinds (Endpoints, EndpointSlices, Events, Leases) are not
	// even watched, and the generated objects of every namespace (see
	// generated) are not mirrored.
	SkipGenerated bool
	// IgnoreManagers are field managers whose changes alone keep an
	// object's file as it was (see holds).
	IgnoreManagers []string
}

// Object is one file of the folder.
type Object struct {
	// Path is slash-separated, relative to the Mirror's folder (see Path).
	Path string
	// Content is manifest.Render's output, or for a Secret
	// manifest.RenderForEncryption's: its values in plain text, which the
	// caller must encrypt before writing. It is shared with the cache and
	// must not be modified.
	Content []byte
	// Secret marks a core Secret (only with Request.SecretNamespaces): Content is
	// plaintext and Path ends in SecretExtension.
	Secret bool
	GVK    schema.GroupVersionKind
	// Resource is the kind's plural resource name (configmaps), as audit
	// events name it.
	Resource  string
	Namespace string
	Name      string
	// ResourceVersion is the object's as cached: a Mirror that commits each
	// change on its own orders its commits by it (etcd's revision, which
	// grows with every write to the API server).
	ResourceVersion string
	// UID is the object's, which an admission fact names it by.
	UID string
	// Prev is the resourceVersion of the version before the one that
	// last changed Content, as the watch delivered them: the version the
	// write that made Content was made against. Empty when the watch does
	// not know it (the object was listed, not watched, into that content).
	Prev string
}

// NamespacedName is how a message names o: namespace/name, or the name
// alone of a cluster-scoped object.
func (o Object) NamespacedName() string {
	if o.Namespace == "" {
		return o.Name
	}
	return o.Namespace + "/" + o.Name
}

// ResourceCount is how many objects of one resolved resource a Snapshot holds.
type ResourceCount struct {
	GVR   schema.GroupVersionResource
	Count int
}

// Snapshot is what an owner's folder should hold, as cached now. Ensure
// returns the same Snapshot again while nothing it covers changed, so its
// slices are shared: read them, never modify them.
type Snapshot struct {
	// Synced is true when every watch the request needs has listed its
	// objects. Until then Objects is incomplete and must not drive deletions.
	Synced bool
	// Objects sorted by Path.
	Objects []Object
	// Resources has one entry per resolved resource, in the order of the
	// request's kinds.
	Resources []ResourceCount
	// Skipped holds notes on what was left out and why, for a person.
	Skipped []string
}

// KindNotFoundError says discovery knows no such kind (yet). A CRD installed
// later resolves on a later Ensure, so the caller should treat it as
// progressing rather than stalled.
type KindNotFoundError struct{ Kind Kind }

func (e *KindNotFoundError) Error() string {
	return fmt.Sprintf("kind %s is not served by the API server", e.Kind)
}

// NotPermittedError says the provider's identity may not list or watch a
// resource in a namespace (empty Namespace: cluster-wide).
type NotPermittedError struct {
	GVR       schema.GroupVersionResource
	Namespace string
	Verb      string
}

func (e *NotPermittedError) Error() string {
	where := "cluster-wide"
	if e.Namespace != "" {
		where = "in namespace " + e.Namespace
	}
	return fmt.Sprintf("the provider may not %s %s %s: grant it %q on %s", e.Verb, resourceName(e.GVR), where, e.Verb, resourceName(e.GVR))
}

// ClusterScopedError says a cluster-scoped kind was asked for without
// Request.ClusterScoped.
type ClusterScopedError struct{ Kind Kind }

func (e *ClusterScopedError) Error() string {
	return fmt.Sprintf("kind %s is cluster-scoped: mirroring it needs a grant of cluster-scoped kinds", e.Kind)
}

// resourceName is "configmaps" or "deployments.apps", as RBAC and kubectl
// name a resource.
func resourceName(gvr schema.GroupVersionResource) string {
	if gvr.Group == "" {
		return gvr.Resource
	}
	return gvr.Resource + "." + gvr.Group
}
