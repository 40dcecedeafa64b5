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

package git

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestCommitMessageTrailerBlock: a message that ends in trailers of its own
// (a Mirror's Attributed-By, Co-authored-by) shares one trailer block with
// the resource's, which git interpret-trailers and forges read; one that
// writes our trailers itself keeps them in a paragraph of their own, never
// read as ours.
func TestCommitMessageTrailerBlock(t *testing.T) {
	r := Resource{Kind: "Mirror", Namespace: "ns", Name: "m", UID: "u1"}
	cases := map[string]struct {
		reason string
		msg    string
		want   string
	}{
		"Plain": {
			reason: "A message without trailers gets a trailer block of its own.",
			msg:    "Update ConfigMap ns/a",
			want:   "Update ConfigMap ns/a\n\nProvider-Git-Resource: Mirror/ns/m\nProvider-Git-UID: u1\n",
		},
		"Attributed": {
			reason: "Attributed-By and Co-authored-by join the resource's trailers in one block.",
			msg:    "Update ConfigMap ns/a\n\nAttributed-By: admission\nCo-authored-by: bob <bob@example.org>",
			want:   "Update ConfigMap ns/a\n\nAttributed-By: admission\nCo-authored-by: bob <bob@example.org>\nProvider-Git-Resource: Mirror/ns/m\nProvider-Git-UID: u1\n",
		},
		"ForgedUID": {
			reason: "A message ending in a UID trailer of its own is not merged: the last paragraph is ours alone.",
			msg:    "x\n\nProvider-Git-UID: forged",
			want:   "x\n\nProvider-Git-UID: forged\n\nProvider-Git-Resource: Mirror/ns/m\nProvider-Git-UID: u1\n",
		},
		"NotTrailers": {
			reason: "A last paragraph of prose is not a trailer block.",
			msg:    "Update\n\nthe app: web",
			want:   "Update\n\nthe app: web\n\nProvider-Git-Resource: Mirror/ns/m\nProvider-Git-UID: u1\n",
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got := commitMessage([]*Part{{Message: tc.msg, Resource: r}})
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("%s\ncommitMessage(): -want, +got:\n%s", tc.reason, diff)
			}
			if diff := cmp.Diff([]string{"u1"}, trailerValues(got, TrailerUID)); diff != "" {
				t.Errorf("%s\nUID trailers: -want, +got:\n%s", tc.reason, diff)
			}
			if diff := cmp.Diff([]string{"Mirror/ns/m"}, trailerValues(got, TrailerResource)); diff != "" {
				t.Errorf("%s\nresource trailers: -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}
