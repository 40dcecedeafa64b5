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

package admission

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/json"
	"math/big"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	clocktesting "k8s.io/utils/clock/testing"

	"github.com/crossplane-contrib/provider-git/internal/audit"
	"github.com/crossplane-contrib/provider-git/internal/manifest"
)

// serving is a self-signed serving certificate: NewServer needs one.
func serving(t testing.TB) tls.Certificate {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "webhook"}, NotAfter: time.Now().Add(time.Hour)}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key}
}

const cm = `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"a","namespace":"ns","uid":"u1","resourceVersion":"%s"},"data":{"k":"%s"}}`

func obj(rv, v string) string { return sprintf(cm, rv, v) }

func sprintf(f string, a ...string) string {
	for _, s := range a {
		f = strings.Replace(f, "%s", s, 1)
	}
	return f
}

func reviewOf(op, object, old, opts, sub string, dry bool) string {
	m := map[string]any{
		"uid": "req-1", "operation": op, "subResource": sub, "dryRun": dry, "namespace": "ns", "name": "a",
		"kind":     map[string]string{"group": "", "version": "v1", "kind": "ConfigMap"},
		"resource": map[string]string{"group": "", "version": "v1", "resource": "configmaps"},
		"userInfo": map[string]any{"username": "alice", "uid": "ua", "groups": []string{"dev"}},
	}
	for k, v := range map[string]string{"object": object, "oldObject": old, "options": opts} {
		if v != "" {
			m[k] = json.RawMessage(v)
		}
	}
	b, _ := json.Marshal(map[string]any{"apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview", "request": m})
	return string(b)
}

