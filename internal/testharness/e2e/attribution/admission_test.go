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

	"github.com/google/go-cmp/cmp"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	kerrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/util/retry"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/crossplane-contrib/provider-git/apis/v1alpha1"
	"github.com/crossplane-contrib/provider-git/internal/admission"
	"github.com/crossplane-contrib/provider-git/internal/attribution"
	mirrorcontroller "github.com/crossplane-contrib/provider-git/internal/controller/mirror"
	"github.com/crossplane-contrib/provider-git/internal/testharness/e2e"
	"github.com/crossplane-contrib/provider-git/internal/testharness/testenv"
)

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
func webhookFor(t *testing.T, ns, value, url string, calls func() bool) {
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
func admittedProbe(t *testing.T, ns string) func() bool {
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

// TestAdmissionTellsTwoUsersApart: alice and bob edit one ConfigMap inside
// one wait, bob against alice's version. Each commit that records the
// file is authored by the user whose write made what it holds (alice's
// content by alice, bob's by bob), Attributed-By: admission, and the last
// is bob's: told apart exactly, not by arrival order.
func TestAdmissionTellsTwoUsersApart(t *testing.T) {
	f := e2e.NewFixture(t)
	ns := f.Namespace
	webhookFor(t, ns, "on", webhook, admittedProbe(t, ns))
	e2e.StartProvider(t, "", e2e.WithAudit(store, wait), e2e.WithAdmission(admitted))
	m := admissionMirror(ns)
	e2e.Create(t, m)
	e2e.WaitFor(t, time.Minute, m, e2e.ReadyAndCurrent(t, m))
	cm := e2e.ConfigMap(ns, "a", map[string]string{"mirror": "yes"}, map[string]string{"k": "0"})
	e2e.Create(t, cm)
	file := e2e.ObjPath(ns, "core", "configmap", "a")
	f.WaitMirrored(t, map[string]string{file: e2e.Rendered(t, cm)})
	e2e.WritesLanded(t)
	before := f.Repo.Head(t, "main")

	edit(t, userClient(t, "alice"), ns, "a", "k", "alice")
	edit(t, userClient(t, "bob"), ns, "a", "k", "bob")
	final := e2e.Rendered(t, cm)
	f.WaitMirrored(t, map[string]string{file: final})
	e2e.WritesLanded(t)

	got := fileCommits(t, f, before, file)
	if len(got) == 0 {
		t.Fatal("no commit recorded the edits")
	}
	for i, c := range got {
		want := attributedCommit{By: attribution.ByAdmission, Content: c.Content}
		switch {
		case strings.Contains(c.Content, "k: alice"):
			want.Author = "alice"
		case strings.Contains(c.Content, "k: bob"):
			want.Author = "bob"
		default:
			t.Fatalf("commit %d holds neither edit:\n%s", i, c.Content)
		}
		if diff := cmp.Diff(want, c); diff != "" {
			t.Errorf("commit %d of the file: -want, +got:\n%s", i, diff)
		}
	}
	if last := got[len(got)-1]; last.Content != final {
		t.Errorf("the last commit holds\n%s\nwant what is live:\n%s", last.Content, final)
	}
	e2e.WaitFor(t, 30*time.Second, m, func() error {
		if c := m.GetCondition(mirrorcontroller.TypeAttribution); c.Status != corev1.ConditionTrue || c.Reason != mirrorcontroller.ReasonAdmissionReceived {
			return fmt.Errorf("condition Attribution is %s %s (%s), want True AdmissionReceived", c.Status, c.Reason, c.Message)
		}
		return nil
	})
}

// TestAdmissionRefusedWriteAuthorsNothing: mallory's update of a
// ConfigMap is held in admission while alice's update against the same
// version persists; let go, it is admitted (the webhook keeps its fact,
// the last of the object's) and then refused with a conflict on its stale
// resourceVersion. The commit of the object is alice's, and none names
// mallory: a join by arrival order would name her.
func TestAdmissionRefusedWriteAuthorsNothing(t *testing.T) {
	f := e2e.NewFixture(t)
	ns := f.Namespace
	webhookFor(t, ns, "on", webhook, admittedProbe(t, ns))
	e2e.StartProvider(t, "", e2e.WithAudit(store, wait), e2e.WithAdmission(admitted))
	m := admissionMirror(ns)
	e2e.Create(t, m)
	e2e.WaitFor(t, time.Minute, m, e2e.ReadyAndCurrent(t, m))
	cm := e2e.ConfigMap(ns, "c", map[string]string{"mirror": "yes"}, map[string]string{"k": "0"})
	e2e.Create(t, cm)
	file := e2e.ObjPath(ns, "core", "configmap", "c")
	f.WaitMirrored(t, map[string]string{file: e2e.Rendered(t, cm)})
	e2e.WritesLanded(t)
	before := f.Repo.Head(t, "main")

	ctx := context.Background()
	stale := &corev1.ConfigMap{}
	if err := e2e.CP.Client.Get(ctx, client.ObjectKeyFromObject(cm), stale); err != nil {
		t.Fatal(err)
	}
	held, release := gate.hold("mallory")
	defer release()
	refused := make(chan error, 1)
	go func() {
		w := stale.DeepCopy()
		w.Data["k"] = "mallory"
		refused <- userClient(t, "mallory").Update(ctx, w)
	}()
	select {
	case <-held:
	case err := <-refused:
		t.Fatalf("mallory's update returned before admission held it: %v", err)
	}
	ok := stale.DeepCopy()
	ok.Data["k"] = "alice"
	if err := userClient(t, "alice").Update(ctx, ok); err != nil {
		t.Fatalf("alice's update against the same version: %v", err)
	}
	release()
	if err := <-refused; !kerrors.IsConflict(err) {
		t.Fatalf("mallory's update: %v, want a conflict on its stale resourceVersion", err)
	}
	if got := admitted.Of(string(stale.UID), time.Time{}); !hasUser(got, "mallory") {
		t.Fatalf("the webhook kept no fact of mallory's write (%d facts): the test proves nothing", len(got))
	}
	final := e2e.Rendered(t, cm)
	f.WaitMirrored(t, map[string]string{file: final})
	e2e.WritesLanded(t)
	want := []attributedCommit{{Author: "alice", By: attribution.ByAdmission, Content: final}}
	if diff := cmp.Diff(want, fileCommits(t, f, before, file)); diff != "" {
		t.Errorf("commits of the file: -want, +got:\n%s", diff)
	}
}

func hasUser(fs []admission.Fact, user string) bool {
	for _, f := range fs {
		if f.User.Username == user {
			return true
		}
	}
	return false
}

// TestAdmittedIsStored: the object validating admission sees is the one
// stored, but for metadata.resourceVersion (the claim the exact join
// rests on: it runs after the strategy's PrepareForUpdate).
func TestAdmittedIsStored(t *testing.T) {
	f := e2e.NewFixture(t)
	ns := f.Namespace
	webhookFor(t, ns, "on", webhook, admittedProbe(t, ns))
	cm := e2e.ConfigMap(ns, "s", nil, map[string]string{"k": "0"})
	e2e.Create(t, cm)
	edit(t, userClient(t, "erin"), ns, "s", "k", "erin")
	objs := gate.objects("erin")
	if len(objs) == 0 {
		t.Fatal("the webhook saw no write of erin's")
	}
	raw := rawGet(t, "/api/v1/namespaces/"+ns+"/configmaps/s")
	strip := func(b []byte) map[string]any {
		var m map[string]any
		if err := json.Unmarshal(b, &m); err != nil {
			t.Fatal(err)
		}
		delete(m["metadata"].(map[string]any), "resourceVersion")
		return m
	}
	if diff := cmp.Diff(strip(raw), strip(objs[len(objs)-1])); diff != "" {
		t.Errorf("admitted object minus resourceVersion, against the stored one: -stored, +admitted:\n%s", diff)
	}
}

// TestAdmissionWebhookStopped: with the webhook down (its configuration
// points at a port nobody serves), a write succeeds (failurePolicy Ignore)
// and the Mirror goes on mirroring: the change is authored unresolved, and
// its Attribution condition, not part of Ready, says the webhook saw no
// write of it.
func TestAdmissionWebhookStopped(t *testing.T) {
	f := e2e.NewFixture(t)
	ns := f.Namespace
	dead := httptest.NewTLSServer(http.NotFoundHandler())
	url := dead.URL + "/admit"
	dead.Close()
	webhookFor(t, ns, "stopped", url, func() bool { return failedOpen(t, webhookName(ns)) })
	e2e.StartProvider(t, "", e2e.WithAudit(store, wait), e2e.WithAdmission(admitted))
	m := admissionMirror(ns)
	e2e.Create(t, m)
	e2e.WaitFor(t, time.Minute, m, e2e.ReadyAndCurrent(t, m))
	before := f.Repo.Head(t, "main")
	cm := e2e.ConfigMap(ns, "d", map[string]string{"mirror": "yes"}, map[string]string{"k": "0"})
	if err := userClient(t, "alice").Create(context.Background(), cm); err != nil {
		t.Fatalf("a write with the webhook down: %v, want it to succeed", err)
	}
	file := e2e.ObjPath(ns, "core", "configmap", "d")
	final := e2e.Rendered(t, cm)
	f.WaitMirrored(t, map[string]string{file: final})
	e2e.WritesLanded(t)
	want := []attributedCommit{{Author: attribution.UnresolvedName, By: attribution.ByUnresolved, Content: final}}
	if diff := cmp.Diff(want, fileCommits(t, f, before, file)); diff != "" {
		t.Errorf("commits of the file: -want, +got:\n%s", diff)
	}
	e2e.WaitFor(t, 30*time.Second, m, func() error {
		c := m.GetCondition(mirrorcontroller.TypeAttribution)
		if c.Status != corev1.ConditionFalse || c.Reason != mirrorcontroller.ReasonAdmissionNotReceived || !strings.Contains(c.Message, ns+"/d") {
			return fmt.Errorf("condition Attribution is %s %s (%s), want False AdmissionNotReceived naming %s/d", c.Status, c.Reason, c.Message, ns)
		}
		return e2e.ReadyAndCurrent(t, m)()
	})
}

// failedOpen reports whether the API server counted a call of the webhook
// configuration name that failed and was let through (failurePolicy
// Ignore): apiserver_admission_webhook_fail_open_count.
func failedOpen(t *testing.T, name string) bool {
	for line := range strings.SplitSeq(string(rawGet(t, "/metrics")), "\n") {
		if strings.HasPrefix(line, "apiserver_admission_webhook_fail_open_count{") && strings.Contains(line, `name="`+name+`"`) && !strings.HasSuffix(line, " 0") {
			return true
		}
	}
	return false
}

// rawGet is the body of a GET of path from the API server, as the
// administrator.
func rawGet(t *testing.T, path string) []byte {
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

// TestAutoBesideAudit: audit events and admission reviews of one cluster
// at once. A Mirror with attribution Auto and one with Audit, in folders of
// their own, mirror the same ConfigMaps; alice and bob each edit one. Both
// Mirrors name the same author for each change, the Auto one from
// admission and the Audit one from audit events, and each records each
// change in exactly one commit: none authored twice.
func TestAutoBesideAudit(t *testing.T) {
	f := e2e.NewFixture(t)
	ns := f.Namespace
	webhookFor(t, ns, "on", webhook, admittedProbe(t, ns))
	e2e.StartProvider(t, "", e2e.WithAudit(store, wait), e2e.WithAdmission(admitted))
	auto := admissionMirror(ns)
	auto.Spec.ForProvider.Attribution = v1alpha1.MirrorAttributionAuto
	audited := admissionMirror(ns)
	audited.Name, audited.Spec.ForProvider.Path, audited.Spec.ForProvider.Attribution = "audited", "audited", v1alpha1.MirrorAttributionAudit
	for _, m := range []*v1alpha1.Mirror{auto, audited} {
		e2e.Create(t, m)
		e2e.WaitFor(t, time.Minute, m, e2e.ReadyAndCurrent(t, m))
	}
	want := map[string]string{}
	for _, n := range []string{"a", "b"} {
		cm := e2e.ConfigMap(ns, n, map[string]string{"mirror": "yes"}, map[string]string{"k": "0"})
		e2e.Create(t, cm)
		want[e2e.ObjPath(ns, "core", "configmap", n)] = e2e.Rendered(t, cm)
	}
	f.WaitMirrored(t, want)
	e2e.WritesLanded(t)
	before := f.Repo.Head(t, "main")

	authors := map[string]string{"a": "alice", "b": "bob"}
	for n, u := range authors {
		edit(t, userClient(t, u), ns, n, "k", u)
		want[e2e.ObjPath(ns, "core", "configmap", n)] = e2e.Rendered(t, e2e.ConfigMap(ns, n, nil, nil))
	}
	f.WaitMirrored(t, want)
	inAudited := func(n string) string {
		return "audited/" + strings.TrimPrefix(e2e.ObjPath(ns, "core", "configmap", n), e2e.MirrorFolder+"/")
	}
	testenv.Eventually(t, 30*time.Second, func() error {
		for n, u := range authors {
			if got := fileCommits(t, f, before, inAudited(n)); len(got) == 0 || !strings.Contains(got[len(got)-1].Content, "k: "+u) {
				return fmt.Errorf("the Audit Mirror has not recorded %s's edit of %s yet", u, n)
			}
		}
		return nil
	})
	e2e.WritesLanded(t)
	for n, u := range authors {
		file := e2e.ObjPath(ns, "core", "configmap", n)
		content := want[file]
		if diff := cmp.Diff([]attributedCommit{{Author: u, By: attribution.ByAdmission, Content: content}}, fileCommits(t, f, before, file)); diff != "" {
			t.Errorf("the Auto Mirror's commits of %s: -want, +got:\n%s", n, diff)
		}
		if diff := cmp.Diff([]attributedCommit{{Author: u, By: attribution.ByAudit, Content: content}}, fileCommits(t, f, before, inAudited(n))); diff != "" {
			t.Errorf("the Audit Mirror's commits of %s: -want, +got:\n%s", n, diff)
		}
	}
}

// TestAdmissionIgnoredUsers: a Mirror with attribution Admission that
// ignores Flux's ServiceAccount, as admission names it (no audit event is
// joined), commits nothing of what Flux alone creates or changes; a
// person's edit of Flux's object is one commit, authored by them.
func TestAdmissionIgnoredUsers(t *testing.T) {
	flux := "system:serviceaccount:flux-system:kustomize-controller"
	f := e2e.NewFixture(t)
	ns := f.Namespace
	webhookFor(t, ns, "on", webhook, admittedProbe(t, ns))
	e2e.StartProvider(t, "", e2e.WithAudit(store, wait), e2e.WithAdmission(admitted))
	m := admissionMirror(ns)
	m.Spec.ForProvider.Ignore = &v1alpha1.MirrorIgnore{Users: []string{flux}}
	e2e.Create(t, m)
	e2e.WaitFor(t, time.Minute, m, e2e.ReadyAndCurrent(t, m))
	before := f.Repo.Head(t, "main")

	fluxClient, alice := impersonating(t, flux), userClient(t, "alice")
	app := e2e.ConfigMap(ns, "app", map[string]string{"mirror": "yes"}, map[string]string{"image": "web:1"})
	if err := fluxClient.Create(context.Background(), app); err != nil {
		t.Fatal(err)
	}
	canary := e2e.ConfigMap(ns, "canary", map[string]string{"mirror": "yes"}, map[string]string{"n": "0"})
	if err := alice.Create(context.Background(), canary); err != nil {
		t.Fatal(err)
	}
	canaryFile, appFile := e2e.ObjPath(ns, "core", "configmap", "canary"), e2e.ObjPath(ns, "core", "configmap", "app")
	want := map[string]string{canaryFile: e2e.Rendered(t, canary)}
	f.WaitMirrored(t, want)
	e2e.WritesLanded(t)
	head := f.Repo.Head(t, "main")
	f.Stays(t, m, false, "main", head, "what the ignored user alone created")
	if got := fileCommits(t, f, before, appFile); len(got) != 0 {
		t.Errorf("Flux's own object was committed: %+v", got)
	}

	edit(t, alice, ns, "app", "image", "web:2")
	want[appFile] = e2e.Rendered(t, app)
	f.WaitMirrored(t, want)
	e2e.WritesLanded(t)
	if diff := cmp.Diff([]attributedCommit{{Author: "alice", By: attribution.ByAdmission, Content: want[appFile]}}, fileCommits(t, f, head, appFile)); diff != "" {
		t.Errorf("commits after a person's edit of Flux's object: -want, +got:\n%s", diff)
	}
}
