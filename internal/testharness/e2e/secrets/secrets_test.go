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

package secrets_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"
	"github.com/prometheus/client_golang/prometheus"
	"go.uber.org/zap/zapcore"
	corev1 "k8s.io/api/core/v1"
	kmeta "k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"
	ctrlmetrics "sigs.k8s.io/controller-runtime/pkg/metrics"

	"github.com/crossplane-contrib/provider-git/apis/v1alpha1"
	gitcontroller "github.com/crossplane-contrib/provider-git/internal/controller"
	"github.com/crossplane-contrib/provider-git/internal/git"
	"github.com/crossplane-contrib/provider-git/internal/reconciler/spec"
	"github.com/crossplane-contrib/provider-git/internal/testharness/e2e"
	"github.com/crossplane-contrib/provider-git/internal/testharness/testenv"
)

// Distinctive secret values: none of them may appear anywhere the provider
// writes or publishes.
const (
	canaryToken      = "canary-token-Zq8v3NfW"
	canaryWrongPass  = "canary-wrongpass-K2m9Rt"
	canaryQueryToken = "canary-querytoken-P4x7Lc"
	canaryURLPass    = "canary-urlpass-B6n1Hs"
)

// syncBuffer is a log sink many goroutines write to.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// keyLines are the lines of a PEM private key's body: any of them found
// anywhere is the key leaking, however the rest was formatted.
func keyLines(pem []byte) []string {
	var out []string
	for _, l := range strings.Split(string(pem), "\n") {
		if l = strings.TrimSpace(l); len(l) >= 16 && !strings.HasPrefix(l, "-----") {
			out = append(out, l)
		}
	}
	return out
}

