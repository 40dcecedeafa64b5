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

package git

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net"
	"os"
	"strconv"
	"time"

	"github.com/go-git/go-git/v5/plumbing/transport"
	githttp "github.com/go-git/go-git/v5/plumbing/transport/http"
	gitssh "github.com/go-git/go-git/v5/plumbing/transport/ssh"
	"github.com/skeema/knownhosts"
	"golang.org/x/crypto/ssh"
)

const (
	errParseURL       = "cannot parse repository URL"
	errNoKnownHosts   = "an SSH remote needs known_hosts: refusing to connect without host key verification"
	errParseKey       = "cannot parse SSH private key"
	errKnownHostsFile = "cannot stage known_hosts"
	errParseKnown     = "cannot parse known_hosts"
	errAuthScheme     = "credentials do not fit the URL scheme"
	errURLSecret      = "the URL must not carry a password: put credentials in the Secret"
)

// sshDialTimeout bounds the TCP connect and SSH handshake: go-git's SSH
// transport dials without the caller's context.
const sshDialTimeout = 30 * time.Second

// Remote names a repository and how to authenticate to it. Two Remotes with
// the same URL and credentials share one cache entry.
type Remote struct {
	// URL: https://…, http://…, ssh://user@host[:port]/path or scp-like
	// user@host:path.
	URL string
	// Auth is nil for anonymous access, else *BasicAuth or *SSHAuth.
	Auth Auth
	// Signer, when set, signs every commit made through this remote.
	Signer Signer
	// CABundle holds PEM certificates trusted for an HTTPS server besides
	// the system's roots: a forge behind a private CA.
	CABundle []byte
	// API, when set, makes the branch writers commit through the forge's
	// API (viaapi.go) instead of pushing; it needs a GitHub App's Auth.
	API *APITarget
}

// Auth is a credential for a Remote: *BasicAuth, *BearerAuth,
// *AppInstallationAuth or *SSHAuth.
type Auth interface {
	// fingerprint feeds the secret material into h, so a Remote's cache
	// identity changes when its credentials do.
	fingerprint(h func(...string))
}

// BasicAuth is HTTP(S) basic auth: a username with a password or token.
type BasicAuth struct {
	Username string
	Password string
}

func (a *BasicAuth) fingerprint(h func(...string)) { h("basic", a.Username, a.Password) }

// SSHAuth is an SSH private key plus the known_hosts that must list the
// server. There is deliberately no way to skip host key verification.
type SSHAuth struct {
	// User to log in as when the URL names none; default "git".
	User string
	// PrivateKey in PEM or OpenSSH format.
	PrivateKey []byte
	// Passphrase of PrivateKey, if any.
	Passphrase string
	// KnownHosts in OpenSSH known_hosts format; required.
	KnownHosts []byte
}

func (a *SSHAuth) fingerprint(h func(...string)) {
	h("ssh", a.User, string(a.PrivateKey), a.Passphrase, string(a.KnownHosts))
}

// identity returns a stable, non-reversible name for the remote: an HMAC so
// that a cache directory name reveals nothing about a password.
func (r Remote) identity(key []byte) string {
	m := hmac.New(sha256.New, key)
	add := func(parts ...string) {
		for _, p := range parts {
			m.Write([]byte(strconv.Itoa(len(p)) + ":" + p))
		}
	}
	add(r.URL)
	if r.Auth != nil {
		r.Auth.fingerprint(add)
	}
	if r.Signer != nil {
		add("signer", r.Signer.PublicKey())
	}
	if len(r.CABundle) > 0 {
		add("ca", string(r.CABundle))
	}
	if r.API != nil {
		// A clone whose writers commit through the API is not one that
		// pushes: configurations that differ only there share no writer.
		add("api", r.API.URL)
	}
	return hex.EncodeToString(m.Sum(nil))[:32]
}

// connection is what the transport needs to reach a remote.
type connection struct {
	ep   *transport.Endpoint
	auth transport.AuthMethod
	// host labels metrics: host only, never a path or a user.
	host string
	// app, for a GitHub App, mints the installation token auth carries.
	app *appTokens
}

// authMethod returns the auth of one session: the fixed one, or a GitHub
// App installation token, minted or reused (githubapp.go).
func (c *connection) authMethod(ctx context.Context) (transport.AuthMethod, error) {
	if c.app == nil {
		return c.auth, nil
	}
	tok, err := c.app.token(ctx)
	if err != nil {
		return nil, err
	}
	return &githttp.BasicAuth{Username: appTokenUser, Password: tok}, nil
}

// endpoint returns a copy of the endpoint for one session: go-git's HTTP
// session rewrites its endpoint after a redirect, and sessions of one
// repository (a fetch, a push, a check) run concurrently.
func (c *connection) endpoint() *transport.Endpoint {
	ep := *c.ep
	return &ep
}

