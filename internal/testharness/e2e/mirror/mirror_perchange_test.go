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

package mirror_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	testingclock "k8s.io/utils/clock/testing"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/crossplane-contrib/provider-git/apis/v1alpha1"
	"github.com/crossplane-contrib/provider-git/internal/git"
	"github.com/crossplane-contrib/provider-git/internal/mirror"
	"github.com/crossplane-contrib/provider-git/internal/testharness/e2e"
	"github.com/crossplane-contrib/provider-git/internal/testharness/testenv"
)

// TestMirrorCommitModes edits 20 mirrored ConfigMaps within one commit
// window and reads what the push brought: with commit PerChange, 20
// commits, one per ConfigMap in the order they were edited (not their
// names' order), each naming its object and touching only its file; with
// Batched (the default), one commit. Either way one push. The window runs
// on a fake clock the test steps once the Mirror's change holds every edit,
// so how fast a loaded machine delivers the watch events decides nothing.
func TestMirrorCommitModes(t *testing.T) {
	const n = 20
	const window = 2 * time.Second
	type want struct {
		// subjects of the commits the push brought, oldest first; %s is
		// the namespace.
		subjects []string
		pushes   int
	}
	perChange := make([]string, 0, n)
	for i := n - 1; i >= 0; i-- {
		perChange = append(perChange, fmt.Sprintf("Update ConfigMap %%[1]s/cm-%02d", i))
	}
	cases := map[string]struct {
		reason string
		commit v1alpha1.MirrorCommit
		want   want
	}{
		"PerChange": {
			reason: "One commit per edited object, in the order of the edits, one push.",
			commit: v1alpha1.MirrorCommitPerChange,
			want:   want{subjects: perChange, pushes: 1},
		},
		"Batched": {
			reason: "The default: one commit for the window, one push.",
			want:   want{subjects: []string{fmt.Sprintf("Mirror %%[1]s/m: %d file(s) in %s", n, e2e.MirrorFolder)}, pushes: 1},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			clk := testingclock.NewFakeClock(time.Now())
			e2e.StartProvider(t, "", e2e.WithGitClock(clk))
			f := e2e.NewFixture(t)
			e2e.SetWindow(t, f, window)
			ctx := context.Background()
			for i := range n {
				e2e.Create(t, e2e.ConfigMap(f.Namespace, fmt.Sprintf("cm-%02d", i), nil, map[string]string{"i": fmt.Sprint(i)}))
			}
			m := e2e.NewMirror(f.Namespace, "m", v1alpha1.MirrorParameters{Commit: tc.commit, Resources: []v1alpha1.MirrorResource{{APIVersion: "v1", Kind: "ConfigMap"}}}, e2e.PCRef())
			e2e.Create(t, m)
			// The first write, which claims the folder, is one commit in
			// either mode.
			stepWhenQueued(t, clk, window)
			testenv.Eventually(t, time.Minute, func() error {
				if got := len(f.Mirrored(t)); got != n {
					return fmt.Errorf("the folder holds %d of %d ConfigMaps", got, n)
				}
				return nil
			})
			e2e.WaitFor(t, time.Minute, m, e2e.ReadyAndCurrent(t, m))
			e2e.WritesLanded(t)

			head0, pushes0, posts0 := f.Repo.Head(t, "main"), len(f.Repo.Reflog(t, "main")), e2e.HTTPGit.Counts().ReceivePackPosts
			// Edited from the last name to the first, so that the order
			// of the commits can only come from the order of the edits.
			for i := n - 1; i >= 0; i-- {
				cm := &corev1.ConfigMap{}
				if err := e2e.CP.Client.Get(ctx, client.ObjectKey{Namespace: f.Namespace, Name: fmt.Sprintf("cm-%02d", i)}, cm); err != nil {
					t.Fatal(err)
				}
				cm.Data["edited"] = "yes"
				if err := e2e.CP.Client.Update(ctx, cm); err != nil {
					t.Fatal(err)
				}
			}
			mirrorSaw(t, f.Namespace, n)
			// A reconcile that starts now plans on a snapshot with every
			// edit, and replaces the queued change with it.
			e2e.ReconciledAgain(t, 1, false, m)
			if got := len(f.Repo.Reflog(t, "main")) - pushes0; got != 0 {
				t.Fatalf("%d pushes before the commit window closed, want 0", got)
			}
			stepWhenQueued(t, clk, window)
			testenv.Eventually(t, time.Minute, func() error {
				if got := editedIn(f.Mirrored(t)); got != n {
					return fmt.Errorf("the folder holds %d of %d edited ConfigMaps", got, n)
				}
				return nil
			})
			e2e.WritesLanded(t)

			got := want{pushes: len(f.Repo.Reflog(t, "main")) - pushes0}
			if posts := int(e2e.HTTPGit.Counts().ReceivePackPosts - posts0); posts != got.pushes {
				t.Errorf("%s\n%d receive-pack requests for %d pushes that landed: a push was refused and sent again", tc.reason, posts, got.pushes)
			}
			log := f.GitOut(t, "log", "--reverse", "--format=%H %s", head0+"..main")
			for _, l := range strings.Split(log, "\n") {
				sha, subject, _ := strings.Cut(l, " ")
				got.subjects = append(got.subjects, subject)
				if tc.commit != v1alpha1.MirrorCommitPerChange {
					continue
				}
				// Each commit touches its object's file and nothing else,
				// and its trailers name the Mirror.
				name := subject[strings.LastIndex(subject, "/")+1:]
				if files := f.GitOut(t, "diff-tree", "--no-commit-id", "--name-only", "-r", sha); files != e2e.ObjPath(f.Namespace, "core", "configmap", name) {
					t.Errorf("%s\ncommit %q touches %q, want only its object's file", tc.reason, subject, files)
				}
				if tr := f.GitOut(t, "log", "-1", "--format=%(trailers:key="+git.TrailerResource+",valueonly)", sha); tr != "Mirror/"+f.Namespace+"/m" {
					t.Errorf("%s\ncommit %q names resource %q, want the Mirror", tc.reason, subject, tr)
				}
			}
			wantSubjects := make([]string, 0, len(tc.want.subjects))
			for _, s := range tc.want.subjects {
				wantSubjects = append(wantSubjects, fmt.Sprintf(s, f.Namespace))
			}
			if diff := cmp.Diff(want{subjects: wantSubjects, pushes: tc.want.pushes}, got, cmp.AllowUnexported(want{})); diff != "" {
				t.Errorf("%s\n-want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}

// stepWhenQueued steps the engine's clock past the commit window once a
// change is queued and the writer waits for the window to close.
func stepWhenQueued(t *testing.T, clk *testingclock.FakeClock, window time.Duration) {
	t.Helper()
	testenv.Eventually(t, time.Minute, func() error {
		if got := e2e.Running.Cache.Pending(); got != 1 || !clk.HasWaiters() {
			return fmt.Errorf("%d changes queued (want 1), writer waiting: %t", got, clk.HasWaiters())
		}
		return nil
	})
	clk.Step(window)
}

// mirrorSaw waits until the provider's shared watch of ns's ConfigMaps
// holds n edited ones: every Mirror reconcile that starts afterwards plans
// with them. It asks the watch as an owner of its own, which shares the
// Mirror's informer, and lets go of it afterwards.
func mirrorSaw(t *testing.T, ns string, n int) {
	t.Helper()
	probe := types.NamespacedName{Namespace: ns, Name: "probe"}
	defer e2e.Running.Mirrors.Release(probe)
	req := mirror.Request{Owner: probe, Kinds: []mirror.Kind{{APIVersion: "v1", Kind: "ConfigMap"}}, Namespaces: []string{ns}, SkipControlled: true, SkipGenerated: true}
	testenv.Eventually(t, time.Minute, func() error {
		snap, err := e2e.Running.Mirrors.Ensure(context.Background(), req)
		if err != nil {
			return err
		}
		edited := 0
		for _, o := range snap.Objects {
			if strings.Contains(string(o.Content), "edited:") {
				edited++
			}
		}
		if !snap.Synced || edited != n {
			return fmt.Errorf("the watch holds %d of %d edited ConfigMaps (synced: %t)", edited, n, snap.Synced)
		}
		return nil
	})
}
