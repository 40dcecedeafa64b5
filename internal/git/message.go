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
	"strings"
)

// Trailer keys naming the resource behind a change. They let a restarted
// provider find a change it pushed but never recorded (FindCommitByUID).
const (
	TrailerResource = "Provider-Git-Resource"
	TrailerUID      = "Provider-Git-UID"
)

// Resource names the managed resource a change comes from.
type Resource struct {
	Kind      string
	Namespace string
	Name      string
	UID       string
}

// String is kind/namespace/name, the value of the Provider-Git-Resource trailer.
func (r Resource) String() string { return r.Kind + "/" + r.Namespace + "/" + r.Name }

func (r Resource) trailers() string {
	if r == (Resource{}) {
		return ""
	}
	// Newlines would forge trailers; resource names cannot hold them, but a
	// kind string is caller input.
	clean := strings.NewReplacer("\n", " ", "\r", " ")
	return fmt.Sprintf("%s: %s\n%s: %s\n", TrailerResource, clean.Replace(r.String()), TrailerUID, clean.Replace(r.UID))
}

func firstLine(s string) string {
	l, _, _ := strings.Cut(strings.TrimSpace(s), "\n")
	return l
}

// commitMessage renders the message of a commit carrying changes: a single
// change keeps its own message; several get a summary line, one bullet per
// change, and one trailer pair per resource.
func commitMessage(changes []*Part) string {
	var b strings.Builder
	if len(changes) == 1 {
		msg := strings.TrimSpace(changes[0].Message)
		if msg == "" {
			msg = "Update " + changes[0].Resource.String()
		}
		b.WriteString(msg)
	} else {
		fmt.Fprintf(&b, "Apply %d changes\n", len(changes))
		for _, c := range changes {
			line := firstLine(c.Message)
			if line == "" {
				line = "update"
			}
			fmt.Fprintf(&b, "\n- %s: %s", c.Resource.String(), line)
		}
	}
	var tr strings.Builder
	for _, c := range changes {
		tr.WriteString(c.Resource.trailers())
	}
	if tr.Len() == 0 {
		return b.String() + "\n"
	}
	if len(changes) == 1 && endsInTrailers(b.String()) {
		// One trailer block (Attributed-By, Co-authored-by and ours):
		// git interpret-trailers and forges read the last paragraph only.
		return b.String() + "\n" + tr.String()
	}
	return b.String() + "\n\n" + tr.String()
}

// endsInTrailers reports whether msg has more than one paragraph and its
// last is all "Key: value" lines, a key being letters, digits and '-', none
// of them ours: a message that writes our trailers itself keeps them in a
// paragraph of their own, which trailerValues never reads.
func endsInTrailers(msg string) bool {
	i := strings.LastIndex(msg, "\n\n")
	if i < 0 {
		return false
	}
	for _, l := range strings.Split(msg[i+2:], "\n") {
		k, _, ok := strings.Cut(l, ": ")
		if !ok || k == "" || strings.TrimLeft(k, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-") != "" ||
			strings.HasPrefix(strings.ToLower(k), "provider-git-") {
			return false
		}
	}
	return true
}

// trailerValues returns the values of key in the trailer block (the last
// paragraph) of a commit message.
func trailerValues(msg, key string) []string {
	msg = strings.TrimRight(msg, "\n")
	if i := strings.LastIndex(msg, "\n\n"); i >= 0 {
		msg = msg[i+2:]
	}
	var vs []string
	for _, l := range strings.Split(msg, "\n") {
		if k, v, ok := strings.Cut(l, ": "); ok && k == key {
			vs = append(vs, strings.TrimSpace(v))
		}
	}
	return vs
}
