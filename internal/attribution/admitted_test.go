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
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	clocktesting "k8s.io/utils/clock/testing"

	"github.com/crossplane-contrib/provider-git/internal/admission"
	"github.com/crossplane-contrib/provider-git/internal/audit"
	"github.com/crossplane-contrib/provider-git/internal/git"
	"github.com/crossplane-contrib/provider-git/internal/mirror"
)

// auditFacts is an audit store of fixed facts.
type auditFacts map[audit.Key][]audit.Fact

func (auditFacts) Want(string, ...audit.GroupResource) {}
func (f auditFacts) Since(k audit.Key, t time.Time) []audit.Fact {
	var out []audit.Fact
	for _, x := range f[k] {
		if !x.Arrived.Before(t) {
			out = append(out, x)
		}
	}
	return out
}
func (auditFacts) Collection(audit.GroupResource, string, time.Time) []audit.Fact { return nil }

// admittedFacts is an admission store of fixed facts, fingerprinting
// content as itself.
type admittedFacts []admission.Fact

func (f admittedFacts) Of(uid string, after time.Time) []admission.Fact {
	var out []admission.Fact
	for _, x := range f {
		if x.UID == uid && x.Arrived.After(after) {
			out = append(out, x)
		}
	}
	return out
}
func (admittedFacts) Fingerprint(content []byte) string { return "fp:" + string(content) }

const rel = "ns/core/configmap/a.yaml"

// live is ConfigMap ns/a, UID u1, holding content, whose content was made
// against prev.
func live(content, prev string) mirror.Object {
	return mirror.Object{
		Path: rel, Content: []byte(content), Resource: "configmaps",
		Namespace: "ns", Name: "a", UID: "u1", Prev: prev,
	}
}

// wrote is an admission fact: user's op of u1, against a version, storing
// content, arrived at second at.
func wrote(user, op, against, content string, at int) admission.Fact {
	f := admission.Fact{Operation: op, User: audit.User{Username: user}, Namespace: "ns", Name: "a", UID: "u1", Against: against, Arrived: time.Unix(int64(100+at), 0)}
	if content != "" {
		f.Fingerprint = "fp:" + content
	}
	return f
}

