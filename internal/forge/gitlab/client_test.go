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

package gitlab_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	testingclock "k8s.io/utils/clock/testing"

	"github.com/crossplane-contrib/provider-git/internal/forge"
	"github.com/crossplane-contrib/provider-git/internal/forge/gitlab"
	fake "github.com/crossplane-contrib/provider-git/internal/testharness/forgetest/gitlab"
)

// t0 is the injected clock's time.
var t0 = time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)

// client opens the Client of the fake's project with token.
func client(t *testing.T, s *fake.Server, token string, o ...gitlab.Option) *gitlab.Client {
	t.Helper()
	o = append([]gitlab.Option{gitlab.WithClock(testingclock.NewFakePassiveClock(t0))}, o...)
	c, err := gitlab.NewClient(forge.Config{
		Type: forge.GitLab, APIURL: s.APIURL(), Owner: "group/sub", Name: "project",
		Token:      func(context.Context) (string, error) { return token, nil },
		HTTPClient: s.Client(),
	}, o...)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func ptr[T any](v T) *T { return &v }

// ignoreURL leaves out what depends on the fake's port.
var ignoreURL = cmpopts.IgnoreFields(forge.PullRequest{}, "URL")

func TestCreate(t *testing.T) {
	type args struct {
		setup func(s *fake.Server)
		spec  forge.Spec
	}
	type want struct {
		pr    forge.PullRequest
		title string // the title GitLab holds
		err   error
		// users is how many user look-ups two creates make.
		users int
	}
	cases := map[string]struct {
		reason string
		args   args
		want   want
	}{
		"Opens": {
			reason: "A merge request is opened with its description, labels, reviewers and assignees by name.",
			args: args{
				setup: func(s *fake.Server) { s.AddUser("alice"); s.AddUser("bob") },
				spec: forge.Spec{Head: "feature", Base: "main", Title: "Add a file", Body: "Why.",
					Labels: []string{"env", "prod"}, Reviewers: []string{"alice"}, Assignees: []string{"bob"}},
			},
			want: want{
				pr: forge.PullRequest{Number: 1, State: forge.StateOpen, Head: "feature", Base: "main",
					Title: "Add a file", Body: "Why.", Labels: []string{"env", "prod"},
					Reviewers: []string{"alice"}, Assignees: []string{"bob"}, Mergeable: ptr(true)},
				title: "Add a file",
				users: 2,
			},
		},
		"Draft": {
			reason: "A draft is opened with GitLab's documented Draft: title prefix, and reported without it.",
			args:   args{spec: forge.Spec{Head: "feature", Base: "main", Title: "Add a file", Draft: true}},
			want: want{
				pr: forge.PullRequest{Number: 1, State: forge.StateOpen, Head: "feature", Base: "main",
					Title: "Add a file", Draft: true, Mergeable: ptr(false)},
				title: "Draft: Add a file",
			},
		},
		"ReviewersByNameOnce": {
			reason: "A user name is looked up once per Client: the second create uses the cached id.",
			args: args{
				setup: func(s *fake.Server) { s.AddUser("alice") },
				spec:  forge.Spec{Head: "feature", Base: "main", Title: "t", Reviewers: []string{"alice"}, Assignees: []string{"Alice"}},
			},
			want: want{
				pr: forge.PullRequest{Number: 1, State: forge.StateOpen, Head: "feature", Base: "main",
					Title: "t", Reviewers: []string{"alice"}, Assignees: []string{"alice"}, Mergeable: ptr(true)},
				title: "t",
				users: 1,
			},
		},
		"Duplicate": {
			reason: "GitLab's 409 for a second open merge request of a source branch is ErrExists.",
			args: args{
				setup: func(s *fake.Server) { s.Open("feature", "main", "by a person") },
				spec:  forge.Spec{Head: "feature", Base: "main", Title: "t"},
			},
			want: want{err: forge.ErrExists, title: "by a person"},
		},
		"NoSuchBranch": {
			reason: "A source branch GitLab does not have is ErrNoSuchBranch, so the caller waits for it.",
			args:   args{spec: forge.Spec{Head: "missing", Base: "main", Title: "t"}},
			want:   want{err: forge.ErrNoSuchBranch},
		},
		"NoSuchUser": {
			reason: "A reviewer GitLab does not know is invalid input, and nothing is opened.",
			args:   args{spec: forge.Spec{Head: "feature", Base: "main", Title: "t", Reviewers: []string{"nobody"}}},
			want:   want{err: forge.ErrInvalidInput},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			s := fake.NewServer(t)
			sha := s.AddBranch("feature")
			if tc.args.setup != nil {
				tc.args.setup(s)
			}
			c := client(t, s, fake.Token)
			got, err := c.Create(context.Background(), tc.args.spec)
			if diff := cmp.Diff(tc.want.err, err, cmpopts.EquateErrors()); diff != "" {
				t.Fatalf("%s\nCreate(...): -want error, +got error:\n%s", tc.reason, diff)
			}
			if err != nil {
				if mr, ok := s.MR(1); ok && mr.Title != tc.want.title {
					t.Errorf("%s\nthe fake's !1 title: want %q, got %q", tc.reason, tc.want.title, mr.Title)
				}
				if _, ok := s.MR(2); ok {
					t.Errorf("%s\na refused Create opened a merge request", tc.reason)
				}
				return
			}
			tc.want.pr.HeadSHA = sha
			tc.want.pr.HeadRepo, tc.want.pr.HeadInRepo = fake.Project, true
			if diff := cmp.Diff(tc.want.pr, got, ignoreURL); diff != "" {
				t.Errorf("%s\nCreate(...): -want, +got:\n%s", tc.reason, diff)
			}
			if want := fmt.Sprintf("%s/%s/-/merge_requests/1", s.URL(), fake.Project); got.URL != want {
				t.Errorf("%s\nURL: want %q, got %q", tc.reason, want, got.URL)
			}
			if mr, _ := s.MR(1); mr.Title != tc.want.title {
				t.Errorf("%s\nthe fake's title: want %q, got %q", tc.reason, tc.want.title, mr.Title)
			}
			// A second create on another branch reuses the looked-up ids.
			s.AddBranch("second")
			second := tc.args.spec
			second.Head = "second"
			if _, err := c.Create(context.Background(), second); err != nil {
				t.Fatal(err)
			}
			if got := s.Requests()["GET /users"]; got != tc.want.users {
				t.Errorf("%s\nGET /users: want %d, got %d", tc.reason, tc.want.users, got)
			}
		})
	}
}

