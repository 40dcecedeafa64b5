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

package claim

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestOverlaps(t *testing.T) {
	type args struct{ a, b Loc }
	cases := map[string]struct {
		reason string
		args   args
		want   bool
	}{
		"SamePath": {
			reason: "Two Files writing one path of one branch collide.",
			args:   args{Loc{Branch: "main", Path: "a/b.yaml"}, Loc{Branch: "main", Path: "a/b.yaml"}},
			want:   true,
		},
		"OtherBranch": {
			reason: "The same path on two branches is two files.",
			args:   args{Loc{Branch: "main", Path: "a.yaml"}, Loc{Branch: "dev", Path: "a.yaml"}},
		},
		"OtherPath": {
			reason: "Two paths of one branch do not collide.",
			args:   args{Loc{Branch: "main", Path: "a.yaml"}, Loc{Branch: "main", Path: "b.yaml"}},
		},
		"FileUnderFile": {
			reason: "A path below another File's path is a path conflict Git reports, not a claim: Files claim exact paths.",
			args:   args{Loc{Branch: "main", Path: "a"}, Loc{Branch: "main", Path: "a/b"}},
		},
		"SameBranch": {
			reason: "Two Branches naming one branch collide.",
			args:   args{Loc{Branch: "main"}, Loc{Branch: "main"}},
			want:   true,
		},
		"BranchAndFile": {
			reason: "A Branch and a File on it do not compete.",
			args:   args{Loc{Branch: "main"}, Loc{Branch: "main", Path: "a"}},
		},
		"BranchAndWholeTree": {
			reason: "A claim of the whole tree is a folder claim, not a claim of the branch.",
			args:   args{Loc{Branch: "main"}, Loc{Branch: "main", Prefix: true}},
		},
		"FileInFolder": {
			reason: "A folder claim covers every path under it.",
			args:   args{Loc{Branch: "main", Path: "apps/x/a.yaml"}, Loc{Branch: "main", Path: "apps", Prefix: true}},
			want:   true,
		},
		"FileNamedLikeFolder": {
			reason: "A file and a folder of one name cannot both exist.",
			args:   args{Loc{Branch: "main", Path: "apps"}, Loc{Branch: "main", Path: "apps", Prefix: true}},
			want:   true,
		},
		"FileBesideFolder": {
			reason: "A folder is a whole path component: apps2/x is not under apps.",
			args:   args{Loc{Branch: "main", Path: "apps2/x"}, Loc{Branch: "main", Path: "apps", Prefix: true}},
		},
		"NestedFolders": {
			reason: "A folder inside a claimed folder overlaps it, either way round.",
			args:   args{Loc{Branch: "main", Path: "apps/x", Prefix: true}, Loc{Branch: "main", Path: "apps", Prefix: true}},
			want:   true,
		},
		"SiblingFolders": {
			reason: "Folders side by side do not overlap.",
			args:   args{Loc{Branch: "main", Path: "apps/x", Prefix: true}, Loc{Branch: "main", Path: "apps/y", Prefix: true}},
		},
		"WholeTree": {
			reason: "A claim of the whole tree covers every path of the branch.",
			args:   args{Loc{Branch: "main", Path: "deep/in/it"}, Loc{Branch: "main", Prefix: true}},
			want:   true,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			for _, ab := range [][2]Loc{{tc.args.a, tc.args.b}, {tc.args.b, tc.args.a}} {
				if diff := cmp.Diff(tc.want, Overlaps(ab[0], ab[1])); diff != "" {
					t.Errorf("%s\nOverlaps(%+v, %+v): -want, +got:\n%s", tc.reason, ab[0], ab[1], diff)
				}
			}
		})
	}
}

