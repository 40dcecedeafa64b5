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

// FileMode is the Git file mode of a file.
// +kubebuilder:validation:Enum=Regular;Executable
type FileMode string

// File modes.
const (
	FileModeRegular    FileMode = "Regular"
	FileModeExecutable FileMode = "Executable"
)

// FileParameters are the desired state of a File.
// +kubebuilder:validation:XValidation:rule="has(self.content) != has(self.object)",message="exactly one of content or object must be set"
type FileParameters struct {
	// Branch the file lives on. The branch must exist; a Branch resource can
	// make sure it does.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=255
	// +kubebuilder:validation:XValidation:rule="self != 'HEAD' && !self.startsWith('refs/') && self.matches('^[A-Za-z0-9._/+-]+$') && !self.startsWith('/') && !self.matches('(^|/)[.-]') && !self.contains('..') && !self.contains('//') && !self.endsWith('/') && !self.endsWith('.') && !self.endsWith('.lock') && !self.contains('.lock/')",message="branch must be a valid Git branch name: letters, digits and . _ / + -, no '..' or '//', no component starting with '.' or '-', not ending in '/', '.' or '.lock', not HEAD, not starting with refs/"
	// +kubebuilder:validation:XValidation:rule="self == oldSelf",message="branch is immutable; create a new File instead"
	Branch string `json:"branch"`

	// Path of the file, relative to the repository root.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=1024
	// +kubebuilder:validation:XValidation:rule="!self.startsWith('/') && !self.endsWith('/') && !self.contains('//') && !self.matches('(^|/)[.][.]?(/|$)')",message="path must be relative and clean: no leading or trailing '/', no '//', no '.' or '..' components"
	// +kubebuilder:validation:XValidation:rule="!self.matches('(?i)(^|[/\\\\x5c])([\\\\x{200C}-\\\\x{200F}\\\\x{202A}-\\\\x{202E}\\\\x{206A}-\\\\x{206F}\\\\x{FEFF}]*[.][\\\\x{200C}-\\\\x{200F}\\\\x{202A}-\\\\x{202E}\\\\x{206A}-\\\\x{206F}\\\\x{FEFF}]*g[\\\\x{200C}-\\\\x{200F}\\\\x{202A}-\\\\x{202E}\\\\x{206A}-\\\\x{206F}\\\\x{FEFF}]*i[\\\\x{200C}-\\\\x{200F}\\\\x{202A}-\\\\x{202E}\\\\x{206A}-\\\\x{206F}\\\\x{FEFF}]*t|git~1)[. \\\\x{200C}-\\\\x{200F}\\\\x{202A}-\\\\x{202E}\\\\x{206A}-\\\\x{206F}\\\\x{FEFF}]*(:[^/\\\\x5c]*)?([/\\\\x5c]|$)')",message="path must not be inside a .git directory (.git or git~1 in any spelling a file system treats as it)"
	// +kubebuilder:validation:XValidation:rule="!self.matches('[\\x00-\\x1f\\x7f]')",message="path must not contain control characters"
	// +kubebuilder:validation:XValidation:rule="self == oldSelf",message="path is immutable; create a new File instead"
	Path string `json:"path"`

	// Content of the file.
	// +optional
	// +kubebuilder:validation:MaxLength=524288
	Content *string `json:"content,omitempty"`

	// Object is a Kubernetes object written as stable YAML with sorted keys;
	// status, managedFields, uid, resourceVersion, generation and
	// creationTimestamp are removed.
	// +optional
	// +kubebuilder:pruning:PreserveUnknownFields
	// +kubebuilder:validation:EmbeddedResource
	Object *runtime.RawExtension `json:"object,omitempty"`

	// Mode of the file.
	// +optional
	// +kubebuilder:default=Regular
	Mode FileMode `json:"mode,omitempty"`

	// CommitMessage is a Go template for the message of commits that write or
	// remove this file. It may use .Action (create, update or delete), .Path,
	// .Branch, .Name and .Namespace. Changes batched into one commit list each
	// file's message in the commit body.
	// +optional
	// +kubebuilder:validation:MaxLength=4096
	// +kubebuilder:validation:XValidation:rule="!self.matches('[\\x00-\\x08\\x0b-\\x1f\\x7f]')",message="commitMessage must not contain control characters other than newline and tab"
	CommitMessage string `json:"commitMessage,omitempty"`
}

// FileObservation is the observed state of a File.
type FileObservation struct {
	// Blob is the Git blob SHA of the file's content on the branch.
	Blob string `json:"blob,omitempty"`

	// Commit is the commit that last wrote the file, as far as the provider
	// knows: the one it pushed, or the branch head when it found the file
	// already as desired.
	Commit string `json:"commit,omitempty"`
}

// FileSpec defines the desired state of a File.
type FileSpec struct {
	xpv2.ManagedResourceSpec `json:",inline"`
	ForProvider              FileParameters `json:"forProvider"`
}

// FileStatus represents the observed state of a File.
type FileStatus struct {
	xpv2.ManagedResourceStatus `json:",inline"`
	AtProvider                 FileObservation `json:"atProvider,omitempty"`
}

// +kubebuilder:object:root=true

// A File is a file that must exist with the given content at a path on a
// branch. Edits made in Git are corrected on the next poll; deleting the File
// commits the file's removal unless its management policies leave out Delete.
// +kubebuilder:subresource:status
// +kubebuilder:printcolumn:name="READY",type="string",JSONPath=".status.conditions[?(@.type=='Ready')].status"
// +kubebuilder:printcolumn:name="SYNCED",type="string",JSONPath=".status.conditions[?(@.type=='Synced')].status"
// +kubebuilder:printcolumn:name="REASON",type="string",JSONPath=".status.conditions[?(@.type=='Ready')].reason"
// +kubebuilder:printcolumn:name="CONFIG",type="string",JSONPath=".spec.providerConfigRef.name"
// +kubebuilder:printcolumn:name="BRANCH",type="string",JSONPath=".spec.forProvider.branch"
// +kubebuilder:printcolumn:name="PATH",type="string",JSONPath=".spec.forProvider.path"
// +kubebuilder:printcolumn:name="COMMIT",type="string",JSONPath=".status.atProvider.commit",priority=1
// +kubebuilder:printcolumn:name="MESSAGE",type="string",JSONPath=".status.conditions[?(@.type=='Ready')].message",priority=1
// +kubebuilder:printcolumn:name="AGE",type="date",JSONPath=".metadata.creationTimestamp"
// +kubebuilder:resource:scope=Namespaced,categories={crossplane,managed,git}
type File struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   FileSpec   `json:"spec"`
	Status FileStatus `json:"status,omitempty"`
}

// +kubebuilder:object:root=true

// FileList contains a list of File.
type FileList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []File `json:"items"`
}

func init() {
	SchemeBuilder.Register(&File{}, &FileList{})
}
