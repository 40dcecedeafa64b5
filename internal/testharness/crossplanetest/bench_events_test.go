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

package crossplanetest_test

import (
	"fmt"
	"os"
	"slices"
	"strconv"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/crossplane-contrib/provider-git/apis/v1alpha1"
	"github.com/crossplane-contrib/provider-git/internal/testharness/testenv"
)

// benchPoll is the provider's --poll in the benchmark: the default, so the
// baseline is what a user without events waits.
const benchPoll = time.Minute

// benchHookSecret signs Gitea's deliveries to the events configuration.
const benchHookSecret = "bench-hook-secret-of-32-bytes-ab"

// benchSamples is the count an environment variable sets, else def.
func benchSamples(name string, def int) int {
	if v, err := strconv.Atoi(os.Getenv(name)); err == nil && v > 0 {
		return v
	}
	return def
}

// BenchmarkForgeEventsMergeXRReady: an EnvironmentRequest XR
// (examples/composition/request) composes a readiness Merged PullRequest
// on a real Gitea; a reviewer merges it there; measured from the merge's
// answer to the XR's Ready, p50 and p99, in real Crossplane core (realtime
// compositions, its default) with function-patch-and-transform and the
// provider's package. One provider, --poll=1m: one namespace's
// configuration receives Gitea's webhook, another's has none and is
// polled alone. BENCH_XR_EVENT_SAMPLES and BENCH_XR_POLL_SAMPLES change
// the counts.
func BenchmarkForgeEventsMergeXRReady(b *testing.B) {
	nEvents, nPoll := benchSamples("BENCH_XR_EVENT_SAMPLES", 5), benchSamples("BENCH_XR_POLL_SAMPLES", 3)
	tl := requireTools(b)
	requireFile(b, tl.garbageCollector)
	xpkgs := requireXpkgs(b, tl.root)
	x := startCrossplane(b, tl)
	reg := startRegistry(b)
	events := "127.0.0.1:" + strconv.Itoa(freePort(b))
	provider, _ := installProvider(b, x, reg, xpkgs, benchPoll, "--events-bind-address="+events, "--events-url=http://"+events)
	serveFunction(b, x, reg)
	g := testenv.StartGitea(b)
	applyRequestKinds(b, x)
	for range b.N {
		withEvents := mergesToXRReady(b, x, g, provider, "bench-events", "http://"+events, nEvents)
		polled := mergesToXRReady(b, x, g, provider, "bench-poll", "", nPoll)
		fmt.Printf("\nA reviewer's merge on the real Gitea, until the EnvironmentRequest XR composing the readiness: Merged PullRequest is Ready (real Crossplane core)\n"+
			"| | p50 | p99 | samples |\n|----|----|----|----|\n"+
			"| baseline: polling alone, --poll=%s | %s | %s | %d |\n"+
			"| Gitea's webhook, --poll=%s | %s | %s | %d (goal: p50 <= 3s) |\n",
			benchPoll, quantile(polled, 0.5).Round(time.Millisecond), quantile(polled, 0.99).Round(time.Millisecond), nPoll,
			benchPoll, quantile(withEvents, 0.5).Round(time.Millisecond), quantile(withEvents, 0.99).Round(time.Millisecond), nEvents)
		b.ReportMetric(quantile(withEvents, 0.5).Seconds(), "s-p50-events")
		b.ReportMetric(quantile(withEvents, 0.99).Seconds(), "s-p99-events")
		b.ReportMetric(quantile(polled, 0.5).Seconds(), "s-p50-poll")
	}
}

// applyRequestKinds applies the EnvironmentRequest's definition and
// Composition and waits for the XR kind.
func applyRequestKinds(tb testing.TB, x *crossplane) {
	tb.Helper()
	def := loadExample(tb, x.tl.root, "composition/request/definition.yaml")[0]
	x.apply(tb, def)
	testenv.Eventually(tb, 2*time.Minute, x.conditionTrue(def.GetAPIVersion(), def.GetKind(), "", def.GetName(), "Established"))
	for _, o := range loadExample(tb, x.tl.root, "composition/request/composition.yaml") {
		x.apply(tb, o)
	}
}

