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
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestRemoteMessagesExplain(t *testing.T) {
	t.Parallel()
	refused := &Error{Kind: KindRejected, Err: errors.New("pre-receive hook declined")}
	cases := map[string]struct {
		reason string
		said   []string
		err    error
		want   string
	}{
		"HookWords": {
			reason: "A refusal carries what the hook said, so its owner knows what to change.",
			said:   []string{"apps/x.yaml is protected\n"},
			err:    refused,
			want:   `the server said "apps/x.yaml is protected": pre-receive hook declined`,
		},
		"ProgressAndControls": {
			reason: "Progress overwritten by a carriage return and control characters are dropped; lines are joined.",
			said:   []string{"Resolving 10%\rResolving 100%\n", "\x1b[31mno\x1b[0m\n", "\n", "second line"},
			err:    refused,
			want:   `the server said "Resolving 100%; [31mno[0m; second line": pre-receive hook declined`,
		},
		"BareLabels": {
			reason: "Gitea's hook frames its refusal with empty \"error:\" lines: a line that is only a label says nothing.",
			said:   []string{"error: \n", "error: Not allowed to push to protected branch main\n", "error: \n"},
			err:    refused,
			want:   `the server said "error: Not allowed to push to protected branch main": pre-receive hook declined`,
		},
		"Silent": {
			reason: "A server that said nothing leaves the refusal as it is.",
			err:    refused,
			want:   "pre-receive hook declined",
		},
		"NotARefusal": {
			reason: "Only a refusal is explained: a transient error keeps its own words.",
			said:   []string{"busy\n"},
			err:    errors.New("connection reset"),
			want:   "connection reset",
		},
		"Bounded": {
			reason: "A server cannot flood a condition message.",
			said:   []string{strings.Repeat("x", 4*maxRemoteMessage)},
			err:    refused,
			want:   `the server said "` + strings.Repeat("x", maxRemoteMessage) + `": pre-receive hook declined`,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			m := &remoteMessages{}
			for _, s := range tc.said {
				if _, err := m.Write([]byte(s)); err != nil {
					t.Fatal(err)
				}
			}
			got := m.explain(tc.err)
			if diff := cmp.Diff(tc.want, got.Error()); diff != "" {
				t.Errorf("%s\nexplain(...): -want, +got:\n%s", tc.reason, diff)
			}
			if diff := cmp.Diff(KindOf(tc.err), KindOf(got)); diff != "" {
				t.Errorf("%s\nKindOf(explain(...)): -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}
