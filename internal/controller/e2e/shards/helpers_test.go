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
	"fmt"
	"os"
	"strconv"
	"testing"
	"time"

	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/crossplane-contrib/provider-git/apis/v1alpha1"
	"github.com/crossplane-contrib/provider-git/internal/controller/e2e"
	"github.com/crossplane-contrib/provider-git/internal/testenv"
)

// Settings of the sharing tests: a short lease (renewed every 2s, a joiner
// settles in 4s) so failovers fit a test's patience.
const (
	lease = 6 * time.Second
	renew = lease / 3
	poll  = 2 * time.Second
)

// scale is how many repositories and Files per repository the sharing
// tests use; SHARE_REPOS and SHARE_FILES override the defaults.
func scale(repos, files int) (int, int) {
	if v, err := strconv.Atoi(os.Getenv("SHARE_REPOS")); err == nil && v > 0 {
		repos = v
	}
	if v, err := strconv.Atoi(os.Getenv("SHARE_FILES")); err == nil && v > 0 {
		files = v
	}
	return repos, files
}

// namespace creates a namespace for the replicas' Leases.
func namespace(t testing.TB) string {
	t.Helper()
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: "leases-"}}
	if err := e2e.CP.Client.Create(context.Background(), ns); err != nil {
		t.Fatal(err)
	}
	return ns.Name
}

// startShared starts n replicas sharing the repositories, their Leases in
// ns, and waits until every one sees all n and holds its share.
func startShared(t testing.TB, kubeconfig, ns string, n int) []*e2e.Replica {
	t.Helper()
	rs := make([]*e2e.Replica, n)
	for i := range rs {
		rs[i] = startMember(t, kubeconfig, ns, fmt.Sprintf("replica-%d", i), lease)
	}
	settled(t, rs, n)
	return rs
}

// startMember starts one replica sharing the repositories with a lease of
// d, its Lease in ns.
func startMember(t testing.TB, kubeconfig, ns, name string, d time.Duration) *e2e.Replica {
	t.Helper()
	return e2e.StartReplica(t, kubeconfig, name, "--share-repositories", "--share-lease-duration="+d.String(), "--share-namespace="+ns)
}

// settled waits until every replica of rs sees n members and is active.
func settled(t testing.TB, rs []*e2e.Replica, n int) {
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

// repos makes n fixtures (a namespace, a ProviderConfig "git", a
// repository each) with the tests' commit window.
func repos(t *testing.T, n int) []*e2e.Fixture {
	t.Helper()
	fx := make([]*e2e.Fixture, n)
	for i := range fx {
		fx[i] = e2e.NewFixture(t)
		e2e.SetWindow(t, fx[i], e2e.Window)
	}
	return fx
}

// files creates m Files in each fixture, named prefix-<i>, and returns
// them by fixture.
func files(t *testing.T, fx []*e2e.Fixture, m int, prefix string) map[*e2e.Fixture][]*v1alpha1.File {
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

// allReady waits until every File of the fixtures is Ready, listing each
// namespace once a second (a list of thousands of Files costs the API
// server, and a second is well inside the poll).
func allReady(t *testing.T, fx []*e2e.Fixture, timeout time.Duration) {
	t.Helper()
	nss := make([]string, len(fx))
	for i, f := range fx {
		nss[i] = f.Namespace
	}
	readyIn(t, nss, timeout)
}

// readyIn waits until every File of the namespaces is Ready.
func readyIn(t testing.TB, nss []string, timeout time.Duration) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	for {
		pending, total := 0, 0
		for _, ns := range nss {
			l := &v1alpha1.FileList{}
			if err := e2e.CP.Client.List(context.Background(), l, client.InNamespace(ns)); err != nil {
				t.Fatal(err)
			}
			for i := range l.Items {
				total++
				if l.Items[i].GetCondition(xpv2.TypeReady).Status != corev1.ConditionTrue {
					pending++
				}
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

// exactlyOnce checks that every File is in its repository, carried by
// exactly one commit, and returns how many were lost and duplicated.
func exactlyOnce(t *testing.T, byRepo map[*e2e.Fixture][]*v1alpha1.File) (lost, dup int) {
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

// pushesTo are the pushes the Git server logged for fixture f's repository.
func pushesTo(f *e2e.Fixture, all []testenv.Push) []testenv.Push {
	var out []testenv.Push
	for _, p := range all {
		if p.Repo == f.Repo.Name {
			out = append(out, p)
		}
	}
	return out
}

// noOverlaps fails the test when two processes pushed one repository at
// overlapping times.
func noOverlaps(t *testing.T, pushes []testenv.Push) {
	t.Helper()
	for _, o := range testenv.Overlaps(pushes) {
		t.Errorf("%s pushed by %s (%s–%s) and %s (%s–%s) at once", o[0].Repo,
			o[0].UserAgent, o[0].Start.Format(time.StampMilli), o[0].End.Format(time.StampMilli),
			o[1].UserAgent, o[1].Start.Format(time.StampMilli), o[1].End.Format(time.StampMilli))
	}
}

// writerOf reads the replica a fixture's ProviderConfig says writes it.
func writerOf(t *testing.T, f *e2e.Fixture) string {
	t.Helper()
	pc := &v1alpha1.ProviderConfig{}
	if err := e2e.CP.Client.Get(context.Background(), client.ObjectKey{Namespace: f.Namespace, Name: "git"}, pc); err != nil {
		t.Fatal(err)
	}
	return pc.Status.Writer
}

// clientKey is o's key.
func clientKey(o client.Object) client.ObjectKey { return client.ObjectKeyFromObject(o) }