func TestCreateDuplicateNamesTheOpenOne(t *testing.T) {
	s := fake.NewServer(t)
	s.AddBranch("feature")
	s.Open("feature", "main", "by a person")
	_, err := client(t, s, fake.Token).Create(context.Background(), forge.Spec{Head: "feature", Base: "main", Title: "t"})
	var e *forge.APIError
	if !errors.As(err, &e) {
		t.Fatalf("Create(...): want *forge.APIError, got %v", err)
	}
	want := &forge.APIError{Status: 409, Kind: forge.ErrExists,
		Message: "Another open merge request already exists for this source branch: !1"}
	if diff := cmp.Diff(*want, *e, cmpopts.EquateErrors()); diff != "" {
		t.Errorf("Create(...) on a branch with an open merge request: -want, +got:\n%s", diff)
	}
}

func TestListOpen(t *testing.T) {
	type want struct {
		count       int
		first, last int64
		notModified []bool
		pages       int
	}
	cases := map[string]struct {
		reason string
		open   int
		closed int
		etags  bool
		want   want
	}{
		"Paged": {
			reason: "250 open merge requests come over three pages of 100; an unchanged second list is notModified from the pages' ETags.",
			open:   250, closed: 3, etags: true,
			want: want{count: 250, first: 253, last: 4, notModified: []bool{false, true}, pages: 6},
		},
		"NoETags": {
			reason: "Without ETags every list is read again, never notModified.",
			open:   250, etags: false,
			want: want{count: 250, first: 250, last: 1, notModified: []bool{false, false}, pages: 6},
		},
		"Empty": {
			reason: "No open merge request is one page and an empty list.",
			closed: 2, etags: true,
			want: want{count: 0, notModified: []bool{false, true}, pages: 2},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			s := fake.NewServer(t)
			s.SetETags(tc.etags)
			for i := range tc.closed {
				b := fmt.Sprintf("old-%d", i)
				s.AddBranch(b)
				s.Close(s.Open(b, "main", b))
			}
			for i := range tc.open {
				b := fmt.Sprintf("b-%d", i)
				s.AddBranch(b)
				s.Open(b, "main", b)
			}
			c := client(t, s, fake.Token)
			var nm []bool
			for range 2 {
				prs, notModified, err := c.ListOpen(context.Background())
				if err != nil {
					t.Fatal(err)
				}
				nm = append(nm, notModified)
				if len(prs) != tc.want.count {
					t.Fatalf("%s\nListOpen(): want %d, got %d", tc.reason, tc.want.count, len(prs))
				}
				if len(prs) > 0 && (prs[0].Number != tc.want.first || prs[len(prs)-1].Number != tc.want.last) {
					t.Errorf("%s\nListOpen(): want !%d … !%d, got !%d … !%d", tc.reason,
						tc.want.first, tc.want.last, prs[0].Number, prs[len(prs)-1].Number)
				}
			}
			if diff := cmp.Diff(tc.want.notModified, nm); diff != "" {
				t.Errorf("%s\nnotModified: -want, +got:\n%s", tc.reason, diff)
			}
			if got := s.Requests()["GET /projects/:id/merge_requests"]; got != tc.want.pages {
				t.Errorf("%s\npage requests: want %d, got %d", tc.reason, tc.want.pages, got)
			}
		})
	}
}