// TestKeysFindExactlyTheOverlaps checks the index scheme against Overlaps on
// every pair of a set of claims: a lookup of Queries(a) finds b exactly when
// they overlap (never fewer; never more, so a check reads no resource it
// does not need).
func TestKeysFindExactlyTheOverlaps(t *testing.T) {
	var locs []Loc
	for _, b := range []string{"main", "dev"} {
		locs = append(locs, Loc{Branch: b}, Loc{Branch: b, Prefix: true})
		for _, p := range []string{"a", "a/b", "a/b/c", "a/bc", "ab", "x/a", "a/b/c/d.yaml"} {
			locs = append(locs, Loc{Branch: b, Path: p}, Loc{Branch: b, Path: p, Prefix: true})
		}
	}
	for _, a := range locs {
		for _, k := range Keys(a) {
			if !a.Prefix && strings.HasPrefix(k, keyFolder) {
				t.Errorf("Keys(%+v) holds folder key %q: lookups of kinds that claim no folders skip those", a, k)
			}
		}
		for _, b := range locs {
			found := false
			for _, q := range Queries(a) {
				for _, k := range Keys(b) {
					found = found || (a.Branch == b.Branch && q == k)
				}
			}
			if diff := cmp.Diff(Overlaps(a, b), found); diff != "" {
				t.Errorf("Queries(%+v) against Keys(%+v): found must equal Overlaps: -want, +got:\n%s", a, b, diff)
			}
		}
	}
}

