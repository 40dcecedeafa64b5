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

// Package attribution_test holds the end-to-end tests and benchmarks of a
// Mirror's attribution: a real kube-apiserver whose audit webhook backend
// posts to the provider's audit endpoint (internal/audit) on loopback, with
// a client certificate, and which calls the provider's validating admission
// webhook (internal/admission) over TLS through a
// ValidatingWebhookConfiguration, and real Git servers. The package has a
// control plane of its own, started with the audit flags.
package attribution_test

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/base64"
	"encoding/pem"
	"fmt"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/crossplane-contrib/provider-git/internal/admission"
	"github.com/crossplane-contrib/provider-git/internal/audit"
	"github.com/crossplane-contrib/provider-git/internal/testharness/e2e"
)

// What TestMain started, for the tests.
var (
	// store holds the facts the API server posts.
	store *audit.Store
	// endpoint is the audit endpoint's URL.
	endpoint string
	// serverCA trusts the endpoint's serving certificate.
	serverCA *x509.CertPool

	// admitted holds the facts the admission webhook keeps; webhook is
	// the webhook's URL, behind gate; webhookCA (PEM) signs its serving
	// certificate.
	admitted  *admission.Store
	webhook   string
	gate      *holdGate
	webhookCA []byte
)

// policy is an audit policy that suffices for attribution: the writes of
// the mirrored resources at the Metadata level, one event per request.
// ServiceAccounts are left out on purpose: a Mirror of them has no audit
// route (TestUnresolvedWithoutAuditRoute).
const policy = `apiVersion: audit.k8s.io/v1
kind: Policy
omitStages: ["RequestReceived", "ResponseStarted"]
rules:
- level: Metadata
  verbs: ["create", "update", "patch", "delete", "deletecollection"]
  resources:
  - group: ""
    resources: ["configmaps"]
- level: None
`

// TestMain starts the audit endpoint, then the control plane with its
// audit webhook pointed at it, and the Git server.
func TestMain(m *testing.M) {
	code, err := run(m)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		code = 1
	}
	os.Exit(code)
}

func run(m *testing.M) (int, error) {
	dir, err := os.MkdirTemp("", "provider-git-audit-")
	if err != nil {
		return 1, err
	}
	defer os.RemoveAll(dir) // best effort at exit
	sca, err := newCA("audit endpoint CA")
	if err != nil {
		return 1, err
	}
	cca, err := newCA("kube-apiserver client CA")
	if err != nil {
		return 1, err
	}
	serving, _, _, err := sca.issue("127.0.0.1", x509.ExtKeyUsageServerAuth)
	if err != nil {
		return 1, err
	}
	_, clientCert, clientKey, err := cca.issue("kube-apiserver", x509.ExtKeyUsageClientAuth)
	if err != nil {
		return 1, err
	}
	serverCA = x509.NewCertPool()
	serverCA.AddCert(sca.cert)
	clients := x509.NewCertPool()
	clients.AddCert(cca.cert)

	store = audit.NewStore()
	srv, err := audit.NewServer("127.0.0.1:0", store, audit.Static{Certificate: serving, ClientCAs: clients})
	if err != nil {
		return 1, err
	}
	var lc net.ListenConfig
	l, err := lc.Listen(context.Background(), "tcp", "127.0.0.1:0")
	if err != nil {
		return 1, err
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ctx, l) }()
	defer func() {
		cancel()
		<-done
	}()
	endpoint = "https://" + l.Addr().String() + "/audit"

	// The admission webhook, served as on a managed cluster: TLS, and no
	// client certificate from the API server.
	admitted = admission.NewStore()
	asrv, err := admission.NewServer("127.0.0.1:0", admitted, audit.Static{Certificate: serving})
	if err != nil {
		return 1, err
	}
	al, err := lc.Listen(context.Background(), "tcp", "127.0.0.1:0")
	if err != nil {
		return 1, err
	}
	gate = &holdGate{next: asrv}
	adone := make(chan error, 1)
	go func() { adone <- audit.ServeTLS(ctx, al, gate, audit.Static{Certificate: serving}) }()
	defer func() {
		cancel()
		<-adone
	}()
	webhook, webhookCA = "https://"+al.Addr().String()+"/admit", sca.pem

	b64 := base64.StdEncoding.EncodeToString
	kubeconfig := fmt.Sprintf(`apiVersion: v1
kind: Config
clusters:
- name: provider-git
  cluster:
    server: %s
    certificate-authority-data: %s
users:
- name: kube-apiserver
  user:
    client-certificate-data: %s
    client-key-data: %s
contexts:
- name: audit
  context: {cluster: provider-git, user: kube-apiserver}
current-context: audit
`, endpoint, b64(sca.pem), b64(clientCert), b64(clientKey))
	kc, pol := filepath.Join(dir, "audit-webhook.kubeconfig"), filepath.Join(dir, "audit-policy.yaml")
	if err := os.WriteFile(kc, []byte(kubeconfig), 0o600); err != nil {
		return 1, err
	}
	if err := os.WriteFile(pol, []byte(policy), 0o600); err != nil {
		return 1, err
	}
	return e2e.MainWith(m, e2e.MainOptions{APIServerArgs: map[string][]string{
		"audit-policy-file":         {pol},
		"audit-webhook-config-file": {kc},
		// The documented set-up sends a batch at least every second; the
		// tests wait less.
		"audit-webhook-batch-max-wait":  {"100ms"},
		"audit-webhook-initial-backoff": {"1s"},
	}}), nil
}

// ca is a certificate authority of the tests' own.
type ca struct {
	cert *x509.Certificate
	key  *ecdsa.PrivateKey
	pem  []byte
}

func newCA(name string) (*ca, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, err
	}
	now := time.Now()
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: name},
		NotBefore: now.Add(-time.Minute), NotAfter: now.Add(24 * time.Hour),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return nil, err
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		return nil, err
	}
	return &ca{cert: cert, key: key, pem: pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})}, nil
}

// issue returns a certificate for usage signed by c, and its PEM pair.
func (c *ca) issue(cn string, usage x509.ExtKeyUsage) (tls.Certificate, []byte, []byte, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return tls.Certificate{}, nil, nil, err
	}
	now := time.Now()
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(now.UnixNano()), Subject: pkix.Name{CommonName: cn},
		NotBefore: now.Add(-time.Minute), NotAfter: now.Add(24 * time.Hour),
		IPAddresses: []net.IP{net.IPv4(127, 0, 0, 1)},
		KeyUsage:    x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{usage},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, c.cert, &key.PublicKey, c.key)
	if err != nil {
		return tls.Certificate{}, nil, nil, err
	}
	kb, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		return tls.Certificate{}, nil, nil, err
	}
	certPEM := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})
	keyPEM := pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: kb})
	pair, err := tls.X509KeyPair(certPEM, keyPEM)
	return pair, certPEM, keyPEM, err
}
