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
	"bytes"
	"context"
	"crypto"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Locking: appTokens.mu guards current, expires and inflight. It is never held
// across the network: one caller mints a token while later callers wait for
// its result on the inflight call.

const (
	errAppKey         = "cannot parse the GitHub App private key: it must be an RSA key in PEM (PKCS#1 or PKCS#8)"
	errAppIDs         = "a GitHub App needs an app ID and an installation ID"
	errAppAPIURL      = "the GitHub App API URL must be an absolute http(s) URL"
	errAppToken       = "cannot get a GitHub App installation token"
	errAppRedirectFmt = "the token endpoint redirected to %s: a GitHub App's JWT is sent to its API URL only"
	errAppTokenReply  = "unexpected GitHub App token response"
	errAppSign        = "cannot sign the GitHub App JWT"
)

// DefaultGitHubAPIURL is github.com's REST API; GitHub Enterprise Server's
// is https://<host>/api/v3.
const DefaultGitHubAPIURL = "https://api.github.com"

// appTokenUser is the basic-auth username GitHub expects with an
// installation token.
const appTokenUser = "x-access-token"

// GitHub's limits and our margins for App tokens.
const (
	// appJWTLifetime: GitHub refuses a JWT that expires more than 10 minutes
	// after it was issued.
	appJWTLifetime = 9 * time.Minute
	// appClockSkew backdates the JWT's iat, as GitHub advises, for a clock
	// a little ahead of GitHub's.
	appClockSkew = time.Minute
	// appTokenRefresh is how long before its expiry (an hour after minting)
	// an installation token is replaced, so none expires mid-push.
	appTokenRefresh = 5 * time.Minute
	// appTokenTimeout bounds one token request.
	appTokenTimeout = 30 * time.Second
	// appReplyLimit bounds what is read of a token response.
	appReplyLimit = 1 << 20
)

// AppInstallationAuth authenticates over HTTPS as an installation of a
// GitHub App: the engine mints a JWT with the App's private key, exchanges it for
// an installation token, and uses that as the password of x-access-token.
// Tokens are reused until shortly before they expire.
type AppInstallationAuth struct {
	AppID          string
	InstallationID string
	// PrivateKey is the App's RSA private key in PEM.
	PrivateKey []byte
	// APIURL is the REST API's base URL; empty means DefaultGitHubAPIURL.
	APIURL string
}

func (a *AppInstallationAuth) fingerprint(h func(...string)) {
	h("github-app", a.AppID, a.InstallationID, string(a.PrivateKey), a.APIURL)
}

// appTokens mints and caches one installation's tokens.
type appTokens struct {
	appID, installationID string
	key                   *rsa.PrivateKey
	endpoint              string
	client                *http.Client
	now                   func() time.Time

	// id is the source's key in Cache.apps; clones counts the clones that
	// use it. Both are guarded by Cache.appsMu.
	id     string
	clones int

	mu       sync.Mutex
	current  string
	expires  time.Time
	inflight *appTokenCall
}

type appTokenCall struct {
	done  chan struct{}
	token string
	err   error
}

// appTokens returns the token source of a's installation as reached through
// a CA bundle, made on first use, and counts one more clone using it. The
// key is everything that shapes the token request: the App's IDs, private
// key and API URL, and the CA bundle (the proxy and the clock are the
// cache's, the same for every clone). Clones that share it could share one
// HTTP client; a configuration with another CA gets its own. Its own
// mutex, never held across the network: openRepository may run under c.mu.
func (c *Cache) appTokens(a *AppInstallationAuth, caBundle []byte) (*appTokens, error) {
	id := Remote{Auth: a, CABundle: caBundle}.identity(c.key)
	c.appsMu.Lock()
	defer c.appsMu.Unlock()
	if t, ok := c.apps[id]; ok {
		t.clones++
		return t, nil
	}
	t, err := newAppTokens(a)
	if err != nil {
		return nil, err
	}
	if c.apps == nil {
		c.apps = map[string]*appTokens{}
	}
	t.id, t.clones = id, 1
	c.apps[id] = t
	return t, nil
}

