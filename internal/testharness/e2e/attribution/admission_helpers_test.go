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
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/util/retry"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/crossplane-contrib/provider-git/apis/v1alpha1"
	"github.com/crossplane-contrib/provider-git/internal/admission"
	"github.com/crossplane-contrib/provider-git/internal/attribution"
	"github.com/crossplane-contrib/provider-git/internal/testharness/e2e"
	"github.com/crossplane-contrib/provider-git/internal/testharness/testenv"
)

// The admission tests' helpers: a gate in front of the webhook, its
// configuration on the API server, and what Git recorded.

// admissionLabel selects the namespaces a test's webhook configuration
// covers: each test labels its own, so the package's other tests' writes
// never reach a webhook they do not expect.
const admissionLabel = "provider-git.test/admission"

// holdGate passes reviews to the admission webhook and, for the user it
// holds, passes the review on only once released: the write waits in
// admission, and its fact arrives after whatever was written meanwhile.
type holdGate struct {
	next http.Handler

	mu      sync.Mutex
	user    string
	held    chan struct{}
	release chan struct{}
	// admitted are the objects admitted, by user, as the webhook got them.
	admitted map[string][]json.RawMessage
}

// hold holds the next review of user; held is closed when it is held, and
// the returned func lets it go.
func (g *holdGate) hold(user string) (held <-chan struct{}, release func()) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.user, g.held, g.release = user, make(chan struct{}), make(chan struct{})
	rel := g.release
	return g.held, sync.OnceFunc(func() { close(rel) })
}

// objects are the objects admitted for user so far.
func (g *holdGate) objects(user string) []json.RawMessage {
	g.mu.Lock()
	defer g.mu.Unlock()
	return append([]json.RawMessage(nil), g.admitted[user]...)
}

func (g *holdGate) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(io.LimitReader(r.Body, admission.DefaultMaxBody))
	var rv struct {
		Request struct {
			UserInfo struct {
				Username string `json:"username"`
			} `json:"userInfo"`
			Object json.RawMessage `json:"object"`
		} `json:"request"`
	}
	_ = json.Unmarshal(body, &rv)
	user := rv.Request.UserInfo.Username
	g.mu.Lock()
	if g.admitted == nil {
		g.admitted = map[string][]json.RawMessage{}
	}
	if len(rv.Request.Object) > 0 {
		g.admitted[user] = append(g.admitted[user], rv.Request.Object)
	}
	var release chan struct{}
	if user != "" && user == g.user {
		close(g.held)
		release, g.user = g.release, ""
	}
	g.mu.Unlock()
	if release != nil {
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}
	r.Body = io.NopCloser(bytes.NewReader(body))
	rec := httptest.NewRecorder()
	g.next.ServeHTTP(rec, r)
	for k, v := range rec.Header() {
		w.Header()[k] = v
	}
	w.WriteHeader(rec.Code)
	_, _ = w.Write(rec.Body.Bytes())
}

// webhookFor registers a validating webhook for the ConfigMaps of
// namespaces labelled admissionLabel=value, calling url, as Crossplane
// would install the provider's: failurePolicy Ignore, sideEffects None,
// two seconds at most. It labels ns and waits until the API server calls
// the webhook for a write there (when calls says so), and deletes the
// configuration when the test ends.
func webhookFor(t testing.TB, ns, value, url string, calls func() bool) {
	t.Helper()
	ctx := context.Background()
	name := webhookName(ns)
	fail, side := admissionregistrationv1.Ignore, admissionregistrationv1.SideEffectClassNone
	equiv := admissionregistrationv1.Equivalent
	vwc := &admissionregistrationv1.ValidatingWebhookConfiguration{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Webhooks: []admissionregistrationv1.ValidatingWebhook{{
			Name:                    name,
			ClientConfig:            admissionregistrationv1.WebhookClientConfig{URL: &url, CABundle: webhookCA},
			Rules:                   []admissionregistrationv1.RuleWithOperations{{Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Create, admissionregistrationv1.Update, admissionregistrationv1.Delete}, Rule: admissionregistrationv1.Rule{APIGroups: []string{""}, APIVersions: []string{"v1"}, Resources: []string{"configmaps"}, Scope: ptr.To(admissionregistrationv1.NamespacedScope)}}},
			NamespaceSelector:       &metav1.LabelSelector{MatchLabels: map[string]string{admissionLabel: value}},
			FailurePolicy:           &fail,
			MatchPolicy:             &equiv,
			SideEffects:             &side,
			TimeoutSeconds:          ptr.To[int32](2),
			AdmissionReviewVersions: []string{"v1"},
		}},
	}
	if err := e2e.CP.Client.Create(ctx, vwc); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = e2e.CP.Client.Delete(context.Background(), vwc) })
	err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		n := &corev1.Namespace{}
		if err := e2e.CP.Client.Get(ctx, client.ObjectKey{Name: ns}, n); err != nil {
			return err
		}
		if n.Labels == nil {
			n.Labels = map[string]string{}
		}
		n.Labels[admissionLabel] = value
		return e2e.CP.Client.Update(ctx, n)
	})
	if err != nil {
		t.Fatal(err)
	}
	// The API server takes a new configuration up from its own watch:
	// write a probe until the webhook is called for it.
	probe := e2e.ConfigMap(ns, "probe", nil, map[string]string{"n": "0"})
	e2e.Create(t, probe)
	i := 0
	testenv.Eventually(t, 30*time.Second, func() error {
		i++
		probe.Data["n"] = fmt.Sprint(i)
		if err := e2e.CP.Client.Update(ctx, probe); err != nil {
			return err
		}
		if !calls() {
			return fmt.Errorf("the API server has not called webhook %s yet", name)
		}
		return nil
	})
}

