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

package main

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

const reloadFlag = "--audit-webhook-reload-interval"

// TestCheckReloadInterval: an audit reload interval below a second is
// refused, with the flag's name and its bound in the error.
func TestCheckReloadInterval(t *testing.T) {
	type want struct {
		Refused bool
		Message string
	}
	cases := map[string]struct {
		reason string
		d      time.Duration
		want   want
	}{
		"Zero": {
			reason: "0 would be a Secret Get on every request.",
			d:      0,
			want:   want{Refused: true, Message: reloadFlag + " must be at least 1s, not 0s"},
		},
		"Negative": {
			reason: "A negative interval is refused like 0.",
			d:      -time.Second,
			want:   want{Refused: true, Message: reloadFlag + " must be at least 1s, not -1s"},
		},
		"BelowASecond": {
			reason: "999ms is below the bound.",
			d:      999 * time.Millisecond,
			want:   want{Refused: true, Message: reloadFlag + " must be at least 1s, not 999ms"},
		},
		"ASecond": {
			reason: "The bound itself is taken.",
			d:      time.Second,
			want:   want{},
		},
		"Default": {
			reason: "The default is taken.",
			d:      10 * time.Second,
			want:   want{},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			err := checkReloadInterval(tc.d)
			got := want{Refused: err != nil}
			if err != nil {
				got.Message = err.Error()
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("%s\n-want +got:\n%s", tc.reason, diff)
			}
		})
	}
}

// TestRunRefusesShortReloadInterval: run refuses the flag at start,
// before it reaches for an API server.
func TestRunRefusesShortReloadInterval(t *testing.T) {
	// No API server config: were the flag let through, run would fail on
	// that instead.
	t.Setenv("KUBECONFIG", filepath.Join(t.TempDir(), "none"))
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	err := run(ctx, []string{"--cache-dir=" + filepath.Join(t.TempDir(), "cache"), reloadFlag + "=0"})
	if err == nil || !strings.Contains(err.Error(), reloadFlag+" must be at least 1s") {
		t.Fatalf("run with %s=0: got %v, want it refused", reloadFlag, err)
	}
}
