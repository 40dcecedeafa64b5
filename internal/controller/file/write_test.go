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

package file

import (
	"context"
	"testing"
	"time"

	"github.com/crossplane/crossplane-runtime/v2/pkg/errors"
	"github.com/crossplane/crossplane-runtime/v2/pkg/test"
	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"
	"github.com/google/go-cmp/cmp"

	"github.com/crossplane-contrib/provider-git/apis/v1alpha1"
	"github.com/crossplane-contrib/provider-git/internal/git"
	"github.com/crossplane-contrib/provider-git/internal/reconciler/managed"
	"github.com/crossplane-contrib/provider-git/internal/reconciler/spec"
	"github.com/crossplane-contrib/provider-git/internal/testharness/controllertest"
	"github.com/crossplane-contrib/provider-git/internal/validate"
)

// converged makes a File Ready and Synced as of observed, at generation gen.
func converged(gen, observed int64) func(*v1alpha1.File) {
	return func(f *v1alpha1.File) {
		f.SetGeneration(gen)
		f.Status.ObservedGeneration = observed
		f.SetConditions(xpv2.Available().WithObservedGeneration(observed), xpv2.ReconcileSuccess().WithObservedGeneration(observed))
	}
}

// TestWrite covers Create, Update and Delete: each hands one change for the
// File's own path to the branch writer, and the next Observe records the
// commit that carried it or reports its error.
func TestWrite(t *testing.T) {
	resource := git.Resource{Kind: v1alpha1.FileKind, Namespace: "team-a", Name: "app", UID: "uid-1"}
	type args struct {
		action Action
		mg     *v1alpha1.File
		result git.Result
	}
	type want struct {
		change *git.Change // nil: nothing may be submitted
		err    error
		commit string
	}
	cases := map[string]struct {
		reason string
		args   args
		want   want
	}{
		"Create": {
			reason: "A create submits the content with the default message, the connection's author and the File's trailer.",
			args:   args{action: ActionCreate, mg: fileOn("apps/x.yaml", "a: 1\n"), result: git.Result{Commit: landed}},
			want: want{commit: landed, change: &git.Change{
				Puts:    map[string]git.File{"apps/x.yaml": {Content: []byte("a: 1\n")}},
				Message: "Create apps/x.yaml", Author: author, Resource: resource,
			}},
		},
		"UpdateExecutable": {
			reason: "An update submits the new content and mode.",
			args: args{action: ActionUpdate, result: git.Result{Commit: landed}, mg: fileOn("run.sh", "#!/bin/sh\n", func(f *v1alpha1.File) {
				f.Spec.ForProvider.Mode = v1alpha1.FileModeExecutable
			})},
			want: want{commit: landed, change: &git.Change{
				Puts:    map[string]git.File{"run.sh": {Content: []byte("#!/bin/sh\n"), Executable: true}},
				Message: "Update run.sh", Author: author, Resource: resource,
			}},
		},
		"UpdatePutsBack": {
			reason: "An update of a File Ready and Synced at its generation puts back what someone else changed in Git: its change is a put-back, which the writer need not hold for a whole window.",
			args:   args{action: ActionUpdate, result: git.Result{Commit: landed}, mg: fileOn("x", "a", converged(3, 3))},
			want: want{commit: landed, change: &git.Change{
				Puts: map[string]git.File{"x": {Content: []byte("a")}}, Message: "Update x", Author: author, Resource: resource, PutBack: true,
			}},
		},
		"UpdateOfAnEditedSpec": {
			reason: "An update after the spec changed (conditions of an older generation) is a change of the spec, batched for the whole window.",
			args:   args{action: ActionUpdate, result: git.Result{Commit: landed}, mg: fileOn("x", "a", converged(4, 3))},
			want: want{commit: landed, change: &git.Change{
				Puts: map[string]git.File{"x": {Content: []byte("a")}}, Message: "Update x", Author: author, Resource: resource,
			}},
		},
		"UpdateAfterAFailure": {
			reason: "An update of a File not Synced (its last write of this generation failed) is not taken for a put-back.",
			args: args{action: ActionUpdate, result: git.Result{Commit: landed}, mg: fileOn("x", "a", converged(3, 3), func(f *v1alpha1.File) {
				f.SetConditions(xpv2.ReconcileError(errors.New("boom")).WithObservedGeneration(3))
			})},
			want: want{commit: landed, change: &git.Change{
				Puts: map[string]git.File{"x": {Content: []byte("a")}}, Message: "Update x", Author: author, Resource: resource,
			}},
		},
		"CreateIsNoPutBack": {
			reason: "A create is never a put-back, even of a File that was Ready (its file was deleted in Git): it may be one of many a Composition adds, batched for the whole window.",
			args:   args{action: ActionCreate, result: git.Result{Commit: landed}, mg: fileOn("x", "a", converged(3, 3))},
			want: want{commit: landed, change: &git.Change{
				Puts: map[string]git.File{"x": {Content: []byte("a")}}, Message: "Create x", Author: author, Resource: resource,
			}},
		},
		"Delete": {
			reason: "A delete submits the removal of the path, with the template's message.",
			args: args{action: ActionDelete, result: git.Result{Commit: landed}, mg: fileOn("x", "a", func(f *v1alpha1.File) {
				f.Spec.ForProvider.CommitMessage = "{{.Action}} {{.Path}}"
			})},
			want: want{commit: landed, change: &git.Change{
				Deletes: []string{"x"}, Message: "delete x", Author: author, Resource: resource,
			}},
		},
		"InvalidSpec": {
			reason: "A spec the provider refuses is never submitted.",
			args:   args{action: ActionCreate, mg: fileOn("../x", "a")},
			want:   want{err: spec.Invalid(validate.Path("../x"))},
		},
		"BranchGone": {
			reason: "A branch that vanished is transient, and the engine's error stays in the chain.",
			args:   args{action: ActionCreate, mg: fileOn("x", "a"), result: git.Result{Err: controllertest.GitErr(git.KindBranchNotFound)}},
			want: want{change: &git.Change{Puts: map[string]git.File{"x": {Content: []byte("a")}}, Message: "Create x", Author: author, Resource: resource},
				err: errors.Wrapf(errors.Wrapf(controllertest.GitErr(git.KindBranchNotFound), errNoBranchFmt, "main"), errWriteFmt, "x", "main")},
		},
		"PathConflict": {
			reason: "A path that is a directory in Git is the File's problem: PathConflict, naming its path and branch, not InvalidProviderConfig.",
			args:   args{action: ActionCreate, mg: fileOn("apps", "a"), result: git.Result{Err: controllertest.GitErr(git.KindPathConflict)}},
			want: want{change: &git.Change{Puts: map[string]git.File{"apps": {Content: []byte("a")}}, Message: "Create apps", Author: author, Resource: resource},
				err: errors.Wrapf(managed.Stalled(spec.ReasonPathConflict, controllertest.GitErr(git.KindPathConflict)), errWriteFmt, "apps", "main")},
		},
		"InvalidChange": {
			reason: "A change the engine refuses as malformed is the File's spec: InvalidSpec.",
			args:   args{action: ActionDelete, mg: fileOn("x", "a"), result: git.Result{Err: controllertest.GitErr(git.KindInvalidChange)}},
			want: want{change: &git.Change{Deletes: []string{"x"}, Message: "Delete x", Author: author, Resource: resource},
				err: errors.Wrapf(managed.Stalled(spec.ReasonInvalidSpec, controllertest.GitErr(git.KindInvalidChange)), errRemoveFmt, "x", "main")},
		},
		"RepositoryInvalid": {
			reason: "A repository the engine cannot use is still the configuration's problem.",
			args:   args{action: ActionUpdate, mg: fileOn("x", "a"), result: git.Result{Err: controllertest.GitErr(git.KindInvalid)}},
			want: want{change: &git.Change{Puts: map[string]git.File{"x": {Content: []byte("a")}}, Message: "Update x", Author: author, Resource: resource},
				err: errors.Wrapf(managed.Stalled(spec.ReasonInvalidConfig, controllertest.GitErr(git.KindInvalid)), errWriteFmt, "x", "main")},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			var submitted *git.Change
			repo := &fakeRepository{t: t, SubmitFn: func(branch string, c git.Change) git.Result {
				if branch != "main" {
					t.Errorf("Submit to %q, want main", branch)
				}
				submitted = &c
				return tc.args.result
			}}
			// Every change carries its configuration's commit window: the
			// clone is shared by configurations with their own.
			window := 3 * time.Second
			if tc.want.change != nil {
				tc.want.change.Window = &window
			}
			wakes := 0
			e := &external{repo: repo, watch: nopTracker{wakes: &wakes}, claims: controllertest.Unclaimed, author: author, window: &window, maxAge: maxAge}
			if tc.args.action == ActionDelete {
				deleted(tc.args.mg)
			}
			var err error
			switch tc.args.action {
			case ActionCreate:
				_, err = e.Create(context.Background(), tc.args.mg)
			case ActionUpdate:
				_, err = e.Update(context.Background(), tc.args.mg)
			case ActionDelete:
				_, err = e.Delete(context.Background(), tc.args.mg)
			}
			// A write hands the change over and returns Waiting; its
			// outcome is what the next Observe collects after the wake.
			if _, waiting := managed.IsWaiting(err); waiting {
				if wakes != 1 {
					t.Errorf("%s\n%s(...): %d wakes, want 1", tc.reason, tc.args.action, wakes)
				}
				err = e.collect(tc.args.mg)
			} else if submitted != nil {
				t.Errorf("%s\n%s(...) = %v after submitting, want Waiting", tc.reason, tc.args.action, err)
			}
			got := want{change: submitted, err: err, commit: tc.args.mg.Status.AtProvider.Commit}
			if diff := cmp.Diff(tc.want, got, cmp.AllowUnexported(want{}), test.EquateErrors()); diff != "" {
				t.Errorf("%s\n%s(...): -want, +got:\n%s", tc.reason, tc.args.action, diff)
			}
			controllertest.SameReason(t, tc.reason, tc.want.err, err)
			if res := tc.args.result.Err; res != nil {
				var ge *git.Error
				if !errors.Is(err, res) || !errors.As(err, &ge) || ge.Kind != git.KindOf(res) {
					t.Errorf("%s\n%s(...) = %v: errors.Is/As must find the engine's error", tc.reason, tc.args.action, err)
				}
			}
		})
	}
}