func TestHolder(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	at := Loc{Branch: "main", Path: "app.yaml"}
	c := func(ns, name string, created time.Time, deleting bool) Claimant {
		return Claimant{Kind: "File", Namespace: ns, Name: name, Created: created, Deleting: deleting, Loc: at}
	}
	type args struct {
		self   Claimant
		others []Claimant
	}
	type want struct {
		holder Claimant
		held   bool
	}
	cases := map[string]struct {
		reason string
		args   args
		want   want
	}{
		"Alone": {
			reason: "A claimant that finds only itself holds what it claims.",
			args:   args{self: c("a", "f", t0, false), others: []Claimant{c("a", "f", t0, false)}},
		},
		"Later": {
			reason: "The later claimant is held off by the earlier one, whatever its namespace.",
			args:   args{self: c("a", "f", t0.Add(time.Second), false), others: []Claimant{c("z", "g", t0, false)}},
			want:   want{holder: c("z", "g", t0, false), held: true},
		},
		"Earlier": {
			reason: "The earlier claimant keeps its claim when a later one appears.",
			args:   args{self: c("z", "g", t0, false), others: []Claimant{c("a", "f", t0.Add(time.Second), false)}},
		},
		"TieByNamespaceName": {
			reason: "Created in the same second: namespace, then name decide, the same in every process.",
			args:   args{self: c("b", "a", t0, false), others: []Claimant{c("a", "z", t0, false), c("b", "b", t0, false)}},
			want:   want{holder: c("a", "z", t0, false), held: true},
		},
		"FirstOfMany": {
			reason: "The holder named is the first claimant, not merely an earlier one.",
			args: args{self: c("a", "f", t0.Add(3*time.Second), false), others: []Claimant{
				c("a", "g", t0.Add(2*time.Second), false), c("a", "h", t0, false), c("a", "i", t0.Add(time.Second), false),
			}},
			want: want{holder: c("a", "h", t0, false), held: true},
		},
		"EarlierIsDeleting": {
			reason: "A claimant being deleted holds nothing against a live one: the later one takes over.",
			args:   args{self: c("a", "f", t0.Add(time.Second), false), others: []Claimant{c("a", "g", t0, true)}},
		},
		"DeletingWhileLaterLives": {
			reason: "The first claimant being deleted lets go to a live later one rather than removing what it keeps.",
			args:   args{self: c("a", "f", t0, true), others: []Claimant{c("a", "g", t0.Add(time.Second), false)}},
			want:   want{holder: c("a", "g", t0.Add(time.Second), false), held: true},
		},
		"AllDeleting": {
			reason: "When every claimant is being deleted, each deletes: nobody keeps the thing.",
			args:   args{self: c("a", "f", t0, true), others: []Claimant{c("a", "g", t0.Add(time.Second), true)}},
		},
		"SharedSelf": {
			reason: "A Shared claimant (it may change nothing) is never held off.",
			args: args{self: func() Claimant { s := c("a", "f", t0.Add(time.Second), false); s.Shared = true; return s }(),
				others: []Claimant{c("a", "g", t0, false)}},
		},
		"SharedFirst": {
			reason: "A Shared first claimant holds nobody off.",
			args: args{self: c("a", "f", t0.Add(time.Second), false),
				others: []Claimant{func() Claimant { o := c("a", "g", t0, false); o.Shared = true; return o }()}},
		},
		"DeletingWhileASharerRelies": {
			reason: "A claimant being deleted lets go while a Shared one still relies on what it claims.",
			args: args{self: c("a", "f", t0, true),
				others: []Claimant{func() Claimant { o := c("a", "g", t0.Add(time.Second), false); o.Shared = true; return o }()}},
			want: want{holder: func() Claimant { o := c("a", "g", t0.Add(time.Second), false); o.Shared = true; return o }(), held: true},
		},
		"NoOverlap": {
			reason: "Claimants of other locations do not count.",
			args: args{self: c("a", "f", t0.Add(time.Second), false), others: []Claimant{
				{Kind: "File", Namespace: "a", Name: "g", Created: t0, Loc: Loc{Branch: "main", Path: "other.yaml"}},
			}},
		},
		"FolderAbove": {
			reason: "A folder claimed earlier holds off a later File under it.",
			args: args{self: c("a", "f", t0.Add(time.Second), false), others: []Claimant{
				{Kind: "Mirror", Namespace: "a", Name: "m", Created: t0, Loc: Loc{Branch: "main", Prefix: true}},
			}},
			want: want{holder: Claimant{Kind: "Mirror", Namespace: "a", Name: "m", Created: t0, Loc: Loc{Branch: "main", Prefix: true}}, held: true},
		},
		"DeletingUnderAFolder": {
			reason: "A File being deleted under a live Mirror's folder removes its file: the Mirror keeps something else there, not the File's content.",
			args: args{self: c("a", "f", t0, true), others: []Claimant{
				{Kind: "Mirror", Namespace: "a", Name: "m", Created: t0.Add(time.Second), Loc: Loc{Branch: "main", Prefix: true}},
			}},
		},
		"DeletingAroundANestedFolder": {
			reason: "A Mirror being deleted around a live Mirror's nested folder removes what it wrote: the other writes its own folder.",
			args: args{self: Claimant{Kind: "Mirror", Namespace: "a", Name: "outer", Created: t0, Deleting: true, Loc: Loc{Branch: "main", Path: "x", Prefix: true}},
				others: []Claimant{{Kind: "Mirror", Namespace: "a", Name: "inner", Created: t0.Add(time.Second), Loc: Loc{Branch: "main", Path: "x/y", Prefix: true}}}},
		},
		"DeletingWhileHeldOff": {
			reason: "A later File being deleted under an earlier Mirror's folder never wrote: it lets go, leaving the Mirror's file.",
			args: args{self: c("a", "f", t0.Add(time.Second), true), others: []Claimant{
				{Kind: "Mirror", Namespace: "a", Name: "m", Created: t0, Loc: Loc{Branch: "main", Prefix: true}},
			}},
			want: want{holder: Claimant{Kind: "Mirror", Namespace: "a", Name: "m", Created: t0, Loc: Loc{Branch: "main", Prefix: true}}, held: true},
		},
		"DeletingSameFolder": {
			reason: "A Mirror being deleted while a live Mirror claims the very same folder lets go: the other keeps it.",
			args: args{self: Claimant{Kind: "Mirror", Namespace: "a", Name: "first", Created: t0, Deleting: true, Loc: Loc{Branch: "main", Path: "x", Prefix: true}},
				others: []Claimant{{Kind: "Mirror", Namespace: "b", Name: "second", Created: t0.Add(time.Second), Loc: Loc{Branch: "main", Path: "x", Prefix: true}}}},
			want: want{holder: Claimant{Kind: "Mirror", Namespace: "b", Name: "second", Created: t0.Add(time.Second), Loc: Loc{Branch: "main", Path: "x", Prefix: true}}, held: true},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			h, held := Holder(tc.args.self, tc.args.others)
			if diff := cmp.Diff(tc.want, want{holder: h, held: held}, cmp.AllowUnexported(want{})); diff != "" {
				t.Errorf("%s\nHolder(...): -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}

func TestClaimantString(t *testing.T) {
	got := fmt.Sprint(Claimant{Kind: "File", Namespace: "team-a", Name: "readme"})
	if diff := cmp.Diff("File team-a/readme", got); diff != "" {
		t.Errorf("a claimant is named kind namespace/name: -want, +got:\n%s", diff)
	}
}
