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

package controller_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/crossplane-contrib/provider-git/apis/v1alpha1"
	"github.com/crossplane-contrib/provider-git/internal/controller/config"
	"github.com/crossplane-contrib/provider-git/internal/session"
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
	startProvider(t, "")

	t.Run("ProviderConfigReadySaysEmpty", func(t *testing.T) {
		f := newFixtureOf(t, nil)
		pc := &v1alpha1.ProviderConfig{ObjectMeta: metav1.ObjectMeta{Namespace: f.ns, Name: "git"}}
		waitFor(t, 30*time.Second, pc, func() error {
			if err := conditionIs(pc, xpv2.TypeReady, corev1.ConditionTrue, session.ReasonSucceeded); err != nil {
				return err
			}
			if msg := pc.GetCondition(xpv2.TypeReady).Message; !strings.Contains(msg, config.MessageEmpty) {
				return fmt.Errorf("Ready message %q does not say the repository is empty", msg)
			}
			return nil
		})
	})

	cases := map[string]struct {
		reason string
		obj    func(f *fixture) readyObject
		want   map[string]string
	}{
		"BranchWithoutFrom": {
			reason: "A Branch with no from creates the first commit, with no files.",
			obj:    func(f *fixture) readyObject { return newBranch(f, "main", "main", "") },
			want:   map[string]string{},
		},
		"File": {
			reason: "A File on a branch of an empty repository creates the branch with the file as its first commit.",
			obj:    func(f *fixture) readyObject { return newFile(f, "readme", "README.md", "hello\n") },
			want:   map[string]string{"README.md": "hello\n"},
		},
		"CommitRequest": {
			reason: "A CommitRequest on a branch of an empty repository lands as the first commit.",
			obj: func(f *fixture) readyObject {
				return newCommitRequest(f, "bootstrap", "Bootstrap", v1alpha1.CommitFile{Path: "VERSION", Content: ptr.To("1\n")})
			},
			want: map[string]string{"VERSION": "1\n"},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			f := newFixtureOf(t, nil)
			o := tc.obj(f)
			create(t, o)
			waitFor(t, 30*time.Second, o, readyAndCurrent(t, o))
			log := f.repo.Log(t, "main")
			if len(log) != 1 || len(log[0].Parents) != 0 {
				t.Fatalf("%s\nmain: want one commit with no parent, got %+v", tc.reason, log)
			}
			if diff := cmp.Diff(tc.want, f.repo.Files(t, "main"), cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("%s\nmain: -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}
