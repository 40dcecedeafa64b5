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

package yamledit

import (
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// specRule is a Kubernetes-like rule: under spec only what the document
// sets is mirrored (the API server fills in defaults a person never wrote),
// labels and the other top-level fields in full, status never.
type specRule struct{}

func (specRule) Add(p []string) bool {
	switch p[0] {
	case "spec":
		return false
	case "metadata":
		return len(p) > 2 && (p[1] == "labels" || p[1] == "annotations")
	}
	return true
}

func (specRule) Ignore(p []string) bool { return p[0] == "status" }

func golden(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile("testdata/app.yaml")
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// doc is document i of the golden file, as the cluster would render it
// after edit: keys sorted, no comments, defaults filled in.
func liveDeployment(replicas, image string) string {
	return `apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  namespace: shop
spec:
  progressDeadlineSeconds: 600
  replicas: ` + replicas + `
  selector:
    matchLabels:
      app: web
  template:
    metadata:
      labels:
        app: web
    spec:
      containers:
      - image: ` + image + `
        imagePullPolicy: IfNotPresent
        name: web
        ports:
        - containerPort: 8080
          protocol: TCP
      dnsPolicy: ClusterFirst
`
}

const liveConfigMap = `apiVersion: v1
data:
  greeting: Hello, world
  mode: production
kind: ConfigMap
metadata:
  labels:
    app: web
  name: web-config
  namespace: shop
`

func TestEdit(t *testing.T) {
	orig := golden(t)
	type args struct {
		doc  int
		want string
	}
	type want struct {
		out     string
		changed bool
	}
	cases := map[string]struct {
		reason string
		args   args
		want   want
	}{
		"Unchanged": {
			reason: "A live object equal to its document under the rule (defaults aside) changes no byte.",
			args:   args{doc: 1, want: liveDeployment("2", "ghcr.io/example/web:1.4.0")},
			want:   want{out: orig},
		},
		"Replicas": {
			reason: "A scaled Deployment moves only its replicas value; the line comment stays.",
			args:   args{doc: 1, want: liveDeployment("3", "ghcr.io/example/web:1.4.0")},
			want:   want{out: strings.Replace(orig, "replicas: 2 #", "replicas: 3 #", 1), changed: true},
		},
		"Image": {
			reason: "A new image moves only the image inside the container list, its comment and alignment kept.",
			args:   args{doc: 1, want: liveDeployment("2", "ghcr.io/example/web:1.5.0")},
			want:   want{out: strings.Replace(orig, "web:1.4.0   #", "web:1.5.0   #", 1), changed: true},
		},
		"QuotingKept": {
			reason: "A changed string keeps the quotes the person chose.",
			args:   args{doc: 0, want: strings.Replace(liveConfigMap, "Hello, world", "Hi, world", 1)},
			want:   want{out: strings.Replace(orig, "'Hello, world'", "'Hi, world'", 1), changed: true},
		},
		"LabelAdded": {
			reason: "A label added in the cluster is one new line after the document's last label.",
			args:   args{doc: 0, want: strings.Replace(liveConfigMap, "    app: web\n", "    app: web\n    tier: front\n", 1)},
			want:   want{out: strings.Replace(orig, "label every object carries\n", "label every object carries\n    tier: front\n", 1), changed: true},
		},
		"KeyRemoved": {
			reason: "A data key gone from the cluster takes its line, and nothing else, with it.",
			args:   args{doc: 0, want: strings.Replace(liveConfigMap, "  mode: production\n", "", 1)},
			want:   want{out: strings.Replace(orig, "  mode: \"production\"\n", "", 1), changed: true},
		},
		"FlowRendered": {
			reason: "A flow mapping that changed is rendered again as its entry, still a flow mapping; the rest stays.",
			args:   args{doc: 1, want: strings.Replace(liveDeployment("2", "ghcr.io/example/web:1.4.0"), "    matchLabels:\n      app: web\n", "    matchLabels:\n      app: shop\n", 1)},
			want:   want{out: strings.Replace(orig, "    matchLabels: {app: web}\n", "    matchLabels: {app: shop}\n", 1), changed: true},
		},
		"ListGrown": {
			reason: "A list whose length changed is rendered again as its entry; the other entries stay.",
			args: args{doc: 2, want: `apiVersion: v1
kind: Service
metadata:
  name: web
  namespace: shop
spec:
  ports:
  - port: 80
    targetPort: 8080
  - port: 443
    targetPort: 8443
  selector:
    app: web
`},
			want: want{out: strings.Replace(orig, "      targetPort: 8080\n", "      targetPort: 8080\n    - port: 443\n      targetPort: 8443\n", 1), changed: true},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			f, err := Parse([]byte(orig))
			if err != nil {
				t.Fatal(err)
			}
			w, err := ParseValue([]byte(tc.args.want))
			if err != nil {
				t.Fatal(err)
			}
			out, changed, err := f.Edit(tc.args.doc, specRule{}, w)
			if err != nil {
				t.Fatalf("\n%s\nEdit(...): %v", tc.reason, err)
			}
			if diff := cmp.Diff(tc.want.out, string(out)); diff != "" {
				t.Errorf("\n%s\nEdit(...): -want, +got:\n%s", tc.reason, diff)
			}
			if changed != tc.want.changed {
				t.Errorf("\n%s\nEdit(...): changed %t, want %t", tc.reason, changed, tc.want.changed)
			}
		})
	}
}

func TestWithout(t *testing.T) {
	orig := golden(t)
	docs := strings.SplitAfter(orig, "---\n")
	cases := map[string]struct {
		reason    string
		doc       int
		want      string
		wantEmpty bool
	}{
		"First": {
			reason: "The first document goes with the marker that followed it.",
			doc:    0,
			want:   docs[1] + docs[2],
		},
		"Middle": {
			reason: "A middle document goes with its own marker; its neighbours keep every byte.",
			doc:    1,
			want:   docs[0] + docs[2],
		},
		"Last": {
			reason: "The last document goes with its marker and its head comment.",
			doc:    2,
			want:   docs[0] + strings.TrimSuffix(docs[1], "---\n"),
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			f, err := Parse([]byte(orig))
			if err != nil {
				t.Fatal(err)
			}
			out, empty := f.Without(tc.doc)
			if diff := cmp.Diff(tc.want, string(out)); diff != "" {
				t.Errorf("\n%s\nWithout(%d): -want, +got:\n%s", tc.reason, tc.doc, diff)
			}
			if empty != tc.wantEmpty {
				t.Errorf("\n%s\nWithout(%d): empty %t", tc.reason, tc.doc, empty)
			}
		})
	}
}

