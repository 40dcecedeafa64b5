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

package hostile_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"
	"github.com/google/go-cmp/cmp"
	kerrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/rest"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/crossplane-contrib/provider-git/apis/v1alpha1"
	"github.com/crossplane-contrib/provider-git/internal/reconciler/spec"
	"github.com/crossplane-contrib/provider-git/internal/testharness/e2e"
	"github.com/crossplane-contrib/provider-git/internal/testharness/testenv"
	"github.com/crossplane-contrib/provider-git/internal/validate"
)

// objectOf is an embedded object for a File.
func objectOf(t *testing.T, o map[string]any) *runtime.RawExtension {
	t.Helper()
	raw, err := json.Marshal(o)
	if err != nil {
		t.Fatal(err)
	}
	return &runtime.RawExtension{Raw: raw}
}

// nested is a map nested depth levels deep.
func nested(depth int) map[string]any {
	m := map[string]any{"leaf": "x"}
	for range depth {
		m = map[string]any{"a": m}
	}
	return m
}

// refusable is an object the provider can refuse: it has conditions.
type refusable interface {
	client.Object
	GetCondition(xpv2.ConditionType) xpv2.Condition
}

// TestHostileInput: input built to hurt is refused, by the API server at
// admission or by the provider on the object (Stalled, with a message that
// says what is wrong), and the repository is left as it was.
func TestHostileInput(t *testing.T) {
	p := e2e.StartProvider(t, "")
	f := e2e.NewFixture(t)
	ctx := context.Background()
	labels := map[string]any{}
	// About 730 KiB of YAML in 10,000 labels: over the content cap, well
	// under the API server's request limit.
	for i := range 10000 {
		labels[fmt.Sprintf("k%05d", i)] = strings.Repeat("v", 60)
	}
	type want struct {
		// admission: the API server refuses to store it.
		admission bool
		// reason and message: otherwise the object is Stalled with these.
		reason  xpv2.ConditionReason
		message string
	}
	cases := map[string]struct {
		reason string
		obj    func(name string) client.Object
		want   want
	}{
		"HugeLabelMap": {
			reason: "An object whose labels fit the API server's request limit but whose YAML is over the content cap is refused as content is.",
			obj: func(name string) client.Object {
				fl := e2e.NewFile(f, name, "hostile/"+name+".yaml", "")
				fl.Spec.ForProvider.Content = nil
				fl.Spec.ForProvider.Object = objectOf(t, map[string]any{
					"apiVersion": "v1", "kind": "ConfigMap",
					"metadata": map[string]any{"name": "huge", "labels": labels},
				})
				return fl
			},
			want: want{reason: spec.ReasonInvalidSpec, message: "content must be at most 512 KiB"},
		},
		"DeepNesting": {
			reason: "An object nested thousands of levels deep (the API server stores it) is refused before its YAML, quadratic in the depth, is built.",
			obj: func(name string) client.Object {
				fl := e2e.NewFile(f, name, "hostile/"+name+".yaml", "")
				fl.Spec.ForProvider.Content = nil
				fl.Spec.ForProvider.Object = objectOf(t, map[string]any{
					"apiVersion": "v1", "kind": "ConfigMap", "metadata": map[string]any{"name": "deep"},
					"data": nested(5000),
				})
				return fl
			},
			want: want{reason: spec.ReasonInvalidSpec, message: "nested more than 100 levels deep"},
		},
		"ContentFarBeyondTheCap": {
			reason: "10 MiB over the content cap never reaches the provider.",
			obj: func(name string) client.Object {
				return e2e.NewFile(f, name, "hostile/"+name, strings.Repeat("x", validate.MaxContentBytes+10<<20))
			},
			want: want{admission: true},
		},
		"ContentJustBeyondTheCap": {
			reason: "One byte over the cap is refused at admission, as the code would.",
			obj: func(name string) client.Object {
				return e2e.NewFile(f, name, "hostile/"+name, strings.Repeat("x", validate.MaxContentBytes+1))
			},
			want: want{admission: true},
		},
		"NULInFileCommitMessage": {
			reason: "A NUL in a File's commit message template is refused at admission.",
			obj: func(name string) client.Object {
				fl := e2e.NewFile(f, name, "hostile/"+name, "x\n")
				fl.Spec.ForProvider.CommitMessage = "Add\x00file"
				return fl
			},
			want: want{admission: true},
		},
		"NULRenderedByTemplate": {
			reason: "A template that spells a NUL passes admission (its text holds none) and is refused on the object.",
			obj: func(name string) client.Object {
				fl := e2e.NewFile(f, name, "hostile/"+name, "x\n")
				fl.Spec.ForProvider.CommitMessage = `Add{{"\x00"}}file`
				return fl
			},
			want: want{reason: spec.ReasonInvalidSpec, message: "control characters"},
		},
		"NULInCommitRequestMessage": {
			reason: "A NUL in a CommitRequest's message is refused at admission.",
			obj: func(name string) client.Object {
				return e2e.NewCommitRequest(f, name, "Release\x00", v1alpha1.CommitFile{Path: "hostile/" + name, Content: ptr.To("x\n")})
			},
			want: want{admission: true},
		},
	}
	head := f.Repo.Head(t, "main")
	// The cases run at once (each its own object on one repository, which
	// none may change); the group ends when every case has.
	t.Run("Refused", func(t *testing.T) {
		for name, tc := range cases {
			t.Run(name, func(t *testing.T) {
				t.Parallel()
				o := tc.obj(strings.ToLower(name))
				err := e2e.CP.Client.Create(ctx, o)
				if tc.want.admission {
					if err == nil {
						t.Fatalf("%s\nthe API server stored it", tc.reason)
					}
					if !kerrors.IsInvalid(err) && !kerrors.IsRequestEntityTooLargeError(err) && !kerrors.IsBadRequest(err) {
						t.Errorf("%s\nrefused, but not as invalid or too large: %v", tc.reason, err)
					}
					return
				}
				if err != nil {
					t.Fatalf("%s\nrefused at admission, want a refusal on the object: %v", tc.reason, err)
				}
				mg, _ := o.(refusable)
				refused := func(o refusable) func() error {
					return func() error {
						if err := e2e.StalledWith(t, o, tc.want.reason)(); err != nil {
							return err
						}
						if msg := o.GetCondition(xpv2.TypeReady).Message; !strings.Contains(msg, tc.want.message) {
							return fmt.Errorf("message %q does not say %q", msg, tc.want.message)
						}
						return nil
					}
				}
				// Polled in the provider's cache: each read of these objects
				// from the API server is up to a megabyte to decode, ten a
				// second. What the API server holds is checked once it is
				// there.
				cached, _ := mg.DeepCopyObject().(refusable)
				testenv.Eventually(t, 2*time.Minute, func() error {
					if err := p.Client.Get(ctx, client.ObjectKeyFromObject(mg), cached); err != nil {
						return err
					}
					return refused(cached)()
				})
				e2e.WaitFor(t, 30*time.Second, mg, refused(mg))
				f.Stays(t, o, true, "main", head, tc.reason+": the repository must be untouched")
			})
		}
	})
	if got := f.Repo.Head(t, "main"); got != head {
		t.Errorf("main moved from %s to %s: hostile input reached the repository", head, got)
	}

	t.Run("NonUTF8Content", func(t *testing.T) {
		// Go clients replace invalid UTF-8 before sending; a raw request
		// sends the bytes as they are.
		body := []byte(`{"apiVersion":"git.m.crossplane.io/v1alpha1","kind":"File","metadata":{"name":"binary","namespace":"` + f.Namespace +
			`"},"spec":{"providerConfigRef":{"kind":"ProviderConfig","name":"git"},"forProvider":{"branch":"main","path":"hostile/binary","content":"a` + "\xff\xfe" + `b"}}}`)
		hc, err := rest.HTTPClientFor(e2e.CP.Config)
		if err != nil {
			t.Fatal(err)
		}
		req, err := http.NewRequestWithContext(ctx, http.MethodPost,
			strings.TrimSuffix(e2e.CP.Config.Host, "/")+"/apis/git.m.crossplane.io/v1alpha1/namespaces/"+f.Namespace+"/files", bytes.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Content-Type", "application/json")
		resp, err := hc.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		if resp.StatusCode >= 300 {
			// Refused at admission: nothing to write.
			msg, _ := io.ReadAll(resp.Body)
			if resp.StatusCode != http.StatusUnprocessableEntity && resp.StatusCode != http.StatusBadRequest {
				t.Fatalf("POST %s: %d %s", req.URL, resp.StatusCode, msg)
			}
			t.Logf("refused at admission: %d %s", resp.StatusCode, msg)
			return
		}
		// Stored: the API server replaced each invalid byte with U+FFFD, so
		// the provider sees text, and Git gets exactly what is stored.
		fl := &v1alpha1.File{}
		if err := e2e.CP.Client.Get(ctx, client.ObjectKey{Namespace: f.Namespace, Name: "binary"}, fl); err != nil {
			t.Fatal(err)
		}
		stored := *fl.Spec.ForProvider.Content
		if !utf8.ValidString(stored) || strings.Contains(stored, "\xff") {
			t.Fatalf("the API server stored invalid UTF-8: %q", stored)
		}
		e2e.WaitFor(t, 30*time.Second, fl, e2e.ReadyAndCurrent(t, fl))
		if diff := cmp.Diff(stored, f.Files(t, "main")["hostile/binary"]); diff != "" {
			t.Errorf("Git must hold what the API server stored: -want, +got:\n%s", diff)
		}
	})
}
