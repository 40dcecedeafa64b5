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
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/crossplane-contrib/provider-git/internal/mirror"
	"github.com/crossplane-contrib/provider-git/internal/mirror/plan"
	"github.com/crossplane-contrib/provider-git/internal/yamledit"
)

// aliasBomb is a mapping under key whose aliases expand to 10^9 scalars,
// indented by two spaces.
func aliasBomb(key string) string {
	var b strings.Builder
	b.WriteString(key + ":\n  l0: &l0 [x, x, x, x, x, x, x, x, x, x]\n")
	for i := 1; i <= 9; i++ {
		fmt.Fprintf(&b, "  l%d: &l%d [*l%[3]d, *l%[3]d, *l%[3]d, *l%[3]d, *l%[3]d, *l%[3]d, *l%[3]d, *l%[3]d, *l%[3]d, *l%[3]d]\n", i, i, i-1)
	}
	return b.String()
}

// pad is content followed by a comment line that brings it to size bytes.
func pad(content string, size int) string {
	return content + "#" + strings.Repeat("x", size-len(content)-2) + "\n"
}

// TestFolderFileLimits: a marker or an adopted file read from the
// repository is parsed only within yamledit.MaxFileBytes, and an alias
// bomb in either is refused by the decoder's bound on alias expansion
// rather than inflated.
func TestFolderFileLimits(t *testing.T) {
	const markerYAML = "mirror:\n  namespace: ns\n  name: m\nfiles: []\n"
	const cm = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n  namespace: ns\n"
	o := mirror.Object{GVK: schema.GroupVersionKind{Version: "v1", Kind: "ConfigMap"}, Namespace: "ns", Name: "a"}
	type got struct{ Marker, Object bool }
	cases := map[string]struct {
		reason string
		marker string
		object string
		want   got
	}{
		"Small": {
			reason: "A marker and a file of the object within the bound are read.",
			marker: markerYAML, object: cm,
			want: got{Marker: true, Object: true},
		},
		"AtMaxBytes": {
			reason: "Files of exactly yamledit.MaxFileBytes are read.",
			marker: pad(markerYAML, yamledit.MaxFileBytes), object: pad(cm, yamledit.MaxFileBytes),
			want: got{Marker: true, Object: true},
		},
		"PastMaxBytes": {
			reason: "Files one byte larger are not parsed: no marker, no object of the Mirror's.",
			marker: pad(markerYAML, yamledit.MaxFileBytes+1), object: pad(cm, yamledit.MaxFileBytes+1),
			want: got{},
		},
		"AliasBomb": {
			reason: "Aliases expanding to 10^9 nodes make neither a marker nor an object, at the cost of the bytes written.",
			marker: markerYAML + aliasBomb("extra"), object: cm + aliasBomb("data"),
			want: got{},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			_, m := plan.ParseMarker([]byte(tc.marker))
			g := got{Marker: m, Object: sameObject([]byte(tc.object), o)}
			if diff := cmp.Diff(tc.want, g); diff != "" {
				t.Errorf("%s\n-want +got:\n%s", tc.reason, diff)
			}
		})
	}
}
