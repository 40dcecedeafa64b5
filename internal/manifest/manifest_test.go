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

package manifest

import (
	"strings"
	"testing"

	"github.com/crossplane/crossplane-runtime/v2/pkg/errors"
	"github.com/crossplane/crossplane-runtime/v2/pkg/test"
	"github.com/google/go-cmp/cmp"
)

func TestRender(t *testing.T) {
	type want struct {
		yaml string
		err  error
	}
	cases := map[string]struct {
		reason string
		obj    string
		want   want
	}{
		"LiveObject": {
			reason: "What the API server adds is removed, and keys come out sorted at every level.",
			obj: `{"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"demo","namespace":"apps","uid":"u","resourceVersion":"7",
				"generation":3,"creationTimestamp":"2026-01-01T00:00:00Z","managedFields":[{"manager":"kubectl"}],
				"labels":{"z":"1","a":"2"},"annotations":{"kubectl.kubernetes.io/last-applied-configuration":"{}"}},
				"data":{"b":"2","a":"1"},"status":{"x":1}}`,
			want: want{yaml: "apiVersion: v1\ndata:\n  a: \"1\"\n  b: \"2\"\nkind: ConfigMap\nmetadata:\n  labels:\n    a: \"2\"\n    z: \"1\"\n  name: demo\n  namespace: apps\n"},
		},
		"KeepsUserAnnotations": {
			reason: "Only kubectl's last-applied annotation is noise.",
			obj:    "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: d\n  annotations:\n    team: a\nspec:\n  replicas: 2\n",
			want:   want{yaml: "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  annotations:\n    team: a\n  name: d\nspec:\n  replicas: 2\n"},
		},
		"Numbers": {
			reason: "Integers stay integers; large ones are not mangled into floats.",
			obj:    `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"nums"},"x":{"big":9007199254740993,"f":1.5}}`,
			want:   want{yaml: "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: nums\nx:\n  big: 9007199254740993\n  f: 1.5\n"},
		},
		"Secret": {
			reason: "Secrets never go to Git in plain text.",
			obj:    `{"apiVersion":"v1","kind":"Secret","metadata":{"name":"s"},"data":{"p":"cGFzcw=="}}`,
			want:   want{err: ErrSecret},
		},
		"AsDeepAsAllowed": {
			reason: "An object nested MaxDepth levels deep renders.",
			obj:    `{"apiVersion":"v1","kind":"ConfigMap","x":` + strings.Repeat(`[`, MaxDepth) + strings.Repeat(`]`, MaxDepth) + `}`,
			want:   want{yaml: "apiVersion: v1\nkind: ConfigMap\nx:\n" + strings.Repeat("- ", MaxDepth-1) + "[]\n"},
		},
		"TooDeep": {
			reason: "An object nested deeper is refused before its YAML, which grows with the square of the depth, is built.",
			obj:    `{"apiVersion":"v1","kind":"ConfigMap","x":` + strings.Repeat(`{"a":`, MaxDepth) + `1` + strings.Repeat(`}`, MaxDepth) + `}`,
			want:   want{err: errors.Errorf(errFmtDeep, MaxDepth)},
		},
		"NotAnObject": {
			reason: "An object needs apiVersion and kind.",
			obj:    `{"metadata":{"name":"x"}}`,
			want:   want{err: errors.New(errNoKind)},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got, err := Render([]byte(tc.obj))
			if diff := cmp.Diff(tc.want.err, err, test.EquateErrors()); diff != "" {
				t.Errorf("%s\nRender(...): -want error, +got error:\n%s", tc.reason, diff)
			}
			if diff := cmp.Diff(tc.want.yaml, string(got)); diff != "" {
				t.Errorf("%s\nRender(...): -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}

// TestRenderIsStable renders the same object given in two key orders.
func TestRenderIsStable(t *testing.T) {
	a, errA := Render([]byte(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"x"},"data":{"a":"1","b":"2"}}`))
	b, errB := Render([]byte("data:\n  b: \"2\"\n  a: \"1\"\nmetadata:\n  name: x\nkind: ConfigMap\napiVersion: v1\n"))
	if errA != nil || errB != nil {
		t.Fatalf("Render: %v, %v", errA, errB)
	}
	if diff := cmp.Diff(string(a), string(b)); diff != "" {
		t.Errorf("Render of one object in two key orders differs: -a, +b:\n%s", diff)
	}
}
