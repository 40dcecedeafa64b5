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

package resources_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/crossplane/crossplane-runtime/v2/pkg/meta"
	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/crossplane-contrib/provider-git/apis/v1alpha1"
	"github.com/crossplane-contrib/provider-git/internal/controller/commitrequest"
	"github.com/crossplane-contrib/provider-git/internal/git"
	"github.com/crossplane-contrib/provider-git/internal/reconciler/spec"
	"github.com/crossplane-contrib/provider-git/internal/testharness/e2e"
	"github.com/crossplane-contrib/provider-git/internal/testharness/testenv"
)

// landedAs checks a CommitRequest is converged and records commit.
func landedAs(t *testing.T, cr *v1alpha1.CommitRequest, commit string) func() error {
	return func() error {
		if err := e2e.ReadyAndCurrent(t, cr)(); err != nil {
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
	e2e.StartProvider(t, "")
	ctx := context.Background()

	t.Run("LandsOnceThenDeleteChangesNothing", func(t *testing.T) {
		t.Parallel()
		f := e2e.NewFixture(t)
		seed := f.Repo.Head(t, "main")
		cr := e2e.NewCommitRequest(f, "release", e2e.ReleaseMessage, e2e.ReleaseFiles()...)
		e2e.Create(t, cr)
		e2e.WaitFor(t, 30*time.Second, cr, e2e.ReadyAndCurrent(t, cr))

		log := f.Repo.Log(t, "main")
		if diff := cmp.Diff(2, len(log)); diff != "" {
			t.Fatalf("one commit on the seed: -want, +got:\n%s", diff)
		}
		head := log[0]
		if diff := cmp.Diff([]string{seed}, head.Parents); diff != "" {
			t.Errorf("the commit sits on the seed: -want, +got:\n%s", diff)
		}
		if body, _, _ := strings.Cut(head.Message, "\n\n"+git.TrailerResource); body != e2e.ReleaseMessage {
			t.Errorf("the commit has exactly the request's message: -want, +got:\n%s", cmp.Diff(e2e.ReleaseMessage, body))
		}
		if diff := cmp.Diff([]string{"CommitRequest/" + f.Namespace + "/release"}, head.Trailers[git.TrailerResource]); diff != "" {
			t.Errorf("the commit names the request: -want, +got:\n%s", diff)
		}
		if diff := cmp.Diff(e2e.ReleaseTree, f.Repo.Files(t, "main")); diff != "" {
			t.Errorf("the commit holds exactly the request's files: -want, +got:\n%s", diff)
		}
		e2e.WaitFor(t, 30*time.Second, cr, landedAs(t, cr, head.SHA))

		// Polls after landing never land it again, nor write status.
		rv := cr.GetResourceVersion()
		f.Stays(t, cr, false, "main", head.SHA, "a landed CommitRequest must not commit again")
		if err := e2e.CP.Client.Get(ctx, client.ObjectKeyFromObject(cr), cr); err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(rv, cr.GetResourceVersion()); diff != "" {
			t.Errorf("a landed CommitRequest must not write on each poll (resourceVersion): -want, +got:\n%s", diff)
		}
		if diff := cmp.Diff([]string{head.SHA}, f.CommitsOf(t, "main", string(cr.GetUID()))); diff != "" {
			t.Errorf("one commit carries the request: -want, +got:\n%s", diff)
		}

		// Deleting it changes nothing in Git: history stays.
		if err := e2e.CP.Client.Delete(ctx, cr); err != nil {
			t.Fatal(err)
		}
		e2e.WaitGone(t, cr)
		if diff := cmp.Diff(head.SHA, f.Repo.Head(t, "main")); diff != "" {
			t.Errorf("deleting a CommitRequest must not commit: -want, +got:\n%s", diff)
		}
	})

	t.Run("AlreadySatisfiedMakesNoCommit", func(t *testing.T) {
		t.Parallel()
		f := e2e.NewFixture(t)
		seed := f.Repo.Head(t, "main")
		cr := e2e.NewCommitRequest(f, "noop", "Nothing to do", v1alpha1.CommitFile{Path: "README.md", Content: ptr.To("seed\n")},
			v1alpha1.CommitFile{Path: "absent.txt", Delete: true})
		e2e.Create(t, cr)
		// No empty commit: the head that already satisfies it is its commit.
		e2e.WaitFor(t, 30*time.Second, cr, landedAs(t, cr, seed))
		f.Stays(t, cr, false, "main", seed, "a satisfied CommitRequest must not commit")
	})

	t.Run("SecretRefused", func(t *testing.T) {
		t.Parallel()
		f := e2e.NewFixture(t)
		seed := f.Repo.Head(t, "main")
		cr := e2e.NewCommitRequest(f, "leak", "Add credentials",
			v1alpha1.CommitFile{Path: "ok.txt", Content: ptr.To("ok\n")},
			v1alpha1.CommitFile{Path: "db.yaml", Object: &runtime.RawExtension{Raw: []byte(
				`{"apiVersion":"v1","kind":"Secret","metadata":{"name":"db"},"stringData":{"password":"hunter2"}}`)}})
		e2e.Create(t, cr)
		e2e.WaitFor(t, 30*time.Second, cr, e2e.StalledWith(t, cr, spec.ReasonSecretRefused))
		f.Stays(t, cr, false, "main", seed, "no part of a request holding a Secret may land")
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
			f := e2e.NewFixture(t)
			cr := e2e.NewCommitRequest(f, "release", e2e.ReleaseMessage, e2e.ReleaseFiles()...)
			// The intent was recorded before the push, as the reconciler does
			// before it calls Create.
			meta.SetExternalCreatePending(cr, time.Now())
			e2e.Create(t, cr)
			if err := e2e.CP.Client.Get(ctx, client.ObjectKeyFromObject(cr), cr); err != nil {
				t.Fatal(err)
			}

			dir := t.TempDir()
			cache, err := git.NewCache(dir)
			if err != nil {
				t.Fatal(err)
			}
			repo, err := cache.Repository(git.Remote{URL: e2e.HTTPGit.RepoURL(f.Repo.Name), Auth: &git.BasicAuth{Username: e2e.GitUser, Password: e2e.GitToken}})
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
			later, err := f.Repo.Commit("main", testenv.CommitSpec{Message: "next release", Files: map[string]string{"VERSION": "1.3\n"}})
			if err != nil {
				t.Fatal(err)
			}

			if !sameCache {
				dir = ""
			}
			e2e.StartProvider(t, dir)
			e2e.WaitFor(t, 30*time.Second, cr, landedAs(t, cr, res.Commit))
			f.Stays(t, cr, false, "main", later, "a restarted provider must not land the request again")
			if diff := cmp.Diff([]string{res.Commit}, f.CommitsOf(t, "main", string(cr.GetUID()))); diff != "" {
				t.Errorf("one commit carries the request: -want, +got:\n%s", diff)
			}
			want := map[string]string{"VERSION": "1.3\n", "apps/cm.yaml": e2e.ReleaseTree["apps/cm.yaml"]}
			if diff := cmp.Diff(want, f.Repo.Files(t, "main")); diff != "" {
				t.Errorf("the branch holds the request's files and the later change: -want, +got:\n%s", diff)
			}
		})
	}
}