// Protocol names the transport the engine will use for url: "ssh" (ssh://
// or scp-like user@host:path), "https", "http", "git" or "file" (file:// or
// a bare path), lower case whatever the URL's spelling (HTTP:// is "http"),
// as net/url reads a scheme. It is the engine's own parser, so whoever
// decides which credentials a URL needs, or whether it is insecure, decides
// as the engine will act.
func Protocol(url string) (string, error) {
	ep, err := transport.NewEndpoint(url)
	if err != nil {
		return "", &Error{Kind: KindInvalid, Err: fmt.Errorf("%s: %w", errParseURL, err)}
	}
	return ep.Protocol, nil
}

// connect resolves a Remote into an endpoint and an auth method. tmpDir holds
// known_hosts for the moment it takes to parse it; apps returns the token
// source of a GitHub App installation, shared by every clone it reaches.
func connect(r Remote, tmpDir string, apps func(*AppInstallationAuth) (*appTokens, error)) (*connection, error) {
	ep, err := transport.NewEndpoint(r.URL)
	if err != nil {
		return nil, &Error{Kind: KindInvalid, Err: fmt.Errorf("%s: %w", errParseURL, err)}
	}
	// go-git prints endpoints, password included, in some errors; a secret
	// in the URL would end up in conditions and logs.
	if ep.Password != "" {
		return nil, newError(KindInvalid, errURLSecret)
	}
	c := &connection{ep: ep, host: ep.Host}
	switch a := r.Auth.(type) {
	case nil:
	case *BasicAuth:
		if ep.Protocol != "http" && ep.Protocol != "https" {
			return nil, newError(KindInvalid, errAuthScheme)
		}
		c.auth = &githttp.BasicAuth{Username: a.Username, Password: a.Password}
	case *BearerAuth:
		if ep.Protocol != "http" && ep.Protocol != "https" {
			return nil, newError(KindInvalid, errAuthScheme)
		}
		c.auth = &githttp.TokenAuth{Token: a.Token}
	case *AppInstallationAuth:
		if ep.Protocol != "http" && ep.Protocol != "https" {
			return nil, newError(KindInvalid, errAuthScheme)
		}
		if c.app, err = apps(a); err != nil {
			return nil, err
		}
	case *SSHAuth:
		if ep.Protocol != "ssh" {
			return nil, newError(KindInvalid, errAuthScheme)
		}
		c.auth, err = sshAuth(ep, a, tmpDir)
		if err != nil {
			return nil, err
		}
	}
	return c, nil
}

func sshAuth(ep *transport.Endpoint, a *SSHAuth, tmpDir string) (transport.AuthMethod, error) {
	if len(a.KnownHosts) == 0 {
		return nil, newError(KindHostKey, errNoKnownHosts)
	}
	user := ep.User
	if user == "" {
		user = a.User
	}
	if user == "" {
		user = "git"
	}
	pk, err := gitssh.NewPublicKeys(user, a.PrivateKey, a.Passphrase)
	if err != nil {
		return nil, &Error{Kind: KindInvalid, Err: fmt.Errorf("%s: %w", errParseKey, err)}
	}
	// knownhosts reads files only; the file lives for the parse and is
	// removed before we return.
	f, err := os.CreateTemp(tmpDir, "known_hosts-*")
	if err != nil {
		return nil, fmt.Errorf("%s: %w", errKnownHostsFile, err)
	}
	defer os.Remove(f.Name()) //nolint:errcheck // a stray copy of known_hosts holds only public keys
	if _, err := f.Write(a.KnownHosts); err != nil {
		_ = f.Close()
		return nil, fmt.Errorf("%s: %w", errKnownHostsFile, err)
	}
	if err := f.Close(); err != nil {
		return nil, fmt.Errorf("%s: %w", errKnownHostsFile, err)
	}
	db, err := knownhosts.NewDB(f.Name())
	if err != nil {
		return nil, &Error{Kind: KindHostKey, Err: fmt.Errorf("%s: %w", errParseKnown, err)}
	}
	port := ep.Port
	if port == 0 {
		port = 22
	}
	hostPort := net.JoinHostPort(ep.Host, strconv.Itoa(port))
	pk.HostKeyCallback = db.HostKeyCallback()
	// Offer only the key types known_hosts lists for this host, else the
	// server may present a key of another type, which the callback then
	// reports as a mismatch although known_hosts is right.
	pk.HostKeyAlgorithms = db.HostKeyAlgorithms(hostPort)
	return &timeoutSSHAuth{PublicKeys: pk}, nil
}

// timeoutSSHAuth adds a dial/handshake timeout, which go-git's SSH transport
// does not take from the context.
type timeoutSSHAuth struct{ *gitssh.PublicKeys }

func (a *timeoutSSHAuth) ClientConfig() (*ssh.ClientConfig, error) {
	cfg, err := a.PublicKeys.ClientConfig()
	if err != nil {
		return nil, err
	}
	cfg.Timeout = sshDialTimeout
	return cfg, nil
}
