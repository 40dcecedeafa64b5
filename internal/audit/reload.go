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
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"os"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/crossplane/crossplane-runtime/v2/pkg/errors"
	"github.com/crossplane/crossplane-runtime/v2/pkg/logging"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/clock"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// DefaultReloadInterval is how often, at most, a Reloading source looks
// at its files or Secret again: a rotation is in force within it.
const DefaultReloadInterval = 10 * time.Second

// MinReloadInterval bounds the interval from below: each look is a Secret
// Get (or a read of every file), and one per request would load the API
// server with the endpoint's own traffic.
const MinReloadInterval = time.Second

// reloadTimeout bounds one Get of the credentials' Secret.
const reloadTimeout = 5 * time.Second

// maxFileBytes bounds what is read of one credential file: PEM and a
// token are a few KiB; a larger file is a mistake, not a credential.
const maxFileBytes = 1 << 20

const (
	errReloadIntervalFmt = "the audit endpoint's reload interval %s is below %s"
	errTooLargeFmt       = "%s is larger than %d bytes"
)

// versionGone is the version of a source that is gone: a deleted Secret
// or file.
const versionGone = "gone"

// CredentialSource gives the credentials in force now. The Server asks at
// every TLS handshake (for its serving certificate) and every request
// (for the client CA and the token), so a source that changes them
// rotates them without a restart.
type CredentialSource interface {
	Current() Credentials
}

// Static is a source of fixed credentials.
type Static Credentials

// Current is c.
func (c Static) Current() Credentials { return Credentials(c) }

// loader is where a Reloading source reads: version is a fingerprint of
// what load would read, so that an unchanged source is not parsed again;
// load parses what the last version read. version's error is a goneError
// when the source is gone (deleted, or no longer readable by the
// provider): a revocation, not a fault.
type loader interface {
	version(ctx context.Context) (string, error)
	load(ctx context.Context) (Credentials, error)
}

// goneError says the source is gone: its credentials are revoked.
type goneError struct{ err error }

func (e goneError) Error() string { return e.err.Error() }
func (e goneError) Unwrap() error { return e.err }

func isGone(err error) bool {
	var g goneError
	return errors.As(err, &g)
}

// Reloading is a CredentialSource that reads its files or Secret again
// when they change, looking at most every interval of its clock.
//
// A look never holds up a handshake or a request: Current returns the
// credentials in force (an atomic pointer) and starts a look in a
// goroutine of its own when the interval has passed and none is under
// way. A look can take a while (a Secret Get of up to reloadTimeout), and
// with an API server whose audit webhook blocks, the Get's own audit event
// is posted to this endpoint: waiting for the look there would stall both.
//
// A rotation that does not parse (a certificate written before its key)
// keeps the credentials in force, and is tried again at the next look. A
// source that is gone (a file deleted, the Secret deleted or no longer
// readable) refuses every client: no CA and no token are in force, while
// the serving certificate is kept so that TLS still answers. A look that
// fails otherwise (a timeout, a 5xx) keeps the credentials in force.
type Reloading struct {
	src      loader
	clock    clock.PassiveClock
	interval time.Duration
	log      logging.Logger
	metrics  *Metrics

	current atomic.Pointer[Credentials]
	checked atomic.Int64 // UnixNano of the last look's start
	looking atomic.Bool  // a look is under way
	looks   sync.WaitGroup

	// version is read and written by one look at a time (looking).
	version string
	// optional: credentials without a client CA or token are in force
	// as they are (the admission webhook's: most API servers present
	// none to a webhook), not refused at start nor a revocation.
	optional bool
	// what names the endpoint in the log.
	what string
}

// ReloadOption configures a Reloading source.
type ReloadOption func(*Reloading)

// WithReloadClock makes r look at its source by clk (a fake one in tests).
func WithReloadClock(clk clock.PassiveClock) ReloadOption {
	return func(r *Reloading) { r.clock = clk }
}

// WithReloadInterval sets how often, at most, r looks at its source; it
// is at least MinReloadInterval.
func WithReloadInterval(d time.Duration) ReloadOption {
	return func(r *Reloading) { r.interval = d }
}