// mergesToXRReady makes namespace ns with its configuration "gitops" on a
// repository of its own and, with eventsURL, has Gitea deliver that
// repository's events to the configuration; then n times: an
// EnvironmentRequest, its pull request open, a reviewer's merge, and how
// long until the XR was Ready. It returns the durations, sorted.
func mergesToXRReady(b *testing.B, x *crossplane, g *testenv.Gitea, provider *process, ns, eventsURL string, n int) []time.Duration {
	b.Helper()
	repo := g.CreateRepo(b, ns)
	reviewer := g.CreateUser(b, ns+"-reviewer", repo.Name)
	x.apply(b, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}})
	creds := map[string][]byte{"username": []byte(testenv.GiteaAdmin), "password": []byte(g.Token)}
	secretRef := &v1alpha1.LocalCredentialsSecretRef{Name: "gitea-credentials"}
	if eventsURL != "" {
		creds["webhook"] = []byte(benchHookSecret)
		secretRef.WebhookSecretKey = "webhook"
	}
	x.apply(b, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "gitea-credentials", Namespace: ns}, Data: creds})
	x.apply(b, &v1alpha1.ProviderConfig{
		ObjectMeta: metav1.ObjectMeta{Name: "gitops", Namespace: ns},
		Spec: v1alpha1.ProviderConfigSpec{
			URL:         repo.CloneURL,
			Credentials: v1alpha1.ProviderCredentials{Source: "Secret", SecretRef: secretRef},
			Commit:      v1alpha1.CommitConfig{Window: &metav1.Duration{Duration: commitWindow}},
			Forge:       &v1alpha1.ForgeConfig{Type: "Gitea", APIURL: repo.APIURL},
		},
	})
	if eventsURL != "" {
		var path string
		testenv.Eventually(b, time.Minute, func() error {
			pc, err := x.get(v1alpha1.SchemeGroupVersion.String(), v1alpha1.ProviderConfigKind, ns, "gitops")
			if err != nil {
				return err
			}
			if path, _, _ = unstructured.NestedString(pc.Object, "status", "events", "path"); path == "" {
				return fmt.Errorf("ProviderConfig %s/gitops publishes no events path yet", ns)
			}
			return nil
		})
		g.AddHook(b, repo.Name, eventsURL+path, benchHookSecret)
	}
	out := make([]time.Duration, 0, n)
	for i := range n {
		name := fmt.Sprintf("env-%d", i)
		xr := loadExample(b, x.tl.root, "composition/request/xr.yaml")[0]
		xr.SetNamespace(ns)
		xr.SetName(name)
		if err := unstructured.SetNestedField(xr.Object, name, "spec", "environment"); err != nil {
			b.Fatal(err)
		}
		x.apply(b, xr)
		var number int64
		testenv.Eventually(b, 3*time.Minute, func() error {
			if err := provider.exited(); err != nil {
				return err
			}
			pr, err := x.composed(xr, "pull-request")
			if err != nil {
				return err
			}
			if number, _, _ = unstructured.NestedInt64(pr.Object, "status", "atProvider", "number"); number == 0 {
				return fmt.Errorf("PullRequest %s has no number yet", pr.GetName())
			}
			return nil
		})
		g.MergeAsReviewer(b, &reviewer, repo.Name, number)
		merged := time.Now()
		ready := x.conditionTrue(xrAPIVersion, requestKind, ns, name, "Ready")
		for err := ready(); err != nil; err = ready() {
			if time.Since(merged) > 3*benchPoll {
				b.Fatalf("XR %s/%s not Ready %s after the merge: %v", ns, name, 3*benchPoll, err)
			}
			time.Sleep(20 * time.Millisecond) // polling interval of a wait on a condition
		}
		out = append(out, time.Since(merged))
	}
	slices.Sort(out)
	return out
}

// quantile is the q-quantile of sorted durations (nearest rank).
func quantile(sorted []time.Duration, q float64) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	i := int(q*float64(len(sorted))+0.5) - 1
	return sorted[min(max(i, 0), len(sorted)-1)]
}