func TestServer(t *testing.T) {
	fp := func(s *Store, o string) string {
		b, err := manifest.Render([]byte(o))
		if err != nil {
			t.Fatal(err)
		}
		return s.Fingerprint(b)
	}
	type want struct {
		facts []Fact
	}
	cases := map[string]struct {
		reason string
		body   string
		token  string
		auth   string
		// path is the one the Server reads at (WithPath), at where the
		// review is sent ("/admit" if empty); code the answer's status.
		path, at string
		busy     bool
		code     int
		want     func(s *Store) want
	}{
		"Update": {
			reason: "An update is kept with its user, field manager, UID, the version it was made against and the fingerprint of the object as stored.",
			body:   reviewOf(OpUpdate, obj("", "2"), obj("41", "1"), `{"kind":"UpdateOptions","fieldManager":"kubectl-edit"}`, "", false),
			want: func(s *Store) want {
				return want{facts: []Fact{{
					Operation: OpUpdate, User: audit.User{Username: "alice", UID: "ua", Groups: []string{"dev"}}, FieldManager: "kubectl-edit",
					Resource: audit.GroupResource{Resource: "configmaps"}, Version: "v1", Namespace: "ns", Name: "a", UID: "u1", Against: "41",
					Fingerprint: fp(s, obj("", "2")),
				}}}
			},
		},
		"CreateWithGenerateName": {
			reason: "A create is kept by the UID the object already has at validating admission.",
			body:   reviewOf(OpCreate, obj("", "1"), "", `{"kind":"CreateOptions"}`, "", false),
			want: func(s *Store) want {
				return want{facts: []Fact{{
					Operation: OpCreate, User: audit.User{Username: "alice", UID: "ua", Groups: []string{"dev"}},
					Resource: audit.GroupResource{Resource: "configmaps"}, Version: "v1", Namespace: "ns", Name: "a", UID: "u1", Fingerprint: fp(s, obj("", "1")),
				}}}
			},
		},
		"Delete": {
			reason: "A delete is kept by the UID of the object as it was, with no fingerprint.",
			body:   reviewOf(OpDelete, "", obj("41", "1"), "", "", false),
			want: func(*Store) want {
				return want{facts: []Fact{{
					Operation: OpDelete, User: audit.User{Username: "alice", UID: "ua", Groups: []string{"dev"}},
					Resource: audit.GroupResource{Resource: "configmaps"}, Version: "v1", Namespace: "ns", Name: "a", UID: "u1",
				}}}
			},
		},
		"DryRun": {
			reason: "A dry run writes nothing: not a fact.",
			body:   reviewOf(OpUpdate, obj("", "2"), obj("41", "1"), "", "", true),
			want:   func(*Store) want { return want{} },
		},
		"Subresource": {
			reason: "A status write changes nothing a Mirror renders: not a fact.",
			body:   reviewOf(OpUpdate, obj("", "2"), obj("41", "1"), "", "status", false),
			want:   func(*Store) want { return want{} },
		},
		"NotJSON": {
			reason: "A body that is not a review is still answered allowed, and keeps nothing.",
			body:   "{",
			want:   func(*Store) want { return want{} },
		},
		"Unauthenticated": {
			reason: "With a token configured, a review without it is allowed and keeps nothing: nobody forges a fact.",
			body:   reviewOf(OpUpdate, obj("", "2"), obj("41", "1"), "", "", false),
			token:  "secret",
			want:   func(*Store) want { return want{} },
		},
		"WrongToken": {
			reason: "A wrong token is no token.",
			body:   reviewOf(OpUpdate, obj("", "2"), obj("41", "1"), "", "", false),
			token:  "secret", auth: "Bearer guess",
			want: func(*Store) want { return want{} },
		},
		"SecretPath": {
			reason: "At the configured path, a review is a fact.",
			body:   reviewOf(OpDelete, "", obj("41", "1"), "", "", false),
			path:   "/attribution/0f3c", at: "/attribution/0f3c",
			want: func(*Store) want {
				return want{facts: []Fact{{
					Operation: OpDelete, User: audit.User{Username: "alice", UID: "ua", Groups: []string{"dev"}},
					Resource: audit.GroupResource{Resource: "configmaps"}, Version: "v1", Namespace: "ns", Name: "a", UID: "u1",
				}}}
			},
		},
		"GuessedPath": {
			reason: "Anywhere else, a review is refused unread: whoever cannot read the webhook configuration cannot forge a fact.",
			body:   reviewOf(OpDelete, "", obj("41", "1"), "", "", false),
			path:   "/attribution/0f3c", at: "/attribution",
			code: http.StatusNotFound,
			want: func(*Store) want { return want{} },
		},
		"Busy": {
			reason: "Past the reviews read at once, one is answered at once, unread: a flood costs bounded memory.",
			body:   reviewOf(OpDelete, "", obj("41", "1"), "", "", false),
			busy:   true, code: http.StatusServiceUnavailable,
			want: func(*Store) want { return want{} },
		},
		"HugeGroups": {
			reason: "A user past the bounds is not kept: one review cannot take the memory of thousands.",
			body:   strings.Replace(reviewOf(OpDelete, "", obj("41", "1"), "", "", false), `"groups":["dev"]`, `"groups":["`+strings.Repeat("g", 2000)+`"]`, 1),
			want:   func(*Store) want { return want{} },
		},
		"Authenticated": {
			reason: "With the token, the review is a fact.",
			body:   reviewOf(OpDelete, "", obj("41", "1"), "", "", false),
			token:  "secret", auth: "Bearer secret",
			want: func(*Store) want {
				return want{facts: []Fact{{
					Operation: OpDelete, User: audit.User{Username: "alice", UID: "ua", Groups: []string{"dev"}},
					Resource: audit.GroupResource{Resource: "configmaps"}, Version: "v1", Namespace: "ns", Name: "a", UID: "u1",
				}}}
			},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			clk := clocktesting.NewFakePassiveClock(time.Unix(100, 0))
			st := NewStore(WithClock(clk))
			s, err := NewServer("", st, audit.Static{Certificate: serving(t), Token: []byte(tc.token)}, WithPath(tc.path), WithMaxInFlight(1))
			if err != nil {
				t.Fatal(err)
			}
			if tc.busy {
				s.inFlight <- struct{}{}
			}
			at := tc.at
			if at == "" {
				at = "/admit"
			}
			r := httptest.NewRequest(http.MethodPost, at, strings.NewReader(tc.body))
			if tc.auth != "" {
				r.Header.Set("Authorization", tc.auth)
			}
			w := httptest.NewRecorder()
			s.ServeHTTP(w, r)
			if tc.code != 0 {
				if w.Code != tc.code {
					t.Errorf("%s\nanswer: %d, want %d", tc.reason, w.Code, tc.code)
				}
			} else {
				var got allowed
				if err := json.Unmarshal(w.Body.Bytes(), &got); err != nil || w.Code != http.StatusOK || !got.Response.Allowed {
					t.Errorf("%s\nanswer: %d %s (%v), want 200 allowed", tc.reason, w.Code, w.Body.String(), err)
				}
			}
			want := tc.want(st)
			var facts []Fact
			if want.facts != nil {
				facts = st.Of("u1", time.Time{})
			}
			if st.Len() != len(want.facts) {
				t.Errorf("%s\nthe store holds %d facts, want %d", tc.reason, st.Len(), len(want.facts))
			}
			if diff := cmp.Diff(want.facts, facts, cmpopts.IgnoreFields(Fact{}, "Arrived")); diff != "" {
				t.Errorf("%s\nfacts: -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}
