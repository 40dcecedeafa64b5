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
	"strings"
	"testing"
	"time"

	"github.com/crossplane/crossplane-runtime/v2/pkg/errors"
	xpmanaged "github.com/crossplane/crossplane-runtime/v2/pkg/reconciler/managed"
	"github.com/crossplane/crossplane-runtime/v2/pkg/test"
	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"

	"github.com/crossplane-contrib/provider-git/apis/v1alpha1"
	"github.com/crossplane-contrib/provider-git/internal/git"
	"github.com/crossplane-contrib/provider-git/internal/reconciler/claim"
	"github.com/crossplane-contrib/provider-git/internal/reconciler/managed"
	"github.com/crossplane-contrib/provider-git/internal/reconciler/spec"
	"github.com/crossplane-contrib/provider-git/internal/reconciler/watch"
	"github.com/crossplane-contrib/provider-git/internal/testharness/controllertest"
	"github.com/crossplane-contrib/provider-git/internal/validate"
	"github.com/crossplane-contrib/provider-git/internal/yamledit"
)

const (
	head   = "0123456789abcdef0123456789abcdef01234567"
	landed = "89abcdef0123456789abcdef0123456789abcdef"
	blob   = "fedcba9876543210fedcba9876543210fedcba98"
	maxAge = time.Minute
)

var (
	errBoom = errors.New("boom")
	author  = git.Signature{Name: "A", Email: "a@example.org"}
)

