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
	"bytes"
	"errors"
	"fmt"
	"testing"

	"sigs.k8s.io/yaml"
)

// FuzzRender feeds Render arbitrary bytes. It must never panic, whatever it
// renders must render again to the same bytes (a File's blob SHA is the
// rendering's, so an unstable rendering would commit on every poll), and no
// rendering holds a Secret's values in plain text at any depth: neither
// Render's nor, below the top level, RenderForEncryption's.
func FuzzRender(f *testing.F) {
	for _, seed := range []string{
		`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"a","uid":"u","annotations":{"kubectl.kubernetes.io/last-applied-configuration":"{}"}},"data":{"k":"v"}}`,
		"apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: d\nspec:\n  replicas: 12345678901234567890\nstatus: {}\n",
		`{"apiVersion":"v1","kind":"Secret","data":{"p":"cw=="}}`,
		`{"apiVersion":"v1","kind":"ConfigMap","data":{"k":"\u0000\ud800"}}`,
		"apiVersion: v1\nkind: ConfigMap\nmetadata: {labels: {a: '1', b: \"2\"}}\ndata: {x: 1.0e+400}\n",
		"- a\n- b\n",
		"{",
		"apiVersion: v1\nkind: X\nanchors: &a {k: v}\nref: *a\n",
		`{"apiVersion":"v1","kind":"List","items":[{"apiVersion":"v1","kind":"Secret","data":{"p":"cw=="}}]}`,
		`{"apiVersion":"v1","kind":"List","items":[{"apiVersion":"v1","kind":"List","items":[{"apiVersion":"v1","kind":"Secret","stringData":{"p":"s"}}]}]}`,
		`{"apiVersion":"x/v1","kind":"Object","spec":{"forProvider":{"manifest":{"apiVersion":"v1","kind":"Secret","data":{"p":"cw=="}}}}}`,
		"apiVersion: v1\nkind: List\nitems:\n- &s {apiVersion: v1, kind: Secret, data: {p: cw==}}\n- {apiVersion: x/v1, kind: B, spec: {r: [*s]}}\n",
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		if out, err := RenderForEncryption(in); err == nil {
			if at, ok := plainSecret(t, out, false); ok {
				t.Fatalf("RenderForEncryption wrote a Secret's values inside another object, at %s:\n%s", at, out)
			}
		}
		out, err := Render(in)
		if err != nil {
			if out != nil {
				t.Fatalf("Render returned output with an error: %q", out)
			}
			return
		}
		again, err := Render(out)
		if err != nil {
			if errors.Is(err, ErrSecret) {
				t.Fatalf("a rendering became a Secret: %q", out)
			}
			t.Fatalf("Render(Render(x)) failed: %v\nfirst rendering:\n%s", err, out)
		}
		if !bytes.Equal(out, again) {
			t.Fatalf("rendering is not stable:\nfirst:\n%s\nsecond:\n%s", out, again)
		}
		if at, ok := plainSecret(t, out, true); ok {
			t.Fatalf("Render wrote a Secret's values in plain text, at %s:\n%s", at, out)
		}
	})
}

// plainSecret is the fuzz target's oracle, written apart from the renderer's
// own walk: it reports where a rendering holds a map that is a core v1
// Secret with data or stringData, looking at the top level too when top is
// set.
func plainSecret(t *testing.T, rendered []byte, top bool) (string, bool) {
	var doc any
	if err := yaml.Unmarshal(rendered, &doc); err != nil {
		t.Fatalf("a rendering does not parse: %v\n%s", err, rendered)
	}
	var walk func(v any, at string, check bool) (string, bool)
	walk = func(v any, at string, check bool) (string, bool) {
		switch v := v.(type) {
		case map[string]any:
			if check && v["apiVersion"] == "v1" && v["kind"] == "Secret" && (values(v["data"]) || values(v["stringData"])) {
				return at, true
			}
			for k, c := range v {
				if p, ok := walk(c, at+"."+k, true); ok {
					return p, true
				}
			}
		case []any:
			for i, c := range v {
				if p, ok := walk(c, fmt.Sprintf("%s[%d]", at, i), true); ok {
					return p, true
				}
			}
		}
		return "", false
	}
	return walk(doc, "", top)
}

// values reports whether v, a Secret's data or stringData, holds anything.
func values(v any) bool {
	m, isMap := v.(map[string]any)
	return v != nil && (!isMap || len(m) > 0)
}
