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

package config

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/types"

	"github.com/crossplane-contrib/provider-git/internal/git"
)

// TestChecksTolerate: one transient failure after a good check is kept
// from status, the next in a row is not, nor one before any good check;
// a good check in between starts the count again.
func TestChecksTolerate(t *testing.T) {
	key := types.NamespacedName{Namespace: "a", Name: "git"}
	good := func(c *checks) { c.remember(key, 1, git.Remote{URL: "https://h/r.git"}, time.Now(), false) }
	cases := map[string]struct {
		reason string
		steps  []func(c *checks) bool
		want   []bool
	}{
		"NeverGood": {
			reason: "A configuration never seen working reports its first failure.",
			steps:  []func(*checks) bool{func(c *checks) bool { return c.tolerate(key) }},
			want:   []bool{false},
		},
		"OnceAfterGood": {
			reason: "The first failure after a good check is tolerated, the second in a row reported, and so is the third.",
			steps: []func(*checks) bool{
				func(c *checks) bool { good(c); return c.tolerate(key) },
				func(c *checks) bool { return c.tolerate(key) },
				func(c *checks) bool { return c.tolerate(key) },
			},
			want: []bool{true, false, false},
		},
		"GoodBetween": {
			reason: "A good check between two failures: each is the first after a good one.",
			steps: []func(*checks) bool{
				func(c *checks) bool { good(c); return c.tolerate(key) },
				func(c *checks) bool { good(c); return c.tolerate(key) },
			},
			want: []bool{true, true},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			c := &checks{}
			got := make([]bool, 0, len(tc.steps))
			for _, s := range tc.steps {
				got = append(got, s(c))
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("%s\ntolerated: -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}
