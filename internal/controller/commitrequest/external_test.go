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

package commitrequest

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/crossplane/crossplane-runtime/v2/pkg/errors"
	"github.com/crossplane/crossplane-runtime/v2/pkg/meta"
	xpmanaged "github.com/crossplane/crossplane-runtime/v2/pkg/reconciler/managed"
	"github.com/crossplane/crossplane-runtime/v2/pkg/test"
	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"

	"github.com/crossplane-contrib/provider-git/apis/v1alpha1"
	"github.com/crossplane-contrib/provider-git/internal/git"
	"github.com/crossplane-contrib/provider-git/internal/reconciler/managed"
	"github.com/crossplane-contrib/provider-git/internal/reconciler/spec"
	"github.com/crossplane-contrib/provider-git/internal/testharness/controllertest"
)

const maxAge = time.Minute

var (
	errBoom = errors.New("boom")
	author  = git.Signature{Name: "A", Email: "a@example.org"}
	sha     = strings.Repeat("ab", 20)
	other   = strings.Repeat("cd", 20)
)

// fakeRepository is a repository whose methods are the closures a case sets;
// a method a case does not expect fails the case.
type fakeRepository struct {
	t                 *testing.T
	RefreshFn         func(maxAge time.Duration, branches ...string) error
	FindCommitByUIDFn func(ctx context.Context, branch, uid string, maxWalk int) (git.Commit, bool, error)
	SubmitFn          func(branch string, c git.Change) git.Result
	QueuedFn          func(c git.Change) bool
	result            *git.Result // of the last Enqueue, until taken
	// EmptyFn answers Empty; nil answers false (a repository with branches).
	EmptyFn func() bool
}

func (f *fakeRepository) Empty() bool { return f.EmptyFn != nil && f.EmptyFn() }

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

func (f *fakeRepository) FindCommitByUID(ctx context.Context, branch, uid string, maxWalk int) (git.Commit, bool, error) {
	if f.FindCommitByUIDFn == nil {
		f.unexpected("FindCommitByUID")
		return git.Commit{}, false, nil
	}
	return f.FindCommitByUIDFn(ctx, branch, uid, maxWalk)
}

func (f *fakeRepository) Enqueue(branch, key string, c git.Change, done func(git.Result)) {
	if f.SubmitFn == nil {
		f.unexpected("Enqueue")
		return
	}
	if key != "CommitRequest/team-a/release" {
		f.t.Errorf("Enqueue under key %q, want CommitRequest/team-a/release", key)
	}
	// The writer's push, done at once: its result waits for TakeResult.
	res := f.SubmitFn(branch, c)
	f.result = &res
	done(res)
}

func (f *fakeRepository) Queued(_, _ string, c git.Change) bool {
	return f.QueuedFn != nil && f.QueuedFn(c)
}

func (f *fakeRepository) TakeResult(string) (git.Result, bool) {
	return controllertest.TakeResult(&f.result)
}

// countingWaker counts the wakes the branch writer's callbacks deliver.
type countingWaker struct{ n int }

func (w *countingWaker) Waker(string, types.NamespacedName) func(git.Result) {
	return func(git.Result) { w.n++ }
}

// request is a valid CommitRequest on main.
func request(o ...func(*v1alpha1.CommitRequest)) *v1alpha1.CommitRequest {
	cr := &v1alpha1.CommitRequest{
		ObjectMeta: metav1.ObjectMeta{Namespace: "team-a", Name: "release", UID: "uid-1"},
		Spec: v1alpha1.CommitRequestSpec{ForProvider: v1alpha1.CommitRequestParameters{
			Branch: "main", Message: "m", Files: []v1alpha1.CommitFile{{Path: "VERSION", Content: ptr.To("1\n")}},
		}},
	}
	for _, fn := range o {
		fn(cr)
	}
	return cr
}

func named(name string) func(*v1alpha1.CommitRequest) {
	return func(cr *v1alpha1.CommitRequest) { meta.SetExternalName(cr, name) }
}

