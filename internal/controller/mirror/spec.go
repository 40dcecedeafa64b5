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

	"github.com/crossplane/crossplane-runtime/v2/pkg/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/crossplane-contrib/provider-git/apis/v1alpha1"
	"github.com/crossplane-contrib/provider-git/internal/mirror"
	"github.com/crossplane-contrib/provider-git/internal/mirror/plan"
	"github.com/crossplane-contrib/provider-git/internal/reconciler/message"
	"github.com/crossplane-contrib/provider-git/internal/reconciler/spec"
	"github.com/crossplane-contrib/provider-git/internal/validate"
)

// Limits, the same as the CRD's.
const (
	maxResources        = 32
	maxSourceNamespaces = 64
	maxMessageTemplate  = 4096
	maxIgnored          = 32
	maxFieldManager     = 128
	maxUser             = 256
)

const (
	errResourcesCount = "spec.forProvider.resources must list between 1 and 32 kinds"
	errResourceFmt    = "spec.forProvider.resources[%d]"
	errSourcesCount   = "spec.forProvider.sourceNamespaces must list at most 64 namespaces"
	errSourceFmt      = "spec.forProvider.sourceNamespaces[%d] %q"
	errSelector       = "spec.forProvider.labelSelector is invalid"
	errPrune          = "spec.forProvider.prune must be OnDelete or Never"
	errCommit         = "spec.forProvider.commit must be Batched or PerChange"
	errLayout         = "spec.forProvider.layout must be Folder or InPlace"
	errTemplateLong   = "spec.forProvider.commitMessage must be at most 4096 bytes"
	errManagersCount  = "spec.forProvider.ignore.fieldManagers must list at most 32 field managers"
	errManagerFmt     = "spec.forProvider.ignore.fieldManagers[%d] must be between 1 and 128 characters"
	errIgnoreUsers    = "spec.forProvider.ignore.users needs spec.forProvider.attribution Audit, Admission or Auto (who made a change is known only from audit events or admission): set it, or name the controller's field manager in ignore.fieldManagers"
	errUsersCount     = "spec.forProvider.ignore.users must list at most 32 users"
	errUserFmt        = "spec.forProvider.ignore.users[%d] must be between 1 and 256 characters"
	errAttribution    = "spec.forProvider.attribution must be None, Audit, Admission or Auto"
	errAuthorNeeds    = "spec.forProvider.author needs spec.forProvider.attribution Audit, Admission or Auto"
)

// Request is what mg asks the shared watches for. It checks the spec with
// the CRD's rules again (internal/validate), so a Mirror stored before a CRD
// change cannot reach Git with a folder that escapes the repository; a spec
// it refuses is Stalled InvalidSpec.
func Request(mg *v1alpha1.Mirror) (mirror.Request, error) {
	p := mg.Spec.ForProvider
	if err := validate.BranchName(p.Branch); err != nil {
		return mirror.Request{}, spec.Invalid(err)
	}
	if err := validate.Folder(p.Path); err != nil {
		return mirror.Request{}, spec.Invalid(err)
	}
	if len(p.Resources) == 0 || len(p.Resources) > maxResources {
		return mirror.Request{}, spec.Invalid(errors.New(errResourcesCount))
	}
	if len(p.SourceNamespaces) > maxSourceNamespaces {
		return mirror.Request{}, spec.Invalid(errors.New(errSourcesCount))
	}
	if err := validModes(p); err != nil {
		return mirror.Request{}, spec.Invalid(err)
	}
	if len(p.CommitMessage) > maxMessageTemplate {
		return mirror.Request{}, spec.Invalid(errors.New(errTemplateLong))
	}
	r := mirror.Request{
		Owner:          nameOf(mg),
		Namespaces:     []string{mg.GetNamespace()},
		ClusterScoped:  p.ClusterScoped,
		SkipControlled: ptr.Deref(p.SkipControlled, true),
		SkipGenerated:  ptr.Deref(p.SkipClusterGenerated, true),
	}
	if err := checkAttribution(p); err != nil {
		return mirror.Request{}, err
	}
	if ig := p.Ignore; ig != nil {
		if len(ig.FieldManagers) > maxIgnored {
			return mirror.Request{}, spec.Invalid(errors.New(errManagersCount))
		}
		for i, m := range ig.FieldManagers {
			if m == "" || len(m) > maxFieldManager {
				return mirror.Request{}, spec.Invalid(errors.Errorf(errManagerFmt, i))
			}
		}
		r.IgnoreManagers = ig.FieldManagers
	}
	for i, res := range p.Resources {
		if err := validate.MirrorResource(res.APIVersion, res.Kind, res.Group, res.Resource); err != nil {
			return mirror.Request{}, spec.Invalid(errors.Wrapf(err, errResourceFmt, i))
		}
		r.Kinds = append(r.Kinds, mirror.Kind{APIVersion: res.APIVersion, Kind: res.Kind, Group: ptr.Deref(res.Group, ""), Resource: res.Resource})
	}
	if len(p.SourceNamespaces) > 0 {
		r.Namespaces = nil
		for i, ns := range p.SourceNamespaces {
			if err := validate.Namespace(ns); err != nil {
				return mirror.Request{}, spec.Invalid(errors.Wrapf(err, errSourceFmt, i, ns))
			}
			r.Namespaces = append(r.Namespaces, ns)
		}
	}
	if p.LabelSelector != nil {
		sel, err := metav1.LabelSelectorAsSelector(p.LabelSelector)
		if err != nil {
			return mirror.Request{}, spec.Invalid(errors.Wrap(err, errSelector))
		}
		r.Selector = sel
	}
	return r, nil
}

