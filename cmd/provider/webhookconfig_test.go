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

package main

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"os"
	"path/filepath"
	"regexp"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/crossplane-contrib/provider-git/internal/reconciler/options"
)

// testCA is a PEM certificate of a CA made for the test.
func testCA(t *testing.T) []byte {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "test CA"},
		NotBefore: time.Unix(0, 0), NotAfter: time.Unix(1<<32, 0), IsCA: true, BasicConstraintsValid: true}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})
}

func TestAttributionWebhook(t *testing.T) {
	dir := t.TempDir()
	ca := testCA(t)
	if err := os.WriteFile(filepath.Join(dir, "ca.crt"), ca, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "junk.pem"), []byte("not a certificate"), 0o600); err != nil {
		t.Fatal(err)
	}
	crossplane := map[string]string{
		"PROVIDER_NAME": "provider-git", "POD_NAMESPACE": "crossplane-system", "TLS_SERVER_CERTS_DIR": dir,
		"REVISION_NAME": "provider-git-abc", "REVISION_UID": "0a1b",
	}
	type args struct {
		name, service, url, ca, addr string
		env                          map[string]string
	}
	cases := map[string]struct {
		reason  string
		args    args
		want    *options.AttributionWebhook
		wantErr bool
	}{
		"Off": {
			reason: "No configuration name: none is kept, whatever else is set.",
			args:   args{addr: ":9443", env: crossplane},
		},
		"NoEndpoint": {
			reason:  "A kept configuration with no webhook served would point at nothing.",
			args:    args{name: "provider-git-attribution", env: crossplane},
			wantErr: true,
		},
		"Crossplane": {
			reason: "In a Crossplane install: the provider's own Service and port, the CA Crossplane issued, owned by the ProviderRevision.",
			args:   args{name: "provider-git-attribution", addr: ":9443", env: crossplane},
			want: &options.AttributionWebhook{
				Name: "provider-git-attribution",
				ClientConfig: admissionregistrationv1.WebhookClientConfig{
					Service:  &admissionregistrationv1.ServiceReference{Namespace: "crossplane-system", Name: "provider-git", Port: ptr.To[int32](9443), Path: ptr.To("/attribution/0f3c")},
					CABundle: ca,
				},
				Owner: &metav1.OwnerReference{APIVersion: "pkg.crossplane.io/v1", Kind: "ProviderRevision", Name: "provider-git-abc", UID: "0a1b"},
			},
		},
		"OwnService": {
			reason: "Outside Crossplane: the Service and CA given, no owner.",
			args:   args{name: "h", addr: ":9444", service: "git/provider-git-admission:443", ca: filepath.Join(dir, "ca.crt"), env: map[string]string{}},
			want: &options.AttributionWebhook{Name: "h", ClientConfig: admissionregistrationv1.WebhookClientConfig{
				Service:  &admissionregistrationv1.ServiceReference{Namespace: "git", Name: "provider-git-admission", Port: ptr.To[int32](443), Path: ptr.To("/attribution/0f3c")},
				CABundle: ca,
			}},
		},
		"URL": {
			reason: "A URL instead of a Service, at the webhook's one path.",
			args:   args{name: "h", addr: ":9444", url: "https://hooks.example.com:9444/attribution", ca: filepath.Join(dir, "ca.crt"), env: map[string]string{}},
			want: &options.AttributionWebhook{Name: "h", ClientConfig: admissionregistrationv1.WebhookClientConfig{
				URL: ptr.To("https://hooks.example.com:9444/attribution/0f3c"), CABundle: ca,
			}},
		},
		"PlainHTTP": {
			reason:  "The API server calls webhooks over TLS only.",
			args:    args{name: "h", addr: ":9444", url: "http://hooks.example.com/", ca: filepath.Join(dir, "ca.crt"), env: map[string]string{}},
			wantErr: true,
		},
		"BadService": {
			reason:  "A Service without its port is refused, not guessed.",
			args:    args{name: "h", addr: ":9444", service: "git/provider-git-admission", ca: filepath.Join(dir, "ca.crt"), env: map[string]string{}},
			wantErr: true,
		},
		"NoServiceOutsideCrossplane": {
			reason:  "Outside Crossplane there is no Service to default to.",
			args:    args{name: "h", addr: ":9444", ca: filepath.Join(dir, "ca.crt"), env: map[string]string{}},
			wantErr: true,
		},
		"NoCA": {
			reason:  "Without a CA bundle the API server could not verify the webhook.",
			args:    args{name: "h", addr: ":9444", service: "git/s:443", env: map[string]string{}},
			wantErr: true,
		},
		"NotPEM": {
			reason:  "A CA bundle that holds no certificate is refused at start, not sent to the API server.",
			args:    args{name: "h", addr: ":9444", service: "git/s:443", ca: filepath.Join(dir, "junk.pem"), env: map[string]string{}},
			wantErr: true,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			none := ""
			f := webhookConfigFlags{name: &tc.args.name, service: &tc.args.service, url: &tc.args.url, path: &none, ca: &tc.args.ca}
			got, err := attributionWebhook(f, tc.args.addr, "/attribution/0f3c", func(k string) string { return tc.args.env[k] })
			if (err != nil) != tc.wantErr {
				t.Fatalf("\n%s\nattributionWebhook(...): error %v, want error %t", tc.reason, err, tc.wantErr)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("\n%s\nattributionWebhook(...): -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}

func TestCheckAdmissionReplicas(t *testing.T) {
	cases := map[string]struct {
		reason               string
		addr                 string
		share, leader, error bool
	}{
		"Off":            {reason: "No webhook: any replica count.", share: true},
		"One":            {reason: "One replica keeps every review.", addr: ":9443"},
		"Shared":         {reason: "Replicas sharing repositories would each keep part of the reviews.", addr: ":9443", share: true, error: true},
		"LeaderElection": {reason: "A standby would keep the reviews sent to it.", addr: ":9443", leader: true, error: true},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			err := checkAdmissionReplicas(tc.addr, tc.share, tc.leader)
			if (err != nil) != tc.error {
				t.Errorf("\n%s\ncheckAdmissionReplicas(...): %v, want error %t", tc.reason, err, tc.error)
			}
		})
	}
}

func TestAdmissionPath(t *testing.T) {
	dir := t.TempDir()
	for name, key := range map[string]string{"a.key": "key A", "b.key": "key B"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(key), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	derived := func(file string) string {
		t.Helper()
		p, err := admissionPath("", filepath.Join(dir, file), true)
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	a, b := derived("a.key"), derived("b.key")
	if !regexp.MustCompile(`^/attribution/[0-9a-f]{32}$`).MatchString(a) {
		t.Errorf("admissionPath(key A) = %q, want /attribution/ and 128 bits of hex", a)
	}
	if a != derived("a.key") {
		t.Errorf("admissionPath(key A) changed from one call to the next: replicas and restarts of one key must agree")
	}
	if a == b {
		t.Errorf("admissionPath(key A) = admissionPath(key B) = %q: the path must depend on the secret", a)
	}
	if p, err := admissionPath("", filepath.Join(dir, "a.key"), false); err != nil || p != "" {
		t.Errorf("admissionPath(not kept) = %q, %v, want any path (\"\") when the configuration is the user's", p, err)
	}
	if p, err := admissionPath("/mine", "", true); err != nil || p != "/mine" {
		t.Errorf("admissionPath(explicit) = %q, %v, want /mine", p, err)
	}
	if _, err := admissionPath("mine", "", true); err == nil {
		t.Errorf("admissionPath(no leading /) succeeded, want an error")
	}
	if _, err := admissionPath("", filepath.Join(dir, "missing.key"), true); err == nil {
		t.Errorf("admissionPath(no key) succeeded, want an error")
	}
}