// searched is a repository that fetches main and searches it for uid-1.
func searched(c git.Commit, found bool, err error) fakeRepository {
	return fakeRepository{
		RefreshFn: func(time.Duration, ...string) error { return nil },
		FindCommitByUIDFn: func(_ context.Context, branch, uid string, maxWalk int) (git.Commit, bool, error) {
			if branch != "main" || uid != "uid-1" || maxWalk != MaxWalk {
				return git.Commit{}, false, errors.Errorf("FindCommitByUID(%q, %q, %d), want (main, uid-1, %d)", branch, uid, maxWalk, MaxWalk)
			}
			return c, found, err
		},
	}
}

func TestObserve(t *testing.T) {
	type want struct {
		o      xpmanaged.ExternalObservation
		err    error
		status v1alpha1.CommitRequestObservation
		name   string
	}
	landed := func(commit string, lateInit bool) want {
		return want{
			o:      xpmanaged.ExternalObservation{ResourceExists: true, ResourceUpToDate: true, ResourceLateInitialized: lateInit},
			status: v1alpha1.CommitRequestObservation{Commit: commit, Branch: "main"},
			name:   commit,
		}
	}
	cases := map[string]struct {
		reason string
		repo   fakeRepository
		mg     *v1alpha1.CommitRequest
		want   want
	}{
		"Deleted": {
			reason: "Deleting changes nothing in Git: a deleted request is reported gone without a fetch.",
			mg:     request(func(cr *v1alpha1.CommitRequest) { cr.SetDeletionTimestamp(&metav1.Time{Time: time.Now()}) }),
			want:   want{o: xpmanaged.ExternalObservation{ResourceExists: false}},
		},
		"RecordedInStatus": {
			reason: "A commit in status means landed; the external name follows it through late initialization.",
			mg:     request(func(cr *v1alpha1.CommitRequest) { cr.Status.AtProvider.Commit = sha }),
			want:   landed(sha, true),
		},
		"PersistedExternalName": {
			reason: "A full SHA persisted as the external name right after the push is enough to know the request landed, without a fetch.",
			mg:     request(named(sha)),
			want:   landed(sha, false),
		},
		"ShortSHAIsNotTrusted": {
			reason: "Anything but a full SHA is not ours to trust: the branch's history is searched.",
			mg:     request(named(sha[:12])),
			repo:   searched(git.Commit{}, false, nil),
			want:   want{o: xpmanaged.ExternalObservation{ResourceExists: false}, name: sha[:12]},
		},
		"ObjectNameIsNotTrusted": {
			reason: "A name like the object's is not a commit: the branch's history is searched.",
			mg:     request(named("bootstrap")),
			repo:   searched(git.Commit{}, false, nil),
			want:   want{o: xpmanaged.ExternalObservation{ResourceExists: false}, name: "bootstrap"},
		},
		"FoundByUID": {
			reason: "A commit carrying the request's UID trailer is its commit: a push whose status write was lost.",
			mg:     request(),
			repo:   searched(git.Commit{SHA: other}, true, nil),
			want:   landed(other, true),
		},
		"InvalidSpec": {
			reason: "A request the provider refuses is reported before any fetch.",
			mg:     request(func(cr *v1alpha1.CommitRequest) { cr.Spec.ForProvider.Files = nil }),
			want:   want{err: spec.Invalid(errors.New(errNoFiles))},
		},
		"RefreshFailed": {
			reason: "A fetch that fails for a reason that may clear is retried.",
			mg:     request(),
			repo:   fakeRepository{RefreshFn: func(time.Duration, ...string) error { return errBoom }},
			want:   want{err: errors.Wrap(errBoom, errRefresh)},
		},
		"NoBranch": {
			reason: "A missing branch is transient: a Branch resource may still be creating it.",
			mg:     request(),
			repo: fakeRepository{
				RefreshFn: func(time.Duration, ...string) error { return controllertest.GitErr(git.KindBranchNotFound) },
				FindCommitByUIDFn: func(context.Context, string, string, int) (git.Commit, bool, error) {
					return git.Commit{}, false, controllertest.GitErr(git.KindBranchNotFound)
				},
			},
			want: want{err: errors.Errorf(errNoBranchFmt, "main")},
		},
		"EmptyRepositoryNoBranch": {
			reason: "In a repository with no branch at all the request has not landed: it will be the first commit, creating the branch.",
			mg:     request(),
			repo: fakeRepository{
				RefreshFn: func(time.Duration, ...string) error { return nil },
				FindCommitByUIDFn: func(context.Context, string, string, int) (git.Commit, bool, error) {
					return git.Commit{}, false, controllertest.GitErr(git.KindBranchNotFound)
				},
				EmptyFn: func() bool { return true },
			},
			want: want{o: xpmanaged.ExternalObservation{ResourceExists: false}},
		},
		"SearchFailed": {
			reason: "A history the engine cannot walk is reported, classified.",
			mg:     request(),
			repo:   searched(git.Commit{}, false, controllertest.GitErr(git.KindInvalid)),
			want:   want{err: errors.Wrap(managed.Stalled(spec.ReasonInvalidConfig, controllertest.GitErr(git.KindInvalid)), errFind)},
		},
		"Queued": {
			reason: "A request already with the branch writer waits for its wake: it is neither searched for nor submitted again.",
			mg:     request(),
			repo:   fakeRepository{QueuedFn: func(git.Change) bool { return true }},
			want:   want{err: committing("main")},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			tc.repo.t = t
			e := &external{repo: &tc.repo, author: author, maxAge: maxAge}
			o, err := e.Observe(context.Background(), tc.mg)
			got := want{o: o, err: err, status: tc.mg.Status.AtProvider, name: meta.GetExternalName(tc.mg)}
			if diff := cmp.Diff(tc.want, got, cmp.AllowUnexported(want{}), test.EquateErrors()); diff != "" {
				t.Errorf("%s\nObserve(...): -want, +got:\n%s", tc.reason, diff)
			}
			controllertest.SameReason(t, tc.reason, tc.want.err, err)
		})
	}
}

