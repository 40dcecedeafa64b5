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

package attribution_test

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	kerrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/crossplane-contrib/provider-git/apis/v1alpha1"
	"github.com/crossplane-contrib/provider-git/internal/reconciler/options"
	"github.com/crossplane-contrib/provider-git/internal/testharness/e2e"
	"github.com/crossplane-contrib/provider-git/internal/testharness/testenv"
)

// roundTripper counts the provider's writes of ValidatingWebhookConfigurations.
type roundTripper struct {
	next   http.RoundTripper
	writes *atomic.Int64
}

func (r roundTripper) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Method != http.MethodGet && strings.Contains(req.URL.Path, "/validatingwebhookconfigurations") {
		r.writes.Add(1)
	}
	return r.next.RoundTrip(req)
}

// TestAttributionWebhookKept: the provider keeps the ValidatingWebhookConfiguration
// of attribution itself. A Mirror with attribution Admission makes the real
// API server call the webhook for the Mirror's kind in the Mirror's
// namespace, and not in another; a second Mirror asking for the same
// thing writes nothing; a Mirror asking for another namespace without a
// grant adds nothing; one asking for more changes it once; the last
// deleted deletes it. Every write is one the Mirrors asked for: a
// configuration that read back differently from what the keeper wants
// (a field the API server defaults) would be written again and again.
func TestAttributionWebhookKept(t *testing.T) {
	f := e2e.NewFixture(t)
	ns := f.Namespace
	other := e2e.NewFixture(t).Namespace
	name := "attribution-" + ns
	var writes atomic.Int64
	e2e.StartProvider(t, "", e2e.WithAdmission(admitted),
		e2e.WithTransport(func(next http.RoundTripper) http.RoundTripper { return roundTripper{next: next, writes: &writes} }),
		e2e.WithAttributionWebhook(options.AttributionWebhook{Name: name, ClientConfig: admissionregistrationv1.WebhookClientConfig{URL: &webhook, CABundle: webhookCA}}))

	m := admissionMirror(ns)
	e2e.Create(t, m)
	waitHooked(t, name, map[string][]string{ns: {"v1/configmaps"}, other: nil})

	// The API server takes the configuration up from its own watch: write
	// until the webhook is called for ns. A write returns after its
	// validating webhooks were called, so the other namespace's write
	// after it shows at once whether the webhook saw it.
	probe := e2e.ConfigMap(ns, "kept-probe", nil, map[string]string{"n": "0"})
	e2e.Create(t, probe)
	i := 0
	testenv.Eventually(t, 30*time.Second, func() error {
		i++
		probe.Data["n"] = fmt.Sprint(i)
		if err := e2e.CP.Client.Update(context.Background(), probe); err != nil {
			return err
		}
		if len(admitted.Of(string(probe.UID), time.Time{})) == 0 {
			return fmt.Errorf("the API server has not called the kept webhook for %s yet", ns)
		}
		return nil
	})
	elsewhere := e2e.ConfigMap(other, "kept-probe", nil, map[string]string{"n": "0"})
	e2e.Create(t, elsewhere)
	if fs := admitted.Of(string(elsewhere.UID), time.Time{}); len(fs) != 0 {
		t.Errorf("the webhook saw a write in %s, which no Mirror reads: %+v", other, fs)
	}

	// The same ask again, and an ask for a namespace no grant allows:
	// nothing to write. A Mirror asking for Deployments too then makes
	// one write; had either of the first two made one, the count shows it.
	same := admissionMirror(ns)
	same.SetName("same")
	e2e.Create(t, same)
	refused := admissionMirror(ns)
	refused.SetName("refused")
	refused.Spec.ForProvider.SourceNamespaces = []string{other}
	e2e.Create(t, refused)
	more := admissionMirror(ns)
	more.SetName("more")
	more.Spec.ForProvider.Resources = append(more.Spec.ForProvider.Resources, v1alpha1.MirrorResource{APIVersion: "apps/v1", Kind: "Deployment"})
	e2e.Create(t, more)
	waitHooked(t, name, map[string][]string{ns: {"apps/v1/deployments", "v1/configmaps"}, other: nil})
	if got := writes.Load(); got != 2 {
		t.Errorf("the configuration was written %d times, want 2 (created, then Deployments added)", got)
	}

	for _, o := range []client.Object{m, same, refused, more} {
		if err := e2e.CP.Client.Delete(context.Background(), o); err != nil {
			t.Fatal(err)
		}
	}
	testenv.Eventually(t, time.Minute, func() error {
		err := e2e.CP.Client.Get(context.Background(), client.ObjectKey{Name: name}, &admissionregistrationv1.ValidatingWebhookConfiguration{})
		if kerrors.IsNotFound(err) {
			return nil
		}
		return fmt.Errorf("the configuration is still there with no Mirror wanting it (%w)", err)
	})
}

// waitHooked waits until the configuration name shows the webhook exactly
// the resources want names per namespace ("group/version/resource", the
// core group's as "v1/resource"; none for a namespace it must not see),
// each webhook never refusing.
func waitHooked(t *testing.T, name string, want map[string][]string) {
	t.Helper()
	testenv.Eventually(t, time.Minute, func() error {
		vwc := &admissionregistrationv1.ValidatingWebhookConfiguration{}
		if err := e2e.CP.Client.Get(context.Background(), client.ObjectKey{Name: name}, vwc); err != nil {
			return err
		}
		got := map[string][]string{}
		for _, h := range vwc.Webhooks {
			if ptr.Deref(h.FailurePolicy, "") != admissionregistrationv1.Ignore || ptr.Deref(h.SideEffects, "") != admissionregistrationv1.SideEffectClassNone {
				t.Fatalf("webhook %s may refuse or has side effects: %+v", h.Name, h)
			}
			var nss []string
			if h.NamespaceSelector != nil {
				for _, e := range h.NamespaceSelector.MatchExpressions {
					if e.Key == corev1.LabelMetadataName && e.Operator == metav1.LabelSelectorOpIn {
						nss = e.Values
					}
				}
			}
			for _, r := range h.Rules {
				for _, res := range r.Resources {
					gvr := strings.TrimPrefix(strings.Join([]string{r.APIGroups[0], r.APIVersions[0], res}, "/"), "/")
					for _, n := range nss {
						got[n] = append(got[n], gvr)
					}
				}
			}
		}
		for n := range got {
			slices.Sort(got[n])
		}
		for n, rs := range want {
			if !slices.Equal(got[n], rs) {
				return fmt.Errorf("the configuration shows %s %v, want %v", n, got[n], rs)
			}
		}
		return nil
	})
}
