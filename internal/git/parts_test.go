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
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/crossplane-contrib/provider-git/internal/testharness/testenv"
)

var (
	alice      = Signature{Name: "Alice", Email: "alice@example.com"}
	bob        = Signature{Name: "Bob", Email: "bob@example.com"}
	liveMirror = Resource{Kind: "Mirror", Namespace: "ns", Name: "live", UID: "um"}
)

// logLine is one commit as a person reads it in git log.
type logLine struct {
	Subject   string
	Author    string
	Committer string
	// Resource is the value of the commit's Provider-Git-Resource trailers.
	Resource string
	// Changed are the paths the commit touches.
	Changed string
}

// commitsSince returns the commits on ref after before, oldest first.
func commitsSince(t *testing.T, s *server, before, ref string) []logLine {
	t.Helper()
	out, err := testenv.Git(s.repo.Dir, nil, "log", "--reverse", "--format=%H%x00%s%x00%an <%ae>%x00%cn <%ce>%x00%(trailers:key="+TrailerResource+",valueonly,separator=%x2C)", before+".."+ref)
	if err != nil {
		t.Fatal(err)
	}
	var lines []logLine
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		if l == "" {
			continue
		}
		f := strings.Split(l, "\x00")
		changed, err := testenv.Git(s.repo.Dir, nil, "diff-tree", "--no-commit-id", "--name-only", "-r", "--root", f[0])
		if err != nil {
			t.Fatal(err)
		}
		lines = append(lines, logLine{Subject: f[1], Author: f[2], Committer: f[3], Resource: strings.TrimSpace(f[4]),
			Changed: strings.Join(strings.Fields(changed), " ")})
	}
	return lines
}

