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

package attribution

import (
	"strings"
	"text/template"
	"text/template/parse"

	"github.com/crossplane/crossplane-runtime/v2/pkg/errors"

	"github.com/crossplane-contrib/provider-git/internal/audit"
	"github.com/crossplane-contrib/provider-git/internal/git"
)

// The default author templates, and who a change no audit event names is
// authored by: a name that says what went wrong in git log, at an address
// in the reserved .invalid domain, never the committer.
const (
	DefaultAuthorName  = "{{ .Username }}"
	DefaultAuthorEmail = "{{ .Username }}@users.noreply.example.org"

	UnresolvedName  = "unknown (attribution unresolved)"
	UnresolvedEmail = "unknown@attribution.invalid"
)

// maxAuthorBytes caps a rendered author name or e-mail; maxAuthorTemplate
// a template, as the CRD does.
const (
	maxAuthorBytes    = 256
	maxAuthorTemplate = 512
)

const (
	errAuthorLongFmt  = "spec.forProvider.author.%s must be at most 512 bytes"
	errAuthorParseFmt = "cannot parse spec.forProvider.author.%s"
	errAuthorExecFmt  = "cannot render spec.forProvider.author.%s"
	errAuthorRangeFmt = "spec.forProvider.author.%s must not use range"
	errAuthorBadFmt   = "spec.forProvider.author.%s renders %q, which is empty, longer than 256 bytes, or holds '<', '>' or a control character"
)

// AuthorData is what a Mirror's author templates see: who made a change.
type AuthorData struct {
	// Username, UID and Groups are the user's, as the API server
	// authenticated them (the impersonated user's when impersonated).
	Username string
	UID      string
	Groups   []string
	// Impersonator is the authenticated user who impersonated Username;
	// empty when nobody did.
	Impersonator string
}

// sampleAuthor is what a template is checked with when the Mirror is read.
var sampleAuthor = AuthorData{Username: "system:serviceaccount:team-a:deployer", UID: "0d5c6d9e", Groups: []string{"system:serviceaccounts", "system:authenticated"}, Impersonator: "admin"}

// authors renders a Mirror's author templates.
type authors struct {
	name, email *template.Template
}

// CheckAuthor reports the error newAuthors would: whether the author
// templates name and email (the defaults where empty) render, so that one
// that cannot is refused when the Mirror is read, not at its next change.
// The controller reports it as InvalidSpec.
func CheckAuthor(name, email string) error {
	_, err := newAuthors(name, email)
	return err
}

// newAuthors parses the templates name and email (the defaults where
// empty) and renders them once with sample data, so a template that cannot
// render is refused when the Mirror is read (CheckAuthor), not at its next
// change.
func newAuthors(name, email string) (*authors, error) {
	if strings.TrimSpace(name) == "" {
		name = DefaultAuthorName
	}
	if strings.TrimSpace(email) == "" {
		email = DefaultAuthorEmail
	}
	var out authors
	var err error
	if out.name, err = parseAuthor("name", name); err != nil {
		return nil, err
	}
	if out.email, err = parseAuthor("email", email); err != nil {
		return nil, err
	}
	if _, err := render("name", out.name, sampleAuthor); err != nil {
		return nil, err
	}
	if _, err := render("email", out.email, sampleAuthor); err != nil {
		return nil, err
	}
	return &out, nil
}

// of is the author of a change fact records. A template that cannot
// render for this user (an index past their groups) gives the default's
// rendering rather than hold the change back.
func (a *authors) of(f audit.Fact) git.Signature {
	d := AuthorData{Username: f.User.Username, UID: f.User.UID, Groups: f.User.Groups, Impersonator: f.Impersonator}
	name, err := render("name", a.name, d)
	if err != nil {
		name = clean(d.Username)
	}
	email, err := render("email", a.email, d)
	if err != nil {
		email = clean(d.Username) + "@users.noreply.example.org"
	}
	return git.Signature{Name: name, Email: email}
}

// unresolved authors a change no audit event named.
func unresolved() git.Signature {
	return git.Signature{Name: UnresolvedName, Email: UnresolvedEmail}
}

func parseAuthor(field, text string) (*template.Template, error) {
	if len(text) > maxAuthorTemplate {
		return nil, errors.Errorf(errAuthorLongFmt, field)
	}
	t, err := template.New(field).Option("missingkey=error").Parse(text)
	if err != nil {
		return nil, errors.Wrapf(err, errAuthorParseFmt, field)
	}
	for _, d := range t.Templates() {
		if d.Tree != nil && hasRange(d.Root) {
			// Groups is bounded, but nothing in an author needs a loop.
			return nil, errors.Errorf(errAuthorRangeFmt, field)
		}
	}
	return t, nil
}

func render(field string, t *template.Template, d AuthorData) (string, error) {
	var b capped
	if err := t.Execute(&b, d); err != nil {
		return "", errors.Wrapf(err, errAuthorExecFmt, field)
	}
	s := strings.TrimSpace(b.String())
	if s == "" || b.over || strings.ContainsAny(s, "<>") || strings.ContainsFunc(s, func(r rune) bool { return r < 0x20 || r == 0x7f }) {
		return "", errors.Errorf(errAuthorBadFmt, field, truncate(s))
	}
	return s, nil
}

// clean makes s safe in a commit's author line.
func clean(s string) string {
	s = strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f || r == '<' || r == '>' {
			return -1
		}
		return r
	}, s)
	if len(s) > maxAuthorBytes {
		s = s[:maxAuthorBytes]
	}
	if s == "" {
		return "unknown"
	}
	return s
}

func truncate(s string) string {
	if len(s) > 64 {
		return s[:64] + "…"
	}
	return s
}

// capped keeps at most maxAuthorBytes and notes more.
type capped struct {
	strings.Builder
	over bool
}

func (c *capped) Write(p []byte) (int, error) {
	if c.Len()+len(p) > maxAuthorBytes {
		c.over = true
		return 0, errors.New("too long")
	}
	return c.Builder.Write(p)
}

// hasRange reports a range anywhere below n.
func hasRange(n parse.Node) bool {
	switch n := n.(type) {
	case *parse.RangeNode:
		return true
	case *parse.ListNode:
		if n == nil {
			return false
		}
		for _, c := range n.Nodes {
			if hasRange(c) {
				return true
			}
		}
	case *parse.IfNode:
		return hasRange(n.List) || hasRange(n.ElseList)
	case *parse.WithNode:
		return hasRange(n.List) || hasRange(n.ElseList)
	}
	return false
}
