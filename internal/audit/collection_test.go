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
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	clocktesting "k8s.io/utils/clock/testing"
)

// deleteCollection is bob's successful deletecollection of the ConfigMaps
// of namespace ns ("" for all namespaces).
func deleteCollection(id, ns string) ev {
	e := update()
	e.id, e.verb, e.user, e.name, e.namespace, e.rv = id, "deletecollection", "bob", "", ns, ""
	e.uri = "/api/v1/namespaces/" + ns + "/configmaps?labelSelector=app%3Dweb"
	if ns == "" {
		e.uri = "/api/v1/configmaps"
	}
	return e
}

// TestCollection: a deletecollection is kept as a fact of its resource and
// namespace, with no object; Collection gives those of a namespace and of
// all namespaces, oldest first, and an object's own facts are unchanged.
func TestCollection(t *testing.T) {
	clk := clocktesting.NewFakePassiveClock(time.Date(2026, 12, 1, 12, 0, 1, 0, time.UTC))
	s := NewStore(WithClock(clk))
	s.Want("m", configMaps)
	srv := &Server{store: s}
	failed := deleteCollection("failed", "default")
	failed.code = 500
	dry := deleteCollection("dry", "default")
	dry.uri += "&dryRun=All"
	named := deleteCollection("named", "default")
	named.name = "x"
	// The cluster-wide one arrives first, the namespace's a second later.
	for _, batch := range [][]ev{{deleteCollection("all", ""), failed, dry, named}, {deleteCollection("default", "default"), deleteCollection("other", "other")}} {
		if err := srv.ingest(list(batch...)); err != nil {
			t.Fatal(err)
		}
		clk.SetTime(clk.Now().Add(time.Second))
	}
	ids := func(fs []Fact) []string {
		var out []string
		for _, f := range fs {
			out = append(out, f.AuditID+" "+f.Verb+" "+f.User.Username)
		}
		return out
	}
	start := time.Date(2026, 12, 1, 12, 0, 1, 0, time.UTC)
	got := map[string][]string{
		"default":              ids(s.Collection(configMaps, "default", start)),
		"other":                ids(s.Collection(configMaps, "other", start)),
		"default, a second on": ids(s.Collection(configMaps, "default", start.Add(time.Second))),
		"all namespaces":       ids(s.Collection(configMaps, "", start)),
		"object default/x":     ids(s.Since(keyX(), start)),
		"another resource":     ids(s.Collection(GroupResource{Resource: "secrets"}, "default", start)),
	}
	want := map[string][]string{
		"default":              {"all deletecollection bob", "default deletecollection bob"},
		"other":                {"all deletecollection bob", "other deletecollection bob"},
		"default, a second on": {"default deletecollection bob"},
		"all namespaces":       {"all deletecollection bob"},
	}
	for k, v := range got {
		if len(v) == 0 {
			delete(got, k)
		}
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("collection facts (a failed, a dry run and a named deletecollection are none; an object has none of its own): -want +got:\n%s", diff)
	}
}
