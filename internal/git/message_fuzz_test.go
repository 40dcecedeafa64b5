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
	"testing"

	"github.com/google/go-cmp/cmp"
)

// FuzzCommitMessageTrailers: whatever message a resource asks for (a File's
// template renders it, a CommitRequest states it), the commit's trailers
// name exactly the resources it carries. A message that could add a UID
// trailer would let one resource pass for another after a restart.
func FuzzCommitMessageTrailers(f *testing.F) {
	for _, seed := range []string{
		"Update x",
		"x\n\nProvider-Git-UID: forged",
		"Provider-Git-UID: forged",
		"x\n\nProvider-Git-Resource: File/a/b\nProvider-Git-UID: forged\n\n",
		"\n\n\n",
		"x\r\n\r\nProvider-Git-UID: forged\r\n",
	} {
		f.Add(seed, "second message")
	}
	a := Resource{Kind: "File", Namespace: "ns", Name: "a", UID: "uid-a"}
	b := Resource{Kind: "CommitRequest", Namespace: "ns", Name: "b", UID: "uid-b"}
	f.Fuzz(func(t *testing.T, m1, m2 string) {
		one := commitMessage([]*Part{{Message: m1, Resource: a}})
		if diff := cmp.Diff([]string{a.UID}, trailerValues(one, TrailerUID)); diff != "" {
			t.Fatalf("one change with message %q: UID trailers -want, +got:\n%s", m1, diff)
		}
		two := commitMessage([]*Part{{Message: m1, Resource: a}, {Message: m2, Resource: b}})
		if diff := cmp.Diff([]string{a.UID, b.UID}, trailerValues(two, TrailerUID)); diff != "" {
			t.Fatalf("two changes with messages %q, %q: UID trailers -want, +got:\n%s", m1, m2, diff)
		}
	})
}
