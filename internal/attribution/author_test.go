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
package attribution

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/crossplane-contrib/provider-git/internal/audit"
	"github.com/crossplane-contrib/provider-git/internal/git"
)

// TestAuthorOf: what the author templates make of a fact's user.
func TestAuthorOf(t *testing.T) {
	sa := audit.Fact{User: audit.User{Username: "system:serviceaccount:team-a:deployer", UID: "u-1", Groups: []string{"system:serviceaccounts"}}}
	type args struct {
		name, email string
		fact        audit.Fact
	}
	cases := map[string]struct {
		reason string
		args   args
		want   git.Signature
	}{
		"Defaults": {
			reason: "The default name is the username, the e-mail a no-reply address of it.",
			args:   args{fact: sa},
			want:   git.Signature{Name: sa.User.Username, Email: sa.User.Username + "@users.noreply.example.org"},
		},
		"Fields": {
			reason: "A template may use the user's groups, UID and who impersonated them.",
			args: args{
				name:  `{{ .Username }} (via {{ .Impersonator }}, {{ index .Groups 0 }})`,
				email: "{{ .UID }}@example.org",
				fact:  func() audit.Fact { f := sa; f.Impersonator = "admin"; return f }(),
			},
			want: git.Signature{Name: sa.User.Username + " (via admin, system:serviceaccounts)", Email: "u-1@example.org"},
		},
		"FailsForThisUser": {
			reason: "A template that cannot render for this user (no second group) gives the default for them.",
			args:   args{name: "{{ index .Groups 1 }}", fact: sa},
			want:   git.Signature{Name: sa.User.Username, Email: sa.User.Username + "@users.noreply.example.org"},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			a, err := newAuthors(tc.args.name, tc.args.email)
			if err != nil {
				t.Fatalf("newAuthors(): %v", err)
			}
			if diff := cmp.Diff(tc.want, a.of(tc.args.fact)); diff != "" {
				t.Errorf("%s\nof(): -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}
