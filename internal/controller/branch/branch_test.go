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

package branch

import (
	"context"
	"testing"
	"time"

	"github.com/crossplane/crossplane-runtime/v2/pkg/errors"
	xpmanaged "github.com/crossplane/crossplane-runtime/v2/pkg/reconciler/managed"
	"github.com/crossplane/crossplane-runtime/v2/pkg/test"
	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/crossplane-contrib/provider-git/apis/v1alpha1"
	"github.com/crossplane-contrib/provider-git/internal/git"
	"github.com/crossplane-contrib/provider-git/internal/reconciler/claim"
	"github.com/crossplane-contrib/provider-git/internal/reconciler/managed"
	"github.com/crossplane-contrib/provider-git/internal/reconciler/spec"
	"github.com/crossplane-contrib/provider-git/internal/reconciler/watch"
	"github.com/crossplane-contrib/provider-git/internal/testharness/controllertest"
	"github.com/crossplane-contrib/provider-git/internal/validate"
)

const (
	sha    = "0123456789abcdef0123456789abcdef01234567"
	maxAge = time.Minute
)

var errBoom = errors.New("boom")

// fakeRepository is a repository whose methods are the closures a case sets;
// a method a case does not expect fails the case.
type fakeRepository struct {
	t               *testing.T
	RefreshFn       func(maxAge time.Duration, branches ...string) error
	HeadFn          func(branch string) (string, error)
	DefaultBranchFn func() (string, error)
	CreateBranchFn  func(branch, from string) git.Result
	DeleteBranchFn  func(branch string) git.Result
}

func (f *fakeRepository) unexpected(method string) {
	f.t.Helper()
	f.t.Errorf("unexpected call of %s", method)
}

func (f *fakeRepository) Refresh(_ context.Context, maxAge time.Duration, branches ...string) error {
	if f.RefreshFn == nil {
		f.unexpected("Refresh")
		return nil
	}
	return f.RefreshFn(maxAge, branches...)
}

func (f *fakeRepository) Head(branch string) (string, error) {
	if f.HeadFn == nil {
		f.unexpected("Head")
		return "", nil
	}
	return f.HeadFn(branch)
}

func (f *fakeRepository) DefaultBranch(_ context.Context) (string, error) {
	if f.DefaultBranchFn == nil {
		f.unexpected("DefaultBranch")
		return "", nil
	}
	return f.DefaultBranchFn()
}

func (f *fakeRepository) CreateBranchAs(_ context.Context, branch, from string, _ git.Signature) git.Result {
	if f.CreateBranchFn == nil {
		f.unexpected("CreateBranch")
		return git.Result{}
	}
	return f.CreateBranchFn(branch, from)
}

func (f *fakeRepository) DeleteBranch(_ context.Context, branch string) git.Result {
	if f.DeleteBranchFn == nil {
		f.unexpected("DeleteBranch")
		return git.Result{}
	}
	return f.DeleteBranchFn(branch)
}

func (f *fakeRepository) ID() string { return "repo" }

func (f *fakeRepository) Poll(context.Context) ([]git.Move, error) { return nil, nil }

// nopTracker is a watcher that tracks nothing.
type nopTracker struct{}

func (nopTracker) Track(watch.Repository, watch.Ref, string, string) {}
func (nopTracker) Forget(watch.Ref)                                  {}

func newBranch(branch, from string) *v1alpha1.Branch {
	return &v1alpha1.Branch{
		ObjectMeta: metav1.ObjectMeta{Namespace: "team-a", Name: "b"},
		Spec:       v1alpha1.BranchSpec{ForProvider: v1alpha1.BranchParameters{Branch: branch, From: from}},
	}
}

