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
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/crossplane-contrib/provider-git/apis/v1alpha1"
	"github.com/crossplane-contrib/provider-git/internal/testharness/e2e"
	"github.com/crossplane-contrib/provider-git/internal/testharness/testenv"
)

// Status writes of a Mirror, as e2e.WriteCounter names them.
const (
	mirrorStatusWrite    = "PATCH mirrors/status"
	mirrorStatusConflict = "PATCH mirrors/status (Conflict)"
)

// TestMirrorStatusWritesPerCommitWindow creates a burst of ConfigMaps in a
// mirrored namespace, then edits some and deletes some, and counts the
// Mirror's status writes in each phase. A Mirror publishes that it is
// committing once, and then once per push that lands (the commit, the
// counts, and whether more waits); the events in between change nothing it
// publishes. So each phase costs at most its pushes + 1 status writes, none
// is refused by the optimistic lock (a write computed from a cache that has
// not seen the Mirror's own previous write), and a steady state costs none.
// Before, every event that moved objects or pending was a write, and about
// one in four was a Conflict.
func TestMirrorStatusWritesPerCommitWindow(t *testing.T) {
	const n, edits, deletes = 60, 20, 5
	counter := e2e.NewWriteCounter()
	counter.KeepBodies(mirrorStatusWrite)
	metrics, reg := e2e.WithNewGitMetrics(t)
	e2e.StartProvider(t, "", metrics, counter.Through())
	f := e2e.NewFixture(t)
	ctx := context.Background()
	m := e2e.NewMirror(f.Namespace, "m", v1alpha1.MirrorParameters{Resources: []v1alpha1.MirrorResource{{APIVersion: "v1", Kind: "ConfigMap"}}}, e2e.PCRef())
	e2e.Create(t, m)
	e2e.WaitFor(t, time.Minute, m, e2e.ReadyAndCurrent(t, m))
	e2e.WritesLanded(t)

	want, edited := map[string]string{}, 0
	// phase runs act, waits until the folder and the Mirror's status say
	// what it did, and checks the status writes it cost.
	phase := func(name string, act func()) {
		t.Helper()
		before, pushes0 := counter.Of(f.Namespace), e2e.CounterSum(t, reg, "provider_git_pushes_total")
		bodies0 := len(counter.Bodies(f.Namespace))
		act()
		testenv.Eventually(t, time.Minute, func() error {
			files := f.Mirrored(t)
			if got := len(files); got != len(want) {
				return fmt.Errorf("the folder holds %d objects, want %d", got, len(want))
			}
			if got := editedIn(files); got != edited {
				return fmt.Errorf("the folder holds %d edited objects, want %d", got, edited)
			}
			return nil
		})
		e2e.WaitFor(t, time.Minute, m, func() error {
			if err := e2e.ReadyAndCurrent(t, m)(); err != nil {
				return err
			}
			if m.Status.AtProvider.Objects != len(want) || m.Status.AtProvider.Pending != 0 {
				return fmt.Errorf("status counts %d objects, %d pending; want %d, 0", m.Status.AtProvider.Objects, m.Status.AtProvider.Pending, len(want))
			}
			return nil
		})
		e2e.WritesLanded(t)
		got := e2e.Minus(counter.Of(f.Namespace), before)
		pushes := int(e2e.CounterSum(t, reg, "provider_git_pushes_total") - pushes0)
		t.Logf("%s: %d status writes, %d refused (Conflict), %d pushes", name, got[mirrorStatusWrite], got[mirrorStatusConflict], pushes)
		if got[mirrorStatusWrite] > pushes+1 {
			t.Errorf("%s: %d Mirror status writes for %d pushes, want <= %d; the writes:\n%s", name, got[mirrorStatusWrite], pushes, pushes+1,
				strings.Join(counter.Bodies(f.Namespace)[bodies0:], "\n"))
		}
		if got[mirrorStatusConflict] != 0 {
			t.Errorf("%s: %d Mirror status writes refused with Conflict, want 0", name, got[mirrorStatusConflict])
		}
	}
	for p := range f.Mirrored(t) {
		want[p] = ""
	}

	phase("create", func() {
		for i := range n {
			cm := e2e.ConfigMap(f.Namespace, fmt.Sprintf("cm-%03d", i), nil, map[string]string{"i": fmt.Sprint(i)})
			e2e.Create(t, cm)
			want[e2e.ObjPath(f.Namespace, "core", "configmap", cm.Name)] = ""
		}
	})
	phase("edit", func() {
		for i := range edits {
			cm := &corev1.ConfigMap{}
			if err := e2e.CP.Client.Get(ctx, client.ObjectKey{Namespace: f.Namespace, Name: fmt.Sprintf("cm-%03d", i)}, cm); err != nil {
				t.Fatal(err)
			}
			cm.Data["edited"] = "yes"
			if err := e2e.CP.Client.Update(ctx, cm); err != nil {
				t.Fatal(err)
			}
		}
		edited = edits
	})
	phase("delete", func() {
		for i := range deletes {
			name := fmt.Sprintf("cm-%03d", n-1-i)
			if err := e2e.CP.Client.Delete(ctx, e2e.ConfigMap(f.Namespace, name, nil, nil)); err != nil {
				t.Fatal(err)
			}
			delete(want, e2e.ObjPath(f.Namespace, "core", "configmap", name))
		}
	})

	// Steady state: two polls of the repository, nothing moves.
	before, polls0 := counter.Of(f.Namespace), e2e.CounterSum(t, reg, "provider_git_polls_total")
	settled, bodiesSteady := m.Status.DeepCopy(), len(counter.Bodies(f.Namespace))
	testenv.Eventually(t, time.Minute, func() error {
		if got := e2e.CounterSum(t, reg, "provider_git_polls_total") - polls0; got < 2 {
			return fmt.Errorf("%.0f of 2 polls of the repository", got)
		}
		return nil
	})
	if got := e2e.Minus(counter.Of(f.Namespace), before); got[mirrorStatusWrite]+got[mirrorStatusConflict] != 0 {
		if err := e2e.CP.Client.Get(ctx, client.ObjectKeyFromObject(m), m); err != nil {
			t.Fatal(err)
		}
		t.Errorf("steady state: %d Mirror status writes over two polls, want 0:\n%s\nstatus, -settled +now:\n%s\nthe writes:\n%s",
			got[mirrorStatusWrite]+got[mirrorStatusConflict], e2e.Show(got), cmp.Diff(settled, &m.Status), strings.Join(counter.Bodies(f.Namespace)[bodiesSteady:], "\n"))
	}
}

// editedIn counts the files that hold an edited object.
func editedIn(files map[string]string) int {
	n := 0
	for _, c := range files {
		if strings.Contains(c, "edited: \"yes\"") || strings.Contains(c, "edited: yes") {
			n++
		}
	}
	return n
}
