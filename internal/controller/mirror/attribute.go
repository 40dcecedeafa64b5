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
	"context"

	"fmt"

	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/crossplane-contrib/provider-git/apis/v1alpha1"
	"github.com/crossplane-contrib/provider-git/internal/attribution"
	"github.com/crossplane-contrib/provider-git/internal/git"
	"github.com/crossplane-contrib/provider-git/internal/mirror"
	"github.com/crossplane-contrib/provider-git/internal/mirror/plan"
	"github.com/crossplane-contrib/provider-git/internal/reconciler/spec"
)

// The Mirror's side of attribution Audit, Admission and Auto: the join
// itself, its ledger and its authors are internal/attribution's; this reads
// the spec for it, hands it each plan, and says in the Attribution
// condition whether the admission webhook sees the Mirror's changes.

// TypeAttribution is the condition that says, for a Mirror with
// attribution Admission or Auto, whether the admission webhook saw the
// write of the last change the Mirror joined. It is not part of Ready: a
// Mirror whose webhook is down goes on mirroring, authoring unresolved.
const TypeAttribution xpv2.ConditionType = "Attribution"

// Reasons of the Attribution condition.
const (
	// ReasonAdmissionReceived: the webhook saw the write of the last
	// change joined.
	ReasonAdmissionReceived xpv2.ConditionReason = "AdmissionReceived"
	// ReasonAdmissionNotReceived: it saw no write of the object of the
	// last change joined.
	ReasonAdmissionNotReceived xpv2.ConditionReason = "AdmissionNotReceived"
)

const (
	msgAdmissionReceived       = "The admission webhook saw the write of the last change committed"
	msgAdmissionNotReceivedFmt = "The admission webhook saw no write of %s, whose change the Mirror committed: %s. Check that the ValidatingWebhookConfiguration names this kind, version and namespace, and that the API server reaches the provider's --admission-webhook-bind-address"
	msgAdmissionOffFmt         = "The provider serves no admission webhook (its --admission-webhook-bind-address is empty): %s"
	msgUnresolvedAdmission     = "a change it does not see is authored \"" + attribution.UnresolvedName + "\""
	msgAuditFallback           = "a change it does not see is joined to audit events by object and time, or authored \"" + attribution.UnresolvedName + "\" when none comes"
)

// attribute joins d's changes (the first plan of pl) to audit or admission
// facts when the Mirror has attribution, and plans again without the
// changes that wait for their facts or that ignored users alone made. It
// returns the plan and what the join decided (nil without attribution).
func (e *external) attribute(ctx context.Context, pl *planning, d plan.Diff) (plan.Diff, *attribution.Decision, error) {
	mg := pl.mg
	if e.attr == nil {
		return d, nil, nil
	}
	if !attributed(mg.Spec.ForProvider) {
		e.attr.Forget(joinOf(mg))
		removeCondition(mg, TypeAttribution)
		return d, nil, nil
	}
	at, err := e.attr.Join(joinOf(mg), pl.snap, changedObjects(mg.Spec.ForProvider.Path, d))
	if err != nil {
		return plan.Diff{}, nil, spec.Invalid(err)
	}
	e.admissionCondition(mg, at)
	if len(at.Keep()) == 0 {
		return d, at, nil
	}
	d, err = e.plan(ctx, pl, at.Keep())
	return d, at, err
}

// joinOf is mg as the join reads it.
func joinOf(mg *v1alpha1.Mirror) attribution.Mirror {
	p := mg.Spec.ForProvider
	m := attribution.Mirror{Key: keyOf(mg), Name: nameOf(mg), Source: sourceOf(p.Attribution)}
	if p.Ignore != nil {
		m.Ignore, m.IgnoreManagers = p.Ignore.Users, p.Ignore.FieldManagers
	}
	if p.Author != nil {
		m.AuthorName, m.AuthorEmail = p.Author.Name, p.Author.Email
	}
	return m
}

// checkAuthor refuses author templates that cannot render: InvalidSpec
// when the Mirror is read, not at its next change.
func checkAuthor(a *v1alpha1.MirrorAuthor) error {
	var name, email string
	if a != nil {
		name, email = a.Name, a.Email
	}
	if err := attribution.CheckAuthor(name, email); err != nil {
		return spec.Invalid(err)
	}
	return nil
}

// changedObjects are the objects d changes, by layout path relative to
// folder: what the join knows them by. For layout Folder, the files d
// writes (their blob SHA) or deletes (""), the marker aside; for an
// InPlace plan, each change's object, the blob SHA of its rendering, or ""
// for its removal (a file edited in place may hold several objects).
func changedObjects(folder string, d plan.Diff) map[string]string {
	changed := map[string]string{}
	if d.InPlace {
		for _, c := range d.Changes {
			switch {
			case c.Path != "":
				changed[c.Path] = c.Blob
			case c.Verb == plan.VerbDelete:
				changed[c.Rel(folder)] = ""
			default:
				changed[c.Rel(folder)] = git.BlobSHA(d.Puts[c.File].Content)
			}
		}
		return changed
	}
	for full, f := range d.Puts {
		if rel, ok := mirror.Rel(folder, full); ok && rel != MarkerFile {
			changed[rel] = git.BlobSHA(f.Content)
		}
	}
	for _, full := range d.Deletes {
		if rel, ok := mirror.Rel(folder, full); ok {
			changed[rel] = ""
		}
	}
	return changed
}

// sourceOf is where the join of a Mirror with attribution a finds authors.
func sourceOf(a v1alpha1.MirrorAttribution) attribution.Source {
	switch a {
	case v1alpha1.MirrorAttributionAdmission:
		return attribution.SourceAdmission
	case v1alpha1.MirrorAttributionAuto:
		return attribution.SourceAuto
	}
	return attribution.SourceAudit
}

// admissionCondition sets the Attribution condition of mg from what the
// join at found of the admission webhook; a Mirror with attribution Audit
// has none, and one whose join found nothing yet keeps what it has.
func (e *external) admissionCondition(mg *v1alpha1.Mirror, at *attribution.Decision) {
	p := mg.Spec.ForProvider
	if p.Attribution == v1alpha1.MirrorAttributionAudit {
		removeCondition(mg, TypeAttribution)
		return
	}
	c := xpv2.Condition{Type: TypeAttribution, LastTransitionTime: metav1.NewTime(e.attr.Now()), ObservedGeneration: mg.GetGeneration()}
	state, object := at.Admission()
	then := msgUnresolvedAdmission
	if p.Attribution == v1alpha1.MirrorAttributionAuto {
		then = msgAuditFallback
	}
	switch state {
	case attribution.AdmissionReceived:
		c.Status, c.Reason, c.Message = corev1.ConditionTrue, ReasonAdmissionReceived, msgAdmissionReceived
	case attribution.AdmissionNotReceived:
		c.Status, c.Reason, c.Message = corev1.ConditionFalse, ReasonAdmissionNotReceived, fmt.Sprintf(msgAdmissionNotReceivedFmt, object, then)
	case attribution.AdmissionOff:
		c.Status, c.Reason, c.Message = corev1.ConditionFalse, ReasonAdmissionNotReceived, fmt.Sprintf(msgAdmissionOffFmt, then)
	default:
		return
	}
	mg.SetConditions(c)
}

// removeCondition drops the condition t of mg, if it has one.
func removeCondition(mg *v1alpha1.Mirror, t xpv2.ConditionType) {
	conds := mg.Status.Conditions[:0]
	for _, c := range mg.Status.Conditions {
		if c.Type != t {
			conds = append(conds, c)
		}
	}
	mg.Status.Conditions = conds
}
