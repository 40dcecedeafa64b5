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
	"testing"

	"github.com/crossplane/crossplane-runtime/v2/pkg/errors"
	"github.com/crossplane/crossplane-runtime/v2/pkg/test"
	"github.com/google/go-cmp/cmp"
)

const (
	secretJSON      = `{"apiVersion":"v1","kind":"Secret","metadata":{"name":"s"},"data":{"p":"cGFzcw=="}}`
	emptySecretJSON = `{"apiVersion":"v1","kind":"Secret","metadata":{"name":"s"}}`
	configMapJSON   = `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c"},"data":{"k":"v"}}`
)

func nestedAt(at string) error { return errors.Wrapf(ErrNestedSecret, errFmtNestedAt, at) }

// TestRenderNestedSecrets walks the shapes in which an object can carry a
// Secret to Git. Each is refused by Render, as a bare Secret is, and also by
// RenderForEncryption, which admits a bare Secret only: a Secret inside
// another object cannot be encrypted so that what applies it decrypts it.
// References to Secrets and objects without one render.
func TestRenderNestedSecrets(t *testing.T) {
	type want struct {
		render, forEncryption error
	}
	cases := map[string]struct {
		reason string
		obj    string
		want   want
	}{
		"BareSecret": {
			reason: "A bare Secret is refused in plain text and admitted for encryption.",
			obj:    secretJSON,
			want:   want{render: ErrSecret},
		},
		"ListItem": {
			reason: "A v1 List's item is an object kubectl applies: a Secret among the items is refused, naming its index.",
			obj:    `{"apiVersion":"v1","kind":"List","items":[` + configMapJSON + `,` + secretJSON + `]}`,
			want:   want{render: nestedAt("items[1]"), forEncryption: nestedAt("items[1]")},
		},
		"ListItemYAML": {
			reason: "The same List written as YAML.",
			obj:    "apiVersion: v1\nkind: List\nitems:\n- apiVersion: v1\n  kind: Secret\n  metadata: {name: s}\n  stringData: {p: pass}\n",
			want:   want{render: nestedAt("items[0]"), forEncryption: nestedAt("items[0]")},
		},
		"ListItemWithoutData": {
			reason: "An item is a Secret by its kind alone, as a bare object is.",
			obj:    `{"apiVersion":"v1","kind":"List","items":[` + emptySecretJSON + `]}`,
			want:   want{render: nestedAt("items[0]"), forEncryption: nestedAt("items[0]")},
		},
		"SecretList": {
			reason: "A SecretList is a List whose items are Secrets.",
			obj:    `{"apiVersion":"v1","kind":"SecretList","metadata":{},"items":[` + secretJSON + `]}`,
			want:   want{render: nestedAt("items[0]"), forEncryption: nestedAt("items[0]")},
		},
		"ListOfAnotherGroup": {
			reason: "Any object with items is split into them by kubectl, whatever its apiVersion and kind.",
			obj:    `{"apiVersion":"example.org/v1","kind":"ThingList","items":[` + secretJSON + `]}`,
			want:   want{render: nestedAt("items[0]"), forEncryption: nestedAt("items[0]")},
		},
		"ListInList": {
			reason: "A List in a List is flattened too.",
			obj:    `{"apiVersion":"v1","kind":"List","items":[` + configMapJSON + `,{"apiVersion":"v1","kind":"List","items":[` + configMapJSON + `,` + secretJSON + `]}]}`,
			want:   want{render: nestedAt("items[1].items[1]"), forEncryption: nestedAt("items[1].items[1]")},
		},
		"EmbeddedManifest": {
			reason: "A manifest embedded in another object (a provider-kubernetes Object) carries the Secret's values just the same.",
			obj:    `{"apiVersion":"kubernetes.crossplane.io/v1alpha2","kind":"Object","metadata":{"name":"o"},"spec":{"forProvider":{"manifest":` + secretJSON + `}}}`,
			want:   want{render: nestedAt("spec.forProvider.manifest"), forEncryption: nestedAt("spec.forProvider.manifest")},
		},
		"EmbeddedInAList": {
			reason: "A manifest in a list field deep in an object, itself an item of a List.",
			obj:    `{"apiVersion":"v1","kind":"List","items":[{"apiVersion":"example.org/v1","kind":"Bundle","spec":{"resources":[` + configMapJSON + `,` + secretJSON + `]}}]}`,
			want:   want{render: nestedAt("items[0].spec.resources[1]"), forEncryption: nestedAt("items[0].spec.resources[1]")},
		},
		"EmbeddedStringData": {
			reason: "stringData is a Secret's values too.",
			obj:    `{"apiVersion":"example.org/v1","kind":"Template","spec":{"template":{"apiVersion":"v1","kind":"Secret","stringData":{"p":"pass"}}}}`,
			want:   want{render: nestedAt("spec.template"), forEncryption: nestedAt("spec.template")},
		},
		"EmbeddedEmptyTemplate": {
			reason: "An embedded Secret template without data or stringData holds no secret value.",
			obj:    `{"apiVersion":"example.org/v1","kind":"Template","spec":{"template":` + emptySecretJSON + `}}`,
		},
		"ReferencesToSecrets": {
			reason: "An ownerReference or a reference naming a Secret's kind is no Secret.",
			obj: `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c","ownerReferences":[{"apiVersion":"v1","kind":"Secret","name":"s","uid":"u"}]},` +
				`"spec":{"secretRef":{"apiVersion":"v1","kind":"Secret","name":"s"}}}`,
		},
		"ListWithoutSecrets": {
			reason: "A List of ConfigMaps renders.",
			obj:    `{"apiVersion":"v1","kind":"List","items":[` + configMapJSON + `]}`,
		},
		"SecretOfAnotherGroup": {
			reason: "Only the core v1 Secret is a Secret.",
			obj:    `{"apiVersion":"v1","kind":"List","items":[{"apiVersion":"example.org/v1","kind":"Secret","data":{"p":"x"}}]}`,
		},
		"SecretInStatus": {
			reason: "Status is not written to Git, so what it holds is not refused.",
			obj:    `{"apiVersion":"example.org/v1","kind":"Thing","status":{"last":` + secretJSON + `}}`,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			_, err := Render([]byte(tc.obj))
			if diff := cmp.Diff(tc.want.render, err, test.EquateErrors()); diff != "" {
				t.Errorf("%s\nRender(...): -want error, +got error:\n%s", tc.reason, diff)
			}
			_, err = RenderForEncryption([]byte(tc.obj))
			if diff := cmp.Diff(tc.want.forEncryption, err, test.EquateErrors()); diff != "" {
				t.Errorf("%s\nRenderForEncryption(...): -want error, +got error:\n%s", tc.reason, diff)
			}
		})
	}
}
