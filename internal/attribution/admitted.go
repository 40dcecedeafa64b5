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
	"slices"
	"sort"
	"time"

	"github.com/crossplane-contrib/provider-git/internal/admission"
	"github.com/crossplane-contrib/provider-git/internal/audit"
	"github.com/crossplane-contrib/provider-git/internal/mirror"
)

// The exact join of admission facts (attribution Admission and Auto).
//
// What the Mirror's plan knows of an object is a snapshot: the version the
// watch delivered last. The watch delivers every version in order (its
// events come from the API server's watch cache), so each snapshot object
// carries, besides its UID and rendering, the version before the one that
// last changed its rendering (mirror.Object.Prev). An admission fact of an
// update says which version it was made against and fingerprints the
// object as it would be stored. So:
//
//   - an update made against r authored the live rendering when r is the
//     version before the one that made it and the fact's fingerprint is the
//     rendering's: a write refused after admission (a conflict on a stale
//     resourceVersion, another webhook's refusal) made no version, and
//     whatever version is live was made against something else or holds
//     something else;
//   - a create authored it when its fingerprint is the rendering's and the
//     rendering has not changed since the object was first delivered;
//   - a delete authored the object's deletion, by UID.
//
// Where the watch does not know the previous version (the object was
// listed into its rendering: written while the provider was down, or
// listed again after the watch expired, which may skip versions), an
// update is joined by UID and fingerprint alone. Facts naming two users
// that match equally (both wrote the same content against the same
// version, and one was refused) join nothing: the change falls back to
// audit (Auto) or is unresolved. Only facts that arrived after the
// Mirror's last landed commit of the object are joined.

// The values of a commit's Attributed-By trailer.
const (
	ByAdmission  = "admission"
	ByAudit      = "audit"
	ByUnresolved = "unresolved"
)

// TrailerAttributedBy says what named a commit's author.
const TrailerAttributedBy = "Attributed-By"

// AdmissionState is what the join last found of the admission webhook for
// a Mirror.
type AdmissionState int

// The admission states.
const (
	// AdmissionUnknown: no change joined yet.
	AdmissionUnknown AdmissionState = iota
	// AdmissionReceived: the last change joined had admission facts.
	AdmissionReceived
	// AdmissionNotReceived: the last change joined had none: the webhook
	// did not see its write.
	AdmissionNotReceived
	// AdmissionOff: the process serves no admission webhook.
	AdmissionOff
)

// admissionSeen is what the last change joined found.
type admissionSeen struct {
	state AdmissionState
	// object names the object of a change with no fact.
	object string
}

// admitted is what the join needs of the admission webhook's store.
type admitted interface {
	Of(uid string, after time.Time) []admission.Fact
	Fingerprint(content []byte) string
}

// SetAdmission joins the changes of Mirrors with attribution Admission or
// Auto to s's facts.
func (a *Attributions) SetAdmission(s *admission.Store) {
	if s != nil {
		a.admitted = s
	}
}

// objectAt is the object of snap at rel, or nil.
func objectAt(snap mirror.Snapshot, rel string) *mirror.Object {
	i := sort.Search(len(snap.Objects), func(i int) bool { return snap.Objects[i].Path >= rel })
	if i < len(snap.Objects) && snap.Objects[i].Path == rel {
		return &snap.Objects[i]
	}
	return nil
}

// decideAdmitted joins the change at rel (blob SHA sha, "" for a deletion;
// o the live object, nil for a deletion) to the admission facts of its
// object, into out, and reports whether it decided it. Call with mu held.
func (a *Attributions) decideAdmitted(out *attributed, l *ledger, m Mirror, rel, sha string, o *mirror.Object, now time.Time, who *authors) bool {
	uid, name := l.uids[rel], rel
	if o != nil {
		uid, name = o.UID, o.NamespacedName()
	}
	if uid == "" {
		return false
	}
	fs := a.admitted.Of(uid, l.after[rel])
	if len(fs) == 0 {
		l.admission = admissionSeen{state: AdmissionNotReceived, object: name}
		return false
	}
	l.admission = admissionSeen{state: AdmissionReceived}
	k := l.keys[rel]
	if o != nil {
		k.Namespace, k.Name = o.Namespace, o.Name
	}
	f, ok := a.exact(fs, sha, o, k)
	if !ok {
		return false
	}
	if sha != "" && ignores(m, f.User.Username, f.FieldManager) {
		// Provisional, as an audit verdict: until a wait after the
		// content was first seen as it is, a person's write may still
		// be joined (Auto: its audit fact).
		seen := l.seenSince(rel, sha, now)
		if until := seen.Add(a.wait); now.Before(until) {
			out.keep[rel] = true
			out.deferred++
			if w := until.Sub(now); out.wait == 0 || w < out.wait {
				out.wait = w
			}
			return true
		}
		l.ignored[rel] = sha
		l.after[rel] = f.Arrived
		l.noticeDone(rel)
		out.keep[rel] = true
		a.metrics.Attributed("ignored", 1)
		return true
	}
	out.byPath[rel] = attribution{
		verdict: resolved, author: who.of(audit.Fact{User: f.User}), when: f.Arrived, spent: f.Arrived, by: ByAdmission,
	}
	return true
}

// exact is the fact among fs that made the live object o (nil: its
// deletion, sha ""), named k, and whether exactly one user's facts did. A
// fact of another namespace or name is none of its own, whatever UID it
// carries.
func (a *Attributions) exact(fs []admission.Fact, sha string, o *mirror.Object, k audit.Key) (admission.Fact, bool) {
	var fp string
	if o != nil {
		fp = a.admitted.Fingerprint(o.Content)
	}
	var match []admission.Fact
	for _, f := range fs {
		if f.Namespace == k.Namespace && f.Name == k.Name && made(f, sha, o, fp) {
			match = append(match, f)
		}
	}
	if len(match) == 0 {
		return admission.Fact{}, false
	}
	last := match[len(match)-1]
	if slices.ContainsFunc(match, func(f admission.Fact) bool { return f.User.Username != last.User.Username }) {
		return admission.Fact{}, false
	}
	return last, true
}

// made reports whether the write f made the live object o with
// fingerprint fp (nil: deleted it).
func made(f admission.Fact, sha string, o *mirror.Object, fp string) bool {
	switch {
	case sha == "" || o == nil:
		return f.Operation == admission.OpDelete
	case f.Fingerprint != fp:
		return false
	case f.Operation == admission.OpCreate:
		return o.Prev == ""
	case f.Operation == admission.OpUpdate:
		return o.Prev == "" || f.Against == o.Prev
	}
	return false
}
