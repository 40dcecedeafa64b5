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

package file

import (
	"strings"
	"text/template"
	"text/template/parse"

	"github.com/crossplane/crossplane-runtime/v2/pkg/errors"

	"github.com/crossplane-contrib/provider-git/apis/v1alpha1"
	"github.com/crossplane-contrib/provider-git/internal/controller/spec"
	"github.com/crossplane-contrib/provider-git/internal/validate"
)

// Action is what a commit does to a File's path; templates see it as .Action.
type Action string

// Actions.
const (
	ActionCreate Action = "create"
	ActionUpdate Action = "update"
	ActionDelete Action = "delete"
)

// MaxMessageBytes caps a rendered message: the same cap as a CommitRequest's
// message in the CRD. A template is at most 4 KiB, but printf widths can
// still inflate it; the cap keeps a hostile template from filling memory.
const MaxMessageBytes = 16384

const (
	errParseTemplate = "cannot parse spec.forProvider.commitMessage"
	errExecTemplate  = "cannot render spec.forProvider.commitMessage"
	errMessageLong   = "rendered commit message is longer than 16384 bytes"
	errRange         = "spec.forProvider.commitMessage must not use range: nothing a template sees is a list, so a range could only spin"
)

// MessageData is what a commitMessage template sees.
type MessageData struct {
	// Action is create, update or delete.
	Action Action
	// Path and Branch are the File's.
	Path   string
	Branch string
	// Name and Namespace are the File resource's.
	Name      string
	Namespace string
}

// defaultMessages are used when a File has no template, or its template
// renders nothing for an action.
var defaultMessages = map[Action]string{
	ActionCreate: "Create ",
	ActionUpdate: "Update ",
	ActionDelete: "Delete ",
}

// Message renders f's commit message for action a. A template that does
// not parse or execute is Stalled InvalidSpec: only a spec change fixes it.
// A template that renders only white space for a gets the default message
// ("Create apps/x.yaml"), so a template may handle only the actions it
// cares about.
func Message(f *v1alpha1.File, a Action) (string, error) {
	p := f.Spec.ForProvider
	return Render(p.CommitMessage, defaultMessages[a]+p.Path,
		MessageData{Action: a, Path: p.Path, Branch: p.Branch, Name: f.GetName(), Namespace: f.GetNamespace()})
}

// Render executes the commitMessage template tmpl on data, with the same
// guards for every kind that takes one: no range, output capped at
// MaxMessageBytes, a missing key an error. Errors are Stalled InvalidSpec.
// An empty template, or one that renders only white space, gives def.
func Render(tmpl, def string, data any) (string, error) {
	if tmpl == "" {
		return def, nil
	}
	t, err := template.New("commitMessage").Option("missingkey=error").Parse(tmpl)
	if err != nil {
		return "", spec.Invalid(errors.Wrap(err, errParseTemplate))
	}
	for _, d := range t.Templates() {
		if d.Tree != nil && hasRange(d.Root) {
			return "", spec.Invalid(errors.New(errRange))
		}
	}
	w := &cappedBuffer{max: MaxMessageBytes}
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

// validMessage checks that f's template renders for every action, so a
// broken template is reported while the file is still up to date.
func validMessage(f *v1alpha1.File) error {
	for _, a := range []Action{ActionCreate, ActionUpdate, ActionDelete} {
		if _, err := Message(f, a); err != nil {
			return err
		}
	}
	return nil
}

// hasRange reports a range anywhere below n. The output cap stops a template
// that writes too much, but not {{range 2000000000}}{{end}}, which writes
// nothing and would hold a reconcile worker for minutes.
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
