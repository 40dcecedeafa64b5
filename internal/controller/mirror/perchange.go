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

package mirror

import (
	"fmt"
	"strings"

	"github.com/crossplane-contrib/provider-git/apis/v1alpha1"
	"github.com/crossplane-contrib/provider-git/internal/git"
	"github.com/crossplane-contrib/provider-git/internal/mirror/plan"
	"github.com/crossplane-contrib/provider-git/internal/reconciler/message"
)

// Commit PerChange: Git as an audit trail. The Mirror's plan stays what it
// is, the whole folder against the snapshot, so everything it guarantees
// (ownership, adoption, mark-and-sweep, preconditions) holds unchanged; a
// PerChange Mirror only cuts the one change into parts, one per object
// whose file it writes or removes (git.Part, one per plan.Change), which
// the branch writer commits in order and pushes with the rest of the window.
//
// What a part records is an object's state when the plan was made, not
// each watch event: the snapshot keeps the latest state of each object, so
// an object changed several times before its commit is written (within the
// window, or while the push before was under way) is one commit of its
// latest state. Parts are in the order the changes were made
// (plan.Ordered). The marker, which lists what the Mirror owns, changes
// with the last part: a thousand new objects are a thousand commits, not a
// thousand copies of a growing marker, and every file a commit adds is one
// the marker lists by the end of the push.

// perChange reports whether mg commits each change on its own.
func perChange(mg *v1alpha1.Mirror) bool {
	return mg.Spec.ForProvider.Commit == v1alpha1.MirrorCommitPerChange
}

// partsOf cuts d into one part per object's change, in commit order (see
// plan.Ordered): each with its file, what that file was decided on, and a
// message naming the object. The marker's expectation rides with the first
// part (every part depends on what the marker says the Mirror owns), its
// rewrite with the last, and anything d writes that no object accounts for
// with the last too.
func partsOf(mg *v1alpha1.Mirror, d plan.Diff) ([]git.Part, error) {
	changes := plan.Ordered(d.Changes)
	parts := make([]git.Part, 0, len(changes))
	used := map[string]bool{}
	for _, c := range changes {
		msg, err := partMessage(mg, c)
		if err != nil {
			return nil, err
		}
		p := git.Part{Message: msg}
		if f, ok := d.Puts[c.File]; ok {
			p.Puts = map[string]git.File{c.File: f}
		} else {
			p.Deletes = []string{c.File}
		}
		if sha, ok := d.Expect[c.File]; ok {
			p.Expect = map[string]string{c.File: sha}
		}
		used[c.File] = true
		parts = append(parts, p)
	}
	if len(parts) == 0 {
		return nil, nil
	}
	first, last := &parts[0], &parts[len(parts)-1]
	for file, sha := range d.Expect {
		if !used[file] {
			if first.Expect == nil {
				first.Expect = map[string]string{}
			}
			first.Expect[file] = sha
		}
	}
	for file, f := range d.Puts {
		if !used[file] {
			if last.Puts == nil {
				last.Puts = map[string]git.File{}
			}
			last.Puts[file] = f
		}
	}
	for _, file := range d.Deletes {
		if !used[file] {
			last.Deletes = append(last.Deletes, file)
		}
	}
	return parts, nil
}

// partMessage renders the message of the commit that records c: the
// Mirror's template with the object's fields, or by default the verb, the
// kind and the object's name, with the file in the body.
func partMessage(mg *v1alpha1.Mirror, c plan.Change) (string, error) {
	p := mg.Spec.ForProvider
	name := c.Name
	if c.Namespace != "" {
		name = c.Namespace + "/" + c.Name
	}
	subject := strings.TrimSpace(c.Verb + " " + c.Kind + " " + name)
	def := fmt.Sprintf("%s\n\nMirror %s/%s: %s", subject, mg.GetNamespace(), mg.GetName(), c.File)
	return message.Render(p.CommitMessage, def, MessageData{
		Path: p.Path, Branch: p.Branch, Name: mg.GetName(), Namespace: mg.GetNamespace(), Changed: 1,
		Verb: c.Verb, Kind: c.Kind, ObjectNamespace: c.Namespace, ObjectName: c.Name, File: c.File,
	})
}
