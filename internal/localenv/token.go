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

package localenv

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"

	"github.com/crossplane/crossplane-runtime/v2/pkg/errors"
	"k8s.io/client-go/rest"
)

const errAdminToken = "cannot write the control plane administrator's token"

// tokenAdmin is the user the administrator's token authenticates, in
// system:masters as envtest's own administrator is.
const tokenAdmin = "localenv-admin"

// adminToken is a static bearer token for the control plane's
// administrator, in a --token-auth-file of its own.
//
// envtest's administrator authenticates with a client certificate, and the
// API server verifies its chain on every request: about 6% of an API
// server's CPU in e2e/async (a CPU profile). A static token is a lookup.
type adminToken struct {
	dir   string
	token string
}

// newAdminToken writes a fresh token into a file of a new directory.
func newAdminToken() (*adminToken, error) {
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		return nil, errors.Wrap(err, errAdminToken)
	}
	dir, err := os.MkdirTemp("", "provider-git-controlplane-")
	if err != nil {
		return nil, errors.Wrap(err, errAdminToken)
	}
	t := &adminToken{dir: dir, token: hex.EncodeToString(b)}
	line := fmt.Sprintf("%s,%s,%s,\"system:masters,system:authenticated\"\n", t.token, tokenAdmin, tokenAdmin)
	if err := os.WriteFile(t.file(), []byte(line), 0o600); err != nil {
		_ = os.RemoveAll(dir)
		return nil, errors.Wrap(err, errAdminToken)
	}
	return t, nil
}

func (t *adminToken) file() string { return filepath.Join(t.dir, "tokens.csv") }

// config is cfg (envtest's administrator) authenticating with the token
// instead of its client certificate: same server, same CA.
func (t *adminToken) config(cfg *rest.Config) *rest.Config {
	c := rest.CopyConfig(cfg)
	c.CertData, c.KeyData, c.CertFile, c.KeyFile = nil, nil, "", ""
	c.BearerToken = t.token
	return c
}

func (t *adminToken) remove() error { return os.RemoveAll(t.dir) }
