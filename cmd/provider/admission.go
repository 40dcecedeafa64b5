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
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/alecthomas/kingpin/v2"
	"github.com/crossplane/crossplane-runtime/v2/pkg/errors"
	"github.com/crossplane/crossplane-runtime/v2/pkg/logging"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/metrics"

	"github.com/crossplane-contrib/provider-git/internal/admission"
	"github.com/crossplane-contrib/provider-git/internal/audit"
)

// admissionFlags are the admission webhook's flags (Mirrors with
// attribution Admission or Auto).
type admissionFlags struct {
	addr, cert, key, ca, token, names *string
	reload, maxAge                    *time.Duration
	maxFacts                          *int
	maxBytes                          *int64
}

// admissionFlagsOf registers the admission webhook's flags on app.
func admissionFlagsOf(app *kingpin.Application) admissionFlags {
	return admissionFlags{
		addr:     app.Flag("admission-webhook-bind-address", "The address the validating admission webhook binds to, for Mirrors with attribution: Admission or Auto (empty: off). It always allows; a ValidatingWebhookConfiguration with failurePolicy Ignore points the API server at it.").Default("").String(),
		cert:     app.Flag("admission-webhook-cert-file", "The admission webhook's serving certificate (PEM), read again when it changes. Default in a Crossplane install (with --admission-webhook-key-file unset too): $TLS_SERVER_CERTS_DIR/tls.crt, the certificate Crossplane issues for the provider's Service.").Default("").String(),
		key:      app.Flag("admission-webhook-key-file", "The admission webhook's serving key (PEM). Default in a Crossplane install: $TLS_SERVER_CERTS_DIR/tls.key.").Default("").String(),
		ca:       app.Flag("admission-webhook-client-ca-file", "CA (PEM) that signs the API server's client certificate for webhooks (its --admission-control-config-file). With it, or --admission-webhook-token-file, a review from any other client is allowed and kept nowhere.").Default("").String(),
		token:    app.Flag("admission-webhook-token-file", "File holding the bearer token the API server sends to webhooks, as --admission-webhook-client-ca-file.").Default("").String(),
		names:    app.Flag("admission-webhook-allowed-names", "Comma-separated client certificate common names the admission webhook keeps facts from; empty: any certificate the client CA signed.").Default("").String(),
		reload:   app.Flag("admission-webhook-reload-interval", "How often, at most, the admission webhook looks at its certificate, key, client CA and token files again. At least 1s.").Default("10s").Duration(),
		maxFacts: app.Flag("admission-store-max-facts", "Bound of the admission facts kept in memory for attribution; past it the namespace holding the most facts loses its oldest (provider_git_admission_facts_dropped_total).").Default("10000").Int(),
		maxBytes: app.Flag("admission-store-max-bytes", "Bound of the admission facts' estimated size in memory, whatever the reviews held; past it the namespace holding the most bytes loses its oldest fact.").Default("16777216").Int64(),
		maxAge:   app.Flag("admission-store-max-age", "How long an admission fact is kept at most.").Default("5m").Duration(),
	}
}

// startAdmission adds the admission webhook to mgr when its address is set
// and returns the Store Mirrors join; nil when it is off.
func startAdmission(ctx context.Context, mgr ctrl.Manager, log logging.Logger, f admissionFlags, path string) (*admission.Store, error) {
	if *f.addr == "" {
		return nil, nil
	}
	if *f.reload < audit.MinReloadInterval {
		return nil, errors.Errorf("--admission-webhook-reload-interval must be at least %s, not %s", audit.MinReloadInterval, *f.reload)
	}
	if *f.cert == "" || *f.key == "" {
		return nil, errors.New("--admission-webhook-bind-address needs --admission-webhook-cert-file and --admission-webhook-key-file")
	}
	m := admission.NewMetrics()
	if err := m.Register(metrics.Registry); err != nil {
		return nil, errors.Wrap(err, "cannot register the admission metrics")
	}
	l := log.WithValues("component", "admission-webhook")
	creds, err := audit.ReloadFiles(ctx, audit.Files{Cert: *f.cert, Key: *f.key, CA: *f.ca, Token: *f.token},
		audit.WithReloadInterval(*f.reload), audit.WithReloadLogger(l), audit.WithOptionalClientAuth("admission webhook"))
	if err != nil {
		return nil, err
	}
	store := admission.NewStore(admission.WithMaxFacts(*f.maxFacts), admission.WithMaxBytes(*f.maxBytes), admission.WithMaxAge(*f.maxAge), admission.WithMetrics(m))
	srv, err := admission.NewServer(*f.addr, store, creds, admission.WithServerMetrics(m), admission.WithLogger(l),
		admission.WithAllowedNames(strings.Split(*f.names, ",")...), admission.WithPath(path))
	if err != nil {
		return nil, err
	}
	if err := mgr.Add(srv); err != nil {
		return nil, errors.Wrap(err, "cannot add the admission webhook to the manager")
	}
	log.Info("Serving the admission webhook", "address", *f.addr, "client-authentication", *f.ca != "" || *f.token != "")
	return store, nil
}

// checkAdmissionReplicas refuses the admission webhook where more than one
// replica may run: the API server sends each review to one of them, each
// keeps its own facts, and a replica joining a change with part of them
// could name a write that did not persist as its author (two users storing
// the same content against one version, one refused later, seen apart).
func checkAdmissionReplicas(addr string, shareRepos, leaderElection bool) error {
	switch {
	case addr == "":
		return nil
	case shareRepos:
		return errors.New("--admission-webhook-bind-address needs one replica, and --share-repositories runs several: each would keep only the reviews sent to it")
	case leaderElection:
		return errors.New("--admission-webhook-bind-address needs one replica, and --leader-election is for several: a standby would keep the reviews sent to it, which the leader never sees")
	}
	return nil
}

// crossplaneCertificate defaults the webhook's certificate and key to those
// Crossplane issues for the provider's Service (renewed in place), when
// neither is set and env has Crossplane's directory.
func crossplaneCertificate(f admissionFlags, env func(string) string) {
	if dir := env(envCertsDir); dir != "" && *f.cert == "" && *f.key == "" {
		*f.cert, *f.key = filepath.Join(dir, "tls.crt"), filepath.Join(dir, "tls.key")
	}
}

// pathLabel is what the webhook's secret path is derived under.
const pathLabel = "provider-git admission webhook path"

// admissionPath is the one path the webhook reads reviews at: explicit
// when set; else, when the provider keeps the webhook configuration, a
// secret derived from the serving key (stable across restarts and
// replicas of one key), so that only who can read the configuration can
// send a review it keeps; else any path.
func admissionPath(explicit, keyFile string, keep bool) (string, error) {
	switch {
	case explicit != "":
		if !strings.HasPrefix(explicit, "/") {
			return "", errors.Errorf("--admission-webhook-path must start with /, not %q", explicit)
		}
		return explicit, nil
	case !keep:
		return "", nil
	}
	key, err := os.ReadFile(filepath.Clean(keyFile))
	if err != nil {
		return "", errors.Wrap(err, "cannot read the admission webhook's key to derive its path")
	}
	mac := hmac.New(sha256.New, key)
	mac.Write([]byte(pathLabel))
	return "/attribution/" + hex.EncodeToString(mac.Sum(nil)[:16]), nil
}