// webhookName names the webhook configuration of ns and its one webhook.
func webhookName(ns string) string { return ns + ".attribution.git.m.crossplane.io" }

// admittedProbe reports whether the webhook kept a fact of ns's probe.
func admittedProbe(t testing.TB, ns string) func() bool {
	return func() bool {
		p := &corev1.ConfigMap{}
		if err := e2e.CP.Client.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: "probe"}, p); err != nil {
			t.Fatal(err)
		}
		return len(admitted.Of(string(p.UID), time.Time{})) > 1
	}
}

// admissionMirror is a Mirror of ConfigMaps with attribution Admission,
// which leaves the probe out.
func admissionMirror(ns string) *v1alpha1.Mirror {
	return e2e.NewMirror(ns, "m", v1alpha1.MirrorParameters{
		Resources:     []v1alpha1.MirrorResource{{APIVersion: "v1", Kind: "ConfigMap"}},
		Attribution:   v1alpha1.MirrorAttributionAdmission,
		LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"mirror": "yes"}},
	}, e2e.PCRef())
}

// attributedCommit is a commit of one file: its author, its Attributed-By
// trailer, and what the file held there.
type attributedCommit struct {
	Author, By, Content string
}

// fileCommits are the commits after before that touch file (a path in
// the repository), oldest first.
func fileCommits(t *testing.T, f *e2e.Fixture, before, file string) []attributedCommit {
	t.Helper()
	out := f.GitOut(t, "log", "--reverse", "--format=%H%x09%an%x09%(trailers:key="+attribution.TrailerAttributedBy+",valueonly,separator=%x2C)", before+"..main", "--", file)
	var cs []attributedCommit
	for line := range strings.SplitSeq(strings.TrimSpace(out), "\n") {
		if line == "" {
			continue
		}
		p := strings.Split(line, "\t")
		cs = append(cs, attributedCommit{Author: p[1], By: strings.TrimSpace(p[2]), Content: f.GitOut(t, "show", p[0]+":"+file) + "\n"})
	}
	return cs
}

func hasUser(fs []admission.Fact, user string) bool {
	for _, f := range fs {
		if f.User.Username == user {
			return true
		}
	}
	return false
}

// failedOpen reports whether the API server counted a call of the webhook
// configuration name that failed and was let through (failurePolicy
// Ignore): apiserver_admission_webhook_fail_open_count.
func failedOpen(t testing.TB, name string) bool {
	for line := range strings.SplitSeq(string(rawGet(t, "/metrics")), "\n") {
		if strings.HasPrefix(line, "apiserver_admission_webhook_fail_open_count{") && strings.Contains(line, `name="`+name+`"`) && !strings.HasSuffix(line, " 0") {
			return true
		}
	}
	return false
}

// rawGet is the body of a GET of path from the API server, as the
// administrator.
func rawGet(t testing.TB, path string) []byte {
	t.Helper()
	hc, err := rest.HTTPClientFor(e2e.CP.Config)
	if err != nil {
		t.Fatal(err)
	}
	req, err := http.NewRequestWithContext(t.Context(), http.MethodGet, strings.TrimRight(e2e.CP.Config.Host, "/")+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := hc.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = resp.Body.Close() }()
	b, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %d, %v", path, resp.StatusCode, err)
	}
	return b
}

// admissionBed is a fixture whose namespace the API server's webhook
// covers, and a provider joining admission (and audit) facts.
func admissionBed(t *testing.T) (*e2e.Fixture, string) {
	t.Helper()
	f := e2e.NewFixture(t)
	webhookFor(t, f.Namespace, "on", webhook, admittedProbe(t, f.Namespace))
	e2e.StartProvider(t, "", e2e.WithAudit(store, wait), e2e.WithAdmission(admitted))
	return f, f.Namespace
}

// mirroredConfigMap creates the admission Mirror of f's namespace and a
// ConfigMap name it mirrors, waits until Git holds it, and returns the
// Mirror, the ConfigMap, its file and the branch head then.
func mirroredConfigMap(t *testing.T, f *e2e.Fixture, name string) (*v1alpha1.Mirror, *corev1.ConfigMap, string, string) {
	t.Helper()
	m := admissionMirror(f.Namespace)
	e2e.Create(t, m)
	e2e.WaitFor(t, time.Minute, m, e2e.ReadyAndCurrent(t, m))
	cm := e2e.ConfigMap(f.Namespace, name, map[string]string{"mirror": "yes"}, map[string]string{"k": "0"})
	e2e.Create(t, cm)
	file := e2e.ObjPath(f.Namespace, "core", "configmap", name)
	f.WaitMirrored(t, map[string]string{file: e2e.Rendered(t, cm)})
	e2e.WritesLanded(t)
	return m, cm, file, f.Repo.Head(t, "main")
}
