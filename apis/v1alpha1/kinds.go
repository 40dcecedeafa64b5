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

import "reflect"

// Kind names and GroupVersionKinds, for controller names, gates and usage
// tracking.
var (
	ProviderConfigKind                      = reflect.TypeOf(ProviderConfig{}).Name()
	ProviderConfigGroupVersionKind          = SchemeGroupVersion.WithKind(ProviderConfigKind)
	ClusterProviderConfigKind               = reflect.TypeOf(ClusterProviderConfig{}).Name()
	ClusterProviderConfigGroupVersionKind   = SchemeGroupVersion.WithKind(ClusterProviderConfigKind)
	ProviderConfigUsageKind                 = reflect.TypeOf(ProviderConfigUsage{}).Name()
	ProviderConfigUsageGroupVersionKind     = SchemeGroupVersion.WithKind(ProviderConfigUsageKind)
	ProviderConfigUsageListGroupVersionKind = SchemeGroupVersion.WithKind(ProviderConfigUsageKind + "List")

	BranchKind                    = reflect.TypeOf(Branch{}).Name()
	BranchGroupVersionKind        = SchemeGroupVersion.WithKind(BranchKind)
	FileKind                      = reflect.TypeOf(File{}).Name()
	FileGroupVersionKind          = SchemeGroupVersion.WithKind(FileKind)
	CommitRequestKind             = reflect.TypeOf(CommitRequest{}).Name()
	CommitRequestGroupVersionKind = SchemeGroupVersion.WithKind(CommitRequestKind)
	MirrorKind                    = reflect.TypeOf(Mirror{}).Name()
	MirrorGroupVersionKind        = SchemeGroupVersion.WithKind(MirrorKind)
	PullRequestKind               = reflect.TypeOf(PullRequest{}).Name()
	PullRequestGroupVersionKind   = SchemeGroupVersion.WithKind(PullRequestKind)
)
