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

package audit

import (
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	clocktesting "k8s.io/utils/clock/testing"
)

// ev is an audit event as the API server posts it, at the Metadata level.
type ev struct {
	id, stage, verb, uri string
	user, impersonated   string
	groups               []string
	group, resource      string
	namespace, name      string
	subresource, rv      string
	code                 int
	stageTime            time.Time
	agent                string
}

// a successful update of ConfigMap default/x by alice, which tests change.
func update() ev {
	return ev{
		id: "a1", stage: "ResponseComplete", verb: "update", uri: "/api/v1/namespaces/default/configmaps/x",
		user: "alice", groups: []string{"dev", "system:authenticated"}, resource: "configmaps",
		namespace: "default", name: "x", rv: "41", code: 200, agent: "kubectl/v1.37.2",
		stageTime: time.Date(2026, 12, 1, 12, 0, 0, 123456000, time.UTC),
	}
}

func (e ev) json() map[string]any {
	m := map[string]any{
		"kind": "Event", "apiVersion": "audit.k8s.io/v1", "level": "Metadata",
		"auditID": e.id, "stage": e.stage, "requestURI": e.uri, "verb": e.verb,
		"user":                     map[string]any{"username": e.user, "uid": "uid-" + e.user, "groups": e.groups},
		"sourceIPs":                []string{"127.0.0.1"},
		"userAgent":                e.agent,
		"requestReceivedTimestamp": e.stageTime.Add(-time.Millisecond).Format(time.RFC3339Nano),
		"stageTimestamp":           e.stageTime.Format(time.RFC3339Nano),
		"annotations":              map[string]string{"authorization.k8s.io/decision": "allow"},
	}
	if e.impersonated != "" {
		m["impersonatedUser"] = map[string]any{"username": e.impersonated, "groups": []string{"system:authenticated"}}
	}
	if e.resource != "" {
		ref := map[string]any{"resource": e.resource, "namespace": e.namespace, "name": e.name, "apiVersion": "v1"}
		if e.group != "" {
			ref["apiGroup"] = e.group
		}
		if e.subresource != "" {
			ref["subresource"] = e.subresource
		}
		if e.rv != "" {
			ref["resourceVersion"] = e.rv
		}
		m["objectRef"] = ref
	}
	if e.code != 0 {
		m["responseStatus"] = map[string]any{"metadata": map[string]any{}, "code": e.code}
	}
	return m
}

// list is an EventList of es, as JSON.
func list(es ...ev) []byte {
	items := make([]any, len(es))
	for i, e := range es {
		items[i] = e.json()
	}
	b, err := json.Marshal(map[string]any{"kind": "EventList", "apiVersion": "audit.k8s.io/v1", "metadata": map[string]any{}, "items": items})
	if err != nil {
		panic(err)
	}
	return b
}

var configMaps = GroupResource{Resource: "configmaps"}

func keyX() Key {
	return Key{GroupResource: configMaps, Namespace: "default", Name: "x"}
}

