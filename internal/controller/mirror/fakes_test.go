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

package mirror

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/crossplane/crossplane-runtime/v2/pkg/errors"
	xpmanaged "github.com/crossplane/crossplane-runtime/v2/pkg/reconciler/managed"
	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	"github.com/crossplane-contrib/provider-git/apis/v1alpha1"
	"github.com/crossplane-contrib/provider-git/internal/git"
	"github.com/crossplane-contrib/provider-git/internal/mirror"
	"github.com/crossplane-contrib/provider-git/internal/mirror/plan"
	"github.com/crossplane-contrib/provider-git/internal/reconciler/claim"
	"github.com/crossplane-contrib/provider-git/internal/reconciler/managed"
	"github.com/crossplane-contrib/provider-git/internal/reconciler/watch"
	"github.com/crossplane-contrib/provider-git/internal/testharness/controllertest"
)

const head = "0123456789abcdef0123456789abcdef01234567"

// fakeSources answers Ensure with a fixed snapshot or error.
type fakeSources struct {
	snap     mirror.Snapshot
	err      error
	ensured  bool
	released bool
}

func (f *fakeSources) Ensure(context.Context, mirror.Request) (mirror.Snapshot, error) {
	f.ensured = true
	return f.snap, f.err
}

func (f *fakeSources) Release(types.NamespacedName) { f.released = true }

// fakeRepository holds one branch at head with files (path to content), or
// no branch at all when files is nil.
type fakeRepository struct {
	files    map[string]string
	empty    bool
	queued   bool
	inflight bool
	enqueued *git.Change
	// result is the outcome of a write that finished, taken once.
	result *git.Result
	// finishing, when set, is the result of the write in flight, which
	// finishes (leaves inflight, kept as result) right after the first
	// InFlight or TakeResult call answered: a push that lands between a
	// reconcile's two questions.
	finishing *git.Result
}

func (f *fakeRepository) ID() string                                              { return "repo" }
func (f *fakeRepository) Poll(context.Context) ([]git.Move, error)                { return nil, nil }
func (f *fakeRepository) Refresh(context.Context, time.Duration, ...string) error { return nil }
func (f *fakeRepository) Empty() bool                                             { return f.empty }
func (f *fakeRepository) Queued(string, string, git.Change) bool                  { return f.queued }

func (f *fakeRepository) InFlight(string, string) bool {
	defer f.finish()
	return f.inflight
}

func (f *fakeRepository) TakeResult(string) (git.Result, bool) {
	defer f.finish()
	return controllertest.TakeResult(&f.result)
}

// finish ends the write in flight with the result finishing names.
func (f *fakeRepository) finish() {
	if f.finishing != nil {
		f.inflight, f.result, f.finishing = false, f.finishing, nil
	}
}

func (f *fakeRepository) Head(string) (string, error) {
	if f.files == nil {
		return "", &git.Error{Kind: git.KindBranchNotFound, Err: errors.New("no branch")}
	}
	return head, nil
}

func (f *fakeRepository) ListFiles(_, prefix string) (map[string]string, error) {
	out := map[string]string{}
	for p, c := range f.files {
		if prefix == "." || strings.HasPrefix(p, prefix+"/") {
			out[p] = git.BlobSHA([]byte(c))
		}
	}
	return out, nil
}

// ReadFileMax refuses a file past limit as the engine does: SHA, no content.
func (f *fakeRepository) ReadFileMax(_ context.Context, _, p string, limit int64) (git.Blob, error) {
	c, ok := f.files[p]
	if !ok {
		return git.Blob{}, git.ErrNotExist
	}
	if limit >= 0 && int64(len(c)) > limit {
		return git.Blob{SHA: git.BlobSHA([]byte(c))}, &git.TooLargeError{Path: p, Size: int64(len(c)), Max: limit}
	}
	return git.Blob{Content: []byte(c), SHA: git.BlobSHA([]byte(c))}, nil
}

