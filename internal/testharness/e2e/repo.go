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

package e2e

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"sigs.k8s.io/controller-runtime/pkg/client"

	mirrorcontroller "github.com/crossplane-contrib/provider-git/internal/controller/mirror"
	"github.com/crossplane-contrib/provider-git/internal/git"
	"github.com/crossplane-contrib/provider-git/internal/testharness/testenv"
)

// CommitsOf returns the commits on branch whose trailers carry uid.
func (f *Fixture) CommitsOf(t *testing.T, branch, uid string) []string {
	t.Helper()
	var shas []string
	for _, e := range f.Repo.Log(t, branch) {
		for _, v := range e.Trailers[git.TrailerUID] {
			if v == uid {
				shas = append(shas, e.SHA)
			}
		}
	}
	return shas
}

// CommitCounts counts, per resource UID, the commits on branch whose
// trailers name it.
func (f *Fixture) CommitCounts(t *testing.T, branch string) map[string]int {
	t.Helper()
	n := map[string]int{}
	for _, e := range f.Repo.Log(t, branch) {
		for _, uid := range e.Trailers[git.TrailerUID] {
			n[uid]++
		}
	}
	return n
}

// WaitRemote polls the fixture's repository until branch holds want (the
// seed README aside), then fails with what it saw.
func (f *Fixture) WaitRemote(t *testing.T, branch string, want map[string]string) {
	t.Helper()
	testenv.Eventually(t, 30*time.Second, func() error {
		if diff := cmp.Diff(want, f.Files(t, branch)); diff != "" {
			return fmt.Errorf("%s does not hold what it should: -want, +got:\n%s", branch, diff)
		}
		return nil
	})
}

// Stays checks that branch's head is still head once obj's controller has
// finished two more reconciles of it and every change they handed to a
// branch writer has landed. poke asks for the reconciles as a user would
// (crossplane.io/reconcile-requested-at); without it the provider is asked
// as a Git event would (a converged resource is not polled on a timer).
func (f *Fixture) Stays(t *testing.T, obj client.Object, poke bool, branch, head, why string) {
	t.Helper()
	ReconciledAgain(t, 2, poke, obj)
	WritesLanded(t)
	if got := f.Repo.Head(t, branch); got != head {
		t.Fatalf("%s: %s moved from %s to %s", why, branch, head, got)
	}
}

// GitOut runs git in the fixture's bare repository.
func (f *Fixture) GitOut(t *testing.T, args ...string) string {
	t.Helper()
	out, err := testenv.Git(f.Repo.Dir, nil, args...)
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimSpace(out)
}

// Mirrored is what the folder holds besides the marker and foreign files.
func (f *Fixture) Mirrored(t *testing.T) map[string]string {
	t.Helper()
	out := map[string]string{}
	for p, c := range f.Files(t, "main") {
		if strings.HasPrefix(p, MirrorFolder+"/") && p != MirrorFolder+"/"+mirrorcontroller.MarkerFile && !strings.HasSuffix(p, ".md") {
			out[p] = c
		}
	}
	return out
}

// WaitMirrored polls the repository until MirrorFolder holds want (see
// Mirrored), then fails with what it saw.
func (f *Fixture) WaitMirrored(t *testing.T, want map[string]string) {
	t.Helper()
	testenv.Eventually(t, 30*time.Second, func() error {
		if diff := cmp.Diff(want, f.Mirrored(t)); diff != "" {
			return fmt.Errorf("the folder does not mirror the namespace: -want, +got:\n%s", diff)
		}
		return nil
	})
}
