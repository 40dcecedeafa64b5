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

package options

import (
	"context"
	"testing"
	"time"

	"github.com/crossplane/crossplane-runtime/v2/pkg/logging"
	"k8s.io/apimachinery/pkg/types"

	"github.com/crossplane-contrib/provider-git/internal/git"
	"github.com/crossplane-contrib/provider-git/internal/reconciler/watch"
)

type repo struct{}

func (repo) ID() string                               { return "r" }
func (repo) Poll(context.Context) ([]git.Move, error) { return nil, nil }

// TestForgetter: the gone-path every kind is set up with takes the resource
// of that kind, and only it, out of the drift index.
func TestForgetter(t *testing.T) {
	w := watch.New(time.Minute, logging.NewNopLogger())
	nn := types.NamespacedName{Namespace: "ns", Name: "x"}
	branch, file := watch.Ref{Kind: "Branch", NamespacedName: nn}, watch.Ref{Kind: "File", NamespacedName: nn}
	w.Track(repo{}, branch, "main", "")
	w.Track(repo{}, file, "main", "x.yaml")
	Options{Watcher: w}.forgetter("Branch").Forget(nn)
	if w.Tracks(branch) {
		t.Error("the Branch that is gone is still in the drift index")
	}
	if !w.Tracks(file) {
		t.Error("a File of the same name was forgotten with the Branch")
	}
}
