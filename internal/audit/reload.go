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
	"context"
	"fmt"
	"os"
	"sync"
	"time"

	"github.com/crossplane/crossplane-runtime/v2/pkg/errors"
	"github.com/crossplane/crossplane-runtime/v2/pkg/logging"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/clock"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// DefaultReloadInterval is how often, at most, a Reloading source looks
// at its files or Secret again: a rotation is in force within it.
const DefaultReloadInterval = 10 * time.Second

// reloadTimeout bounds one Get of the credentials' Secret.
const reloadTimeout = 5 * time.Second

const errStatFmt = "cannot stat %s"

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

// loader is where a Reloading source reads: version is a cheap
// fingerprint of what load would read, so that an unchanged source is not
// parsed again.
type loader interface {
	version(ctx context.Context) (string, error)
	load(ctx context.Context) (Credentials, error)
}

// Reloading is a CredentialSource that reads its files or Secret again
// when they change, looking at most every interval of its clock. A
// rotation that does not parse (a certificate written before its key)
// keeps the credentials in force, and is tried again at the next look.
type Reloading struct {
	src      loader
	clock    clock.PassiveClock
	interval time.Duration
	log      logging.Logger

	mu      sync.Mutex
	checked time.Time
	version string
	current Credentials
}

// ReloadOption configures a Reloading source.
type ReloadOption func(*Reloading)

// WithReloadClock makes r look at its source by clk (a fake one in tests).
func WithReloadClock(clk clock.PassiveClock) ReloadOption {
	return func(r *Reloading) { r.clock = clk }
}

// WithReloadInterval sets how often, at most, r looks at its source.
func WithReloadInterval(d time.Duration) ReloadOption {
	return func(r *Reloading) { r.interval = d }
}

// WithReloadLogger logs a rotation taken or refused, never a credential.
func WithReloadLogger(l logging.Logger) ReloadOption {
	return func(r *Reloading) { r.log = l }
}

// ReloadFiles is the credentials of f, read again when a file's
// modification time or size changes (a Secret volume's update swaps the
// files, and changes both). ctx bounds the first read only.
func ReloadFiles(ctx context.Context, f Files, o ...ReloadOption) (*Reloading, error) {
	return newReloading(ctx, fileLoader(f), o)
}

// ReloadSecret is the credentials of the Secret nn, read again when its
// resourceVersion changes; each look is one Get, bounded by a timeout.
func ReloadSecret(ctx context.Context, c client.Reader, nn types.NamespacedName, o ...ReloadOption) (*Reloading, error) {
	return newReloading(ctx, &secretLoader{c: c, nn: nn}, o)
}

func newReloading(ctx context.Context, src loader, o []ReloadOption) (*Reloading, error) {
	r := &Reloading{src: src, clock: clock.RealClock{}, interval: DefaultReloadInterval, log: logging.NewNopLogger()}
	for _, fn := range o {
		fn(r)
	}
	v, err := src.version(ctx)
	if err != nil {
		return nil, err
	}
	c, err := src.load(ctx)
	if err != nil {
		return nil, err
	}
	r.checked, r.version, r.current = r.clock.Now(), v, c
	return r, nil
}

// Current is the credentials in force, looking at the source first when
// the interval has passed since the last look.
func (r *Reloading) Current() Credentials {
	r.mu.Lock()
	defer r.mu.Unlock()
	now := r.clock.Now()
	if now.Sub(r.checked) < r.interval {
		return r.current
	}
	r.checked = now
	ctx, cancel := context.WithTimeout(context.Background(), reloadTimeout)
	defer cancel()
	v, err := r.src.version(ctx)
	if err != nil {
		r.log.Info("Cannot look at the audit endpoint's credentials; keeping those in force", "error", err)
		return r.current
	}
	if v == r.version {
		return r.current
	}
	c, err := r.src.load(ctx)
	if err != nil {
		// Not taken: the version stays, so the next look tries again.
		r.log.Info("The audit endpoint's credentials changed but do not load; keeping those in force", "error", err)
		return r.current
	}
	r.version, r.current = v, c
	r.log.Info("Reloaded the audit endpoint's credentials")
	return r.current
}

// fileLoader reads Files.
type fileLoader Files

func (f fileLoader) version(context.Context) (string, error) {
	v := ""
	for _, p := range []string{f.Cert, f.Key, f.CA, f.Token} {
		if p == "" {
			continue
		}
		fi, err := os.Stat(p)
		if err != nil {
			return "", errors.Wrapf(err, errStatFmt, p)
		}
		v += fmt.Sprintf("%s:%d:%d;", p, fi.ModTime().UnixNano(), fi.Size())
	}
	return v, nil
}

func (f fileLoader) load(context.Context) (Credentials, error) { return FromFiles(Files(f)) }

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
		return "", errors.Wrapf(err, errGetSecretFmt, s.nn)
	}
	s.got = sec
	return sec.GetResourceVersion(), nil
}

func (s *secretLoader) load(context.Context) (Credentials, error) {
	return fromSecret(s.got, s.nn)
}
