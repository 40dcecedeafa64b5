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

package controller

import (
	"reflect"
	"sort"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/labels"
)

func TestShardCache(t *testing.T) {
	sel, err := labels.Parse("shard=a")
	if err != nil {
		t.Fatal(err)
	}
	cases := map[string]struct {
		reason string
		sel    labels.Selector
		want   []string
	}{
		"NoSelector": {
			reason: "Without a selector the cache holds everything: no shard.",
		},
		"Empty": {
			reason: "An empty selector selects everything: no shard either.",
			sel:    labels.Everything(),
		},
		"Shard": {
			reason: "A shard's cache selects the managed kinds and both configuration kinds, and nothing else (not the usages, not the CRDs).",
			sel:    sel,
			want:   []string{"Branch", "ClusterProviderConfig", "CommitRequest", "File", "Mirror", "ProviderConfig", "PullRequest"},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			var got []string
			for o, b := range ShardCache(tc.sel) {
				if b.Label == nil || b.Label.String() != tc.sel.String() {
					t.Errorf("%s\n%T selects %v, want %v", tc.reason, o, b.Label, tc.sel)
				}
				got = append(got, reflect.TypeOf(o).Elem().Name())
			}
			sort.Strings(got)
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("%s\nShardCache(...): -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}
