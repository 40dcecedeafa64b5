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

package gitea

import (
	"context"
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/crossplane-contrib/provider-git/internal/forge"
)

// TestCreateMissingBranch: a create refused for a branch that does not
// exist is ErrNoSuchBranch whichever way the forge says so (both answers
// are the real ones, seen in gitea_test.go's NoSuchHead on each forge),
// and a refusal with both branches there keeps the forge's own error.
func TestCreateMissingBranch(t *testing.T) {
	const (
		pulls    = "POST /api/v1/repos/o/r/pulls"
		repo     = "GET /api/v1/repos/o/r"
		headRef  = "GET /api/v1/repos/o/r/branches/feature"
		baseRef  = "GET /api/v1/repos/o/r/branches/main"
		notFound = `{"message":"The target couldn't be found.","url":"/api/swagger"}`
		branch   = `{"name":"x","commit":{"id":"0123"}}`
	)
	type want struct {
		noSuchBranch bool
		status       int
	}
	cases := map[string]struct {
		reason  string
		answers map[string]answer
		want    want
	}{
		"GiteaNotFound": {
			reason: "Gitea answers a missing head with a 404 like a missing repository's.",
			answers: map[string]answer{pulls: {status: 404, body: notFound}, repo: {status: 200, body: `{"name":"r"}`},
				baseRef: {status: 200, body: branch}},
			want: want{noSuchBranch: true, status: 404},
		},
		"ForgejoBadRevision": {
			reason: "Forgejo answers a missing head with a 500 of Git's words.",
			answers: map[string]answer{pulls: {status: 500, body: `{"message":"exit status 128: Stderr: fatal: bad revision 'refs/heads/main...feature'\n","url":"/api/swagger"}`},
				repo: {status: 200, body: `{"name":"r"}`}, baseRef: {status: 200, body: branch}},
			want: want{noSuchBranch: true, status: 500},
		},
		"ServerErrorBranchesThere": {
			reason: "A 500 with both branches there is the forge's error, not a missing branch.",
			answers: map[string]answer{pulls: {status: 500, body: `{"message":"database is locked"}`},
				repo: {status: 200, body: `{"name":"r"}`}, headRef: {status: 200, body: branch}, baseRef: {status: 200, body: branch}},
			want: want{status: 500},
		},
		"NoRepository": {
			reason:  "A 404 for a repository that is not there is no missing branch.",
			answers: map[string]answer{pulls: {status: 404, body: notFound}},
			want:    want{status: 404},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			c, _ := newFake(t, tc.answers, "t0k3n")
			_, err := c.Create(context.Background(), forge.Spec{Head: "feature", Base: "main", Title: "t"})
			var ae *forge.APIError
			if !errors.As(err, &ae) {
				t.Fatalf("%s\nwant an *forge.APIError, got %T: %v", tc.reason, err, err)
			}
			got := want{noSuchBranch: errors.Is(err, forge.ErrNoSuchBranch), status: ae.Status}
			if diff := cmp.Diff(tc.want, got, cmp.AllowUnexported(want{})); diff != "" {
				t.Errorf("%s\nCreate's error %v: -want, +got:\n%s", tc.reason, err, diff)
			}
		})
	}
}
