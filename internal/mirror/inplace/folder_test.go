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
	"maps"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/crossplane-contrib/provider-git/internal/mirror"
)

// TestPlanNamesRepositoryPaths: a folder below the repository's root is
// read by its files' paths in the repository, and what its plan refuses
// names files by those paths: in a repository of many kustomizations
// nobody finds "kustomization.yaml".
func TestPlanNamesRepositoryPaths(t *testing.T) {
	const (
		folder = "clusters/shop"
		cm     = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n  namespace: shop\ndata:\n  k: v\n"
	)
	cases := map[string]struct {
		reason string
		files  map[string]string
		want   string
	}{
		"FoundTwice": {
			reason: "Both places of an object found twice are named in the repository.",
			files:  map[string]string{folder + "/one.yaml": cm, folder + "/two.yaml": cm},
			want:   "ConfigMap shop/a is found twice in the folder, in clusters/shop/one.yaml (document 1, line 1) and in clusters/shop/two.yaml (document 1, line 1): keep one of them",
		},
		"Unsupported": {
			reason: "A kustomization using what the layout does not model is named in the repository.",
			files: map[string]string{
				folder + "/one.yaml":           cm,
				folder + "/kustomization.yaml": "resources:\n- one.yaml\nconfigMapGenerator:\n- name: x\n  literals: [a=b]\n",
			},
			want: "clusters/shop/kustomization.yaml uses configMapGenerator, which the InPlace layout does not edit: remove it, or use layout Folder",
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			blobs := map[string]string{}
			for p, c := range tc.files {
				blobs[p] = "blob-" + c
			}
			var read []string
			x := NewIndex()
			err := x.UpdateFolder(folder, blobs, func(full string) ([]byte, error) {
				read = append(read, full)
				return []byte(tc.files[full]), nil
			})
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(slices.Sorted(maps.Keys(tc.files)), slices.Sorted(slices.Values(read))); diff != "" {
				t.Errorf("%s\nUpdateFolder read: -want, +got:\n%s", tc.reason, diff)
			}
			_, err = x.Plan(Mirror{Path: folder, Namespace: "shop", Prune: true}, []mirror.Object{live(t, cm, "", nil)}, nil)
			if diff := cmp.Diff(tc.want, errText(err)); diff != "" {
				t.Errorf("%s\nPlan: -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}