// fakeRepository is a repository whose methods are the closures a case sets;
// a method a case does not expect fails the case.
type fakeRepository struct {
	t          *testing.T
	RefreshFn  func(maxAge time.Duration, branches ...string) error
	HeadFn     func(branch string) (string, error)
	ReadFileFn func(commit, path string) (git.Blob, error)
	SubmitFn   func(branch string, c git.Change) git.Result
	QueuedFn   func(c git.Change) bool
	result     *git.Result // of the last Enqueue, until taken
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

func (f *fakeRepository) Head(branch string) (string, error) {
	if f.HeadFn == nil {
		f.unexpected("Head")
		return "", nil
	}
	return f.HeadFn(branch)
}

// ReadFileMax answers with ReadFileFn, refusing a blob past limit as the
// engine does (SHA and mode, no content); a read past
// yamledit.MaxFileBytes, or unbounded, fails the test.
func (f *fakeRepository) ReadFileMax(_ context.Context, commit, path string, limit int64) (git.Blob, error) {
	if f.ReadFileFn == nil {
		f.unexpected("ReadFileMax")
		return git.Blob{}, nil
	}
	if limit < 0 || limit > yamledit.MaxFileBytes {
		f.t.Errorf("ReadFileMax(%q, %q, %d): a read past yamledit.MaxFileBytes", commit, path, limit)
	}
	b, err := f.ReadFileFn(commit, path)
	if err == nil && limit >= 0 && int64(len(b.Content)) > limit {
		return git.Blob{SHA: b.SHA, Executable: b.Executable}, &git.TooLargeError{Path: path, Size: int64(len(b.Content)), Max: limit}
	}
	return b, err
}

func (f *fakeRepository) Submit(_ context.Context, branch string, c git.Change) git.Result {
	if f.SubmitFn == nil {
		f.unexpected("Submit")
		return git.Result{}
	}
	return f.SubmitFn(branch, c)
}

func (f *fakeRepository) Enqueue(branch, key string, c git.Change, done func(git.Result)) {
	if f.SubmitFn == nil {
		f.unexpected("Enqueue")
		return
	}
	if key != "File/team-a/app" {
		f.t.Errorf("Enqueue under key %q, want File/team-a/app", key)
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

func (f *fakeRepository) ID() string { return "repo" }

func (f *fakeRepository) Poll(context.Context) ([]git.Move, error) { return nil, nil }

// nopTracker is a watcher that tracks nothing and whose wakes are counted.
type nopTracker struct{ wakes *int }

func (nopTracker) Track(watch.Repository, watch.Ref, string, string) {}
func (nopTracker) Forget(watch.Ref)                                  {}
func (n nopTracker) Waker(string, types.NamespacedName) func(git.Result) {
	return func(git.Result) {
		if n.wakes != nil {
			*n.wakes++
		}
	}
}

// fileOn is a File resource for path on main holding content.
func fileOn(path, content string, o ...func(*v1alpha1.File)) *v1alpha1.File {
	f := &v1alpha1.File{
		ObjectMeta: metav1.ObjectMeta{Namespace: "team-a", Name: "app", UID: "uid-1"},
		Spec: v1alpha1.FileSpec{ForProvider: v1alpha1.FileParameters{
			Branch: "main", Path: path, Content: ptr.To(content),
		}},
	}
	for _, fn := range o {
		fn(f)
	}
	return f
}

func deleted(f *v1alpha1.File) { f.SetDeletionTimestamp(&metav1.Time{Time: time.Now()}) }

func withCommit(c string) func(*v1alpha1.File) {
	return func(f *v1alpha1.File) { f.Status.AtProvider.Commit = c }
}

// atHead is a repository whose main is at head, fetched fine.
func atHead(read func(commit, path string) (git.Blob, error)) fakeRepository {
	return fakeRepository{
		RefreshFn:  func(time.Duration, ...string) error { return nil },
		HeadFn:     func(string) (string, error) { return head, nil },
		ReadFileFn: read,
	}
}

func holding(content string, executable bool) func(string, string) (git.Blob, error) {
	return func(string, string) (git.Blob, error) {
		return git.Blob{Content: []byte(content), Executable: executable, SHA: blob}, nil
	}
}

func TestObserve(t *testing.T) {
	type want struct {
		o      xpmanaged.ExternalObservation
		err    error
		status v1alpha1.FileObservation
	}
	brokenTemplate := func(f *v1alpha1.File) { f.Spec.ForProvider.CommitMessage = "{{.Path" }
	_, errTemplate := Message(fileOn("x", "a", brokenTemplate), ActionCreate)
	errHeld := managed.Stalled(claim.ReasonConflict, errBoom)
	cases := map[string]struct {
		reason string
		repo   fakeRepository
		claims claim.CheckFn
		mg     *v1alpha1.File
		want   want
	}{
		"HeldByAnother": {
			reason: "A File whose path another File claimed first reads and writes nothing: the claim's Conflict is the answer.",
			mg:     fileOn("x", "a"),
			claims: func(context.Context, claim.Kind, claim.Object) (bool, error) { return false, errHeld },
			want:   want{err: errHeld},
		},
		"DeletedWhileAnotherKeepsIt": {
			reason: "A deleted File whose path another File keeps lets go: nothing to remove, and nothing read.",
			mg:     fileOn("x", "a", deleted, withCommit(landed)),
			claims: func(context.Context, claim.Kind, claim.Object) (bool, error) { return true, nil },
			want:   want{o: xpmanaged.ExternalObservation{ResourceExists: false}, status: v1alpha1.FileObservation{Commit: landed}},
		},
		"InvalidPath": {
			reason: "A path the provider refuses is the spec's problem, found before any fetch.",
			mg:     fileOn("../x", "a"),
			want:   want{err: spec.Invalid(validate.Path("../x"))},
		},
		"BrokenTemplate": {
			reason: "A commitMessage that does not render is reported while the file is up to date.",
			mg:     fileOn("x", "a", brokenTemplate),
			want:   want{err: errTemplate},
		},
		"DeletedInvalidPath": {
			reason: "A path the provider refuses was never written: a deleted File with one has nothing to remove.",
			mg:     fileOn("../x", "a", deleted),
			want:   want{o: xpmanaged.ExternalObservation{ResourceExists: false}},
		},
		"RefreshFailed": {
			reason: "A fetch that fails for a reason that may clear is retried.",
			mg:     fileOn("x", "a"),
			repo:   fakeRepository{RefreshFn: func(time.Duration, ...string) error { return errBoom }},
			want:   want{err: errors.Wrap(errBoom, errRefresh)},
		},
		"NoBranch": {
			reason: "A missing branch is transient: a Branch resource may still be creating it.",
			mg:     fileOn("x", "a", func(f *v1alpha1.File) { f.Status.AtProvider.Blob = blob }),
			repo: fakeRepository{
				RefreshFn: func(time.Duration, ...string) error { return controllertest.GitErr(git.KindBranchNotFound) },
				HeadFn:    func(string) (string, error) { return "", controllertest.GitErr(git.KindBranchNotFound) },
			},
			want: want{err: errors.Errorf(errNoBranchFmt, "main")},
		},
		"EmptyRepositoryNoBranch": {
			reason: "In a repository with no branch at all the file does not exist yet: its commit will be the first, creating the branch.",
			mg:     fileOn("x", "a", func(f *v1alpha1.File) { f.Status.AtProvider.Blob = blob }),
			repo: fakeRepository{
				RefreshFn: func(time.Duration, ...string) error { return nil },
				HeadFn:    func(string) (string, error) { return "", controllertest.GitErr(git.KindBranchNotFound) },
				EmptyFn:   func() bool { return true },
			},
			want: want{o: xpmanaged.ExternalObservation{ResourceExists: false}},
		},
		"EmptyRepositoryFirstCommitQueued": {
			reason: "A first commit already with the branch writer waits for its wake: an empty repository's first write is not submitted twice.",
			mg:     fileOn("x", "a"),
			repo: fakeRepository{
				RefreshFn: func(time.Duration, ...string) error { return nil },
				HeadFn:    func(string) (string, error) { return "", controllertest.GitErr(git.KindBranchNotFound) },
				EmptyFn:   func() bool { return true },
				QueuedFn:  func(c git.Change) bool { return string(c.Puts["x"].Content) == "a" },
			},
			want: want{o: xpmanaged.ExternalObservation{ResourceExists: false}, err: committing(fileOn("x", "a"), ActionCreate)},
		},
		"DeletedNoBranch": {
			reason: "No branch, no file: nothing left to remove.",
			mg:     fileOn("x", "a", deleted),
			repo: fakeRepository{
				RefreshFn: func(time.Duration, ...string) error { return nil },
				HeadFn:    func(string) (string, error) { return "", controllertest.GitErr(git.KindBranchNotFound) },
			},
			want: want{o: xpmanaged.ExternalObservation{ResourceExists: false}},
		},
		"HeadFailed": {
			reason: "Any other error reading the head is reported, classified.",
			mg:     fileOn("x", "a"),
			repo: fakeRepository{
				RefreshFn: func(time.Duration, ...string) error { return nil },
				HeadFn:    func(string) (string, error) { return "", controllertest.GitErr(git.KindAuth) },
			},
			want: want{err: errors.Wrap(managed.Stalled(spec.ReasonAuthenticationFailed, controllertest.GitErr(git.KindAuth)), errHead)},
		},
		"Missing": {
			reason: "A path the head does not hold does not exist; the recorded blob is cleared.",
			mg:     fileOn("x", "a", func(f *v1alpha1.File) { f.Status.AtProvider.Blob = blob }),
			repo: atHead(func(c, p string) (git.Blob, error) {
				if c != head || p != "x" {
					t.Errorf("ReadFile(%q, %q), want (%s, x)", c, p, head)
				}
				return git.Blob{}, errors.Wrap(git.ErrNotExist, p)
			}),
			want: want{o: xpmanaged.ExternalObservation{ResourceExists: false}},
		},
		"ReadConflict": {
			reason: "A read the engine refuses for the File's own path names the path and branch and stalls as PathConflict.",
			mg:     fileOn("a/b", "x"),
			repo:   atHead(func(string, string) (git.Blob, error) { return git.Blob{}, controllertest.GitErr(git.KindPathConflict) }),
			want:   want{err: errors.Wrapf(managed.Stalled(spec.ReasonPathConflict, controllertest.GitErr(git.KindPathConflict)), errReadFmt, "a/b", "main")},
		},
		"UpToDate": {
			reason: "The same content and mode is up to date; the blob is recorded, and the head as the commit when none was.",
			mg:     fileOn("x", "a"),
			repo:   atHead(holding("a", false)),
			want: want{o: xpmanaged.ExternalObservation{ResourceExists: true, ResourceUpToDate: true},
				status: v1alpha1.FileObservation{Blob: blob, Commit: head}},
		},
		"KeepsItsCommit": {
			reason: "The commit that wrote the file stays recorded while later commits change other files.",
			mg:     fileOn("x", "a", withCommit(landed)),
			repo:   atHead(holding("a", false)),
			want: want{o: xpmanaged.ExternalObservation{ResourceExists: true, ResourceUpToDate: true},
				status: v1alpha1.FileObservation{Blob: blob, Commit: landed}},
		},
		"ContentDiffers": {
			reason: "Other content in Git is drift to put back.",
			mg:     fileOn("x", "a", withCommit(landed)),
			repo:   atHead(holding("b", false)),
			want: want{o: xpmanaged.ExternalObservation{ResourceExists: true, Diff: "content differs from the spec"},
				status: v1alpha1.FileObservation{Blob: blob, Commit: landed}},
		},
		"TooLarge": {
			reason: "A file past yamledit.MaxFileBytes is larger than any File's content: drift to put back, said with its size and the bound, and never read whole.",
			mg:     fileOn("x", "a", withCommit(landed)),
			repo:   atHead(holding(strings.Repeat("a", yamledit.MaxFileBytes+1), false)),
			want: want{o: xpmanaged.ExternalObservation{ResourceExists: true, Diff: (&git.TooLargeError{Path: "x", Size: yamledit.MaxFileBytes + 1, Max: yamledit.MaxFileBytes}).Error()},
				status: v1alpha1.FileObservation{Blob: blob, Commit: landed}},
		},
		"TooLargeForEmptyContent": {
			reason: "Unread content is not empty content: a File of no content differs from a file too large to read.",
			mg:     fileOn("x", "", withCommit(landed)),
			repo:   atHead(holding(strings.Repeat("a", yamledit.MaxFileBytes+1), false)),
			want: want{o: xpmanaged.ExternalObservation{ResourceExists: true, Diff: (&git.TooLargeError{Path: "x", Size: yamledit.MaxFileBytes + 1, Max: yamledit.MaxFileBytes}).Error()},
				status: v1alpha1.FileObservation{Blob: blob, Commit: landed}},
		},
		"ModeDiffers": {
			reason: "An executable bit the spec does not ask for is drift too.",
			mg:     fileOn("x", "a", withCommit(landed)),
			repo:   atHead(holding("a", true)),
			want: want{o: xpmanaged.ExternalObservation{ResourceExists: true, Diff: "mode differs from the spec"},
				status: v1alpha1.FileObservation{Blob: blob, Commit: landed}},
		},
		"WriteFailed": {
			reason: "A write the branch writer failed is reported by the next Observe, as the write's own error.",
			mg:     fileOn("apps", "a"),
			repo:   fakeRepository{result: &git.Result{Err: controllertest.GitErr(git.KindPathConflict)}},
			want:   want{err: errors.Wrapf(managed.Stalled(spec.ReasonPathConflict, controllertest.GitErr(git.KindPathConflict)), errWriteFmt, "apps", "main")},
		},
		"WriteLanded": {
			reason: "A write that landed records the commit that carried it.",
			mg:     fileOn("x", "a", withCommit(head)),
			repo: func() fakeRepository {
				r := atHead(holding("a", false))
				r.result = &git.Result{Commit: landed}
				return r
			}(),
			want: want{o: xpmanaged.ExternalObservation{ResourceExists: true, ResourceUpToDate: true},
				status: v1alpha1.FileObservation{Blob: blob, Commit: landed}},
		},
		"ChangeQueued": {
			reason: "Drift whose correction is already with the branch writer waits for its wake: nothing is submitted twice.",
			mg:     fileOn("x", "a", withCommit(landed)),
			repo: func() fakeRepository {
				r := atHead(holding("b", false))
				r.QueuedFn = func(c git.Change) bool { return string(c.Puts["x"].Content) == "a" }
				return r
			}(),
			want: want{o: xpmanaged.ExternalObservation{ResourceExists: true, Diff: "content differs from the spec"},
				err:    committing(fileOn("x", "a"), ActionUpdate),
				status: v1alpha1.FileObservation{Blob: blob, Commit: landed}},
		},
		"DeletedExists": {
			reason: "A deleted File whose file exists must remove it, whatever it holds.",
			mg:     fileOn("x", "a", deleted, withCommit(landed)),
			repo:   atHead(holding("b", false)),
			want: want{o: xpmanaged.ExternalObservation{ResourceExists: true, ResourceUpToDate: true},
				status: v1alpha1.FileObservation{Blob: blob, Commit: landed}},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			tc.repo.t = t
			claims := tc.claims
			if claims == nil {
				claims = controllertest.Unclaimed
			}
			e := &external{repo: &tc.repo, watch: nopTracker{}, claims: claims, author: author, maxAge: maxAge}
			o, err := e.Observe(context.Background(), tc.mg)
			got := want{o: o, err: err, status: tc.mg.Status.AtProvider}
			if diff := cmp.Diff(tc.want, got, cmp.AllowUnexported(want{}), test.EquateErrors()); diff != "" {
				t.Errorf("%s\nObserve(...): -want, +got:\n%s", tc.reason, diff)
			}
			controllertest.SameReason(t, tc.reason, tc.want.err, err)
		})
	}
}