func TestObserve(t *testing.T) {
	type want struct {
		o      xpmanaged.ExternalObservation
		err    error
		commit string
	}
	errHeld := managed.Stalled(claim.ReasonConflict, errBoom)
	deleting := newBranch("feature", "")
	deleting.SetDeletionTimestamp(&metav1.Time{Time: time.Now()})
	cases := map[string]struct {
		reason string
		repo   fakeRepository
		claims claim.CheckFn
		mg     *v1alpha1.Branch
		want   want
	}{
		"HeldByAnother": {
			reason: "A Branch whose branch another Branch claimed first reads and creates nothing: the claim's Conflict is the answer.",
			mg:     newBranch("feature", ""),
			claims: func(context.Context, claim.Kind, claim.Object) (bool, error) { return false, errHeld },
			want:   want{err: errHeld},
		},
		"DeletedWhileAnotherKeepsIt": {
			reason: "A deleted Branch whose branch another Branch keeps lets go: reported gone, so the branch is not deleted.",
			mg:     deleting,
			claims: func(context.Context, claim.Kind, claim.Object) (bool, error) { return true, nil },
			want:   want{o: xpmanaged.ExternalObservation{ResourceExists: false}},
		},
		"InvalidName": {
			reason: "A branch name git would refuse is the spec's problem, found before any fetch.",
			mg:     newBranch("a..b", ""),
			want:   want{err: spec.Invalid(validate.BranchName("a..b"))},
		},
		"RefreshFailed": {
			reason: "A fetch that fails for a reason that may clear is retried.",
			mg:     newBranch("feature", ""),
			repo: fakeRepository{RefreshFn: func(time.Duration, ...string) error {
				return controllertest.GitErr(git.KindTransient)
			}},
			want: want{err: errors.Wrap(controllertest.GitErr(git.KindTransient), errRefresh)},
		},
		"RefreshRefused": {
			reason: "Refused credentials need a human: Stalled with the Git reason.",
			mg:     newBranch("feature", ""),
			repo: fakeRepository{RefreshFn: func(time.Duration, ...string) error {
				return controllertest.GitErr(git.KindAuth)
			}},
			want: want{err: errors.Wrap(managed.Stalled(spec.ReasonAuthenticationFailed, controllertest.GitErr(git.KindAuth)), errRefresh)},
		},
		"Missing": {
			reason: "A branch the remote does not have does not exist: the fetch's BranchNotFound is the answer, not an error.",
			mg:     newBranch("feature", ""),
			repo: fakeRepository{
				RefreshFn: func(d time.Duration, b ...string) error {
					if d != maxAge || len(b) != 1 || b[0] != "feature" {
						t.Errorf("Refresh(%s, %v), want Refresh(%s, [feature])", d, b, maxAge)
					}
					return controllertest.GitErr(git.KindBranchNotFound)
				},
				HeadFn: func(string) (string, error) { return "", controllertest.GitErr(git.KindBranchNotFound) },
			},
			want: want{o: xpmanaged.ExternalObservation{ResourceExists: false}},
		},
		"HeadFailed": {
			reason: "Any other error reading the head is reported.",
			mg:     newBranch("feature", ""),
			repo: fakeRepository{
				RefreshFn: func(time.Duration, ...string) error { return nil },
				HeadFn:    func(string) (string, error) { return "", errBoom },
			},
			want: want{err: errors.Wrap(errBoom, errHead)},
		},
		"Exists": {
			reason: "A branch that exists is up to date whatever it points at, and its head is recorded.",
			mg:     newBranch("feature", "main"),
			repo: fakeRepository{
				RefreshFn: func(time.Duration, ...string) error { return nil },
				HeadFn:    func(string) (string, error) { return sha, nil },
			},
			want: want{o: xpmanaged.ExternalObservation{ResourceExists: true, ResourceUpToDate: true}, commit: sha},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			tc.repo.t = t
			claims := tc.claims
			if claims == nil {
				claims = controllertest.Unclaimed
			}
			e := &external{watch: nopTracker{}, claims: claims, repo: &tc.repo, maxAge: maxAge}
			o, err := e.Observe(context.Background(), tc.mg)
			got := want{o: o, err: err, commit: tc.mg.Status.AtProvider.Commit}
			if diff := cmp.Diff(tc.want, got, cmp.AllowUnexported(want{}), test.EquateErrors()); diff != "" {
				t.Errorf("%s\nObserve(...): -want, +got:\n%s", tc.reason, diff)
			}
			controllertest.SameReason(t, tc.reason, tc.want.err, err)
		})
	}
}