// WithReloadLogger logs a rotation taken or refused, never a credential.
func WithReloadLogger(l logging.Logger) ReloadOption {
	return func(r *Reloading) { r.log = l }
}

// WithReloadMetrics counts the looks that change or fail on m.
func WithReloadMetrics(m *Metrics) ReloadOption {
	return func(r *Reloading) { r.metrics = m }
}

// WithOptionalClientAuth lets the credentials hold neither a client CA
// nor a token: for an endpoint that serves any client (the admission
// webhook, which an API server calls without a client certificate unless
// its admission configuration gives it one), the serving certificate alone.
// what names the endpoint in the log.
func WithOptionalClientAuth(what string) ReloadOption {
	return func(r *Reloading) { r.optional, r.what = true, what }
}

// ReloadFiles is the credentials of f, read again when a file's content
// changes (its sha256: a rewrite that keeps the size and modification
// time is seen too). ctx bounds the first read only.
func ReloadFiles(ctx context.Context, f Files, o ...ReloadOption) (*Reloading, error) {
	// The first read is FromFiles's, whose errors name the file at fault.
	if _, err := FromFiles(f); err != nil && (!errors.Is(err, errNoClientAuthErr) || !optional(o)) {
		return nil, err
	}
	return newReloading(ctx, &fileLoader{f: f}, o)
}

// ReloadSecret is the credentials of the Secret nn, read again when its
// resourceVersion changes; each look is one Get, bounded by a timeout.
func ReloadSecret(ctx context.Context, c client.Reader, nn types.NamespacedName, o ...ReloadOption) (*Reloading, error) {
	return newReloading(ctx, &secretLoader{c: c, nn: nn}, o)
}

// optional reports whether o holds WithOptionalClientAuth.
func optional(o []ReloadOption) bool {
	r := &Reloading{}
	for _, fn := range o {
		fn(r)
	}
	return r.optional
}

func newReloading(ctx context.Context, src loader, o []ReloadOption) (*Reloading, error) {
	r := &Reloading{src: src, clock: clock.RealClock{}, interval: DefaultReloadInterval, log: logging.NewNopLogger(), what: "audit endpoint"}
	for _, fn := range o {
		fn(r)
	}
	if r.interval < MinReloadInterval {
		return nil, errors.Errorf(errReloadIntervalFmt, r.interval, MinReloadInterval)
	}
	v, err := src.version(ctx)
	if err != nil {
		return nil, err
	}
	c, err := src.load(ctx)
	if err != nil {
		return nil, err
	}
	if len(c.Certificate.Certificate) == 0 {
		return nil, errors.New(errNoCert)
	}
	if !c.clientAuth() && !r.optional {
		return nil, errors.New(errNoClientAuth)
	}
	r.version = v
	r.current.Store(&c)
	r.checked.Store(r.clock.Now().UnixNano())
	return r, nil
}

// Current is the credentials in force. When the interval has passed since
// the last look and none is under way, it starts one, and does not wait
// for it.
func (r *Reloading) Current() Credentials {
	cur := *r.current.Load()
	now := r.clock.Now()
	if now.Sub(time.Unix(0, r.checked.Load())) < r.interval || !r.looking.CompareAndSwap(false, true) {
		return cur
	}
	// Another caller may have looked between the check and the swap.
	if now.Sub(time.Unix(0, r.checked.Load())) < r.interval {
		r.looking.Store(false)
		return cur
	}
	r.checked.Store(now.UnixNano())
	r.looks.Add(1)
	go func() {
		defer r.looks.Done()
		defer r.looking.Store(false)
		r.look()
	}()
	return cur
}

