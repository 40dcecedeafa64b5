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

	"github.com/crossplane/crossplane-runtime/v2/pkg/resource"
)

// Hand-written because angryjet does not generate them: the status session
// stamps status.observedGeneration and upserts conditions in the live slice.

// SetObservedGeneration of this Thing's status.
func (mg *Thing) SetObservedGeneration(generation int64) {
	mg.Status.ObservedGeneration = generation
}

// StatusConditions returns a pointer to this Thing's live condition list.
func (mg *Thing) StatusConditions() *[]xpv2.Condition {
	return &mg.Status.Conditions
}

// GetLastHandledReconcileAt returns the last handled reconcile-request token.
func (mg *Thing) GetLastHandledReconcileAt() string {
	return mg.Status.LastHandledReconcileAt
}

// SetLastHandledReconcileAt records the last handled reconcile-request token.
func (mg *Thing) SetLastHandledReconcileAt(token string) {
	mg.Status.LastHandledReconcileAt = token
}

var _ resource.ModernManaged = &Thing{}
