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

package managed

import (
	"testing"

	xpmanaged "github.com/crossplane/crossplane-runtime/v2/pkg/reconciler/managed"
	"github.com/google/go-cmp/cmp"

	"github.com/crossplane-contrib/provider-git/internal/testharness/testkind/v1alpha1"
)

// noted is an external client with a note.
type noted struct {
	xpmanaged.TypedExternalClient[*v1alpha1.Thing]
	note string
}

func (n noted) Note() string { return n.note }

func TestNoteOr(t *testing.T) {
	cases := map[string]struct {
		reason string
		c      xpmanaged.ExternalClient
		want   string
	}{
		"NoNoter": {
			reason: "A client without a note keeps the default message.",
			c:      typedClient[*v1alpha1.Thing]{c: xpmanaged.TypedExternalClient[*v1alpha1.Thing](nil)},
			want:   msgAvailable,
		},
		"EmptyNote": {
			reason: "An empty note keeps the default message.",
			c:      typedClient[*v1alpha1.Thing]{c: noted{}},
			want:   msgAvailable,
		},
		"Note": {
			reason: "The typed wrapper forwards its client's note, which replaces the default.",
			c:      typedClient[*v1alpha1.Thing]{c: noted{note: "Secrets are never mirrored"}},
			want:   "Secrets are never mirrored",
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, noteOr(tc.c, msgAvailable)); diff != "" {
				t.Errorf("%s\nnoteOr(...): -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}
