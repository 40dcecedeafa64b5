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

// ThingParameters are the configurable fields of a Thing.
type ThingParameters struct {
	// Value is what the external thing should hold.
	Value string `json:"value"`

	// Colour is late-initialized from the external thing when unset.
	// +optional
	Colour *string `json:"colour,omitempty"`
}

// ThingObservation is what was last observed of the external thing.
type ThingObservation struct {
	// Value the external thing holds.
	Value string `json:"value,omitempty"`
}

// A ThingSpec defines the desired state of a Thing.
type ThingSpec struct {
	xpv2.ManagedResourceSpec `json:",inline"`
	ForProvider              ThingParameters `json:"forProvider"`
}

// A ThingStatus represents the observed state of a Thing.
type ThingStatus struct {
	xpv2.ManagedResourceStatus `json:",inline"`
	AtProvider                 ThingObservation `json:"atProvider,omitempty"`
}

// +kubebuilder:object:root=true

// A Thing is a test-only managed resource whose external resource lives in
// a scripted in-memory store.
// +kubebuilder:printcolumn:name="READY",type="string",JSONPath=".status.conditions[?(@.type=='Ready')].status"
// +kubebuilder:printcolumn:name="SYNCED",type="string",JSONPath=".status.conditions[?(@.type=='Synced')].status"
// +kubebuilder:printcolumn:name="EXTERNAL-NAME",type="string",JSONPath=".metadata.annotations.crossplane\\.io/external-name"
// +kubebuilder:printcolumn:name="AGE",type="date",JSONPath=".metadata.creationTimestamp"
// +kubebuilder:subresource:status
// +kubebuilder:resource:scope=Namespaced,categories={crossplane,managed,test}
type Thing struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   ThingSpec   `json:"spec"`
	Status ThingStatus `json:"status,omitempty"`
}

// +kubebuilder:object:root=true

// ThingList contains a list of Thing.
type ThingList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []Thing `json:"items"`
}
