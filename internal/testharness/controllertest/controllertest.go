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

// Package controllertest holds what the table tests of the managed
// controllers share: an error of each Git kind, a claim index with no
// rival, a check of the Stalled reason an error carries, and a write's
// result taken once. Only tests import it.
package controllertest

import (
	"context"
	"errors"

	"github.com/google/go-cmp/cmp"

	"github.com/crossplane-contrib/provider-git/internal/git"
	"github.com/crossplane-contrib/provider-git/internal/reconciler/claim"
	"github.com/crossplane-contrib/provider-git/internal/reconciler/managed"
)

// ErrBoom is the cause of every error GitErr makes.
var ErrBoom = errors.New("boom")

// GitErr is a Git engine error of kind k.
func GitErr(k git.Kind) error { return &git.Error{Kind: k, Err: ErrBoom} }

// Unclaimed is a claim index where every resource is the only claimant of
// what it names.
var Unclaimed = claim.CheckFn(func(context.Context, claim.Kind, claim.Object) (bool, error) { return false, nil })

// T is what the helpers need of a test. It is not *testing.T so that this
// package, which is not a test file, does not import testing.
type T interface {
	Helper()
	Errorf(format string, args ...any)
}

// SameReason fails t when got and want are not marked Stalled with the same
// reason: test.EquateErrors compares messages only.
func SameReason(t T, why string, want, got error) {
	t.Helper()
	w, _ := managed.StalledReason(want)
	g, _ := managed.StalledReason(got)
	if diff := cmp.Diff(w, g); diff != "" {
		t.Errorf("%s\nstalled reason: -want, +got:\n%s", why, diff)
	}
}

// TakeResult hands *r once, as a repository's TakeResult hands the result
// of a write that finished: the next call finds none.
func TakeResult(r **git.Result) (git.Result, bool) {
	if *r == nil {
		return git.Result{}, false
	}
	res := **r
	*r = nil
	return res, true
}
