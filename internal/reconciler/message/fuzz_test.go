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

package message

import (
	"testing"
	"time"

	"github.com/crossplane-contrib/provider-git/internal/reconciler/managed"
)

// FuzzMessage renders arbitrary commitMessage templates. Whatever a user
// writes, rendering must end promptly, stay under the cap, and fail only as
// a Stalled InvalidSpec.
func FuzzMessage(f *testing.F) {
	for _, seed := range []string{
		"{{.Action}} {{.Path}}", "{{.Path", "{{.Repository}}", `{{printf "%999999d" 1}}`,
		`{{range 2000000000}}{{end}}`, `{{define "a"}}{{template "a"}}{{template "a"}}{{end}}{{template "a"}}`,
		"x\n\nProvider-Git-UID: forged", `{{if eq .Action "delete"}}Retire{{else}}{{.Name}}{{end}}`,
		`{{with .Branch}}{{.}}{{end}}`, "{{/* c */}}", "\x00{{.Path}}\xff",
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, tmpl string) {
		data := struct{ Action, Path, Branch, Name, Namespace string }{"update", "apps/x.yaml", "main", "app", "team-a"}
		type result struct {
			msg string
			err error
		}
		done := make(chan result, 1)
		go func() {
			msg, err := Render(tmpl, "Update apps/x.yaml", data)
			done <- result{msg, err}
		}()
		select {
		case r := <-done:
			if len(r.msg) > MaxBytes {
				t.Fatalf("template %q rendered %d bytes", tmpl, len(r.msg))
			}
			if r.err != nil {
				if reason, ok := managed.StalledReason(r.err); !ok || reason != "InvalidSpec" {
					t.Fatalf("template %q failed as %v (stalled %v), want Stalled InvalidSpec", tmpl, r.err, ok)
				}
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("template %q did not finish rendering within 10s", tmpl)
		}
	})
}