func TestListOpenSeesAChangeOnALaterPage(t *testing.T) {
	s := fake.NewServer(t)
	for i := range 250 {
		b := fmt.Sprintf("b-%d", i)
		s.AddBranch(b)
		s.Open(b, "main", b)
	}
	c := client(t, s, fake.Token)
	if _, _, err := c.ListOpen(context.Background()); err != nil {
		t.Fatal(err)
	}
	// !1 is on the third page (newest first); its ETag changes, pages one
	// and two answer 304 and are taken from the last list.
	s.EditTitle(1, "edited by a person")
	prs, notModified, err := c.ListOpen(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if notModified || len(prs) != 250 || prs[249].Title != "edited by a person" || prs[0].Title != "b-249" {
		t.Errorf("ListOpen() after an edit on page 3: notModified %t, %d merge requests, last %q, first %q",
			notModified, len(prs), prs[249].Title, prs[0].Title)
	}
}

func fakeClock() *testingclock.FakePassiveClock { return testingclock.NewFakePassiveClock(t0) }

// TestConcurrentUse shares one Client between goroutines, as the
// PullRequest controller's workers do; run with -race it checks the user
// and page caches' locking.
func TestConcurrentUse(t *testing.T) {
	s := fake.NewServer(t)
	s.AddUser("alice")
	for i := range 120 {
		b := fmt.Sprintf("b-%d", i)
		s.AddBranch(b)
		s.Open(b, "main", b)
	}
	c := client(t, s, fake.Token)
	errs := make(chan error, 16)
	for i := range 8 {
		go func() {
			_, _, err := c.ListOpen(context.Background())
			errs <- err
		}()
		go func() {
			b := fmt.Sprintf("new-%d", i)
			s.AddBranch(b)
			_, err := c.Create(context.Background(), forge.Spec{Head: b, Base: "main", Title: b, Reviewers: []string{"alice"}})
			errs <- err
		}()
	}
	for range 16 {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
	if got := s.Requests()["POST /projects/:id/merge_requests"]; got != 8 {
		t.Errorf("creates: want 8, got %d", got)
	}
}
