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
	"bytes"
	"os"
	"reflect"
	"testing"

	"go.yaml.in/yaml/v3"
)

// FuzzRoundTrip feeds the index and the editor arbitrary YAML. Whatever
// parses must split into documents whose bytes join to the file again;
// editing any object document to what it already holds must change no
// byte; and editing it to another writer's rendering of its own value, or
// to that value with a label added, must give a file whose other
// documents keep their bytes and whose edited document decodes to the
// desired value (and, for the first, change nothing when Same says so).
func FuzzRoundTrip(f *testing.F) {
	seed, err := os.ReadFile("testdata/app.yaml")
	if err != nil {
		f.Fatal(err)
	}
	for _, s := range []string{
		string(seed),
		"apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\ndata: {k: v}\n",
		"---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n...\n---\n# only a comment\n",
		"apiVersion: v1\r\nkind: ConfigMap\r\nmetadata:\r\n  name: a\r\n  labels:\r\n    x: \"1\"\r\n",
		"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: é\n  labels:\n    ü: 'ö' # c\ndata:\n  k: |\n    line\n",
		"apiVersion: v1\nkind: X\nmetadata:\n  name: a\nspec: &a {k: v}\nother: *a\n",
		"apiVersion: v1\nkind: X\nmetadata:\n  name: a\nlist:\n- a\n- b: c\n  d: e\n",
		"apiVersion: v1\nkind: X\nmetadata:\n  name: a\n  name: b\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		file, err := Parse(in)
		if err != nil {
			return
		}
		var joined []byte
		for _, d := range file.Docs {
			joined = append(joined, in[d.Start:d.End]...)
		}
		if !bytes.Equal(joined, in) {
			t.Fatalf("documents do not join to the file:\n%q\n%q", in, joined)
		}
		for i, d := range file.Docs {
			if !d.Object || d.Err != nil {
				continue
			}
			out, changed, err := file.Edit(i, All{}, d.Root)
			if err != nil || changed || !bytes.Equal(out, in) {
				t.Fatalf("editing document %d to itself changed the file (err %v):\n%q\n%q", i, err, in, out)
			}
			var v any
			if d.Root.Decode(&v) != nil {
				continue
			}
			if again := reencode(v); again != nil {
				out := checkEdit(t, file, i, again)
				if Same(All{}, d.Root, again) && !bytes.Equal(out, in) {
					t.Fatalf("editing document %d to the same value, written by another writer, changed the file:\n%q\n%q", i, in, out)
				}
			}
			if m, ok := v.(map[string]any); ok {
				if md, ok := m["metadata"].(map[string]any); ok {
					ls, isMap := md["labels"].(map[string]any)
					if md["labels"] == nil || isMap {
						if ls == nil {
							ls = map[string]any{}
						}
						ls["fuzz.example.org/added"] = "yes"
						md["labels"] = ls
						if w := reencode(m); w != nil {
							checkEdit(t, file, i, w)
						}
					}
				}
			}
		}
	})
}

// reencode is v written and read back by the YAML library: another
// writer's bytes. nil when the library cannot write it back as it was.
func reencode(v any) *yaml.Node {
	b, err := yaml.Marshal(v)
	if err != nil {
		return nil
	}
	w, err := ParseValue(b)
	if err != nil {
		return nil
	}
	var back any
	if w.Decode(&back) != nil || !reflect.DeepEqual(v, back) {
		return nil
	}
	return w
}

// checkEdit edits document i of file to want and checks the result: the
// other documents keep their bytes, the edited one decodes to want.
func checkEdit(t *testing.T, file *File, i int, want *yaml.Node) []byte {
	t.Helper()
	out, _, err := file.Edit(i, All{}, want)
	if err != nil {
		t.Fatalf("editing document %d: %v\n%q", i, err, file.Content)
	}
	edited, err := Parse(out)
	if err != nil || len(edited.Docs) != len(file.Docs) {
		t.Fatalf("the edited file does not parse into %d documents (err %v):\n%q\n%q", len(file.Docs), err, file.Content, out)
	}
	for j, o := range file.Docs {
		if j != i && !bytes.Equal(file.Content[o.Start:o.End], out[edited.Docs[j].Start:edited.Docs[j].End]) {
			t.Fatalf("document %d moved when document %d was edited:\n%q\n%q", j, i, file.Content, out)
		}
	}
	var got, wantV any
	if edited.Docs[i].Root == nil || edited.Docs[i].Root.Decode(&got) != nil || want.Decode(&wantV) != nil {
		t.Fatalf("the edited document %d does not decode:\n%q\n%q", i, file.Content, out)
	}
	if !reflect.DeepEqual(got, wantV) {
		t.Fatalf("the edited document is not the desired value:\n%q\n%q\ngot  %#v\nwant %#v", file.Content, out, got, wantV)
	}
	return out
}