// validModes checks the enums the CRD checks: prune, commit and layout (""
// is the default of a Mirror stored before the field existed).
func validModes(p v1alpha1.MirrorParameters) error {
	if p.Prune != "" && p.Prune != v1alpha1.MirrorPruneOnDelete && p.Prune != v1alpha1.MirrorPruneNever {
		return errors.New(errPrune)
	}
	if p.Commit != "" && p.Commit != v1alpha1.MirrorCommitBatched && p.Commit != v1alpha1.MirrorCommitPerChange {
		return errors.New(errCommit)
	}
	if p.Layout != "" && p.Layout != v1alpha1.MirrorLayoutFolder && p.Layout != v1alpha1.MirrorLayoutInPlace {
		return errors.New(errLayout)
	}
	return nil
}

// checkAttribution checks attribution, author and ignore.users with the
// CRD's rules.
func checkAttribution(p v1alpha1.MirrorParameters) error {
	switch p.Attribution {
	case "", v1alpha1.MirrorAttributionNone, v1alpha1.MirrorAttributionAudit, v1alpha1.MirrorAttributionAdmission, v1alpha1.MirrorAttributionAuto:
	default:
		return spec.Invalid(errors.New(errAttribution))
	}
	audit := attributed(p)
	if p.Author != nil && !audit {
		return spec.Invalid(errors.New(errAuthorNeeds))
	}
	if audit {
		if err := checkAuthor(p.Author); err != nil {
			return err
		}
	}
	ig := p.Ignore
	if ig == nil || len(ig.Users) == 0 {
		return nil
	}
	if !audit {
		// Refused rather than ignored: a Mirror that commits what it
		// was told to leave out would pretend to do what it cannot.
		return spec.Invalid(errors.New(errIgnoreUsers))
	}
	if len(ig.Users) > maxIgnored {
		return spec.Invalid(errors.New(errUsersCount))
	}
	for i, u := range ig.Users {
		if u == "" || len(u) > maxUser {
			return spec.Invalid(errors.Errorf(errUserFmt, i))
		}
	}
	return nil
}

// attributed reports whether p names who authors each change (attribution
// Audit, Admission or Auto).
func attributed(p v1alpha1.MirrorParameters) bool {
	switch p.Attribution {
	case v1alpha1.MirrorAttributionAudit, v1alpha1.MirrorAttributionAdmission, v1alpha1.MirrorAttributionAuto:
		return true
	}
	return false
}

// inPlace reports whether mg writes objects where their YAML lives.
func inPlace(mg *v1alpha1.Mirror) bool {
	return mg.Spec.ForProvider.Layout == v1alpha1.MirrorLayoutInPlace
}

// written reports whether the provider can have written p's folder: a
// branch or folder it refuses never reached Git.
func written(p v1alpha1.MirrorParameters) bool {
	return validate.BranchName(p.Branch) == nil && validate.Folder(p.Path) == nil
}

// MessageData is what a Mirror's commitMessage template sees.
type MessageData struct {
	// Path and Branch are the Mirror's folder and branch.
	Path   string
	Branch string
	// Name and Namespace are the Mirror resource's.
	Name      string
	Namespace string
	// Changed is how many files the commit adds, updates or removes.
	Changed int
	// Verb (Create, Update or Delete), Kind, ObjectNamespace (empty for a
	// cluster-scoped object), ObjectName and File name the object a
	// commit PerChange records; they are empty in a Batched commit.
	Verb            string
	Kind            string
	ObjectNamespace string
	ObjectName      string
	File            string
}

// Message renders mg's commit message for a change of n files, through the
// same guarded template execution as File's. The default names the Mirror
// and the folder; trailers name the Mirror for machines.
func Message(mg *v1alpha1.Mirror, n int) (string, error) {
	p := mg.Spec.ForProvider
	def := fmt.Sprintf("Mirror %s/%s: %d file(s) in %s", mg.GetNamespace(), mg.GetName(), n, p.Path)
	return message.Render(p.CommitMessage, def, MessageData{
		Path: p.Path, Branch: p.Branch, Name: mg.GetName(), Namespace: mg.GetNamespace(), Changed: n,
	})
}

// changeMessage renders the message of the commit that records c alone
// (commit PerChange): mg's template with the object's fields, or by default
// the verb, the kind and the object's name, with the file in the body.
func changeMessage(mg *v1alpha1.Mirror, c plan.Change) (string, error) {
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

// validMessage reports a template that cannot render now, while the
// folder is still up to date, not at its next change.
func validMessage(mg *v1alpha1.Mirror) error {
	_, err := Message(mg, 1)
	return err
}
