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

// Package sharing holds what the end-to-end tests of replicas sharing the
// repositories (--share-repositories) have in common: replicas started as
// processes, fixtures by the dozen, waits over thousands of Files, and the
// Git server's push log read for who pushed what. Its tests are two
// packages (shards, failover), each with a control plane of its own, so
// that go test runs them beside each other. Test support only: no shipped
// binary imports it.
package sharing

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/crossplane-contrib/provider-git/apis/v1alpha1"
	"github.com/crossplane-contrib/provider-git/internal/testharness/e2e"
	"github.com/crossplane-contrib/provider-git/internal/testharness/testenv"
)

// Settings of the sharing tests: a short lease (renewed every 2s, a joiner
// settles in 4s) so failovers fit a test's patience.
const (
	DefaultRepos = 10
	DefaultFiles = 15

	Lease = 6 * time.Second
	Renew = Lease / 3
	Poll  = 2 * time.Second
)

// Scale is how many repositories and Files per repository the sharing
// tests use; SHARE_REPOS and SHARE_FILES override the defaults.
//
// DefaultRepos x DefaultFiles is what make test runs: each repository
// pushed by one process and a failover mid-burst take the same checks at
// 150 Files as at 1,500 (ten repositories give each of three replicas some
// to hold and to lose), and 1,500 Files on three race-built replicas cost
// over five minutes of CPU (TestShareKill, 312 s user+sys); at 15 x 20 the
// three sharing tests still took 175 s and about 180 CPU-seconds of make
// test's. The figures in docs/operations/scale.md are measured at
// SHARE_REPOS=30 SHARE_FILES=50.
func Scale(repos, files int) (int, int) {
	if v, err := strconv.Atoi(os.Getenv("SHARE_REPOS")); err == nil && v > 0 {
		repos = v
	}
	if v, err := strconv.Atoi(os.Getenv("SHARE_FILES")); err == nil && v > 0 {
		files = v
	}
	return repos, files
}

// Namespace creates a namespace for the replicas' Leases.
func Namespace(t testing.TB) string {
	t.Helper()
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: "leases-"}}
	if err := e2e.CP.Client.Create(context.Background(), ns); err != nil {
		t.Fatal(err)
	}
	return ns.Name
}

// StartShared starts n replicas sharing the repositories, their Leases in
// ns, and waits until every one sees all n and holds its share.
func StartShared(t testing.TB, kubeconfig, ns string, n int) []*e2e.Replica {
	t.Helper()
	rs := make([]*e2e.Replica, n)
	for i := range rs {
		rs[i] = StartMember(t, kubeconfig, ns, fmt.Sprintf("replica-%d", i), Lease)
	}
	Settled(t, rs, n)
	return rs
}

// StartMember starts one replica sharing the repositories with a lease of
// d, its Lease in ns.
func StartMember(t testing.TB, kubeconfig, ns, name string, d time.Duration) *e2e.Replica {
	t.Helper()
	return e2e.StartReplica(t, kubeconfig, name, "--share-repositories", "--share-lease-duration="+d.String(), "--share-namespace="+ns)
}

// Settled waits until every replica of rs sees n members and is active.
func Settled(t testing.TB, rs []*e2e.Replica, n int) {
	t.Helper()
	testenv.Eventually(t, time.Minute, func() error {
		for _, r := range rs {
			m, err := r.Metric("provider_git_share_members")
			if err != nil {
				return err
			}
			a, err := r.Metric("provider_git_share_active")
			if err != nil {
				return err
			}
			if int(m) != n || a != 1 {
				return fmt.Errorf("%s sees %v members (active %v), want %d", r, m, a, n)
			}
		}
		return nil
	})
}

// Repos makes n fixtures (a namespace, a ProviderConfig "git", a
// repository each) with the tests' commit window.
func Repos(t *testing.T, n int) []*e2e.Fixture {
	t.Helper()
	fx := make([]*e2e.Fixture, n)
	for i := range fx {
		fx[i] = e2e.NewFixture(t)
		e2e.SetWindow(t, fx[i], e2e.Window)
	}
	return fx
}

