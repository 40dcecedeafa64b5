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
	"context"
	"fmt"
	"sync"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/crossplane-contrib/provider-git/apis/v1alpha1"
	"github.com/crossplane-contrib/provider-git/internal/testharness/testenv"
)

// What the PullRequest packages share (pullrequest, pullrequest/fakes,
// pullrequest/gitea: one package per kind of forge, each with a control
// plane of its own, so that go test runs them at once).

// NewPullRequest is a PullRequest ns/name from head into main through the
// namespace's ProviderConfig "git", titled "Add <name>", its body listing
// the Files on the head and labelled provider-git; mutate changes its
// parameters.
func NewPullRequest(ns, name, head string, mutate ...func(*v1alpha1.PullRequestParameters)) *v1alpha1.PullRequest {
	pr := &v1alpha1.PullRequest{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
		Spec: v1alpha1.PullRequestSpec{ForProvider: v1alpha1.PullRequestParameters{Head: head, Base: "main", Title: "Add " + name,
			Body: "Files:\n{{range .Files}}- {{.Path}}\n{{end}}", Labels: []string{"provider-git"}}}}
	pr.Spec.ProviderConfigReference = PCRef()
	for _, m := range mutate {
		m(&pr.Spec.ForProvider)
	}
	return pr
}

// CreateAll creates objs in order on the control plane or fails the test.
func CreateAll(t testing.TB, objs ...client.Object) {
	t.Helper()
	for _, o := range objs {
		Create(t, o)
	}
}

// CreateAtOnce creates objs from 16 goroutines, as a burst of kubectl
// applies would, or fails the test: a hundred objects created one after
// another wait for a hundred round trips to a busy API server.
func CreateAtOnce(t testing.TB, objs ...client.Object) {
	t.Helper()
	if err := atOnce(objs, func(o client.Object) error { return CP.Client.Create(context.Background(), o) }); err != nil {
		t.Fatal(err)
	}
}

// atOnce calls fn on every object from up to 16 goroutines and returns the
// first error.
func atOnce(objs []client.Object, fn func(client.Object) error) error {
	work := make(chan client.Object)
	errs := make(chan error, len(objs))
	var wg sync.WaitGroup
	for range min(16, len(objs)) {
		wg.Go(func() {
			for o := range work {
				if err := fn(o); err != nil {
					errs <- fmt.Errorf("%T %s: %w", o, client.ObjectKeyFromObject(o), err)
				}
			}
		})
	}
	for _, o := range objs {
		work <- o
	}
	close(work)
	wg.Wait()
	close(errs)
	return <-errs
}

// Heads names n head branches request/000, request/001, …
func Heads(n int) []string {
	heads := make([]string, n)
	for i := range heads {
		heads[i] = fmt.Sprintf("request/%03d", i)
	}
	return heads
}

// HeadCommits are one commit per head, each adding <head>.txt, as
// Repo.Branch takes them.
func HeadCommits(heads ...string) map[string]testenv.CommitSpec {
	out := make(map[string]testenv.CommitSpec, len(heads))
	for _, h := range heads {
		out[h] = testenv.CommitSpec{Message: "change " + h, Files: map[string]string{h + ".txt": "x\n"}}
	}
	return out
}