// TestCreate covers a request handed to the branch writer and the Observe
// its wake brings, which records the landed commit or reports the failure.
func TestCreate(t *testing.T) {
	type want struct {
		err    error
		status v1alpha1.CommitRequestObservation
		name   string
	}
	cases := map[string]struct {
		reason string
		result git.Result
		want   want
	}{
		"Landed": {
			reason: "The commit that carries the request is recorded, in status and as the external name.",
			result: git.Result{Commit: sha},
			want:   want{status: v1alpha1.CommitRequestObservation{Commit: sha, Branch: "main"}, name: sha},
		},
		"AlreadySatisfied": {
			reason: "No empty commit: the head that already satisfies the request is recorded as its commit.",
			result: git.Result{Commit: other, UpToDate: true},
			want:   want{status: v1alpha1.CommitRequestObservation{Commit: other, Branch: "main"}, name: other},
		},
		"BranchGone": {
			reason: "A missing branch is transient, and the engine's error stays in the chain.",
			result: git.Result{Err: controllertest.GitErr(git.KindBranchNotFound)},
			want:   want{err: errors.Wrap(errors.Wrapf(controllertest.GitErr(git.KindBranchNotFound), errNoBranchFmt, "main"), errLand)},
		},
		"PathConflict": {
			reason: "A path of the request that is a directory in Git is the request's problem: PathConflict, not InvalidProviderConfig.",
			result: git.Result{Err: controllertest.GitErr(git.KindPathConflict)},
			want:   want{err: errors.Wrapf(managed.Stalled(spec.ReasonPathConflict, controllertest.GitErr(git.KindPathConflict)), errLandFmt, "main")},
		},
		"InvalidChange": {
			reason: "A change the engine refuses as malformed is the request's spec: InvalidSpec.",
			result: git.Result{Err: controllertest.GitErr(git.KindInvalidChange)},
			want:   want{err: errors.Wrapf(managed.Stalled(spec.ReasonInvalidSpec, controllertest.GitErr(git.KindInvalidChange)), errLandFmt, "main")},
		},
		"Rejected": {
			reason: "A push the server refuses needs a human.",
			result: git.Result{Err: controllertest.GitErr(git.KindRejected)},
			want:   want{err: errors.Wrapf(managed.Stalled(spec.ReasonPushRejected, controllertest.GitErr(git.KindRejected)), errLandFmt, "main")},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			cr := request()
			wantChange, err := ChangeFor(cr, author)
			if err != nil {
				t.Fatal(err)
			}
			// The change carries its configuration's commit window: the clone
			// is shared by configurations with their own.
			window := 3 * time.Second
			wantChange.Window = &window
			repo := &fakeRepository{t: t, SubmitFn: func(branch string, c git.Change) git.Result {
				if diff := cmp.Diff(wantChange, c); branch != "main" || diff != "" {
					t.Errorf("Submit(%q, ...), want main and the request's own change: -want, +got:\n%s", branch, diff)
				}
				return tc.result
			}}
			w := &countingWaker{}
			e := &external{repo: repo, wake: w, author: author, window: &window, maxAge: maxAge}
			// Create hands the request over and returns Waiting; the wake
			// brings an Observe that records the outcome.
			_, err = e.Create(context.Background(), cr)
			if _, waiting := managed.IsWaiting(err); !waiting || w.n != 1 {
				t.Fatalf("%s\nCreate(...) = %v with %d wakes, want Waiting and 1 wake", tc.reason, err, w.n)
			}
			_, err = e.Observe(context.Background(), cr)
			got := want{err: err, status: cr.Status.AtProvider, name: meta.GetExternalName(cr)}
			if diff := cmp.Diff(tc.want, got, cmp.AllowUnexported(want{}), test.EquateErrors()); diff != "" {
				t.Errorf("%s\nCreate(...): -want, +got:\n%s", tc.reason, diff)
			}
			controllertest.SameReason(t, tc.reason, tc.want.err, err)
			if res := tc.result.Err; res != nil {
				var ge *git.Error
				if !errors.Is(err, res) || !errors.As(err, &ge) || ge.Kind != git.KindOf(res) {
					t.Errorf("%s\nCreate(...) = %v: errors.Is/As must find the engine's error", tc.reason, err)
				}
			}
		})
	}
}

