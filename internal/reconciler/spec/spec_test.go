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

package spec

import (
	"testing"

	"github.com/crossplane/crossplane-runtime/v2/pkg/errors"
	"github.com/crossplane/crossplane-runtime/v2/pkg/test"
	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"
	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/utils/ptr"

	"github.com/crossplane-contrib/provider-git/internal/git"
	"github.com/crossplane-contrib/provider-git/internal/reconciler/managed"
)

func TestContent(t *testing.T) {
	raw := func(s string) *runtime.RawExtension { return &runtime.RawExtension{Raw: []byte(s)} }
	type args struct {
		content *string
		object  *runtime.RawExtension
	}
	type want struct {
		out    []byte
		reason xpv2.ConditionReason // stalled reason; "" means no error
	}
	cases := map[string]struct {
		reason string
		args   args
		want   want
	}{
		"Content": {
			reason: "Content is taken byte for byte.",
			args:   args{content: ptr.To("a: 1\n")},
			want:   want{out: []byte("a: 1\n")},
		},
		"EmptyContent": {
			reason: "Empty content is an empty file, not a missing one.",
			args:   args{content: ptr.To("")},
			want:   want{out: []byte("")},
		},
		"Object": {
			reason: "An object is rendered as stable YAML without status and server-set metadata.",
			args:   args{object: raw(`{"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"x","uid":"u"},"data":{"b":"2","a":"1"},"status":{}}`)},
			want:   want{out: []byte("apiVersion: v1\ndata:\n  a: \"1\"\n  b: \"2\"\nkind: ConfigMap\nmetadata:\n  name: x\n")},
		},
		"Secret": {
			reason: "A Secret would land in Git in clear text: SecretRefused.",
			args:   args{object: raw(`{"apiVersion":"v1","kind":"Secret","stringData":{"k":"v"}}`)},
			want:   want{reason: ReasonSecretRefused},
		},
		"NotAnObject": {
			reason: "An object without apiVersion and kind cannot be rendered: InvalidSpec.",
			args:   args{object: raw(`{"data":{}}`)},
			want:   want{reason: ReasonInvalidSpec},
		},
		"NotText": {
			reason: "Content that is not UTF-8 was mangled on its way in: InvalidSpec.",
			args:   args{content: ptr.To("\xff\xfe")},
			want:   want{reason: ReasonInvalidSpec},
		},
		"Neither": {
			reason: "One of content or object is required.",
			want:   want{reason: ReasonInvalidSpec},
		},
		"EmptyObject": {
			reason: "An object with no bytes counts as no object.",
			args:   args{object: &runtime.RawExtension{}},
			want:   want{reason: ReasonInvalidSpec},
		},
		"Both": {
			reason: "Content and object together are ambiguous.",
			args:   args{content: ptr.To("x"), object: raw(`{"apiVersion":"v1","kind":"ConfigMap"}`)},
			want:   want{reason: ReasonInvalidSpec},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			out, err := Content(tc.args.content, tc.args.object)
			reason, stalled := managed.StalledReason(err)
			if err != nil && !stalled {
				t.Fatalf("%s\nContent(...): a spec error must be marked Stalled, got %v", tc.reason, err)
			}
			if diff := cmp.Diff(tc.want, want{out: out, reason: reason}, cmp.AllowUnexported(want{})); diff != "" {
				t.Errorf("%s\nContent(...): -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}

func TestInvalid(t *testing.T) {
	cause := errors.New("bad")
	cases := map[string]struct {
		reason string
		err    error
		want   error
	}{
		"Nil": {
			reason: "No error stays no error.",
		},
		"Marked": {
			reason: "An error is marked Stalled with InvalidSpec, its message unchanged.",
			err:    cause,
			want:   managed.Stalled(ReasonInvalidSpec, cause),
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got := Invalid(tc.err)
			if diff := cmp.Diff(tc.want, got, test.EquateErrors()); diff != "" {
				t.Errorf("%s\nInvalid(...): -want, +got:\n%s", tc.reason, diff)
			}
			if tc.err != nil && !errors.Is(got, tc.err) {
				t.Errorf("%s\nInvalid(...) must keep the cause in the chain", tc.reason)
			}
			if r, _ := managed.StalledReason(got); tc.err != nil && r != ReasonInvalidSpec {
				t.Errorf("%s\nInvalid(...): reason %q, want %q", tc.reason, r, ReasonInvalidSpec)
			}
		})
	}
}

func TestGitError(t *testing.T) {
	gitErr := func(k git.Kind) error { return &git.Error{Kind: k, Err: errors.New(k.String())} }
	cases := map[string]struct {
		reason string
		err    error
		want   xpv2.ConditionReason // "" means transient (not stalled)
	}{
		"Nil":       {reason: "No error stays no error.", err: nil},
		"Transient": {reason: "Network errors are retried, not stalled.", err: errors.New("connection reset")},
		"Timeout":   {reason: "An error the engine classified transient is retried.", err: gitErr(git.KindTransient)},
		"Auth":      {reason: "Refused credentials need a human.", err: gitErr(git.KindAuth), want: ReasonAuthenticationFailed},
		"HostKey":   {reason: "A host key problem needs a human.", err: gitErr(git.KindHostKey), want: ReasonHostKeyMismatch},
		"Repo":      {reason: "A missing repository needs a human.", err: gitErr(git.KindRepositoryNotFound), want: ReasonRepositoryNotFound},
		"Branch":    {reason: "A missing branch is reported as such.", err: gitErr(git.KindBranchNotFound), want: ReasonBranchNotFound},
		"Rejected":  {reason: "A protected branch needs a human.", err: gitErr(git.KindRejected), want: ReasonPushRejected},
		"Invalid":   {reason: "A bad key or URL is a configuration problem.", err: gitErr(git.KindInvalid), want: ReasonInvalidConfig},
		"PathConflict": {
			reason: "A path that is a directory in Git, or runs through a file, is the resource's own problem, not its configuration's.",
			err:    gitErr(git.KindPathConflict), want: ReasonPathConflict,
		},
		"InvalidChange": {
			reason: "A malformed change (a path Git refuses, a start point that is no SHA) is the resource's spec.",
			err:    gitErr(git.KindInvalidChange), want: ReasonInvalidSpec,
		},
		"Wrapped": {
			reason: "The kind is found through wrapping.",
			err:    errors.Wrap(gitErr(git.KindPathConflict), "cannot commit"), want: ReasonPathConflict,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got := GitError(tc.err)
			reason, _ := managed.StalledReason(got)
			if diff := cmp.Diff(tc.want, reason); diff != "" {
				t.Errorf("%s\nGitError: -want reason, +got reason:\n%s", tc.reason, diff)
			}
			if (got == nil) != (tc.err == nil) {
				t.Errorf("%s\nGitError(%v) = %v", tc.reason, tc.err, got)
			}
			if tc.err != nil && !errors.Is(got, tc.err) {
				t.Errorf("%s\nGitError must keep the engine's error in the chain", tc.reason)
			}
		})
	}
}

func TestGitErrorBy(t *testing.T) {
	auth := &git.Error{Kind: git.KindAuth, Err: errors.New("authentication required")}
	conflict := &git.Error{Kind: git.KindPathConflict, Err: errors.New("a directory")}
	const creds = `credentials Secret team-a/git key "password"`
	cases := map[string]struct {
		reason string
		err    error
		creds  string
		want   string
	}{
		"AuthNamesTheSecret": {
			reason: "A refusal names the Secret and key that were sent.",
			err:    auth, creds: creds,
			want: `the server refused credentials Secret team-a/git key "password": authentication required`,
		},
		"AnonymousAuth": {
			reason: "With no credentials sent there is nothing to name.",
			err:    auth,
			want:   "authentication required",
		},
		"OtherKinds": {
			reason: "Only a refusal of the credentials names them.",
			err:    conflict, creds: creds,
			want: "a directory",
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got := GitErrorBy(tc.err, tc.creds)
			if diff := cmp.Diff(tc.want, got.Error()); diff != "" {
				t.Errorf("%s\nGitErrorBy: -want, +got:\n%s", tc.reason, diff)
			}
			if !errors.Is(got, tc.err) {
				t.Errorf("%s\nGitErrorBy must keep the engine's error in the chain", tc.reason)
			}
			if a, b := managed.StalledReason(got); a != mustReason(GitError(tc.err)) || !b {
				t.Errorf("%s\nGitErrorBy must stall with GitError's reason, got %q", tc.reason, a)
			}
		})
	}
}

// mustReason is err's Stalled reason.
func mustReason(err error) xpv2.ConditionReason {
	r, _ := managed.StalledReason(err)
	return r
}
