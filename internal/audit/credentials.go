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

package audit

import (
	"crypto/tls"
	"crypto/x509"
	"os"

	"github.com/crossplane/crossplane-runtime/v2/pkg/errors"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
)

// Keys of the Secret the endpoint's credentials may come from: the
// kubernetes.io/tls keys, cert-manager's ca.crt, and a token.
const (
	SecretKeyCert  = "tls.crt"
	SecretKeyKey   = "tls.key"
	SecretKeyCA    = "ca.crt"
	SecretKeyToken = "token"
)

const (
	errReadFmt      = "cannot read %s"
	errKeyPair      = "cannot load the audit endpoint's serving certificate and key"
	errClientCA     = "the audit endpoint's client CA holds no PEM certificate"
	errGetSecretFmt = "cannot get the audit endpoint's Secret %s"
	errSecretKeyFmt = "the audit endpoint's Secret %s has no %q"
)

// Files name where the endpoint's credentials are; CA and Token may be
// empty (one of them is needed).
type Files struct {
	Cert, Key, CA, Token string
}

// FromFiles reads the endpoint's credentials from files; they must hold a
// client CA or a token.
func FromFiles(f Files) (Credentials, error) {
	cert, err := os.ReadFile(f.Cert)
	if err != nil {
		return Credentials{}, errors.Wrapf(err, errReadFmt, f.Cert)
	}
	key, err := os.ReadFile(f.Key)
	if err != nil {
		return Credentials{}, errors.Wrapf(err, errReadFmt, f.Key)
	}
	var ca, token []byte
	if f.CA != "" {
		if ca, err = os.ReadFile(f.CA); err != nil {
			return Credentials{}, errors.Wrapf(err, errReadFmt, f.CA)
		}
	}
	if f.Token != "" {
		if token, err = os.ReadFile(f.Token); err != nil {
			return Credentials{}, errors.Wrapf(err, errReadFmt, f.Token)
		}
	}
	c, err := credentials(cert, key, ca, token)
	if err != nil {
		return Credentials{}, err
	}
	if !c.clientAuth() {
		return c, errNoClientAuthErr
	}
	return c, nil
}

// errNoClientAuthErr is FromFiles's error for files with neither a client
// CA nor a token: an error for the audit endpoint, not for an endpoint
// whose client authentication is optional (WithOptionalClientAuth).
var errNoClientAuthErr = errors.New(errNoClientAuth)

// fromSecret parses the credentials of s, the Secret nn.
func fromSecret(s *corev1.Secret, nn types.NamespacedName) (Credentials, error) {
	for _, k := range []string{SecretKeyCert, SecretKeyKey} {
		if len(s.Data[k]) == 0 {
			return Credentials{}, errors.Errorf(errSecretKeyFmt, nn, k)
		}
	}
	return credentials(s.Data[SecretKeyCert], s.Data[SecretKeyKey], s.Data[SecretKeyCA], s.Data[SecretKeyToken])
}

// credentials parses PEM; a token's surrounding white space (a file's
// final newline) is not part of it. Neither a CA nor a token is not an
// error here: a source that had them and lost them lets no client in,
// while one that never had them is refused at start (newReloading,
// NewServer).
func credentials(cert, key, ca, token []byte) (Credentials, error) {
	kp, err := tls.X509KeyPair(cert, key)
	if err != nil {
		return Credentials{}, errors.Wrap(err, errKeyPair)
	}
	c := Credentials{Certificate: kp, Token: trimSpace(token)}
	if len(ca) > 0 {
		c.ClientCAs = x509.NewCertPool()
		if !c.ClientCAs.AppendCertsFromPEM(ca) {
			return Credentials{}, errors.New(errClientCA)
		}
	}
	return c, nil
}

func trimSpace(b []byte) []byte {
	for len(b) > 0 && (b[len(b)-1] == '\n' || b[len(b)-1] == '\r' || b[len(b)-1] == ' ' || b[len(b)-1] == '\t') {
		b = b[:len(b)-1]
	}
	for len(b) > 0 && (b[0] == ' ' || b[0] == '\t') {
		b = b[1:]
	}
	return b
}
