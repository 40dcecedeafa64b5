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
	"testing"
)

// FuzzRender feeds Render arbitrary bytes. It must never panic, and whatever
// it renders must render again to the same bytes: a File's blob SHA is the
// rendering's, so an unstable rendering would commit on every poll.
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
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
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
	})
}
