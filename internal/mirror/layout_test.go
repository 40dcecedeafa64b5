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
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/crossplane-contrib/provider-git/internal/validate"
)

func TestPath(t *testing.T) {
	type args struct {
		gvk             schema.GroupVersionKind
		namespace, name string
	}
	cases := map[string]struct {
		reason string
		args   args
		want   string
	}{
		"CoreNamespaced": {
			reason: "The core group is spelled core, the kind lower-cased, the namespace first.",
			args:   args{gvk: schema.GroupVersionKind{Version: "v1", Kind: "ConfigMap"}, namespace: "team-a", name: "settings"},
			want:   "team-a/core/configmap/settings.yaml",
		},
		"GroupNamespaced": {
			reason: "A named group appears as is; the version does not appear at all.",
			args:   args{gvk: schema.GroupVersionKind{Group: "apps", Version: "v1", Kind: "Deployment"}, namespace: "team-a", name: "web"},
			want:   "team-a/apps/deployment/web.yaml",
		},
		"VersionDoesNotMove": {
			reason: "Another served version of the same kind gives the same path.",
			args:   args{gvk: schema.GroupVersionKind{Group: "apps", Version: "v1beta2", Kind: "Deployment"}, namespace: "team-a", name: "web"},
			want:   "team-a/apps/deployment/web.yaml",
		},
		"ClusterScoped": {
			reason: "Cluster-scoped objects live under _cluster, which no namespace can be called.",
			args:   args{gvk: schema.GroupVersionKind{Group: "rbac.authorization.k8s.io", Version: "v1", Kind: "ClusterRole"}, name: "system:view"},
			want:   "_cluster/rbac.authorization.k8s.io/clusterrole/system:view.yaml",
		},
		"Secret": {
			reason: "A core Secret's file is a SOPS document, and its name says so.",
			args:   args{gvk: schema.GroupVersionKind{Version: "v1", Kind: "Secret"}, namespace: "team-a", name: "db"},
			want:   "team-a/core/secret/db.sops.yaml",
		},
		"SecretKindOfAnotherGroup": {
			reason: "Only the core group's Secret is encrypted; a Secret kind of another group is an ordinary object.",
			args:   args{gvk: schema.GroupVersionKind{Group: "example.test", Version: "v1", Kind: "Secret"}, namespace: "team-a", name: "db"},
			want:   "team-a/example.test/secret/db.yaml",
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got := Path(tc.args.gvk, tc.args.namespace, tc.args.name)
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("%s\nPath(...): -want, +got:\n%s", tc.reason, diff)
			}
			if err := validate.Path(got); err != nil {
				t.Errorf("%s\nvalidate.Path(%q): %v", tc.reason, got, err)
			}
		})
	}
}

func TestParse(t *testing.T) {
	type want struct {
		l  Location
		ok bool
	}
	cases := map[string]struct {
		reason string
		path   string
		want   want
	}{
		"Core": {
			reason: "core reads back as the empty group.",
			path:   "team-a/core/configmap/settings.yaml",
			want:   want{l: Location{Kind: "configmap", Namespace: "team-a", Name: "settings"}, ok: true},
		},
		"Cluster": {
			reason: "_cluster reads back as no namespace.",
			path:   "_cluster/rbac.authorization.k8s.io/clusterrole/system:view.yaml",
			want:   want{l: Location{Group: "rbac.authorization.k8s.io", Kind: "clusterrole", Name: "system:view"}, ok: true},
		},
		"DottedName": {
			reason: "A name may hold dots; only the last .yaml is the extension.",
			path:   "ns/apps/deployment/web.v2.yaml",
			want:   want{l: Location{Group: "apps", Kind: "deployment", Namespace: "ns", Name: "web.v2"}, ok: true},
		},
		"Secret": {
			reason: "A core Secret's .sops.yaml is the extension, not part of its name.",
			path:   "ns/core/secret/db.sops.yaml",
			want:   want{l: Location{Kind: "secret", Namespace: "ns", Name: "db"}, ok: true},
		},
		"SecretInPlainYAML": {
			reason: "Path never writes a core Secret to a plain .yaml file: such a file is someone else's.",
			path:   "ns/core/secret/db.yaml",
		},
		"SecretKindOfAnotherGroup": {
			reason: "Another group's Secret kind keeps the plain extension.",
			path:   "ns/example.test/secret/db.yaml",
			want:   want{l: Location{Group: "example.test", Kind: "secret", Namespace: "ns", Name: "db"}, ok: true},
		},
		"TooShallow": {
			reason: "A file beside the layout (a README) is not a mirrored object.",
			path:   "README.md",
		},
		"TooDeep": {
			reason: "Five components is not the layout.",
			path:   "ns/apps/v1/deployment/web.yaml",
		},
		"NotYAML": {
			reason: "Only .yaml files are mirrored objects.",
			path:   "ns/apps/deployment/web.yml",
		},
		"EmptyName": {
			reason: "A file called .yaml names no object.",
			path:   "ns/apps/deployment/.yaml",
		},
		"UpperKind": {
			reason: "Path lower-cases the kind, so an upper-case kind is someone else's file.",
			path:   "ns/apps/Deployment/web.yaml",
		},
		"BadNamespace": {
			reason: "A namespace is a DNS label.",
			path:   "Team_A/apps/deployment/web.yaml",
		},
		"BadGroup": {
			reason: "A group is a DNS subdomain.",
			path:   "ns/Apps!/deployment/web.yaml",
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			l, ok := Parse(tc.path)
			if diff := cmp.Diff(tc.want, want{l: l, ok: ok}, cmp.AllowUnexported(want{})); diff != "" {
				t.Errorf("%s\nParse(%q): -want, +got:\n%s", tc.reason, tc.path, diff)
			}
		})
	}
}

func TestParseReadsPath(t *testing.T) {
	gvks := []schema.GroupVersionKind{
		{Version: "v1", Kind: "ConfigMap"},
		{Group: "apps", Version: "v1", Kind: "Deployment"},
		{Group: "example.test", Version: "v1alpha1", Kind: "Widget"},
		{Version: "v1", Kind: "Secret"},
		{Group: "example.test", Version: "v1", Kind: "Secret"},
	}
	for _, gvk := range gvks {
		for _, ns := range []string{"", "a", "team-b"} {
			p := Path(gvk, ns, "obj.name")
			l, ok := Parse(p)
			want := Location{Group: gvk.Group, Kind: strings.ToLower(gvk.Kind), Namespace: ns, Name: "obj.name"}
			if diff := cmp.Diff(want, l); !ok || diff != "" {
				t.Errorf("Parse(Path(%v, %q, ...)) = %q: ok %t, -want, +got:\n%s", gvk, ns, p, ok, diff)
			}
		}
	}
}