// TestIngest: which events become facts, and what a fact says.
func TestIngest(t *testing.T) {
	arrived := time.Date(2026, 12, 1, 12, 0, 1, 0, time.UTC)
	alice := Fact{
		User:      User{Username: "alice", UID: "uid-alice", Groups: []string{"dev", "system:authenticated"}},
		UserAgent: "kubectl/v1.37.2", Verb: "update", AuditID: "a1", ResourceVersion: "41",
		Stage: update().stageTime, Arrived: arrived,
	}
	type args struct{ events []ev }
	type want struct{ facts []Fact }
	cases := map[string]struct {
		reason string
		args   args
		want   want
	}{
		"Update": {
			reason: "A successful update is a fact of its object, by its user.",
			args:   args{events: []ev{update()}},
			want:   want{facts: []Fact{alice}},
		},
		"Impersonated": {
			reason: "An impersonated write is the impersonated user's, and names who impersonated them.",
			args:   args{events: []ev{func() ev { e := update(); e.user, e.impersonated = "admin", "bob"; return e }()}},
			want: want{facts: []Fact{{
				User: User{Username: "bob", Groups: []string{"system:authenticated"}}, Impersonator: "admin",
				UserAgent: "kubectl/v1.37.2", Verb: "update", AuditID: "a1", ResourceVersion: "41", Stage: update().stageTime, Arrived: arrived,
			}}},
		},
		"FieldManager": {
			reason: "A patch that names its field manager in the URL (server-side apply, kubectl patch --field-manager) carries it, for ignore.fieldManagers.",
			args: args{events: []ev{func() ev {
				e := update()
				e.verb, e.uri = "patch", e.uri+"?fieldManager=kustomize-controller&force=true"
				return e
			}()}},
			want: want{facts: []Fact{func() Fact {
				f := alice
				f.Verb, f.FieldManager = "patch", "kustomize-controller"
				return f
			}()}},
		},
		"OtherStages": {
			reason: "Only ResponseComplete is a fact: the same request's RequestReceived is not another.",
			args:   args{events: []ev{func() ev { e := update(); e.stage, e.code = "RequestReceived", 0; return e }(), func() ev { e := update(); e.stage = "ResponseStarted"; return e }()}},
		},
		"Failed": {
			reason: "A write the API server refused (a conflict) changed nothing.",
			args:   args{events: []ev{func() ev { e := update(); e.code = 409; return e }()}},
		},
		"Reads": {
			reason: "A get, list or watch writes nothing.",
			args:   args{events: []ev{func() ev { e := update(); e.verb = "get"; return e }(), func() ev { e := update(); e.verb, e.name = "list", ""; return e }()}},
		},
		"Status": {
			reason: "A write of a subresource (status) changes nothing a Mirror renders.",
			args:   args{events: []ev{func() ev { e := update(); e.subresource = "status"; return e }()}},
		},
		"DryRun": {
			reason: "A dry run is audited but writes nothing.",
			args:   args{events: []ev{func() ev { e := update(); e.uri += "?dryRun=All"; return e }()}},
		},
		"Unwatched": {
			reason: "A write of a kind nobody watches is dropped.",
			args:   args{events: []ev{func() ev { e := update(); e.resource = "secrets"; return e }(), func() ev { e := update(); e.group = "apps"; return e }()}},
		},
		"NoObject": {
			reason: "A non-resource request (/healthz) has no objectRef.",
			args:   args{events: []ev{func() ev { e := update(); e.resource = ""; return e }()}},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			clk := clocktesting.NewFakePassiveClock(arrived)
			s := NewStore(WithClock(clk))
			s.Want("m", configMaps)
			srv := &Server{store: s}
			if err := srv.ingest(list(tc.args.events...)); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want.facts, s.Since(keyX(), time.Time{})); diff != "" {
				t.Errorf("%s\nSince(): -want, +got:\n%s", tc.reason, diff)
			}
			if got, want := s.Len(), len(tc.want.facts); got != want {
				t.Errorf("%s\nLen(): want %d facts, got %d", tc.reason, want, got)
			}
		})
	}
}

// ExampleStore shows the facts one object gathers.
func ExampleStore() {
	s := NewStore(WithClock(clocktesting.NewFakePassiveClock(time.Unix(0, 0))))
	s.Want("default/mirror", configMaps)
	s.Add(keyX(), Fact{User: User{Username: "alice"}, Verb: "update"})
	for _, f := range s.Since(keyX(), time.Time{}) {
		fmt.Println(f.User.Username, f.Verb)
	}
	// Output: alice update
}

// TestSplitItems: the items of an EventList, found without decoding,
// whatever their strings hold.
func TestSplitItems(t *testing.T) {
	type want struct {
		items []string
		ok    bool
	}
	cases := map[string]struct {
		reason string
		body   string
		want   want
	}{
		"Items": {
			reason: "Each object of the top-level items array is an item.",
			body:   `{"kind":"EventList","items":[{"a":1},{"b":{"c":[1,{"d":2}]}}],"metadata":{}}`,
			want:   want{items: []string{`{"a":1}`, `{"b":{"c":[1,{"d":2}]}}`}, ok: true},
		},
		"Strings": {
			reason: "Brackets and escaped quotes in strings are not structure.",
			body:   `{"items":[{"uri":"/x?a={\"}]","k":"\\"},{"e":2}]}`,
			want:   want{items: []string{`{"uri":"/x?a={\"}]","k":"\\"}`, `{"e":2}`}, ok: true},
		},
		"NestedItems": {
			reason: "An items key below the top level is not the list's.",
			body:   `{"metadata":{"items":[{"x":1}]},"items":[]}`,
			want:   want{ok: true},
		},
		"Truncated": {
			reason: "An unbalanced body is not a list.",
			body:   `{"items":[{"a":"1"`,
			want:   want{ok: false},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			items, ok := splitItems([]byte(tc.body))
			var got []string
			for _, it := range items {
				got = append(got, string(it))
			}
			if diff := cmp.Diff(tc.want, want{items: got, ok: ok}, cmp.AllowUnexported(want{})); diff != "" {
				t.Errorf("%s\nsplitItems(): -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}
