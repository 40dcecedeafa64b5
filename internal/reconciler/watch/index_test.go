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

package watch

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/util/workqueue"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
)

func ref(kind, name string) Ref {
	return Ref{Kind: kind, NamespacedName: types.NamespacedName{Namespace: "ns", Name: name}}
}

func TestIndexMoved(t *testing.T) {
	type args struct {
		track  map[Ref]Loc
		forget []Ref
		repo   string
		branch string
		paths  []string
		all    bool
	}
	tracked := map[Ref]Loc{
		ref("File", "a"):   {Repo: "r1", Branch: "main", Path: "apps/a.yaml"},
		ref("File", "b"):   {Repo: "r1", Branch: "main", Path: "apps/b.yaml"},
		ref("File", "c"):   {Repo: "r1", Branch: "dev", Path: "apps/a.yaml"},
		ref("File", "d"):   {Repo: "r2", Branch: "main", Path: "apps/a.yaml"},
		ref("Branch", "m"): {Repo: "r1", Branch: "main"},
		ref("Mirror", "x"): {Repo: "r1", Branch: "main", Path: "apps", Folder: true},
		ref("Mirror", "y"): {Repo: "r1", Branch: "main", Path: "ap", Folder: true},
		ref("Mirror", "z"): {Repo: "r1", Branch: "dev", Path: ".", Folder: true},
	}
	cases := map[string]struct {
		reason string
		args   args
		want   []Ref
	}{
		"OnlyChangedPaths": {
			reason: "A move wakes the Files at the changed paths of that branch of that repository, and the Branches tracking its head.",
			args:   args{track: tracked, repo: "r1", branch: "main", paths: []string{"apps/a.yaml", "unmanaged.txt"}},
			want:   []Ref{ref("File", "a"), ref("Branch", "m"), ref("Mirror", "x")},
		},
		"FolderOnlyWhenUnder": {
			reason: "A folder is woken by a path under it, once however many paths changed there, and not by a path that merely starts with its name.",
			args:   args{track: tracked, repo: "r1", branch: "main", paths: []string{"apps/x/1.yaml", "apps/x/2.yaml", "apples.txt"}},
			want:   []Ref{ref("Branch", "m"), ref("Mirror", "x")},
		},
		"RootFolder": {
			reason: "The root folder holds every path of its branch.",
			args:   args{track: tracked, repo: "r1", branch: "dev", paths: []string{"anything.txt"}},
			want:   []Ref{ref("Mirror", "z")},
		},
		"FolderForgotten": {
			reason: "A forgotten folder is not woken.",
			args:   args{track: tracked, forget: []Ref{ref("Mirror", "x")}, repo: "r1", branch: "main", paths: []string{"apps/x/1.yaml"}},
			want:   []Ref{ref("Branch", "m")},
		},
		"FolderMovedToPath": {
			reason: "Tracking a resource at a path instead of a folder forgets the folder.",
			args: args{track: map[Ref]Loc{ref("Mirror", "x"): {Repo: "r1", Branch: "main", Path: "other.yaml"}},
				repo: "r1", branch: "main", paths: []string{"apps/x/1.yaml", "other.yaml"}},
			want: []Ref{ref("Branch", "m"), ref("Mirror", "x")},
		},
		"All": {
			reason: "A move that cannot be narrowed down wakes everything on the branch.",
			args:   args{track: tracked, repo: "r1", branch: "main", all: true},
			want:   []Ref{ref("File", "a"), ref("File", "b"), ref("Branch", "m"), ref("Mirror", "x"), ref("Mirror", "y")},
		},
		"Forgotten": {
			reason: "A forgotten resource is not woken.",
			args:   args{track: tracked, forget: []Ref{ref("File", "a")}, repo: "r1", branch: "main", paths: []string{"apps/a.yaml"}},
			want:   []Ref{ref("Branch", "m"), ref("Mirror", "x")},
		},
		"Moved": {
			reason: "Tracking a resource again at another path forgets the old one.",
			args: args{track: map[Ref]Loc{ref("File", "a"): {Repo: "r1", Branch: "main", Path: "new.yaml"}},
				repo: "r1", branch: "main", paths: []string{"apps/a.yaml"}},
			want: []Ref{ref("Branch", "m"), ref("Mirror", "x")},
		},
		"OtherRepository": {
			reason: "Nothing in another repository is woken.",
			args:   args{track: tracked, repo: "r3", branch: "main", all: true},
			want:   nil,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			x := NewIndex()
			for r, l := range tracked {
				x.Track(r, l)
			}
			for r, l := range tc.args.track {
				x.Track(r, l)
			}
			for _, r := range tc.args.forget {
				x.Forget(r)
			}
			got := x.Moved(tc.args.repo, tc.args.branch, tc.args.paths, tc.args.all)
			less := func(a, b Ref) bool { return a.Kind+a.Name < b.Kind+b.Name }
			if diff := cmp.Diff(tc.want, got, cmpopts.SortSlices(less), cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("%s\nMoved(...): -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}

func TestSourceKeepsEarlyWakes(t *testing.T) {
	s := NewSource()
	nn := types.NamespacedName{Namespace: "ns", Name: "a"}
	// A wake before the controller started (a gated controller) is kept.
	s.Wake(nn)
	s.Wake(nn)
	q := workqueue.NewTypedRateLimitingQueue(workqueue.DefaultTypedControllerRateLimiter[reconcile.Request]())
	defer q.ShutDown()
	if err := s.Start(context.Background(), q); err != nil {
		t.Fatal(err)
	}
	s.Wake(types.NamespacedName{Namespace: "ns", Name: "b"})
	if got := q.Len(); got != 2 {
		t.Errorf("queue holds %d requests, want 2 (a once, b)", got)
	}
}

// TestIndexForgetLeavesNoRepository: forgetting the last resource of a
// repository takes the repository out of Repos, which is what ends its
// poll loop; Tracks follows Track and Forget.
func TestIndexForgetLeavesNoRepository(t *testing.T) {
	x := NewIndex()
	b, m := ref("Branch", "b"), ref("Mirror", "m")
	x.Track(b, Loc{Repo: "r1", Branch: "main"})
	x.Track(m, Loc{Repo: "r1", Branch: "main", Path: "live", Folder: true})
	x.Forget(b)
	if !x.Tracks(m) || x.Tracks(b) {
		t.Errorf("Tracks after forgetting the Branch: Branch %t, Mirror %t; want false, true", x.Tracks(b), x.Tracks(m))
	}
	if diff := cmp.Diff(map[string]struct{}{"r1": {}}, x.Repos()); diff != "" {
		t.Errorf("Repos while the Mirror lives: -want, +got:\n%s", diff)
	}
	x.Forget(m)
	if diff := cmp.Diff(map[string]struct{}{}, x.Repos()); diff != "" {
		t.Errorf("Repos once the last resource is forgotten: -want, +got:\n%s", diff)
	}
}

// TestRefKey: a resource's write key is its kind, namespace and name, the
// one name under which the gone-path drops its write's result.
func TestRefKey(t *testing.T) {
	if diff := cmp.Diff("Mirror/ns/m", ref("Mirror", "m").Key()); diff != "" {
		t.Errorf("Key: -want, +got:\n%s", diff)
	}
}
