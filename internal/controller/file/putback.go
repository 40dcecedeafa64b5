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

package file

import (
	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"
	corev1 "k8s.io/api/core/v1"

	"github.com/crossplane-contrib/provider-git/apis/v1alpha1"
)

// putsBack reports whether an update of mg puts back what it held in Git:
// it was Ready and Synced at its current generation, as read when its
// reconcile began, so its spec did not change since it last converged and
// what differs now is someone else's push (drift a poll or a forge event
// found). The branch writer then need not hold the change a whole commit
// window (git.Change.PutBack). An edited spec, a write that failed, or a
// File never converged is an ordinary change: a Composition edits many at
// once, and the window batches them.
func putsBack(mg *v1alpha1.File) bool {
	gen := mg.GetGeneration()
	for _, t := range []xpv2.ConditionType{xpv2.TypeReady, xpv2.TypeSynced} {
		c := mg.GetCondition(t)
		if c.Status != corev1.ConditionTrue || c.ObservedGeneration != gen {
			return false
		}
	}
	return true
}
