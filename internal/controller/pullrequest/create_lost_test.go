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

package pullrequest

import (
	"context"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	clocktesting "k8s.io/utils/clock/testing"

	"github.com/crossplane-contrib/provider-git/internal/forge"
	"github.com/crossplane-contrib/provider-git/internal/testharness/forgetest/memory"
)

// TestCreateAnswerLost: a create whose answer is lost (a timeout; the
// forge opened it) is found by the next reconcile's list, never opened
// again: the failed create drops the listing it was decided on.
func TestCreateAnswerLost(t *testing.T) {
	f := memory.New()
	f.LoseNextCreate(context.DeadlineExceeded)
	clk := clocktesting.NewFakeClock(t0)
	board := forge.NewBoard(clk)
	pacer := forge.NewPacer(clk)
	acc := &account{client: f}
	connect := func() *external {
		return &external{acc: acc, key: "k", typ: forge.Gitea, repo: fakeRepo{heads: map[string]string{"request/demo": memory.HeadSHA, "main": "def"}}, listing: board.For("k", "", f, time.Minute),
			pacer: pacer, clock: clk, maxAge: time.Minute}
	}
	mg := pullRequest()
	obs, err := connect().Observe(context.Background(), mg)
	if err != nil || obs.ResourceExists {
		t.Fatalf("first Observe: %+v, %v; want no pull request yet", obs, err)
	}
	if _, err := connect().Create(context.Background(), mg); err == nil {
		t.Fatal("Create: the lost answer must be an error")
	}
	// The next reconcile, within the same poll interval.
	obs, err = connect().Observe(context.Background(), mg)
	if err != nil || !obs.ResourceExists {
		t.Errorf("Observe after the lost create: %+v, %v; want the pull request the forge opened (a second create would follow)", obs, err)
	}
	if diff := cmp.Diff(map[string]int{"ListOpen": 2, "Create": 1}, f.Calls()); diff != "" {
		t.Errorf("forge requests: -want, +got:\n%s", diff)
	}
}