// TestSecretsNeverLeak runs the controllers at debug level through a
// success and every credential failure (wrong password, wrong SSH key, host
// key mismatch, a token in the URL, a password in the URL) and searches
// everything the provider writes or publishes for the secrets: its logs,
// the Events, every object's status, the metrics, every Git object of the
// repository and the provider's cache directory. It must find none.
func TestSecretsNeverLeak(t *testing.T) {
	testenv.RequireSSHD(t)
	ctx := context.Background()

	logs := &syncBuffer{}
	zl := zap.New(zap.WriteTo(logs), zap.UseDevMode(true), zap.Level(zapcore.DebugLevel))
	conditions := gitcontroller.NewConditionMetrics()
	gitMetrics := git.NewMetrics()
	reg := prometheus.NewRegistry()
	if err := reg.Register(conditions); err != nil {
		t.Fatal(err)
	}
	if err := gitMetrics.Register(reg); err != nil {
		t.Fatal(err)
	}
	cacheDir := t.TempDir()
	e2e.StartProvider(t, cacheDir, e2e.WithLogger(zl), e2e.WithConditionMetrics(conditions), e2e.WithGitMetrics(gitMetrics))

	srv := testenv.NewHTTPServer(t, e2e.GitRoot, "canary-user", canaryToken)
	ssh := testenv.StartSSHServer(t, e2e.GitRoot)
	f := e2e.NewFixture(t)
	repoName := f.Namespace + "-canary.git"
	repo := testenv.NewBareRepo(t, e2e.GitRoot, repoName, map[string][]testenv.CommitSpec{
		"main": {{Message: "seed", Files: map[string]string{"README.md": "seed\n"}}},
	})

	// A server that echoes a credentialed URL in its refusal.
	repo.SetHook(t, "pre-receive", `while read old new ref; do
  if [ "$ref" = refs/heads/leak/echo ]; then
    echo "refused: use https://canary-user:`+canaryURLPass+`@git.example.org/x.git?private_token=`+canaryQueryToken+` instead" >&2
    exit 1
  fi
done`)

	secrets := map[string]map[string][]byte{
		"https-good":  {"username": []byte("canary-user"), "password": []byte(canaryToken)},
		"https-wrong": {"username": []byte("canary-user"), "password": []byte(canaryWrongPass)},
		"ssh-good":    {"identity": ssh.ClientKeyPEM, "known_hosts": ssh.KnownHosts},
		"ssh-wrong":   {"identity": ssh.OtherKeyPEM, "known_hosts": ssh.KnownHosts},
		"ssh-hostkey": {"identity": ssh.ClientKeyPEM, "known_hosts": ssh.WrongKnownHosts},
	}
	for name, data := range secrets {
		e2e.Create(t, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: f.Namespace, Name: name}, Data: data})
	}
	configs := map[string]struct{ url, secret string }{
		"https-good":  {srv.RepoURL(repoName), "https-good"},
		"https-wrong": {srv.RepoURL(repoName), "https-wrong"},
		// Nothing listens there: the transport's error quotes the URL.
		"https-query": {"http://127.0.0.1:1/" + repoName + "?private_token=" + canaryQueryToken, "https-good"},
		"ssh-good":    {ssh.RepoURL(repoName), "ssh-good"},
		"ssh-wrong":   {ssh.RepoURL(repoName), "ssh-wrong"},
		"ssh-hostkey": {ssh.RepoURL(repoName), "ssh-hostkey"},
	}
	for name, c := range configs {
		e2e.Create(t, &v1alpha1.ProviderConfig{
			ObjectMeta: metav1.ObjectMeta{Namespace: f.Namespace, Name: name},
			Spec: v1alpha1.ProviderConfigSpec{URL: c.url, Credentials: v1alpha1.ProviderCredentials{
				Source: xpv2.CredentialsSourceSecret, SecretRef: &v1alpha1.LocalCredentialsSecretRef{Name: c.secret},
			}},
		})
	}
	// A password in the URL is refused at admission: it never reaches the
	// provider.
	withPassword := &v1alpha1.ProviderConfig{
		ObjectMeta: metav1.ObjectMeta{Namespace: f.Namespace, Name: "url-password"},
		Spec:       v1alpha1.ProviderConfigSpec{URL: testenv.AuthURL(srv.RepoURL(repoName), "canary-user", canaryURLPass)},
	}
	if err := e2e.CP.Client.Create(ctx, withPassword); err == nil {
		t.Errorf("a ProviderConfig whose URL carries a password must be refused at admission")
	}

	// Every kind, through every configuration.
	var managed []client.Object
	for name := range configs {
		ref := &xpv2.ProviderConfigReference{Kind: v1alpha1.ProviderConfigKind, Name: name}
		b := e2e.NewBranch(f, name, "leak/"+name, "main")
		b.Spec.ProviderConfigReference = ref
		fl := e2e.NewFile(f, name, "leak/"+name+".txt", "not a secret\n")
		fl.Spec.ProviderConfigReference = ref
		cr := e2e.NewCommitRequest(f, name, "Leak check through "+name, v1alpha1.CommitFile{Path: "leak/" + name + ".cr", Content: ptr.To("x\n")})
		cr.Spec.ProviderConfigReference = ref
		for _, o := range []client.Object{b, fl, cr} {
			e2e.Create(t, o)
			managed = append(managed, o)
		}
	}
	echo := e2e.NewBranch(f, "echo", "leak/echo", "main")
	echo.Spec.ProviderConfigReference = &xpv2.ProviderConfigReference{Kind: v1alpha1.ProviderConfigKind, Name: "https-good"}
	e2e.Create(t, echo)
	managed = append(managed, echo)
	want := map[string]xpv2.ConditionReason{
		"echo":        spec.ReasonPushRejected,
		"https-wrong": spec.ReasonAuthenticationFailed,
		"ssh-wrong":   spec.ReasonAuthenticationFailed,
		"ssh-hostkey": spec.ReasonHostKeyMismatch,
	}
	for _, o := range managed {
		mg, _ := o.(interface {
			client.Object
			GetCondition(xpv2.ConditionType) xpv2.Condition
		})
		switch r, failing := want[o.GetName()]; {
		case failing:
			e2e.WaitFor(t, time.Minute, mg, e2e.StalledWith(t, mg, r))
		case o.GetName() == "https-query":
			// Unreachable: retried, with the error in its conditions.
			e2e.WaitFor(t, time.Minute, mg, func() error {
				if mg.GetCondition(xpv2.TypeSynced).Status == corev1.ConditionUnknown {
					return fmt.Errorf("not reconciled yet")
				}
				return nil
			})
		default:
			e2e.WaitFor(t, time.Minute, mg, e2e.ReadyAndCurrent(t, mg))
		}
	}
	// Failures are retried: let each run again, at debug level.
	e2e.ReconciledAgain(t, 2, true, managed...)
	e2e.WritesLanded(t)

	// Everything the provider wrote or published.
	where := map[string]string{"logs": logs.String()}
	events := &corev1.EventList{}
	if err := e2e.CP.Client.List(ctx, events, client.InNamespace(f.Namespace)); err != nil {
		t.Fatal(err)
	}
	where["events"] = jsonOf(t, events)
	for _, l := range []client.ObjectList{
		&v1alpha1.BranchList{}, &v1alpha1.FileList{}, &v1alpha1.CommitRequestList{},
		&v1alpha1.ProviderConfigList{}, &v1alpha1.ProviderConfigUsageList{},
	} {
		if err := e2e.CP.Client.List(ctx, l, client.InNamespace(f.Namespace)); err != nil {
			t.Fatal(err)
		}
		// What the provider writes: status and metadata. The spec is the
		// user's own input (a URL with a token in it is theirs).
		items, err := kmeta.ExtractList(l)
		if err != nil {
			t.Fatal(err)
		}
		for _, item := range items {
			u, err := runtime.DefaultUnstructuredConverter.ToUnstructured(item)
			if err != nil {
				t.Fatal(err)
			}
			delete(u, "spec")
			o, _ := item.(client.Object)
			where[fmt.Sprintf("%T %s", item, o.GetName())] = jsonOf(t, u)
		}
	}
	var metrics strings.Builder
	for _, g := range []prometheus.Gatherer{reg, ctrlmetrics.Registry} {
		mfs, err := g.Gather()
		if err != nil {
			t.Fatal(err)
		}
		for _, mf := range mfs {
			// Names, label values, help texts and values.
			metrics.WriteString(mf.String() + "\n")
		}
	}
	where["metrics"] = metrics.String()
	objects, err := testenv.Git(repo.Dir, nil, "cat-file", "--batch-all-objects", "--batch")
	if err != nil {
		t.Fatal(err)
	}
	where["git objects"] = objects
	where["cache dir"] = filesUnder(t, cacheDir)

	// The search can fail: the collection is not empty, and the Secrets
	// themselves hold what it looks for.
	for _, w := range []string{"logs", "events", "metrics", "git objects", "cache dir"} {
		if len(where[w]) == 0 {
			t.Fatalf("nothing collected from %s: the search would prove nothing", w)
		}
	}
	if !strings.Contains(where["logs"], `"level":"debug"`) && !strings.Contains(where["logs"], "DEBUG") {
		t.Fatalf("the logs hold no debug line: the provider did not run at debug level")
	}
	if !strings.Contains(where["metrics"], f.Namespace) {
		t.Fatalf("the metrics name none of the resources: their labels were not collected")
	}
	if !strings.Contains(where["git objects"], "not a secret") {
		t.Fatalf("the repository holds none of the Files: the success path did not run")
	}
	canaries := []string{canaryToken, canaryWrongPass, canaryQueryToken, canaryURLPass}
	canaries = append(canaries, keyLines(ssh.ClientKeyPEM)...)
	canaries = append(canaries, keyLines(ssh.OtherKeyPEM)...)
	stored := &corev1.SecretList{}
	if err := e2e.CP.Client.List(ctx, stored, client.InNamespace(f.Namespace)); err != nil {
		t.Fatal(err)
	}
	var plain strings.Builder
	for _, s := range stored.Items {
		for _, v := range s.Data {
			plain.Write(v)
		}
	}
	if hits := search(map[string]string{"secrets": plain.String()}, canaries); len(hits) != 2+len(keyLines(ssh.ClientKeyPEM))+len(keyLines(ssh.OtherKeyPEM)) {
		t.Fatalf("the search finds %d of the secrets in the Secrets themselves: it is broken", len(hits))
	}
	for _, h := range search(where, canaries) {
		t.Errorf("secret leaked: %s", h)
	}
}

// search returns where each canary occurs, with some context.
func search(where map[string]string, canaries []string) []string {
	var hits []string
	for w, text := range where {
		for _, c := range canaries {
			// JSON and log encoders escape; a key line never has characters
			// they change, a token neither.
			if i := strings.Index(text, c); i >= 0 {
				from, to := max(0, i-120), min(len(text), i+len(c)+40)
				hits = append(hits, fmt.Sprintf("%s: …%s…", w, text[from:to]))
			}
		}
	}
	return hits
}

func jsonOf(t *testing.T, o any) string {
	t.Helper()
	b, err := json.Marshal(o)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// filesUnder is the content of every file under dir.
func filesUnder(t *testing.T, dir string) string {
	t.Helper()
	var b strings.Builder
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		b.WriteString(path + "\n")
		b.Write(data)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return b.String()
}
