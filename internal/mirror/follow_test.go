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

package mirror

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestFollow: each version the watch delivers knows the version its
// content was made against (Object.Prev), which an admission fact of an
// update names.
func TestFollow(t *testing.T) {
	at := func(uid, rv, content, prev string) *entry {
		return &entry{uid: uid, rv: rv, content: []byte(content), prev: prev}
	}
	cases := map[string]struct {
		reason string
		old    *entry
		e      *entry
		want   string
	}{
		"First": {
			reason: "The first version delivered (a create, or the initial list) has no known predecessor.",
			e:      at("u", "5", "X", ""),
		},
		"ContentChanged": {
			reason: "A version whose content differs from the one before was made against that one.",
			old:    at("u", "5", "X", ""), e: at("u", "6", "Y", ""),
			want: "5",
		},
		"ContentSame": {
			reason: "A version that changed nothing rendered (status, managedFields) keeps what the content was made against.",
			old:    at("u", "6", "Y", "5"), e: at("u", "7", "Y", ""),
			want: "5",
		},
		"Recreated": {
			reason: "Another object under the same name (a new UID) has no predecessor.",
			old:    at("u", "6", "Y", "5"), e: at("v", "9", "Z", ""),
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			tc.e.follow(tc.old)
			if diff := cmp.Diff(tc.want, tc.e.prev); diff != "" {
				t.Errorf("%s\nprev: -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}
