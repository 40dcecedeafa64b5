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
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestScrub(t *testing.T) {
	t.Parallel()
	cases := map[string]struct {
		reason string
		msg    string
		want   string
	}{
		"Plain": {
			reason: "A message without a URL is left alone.",
			msg:    "authentication required",
			want:   "authentication required",
		},
		"URLWithoutSecrets": {
			reason: "A URL without credentials is left alone: it says where.",
			msg:    `unexpected status 503 from https://git.example.org/org/repo.git`,
			want:   `unexpected status 503 from https://git.example.org/org/repo.git`,
		},
		"Password": {
			reason: "User and password go.",
			msg:    `Get "https://bot:s3cret@git.example.org/org/repo.git/info/refs": EOF`,
			want:   `Get "https://REDACTED@git.example.org/org/repo.git/info/refs": EOF`,
		},
		"Token": {
			reason: "A token as the user goes too.",
			msg:    "remote: mirror at ssh://ghp_abc123@host/x refused",
			want:   "remote: mirror at ssh://REDACTED@host/x refused",
		},
		"Query": {
			reason: "A query may carry a token: it goes, the path stays.",
			msg:    `Get "https://host/repo.git/info/refs?service=git-upload-pack&private_token=abc": 401`,
			want:   `Get "https://host/repo.git/info/refs?REDACTED": 401`,
		},
		"Several": {
			reason: "Every URL of a message is scrubbed.",
			msg:    "http://a:b@h1/x and https://h2/y?t=c",
			want:   "http://REDACTED@h1/x and https://h2/y?REDACTED",
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, Scrub(tc.msg)); diff != "" {
				t.Errorf("%s\nScrub(%q): -want, +got:\n%s", tc.reason, tc.msg, diff)
			}
		})
	}
	err := classify(errors.New(`Get "https://bot:s3cret@host/r.git/info/refs?token=t0k": dial tcp: refused`))
	if diff := cmp.Diff(`Get "https://REDACTED@host/r.git/info/refs?REDACTED": dial tcp: refused`, err.Error()); diff != "" {
		t.Errorf("every engine error is scrubbed: -want, +got:\n%s", diff)
	}
}