func TestCreateRefusesInvalidSpec(t *testing.T) {
	// A request the provider refuses is never submitted (the fake fails the
	// test on any call).
	e := &external{repo: &fakeRepository{t: t}, author: author}
	cr := request(func(cr *v1alpha1.CommitRequest) { cr.Spec.ForProvider.Message = "" })
	_, err := e.Create(context.Background(), cr)
	if diff := cmp.Diff(spec.Invalid(errors.New(errMessage)), err, test.EquateErrors()); diff != "" {
		t.Errorf("Create(...): -want, +got:\n%s", diff)
	}
}

func TestUpdateAndDeleteTouchNothing(t *testing.T) {
	// The spec is immutable and history stays: neither calls the repository
	// (the fake fails the test on any call).
	e := &external{repo: &fakeRepository{t: t}, author: author}
	u, err := e.Update(context.Background(), request())
	if diff := cmp.Diff(xpmanaged.ExternalUpdate{}, u); err != nil || diff != "" {
		t.Errorf("Update(...): %v: -want, +got:\n%s", err, diff)
	}
	d, err := e.Delete(context.Background(), request())
	if diff := cmp.Diff(xpmanaged.ExternalDelete{}, d); err != nil || diff != "" {
		t.Errorf("Delete(...): %v: -want, +got:\n%s", err, diff)
	}
}

// TestMaxWalkWithinTheClonesHistory: the search reads no further than a
// clone's history reaches when first fetched, so a restart's search costs no
// deepening fetch.
func TestMaxWalkWithinTheClonesHistory(t *testing.T) {
	if MaxWalk > git.DefaultHistoryDepth {
		t.Errorf("MaxWalk %d is deeper than the engine's clones (git.DefaultHistoryDepth %d)", MaxWalk, git.DefaultHistoryDepth)
	}
}
