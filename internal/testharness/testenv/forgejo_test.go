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

package testenv

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestRawToken(t *testing.T) {
	cases := map[string]struct {
		reason string
		out    string
		want   string
	}{
		"Alone":       {reason: "--raw prints the token alone.", out: "abee018c694dbe65cf3e43a7746b9e5f1914fe61\n", want: "abee018c694dbe65cf3e43a7746b9e5f1914fe61"},
		"AfterAWarn":  {reason: "As root, a warning line comes first.", out: "2026/12/01 modules/setting/setting.go:190:loadRunModeFrom() [E] You are running Gitea using the root user\nabee018c694dbe65cf3e43a7746b9e5f1914fe61\n", want: "abee018c694dbe65cf3e43a7746b9e5f1914fe61"},
		"BeforeAWarn": {reason: "A warning line may also come after the token.", out: "abee018c694dbe65cf3e43a7746b9e5f1914fe61\n2026/12/02 modules/setting/setting.go:190:loadRunModeFrom() [E] You are running Gitea using the root user\n\n", want: "abee018c694dbe65cf3e43a7746b9e5f1914fe61"},
		"TwoTokens":   {reason: "Two hexadecimal lines are ambiguous: no token is read from them.", out: "abee018c694dbe65cf3e43a7746b9e5f1914fe61\n693b8e5c8710f4f53141c6291dbdd4a3817afe6f\n"},
		"NotRaw":      {reason: "Without --raw, the token follows a sentence: no token is read from it.", out: "Access token was successfully created: x y\n"},
		"Empty":       {reason: "Nothing printed is no token.", out: ""},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, rawToken(tc.out)); diff != "" {
				t.Errorf("%s\nrawToken: -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}
