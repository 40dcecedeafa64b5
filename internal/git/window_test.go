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
	"fmt"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func windowed(name string, d *time.Duration) Change {
	return Change{Puts: map[string]File{"w/" + name: {Content: []byte(name)}}, Message: name, Window: d,
		Resource: Resource{Kind: "File", Namespace: "ns", Name: name}}
}

// TestChangeKeepsItsConfigurationsWindow: two configurations share a clone
// (same URL and credentials), each with its own window; neither's is lost.
func TestChangeKeepsItsConfigurationsWindow(t *testing.T) {
	s := httpServer(t)
	long, zero, second := time.Hour, time.Duration(0), time.Second

	t.Run("LongerThanTheClonesIsKept", func(t *testing.T) {
		r, _ := newRepo(t, s.remote) // cache default: testWindow (200ms)
		start := time.Now()
		res := r.Submit(ctx(t), "main", windowed("one-second", &second))
		if res.Err != nil {
			t.Fatal(res.Err)
		}
		if took := time.Since(start); took < second {
			t.Errorf("a change whose configuration's window is %s landed after %s: its window was not kept", second, took)
		}
	})

	t.Run("SmallestWindowClosesTheBatch", func(t *testing.T) {
		// One configuration waits an hour, the other not at all: the second
		// change closes the window for both, so neither waits beyond what
		// its configuration allows, and they share one commit.
		r, _ := newRepo(t, s.remote)
		before := len(s.repo.Log(t, "main"))
		results := make([]Result, 2)
		done := make(chan struct{})
		go func() { results[0] = r.Submit(ctx(t), "main", windowed("hour", &long)); close(done) }()
		waitQueued(t, r.writerFor("main"), 1)
		results[1] = r.Submit(ctx(t), "main", windowed("now", &zero))
		<-done
		for i, res := range results {
			if res.Err != nil {
				t.Fatalf("change %d: %v", i, res.Err)
			}
		}
		if diff := cmp.Diff(results[0].Commit, results[1].Commit); diff != "" {
			t.Errorf("both changes land in one commit: -first, +second:\n%s", diff)
		}
		if diff := cmp.Diff(before+1, len(s.repo.Log(t, "main"))); diff != "" {
			t.Errorf("commits added: -want, +got:\n%s", diff)
		}
	})

	t.Run("LastConfigurationDoesNotWin", func(t *testing.T) {
		// What used to happen: the configuration that connected last set
		// the clone's window for everyone. Each change now carries its own.
		r, _ := newRepo(t, s.remote)
		r.SetCommitWindow(long) // a clone default that must not apply
		for i, d := range []*time.Duration{&zero, &zero} {
			res := r.Submit(ctx(t), "main", windowed(fmt.Sprint("own-", i), d))
			if res.Err != nil {
				t.Fatalf("change %d: %v", i, res.Err)
			}
		}
	})
}