func TestCreate(t *testing.T) {
	type want struct {
		err    error
		commit string
	}
	cases := map[string]struct {
		reason string
		repo   fakeRepository
		mg     *v1alpha1.Branch
		want   want
	}{
		"FromDefaultBranch": {
			reason: "Without from, the branch starts at the repository's default branch.",
			mg:     newBranch("feature", ""),
			repo: fakeRepository{
				DefaultBranchFn: func() (string, error) { return "trunk", nil },
				CreateBranchFn: func(b, from string) git.Result {
					if b != "feature" || from != "trunk" {
						return git.Result{Err: errors.Errorf("CreateBranch(%q, %q), want (feature, trunk)", b, from)}
					}
					return git.Result{Commit: sha}
				},
			},
			want: want{commit: sha},
		},
		"FromNamed": {
			reason: "from names the start point; the default branch is not asked for.",
			mg:     newBranch("feature", sha),
			repo: fakeRepository{
				CreateBranchFn: func(b, from string) git.Result {
					if from != sha {
						return git.Result{Err: errors.Errorf("CreateBranch from %q, want %s", from, sha)}
					}
					return git.Result{Commit: sha}
				},
			},
			want: want{commit: sha},
		},
		"NoDefaultBranch": {
			reason: "An empty repository has no default branch to start from.",
			mg:     newBranch("feature", ""),
			repo: fakeRepository{
				DefaultBranchFn: func() (string, error) { return "", controllertest.GitErr(git.KindBranchNotFound) },
			},
			want: want{err: errors.Wrap(managed.Stalled(spec.ReasonBranchNotFound, controllertest.GitErr(git.KindBranchNotFound)), errCreate)},
		},
		"EmptyRepository": {
			reason: "A repository with no branch at all has no default branch: the engine, asked with no start point, creates the first commit.",
			mg:     newBranch("main", ""),
			repo: fakeRepository{
				DefaultBranchFn: func() (string, error) {
					return "", &git.Error{Kind: git.KindBranchNotFound, Err: errors.Wrap(git.ErrEmptyRepository, "no default branch")}
				},
				CreateBranchFn: func(b, from string) git.Result {
					if b != "main" || from != "" {
						return git.Result{Err: errors.Errorf("CreateBranch(%q, %q), want (main, \"\")", b, from)}
					}
					return git.Result{Commit: sha}
				},
			},
			want: want{commit: sha},
		},
		"Rejected": {
			reason: "A push the server refuses (a protected namespace) needs a human.",
			mg:     newBranch("feature", "main"),
			repo: fakeRepository{
				CreateBranchFn: func(string, string) git.Result { return git.Result{Err: controllertest.GitErr(git.KindRejected)} },
			},
			want: want{err: errors.Wrap(managed.Stalled(spec.ReasonPushRejected, controllertest.GitErr(git.KindRejected)), errCreate)},
		},
		"BadStartPoint": {
			reason: "A start point the engine refuses as malformed is the Branch's spec, not its ProviderConfig.",
			mg:     newBranch("feature", "not-a-sha"),
			repo: fakeRepository{
				CreateBranchFn: func(string, string) git.Result { return git.Result{Err: controllertest.GitErr(git.KindInvalidChange)} },
			},
			want: want{err: errors.Wrap(managed.Stalled(spec.ReasonInvalidSpec, controllertest.GitErr(git.KindInvalidChange)), errCreate)},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			tc.repo.t = t
			e := &external{watch: nopTracker{}, claims: controllertest.Unclaimed, repo: &tc.repo, maxAge: maxAge}
			c, err := e.Create(context.Background(), tc.mg)
			if diff := cmp.Diff(xpmanaged.ExternalCreation{}, c); diff != "" {
				t.Errorf("%s\nCreate(...): -want, +got:\n%s", tc.reason, diff)
			}
			got := want{err: err, commit: tc.mg.Status.AtProvider.Commit}
			if diff := cmp.Diff(tc.want, got, cmp.AllowUnexported(want{}), test.EquateErrors()); diff != "" {
				t.Errorf("%s\nCreate(...): -want, +got:\n%s", tc.reason, diff)
			}
			controllertest.SameReason(t, tc.reason, tc.want.err, err)
		})
	}
}

func TestUpdate(t *testing.T) {
	// An existing branch is up to date: Update touches nothing (the fake
	// fails the test on any call).
	e := &external{watch: nopTracker{}, claims: controllertest.Unclaimed, repo: &fakeRepository{t: t}}
	u, err := e.Update(context.Background(), newBranch("feature", "main"))
	if diff := cmp.Diff(xpmanaged.ExternalUpdate{}, u); diff != "" {
		t.Errorf("Update(...): -want, +got:\n%s", diff)
	}
	if err != nil {
		t.Errorf("Update(...): %v", err)
	}
}

func TestDelete(t *testing.T) {
	cases := map[string]struct {
		reason string
		repo   fakeRepository
		want   error
	}{
		"Deleted": {
			reason: "The remote branch is deleted.",
			repo: fakeRepository{DeleteBranchFn: func(b string) git.Result {
				if b != "feature" {
					return git.Result{Err: errors.Errorf("DeleteBranch(%q), want feature", b)}
				}
				return git.Result{}
			}},
		},
		"Transient": {
			reason: "A failed push is retried.",
			repo:   fakeRepository{DeleteBranchFn: func(string) git.Result { return git.Result{Err: errBoom} }},
			want:   errors.Wrap(errBoom, errDelete),
		},
		"Rejected": {
			reason: "A protected branch needs a human.",
			repo:   fakeRepository{DeleteBranchFn: func(string) git.Result { return git.Result{Err: controllertest.GitErr(git.KindRejected)} }},
			want:   errors.Wrap(managed.Stalled(spec.ReasonPushRejected, controllertest.GitErr(git.KindRejected)), errDelete),
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			tc.repo.t = t
			e := &external{watch: nopTracker{}, claims: controllertest.Unclaimed, repo: &tc.repo}
			_, err := e.Delete(context.Background(), newBranch("feature", "main"))
			if diff := cmp.Diff(tc.want, err, test.EquateErrors()); diff != "" {
				t.Errorf("%s\nDelete(...): -want, +got:\n%s", tc.reason, diff)
			}
			controllertest.SameReason(t, tc.reason, tc.want, err)
		})
	}
}