// look looks at the source once, and puts what it finds in force.
func (r *Reloading) look() {
	ctx, cancel := context.WithTimeout(context.Background(), reloadTimeout)
	defer cancel()
	cur := r.current.Load()
	v, err := r.src.version(ctx)
	switch {
	case isGone(err):
		if r.version == versionGone {
			return
		}
		r.version = versionGone
		r.put(cur, Credentials{})
		r.log.Info("The "+r.what+"'s credentials are gone; refusing every client until they are back", "error", err)
		return
	case err != nil:
		r.metrics.reload(reloadError)
		r.log.Info("Cannot look at the "+r.what+"'s credentials; keeping those in force", "error", err)
		return
	case v == r.version:
		return
	}
	c, err := r.src.load(ctx)
	if err != nil {
		// Not taken: the version stays, so the next look tries again.
		r.metrics.reload(reloadInvalid)
		r.log.Info("The "+r.what+"'s credentials changed but do not load; keeping those in force", "error", err)
		return
	}
	r.version = v
	r.put(cur, c)
	if c.clientAuth() || r.optional {
		r.log.Info("Reloaded the " + r.what + "'s credentials")
		return
	}
	r.log.Info("The " + r.what + "'s credentials have neither a client CA nor a token; refusing every client until they do")
}

// put puts c in force, with cur's serving certificate when c has none,
// and counts it as reloaded, or revoked when c lets no client in.
func (r *Reloading) put(cur *Credentials, c Credentials) {
	if len(c.Certificate.Certificate) == 0 {
		c.Certificate = cur.Certificate
	}
	r.current.Store(&c)
	if c.clientAuth() {
		r.metrics.reload(reloadTaken)
		return
	}
	r.metrics.reload(reloadRevoked)
}

// fileLoader reads Files: version reads them, load parses what it read.
type fileLoader struct {
	f   Files
	got [4][]byte // cert, key, CA, token
}

func (l *fileLoader) version(context.Context) (string, error) {
	h := sha256.New()
	for i, p := range []string{l.f.Cert, l.f.Key, l.f.CA, l.f.Token} {
		l.got[i] = nil
		if p == "" {
			continue
		}
		b, err := readBounded(p)
		if errors.Is(err, os.ErrNotExist) {
			return "", goneError{err: err}
		}
		if err != nil {
			return "", err
		}
		l.got[i] = b
		// Each file as its index, length and content: no two sets of
		// files hash alike by moving bytes from one to the next.
		_, _ = io.WriteString(h, strconv.Itoa(i)+":"+strconv.Itoa(len(b))+":")
		_, _ = h.Write(b)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

func (l *fileLoader) load(context.Context) (Credentials, error) {
	return credentials(l.got[0], l.got[1], l.got[2], l.got[3])
}

// readBounded reads the file p, of at most maxFileBytes.
func readBounded(p string) ([]byte, error) {
	f, err := os.Open(p) //nolint:gosec // The path is the operator's flag.
	if err != nil {
		return nil, errors.Wrapf(err, errReadFmt, p)
	}
	defer func() { _ = f.Close() }()
	var b bytes.Buffer
	if _, err := io.Copy(&b, io.LimitReader(f, maxFileBytes+1)); err != nil {
		return nil, errors.Wrapf(err, errReadFmt, p)
	}
	if b.Len() > maxFileBytes {
		return nil, errors.Errorf(errTooLargeFmt, p, maxFileBytes)
	}
	return b.Bytes(), nil
}

// secretLoader reads a Secret: version gets it, load parses what version
// got.
type secretLoader struct {
	c   client.Reader
	nn  types.NamespacedName
	got *corev1.Secret
}

func (s *secretLoader) version(ctx context.Context) (string, error) {
	sec := &corev1.Secret{}
	if err := s.c.Get(ctx, s.nn, sec); err != nil {
		err = errors.Wrapf(err, errGetSecretFmt, s.nn)
		// Deleted, or no longer the provider's to read: either way what
		// it held is no longer known to be in force.
		if apierrors.IsNotFound(err) || apierrors.IsForbidden(err) {
			return "", goneError{err: err}
		}
		return "", err
	}
	s.got = sec
	return sec.GetResourceVersion(), nil
}

func (s *secretLoader) load(context.Context) (Credentials, error) {
	return fromSecret(s.got, s.nn)
}
