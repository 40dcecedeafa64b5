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

// BranchParameters are the desired state of a Branch.
type BranchParameters struct {
	// Branch is the name of the branch, without refs/heads/.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=255
	// +kubebuilder:validation:XValidation:rule="self != 'HEAD' && !self.startsWith('refs/') && self.matches('^[A-Za-z0-9._/+-]+$') && !self.startsWith('/') && !self.matches('(^|/)[.-]') && !self.contains('..') && !self.contains('//') && !self.endsWith('/') && !self.endsWith('.') && !self.endsWith('.lock') && !self.contains('.lock/')",message="branch must be a valid Git branch name: letters, digits and . _ / + -, no '..' or '//', no component starting with '.' or '-', not ending in '/', '.' or '.lock', not HEAD, not starting with refs/"
	// +kubebuilder:validation:XValidation:rule="self == oldSelf",message="branch is immutable; create a new Branch instead"
	Branch string `json:"branch"`

	// From is the branch, or the full 40-character commit SHA, the branch is
	// created from. Empty means the repository's default branch. Only used
	// when the branch is created.
	// +optional
	// +kubebuilder:validation:MaxLength=255
	// +kubebuilder:validation:XValidation:rule="self.matches('^[A-Za-z0-9._/+-]+$') && !self.contains('..')",message="from must be a branch name or a full commit SHA"
	From string `json:"from,omitempty"`
}

// BranchObservation is the observed state of a Branch.
type BranchObservation struct {
	// Commit is the SHA the branch points at.
	Commit string `json:"commit,omitempty"`
}

// BranchSpec defines the desired state of a Branch.
type BranchSpec struct {
	xpv2.ManagedResourceSpec `json:",inline"`
	ForProvider              BranchParameters `json:"forProvider"`
}

// BranchStatus represents the observed state of a Branch.
type BranchStatus struct {
	xpv2.ManagedResourceStatus `json:",inline"`
	AtProvider                 BranchObservation `json:"atProvider,omitempty"`
}

// +kubebuilder:object:root=true

// A Branch is a branch that must exist in a repository. Deleting it deletes
// the remote branch unless its management policies leave out Delete.
// +kubebuilder:subresource:status
// +kubebuilder:printcolumn:name="READY",type="string",JSONPath=".status.conditions[?(@.type=='Ready')].status"
// +kubebuilder:printcolumn:name="SYNCED",type="string",JSONPath=".status.conditions[?(@.type=='Synced')].status"
// +kubebuilder:printcolumn:name="REASON",type="string",JSONPath=".status.conditions[?(@.type=='Ready')].reason"
// +kubebuilder:printcolumn:name="CONFIG",type="string",JSONPath=".spec.providerConfigRef.name"
// +kubebuilder:printcolumn:name="BRANCH",type="string",JSONPath=".spec.forProvider.branch"
// +kubebuilder:printcolumn:name="COMMIT",type="string",JSONPath=".status.atProvider.commit",priority=1
// +kubebuilder:printcolumn:name="MESSAGE",type="string",JSONPath=".status.conditions[?(@.type=='Ready')].message",priority=1
// +kubebuilder:printcolumn:name="AGE",type="date",JSONPath=".metadata.creationTimestamp"
// +kubebuilder:resource:scope=Namespaced,categories={crossplane,managed,git}
type Branch struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   BranchSpec   `json:"spec"`
	Status BranchStatus `json:"status,omitempty"`
}

// +kubebuilder:object:root=true

// BranchList contains a list of Branch.
type BranchList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []Branch `json:"items"`
}

func init() {
	SchemeBuilder.Register(&Branch{}, &BranchList{})
}
