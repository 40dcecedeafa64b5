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

package share

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/validation"
)

func TestGroupFor(t *testing.T) {
	canonical := func(s string) string {
		sel, err := labels.Parse(s)
		if err != nil {
			t.Fatal(err)
		}
		return sel.String()
	}
	type want struct {
		Same bool
	}
	cases := map[string]struct {
		reason string
		a, b   string
		want   want
	}{
		"EveryObject": {
			reason: "Replicas that watch every object share one group, as before.",
			a:      "", b: "",
			want: want{Same: true},
		},
		"ShardNotCommon": {
			reason: "A replica of a labelled shard must not join the replicas that watch everything.",
			a:      "", b: "shard=x",
			want: want{Same: false},
		},
		"TwoShards": {
			reason: "Two shards are two groups.",
			a:      "shard=x", b: "shard=y",
			want: want{Same: false},
		},
		"SameSelectorAnyOrder": {
			reason: "Replicas of one shard share a group however the selector is spelled.",
			a:      canonical("shard=x,tier=a"), b: canonical("tier=a, shard=x"),
			want: want{Same: true},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			ga, gb := GroupFor(tc.a), GroupFor(tc.b)
			for _, g := range []string{ga, gb} {
				if errs := validation.IsValidLabelValue(g); len(errs) > 0 {
					t.Errorf("%s\nGroupFor(...) = %q is no label value: %v", tc.reason, g, errs)
				}
			}
			if diff := cmp.Diff(tc.want, want{Same: ga == gb}); diff != "" {
				t.Errorf("%s\nGroupFor(%q) = %q, GroupFor(%q) = %q: -want, +got:\n%s", tc.reason, tc.a, ga, tc.b, gb, diff)
			}
		})
	}
}
