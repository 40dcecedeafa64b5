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

package shards_test

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/crossplane-contrib/provider-git/internal/forge/events"
	"github.com/crossplane-contrib/provider-git/internal/testharness/e2e"
	"github.com/crossplane-contrib/provider-git/internal/testharness/e2e/sharing"
	"github.com/crossplane-contrib/provider-git/internal/testharness/testenv"
)

// forwardSecret signs the deliveries of TestShareForwardsEvents.
const forwardSecret = "forward-secret-of-at-least-16-bytes"

// TestShareForwardsEvents: two replicas share the repositories, both
// serve forge events, polls an hour apart. A person's push lands over a
// managed File and its push event reaches the replica that does not hold
// the repository (a Service sends deliveries to any replica): that replica
// forwards it to the holder, which puts the File back within seconds, as
// only the event can explain. Before, a forward made without the secret
// (anyone who can reach the pod port) is refused by the holder like a
// forged event, and a forwarded delivery that reaches the non-holder is
// not forwarded again.
func TestShareForwardsEvents(t *testing.T) {
	kubeconfig := e2e.KubeconfigFile(t)
	ns := sharing.Namespace(t)
	f := sharing.Repos(t, 1)[0]
	rs := startEventReplicas(t, kubeconfig, ns, "--poll=1h")
	path := e2e.SetWebhook(t, f.Namespace, "git-credentials", forwardSecret, nil, e2e.EventsPublished).Status.Events.Path
	const file, managed = "apps/app.yaml", "app: managed\n"
	e2e.Create(t, e2e.NewFile(f, "app", file, managed))
	sharing.ReadyIn(t, []string{f.Namespace}, 2*time.Minute)
	holder, other := holderOf(t, f, rs)

	if _, err := f.Repo.Commit("main", testenv.CommitSpec{Message: "a person's edit", Files: map[string]string{file: "app: edited\n"}}); err != nil {
		t.Fatal(err)
	}
	cloneURL := e2e.HTTPGit.RepoURL(f.Repo.Name)
	push := func(n int) string {
		return fmt.Sprintf(`{"ref":"refs/heads/main","after":"%040d","repository":{"clone_url":%q}}`, n, cloneURL)
	}
	hub := http.Header{"X-Github-Event": {"push"}}

	// A forward made without the secret, to the holder: refused like a forged event.
	if code := post(t, holder.EventsURL+path, events.Forward(hub, path, []byte(push(1)), []byte("a guess of sixteen bytes"), time.Now()), push(1)); code != http.StatusForbidden {
		t.Errorf("a forged forward to the holder was answered %d, want %d", code, http.StatusForbidden)
	}
	// A forward made with the secret, to the replica that does not hold
	// the repository (their views disagree): not forwarded again.
	if code := post(t, other.EventsURL+path, events.Forward(hub, path, []byte(push(2)), []byte(forwardSecret), time.Now()), push(2)); code != http.StatusAccepted {
		t.Errorf("a forward to the non-holder was answered %d, want %d", code, http.StatusAccepted)
	}
	// A forward made with the secret, recorded on the pod network and sent
	// again to the holder later: refused, whatever it says.
	if code := post(t, holder.EventsURL+path, events.Forward(hub, path, []byte(push(4)), []byte(forwardSecret), time.Now().Add(-events.MaxForwardAge-time.Minute)), push(4)); code != http.StatusConflict {
		t.Errorf("a stale forward to the holder was answered %d, want %d", code, http.StatusConflict)
	}
	want := map[string]float64{
		holder.Name + " bad_signature": 1, holder.Name + " stale": 1, holder.Name + " accepted": 0,
		other.Name + " not_held": 1, other.Name + " forwarded": 0, other.Name + " accepted": 0,
	}
	if diff := counts(t, rs, want); diff != "" {
		t.Errorf("before the forge's delivery: %s", diff)
	}
	if got := f.Files(t, "main")[file]; got != "app: edited\n" {
		t.Fatalf("the person's edit was put back before any verified delivery reached the holder: %q", got)
	}

	// The forge's delivery reaches the non-holder.
	start := time.Now()
	if code := post(t, other.EventsURL+path, signedPush(forwardSecret, "d3", push(3)), push(3)); code != http.StatusAccepted {
		t.Fatalf("the forge's delivery to the non-holder was answered %d, want %d", code, http.StatusAccepted)
	}
	testenv.Eventually(t, 20*time.Second, func() error {
		if got := f.Files(t, "main")[file]; got != managed {
			return fmt.Errorf("%s holds %q, want the managed content back", file, got)
		}
		return nil
	})
	t.Logf("a push event delivered to the non-holder: the File put back by the holder %s later (polls an hour apart)", time.Since(start).Round(time.Millisecond))
	want = map[string]float64{other.Name + " forwarded": 1, other.Name + " accepted": 0, holder.Name + " accepted": 1}
	if diff := counts(t, rs, want); diff != "" {
		t.Errorf("after the forge's delivery: %s", diff)
	}
}

// startEventReplicas starts two replicas sharing the repositories, their
// Leases in ns, each serving forge events on a loopback port it publishes
// to the other, with args besides, and waits until they see each other.
func startEventReplicas(t *testing.T, kubeconfig, ns string, args ...string) []*e2e.Replica {
	t.Helper()
	rs := make([]*e2e.Replica, 2)
	for i := range rs {
		rs[i] = e2e.StartReplica(t, kubeconfig, fmt.Sprintf("replica-%d", i), append([]string{"--share-repositories",
			"--share-lease-duration=" + sharing.Lease.String(), "--share-namespace=" + ns,
			"--events-bind-address=127.0.0.1:" + e2e.FreePort(t), "--pod-ip=127.0.0.1"}, args...)...)
	}
	sharing.Settled(t, rs, 2)
	return rs
}

// holderOf is the replica of rs that the configuration of f names as its
// writer, and the other one.
func holderOf(t *testing.T, f *e2e.Fixture, rs []*e2e.Replica) (holder, other *e2e.Replica) {
	t.Helper()
	testenv.Eventually(t, 30*time.Second, func() error {
		w := sharing.WriterOf(t, f)
		for i, r := range rs {
			if r.Name == w {
				holder, other = r, rs[1-i]
				return nil
			}
		}
		return fmt.Errorf("the ProviderConfig names writer %q, not a replica", w)
	})
	return holder, other
}

// signedPush is the headers of GitHub's push delivery id of body, signed
// with secret.
func signedPush(secret, id, body string) http.Header {
	sig := hmac.New(sha256.New, []byte(secret))
	sig.Write([]byte(body))
	return http.Header{"X-Github-Event": {"push"}, "X-Github-Delivery": {id}, "X-Hub-Signature-256": {"sha256=" + hex.EncodeToString(sig.Sum(nil))}}
}

// post sends body with h to url and returns the status.
func post(t *testing.T, url string, h http.Header, body string) int {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header = h
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	_ = resp.Body.Close()
	return resp.StatusCode
}

// counts reads provider_git_events_total of the replicas rs for each key
// of want ("<replica> <result>") and returns its difference from want,
// "" when none.
func counts(t *testing.T, rs []*e2e.Replica, want map[string]float64) string {
	t.Helper()
	got := map[string]float64{}
	for k := range want {
		name, result, _ := strings.Cut(k, " ")
		for _, r := range rs {
			if r.Name == name {
				got[k] = r.MustMetric(t, "provider_git_events_total", `result="`+result+`"`)
			}
		}
	}
	if diff := cmp.Diff(want, got); diff != "" {
		return "provider_git_events_total: -want, +got:\n" + diff
	}
	return ""
}