func (f *fakeRepository) Enqueue(_, _ string, c git.Change, _ func(git.Result)) { f.enqueued = &c }

var (
	letGo = claim.CheckFn(func(context.Context, claim.Kind, claim.Object) (bool, error) { return true, nil })
	held  = claim.CheckFn(func(context.Context, claim.Kind, claim.Object) (bool, error) {
		return false, managed.Stalled(claim.ReasonConflict, errors.New("held by File ns/first"))
	})
)

type fakeTracker struct{}

func (fakeTracker) TrackFolder(watch.Repository, watch.Ref, string, string) {}
func (fakeTracker) Forget(watch.Ref)                                        {}
func (fakeTracker) Waker(string, types.NamespacedName) func(git.Result)     { return func(git.Result) {} }

var cmGVK = schema.GroupVersionKind{Version: "v1", Kind: "ConfigMap"}

// object is a ConfigMap as the snapshot renders it.
func object(name, data string) mirror.Object {
	return mirror.Object{
		Path: mirror.Path(cmGVK, "ns", name), GVK: cmGVK, Namespace: "ns", Name: name,
		Content: []byte("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: " + name + "\n  namespace: ns\ndata:\n  k: " + data + "\n"),
	}
}

func markerOf(owner string, files ...string) string {
	ns, name, _ := strings.Cut(owner, "/")
	return string(plan.Marker{Mirror: plan.MarkerOwner{Namespace: ns, Name: name}, Files: files}.Render())
}

func newMirror(mutate ...func(*v1alpha1.Mirror)) *v1alpha1.Mirror {
	m := &v1alpha1.Mirror{
		ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "m"},
		Spec: v1alpha1.MirrorSpec{ForProvider: v1alpha1.MirrorParameters{
			Branch: "main", Path: "live", Resources: []v1alpha1.MirrorResource{{APIVersion: "v1", Kind: "ConfigMap"}},
		}},
	}
	m.Spec.ProviderConfigReference = &xpv2.ProviderConfigReference{Kind: "ProviderConfig", Name: "git"}
	for _, f := range mutate {
		f(m)
	}
	return m
}

func kube(t *testing.T, objs ...client.Object) client.Client {
	t.Helper()
	s := runtime.NewScheme()
	if err := v1alpha1.SchemeBuilder.AddToScheme(s); err != nil {
		t.Fatal(err)
	}
	if err := corev1.AddToScheme(s); err != nil {
		t.Fatal(err)
	}
	return fake.NewClientBuilder().WithScheme(s).WithObjects(objs...).Build()
}

// newExternal is a Mirror's external client on repo and src, with no File
// or Mirror claiming its folder, no encryption, and a fake API server.
func newExternal(t *testing.T, repo repository, src sources) *external {
	t.Helper()
	return &external{kube: kube(t), claims: controllertest.Unclaimed, repo: repo, src: src, watch: fakeTracker{}, maxAge: time.Minute}
}

// outcome is what a case checks: the observation, how the error is
// classified, what the change holds, and what the sources were asked.
type outcome struct {
	Obs      xpmanaged.ExternalObservation
	Stalled  xpv2.ConditionReason
	Waiting  xpv2.ConditionReason
	Failed   bool // a plain (transient) error
	Progress xpv2.ConditionReason
	Puts     []string
	Deletes  []string
	Ensured  bool
	Released bool
	Note     bool
}

// classify records how err would be reported.
func classify(got *outcome, err error) {
	stalled, isStalled := managed.StalledReason(err)
	waiting, isWaiting := managed.IsWaiting(err)
	progress, isProgress := managed.ProgressingReason(err)
	switch {
	case isStalled:
		got.Stalled = stalled
	case isWaiting:
		got.Waiting = waiting.Reason
	case isProgress:
		got.Progress = progress
	case err != nil:
		got.Failed = true
	}
}