func TestJoinAdmitted(t *testing.T) {
	type args struct {
		source   Source
		managers []string
		admitted admittedFacts
		audit    auditFacts
		// before is a snapshot joined first, with nothing changed (the
		// object as the Mirror last saw it); obj the live object now,
		// nil when deleted.
		before *mirror.Object
		obj    *mirror.Object
		// again joins the same snapshot again that many times, each
		// advance later, and wants what the last join decided.
		again   int
		advance time.Duration
	}
	type want struct {
		author string
		by     string
		kept   bool
		// deferred: held provisionally (kept, and waited for).
		deferred int
		state    AdmissionState
	}
	x, y := live("X", "5"), live("Y", "6")
	cases := map[string]struct {
		reason string
		args   args
		want   want
	}{
		"UpdateAgainstPrev": {
			reason: "An update made against the version before the live one, storing its content, authored it.",
			args:   args{admitted: admittedFacts{wrote("alice", admission.OpUpdate, "5", "X", 1)}, obj: &x},
			want:   want{author: "alice", by: ByAdmission, state: AdmissionReceived},
		},
		"AnotherObjectsName": {
			reason: "A fact carrying the object's UID but naming another object (forged) is none of its own: unresolved, not authored.",
			args: args{admitted: admittedFacts{func() admission.Fact {
				f := wrote("mallory", admission.OpUpdate, "5", "X", 1)
				f.Namespace, f.Name = "mallory", "b"
				return f
			}()}, obj: &x},
			want: want{author: UnresolvedName, by: ByUnresolved, state: AdmissionReceived},
		},
		"RefusedAfterAdmission": {
			reason: "Two writes against one version, one persisted and one refused with a conflict: only the persisted one authors, whichever came last.",
			args: args{admitted: admittedFacts{
				wrote("alice", admission.OpUpdate, "5", "X", 1),
				wrote("bob", admission.OpUpdate, "5", "Z", 2),
			}, obj: &x},
			want: want{author: "alice", by: ByAdmission, state: AdmissionReceived},
		},
		"TwoUsersInOneWait": {
			reason: "alice's write then bob's, made against alice's version, within one wait: bob's content is live, bob authors it, not the last to arrive (a refused carol).",
			args: args{admitted: admittedFacts{
				wrote("alice", admission.OpUpdate, "5", "X", 1),
				wrote("bob", admission.OpUpdate, "6", "Y", 2),
				wrote("carol", admission.OpUpdate, "6", "W", 3),
			}, obj: &y},
			want: want{author: "bob", by: ByAdmission, state: AdmissionReceived},
		},
		"OtherPredecessor": {
			reason: "A write storing the live content but made against another version did not make the live one: unresolved at once.",
			args:   args{admitted: admittedFacts{wrote("alice", admission.OpUpdate, "4", "X", 1)}, obj: &x},
			want:   want{author: UnresolvedName, by: ByUnresolved, state: AdmissionReceived},
		},
		"SameContentTwoUsers": {
			reason: "Two users stored the same content against the same version (one was refused): nothing tells which persisted, so neither authors.",
			args: args{admitted: admittedFacts{
				wrote("alice", admission.OpUpdate, "5", "X", 1),
				wrote("bob", admission.OpUpdate, "5", "X", 2),
			}, obj: &x},
			want: want{author: UnresolvedName, by: ByUnresolved, state: AdmissionReceived},
		},
		"Create": {
			reason: "A create authored the content the object was first delivered with, by UID and fingerprint.",
			args:   args{admitted: admittedFacts{wrote("alice", admission.OpCreate, "", "X", 1)}, obj: ptr(live("X", ""))},
			want:   want{author: "alice", by: ByAdmission, state: AdmissionReceived},
		},
		"CreateNotTheLastContent": {
			reason: "Content that came back to the created one by a write the webhook did not see is not the create's.",
			args:   args{admitted: admittedFacts{wrote("alice", admission.OpCreate, "", "X", 1)}, obj: &x},
			want:   want{author: UnresolvedName, by: ByUnresolved, state: AdmissionReceived},
		},
		"Delete": {
			reason: "A deletion is authored by the delete of the object's UID.",
			args: args{
				admitted: admittedFacts{wrote("alice", admission.OpUpdate, "5", "X", 1), wrote("bob", admission.OpDelete, "", "", 2)},
				before:   &x,
			},
			want: want{author: "bob", by: ByAdmission, state: AdmissionReceived},
		},
		"NothingAdmitted": {
			reason: "No fact of the object at all: the webhook did not see its write; unresolved at once, and said so.",
			args:   args{obj: &x},
			want:   want{author: UnresolvedName, by: ByUnresolved, state: AdmissionNotReceived},
		},
		"AutoFallsBackToAudit": {
			reason: "With Auto, a change the webhook did not see is joined to audit facts by time.",
			args: args{source: SourceAuto, obj: &x, audit: auditFacts{
				{GroupResource: audit.GroupResource{Resource: "configmaps"}, Namespace: "ns", Name: "a"}: {{User: audit.User{Username: "dave"}, Arrived: time.Unix(109, 0)}},
			}},
			want: want{author: "dave", by: ByAudit, state: AdmissionNotReceived},
		},
		"IgnoredManagerProvisional": {
			reason: "A write by an ignored field manager keeps the file as Git has it, provisionally for a wait after its content was first seen.",
			args: args{managers: []string{"kustomize-controller"}, obj: &x, admitted: admittedFacts{func() admission.Fact {
				f := wrote("system:serviceaccount:flux-system:kustomize-controller", admission.OpUpdate, "5", "X", 1)
				f.FieldManager = "kustomize-controller"
				return f
			}()}},
			want: want{kept: true, deferred: 1, state: AdmissionReceived},
		},
		"IgnoredManagerFinal": {
			reason: "A wait after its content was first seen, the ignored field manager's write is held for good, and nothing authors it.",
			args: args{managers: []string{"kustomize-controller"}, obj: &x, again: 1, advance: 3 * time.Second, admitted: admittedFacts{func() admission.Fact {
				f := wrote("system:serviceaccount:flux-system:kustomize-controller", admission.OpUpdate, "5", "X", 1)
				f.FieldManager = "kustomize-controller"
				return f
			}()}},
			want: want{kept: true, state: AdmissionReceived},
		},
		"IgnoredManagerHeld": {
			reason: "Once ruled ignored, the content stays held at every later plan while the object has it: no fact is left to join, and nothing is authored unresolved.",
			args: args{managers: []string{"kustomize-controller"}, obj: &x, again: 2, advance: 3 * time.Second, admitted: admittedFacts{func() admission.Fact {
				f := wrote("system:serviceaccount:flux-system:kustomize-controller", admission.OpUpdate, "5", "X", 1)
				f.FieldManager = "kustomize-controller"
				return f
			}()}},
			want: want{kept: true, state: AdmissionReceived},
		},
		"IgnoredManagerPersonAfter": {
			reason: "A person's write after the ignored manager's, against its version: the person authors the live content.",
			args: args{managers: []string{"kustomize-controller"}, obj: &y, admitted: admittedFacts{func() admission.Fact {
				f := wrote("system:serviceaccount:flux-system:kustomize-controller", admission.OpUpdate, "5", "X", 1)
				f.FieldManager = "kustomize-controller"
				return f
			}(), wrote("alice", admission.OpUpdate, "6", "Y", 2)}},
			want: want{author: "alice", by: ByAdmission, state: AdmissionReceived},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			clk := clocktesting.NewFakePassiveClock(time.Unix(110, 0))
			a := newAttributions(tc.args.audit, clk, 3*time.Second, nil)
			a.admitted = tc.args.admitted
			source := tc.args.source
			if source == SourceAudit {
				source = SourceAdmission
			}
			m := Mirror{Key: "m", Source: source, IgnoreManagers: tc.args.managers}
			if tc.args.before != nil {
				if _, err := a.Join(m, mirror.Snapshot{Objects: []mirror.Object{*tc.args.before}}, map[string]string{}); err != nil {
					t.Fatal(err)
				}
			}
			snap, changed := mirror.Snapshot{}, map[string]string{rel: ""}
			if o := tc.args.obj; o != nil {
				snap.Objects = []mirror.Object{*o}
				changed[rel] = git.BlobSHA(o.Content)
			}
			d, err := a.Join(m, snap, changed)
			if err != nil {
				t.Fatal(err)
			}
			for range tc.args.again {
				clk.SetTime(clk.Now().Add(tc.args.advance))
				if d, err = a.Join(m, snap, changed); err != nil {
					t.Fatal(err)
				}
			}
			v := d.byPath[rel]
			got := want{author: v.author.Name, by: v.by, kept: d.keep[rel], deferred: d.deferred}
			got.state, _ = d.Admission()
			if diff := cmp.Diff(tc.want, got, cmp.AllowUnexported(want{})); diff != "" {
				t.Errorf("%s\nJoin(): -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}

func ptr[T any](v T) *T { return &v }
