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

package inplace

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/crossplane-contrib/provider-git/internal/mirror"
	"github.com/crossplane-contrib/provider-git/internal/yamledit"
)

// TestPlanInPlaceFileUnusable: a file of the folder the index cannot use
// stalls the plan naming the file and why; one past a bound says which
// bound, not that it is not valid YAML. It is not skipped: unparsed, it
// may hold the object, and writing it elsewhere would make a second copy.
func TestPlanInPlaceFileUnusable(t *testing.T) {
	const head = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n  namespace: shop\n"
	tooLarge := fmt.Sprintf(`file "apps/big.yaml" is %d bytes, more than the %d bytes this provider reads`, 1<<30, yamledit.MaxFileBytes)
	type want struct {
		feature string
		err     string
	}
	cases := map[string]struct {
		reason  string
		content []byte
		readErr error
		want    want
	}{
		"PastMaxFileBytes": {
			reason:  "A file Parse refuses for its size names the bound.",
			content: []byte(head + "#" + strings.Repeat("x", yamledit.MaxFileBytes) + "\n"),
			want:    want{feature: featureBound + fmt.Sprintf(" (the file is %d bytes, more than the %d bytes this provider reads)", len(head)+yamledit.MaxFileBytes+2, yamledit.MaxFileBytes)},
		},
		"PastMaxDocuments": {
			reason:  "A file Parse refuses for its documents names the bound.",
			content: []byte(head + strings.Repeat("---\n", yamledit.MaxDocuments)),
			want:    want{feature: featureBound + fmt.Sprintf(" (the file has more than %d documents)", yamledit.MaxDocuments)},
		},
		"TooLargeToRead": {
			reason:  "A file its reader refused to read for its size (a *yamledit.BoundError) is indexed as unusable, not an error of the update.",
			readErr: fmt.Errorf("cannot read: %w", &yamledit.BoundError{Reason: tooLarge}),
			want:    want{feature: featureBound + " (" + tooLarge + ")"},
		},
		"Invalid": {
			reason:  "A file that is not valid YAML says so.",
			content: []byte(head + "data: [\n"),
			want:    want{feature: featureInvalid + " (document 1 (line 1) is not valid YAML: yaml: line 6: did not find expected node content)"},
		},
		"ReadFails": {
			reason:  "Any other read error fails the update.",
			readErr: errors.New("boom"),
			want:    want{err: "boom"},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			x := NewIndex()
			err := x.Update(map[string]string{"a.yaml": "blob"}, func(string) ([]byte, error) { return tc.content, tc.readErr })
			got := want{err: errText(err)}
			if err == nil {
				_, err := x.Plan(Mirror{Path: ".", Namespace: "shop", Prune: true}, []mirror.Object{live(t, head+"data:\n  k: w\n", "", nil)}, nil)
				var u *UnsupportedLayoutError
				if !errors.As(err, &u) {
					t.Fatalf("%s\nPlan: %v, want an *UnsupportedLayoutError", tc.reason, err)
				}
				if u.File != "a.yaml" {
					t.Errorf("%s\nUnsupportedLayoutError.File = %q, want a.yaml", tc.reason, u.File)
				}
				got.feature = u.Feature
			}
			if diff := cmp.Diff(tc.want, got, cmp.AllowUnexported(want{})); diff != "" {
				t.Errorf("%s\n-want +got:\n%s", tc.reason, diff)
			}
		})
	}
}