// Files creates m Files in each fixture, named prefix-<i>, and returns
// them by fixture.
func Files(t *testing.T, fx []*e2e.Fixture, m int, prefix string) map[*e2e.Fixture][]*v1alpha1.File {
	t.Helper()
	out := map[*e2e.Fixture][]*v1alpha1.File{}
	for _, f := range fx {
		for i := range m {
			fl := e2e.NewFile(f, fmt.Sprintf("%s-%03d", prefix, i), fmt.Sprintf("apps/%s-%03d.yaml", prefix, i), fmt.Sprintf("%s: %d\n", prefix, i))
			e2e.Create(t, fl)
			out[f] = append(out[f], fl)
		}
	}
	return out
}

// AllReady waits until every File of the fixtures is Ready.
func AllReady(t *testing.T, fx []*e2e.Fixture, timeout time.Duration) {
	t.Helper()
	nss := make([]string, len(fx))
	for i, f := range fx {
		nss[i] = f.Namespace
	}
	ReadyIn(t, nss, timeout)
}

// ReadyIn waits until every File of the namespaces is Ready. It lists the
// Files once a second: of one namespace, or of all at once when there are
// more (a list per namespace of hundreds, every second, would load the API
// server the replicas renew their Leases on, and slow their renewals into
// lapses that the figures would then count).
func ReadyIn(t testing.TB, nss []string, timeout time.Duration) {
	t.Helper()
	want := map[string]bool{}
	for _, ns := range nss {
		want[ns] = true
	}
	var opts []client.ListOption
	if len(nss) == 1 {
		opts = append(opts, client.InNamespace(nss[0]))
	}
	deadline := time.Now().Add(timeout)
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	for {
		l := &v1alpha1.FileList{}
		if err := e2e.CP.Client.List(context.Background(), l, opts...); err != nil {
			t.Fatal(err)
		}
		pending, total := 0, 0
		for i := range l.Items {
			if !want[l.Items[i].Namespace] {
				continue
			}
			total++
			if l.Items[i].GetCondition(xpv2.TypeReady).Status != corev1.ConditionTrue {
				pending++
			}
		}
		if pending == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("gave up after %s: %d of %d Files not Ready", timeout, pending, total)
		}
		<-tick.C
	}
}

// ExactlyOnce checks that every File is in its repository, carried by
// exactly one commit, and returns how many were lost and duplicated.
func ExactlyOnce(t *testing.T, byRepo map[*e2e.Fixture][]*v1alpha1.File) (lost, dup int) {
	t.Helper()
	for f, fls := range byRepo {
		tree := f.Files(t, "main")
		counts := f.CommitCounts(t, "main")
		for _, fl := range fls {
			switch n := counts[string(fl.UID)]; {
			case n == 0 || tree[fl.Spec.ForProvider.Path] != *fl.Spec.ForProvider.Content:
				lost++
				t.Errorf("File %s/%s: %d commits, content in place: %t; want one commit", fl.Namespace, fl.Name, n, tree[fl.Spec.ForProvider.Path] == *fl.Spec.ForProvider.Content)
			case n > 1:
				dup++
				t.Errorf("File %s/%s is carried by %d commits, want 1", fl.Namespace, fl.Name, n)
			}
		}
	}
	return lost, dup
}

// PushesTo are the pushes the Git server logged for fixture f's repository.
func PushesTo(f *e2e.Fixture, all []testenv.Push) []testenv.Push {
	var out []testenv.Push
	for _, p := range all {
		if p.Repo == f.Repo.Name {
			out = append(out, p)
		}
	}
	return out
}

// NoOverlaps fails the test when two processes pushed one repository at
// overlapping times.
func NoOverlaps(t *testing.T, pushes []testenv.Push) {
	t.Helper()
	for _, o := range testenv.Overlaps(pushes) {
		t.Errorf("%s pushed by %s (%s–%s) and %s (%s–%s) at once", o[0].Repo,
			o[0].UserAgent, o[0].Start.Format(time.StampMilli), o[0].End.Format(time.StampMilli),
			o[1].UserAgent, o[1].Start.Format(time.StampMilli), o[1].End.Format(time.StampMilli))
	}
}

// WriterOf reads the replica a fixture's ProviderConfig says writes it.
func WriterOf(t *testing.T, f *e2e.Fixture) string {
	t.Helper()
	pc := &v1alpha1.ProviderConfig{}
	if err := e2e.CP.Client.Get(context.Background(), client.ObjectKey{Namespace: f.Namespace, Name: "git"}, pc); err != nil {
		t.Fatal(err)
	}
	return pc.Status.Writer
}