func TestParse(t *testing.T) {
	type want struct {
		ids   []ID
		lines []int
		noNS  []bool
	}
	cases := map[string]struct {
		reason string
		in     string
		want   want
	}{
		"Golden": {
			reason: "Three documents, each known by group, kind, namespace and name, at the line its bytes start.",
			in:     golden(t),
			want: want{
				ids:   []ID{{Kind: "ConfigMap", Namespace: "shop", Name: "web-config"}, {Group: "apps", Kind: "Deployment", Namespace: "shop", Name: "web"}, {Kind: "Service", Namespace: "shop", Name: "web"}},
				lines: []int{1, 14, 34},
				noNS:  []bool{false, false, false},
			},
		},
		"NoNamespaceAndEnd": {
			reason: "A document without a namespace says so; a document end marker ends it, and a comment-only tail is a document of no object.",
			in:     "---\napiVersion: v1\nkind: Namespace\nmetadata:\n  name: shop\n...\n# trailing\n",
			want: want{
				ids:   []ID{{Kind: "Namespace", Name: "shop"}, {}},
				lines: []int{1, 7},
				noNS:  []bool{true, false},
			},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			f, err := Parse([]byte(tc.in))
			if err != nil {
				t.Fatal(err)
			}
			var got want
			for _, d := range f.Docs {
				got.ids = append(got.ids, d.ID)
				got.lines = append(got.lines, d.Line)
				got.noNS = append(got.noNS, d.NoNamespace)
			}
			if diff := cmp.Diff(tc.want, got, cmp.AllowUnexported(want{})); diff != "" {
				t.Errorf("\n%s\nParse(...): -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}
