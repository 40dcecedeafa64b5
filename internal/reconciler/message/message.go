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

// Package message renders the commitMessage templates of every kind that
// takes one, with the same guards: templates are user input that runs in
// the provider.
package message

import (
	"slices"
	"strings"
	"text/template"
	"text/template/parse"

	"github.com/crossplane/crossplane-runtime/v2/pkg/errors"

	"github.com/crossplane-contrib/provider-git/internal/reconciler/spec"
	"github.com/crossplane-contrib/provider-git/internal/validate"
)

// MaxBytes caps a rendered message: the same cap as a CommitRequest's
// message in the CRD. A template is at most 4 KiB, but printf widths can
// still inflate it; the cap keeps a hostile template from filling memory.
const MaxBytes = 16384

const (
	errParseTemplate = "cannot parse spec.forProvider.commitMessage"
	errExecTemplate  = "cannot render spec.forProvider.commitMessage"
	errMessageLong   = "rendered commit message is longer than 16384 bytes"
	errRange         = "spec.forProvider.commitMessage must not use range: nothing a template sees is a list, so a range could only spin"
)

// Render executes the commitMessage template tmpl on data, with the same
// guards for every kind that takes one: no range, output capped at
// MaxBytes, a missing key an error. Errors are Stalled InvalidSpec.
// An empty template, or one that renders only white space, gives def.
func Render(tmpl, def string, data any) (string, error) {
	return RenderLists(tmpl, def, data)
}

// RenderLists is Render for a template whose data holds bounded lists (a
// PullRequest's .Files): a range is allowed over exactly those top-level
// fields, named as .Field or $.Field, and over nothing else (an integer
// would spin).
func RenderLists(tmpl, def string, data any, lists ...string) (string, error) {
	if tmpl == "" {
		return def, nil
	}
	t, err := template.New("commitMessage").Option("missingkey=error").Parse(tmpl)
	if err != nil {
		return "", spec.Invalid(errors.Wrap(err, errParseTemplate))
	}
	for _, d := range t.Templates() {
		if d.Tree != nil && hasRange(d.Root, lists) {
			return "", spec.Invalid(errors.New(errRange))
		}
	}
	w := &cappedBuffer{max: MaxBytes}
	if err := t.Execute(w, data); err != nil {
		if errors.Is(err, errTooLong) {
			return "", spec.Invalid(errTooLong)
		}
		return "", spec.Invalid(errors.Wrap(err, errExecTemplate))
	}
	msg := strings.TrimSpace(w.String())
	if msg == "" {
		return def, nil
	}
	// A template can spell a control character ({{"\x00"}}) that its
	// own text, which the CRD checks, does not hold.
	if err := validate.MessageText(msg); err != nil {
		return "", spec.Invalid(err)
	}
	return msg, nil
}

// hasRange reports a range anywhere below n. The output cap stops a template
// that writes too much, but not {{range 2000000000}}{{end}}, which writes
// nothing and would hold a reconcile worker for minutes.
//
// A range over one of lists (a bounded list of the data) is allowed; its
// body is checked as any other.
func hasRange(n parse.Node, lists []string) bool {
	switch n := n.(type) {
	case *parse.RangeNode:
		if !overList(n.Pipe, lists) {
			return true
		}
		return hasRange(n.List, lists) || hasRange(n.ElseList, lists)
	case *parse.ListNode:
		if n == nil {
			return false
		}
		for _, c := range n.Nodes {
			if hasRange(c, lists) {
				return true
			}
		}
	case *parse.IfNode:
		return hasRange(n.List, lists) || hasRange(n.ElseList, lists)
	case *parse.WithNode:
		return hasRange(n.List, lists) || hasRange(n.ElseList, lists)
	}
	return false
}

// overList reports a range pipeline that is exactly .L or $.L for L in
// lists, optionally declaring its element variables.
func overList(p *parse.PipeNode, lists []string) bool {
	if p == nil || len(p.Cmds) != 1 || len(p.Cmds[0].Args) != 1 {
		return false
	}
	var ident []string
	switch a := p.Cmds[0].Args[0].(type) {
	case *parse.FieldNode:
		ident = a.Ident
	case *parse.VariableNode:
		if len(a.Ident) < 1 || a.Ident[0] != "$" {
			return false
		}
		ident = a.Ident[1:]
	default:
		return false
	}
	return len(ident) == 1 && slices.Contains(lists, ident[0])
}

var errTooLong = errors.New(errMessageLong)

// cappedBuffer fails writes past max bytes, which stops template execution.
type cappedBuffer struct {
	strings.Builder
	max int
}

func (b *cappedBuffer) Write(p []byte) (int, error) {
	if b.Len()+len(p) > b.max {
		return 0, errTooLong
	}
	return b.Builder.Write(p)
}
