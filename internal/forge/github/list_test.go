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

package github_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/crossplane-contrib/provider-git/internal/forge"
)

// TestListOpenNotModified: an unchanged poll is one request answered 304,
// notModified, the same list, and no cost against the rate limit; a
// person's edit is seen on the next poll.
func TestListOpenNotModified(t *testing.T) {
	e := newEnv(t)
	e.create(t, "feature", forge.Spec{Title: "T"})
	e.s.SetPrimaryLimit(100, epoch.Add(time.Hour))
	e.calls()
	type got struct {
		Titles      []string
		NotModified bool
		Calls       []string
		Remaining   int
	}
	list := func() got {
		prs, nm, err := e.c.ListOpen(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		g := got{NotModified: nm, Calls: e.calls(), Remaining: e.s.RateRemaining()}
		for _, p := range prs {
			g.Titles = append(g.Titles, p.Title)
		}
		return g
	}
	steps := []struct {
		reason string
		do     func()
		want   got
	}{
		{reason: "The first list is a full answer and costs one request.",
			want: got{Titles: []string{"T"}, Calls: []string{"GET /repos/acme/gitops/pulls 200"}, Remaining: 99}},
		{reason: "An unchanged list is one request answered 304, notModified, free.",
			want: got{Titles: []string{"T"}, NotModified: true, Calls: []string{"GET /repos/acme/gitops/pulls 304"}, Remaining: 99}},
		{reason: "A person's title edit changes the ETag: a full answer with the new title.",
			do:   func() { e.s.EditTitle(1, "edited") },
			want: got{Titles: []string{"edited"}, Calls: []string{"GET /repos/acme/gitops/pulls 200"}, Remaining: 98}},
	}
	for i, st := range steps {
		if st.do != nil {
			st.do()
		}
		if diff := cmp.Diff(st.want, list()); diff != "" {
			t.Errorf("step %d: %s\nListOpen(): -want, +got:\n%s", i, st.reason, diff)
		}
	}
}

// TestListOpenPages: 250 open pull requests are three pages of 100, each
// conditional; closing the oldest changes only the last page.
func TestListOpenPages(t *testing.T) {
	e := newEnv(t)
	for i := range 250 {
		e.create(t, fmt.Sprintf("change/%03d", i), forge.Spec{})
	}
	e.calls()
	type got struct {
		N           int
		NotModified bool
		Calls       []string
	}
	list := func() got {
		prs, nm, err := e.c.ListOpen(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		seen := map[int64]bool{}
		for _, p := range prs {
			seen[p.Number] = true
		}
		if len(seen) != len(prs) {
			t.Errorf("ListOpen(): %d pull requests, %d distinct", len(prs), len(seen))
		}
		return got{N: len(prs), NotModified: nm, Calls: e.calls()}
	}
	pages := func(codes ...int) []string {
		var out []string
		for _, c := range codes {
			out = append(out, fmt.Sprintf("GET /repos/acme/gitops/pulls %d", c))
		}
		return out
	}
	steps := []struct {
		reason string
		do     func()
		want   got
	}{
		{reason: "All pages, by the Link header.", want: got{N: 250, Calls: pages(200, 200, 200)}},
		{reason: "Unchanged: every page 304.", want: got{N: 250, NotModified: true, Calls: pages(304, 304, 304)}},
		{reason: "The oldest closed: pages 1 and 2 are the same, page 3 is not.",
			do: func() { e.s.Close(1) }, want: got{N: 249, Calls: pages(304, 304, 200)}},
		{reason: "Fifty closed: page 3 is past the end, answers [], and the list shrinks.",
			do: func() {
				for n := int64(2); n <= 50; n++ {
					e.s.Close(n)
				}
			}, want: got{N: 200, Calls: pages(304, 304, 200)}},
	}
	for i, st := range steps {
		if st.do != nil {
			st.do()
		}
		if diff := cmp.Diff(st.want, list()); diff != "" {
			t.Errorf("step %d: %s\nListOpen(): -want, +got:\n%s", i, st.reason, diff)
		}
	}
}

// TestConcurrent: the client's cache and rate-limit gate are safe for
// concurrent use (run with -race).
func TestConcurrent(t *testing.T) {
	e := newEnv(t)
	pr := e.create(t, "feature", forge.Spec{Title: "T"})
	var wg sync.WaitGroup
	errs := make(chan error, 16)
	for range 8 {
		wg.Go(func() {
			if _, _, err := e.c.ListOpen(context.Background()); err != nil {
				errs <- err
			}
			if _, err := e.c.Get(context.Background(), pr.Number); err != nil {
				errs <- err
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

// TestListOpenHundred: the steady state, 100 open pull requests on
// one repository, is one request per poll, answered 304.
func TestListOpenHundred(t *testing.T) {
	e := newEnv(t)
	for i := range 100 {
		e.create(t, fmt.Sprintf("change/%03d", i), forge.Spec{})
	}
	if _, _, err := e.c.ListOpen(context.Background()); err != nil {
		t.Fatal(err)
	}
	e.calls()
	prs, nm, err := e.c.ListOpen(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	type got struct {
		N           int
		NotModified bool
		Calls       []string
	}
	want := got{N: 100, NotModified: true, Calls: []string{"GET /repos/acme/gitops/pulls 304"}}
	if diff := cmp.Diff(want, got{N: len(prs), NotModified: nm, Calls: e.calls()}); diff != "" {
		t.Errorf("ListOpen() in steady state: -want, +got:\n%s", diff)
	}
}
