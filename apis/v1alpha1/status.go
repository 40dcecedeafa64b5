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
	"github.com/crossplane/crossplane-runtime/v2/pkg/resource"
	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"
)

// Managed resources are namespaced Crossplane v2 ("modern") managed resources.
var (
	_ resource.ModernManaged = &Branch{}
	_ resource.ModernManaged = &File{}
	_ resource.ModernManaged = &CommitRequest{}
	_ resource.ModernManaged = &Mirror{}
	_ resource.ModernManaged = &PullRequest{}
)

// The status session (internal/reconciler/session) writes status through these
// accessors. angryjet does not generate them, and reaching the live condition
// slice through the object is what keeps a session from pairing one object's
// conditions with another's metadata.

// SetObservedGeneration records the generation this status describes.
func (in *ProviderConfig) SetObservedGeneration(g int64) { in.Status.ObservedGeneration = g }

// StatusConditions returns the live condition list.
func (in *ProviderConfig) StatusConditions() *[]xpv2.Condition { return &in.Status.Conditions }

// SetObservedGeneration records the generation this status describes.
func (in *ClusterProviderConfig) SetObservedGeneration(g int64) { in.Status.ObservedGeneration = g }

// StatusConditions returns the live condition list.
func (in *ClusterProviderConfig) StatusConditions() *[]xpv2.Condition {
	return &in.Status.Conditions
}

// SetObservedGeneration records the generation this status describes.
func (in *Branch) SetObservedGeneration(g int64) { in.Status.ObservedGeneration = g }

// StatusConditions returns the live condition list.
func (in *Branch) StatusConditions() *[]xpv2.Condition { return &in.Status.Conditions }

// SetObservedGeneration records the generation this status describes.
func (in *File) SetObservedGeneration(g int64) { in.Status.ObservedGeneration = g }

// StatusConditions returns the live condition list.
func (in *File) StatusConditions() *[]xpv2.Condition { return &in.Status.Conditions }

// SetObservedGeneration records the generation this status describes.
func (in *CommitRequest) SetObservedGeneration(g int64) { in.Status.ObservedGeneration = g }

// StatusConditions returns the live condition list.
func (in *CommitRequest) StatusConditions() *[]xpv2.Condition { return &in.Status.Conditions }

// SetObservedGeneration records the generation this status describes.
func (in *Mirror) SetObservedGeneration(g int64) { in.Status.ObservedGeneration = g }

// StatusConditions returns the live condition list.
func (in *Mirror) StatusConditions() *[]xpv2.Condition { return &in.Status.Conditions }

// SetObservedGeneration records the generation this status describes.
func (in *PullRequest) SetObservedGeneration(g int64) { in.Status.ObservedGeneration = g }

// StatusConditions returns the live condition list.
func (in *PullRequest) StatusConditions() *[]xpv2.Condition { return &in.Status.Conditions }
