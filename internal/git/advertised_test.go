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

package git

import (
	"context"
	"errors"
	"net/http"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	testingclock "k8s.io/utils/clock/testing"

	"github.com/crossplane-contrib/provider-git/internal/testharness/testenv"
)

func TestCheckAndDefaultBranch(t *testing.T) {
	t.Parallel()
	for _, s := range servers(t) {
		t.Run(s.name, func(t *testing.T) {
			r, _ := newRepo(t, s.remote)
			if empty, err := r.Check(ctx(t)); err != nil || empty {
				t.Fatalf("Check with the right credentials: empty %t, %v", empty, err)
			}
			got, err := r.DefaultBranch(ctx(t))
			if err != nil {
				t.Fatalf("DefaultBranch: %v", err)
			}
			if diff := cmp.Diff("main", got); diff != "" {
				t.Errorf("DefaultBranch: -want, +got:\n%s", diff)
			}
		})
	}
	t.Run("HEADElsewhere", func(t *testing.T) {
		s := httpServer(t)
		s.repo.CreateBranch(t, "trunk", "main")
		if _, err := testenv.Git(s.repo.Dir, nil, "symbolic-ref", "HEAD", "refs/heads/trunk"); err != nil {
			t.Fatal(err)
		}
		r, _ := newRepo(t, s.remote)
		got, err := r.DefaultBranch(ctx(t))
		if err != nil {
			t.Fatalf("DefaultBranch: %v", err)
		}
		if diff := cmp.Diff("trunk", got); diff != "" {
			t.Errorf("DefaultBranch follows HEAD: -want, +got:\n%s", diff)
		}
	})
	t.Run("WrongPassword", func(t *testing.T) {
		s := httpServer(t)
		r, _ := newRepo(t, Remote{URL: s.remote.URL, Auth: &BasicAuth{Username: testUser, Password: "wrong"}})
		if _, err := r.Check(ctx(t)); KindOf(err) != KindAuth {
			t.Errorf("Check with a wrong password: want KindAuth, got %v (%v)", KindOf(err), err)
		}
	})
	t.Run("EmptyRepository", func(t *testing.T) {
		root := t.TempDir()
		repo := testenv.NewBareRepo(t, root, "empty.git", nil)
		srv := testenv.NewHTTPServer(t, root, testUser, testToken)
		r, _ := newRepo(t, Remote{URL: srv.RepoURL(repo.Name), Auth: &BasicAuth{Username: testUser, Password: testToken}})
		if empty, err := r.Check(ctx(t)); err != nil || !empty {
			t.Errorf("Check of an empty repository: want empty and no error, got empty %t, %v", empty, err)
		}
		if _, err := r.DefaultBranch(ctx(t)); KindOf(err) != KindBranchNotFound || !errors.Is(err, ErrEmptyRepository) {
			t.Errorf("DefaultBranch of an empty repository: want KindBranchNotFound wrapping ErrEmptyRepository, got %v", err)
		}
	})
}

// TestCheckWithinReusesTheLatestAdvertisement: a configuration's check is
// answered from the repository's latest reference advertisement (a drift
// poll's) while that is younger than maxAge, by the cache's clock; an older
// one, or a failed one, is asked again.
func TestCheckWithinReusesTheLatestAdvertisement(t *testing.T) {
	t.Parallel()
	type want struct {
		adverts int64
		err     bool
	}
	cases := map[string]struct {
		reason string
		// before runs after a successful Poll at the clock's start.
		before func(t *testing.T, s *server, r *Repository, clk *testingclock.FakeClock)
		want   want
	}{
		"Fresh": {
			reason: "A poll's advertisement younger than maxAge answers the check: no request.",
			before: func(_ *testing.T, _ *server, _ *Repository, clk *testingclock.FakeClock) {
				clk.Step(time.Minute - time.Nanosecond)
			},
		},
		"Stale": {
			reason: "An advertisement maxAge old is asked again.",
			before: func(_ *testing.T, _ *server, _ *Repository, clk *testingclock.FakeClock) { clk.Step(time.Minute) },
			want:   want{adverts: 1},
		},
		"LastOneFailed": {
			reason: "A failed advertisement vouches for nothing, not even for the one before it: the check asks again.",
			before: func(t *testing.T, s *server, r *Repository, _ *testingclock.FakeClock) {
				s.http.FailWith(http.StatusServiceUnavailable)
				defer s.http.FailWith(0)
				if _, err := r.Poll(context.Background()); err == nil {
					t.Fatal("a poll of a failing server succeeded")
				}
			},
			want: want{adverts: 1},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			s := httpServer(t)
			clk := newFakeClock()
			r, _ := newRepo(t, s.remote, WithClock(clk))
			r.track("main")
			if _, err := r.Poll(ctx(t)); err != nil {
				t.Fatal(err)
			}
			tc.before(t, s, r, clk)
			s.http.ResetCounts()
			_, err := r.CheckWithin(ctx(t), time.Minute)
			got := want{adverts: s.http.Counts().UploadPackAdverts, err: err != nil}
			if diff := cmp.Diff(tc.want, got, cmp.AllowUnexported(want{})); diff != "" {
				t.Errorf("%s\n-want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}
