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

package controller_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/crossplane/crossplane-runtime/v2/pkg/meta"
	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/crossplane-contrib/provider-git/apis/v1alpha1"
	"github.com/crossplane-contrib/provider-git/internal/controller/commitrequest"
	"github.com/crossplane-contrib/provider-git/internal/controller/spec"
	"github.com/crossplane-contrib/provider-git/internal/git"
	"github.com/crossplane-contrib/provider-git/internal/testenv"
)

const releaseMessage = "Release 1.2\n\nBumps the app and retires the seed README."

func newCommitRequest(f *fixture, name, message string, files ...v1alpha1.CommitFile) *v1alpha1.CommitRequest {
	cr := &v1alpha1.CommitRequest{
		ObjectMeta: metav1.ObjectMeta{Namespace: f.ns, Name: name},
		Spec: v1alpha1.CommitRequestSpec{ForProvider: v1alpha1.CommitRequestParameters{
			Branch: "main", Message: message, Files: files,
		}},
	}
	cr.Spec.ProviderConfigReference = pcRef()
	return cr
}

// releaseFiles write a file, an object and delete the seed README.
func releaseFiles() []v1alpha1.CommitFile {
	return []v1alpha1.CommitFile{
		{Path: "VERSION", Content: ptr.To("1.2\n")},
		{Path: "apps/cm.yaml", Object: &runtime.RawExtension{Raw: []byte(
			`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"app","uid":"x"},"data":{"v":"1.2"}}`)}},
		{Path: "README.md", Delete: true},
	}
}

var releaseTree = map[string]string{
	"VERSION":      "1.2\n",
	"apps/cm.yaml": "apiVersion: v1\ndata:\n  v: \"1.2\"\nkind: ConfigMap\nmetadata:\n  name: app\n",
}

// commitsOf returns the commits on branch whose trailers carry uid.
func (f *fixture) commitsOf(t *testing.T, branch, uid string) []string {
	t.Helper()
	var shas []string
	for _, e := range f.repo.Log(t, branch) {
		for _, v := range e.Trailers[git.TrailerUID] {
			if v == uid {
				shas = append(shas, e.SHA)
			}
		}
	}
	return shas
}

// landedAs checks a CommitRequest is converged and records commit.
func landedAs(t *testing.T, cr *v1alpha1.CommitRequest, commit string) func() error {
	return func() error {
		if err := readyAndCurrent(t, cr)(); err != nil {
			return err
		}
		want := v1alpha1.CommitRequestObservation{Commit: commit, Branch: "main"}
		if diff := cmp.Diff(want, cr.Status.AtProvider); diff != "" {
			return fmt.Errorf("status.atProvider: -want, +got:\n%s", diff)
		}
		if got := meta.GetExternalName(cr); got != commit {
			return fmt.Errorf("external name is %q, want the commit %s", got, commit)
		}
		return nil
	}
}

