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

package crossplanetest_test

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// pki is Crossplane's certificate authority, as `crossplane core init`
// stores it in the Secret crossplane-root-ca: core talks to composition
// functions over mutual TLS only, and its runtime would issue the functions'
// and providers' certificates from it. In these tests the test is that
// runtime.
type pki struct {
	cert *x509.Certificate
	key  crypto.Signer
	pem  []byte
}

// pkiFrom parses the CA Secret's tls.crt and tls.key (PKCS #1 RSA).
func pkiFrom(t testing.TB, certPEM, keyPEM []byte) *pki {
	t.Helper()
	cb, _ := pem.Decode(certPEM)
	kb, _ := pem.Decode(keyPEM)
	if cb == nil || kb == nil {
		t.Fatal("the CA Secret holds no PEM certificate and key")
	}
	cert, err := x509.ParseCertificate(cb.Bytes)
	if err != nil {
		t.Fatal(err)
	}
	key, err := x509.ParsePKCS1PrivateKey(kb.Bytes)
	if err != nil {
		t.Fatal(err)
	}
	return &pki{cert: cert, key: key, pem: certPEM}
}

// issue returns a certificate and key, PEM encoded, for a server at
// loopback (and localhost) that is also a client.
func (p *pki) issue(t testing.TB, cn string) ([]byte, []byte) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	serial, err := rand.Int(rand.Reader, big.NewInt(1<<62))
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: serial,
		Subject:      pkix.Name{CommonName: cn},
		DNSNames:     []string{"localhost", cn},
		IPAddresses:  []net.IP{net.IPv4(127, 0, 0, 1)},
		NotBefore:    time.Now().Add(-time.Hour),
		NotAfter:     time.Now().Add(24 * time.Hour),
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth, x509.ExtKeyUsageClientAuth},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, p.cert, &key.PublicKey, p.key)
	if err != nil {
		t.Fatal(err)
	}
	kder, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}),
		pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: kder})
}

// tlsData returns ca.crt, tls.crt and tls.key for cn, the keys of the TLS
// Secrets Crossplane's runtime writes.
func (p *pki) tlsData(t testing.TB, cn string) map[string][]byte {
	t.Helper()
	cert, key := p.issue(t, cn)
	return map[string][]byte{"ca.crt": p.pem, "tls.crt": cert, "tls.key": key}
}

// tlsDir writes tlsData into a new folder, the layout function-sdk-go reads.
func (p *pki) tlsDir(t testing.TB, cn string) string {
	t.Helper()
	return writeTLSDir(t, p.tlsData(t, cn))
}

// writeTLSDir writes the keys of a TLS Secret as files into a new folder, as
// a Secret volume would.
func writeTLSDir(t testing.TB, data map[string][]byte) string {
	t.Helper()
	dir := t.TempDir()
	for name, data := range data {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}
