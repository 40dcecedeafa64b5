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

package yamledit

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

const object = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n"

// nested is an object whose spec nests n flow sequences: its root mapping
// is level 1, so the document is n+1 levels deep.
func nested(n int) string {
	return object + "spec: " + strings.Repeat("[", n) + strings.Repeat("]", n) + "\n"
}

// aliasBomb is a document whose aliases expand to 10^levels scalars: what
// a decoder that inflates aliases (kyaml's DeAnchor, a Decode into any
// without a ratio check) spends exponential time and memory on.
func aliasBomb(levels int) string {
	var b strings.Builder
	b.WriteString(object + "data:\n  l0: &l0 [x, x, x, x, x, x, x, x, x, x]\n")
	for i := 1; i <= levels; i++ {
		fmt.Fprintf(&b, "  l%d: &l%d [", i, i)
		for j := 0; j < 10; j++ {
			if j > 0 {
				b.WriteString(", ")
			}
			fmt.Fprintf(&b, "*l%d", i-1)
		}
		b.WriteString("]\n")
	}
	return b.String()
}

func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// TestParseLimits: a file from a repository costs at most what the bounds
// allow; a file just within them parses as before.
func TestParseLimits(t *testing.T) {
	// A comment line of 64 bytes, repeated to a size.
	comments := func(size int) string {
		line := "#" + strings.Repeat("x", 62) + "\n"
		return strings.Repeat(line, size/len(line)) + strings.Repeat("#", size%len(line))
	}
	type want struct {
		err    string
		docs   int
		docErr string
	}
	cases := map[string]struct {
		reason string
		in     string
		want   want
	}{
		"AtMaxBytes": {
			reason: "A file of exactly MaxFileBytes is read.",
			in:     comments(MaxFileBytes),
			want:   want{docs: 1},
		},
		"PastMaxBytes": {
			reason: "A file one byte past MaxFileBytes is refused before it is parsed.",
			in:     comments(MaxFileBytes + 1),
			want:   want{err: fmt.Sprintf(errTooLargeFmt, MaxFileBytes+1, MaxFileBytes)},
		},
		"AtMaxDocuments": {
			reason: "A file of MaxDocuments documents is read.",
			in:     object + strings.Repeat("---\n"+object, MaxDocuments-1),
			want:   want{docs: MaxDocuments},
		},
		"PastMaxDocuments": {
			reason: "A file of one document more is refused before any is parsed.",
			in:     strings.Repeat("---\n", MaxDocuments+1),
			want:   want{err: fmt.Sprintf(errTooManyDocsFmt, MaxDocuments)},
		},
		"AtMaxDepth": {
			reason: "A document MaxDepth levels deep is editable.",
			in:     nested(MaxDepth - 1),
			want:   want{docs: 1},
		},
		"PastMaxDepth": {
			reason: "A document one level deeper is indexed but not edited.",
			in:     nested(MaxDepth),
			want:   want{docs: 1, docErr: fmt.Sprintf(errTooDeepFmt, 1, 1, MaxDepth)},
		},
		"BareCarriageReturn": {
			reason: "A carriage return alone breaks a line for the parser but not for the editor: such a document is indexed, not edited (fuzzing found an edit that lost the key after one).",
			in:     object + "a: 1\rb: 2\n",
			want:   want{docs: 1, docErr: fmt.Sprintf(errBareCRFmt, 1, 1)},
		},
		"CRLF": {
			reason: "Carriage return and line feed is a line break both agree on.",
			in:     strings.ReplaceAll(object, "\n", "\r\n"),
			want:   want{docs: 1},
		},
		"AliasBomb": {
			reason: "A document whose aliases would expand to 10^9 nodes parses without expanding them, and is refused for edits.",
			in:     aliasBomb(9),
			want:   want{docs: 1, docErr: fmt.Sprintf(errAliasFmt, 1, 1)},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			f, err := Parse([]byte(tc.in))
			got := want{err: errString(err)}
			if f != nil {
				got.docs = len(f.Docs)
				got.docErr = errString(f.Docs[len(f.Docs)-1].Err)
			}
			if diff := cmp.Diff(tc.want, got, cmp.AllowUnexported(want{})); diff != "" {
				t.Errorf("%s\nParse: -want +got:\n%s", tc.reason, diff)
			}
			if f == nil || f.Docs[0].Err == nil {
				return
			}
			if _, _, err := f.Edit(0, All{}, f.Docs[0].Root); errString(err) != tc.want.docErr {
				t.Errorf("%s\nEdit: error %v, want %q", tc.reason, err, tc.want.docErr)
			}
		})
	}
}

// TestParseLines: the line of every document of a long file, counted as
// the file runs rather than from its start for each.
func TestParseLines(t *testing.T) {
	in := object + strings.Repeat("---\n"+object, 99)
	f, err := Parse([]byte(in))
	if err != nil {
		t.Fatal(err)
	}
	// Each document after the first starts at its "---" line, after the
	// four lines of the one before.
	got, want := []int{}, []int{1}
	for i, d := range f.Docs {
		got = append(got, d.Line)
		if i > 0 {
			want = append(want, 5*i)
		}
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Parse: document lines -want +got:\n%s", diff)
	}
}