// TestPartsAreCommitsOfTheirOwn: a change with parts becomes one commit per
// part that writes something, in order, with the part's message, author
// and resource, between the commits of the changes queued around it; the
// whole batch is still one push.
func TestPartsAreCommitsOfTheirOwn(t *testing.T) {
	t.Parallel()
	const provider = "provider-git <provider-git@crossplane.io>"
	plain := func(name, path string) Change {
		return Change{Puts: map[string]File{path: {Content: []byte(name + "\n")}}, Message: "put " + name,
			Resource: Resource{Kind: "File", Namespace: "ns", Name: name}}
	}
	type want struct {
		commits []logLine
		// results are each change's outcome: "commit" (landed in a
		// commit), "uptodate", or the error kind.
		results []string
		// reported are the subjects of the commits the results name ("" for
		// an error): a change with parts names the commit of its last part
		// that made one, or the head that satisfied it.
		reported []string
		pushes   int64
	}
	cases := map[string]struct {
		reason  string
		changes []Change
		want    want
	}{
		"InOrderWithOwnAuthors": {
			reason: "Each part is its own commit, in order, authored by its author and committed by the cache's committer; plain changes around it keep merging.",
			changes: []Change{
				plain("x", "x.txt"),
				{Resource: liveMirror, Parts: []Part{
					{Puts: map[string]File{"live/a.yaml": {Content: []byte("a\n")}}, Message: "Create ConfigMap ns/a", Author: alice},
					{Deletes: []string{"apps/b.yaml"}, Message: "Delete ConfigMap ns/b", Author: bob},
					{Puts: map[string]File{"live/c.yaml": {Content: []byte("c\n")}}, Message: "Update ConfigMap ns/c"},
				}},
				plain("y", "y.txt"),
				plain("z", "z.txt"),
			},
			want: want{
				commits: []logLine{
					{Subject: "put x", Author: provider, Committer: provider, Resource: "File/ns/x", Changed: "x.txt"},
					{Subject: "Create ConfigMap ns/a", Author: "Alice <alice@example.com>", Committer: provider, Resource: "Mirror/ns/live", Changed: "live/a.yaml"},
					{Subject: "Delete ConfigMap ns/b", Author: "Bob <bob@example.com>", Committer: provider, Resource: "Mirror/ns/live", Changed: "apps/b.yaml"},
					{Subject: "Update ConfigMap ns/c", Author: provider, Committer: provider, Resource: "Mirror/ns/live", Changed: "live/c.yaml"},
					{Subject: "Apply 2 changes", Author: provider, Committer: provider, Resource: "File/ns/y,File/ns/z", Changed: "y.txt z.txt"},
				},
				results:  []string{"commit", "commit", "commit", "commit"},
				reported: []string{"put x", "Update ConfigMap ns/c", "Apply 2 changes", "Apply 2 changes"},
				pushes:   1,
			},
		},
		"DefaultsFromTheChange": {
			reason: "A part without a message, author or resource takes the change's; a Committer commits for the author.",
			changes: []Change{{Resource: liveMirror, Message: "Mirror ns/live", Author: bob, Committer: alice, Parts: []Part{
				{Puts: map[string]File{"live/a.yaml": {Content: []byte("a\n")}}},
				{Puts: map[string]File{"live/b.yaml": {Content: []byte("b\n")}}, Message: "Create ConfigMap ns/b", Author: alice,
					Resource: Resource{Kind: "Mirror", Namespace: "ns", Name: "other"}},
			}}},
			want: want{
				commits: []logLine{
					{Subject: "Mirror ns/live", Author: "Bob <bob@example.com>", Committer: "Alice <alice@example.com>", Resource: "Mirror/ns/live", Changed: "live/a.yaml"},
					{Subject: "Create ConfigMap ns/b", Author: "Alice <alice@example.com>", Committer: "Alice <alice@example.com>", Resource: "Mirror/ns/other", Changed: "live/b.yaml"},
				},
				results:  []string{"commit"},
				reported: []string{"Create ConfigMap ns/b"},
				pushes:   1,
			},
		},
		"SatisfiedPartsMakeNoCommit": {
			reason: "A part the branch already satisfies makes no commit; the rest do, one undoing the part before included.",
			changes: []Change{{Resource: liveMirror, Parts: []Part{
				{Puts: map[string]File{"apps/a.yaml": {Content: []byte("a: 1\n")}}, Message: "already there"},
				{Puts: map[string]File{"live/a.yaml": {Content: []byte("a\n")}}, Message: "Create ConfigMap ns/a"},
				{Deletes: []string{"live/a.yaml"}, Message: "Delete ConfigMap ns/a"},
				{Puts: map[string]File{"live/b.yaml": {Content: []byte("b\n")}}, Message: "Create ConfigMap ns/b"},
			}}},
			want: want{
				commits: []logLine{
					{Subject: "Create ConfigMap ns/a", Author: provider, Committer: provider, Resource: "Mirror/ns/live", Changed: "live/a.yaml"},
					{Subject: "Delete ConfigMap ns/a", Author: provider, Committer: provider, Resource: "Mirror/ns/live", Changed: "live/a.yaml"},
					{Subject: "Create ConfigMap ns/b", Author: provider, Committer: provider, Resource: "Mirror/ns/live", Changed: "live/b.yaml"},
				},
				results:  []string{"commit"},
				reported: []string{"Create ConfigMap ns/b"},
				pushes:   1,
			},
		},
		"AllSatisfied": {
			reason: "A change whose parts are all satisfied is up to date and pushes nothing.",
			changes: []Change{{Resource: liveMirror, Parts: []Part{
				{Puts: map[string]File{"apps/a.yaml": {Content: []byte("a: 1\n")}}},
				{Deletes: []string{"gone.txt"}},
			}}},
			want: want{results: []string{"uptodate"}, reported: []string{"second"}},
		},
		"PartsAndFiles": {
			reason: "A change with parts and files of its own is invalid alone; the others land.",
			changes: []Change{
				{Resource: liveMirror, Puts: map[string]File{"live/x.yaml": {Content: []byte("x\n")}}, Parts: []Part{
					{Puts: map[string]File{"live/a.yaml": {Content: []byte("a\n")}}},
				}},
				plain("y", "y.txt"),
			},
			want: want{
				commits:  []logLine{{Subject: "put y", Author: provider, Committer: provider, Resource: "File/ns/y", Changed: "y.txt"}},
				results:  []string{KindInvalidChange.String(), "commit"},
				reported: []string{"", "put y"},
				pushes:   1,
			},
		},
		"InvalidPartFailsTheChange": {
			reason: "A part Git refuses fails its whole change, parts committed before it included; the others land.",
			changes: []Change{
				{Resource: liveMirror, Parts: []Part{
					{Puts: map[string]File{"live/a.yaml": {Content: []byte("a\n")}}},
					{Puts: map[string]File{"../escape": {Content: []byte("x\n")}}},
				}},
				plain("y", "y.txt"),
			},
			want: want{
				commits:  []logLine{{Subject: "put y", Author: provider, Committer: provider, Resource: "File/ns/y", Changed: "y.txt"}},
				results:  []string{KindInvalidChange.String(), "commit"},
				reported: []string{"", "put y"},
				pushes:   1,
			},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			s := httpServer(t)
			r := newWindowRepo(t, s.remote, 2*time.Second)
			before := s.repo.Head(t, "main")
			results := submitInOrder(t, r, "main", tc.changes)
			got := want{commits: commitsSince(t, s, before, "main"), pushes: s.http.Counts().ReceivePackPosts}
			for _, res := range results {
				subject := ""
				switch {
				case res.Err != nil:
					got.results = append(got.results, KindOf(res.Err).String())
				case res.UpToDate:
					got.results = append(got.results, "uptodate")
				default:
					got.results = append(got.results, "commit")
				}
				if res.Err == nil {
					out, err := testenv.Git(s.repo.Dir, nil, "log", "-1", "--format=%s", res.Commit)
					if err != nil {
						t.Fatal(err)
					}
					subject = strings.TrimSpace(out)
				}
				got.reported = append(got.reported, subject)
			}
			if diff := cmp.Diff(tc.want, got, cmp.AllowUnexported(want{})); diff != "" {
				t.Errorf("%s\n-want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}

// TestPartPreconditionFailsItsChange: each part's Expect is checked on the
// tree the parts before it left, on the head the batch is finally built
// on. A part whose expectation no longer holds after a rebase fails its
// whole change with its PreconditionError, nothing of that change lands,
// and the rest of the batch does.
func TestPartPreconditionFailsItsChange(t *testing.T) {
	t.Parallel()
	const hand = "written by a person\n"
	other := Change{Puts: map[string]File{"other/y.txt": {Content: []byte("y\n")}}, Message: "other", Resource: Resource{Kind: "File", Namespace: "ns", Name: "y"}}
	cases := map[string]struct {
		reason  string
		between map[string]string
		parts   []Part
		want    *PreconditionError
		// files the server must hold afterwards; "" where none.
		files map[string]string
	}{
		"LaterPartChangedAfterRead": {
			reason:  "The second part's file was pushed by a person after the read: the first part, though it still holds, does not land either.",
			between: map[string]string{"live/b.yaml": hand},
			parts: []Part{
				{Puts: map[string]File{"live/a.yaml": {Content: []byte("a\n")}}, Expect: map[string]string{"live/.mirror.yaml": ""}},
				{Puts: map[string]File{"live/b.yaml": {Content: []byte("b\n")}}, Expect: map[string]string{"live/b.yaml": ""}},
			},
			want:  &PreconditionError{Path: "live/b.yaml", Have: BlobSHA([]byte(hand))},
			files: map[string]string{"live/a.yaml": "", "live/b.yaml": hand, "other/y.txt": "y\n"},
		},
		"RecordChangedAfterRead": {
			reason:  "The first part's expectation on a record fails: no part lands.",
			between: map[string]string{"live/.mirror.yaml": hand},
			parts: []Part{
				{Puts: map[string]File{"live/a.yaml": {Content: []byte("a\n")}}, Expect: map[string]string{"live/.mirror.yaml": ""}},
				{Puts: map[string]File{"live/b.yaml": {Content: []byte("b\n")}}},
			},
			want:  &PreconditionError{Path: "live/.mirror.yaml", Have: BlobSHA([]byte(hand))},
			files: map[string]string{"live/a.yaml": "", "live/b.yaml": "", "other/y.txt": "y\n"},
		},
		"ExpectsWhatAnEarlierPartWrote": {
			reason:  "A part's expectation is checked after the parts before it: one expecting what the first wrote holds, after a rebase onto an unrelated commit.",
			between: map[string]string{"unrelated/z.txt": "z\n"},
			parts: []Part{
				{Puts: map[string]File{"live/a.yaml": {Content: []byte("a\n")}}, Expect: map[string]string{"live/a.yaml": ""}},
				{Puts: map[string]File{"live/a.yaml": {Content: []byte("a2\n")}}, Expect: map[string]string{"live/a.yaml": BlobSHA([]byte("a\n"))}},
			},
			files: map[string]string{"live/a.yaml": "a2\n", "unrelated/z.txt": "z\n", "other/y.txt": "y\n"},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			s := httpServer(t)
			m := NewMetrics()
			reg := prometheus.NewRegistry()
			if err := m.Register(reg); err != nil {
				t.Fatal(err)
			}
			r := newWindowRepo(t, s.remote, time.Second, WithMetrics(m), func(o *Options) {
				o.sleep = func(context.Context, time.Duration) error { return nil }
			})
			if err := r.Refresh(ctx(t), 0, "main"); err != nil {
				t.Fatal(err)
			}
			between, err := s.repo.Commit("main", testenv.CommitSpec{Message: "by hand", Files: tc.between})
			if err != nil {
				t.Fatal(err)
			}
			results := submitInOrder(t, r, "main", []Change{{Resource: liveMirror, Parts: tc.parts}, other})
			var got *PreconditionError
			if res := results[0]; res.Err != nil && (!errors.As(res.Err, &got) || KindOf(res.Err) != KindPathConflict) {
				t.Errorf("%s\nchange with parts: unexpected error %v", tc.reason, res.Err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("%s\nprecondition error: -want, +got:\n%s", tc.reason, diff)
			}
			if results[1].Err != nil {
				t.Errorf("%s\nthe other change: %v", tc.reason, results[1].Err)
			}
			files := s.repo.Files(t, "main")
			gotFiles := map[string]string{}
			for p := range tc.files {
				gotFiles[p] = files[p]
			}
			if diff := cmp.Diff(tc.files, gotFiles); diff != "" {
				t.Errorf("%s\nfiles on the server: -want, +got:\n%s", tc.reason, diff)
			}
			if retriesOf(t, reg) == 0 {
				t.Errorf("%s\nthe batch was not rebuilt on the newer head: the test did not test the rebase", tc.reason)
			}
			wantCommits := 1 + len(tc.parts)
			if tc.want != nil {
				wantCommits = 1
			}
			if got := commitsSince(t, s, between, "main"); len(got) != wantCommits {
				t.Errorf("%s\n%d commits after the person's, want %d: %+v", tc.reason, len(got), wantCommits, got)
			}
		})
	}
}

// TestSameContentWithParts: an enqueued change is dropped as a duplicate
// only when it would make the same commits: same files, part by part, by
// the same people.
func TestSameContentWithParts(t *testing.T) {
	t.Parallel()
	a := Part{Puts: map[string]File{"a": {Content: []byte("1")}}, Message: "Create a", Author: alice}
	b := Part{Deletes: []string{"b"}, Message: "Delete b", Author: bob}
	cases := map[string]struct {
		reason string
		x, y   Change
		want   bool
	}{
		"Same": {
			reason: "The same parts are the same change, whatever the messages say.",
			x:      Change{Parts: []Part{a, b}},
			y:      Change{Parts: []Part{func() Part { p := a; p.Message = "Update a"; return p }(), b}},
			want:   true,
		},
		"OtherOrder": {
			reason: "Parts in another order are other commits.",
			x:      Change{Parts: []Part{a, b}},
			y:      Change{Parts: []Part{b, a}},
		},
		"OtherAuthor": {
			reason: "The same files by someone else are another entry in the trail.",
			x:      Change{Parts: []Part{a}},
			y:      Change{Parts: []Part{func() Part { p := a; p.Author = bob; return p }()}},
		},
		"OtherContent": {
			reason: "Other content in one part is another change.",
			x:      Change{Parts: []Part{a}},
			y:      Change{Parts: []Part{func() Part { p := a; p.Puts = map[string]File{"a": {Content: []byte("2")}}; return p }()}},
		},
		"PartsOrFiles": {
			reason: "The same files as one part or as the change's own are other commits.",
			x:      Change{Parts: []Part{a}},
			y:      Change{Puts: a.Puts},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if got := sameContent(&tc.x, &tc.y); got != tc.want {
				t.Errorf("%s\nsameContent() = %v, want %v", tc.reason, got, tc.want)
			}
		})
	}
}

// TestSignedPartsKeepTheirCommitter: with signing on, each part's commit is
// signed by the provider's key, authored by the part's author (a person
// whose change a Mirror records) and committed by the change's Committer
// (the configuration's identity, which owns the key), so verify-commit
// passes on each and git log names the person.
func TestSignedPartsKeepTheirCommitter(t *testing.T) {
	t.Parallel()
	s := httpServer(t)
	signer := newSigner(t)
	remote := s.remote
	remote.Signer = signer
	r, _ := newRepo(t, remote)
	before := s.repo.Head(t, "main")
	identity := Signature{Name: "Platform Bot", Email: "bot@example.org"}
	res := r.Submit(ctx(t), "main", Change{Resource: liveMirror, Author: identity, Committer: identity, Parts: []Part{
		{Puts: map[string]File{"live/a.yaml": {Content: []byte("a\n")}}, Message: "Update ConfigMap ns/a", Author: alice},
		{Puts: map[string]File{"live/b.yaml": {Content: []byte("b\n")}}, Message: "Update ConfigMap ns/b"},
	}})
	if res.Err != nil {
		t.Fatal(res.Err)
	}
	want := []logLine{
		{Subject: "Update ConfigMap ns/a", Author: "Alice <alice@example.com>", Committer: "Platform Bot <bot@example.org>", Resource: "Mirror/ns/live", Changed: "live/a.yaml"},
		{Subject: "Update ConfigMap ns/b", Author: "Platform Bot <bot@example.org>", Committer: "Platform Bot <bot@example.org>", Resource: "Mirror/ns/live", Changed: "live/b.yaml"},
	}
	if diff := cmp.Diff(want, commitsSince(t, s, before, "main")); diff != "" {
		t.Errorf("commits: -want, +got:\n%s", diff)
	}
	for _, e := range s.repo.Log(t, "main")[:2] {
		if err := s.repo.VerifyCommit(t, e.SHA, signer.PublicKey()); err != nil {
			t.Errorf("commit %s (%q): verify-commit: %v", e.SHA[:7], e.Message, err)
		}
	}
}
