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
	"github.com/crossplane-contrib/provider-git/apis/v1alpha1"
	"github.com/crossplane-contrib/provider-git/internal/reconciler/message"
)

// Action is what a commit does to a File's path; templates see it as .Action.
type Action string

// Actions.
const (
	ActionCreate Action = "create"
	ActionUpdate Action = "update"
	ActionDelete Action = "delete"
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
	return message.Render(p.CommitMessage, defaultMessages[a]+p.Path,
		MessageData{Action: a, Path: p.Path, Branch: p.Branch, Name: f.GetName(), Namespace: f.GetNamespace()})
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
