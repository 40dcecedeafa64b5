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

package v1alpha1

import (
	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// MirrorPrune says when a Mirror removes the file of an object that no longer
// exists.
// +kubebuilder:validation:Enum=OnDelete;Never
type MirrorPrune string

// Prune policies.
const (
	// MirrorPruneOnDelete removes an object's file when the object is
	// deleted, and at start removes owned files whose object is gone.
	MirrorPruneOnDelete MirrorPrune = "OnDelete"
	// MirrorPruneNever only adds and updates files: Git keeps every object
	// that ever existed.
	MirrorPruneNever MirrorPrune = "Never"
)

// MirrorCommit says how a Mirror turns what changed in a commit window into
// commits.
// +kubebuilder:validation:Enum=Batched;PerChange
type MirrorCommit string

// Commit modes.
const (
	// MirrorCommitBatched writes everything that changed in a commit window
	// as one commit.
	MirrorCommitBatched MirrorCommit = "Batched"
	// MirrorCommitPerChange writes one commit per object that changed, in
	// the order the API server made the changes, each naming the object:
	// Git becomes an audit trail. The commits of a window still go out in
	// one push.
	MirrorCommitPerChange MirrorCommit = "PerChange"
)

// MirrorAttribution says who a Mirror names as the author of its commits.
// +kubebuilder:validation:Enum=None;Audit;Admission;Auto
type MirrorAttribution string

// Attribution modes.
const (
	// MirrorAttributionNone authors every commit as the configuration's
	// identity.
	MirrorAttributionNone MirrorAttribution = "None"
	// MirrorAttributionAudit authors each change as the user who made it,
	// as the API server's audit events name them: one commit per author
	// per window, committed by the configuration's identity.
	MirrorAttributionAudit MirrorAttribution = "Audit"
	// MirrorAttributionAdmission authors each change as the user whose
	// write made it, as the provider's validating admission webhook saw
	// it: joined exactly, by the object's UID, the version the write was
	// made against and the content it stored. A change the webhook did
	// not see is authored unresolved at once.
	MirrorAttributionAdmission MirrorAttribution = "Admission"
	// MirrorAttributionAuto joins admission facts as Admission does, and
	// a change the webhook did not see to audit events as Audit does.
	MirrorAttributionAuto MirrorAttribution = "Auto"
)

// MirrorAuthor are the templates of an attributed commit's author.
type MirrorAuthor struct {
	// Name is a Go template of the author's name. It may use .Username,
	// .UID, .Groups and .Impersonator (the authenticated user who
	// impersonated .Username, or empty). Default: {{ .Username }}.
	// +optional
	// +kubebuilder:validation:MaxLength=512
	// +kubebuilder:validation:XValidation:rule="!self.matches('[<>\\x00-\\x1f\\x7f]')",message="name must not contain '<', '>' or control characters"
	Name string `json:"name,omitempty"`

	// Email is a Go template of the author's e-mail, with the same data as
	// Name. Default: {{ .Username }}@users.noreply.example.org.
	// +optional
	// +kubebuilder:validation:MaxLength=512
	// +kubebuilder:validation:XValidation:rule="!self.matches('[<>\\x00-\\x1f\\x7f]')",message="email must not contain '<', '>' or control characters"
	Email string `json:"email,omitempty"`
}

// MirrorLayout says where a Mirror writes an object.
// +kubebuilder:validation:Enum=Folder;InPlace
type MirrorLayout string

// Layouts.
const (
	// MirrorLayoutFolder lays every object out in a folder of the Mirror's
	// own: {namespace}/{group}/{kind}/{name}.yaml, one object per file.
	MirrorLayoutFolder MirrorLayout = "Folder"
	// MirrorLayoutInPlace writes an object where its YAML already lives in
	// the folder: the document a person wrote in a multi-document file, or
	// the images and replicas entries of the kustomization that governs
	// it. An object found nowhere is written at the Folder layout's path
	// (inside a kustomize folder, as a new file of its kustomization).
	MirrorLayoutInPlace MirrorLayout = "InPlace"
)

// MirrorResource names one kind of object to mirror: apiVersion and kind, or
// group and resource (resolved to the API server's preferred version).
// +kubebuilder:validation:XValidation:rule="has(self.resource) ? !has(self.apiVersion) && !has(self.kind) : has(self.apiVersion) && has(self.kind) && !has(self.group)",message="set apiVersion and kind, or group and resource (group empty for the core group)"
type MirrorResource struct {
	// APIVersion of the kind: version for the core group (v1), else
	// group/version (apps/v1).
	// +optional
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=316
	// +kubebuilder:validation:XValidation:rule="self.matches('^([a-z0-9]([-a-z0-9.]*[a-z0-9])?/)?v[0-9]+((alpha|beta)[0-9]+)?$')",message="apiVersion must be version or group/version, e.g. v1 or apps/v1"
	APIVersion string `json:"apiVersion,omitempty"`

	// Kind of the objects, e.g. ConfigMap.
	// +optional
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=63
	// +kubebuilder:validation:XValidation:rule="self.matches('^[A-Z][A-Za-z0-9]*$')",message="kind must be a Kubernetes kind such as ConfigMap"
	Kind string `json:"kind,omitempty"`

	// Group of the resource; empty for the core group.
	// +optional
	// +kubebuilder:validation:MaxLength=253
	// +kubebuilder:validation:XValidation:rule="self == '' || self.matches('^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$')",message="group must be a DNS subdomain such as apps, or empty for the core group"
	Group *string `json:"group,omitempty"`

	// Resource is the plural resource name, e.g. configmaps.
	// +optional
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=63
	// +kubebuilder:validation:XValidation:rule="self.matches('^[a-z0-9]([-a-z0-9]*[a-z0-9])?$')",message="resource must be a lower-case plural resource name such as configmaps"
	Resource string `json:"resource,omitempty"`
}

// MirrorIgnore names whose changes a Mirror does not commit.
type MirrorIgnore struct {
	// FieldManagers are the field managers (metadata.managedFields[].manager)
	// whose changes are not committed, e.g. kustomize-controller,
	// argocd-controller or helm. A change is theirs alone when every
	// managedFields entry that differs from the version the Mirror last
	// took (added, removed, or with another time or fieldsV1) belongs to one
	// of them; the file then keeps that version. Any other change takes the
	// whole live object again, including what they applied before.
	// +optional
	// +listType=set
	// +kubebuilder:validation:MaxItems=32
	// +kubebuilder:validation:items:MinLength=1
	// +kubebuilder:validation:items:MaxLength=128
	FieldManagers []string `json:"fieldManagers,omitempty"`

	// Users are the users (as the API server authenticates them, e.g.
	// system:serviceaccount:flux-system:kustomize-controller) whose changes
	// are not committed: a change whose audit events all name one of them,
	// or whose write the admission webhook saw made by one of them, keeps
	// the object's file as it was. It needs attribution Audit, Admission
	// or Auto, which tell who made a change.
	// +optional
	// +listType=set
	// +kubebuilder:validation:MaxItems=32
	// +kubebuilder:validation:items:MinLength=1
	// +kubebuilder:validation:items:MaxLength=256
	Users []string `json:"users,omitempty"`
}

// MirrorParameters are the desired state of a Mirror.
// +kubebuilder:validation:XValidation:rule="!has(self.ignore) || !has(self.ignore.users) || size(self.ignore.users) == 0 || (has(self.attribution) && self.attribution in ['Audit', 'Admission', 'Auto'])",message="ignore.users needs attribution Audit, Admission or Auto (who made a change is known only from audit events or admission)"
// +kubebuilder:validation:XValidation:rule="!has(self.author) || (has(self.attribution) && self.attribution in ['Audit', 'Admission', 'Auto'])",message="author needs attribution Audit, Admission or Auto"
type MirrorParameters struct {
	// Branch the mirror writes to. The branch must exist, or the repository
	// must be empty.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=255
	// +kubebuilder:validation:XValidation:rule="self != 'HEAD' && !self.startsWith('refs/') && self.matches('^[A-Za-z0-9._/+-]+$') && !self.startsWith('/') && !self.matches('(^|/)[.-]') && !self.contains('..') && !self.contains('//') && !self.endsWith('/') && !self.endsWith('.') && !self.endsWith('.lock') && !self.contains('.lock/')",message="branch must be a valid Git branch name: letters, digits and . _ / + -, no '..' or '//', no component starting with '.' or '-', not ending in '/', '.' or '.lock', not HEAD, not starting with refs/"
	// +kubebuilder:validation:XValidation:rule="self == oldSelf",message="branch is immutable; create a new Mirror instead"
	Branch string `json:"branch"`

	// Path of the folder the mirror owns, relative to the repository root;
	// "." for the root itself.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=512
	// +kubebuilder:validation:XValidation:rule="self == '.' || (!self.startsWith('/') && !self.endsWith('/') && !self.contains('//') && !self.matches('(^|/)[.][.]?(/|$)'))",message="path must be '.' or relative and clean: no leading or trailing '/', no '//', no '.' or '..' components"
	// +kubebuilder:validation:XValidation:rule="!self.matches('(?i)(^|[/\\\\x5c])([\\\\x{200C}-\\\\x{200F}\\\\x{202A}-\\\\x{202E}\\\\x{206A}-\\\\x{206F}\\\\x{FEFF}]*[.][\\\\x{200C}-\\\\x{200F}\\\\x{202A}-\\\\x{202E}\\\\x{206A}-\\\\x{206F}\\\\x{FEFF}]*g[\\\\x{200C}-\\\\x{200F}\\\\x{202A}-\\\\x{202E}\\\\x{206A}-\\\\x{206F}\\\\x{FEFF}]*i[\\\\x{200C}-\\\\x{200F}\\\\x{202A}-\\\\x{202E}\\\\x{206A}-\\\\x{206F}\\\\x{FEFF}]*t|git~1)[. \\\\x{200C}-\\\\x{200F}\\\\x{202A}-\\\\x{202E}\\\\x{206A}-\\\\x{206F}\\\\x{FEFF}]*(:[^/\\\\x5c]*)?([/\\\\x5c]|$)')",message="path must not be inside a .git directory (.git or git~1 in any spelling a file system treats as it)"
	// +kubebuilder:validation:XValidation:rule="!self.matches('[\\x00-\\x1f\\x7f]')",message="path must not contain control characters"
	// +kubebuilder:validation:XValidation:rule="self == oldSelf",message="path is immutable; create a new Mirror instead"
	Path string `json:"path"`

	// Resources are the kinds of objects to mirror.
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=32
	Resources []MirrorResource `json:"resources"`

	// LabelSelector selects the objects to mirror; all when unset.
	// +optional
	LabelSelector *metav1.LabelSelector `json:"labelSelector,omitempty"`

	// SourceNamespaces are the namespaces objects are read from; the
	// Mirror's own namespace when unset. Any other namespace needs a grant in
	// the mirror policy of the ClusterProviderConfig the Mirror uses.
	// +optional
	// +kubebuilder:validation:MaxItems=64
	// +listType=set
	// +kubebuilder:validation:items:MaxLength=63
	// +kubebuilder:validation:items:Pattern=`^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`
	SourceNamespaces []string `json:"sourceNamespaces,omitempty"`

	// ClusterScoped allows cluster-scoped kinds (Namespaces, ClusterRoles,
	// CustomResourceDefinitions...). It needs a grant in the mirror policy of
	// the ClusterProviderConfig the Mirror uses.
	// +optional
	ClusterScoped bool `json:"clusterScoped,omitempty"`

	// Layout says where an object is written: Folder lays the folder out
	// itself, one file per object; InPlace edits the document or the
	// kustomization that already holds the object, keeping comments and
	// the rest of the file. Immutable: a Mirror does not move its files.
	// +optional
	// +kubebuilder:default=Folder
	// +kubebuilder:validation:XValidation:rule="self == oldSelf",message="layout is immutable; create a new Mirror instead"
	Layout MirrorLayout `json:"layout,omitempty"`

	// Prune says when the file of an object that no longer exists is removed.
	// +optional
	// +kubebuilder:default=OnDelete
	Prune MirrorPrune `json:"prune,omitempty"`

	// SkipControlled leaves out objects that have a controller owner
	// reference (a Deployment's ReplicaSets and Pods): Git holds what people
	// declared, not what controllers derived from it.
	// +optional
	// +kubebuilder:default=true
	SkipControlled *bool `json:"skipControlled,omitempty"`

	// SkipClusterGenerated leaves out what the cluster makes by itself in
	// every namespace: the kube-root-ca.crt ConfigMap, the default
	// ServiceAccount, service-account token Secrets
	// (kubernetes.io/service-account-token), and every Endpoints,
	// EndpointSlice, Event and Lease. Set it to false to mirror them too.
	// +optional
	// +kubebuilder:default=true
	SkipClusterGenerated *bool `json:"skipClusterGenerated,omitempty"`

	// Ignore names the changes the Mirror does not commit, so that it can
	// run beside a forward GitOps controller (Flux, Argo CD, Helm) without
	// writing back what that controller just applied.
	// +optional
	Ignore *MirrorIgnore `json:"ignore,omitempty"`

	// Commit says how what changed becomes commits. Batched (the default)
	// writes everything that changed within a commit window as one commit.
	// PerChange writes one commit per object that changed (created, updated
	// or deleted), oldest change first, its message naming the verb, kind,
	// namespace and name, so that git log is an audit trail of the objects;
	// the commits of a window still go out in one push. An object changed
	// several times before its commit is written is one commit of its
	// latest state. With layout InPlace, an object's commit holds every file
	// its edit touches (an overlay's kustomization, a file shared with
	// other objects, as the changes before it left it), each checked by
	// kustomize. The folder's first write, and its removal when the
	// Mirror is deleted, are one commit either way.
	// +optional
	// +kubebuilder:default=Batched
	Commit MirrorCommit `json:"commit,omitempty"`
	// Attribution says who is the author of the Mirror's commits: None (the
	// configuration's identity); Audit (the user who made each change, as
	// the API server's audit events sent to the provider name them, joined
	// by object and time); Admission (the user whose write made it, as the
	// provider's admission webhook saw it, joined exactly by UID, the
	// version the write was made against and the content it stored); or
	// Auto (Admission, and Audit for a change the webhook did not see).
	// See the Mirror guide. The changes of one commit window are one
	// commit per author (with layout InPlace, one per run of one author's
	// changes in the order they were made), still one push; the committer and the signature
	// stay the configuration's; each commit's Attributed-By trailer says
	// admission, audit or unresolved; a change nothing names (with Audit,
	// within the provider's --audit-attribution-wait) is authored
	// "unknown (attribution unresolved)".
	// +optional
	// +kubebuilder:default=None
	Attribution MirrorAttribution `json:"attribution,omitempty"`

	// Author are the templates of an attributed commit's author (with
	// attribution Audit, Admission or Auto).
	// +optional
	Author *MirrorAuthor `json:"author,omitempty"`

	// CommitMessage is a Go template for the message of commits that write
	// the folder. It may use .Path, .Branch, .Name, .Namespace and .Changed
	// (how many files the commit adds, updates or removes); with commit
	// PerChange also .Verb (Create, Update or Delete), .Kind,
	// .ObjectNamespace, .ObjectName and .File of the object the commit
	// records.
	// +optional
	// +kubebuilder:validation:MaxLength=4096
	CommitMessage string `json:"commitMessage,omitempty"`
}

// MirrorResourceStatus is one resolved kind and how many of its objects are
// mirrored.
type MirrorResourceStatus struct {
	Group    string `json:"group,omitempty"`
	Version  string `json:"version"`
	Resource string `json:"resource"`
	Count    int    `json:"count"`
}

// MirrorObservation is the observed state of a Mirror.
type MirrorObservation struct {
	// Objects is how many objects the folder holds. While the Mirror waits
	// for a push it is the count of when the wait began, refreshed when each
	// push lands.
	Objects int `json:"objects,omitempty"`

	// Pending is how many file changes wait for a push, as of when the
	// current wait began; refreshed when each push lands.
	Pending int `json:"pending,omitempty"`

	// Commit is the last commit that wrote the folder, as far as the
	// provider knows.
	Commit string `json:"commit,omitempty"`

	// Resources are the resolved kinds with their counts.
	// +optional
	Resources []MirrorResourceStatus `json:"resources,omitempty"`
}

// MirrorSpec defines the desired state of a Mirror.
type MirrorSpec struct {
	xpv2.ManagedResourceSpec `json:",inline"`
	ForProvider              MirrorParameters `json:"forProvider"`
}

// MirrorStatus represents the observed state of a Mirror.
type MirrorStatus struct {
	xpv2.ManagedResourceStatus `json:",inline"`
	AtProvider                 MirrorObservation `json:"atProvider,omitempty"`
}

// +kubebuilder:object:root=true

// A Mirror keeps a folder of a branch an exact, readable copy of live
// Kubernetes objects: what people change with kubectl, Helm or a UI lands in
// Git as reviewable YAML. It reads its own namespace unless a
// ClusterProviderConfig's mirror policy grants more, and never writes a
// Secret in plain text.
// +kubebuilder:subresource:status
// +kubebuilder:printcolumn:name="READY",type="string",JSONPath=".status.conditions[?(@.type=='Ready')].status"
// +kubebuilder:printcolumn:name="SYNCED",type="string",JSONPath=".status.conditions[?(@.type=='Synced')].status"
// +kubebuilder:printcolumn:name="REASON",type="string",JSONPath=".status.conditions[?(@.type=='Ready')].reason"
// +kubebuilder:printcolumn:name="CONFIG",type="string",JSONPath=".spec.providerConfigRef.name"
// +kubebuilder:printcolumn:name="BRANCH",type="string",JSONPath=".spec.forProvider.branch"
// +kubebuilder:printcolumn:name="PATH",type="string",JSONPath=".spec.forProvider.path"
// +kubebuilder:printcolumn:name="OBJECTS",type="integer",JSONPath=".status.atProvider.objects"
// +kubebuilder:printcolumn:name="COMMIT",type="string",JSONPath=".status.atProvider.commit",priority=1
// +kubebuilder:printcolumn:name="MESSAGE",type="string",JSONPath=".status.conditions[?(@.type=='Ready')].message",priority=1
// +kubebuilder:printcolumn:name="AGE",type="date",JSONPath=".metadata.creationTimestamp"
// +kubebuilder:resource:scope=Namespaced,categories={crossplane,managed,git}
type Mirror struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   MirrorSpec   `json:"spec"`
	Status MirrorStatus `json:"status,omitempty"`
}

// +kubebuilder:object:root=true

// MirrorList contains a list of Mirror.
type MirrorList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []Mirror `json:"items"`
}

func init() {
	SchemeBuilder.Register(&Mirror{}, &MirrorList{})
}