// releaseAppTokens undoes one appTokens call: a clone that used t is gone.
// The last clone's going drops the source, and with it the App's private
// key and its token, so a rotated key does not stay in memory.
func (c *Cache) releaseAppTokens(t *appTokens) {
	if t == nil {
		return
	}
	c.appsMu.Lock()
	defer c.appsMu.Unlock()
	t.clones--
	if t.clones <= 0 && c.apps[t.id] == t {
		delete(c.apps, t.id)
	}
}

func newAppTokens(a *AppInstallationAuth) (*appTokens, error) {
	if a.AppID == "" || a.InstallationID == "" {
		return nil, newError(KindInvalid, errAppIDs)
	}
	key, err := parseRSAKey(a.PrivateKey)
	if err != nil {
		return nil, err
	}
	api := a.APIURL
	if api == "" {
		api = DefaultGitHubAPIURL
	}
	u, err := url.Parse(api)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
		return nil, newError(KindInvalid, errAppAPIURL)
	}
	endpoint := strings.TrimSuffix(api, "/") + "/app/installations/" + url.PathEscape(a.InstallationID) + "/access_tokens"
	return &appTokens{appID: a.AppID, installationID: a.InstallationID, key: key, endpoint: endpoint, now: time.Now}, nil
}

func parseRSAKey(b []byte) (*rsa.PrivateKey, error) {
	block, _ := pem.Decode(b)
	if block == nil {
		return nil, newError(KindInvalid, errAppKey)
	}
	if k, err := x509.ParsePKCS1PrivateKey(block.Bytes); err == nil {
		return k, nil
	}
	k, err := x509.ParsePKCS8PrivateKey(block.Bytes)
	if rk, ok := k.(*rsa.PrivateKey); err == nil && ok {
		return rk, nil
	}
	return nil, newError(KindInvalid, errAppKey)
}

// use sets the client that reaches the token endpoint and the clock, once.
// Every clone sharing the source has the same CA bundle, proxy and clock
// (they are in its key, or the cache's), so the first one's client is each
// one's.
func (s *appTokens) use(hc *http.Client, now func() time.Time) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.client == nil {
		s.client, s.now = hc, now
	}
}

// token returns a valid installation token, minting one when none is held
// or the held one is due for refresh. Concurrent callers share one request.
func (s *appTokens) token(ctx context.Context) (string, error) {
	s.mu.Lock()
	if s.current != "" && s.now().Before(s.expires.Add(-appTokenRefresh)) {
		tok := s.current
		s.mu.Unlock()
		return tok, nil
	}
	if c := s.inflight; c != nil {
		s.mu.Unlock()
		select {
		case <-c.done:
			return c.token, c.err
		case <-ctx.Done():
			return "", &Error{Kind: KindTransient, Err: fmt.Errorf("%s: %w", errAppToken, ctx.Err())}
		}
	}
	c := &appTokenCall{done: make(chan struct{})}
	s.inflight = c
	s.mu.Unlock()

	tok, exp, err := s.mint(ctx)

	s.mu.Lock()
	s.inflight = nil
	if err == nil {
		s.current, s.expires = tok, exp
	}
	s.mu.Unlock()
	c.token, c.err = tok, err
	close(c.done)
	return tok, err
}