// ClientKey is o's key.
func ClientKey(o client.Object) client.ObjectKey { return client.ObjectKeyFromObject(o) }

// ReplicaOf is the replica whose User-Agent is ua, or nil.
func ReplicaOf(rs []*e2e.Replica, ua string) *e2e.Replica {
	for _, r := range rs {
		if r.UserAgent() == ua {
			return r
		}
	}
	return nil
}

// Holders maps each fixture to the one agent that pushed to it, failing the
// test for a repository pushed by more than one or by none.
func Holders(t *testing.T, fx []*e2e.Fixture, all []testenv.Push, after time.Time) map[*e2e.Fixture]string {
	t.Helper()
	out := map[*e2e.Fixture]string{}
	for _, f := range fx {
		agents := map[string]int{}
		for _, p := range PushesTo(f, all) {
			if p.Start.After(after) {
				agents[p.UserAgent]++
			}
		}
		if len(agents) != 1 {
			t.Errorf("%s was pushed by %v, want exactly one replica", f.Repo.Name, agents)
			continue
		}
		for ua := range agents {
			out[f] = ua
		}
	}
	return out
}

// OfRepos are the pushes to the fixtures' repositories.
func OfRepos(fx []*e2e.Fixture, all []testenv.Push) []testenv.Push {
	var out []testenv.Push
	for _, f := range fx {
		out = append(out, PushesTo(f, all)...)
	}
	return out
}

// Merge joins Files by fixture.
func Merge(ms ...map[*e2e.Fixture][]*v1alpha1.File) map[*e2e.Fixture][]*v1alpha1.File {
	out := map[*e2e.Fixture][]*v1alpha1.File{}
	for _, m := range ms {
		for f, fls := range m {
			out[f] = append(out[f], fls...)
		}
	}
	return out
}

// Busiest is the replica of rs that holds the most repositories in hs (a
// map from Holders), the repositories it holds, and the other replicas. A
// test that fails one replica over picks this one rather than a fixed one:
// with a few repositories hashed over three replicas, a fixed replica
// holds none in a fair share of runs ((2/3)^10, 1.7%, at ten), which
// would fail the test for nothing.
func Busiest(t *testing.T, rs []*e2e.Replica, hs map[*e2e.Fixture]string) (*e2e.Replica, []*e2e.Fixture, []*e2e.Replica) {
	t.Helper()
	var victim *e2e.Replica
	var theirs []*e2e.Fixture
	for _, r := range rs {
		var held []*e2e.Fixture
		for f, ua := range hs {
			if ua == r.UserAgent() {
				held = append(held, f)
			}
		}
		if len(held) > len(theirs) {
			victim, theirs = r, held
		}
	}
	if victim == nil {
		t.Fatalf("no replica holds a repository: nothing to fail over")
	}
	var others []*e2e.Replica
	for _, r := range rs {
		if r != victim {
			others = append(others, r)
		}
	}
	return victim, theirs, others
}

// AwaitHeld waits until gate holds a push whose User-Agent satisfies from,
// and returns it.
func AwaitHeld(t *testing.T, gate *testenv.AdvertGate, from func(ua string) bool) *testenv.HeldAdvert {
	t.Helper()
	timeout := time.After(time.Minute)
	for {
		held, next := gate.Held()
		for _, h := range held {
			if from(h.UserAgent) {
				return h
			}
		}
		select {
		case <-next:
		case <-timeout:
			t.Fatalf("no push held within a minute from the expected agent; held: %d", len(held))
		}
	}
}

// AwaitServed waits until the server answered a held push.
func AwaitServed(t *testing.T, h *testenv.HeldAdvert) {
	t.Helper()
	select {
	case <-h.Served():
	case <-time.After(time.Minute):
		t.Fatalf("the held push of %s was not answered within a minute", h.UserAgent)
	}
}

// ViewChanges counts the changes of its view of the membership a replica
// logged ("Membership changed", each renewal that changed who holds what:
// a member joining or gone, this replica settling, lapsing or recovering).
// Each one queues, on every controller, the resources whose repositories
// moved, so a figure of reconciles per resource reads beside it.
func ViewChanges(t testing.TB, r *e2e.Replica) int {
	t.Helper()
	b, err := os.ReadFile(r.Log)
	if err != nil {
		t.Fatal(err)
	}
	return strings.Count(string(b), "Membership changed")
}
