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
	"crypto/x509"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/alecthomas/kingpin/v2"
	"github.com/crossplane/crossplane-runtime/v2/pkg/errors"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"

	"github.com/crossplane-contrib/provider-git/internal/reconciler/options"
)

// What Crossplane gives a provider's pod: the Service named after the
// provider (its "webhook" port), the serving certificate it issues, and the
// ProviderRevision the pod runs.
const (
	envProvider     = "PROVIDER_NAME"
	envNamespace    = "POD_NAMESPACE"
	envCertsDir     = "TLS_SERVER_CERTS_DIR"
	envRevisionName = "REVISION_NAME"
	envRevisionUID  = "REVISION_UID"
	crossplanePort  = 9443
)

// webhookConfigFlags say which ValidatingWebhookConfiguration of attribution
// the provider keeps, and how the API server reaches its admission webhook.
type webhookConfigFlags struct {
	name, service, url, path, ca *string
}

func webhookConfigFlagsOf(app *kingpin.Application) webhookConfigFlags {
	return webhookConfigFlags{
		name:    app.Flag("admission-webhook-configuration", "Keep a ValidatingWebhookConfiguration of this name in step with the Mirrors whose attribution is Admission or Auto: their kinds, in the versions they read, in the namespaces they are granted; deleted when none wants it. Empty: none is kept (write your own).").Default("").String(),
		service: app.Flag("admission-webhook-service", "namespace/name:port of the Service in front of --admission-webhook-bind-address, for the kept configuration. Default in a Crossplane install: the provider's own Service, $POD_NAMESPACE/$PROVIDER_NAME:9443.").Default("").String(),
		url:     app.Flag("admission-webhook-url", "https:// URL the API server reaches the admission webhook at, instead of --admission-webhook-service.").Default("").String(),
		path:    app.Flag("admission-webhook-path", "The only path the admission webhook reads reviews at, and the kept configuration's. Default: with --admission-webhook-configuration, a secret derived from the serving key (only who can read the configuration knows it); else any path.").Default("").String(),
		ca:      app.Flag("admission-webhook-ca-bundle-file", "CA (PEM) that signs the admission webhook's serving certificate, the kept configuration's caBundle. Default in a Crossplane install: $TLS_SERVER_CERTS_DIR/ca.crt.").Default("").String(),
	}
}

// attributionWebhook is the configuration f asks the Mirror controller to
// keep, calling the webhook at path, reading what Crossplane gives a
// provider's pod through env; nil when none is asked for.
func attributionWebhook(f webhookConfigFlags, admissionAddr, path string, env func(string) string) (*options.AttributionWebhook, error) {
	if *f.name == "" {
		return nil, nil
	}
	if admissionAddr == "" {
		return nil, errors.New("--admission-webhook-configuration needs --admission-webhook-bind-address: the configuration would point at nothing")
	}
	caFile := *f.ca
	if caFile == "" && env(envCertsDir) != "" {
		caFile = filepath.Join(env(envCertsDir), "ca.crt")
	}
	if caFile == "" {
		return nil, errors.New("--admission-webhook-configuration needs --admission-webhook-ca-bundle-file (or Crossplane's $TLS_SERVER_CERTS_DIR)")
	}
	ca, err := os.ReadFile(filepath.Clean(caFile))
	if err != nil {
		return nil, errors.Wrap(err, "cannot read the admission webhook's CA bundle")
	}
	if !x509.NewCertPool().AppendCertsFromPEM(ca) {
		return nil, errors.Errorf("%s holds no PEM certificate", caFile)
	}
	cc := admissionregistrationv1.WebhookClientConfig{CABundle: ca}
	switch {
	case *f.url != "":
		u, err := url.Parse(*f.url)
		if err != nil || u.Scheme != "https" || u.Host == "" {
			return nil, errors.Errorf("--admission-webhook-url must be an https:// URL, not %q", *f.url)
		}
		u.Path, u.RawPath = path, ""
		cc.URL = ptr.To(u.String())
	default:
		svc, err := serviceRef(*f.service, env)
		if err != nil {
			return nil, err
		}
		svc.Path = ptr.To(path)
		cc.Service = svc
	}
	h := &options.AttributionWebhook{Name: *f.name, ClientConfig: cc}
	if name, uid := env(envRevisionName), env(envRevisionUID); name != "" && uid != "" {
		// Owned by the ProviderRevision, it goes when the provider does.
		h.Owner = &metav1.OwnerReference{APIVersion: "pkg.crossplane.io/v1", Kind: "ProviderRevision", Name: name, UID: types.UID(uid)}
	}
	return h, nil
}

// serviceRef parses namespace/name:port, defaulting to the Service
// Crossplane makes for the provider.
func serviceRef(s string, env func(string) string) (*admissionregistrationv1.ServiceReference, error) {
	if s == "" {
		if env(envProvider) == "" || env(envNamespace) == "" {
			return nil, errors.New("--admission-webhook-configuration needs --admission-webhook-service or --admission-webhook-url outside a Crossplane install")
		}
		return &admissionregistrationv1.ServiceReference{Namespace: env(envNamespace), Name: env(envProvider), Port: ptr.To[int32](crossplanePort)}, nil
	}
	nsName, port, _ := strings.Cut(s, ":")
	ns, name, ok := strings.Cut(nsName, "/")
	p, err := strconv.ParseInt(port, 10, 32)
	if !ok || ns == "" || name == "" || err != nil || p < 1 || p > 65535 {
		return nil, errors.Errorf("--admission-webhook-service must be namespace/name:port, not %q", s)
	}
	return &admissionregistrationv1.ServiceReference{Namespace: ns, Name: name, Port: ptr.To(int32(p))}, nil
}
