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
	"k8s.io/apimachinery/pkg/runtime"
)

// CommitFile is one file a CommitRequest writes or removes.
// +kubebuilder:validation:XValidation:rule="(has(self.content) ? 1 : 0) + (has(self.object) ? 1 : 0) + (has(self.delete) && self.delete ? 1 : 0) == 1",message="each file needs exactly one of content, object or delete: true"
type CommitFile struct {
	// Path of the file, relative to the repository root.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=1024
	// +kubebuilder:validation:XValidation:rule="!self.startsWith('/') && !self.endsWith('/') && !self.contains('//') && !self.matches('(^|/)[.][.]?(/|$)')",message="path must be relative and clean: no leading or trailing '/', no '//', no '.' or '..' components"
	// +kubebuilder:validation:XValidation:rule="!self.matches('(?i)(^|[/\\\\x5c])([\\\\x{200C}-\\\\x{200F}\\\\x{202A}-\\\\x{202E}\\\\x{206A}-\\\\x{206F}\\\\x{FEFF}]*[.][\\\\x{200C}-\\\\x{200F}\\\\x{202A}-\\\\x{202E}\\\\x{206A}-\\\\x{206F}\\\\x{FEFF}]*g[\\\\x{200C}-\\\\x{200F}\\\\x{202A}-\\\\x{202E}\\\\x{206A}-\\\\x{206F}\\\\x{FEFF}]*i[\\\\x{200C}-\\\\x{200F}\\\\x{202A}-\\\\x{202E}\\\\x{206A}-\\\\x{206F}\\\\x{FEFF}]*t|git~1)[. \\\\x{200C}-\\\\x{200F}\\\\x{202A}-\\\\x{202E}\\\\x{206A}-\\\\x{206F}\\\\x{FEFF}]*(:[^/\\\\x5c]*)?([/\\\\x5c]|$)')",message="path must not be inside a .git directory (.git or git~1 in any spelling a file system treats as it)"
	// +kubebuilder:validation:XValidation:rule="!self.matches('[\\x00-\\x1f\\x7f]')",message="path must not contain control characters"
	Path string `json:"path"`

	// Content of the file.
	// +optional
	// +kubebuilder:validation:MaxLength=524288
	Content *string `json:"content,omitempty"`

	// Object is a Kubernetes object written as stable YAML, as in a File.
	// +optional
	// +kubebuilder:pruning:PreserveUnknownFields
	// +kubebuilder:validation:EmbeddedResource
	Object *runtime.RawExtension `json:"object,omitempty"`

	// Delete removes the file.
	// +optional
	Delete bool `json:"delete,omitempty"`

	// Mode of the file.
	// +optional
	// +kubebuilder:default=Regular
	Mode FileMode `json:"mode,omitempty"`
}

// CommitRequestParameters are the desired state of a CommitRequest.
type CommitRequestParameters struct {
	// Branch the commit lands on. The branch must exist.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=255
	// +kubebuilder:validation:XValidation:rule="self != 'HEAD' && !self.startsWith('refs/') && self.matches('^[A-Za-z0-9._/+-]+$') && !self.startsWith('/') && !self.matches('(^|/)[.-]') && !self.contains('..') && !self.contains('//') && !self.endsWith('/') && !self.endsWith('.') && !self.endsWith('.lock') && !self.contains('.lock/')",message="branch must be a valid Git branch name: letters, digits and . _ / + -, no '..' or '//', no component starting with '.' or '-', not ending in '/', '.' or '.lock', not HEAD, not starting with refs/"
	Branch string `json:"branch"`

	// Message of the commit.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=16384
	// +kubebuilder:validation:XValidation:rule="!self.matches('[\\x00-\\x08\\x0b-\\x1f\\x7f]')",message="message must not contain control characters other than newline and tab"
	Message string `json:"message"`

	// Files the commit writes or removes.
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=256
	// +listType=map
	// +listMapKey=path
	Files []CommitFile `json:"files"`
}

// CommitRequestObservation is the observed state of a CommitRequest.
type CommitRequestObservation struct {
	// Commit is the SHA of the commit that landed the request.
	Commit string `json:"commit,omitempty"`

	// Branch the commit landed on.
	Branch string `json:"branch,omitempty"`
}

// CommitRequestSpec defines the desired state of a CommitRequest.
type CommitRequestSpec struct {
	xpv2.ManagedResourceSpec `json:",inline"`
	// ForProvider is immutable: a CommitRequest is one commit, made once.
	// +kubebuilder:validation:XValidation:rule="self == oldSelf",message="a CommitRequest is immutable; create a new one"
	ForProvider CommitRequestParameters `json:"forProvider"`
}

// CommitRequestStatus represents the observed state of a CommitRequest.
type CommitRequestStatus struct {
	xpv2.ManagedResourceStatus `json:",inline"`
	AtProvider                 CommitRequestObservation `json:"atProvider,omitempty"`
}

// +kubebuilder:object:root=true

// A CommitRequest is one commit, with its own message, that must land exactly
// once on a branch. It is Ready once landed; deleting it changes nothing in
// Git (history stays).
// +kubebuilder:subresource:status
// +kubebuilder:printcolumn:name="READY",type="string",JSONPath=".status.conditions[?(@.type=='Ready')].status"
// +kubebuilder:printcolumn:name="SYNCED",type="string",JSONPath=".status.conditions[?(@.type=='Synced')].status"
// +kubebuilder:printcolumn:name="REASON",type="string",JSONPath=".status.conditions[?(@.type=='Ready')].reason"
// +kubebuilder:printcolumn:name="CONFIG",type="string",JSONPath=".spec.providerConfigRef.name"
// +kubebuilder:printcolumn:name="BRANCH",type="string",JSONPath=".spec.forProvider.branch"
// +kubebuilder:printcolumn:name="COMMIT",type="string",JSONPath=".status.atProvider.commit"
// +kubebuilder:printcolumn:name="MESSAGE",type="string",JSONPath=".status.conditions[?(@.type=='Ready')].message",priority=1
// +kubebuilder:printcolumn:name="AGE",type="date",JSONPath=".metadata.creationTimestamp"
// +kubebuilder:resource:scope=Namespaced,categories={crossplane,managed,git}
type CommitRequest struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   CommitRequestSpec   `json:"spec"`
	Status CommitRequestStatus `json:"status,omitempty"`
}

// +kubebuilder:object:root=true

// CommitRequestList contains a list of CommitRequest.
type CommitRequestList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []CommitRequest `json:"items"`
}

func init() {
	SchemeBuilder.Register(&CommitRequest{}, &CommitRequestList{})
}
