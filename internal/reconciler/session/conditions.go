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

package session

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"
)

// Find returns the condition of type t in conds, or nil. The pointer aliases
// the slice element.
func Find(conds []xpv2.Condition, t xpv2.ConditionType) *xpv2.Condition {
	for i := range conds {
		if conds[i].Type == t {
			return &conds[i]
		}
	}
	return nil
}

// upsert writes c into conds IN PLACE, keeping list order: remove-then-append
// would reorder the list and make every touch a diff. lastTransitionTime
// moves only when the status changes; a new entry gets now. An empty reason
// becomes ReasonUnspecified. Crossplane's own SetConditions is not used
// because it neither defaults the reason nor stamps observedGeneration.
func upsert(conds []xpv2.Condition, c xpv2.Condition, now metav1.Time) []xpv2.Condition {
	if c.Reason == "" {
		c.Reason = ReasonUnspecified
	}
	existing := Find(conds, c.Type)
	if existing == nil {
		c.LastTransitionTime = now
		return append(conds, c)
	}
	c.LastTransitionTime = existing.LastTransitionTime
	if existing.Status != c.Status {
		c.LastTransitionTime = now
	}
	*existing = c
	return conds
}

// remove drops the condition of type t, keeping the order of the rest.
func remove(conds []xpv2.Condition, t xpv2.ConditionType) []xpv2.Condition {
	out := conds[:0]
	for _, c := range conds {
		if c.Type != t {
			out = append(out, c)
		}
	}
	return out
}
