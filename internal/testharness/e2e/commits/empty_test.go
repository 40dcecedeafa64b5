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

package commits_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/util/retry"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/crossplane-contrib/provider-git/apis/v1alpha1"
	"github.com/crossplane-contrib/provider-git/internal/controller/config"
	"github.com/crossplane-contrib/provider-git/internal/reconciler/session"
	"github.com/crossplane-contrib/provider-git/internal/testharness/e2e"
	"github.com/crossplane-contrib/provider-git/internal/testharness/testenv"
)

// readyObject is a managed resource whose conditions the test reads.
type readyObject interface {
	client.Object
	GetCondition(xpv2.ConditionType) xpv2.Condition
}

// TestEmptyRepository starts from a repository with no commit at all, as a
// forge creates it: the ProviderConfig is Ready and says so, and the first
// Branch, File or CommitRequest creates the first commit (no parent).
func TestEmptyRepository(t *testing.T) {
	e2e.StartProvider(t, "")

	t.Run("ProviderConfigReadySaysEmpty", func(t *testing.T) {
		t.Parallel()
		f := e2e.NewFixtureOf(t, nil)
		pc := &v1alpha1.ProviderConfig{ObjectMeta: metav1.ObjectMeta{Namespace: f.Namespace, Name: "git"}}
		e2e.WaitFor(t, 30*time.Second, pc, func() error {
			if err := e2e.ConditionIs(pc, xpv2.TypeReady, corev1.ConditionTrue, session.ReasonSucceeded); err != nil {
				return err
			}
			if msg := pc.GetCondition(xpv2.TypeReady).Message; !strings.Contains(msg, config.MessageEmpty) {
				return fmt.Errorf("Ready message %q does not say the repository is empty", msg)
			}
			return nil
		})
	})

	t.Run("BranchStartCommitIsTheConfigurationsIdentity", func(t *testing.T) {
		t.Parallel()
		// A forge shows a signed commit as Verified by its committer's
		// e-mail: the first commit of an empty repository is authored,
		// committed and signed as every other commit, by the configuration.
		f := e2e.NewFixtureOf(t, nil)
		pc := &v1alpha1.ProviderConfig{ObjectMeta: metav1.ObjectMeta{Namespace: f.Namespace, Name: "git"}}
		err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
			if err := e2e.CP.Client.Get(context.Background(), client.ObjectKeyFromObject(pc), pc); err != nil {
				return err
			}
			pc.Spec.Commit.Author = &v1alpha1.CommitAuthor{Name: "Platform Bot", Email: "platform-bot@example.org"}
			pc.Spec.Commit.Signing = &v1alpha1.CommitSigning{SecretRef: v1alpha1.SigningKeySecretRef{Name: "signing"}, GenerateWhenMissing: true}
			return e2e.CP.Client.Update(context.Background(), pc)
		})
		if err != nil {
			t.Fatal(err)
		}
		e2e.WaitFor(t, 30*time.Second, pc, publishesKey(pc))
		b := e2e.NewBranch(f, "main", "main", "")
		e2e.Create(t, b)
		e2e.WaitFor(t, 30*time.Second, b, e2e.ReadyAndCurrent(t, b))
		got, err := testenv.Git(f.Repo.Dir, nil, "log", "-1", "--format=author %an <%ae>%ncommitter %cn <%ce>", "main")
		if err != nil {
			t.Fatal(err)
		}
		want := "author Platform Bot <platform-bot@example.org>\ncommitter Platform Bot <platform-bot@example.org>"
		if diff := cmp.Diff(want, strings.TrimSpace(got)); diff != "" {
			t.Errorf("the empty repository's first commit: -want, +got:\n%s", diff)
		}
		if n := verifyAll(t, f, "main", pc.Status.Signing.PublicKey, nil); n != 1 {
			t.Errorf("verified commits on main: got %d, want 1", n)
		}
	})

	cases := map[string]struct {
		reason string
		obj    func(f *e2e.Fixture) readyObject
		want   map[string]string
	}{
		"BranchWithoutFrom": {
			reason: "A Branch with no from creates the first commit, with no files.",
			obj:    func(f *e2e.Fixture) readyObject { return e2e.NewBranch(f, "main", "main", "") },
			want:   map[string]string{},
		},
		"File": {
			reason: "A File on a branch of an empty repository creates the branch with the file as its first commit.",
			obj:    func(f *e2e.Fixture) readyObject { return e2e.NewFile(f, "readme", "README.md", "hello\n") },
			want:   map[string]string{"README.md": "hello\n"},
		},
		"CommitRequest": {
			reason: "A CommitRequest on a branch of an empty repository lands as the first commit.",
			obj: func(f *e2e.Fixture) readyObject {
				return e2e.NewCommitRequest(f, "bootstrap", "Bootstrap", v1alpha1.CommitFile{Path: "VERSION", Content: ptr.To("1\n")})
			},
			want: map[string]string{"VERSION": "1\n"},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			f := e2e.NewFixtureOf(t, nil)
			o := tc.obj(f)
			e2e.Create(t, o)
			e2e.WaitFor(t, 30*time.Second, o, e2e.ReadyAndCurrent(t, o))
			log := f.Repo.Log(t, "main")
			if len(log) != 1 || len(log[0].Parents) != 0 {
				t.Fatalf("%s\nmain: want one commit with no parent, got %+v", tc.reason, log)
			}
			if diff := cmp.Diff(tc.want, f.Repo.Files(t, "main"), cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("%s\nmain: -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}