// mint exchanges a fresh JWT for an installation token.
func (s *appTokens) mint(ctx context.Context) (string, time.Time, error) {
	jwt, err := s.jwt()
	if err != nil {
		return "", time.Time{}, err
	}
	ctx, cancel := context.WithTimeout(ctx, appTokenTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, s.endpoint, http.NoBody)
	if err != nil {
		return "", time.Time{}, &Error{Kind: KindInvalid, Err: fmt.Errorf("%s: %w", errAppToken, err)}
	}
	req.Header.Set("Authorization", "Bearer "+jwt)
	req.Header.Set("Accept", "application/vnd.github+json")
	req.Header.Set("X-GitHub-Api-Version", "2022-11-28")
	var client http.Client
	if s.client != nil {
		client = *s.client
	}
	// The JWT mints tokens for the whole installation: no redirect, not
	// even to the same host over http, which net/http would send it on.
	refused := false
	client.CheckRedirect = func(r *http.Request, _ []*http.Request) error {
		refused = true
		return fmt.Errorf(errAppRedirectFmt, r.URL.Redacted())
	}
	resp, err := client.Do(req)
	if err != nil && refused {
		return "", time.Time{}, &Error{Kind: KindInvalid, Err: fmt.Errorf("%s: %w", errAppToken, err)}
	}
	if err != nil {
		// The URL error names the endpoint only: no secret is in it.
		return "", time.Time{}, fmt.Errorf("%s: %w", errAppToken, classify(err))
	}
	defer resp.Body.Close() //nolint:errcheck // read fully below
	body, err := io.ReadAll(io.LimitReader(resp.Body, appReplyLimit))
	if err != nil {
		return "", time.Time{}, &Error{Kind: KindTransient, Err: fmt.Errorf("%s: %w", errAppToken, err)}
	}
	switch {
	case resp.StatusCode == http.StatusUnauthorized, resp.StatusCode == http.StatusForbidden, resp.StatusCode == http.StatusNotFound:
		// A wrong key or app ID, or an installation that does not exist or
		// was removed: a human must act. GitHub's message says which, and
		// holds no secret.
		return "", time.Time{}, &Error{Kind: KindAuth, Err: fmt.Errorf("%s: %s: %s", errAppToken, resp.Status, apiMessage(body))}
	case resp.StatusCode != http.StatusCreated && resp.StatusCode != http.StatusOK:
		return "", time.Time{}, &Error{Kind: KindTransient, Err: fmt.Errorf("%s: %s", errAppToken, resp.Status)}
	}
	var reply struct {
		Token     string    `json:"token"`
		ExpiresAt time.Time `json:"expires_at"`
	}
	if err := json.Unmarshal(body, &reply); err != nil || reply.Token == "" {
		return "", time.Time{}, &Error{Kind: KindTransient, Err: errors.New(errAppTokenReply)}
	}
	return reply.Token, reply.ExpiresAt, nil
}

// apiMessage is the message field of a GitHub API error, bounded.
func apiMessage(body []byte) string {
	var e struct {
		Message string `json:"message"`
	}
	_ = json.Unmarshal(body, &e)
	const maxLen = 200
	if len(e.Message) > maxLen {
		return e.Message[:maxLen]
	}
	return e.Message
}

// jwt returns the App's JSON Web Token (RS256): issued by the app ID,
// backdated by appClockSkew, valid for appJWTLifetime.
func (s *appTokens) jwt() (string, error) {
	now := s.now()
	enc := base64.RawURLEncoding
	header := enc.EncodeToString([]byte(`{"alg":"RS256","typ":"JWT"}`))
	claims, err := json.Marshal(map[string]any{
		"iat": now.Add(-appClockSkew).Unix(),
		"exp": now.Add(appJWTLifetime).Unix(),
		"iss": appIssuer(s.appID),
	})
	if err != nil {
		return "", fmt.Errorf("%s: %w", errAppSign, err)
	}
	signed := header + "." + enc.EncodeToString(claims)
	digest := sha256.Sum256([]byte(signed))
	sig, err := rsa.SignPKCS1v15(rand.Reader, s.key, crypto.SHA256, digest[:])
	if err != nil {
		return "", fmt.Errorf("%s: %w", errAppSign, err)
	}
	var b bytes.Buffer
	b.WriteString(signed)
	b.WriteByte('.')
	b.WriteString(enc.EncodeToString(sig))
	return b.String(), nil
}

// appIssuer is the JWT's iss: GitHub takes the numeric app ID as a number,
// and a client ID as a string.
func appIssuer(id string) any {
	if n, err := strconv.ParseInt(id, 10, 64); err == nil {
		return n
	}
	return id
}