func TestCommitRequestLifecycle(t *testing.T) {
	startProvider(t, "")
	ctx := context.Background()

	t.Run("LandsOnceThenDeleteChangesNothing", func(t *testing.T) {
		t.Parallel()
		f := newFixture(t)
		seed := f.repo.Head(t, "main")
		cr := newCommitRequest(f, "release", releaseMessage, releaseFiles()...)
		create(t, cr)
		waitFor(t, 30*time.Second, cr, readyAndCurrent(t, cr))

		log := f.repo.Log(t, "main")
		if diff := cmp.Diff(2, len(log)); diff != "" {
			t.Fatalf("one commit on the seed: -want, +got:\n%s", diff)
		}
		head := log[0]
		if diff := cmp.Diff([]string{seed}, head.Parents); diff != "" {
			t.Errorf("the commit sits on the seed: -want, +got:\n%s", diff)
		}
		if body, _, _ := strings.Cut(head.Message, "\n\n"+git.TrailerResource); body != releaseMessage {
			t.Errorf("the commit has exactly the request's message: -want, +got:\n%s", cmp.Diff(releaseMessage, body))
		}
		if diff := cmp.Diff([]string{"CommitRequest/" + f.ns + "/release"}, head.Trailers[git.TrailerResource]); diff != "" {
			t.Errorf("the commit names the request: -want, +got:\n%s", diff)
		}
		if diff := cmp.Diff(releaseTree, f.repo.Files(t, "main")); diff != "" {
			t.Errorf("the commit holds exactly the request's files: -want, +got:\n%s", diff)
		}
		waitFor(t, 30*time.Second, cr, landedAs(t, cr, head.SHA))

		// Polls after landing never land it again, nor write status.
		rv := cr.GetResourceVersion()
		f.stays(t, cr, false, "main", head.SHA, "a landed CommitRequest must not commit again")
		if err := cp.Client.Get(ctx, client.ObjectKeyFromObject(cr), cr); err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(rv, cr.GetResourceVersion()); diff != "" {
			t.Errorf("a landed CommitRequest must not write on each poll (resourceVersion): -want, +got:\n%s", diff)
		}
		if diff := cmp.Diff([]string{head.SHA}, f.commitsOf(t, "main", string(cr.GetUID()))); diff != "" {
			t.Errorf("one commit carries the request: -want, +got:\n%s", diff)
		}

		// Deleting it changes nothing in Git: history stays.
		if err := cp.Client.Delete(ctx, cr); err != nil {
			t.Fatal(err)
		}
		waitGone(t, cr)
		if diff := cmp.Diff(head.SHA, f.repo.Head(t, "main")); diff != "" {
			t.Errorf("deleting a CommitRequest must not commit: -want, +got:\n%s", diff)
		}
	})

	t.Run("AlreadySatisfiedMakesNoCommit", func(t *testing.T) {
		t.Parallel()
		f := newFixture(t)
		seed := f.repo.Head(t, "main")
		cr := newCommitRequest(f, "noop", "Nothing to do", v1alpha1.CommitFile{Path: "README.md", Content: ptr.To("seed\n")},
			v1alpha1.CommitFile{Path: "absent.txt", Delete: true})
		create(t, cr)
		// No empty commit: the head that already satisfies it is its commit.
		waitFor(t, 30*time.Second, cr, landedAs(t, cr, seed))
		f.stays(t, cr, false, "main", seed, "a satisfied CommitRequest must not commit")
	})

	t.Run("SecretRefused", func(t *testing.T) {
		t.Parallel()
		f := newFixture(t)
		seed := f.repo.Head(t, "main")
		cr := newCommitRequest(f, "leak", "Add credentials",
			v1alpha1.CommitFile{Path: "ok.txt", Content: ptr.To("ok\n")},
			v1alpha1.CommitFile{Path: "db.yaml", Object: &runtime.RawExtension{Raw: []byte(
				`{"apiVersion":"v1","kind":"Secret","metadata":{"name":"db"},"stringData":{"password":"hunter2"}}`)}})
		create(t, cr)
		waitFor(t, 30*time.Second, cr, stalledWith(t, cr, spec.ReasonSecretRefused))
		f.stays(t, cr, false, "main", seed, "no part of a request holding a Secret may land")
	})
}

// TestCommitRequestRestartBetweenPushAndStatusWrite lands a request's
// change with the engine, as a provider would just before it died, and then
// starts a provider: it must recognise the commit by its UID trailer and
// not push the request again.
func TestCommitRequestRestartBetweenPushAndStatusWrite(t *testing.T) {
	for name, sameCache := range map[string]bool{"FreshCache": false, "SameCache": true} {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			f := newFixture(t)
			cr := newCommitRequest(f, "release", releaseMessage, releaseFiles()...)
			// The intent was recorded before the push, as the reconciler does
			// before it calls Create.
			meta.SetExternalCreatePending(cr, time.Now())
			create(t, cr)
			if err := cp.Client.Get(ctx, client.ObjectKeyFromObject(cr), cr); err != nil {
				t.Fatal(err)
			}

			dir := t.TempDir()
			cache, err := git.NewCache(dir)
			if err != nil {
				t.Fatal(err)
			}
			repo, err := cache.Repository(git.Remote{URL: httpGit.RepoURL(f.repo.Name), Auth: &git.BasicAuth{Username: gitUser, Password: gitToken}})
			if err != nil {
				t.Fatal(err)
			}
			change, err := commitrequest.ChangeFor(cr, git.Signature{Name: "E2E", Email: "e2e@example.org"})
			if err != nil {
				t.Fatal(err)
			}
			res := repo.Submit(ctx, "main", change)
			cache.Close()
			if res.Err != nil || res.UpToDate {
				t.Fatalf("landing the request's change: %+v", res)
			}
			// History moves on before the provider is back: pushing the
			// request again would now make a second commit, so only finding
			// the first one by its UID keeps it at one.
			later, err := f.repo.Commit("main", testenv.CommitSpec{Message: "next release", Files: map[string]string{"VERSION": "1.3\n"}})
			if err != nil {
				t.Fatal(err)
			}

			if !sameCache {
				dir = ""
			}
			startProvider(t, dir)
			waitFor(t, 30*time.Second, cr, landedAs(t, cr, res.Commit))
			f.stays(t, cr, false, "main", later, "a restarted provider must not land the request again")
			if diff := cmp.Diff([]string{res.Commit}, f.commitsOf(t, "main", string(cr.GetUID()))); diff != "" {
				t.Errorf("one commit carries the request: -want, +got:\n%s", diff)
			}
			want := map[string]string{"VERSION": "1.3\n", "apps/cm.yaml": releaseTree["apps/cm.yaml"]}
			if diff := cmp.Diff(want, f.repo.Files(t, "main")); diff != "" {
				t.Errorf("the branch holds the request's files and the later change: -want, +got:\n%s", diff)
			}
		})
	}
}
