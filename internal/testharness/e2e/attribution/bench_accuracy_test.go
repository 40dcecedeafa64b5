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
	"bufio"
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/crossplane-contrib/provider-git/apis/v1alpha1"
	"github.com/crossplane-contrib/provider-git/internal/attribution"
	"github.com/crossplane-contrib/provider-git/internal/audit"
	"github.com/crossplane-contrib/provider-git/internal/testharness/e2e"
)

// writer is one person or ServiceAccount of the mixed workload.
type writer struct {
	user string
	c    client.Client
}

// accuracy is how one Mirror's commits named who made what they hold.
type accuracy struct {
	// changes are the file changes its commits recorded after the
	// workload began; exact those whose commit's author is who wrote the
	// content it holds; wrong those authored by someone else; unresolved
	// those authored unresolved; by counts the Attributed-By trailers.
	changes, exact, wrong, unresolved int
	by                                map[string]int
}

// BenchmarkAdmissionAttributionAccuracy: three people and two
// ServiceAccounts (impersonated, as a controller's token is a
// ServiceAccount's) make BENCH_ACCURACY_EDITS (default 1,000) interleaved
// edits to 50 mirrored ConfigMaps, at 50 edits per second, each edit by a
// writer and of an object drawn at random (seeded: every run the same),
// recording who made it in the object (data.by). Three Mirrors of the same
// namespace, in folders of their own, commit them: attribution Admission
// (the exact join), Auto, and Audit (today's join by object and time, the
// baseline, in the same run). For each, every file change a commit records
// is checked: exact when the commit's author is the writer of the content
// it records. Want 100% exact with the webhook.
func BenchmarkAdmissionAttributionAccuracy(b *testing.B) {
	edits := e2e.BenchN("BENCH_ACCURACY_EDITS", 1000)
	writers := []writer{{user: "alice"}, {user: "bob"}, {user: "carol"},
		{user: "system:serviceaccount:ci:deployer"}, {user: "system:serviceaccount:flux-system:helm-controller"}}
	for i := range writers {
		if strings.HasPrefix(writers[i].user, "system:serviceaccount:") {
			writers[i].c = benchImpersonating(b, writers[i].user)
			continue
		}
		writers[i].c = benchUser(b, writers[i].user)
	}
	for range b.N {
		got := mixedWorkload(b, writers, edits)
		fmt.Printf("\n%d edits by %d writers (3 people, 2 ServiceAccounts) to %d ConfigMaps at %d/s, drawn at random, mirrored by three Mirrors at once (commit window %s, --audit-attribution-wait default %s, audit batch wait 100ms)\n"+
			"| join | file changes committed | authored by their writer | by someone else | unresolved | exact | Attributed-By |\n|----|----|----|----|----|----|----|\n",
			edits, len(writers), accuracyObjects, accuracyRate, e2e.DefaultWindow, attribution.DefaultWait)
		for _, j := range []v1alpha1.MirrorAttribution{v1alpha1.MirrorAttributionAudit, v1alpha1.MirrorAttributionAdmission, v1alpha1.MirrorAttributionAuto} {
			a := got[j]
			what := string(j)
			if j == v1alpha1.MirrorAttributionAudit {
				what += " (baseline, this run)"
			}
			fmt.Printf("| %s | %d | %d | %d | %d | %.1f%% | %s |\n", what, a.changes, a.exact, a.wrong, a.unresolved,
				100*float64(a.exact)/float64(max(a.changes, 1)), byLine(a.by))
		}
		for _, j := range []v1alpha1.MirrorAttribution{v1alpha1.MirrorAttributionAdmission, v1alpha1.MirrorAttributionAuto} {
			if a := got[j]; a.changes == 0 || a.exact != a.changes {
				b.Errorf("attribution %s: %d of %d file changes authored by their writer, want all", j, a.exact, a.changes)
			}
		}
	}
}

const accuracyObjects, accuracyRate = 50, 50

// mixedWorkload runs the workload once and returns each Mirror's accuracy.
func mixedWorkload(b *testing.B, writers []writer, edits int) map[v1alpha1.MirrorAttribution]accuracy {
	b.Helper()
	ctx := context.Background()
	metrics := audit.NewMetrics()
	bp := e2e.StartBenchProvider(b, e2e.BenchFlags{Rate: e2e.DefaultRate, Poll: e2e.DefaultPoll, Audit: store, AuditMetrics: metrics, Admission: admitted})
	defer bp.Stop()
	ns := e2e.BenchFixture(b, nil)
	webhookFor(b, ns, ns, webhook, admittedProbe(b, ns))
	dir := e2e.GitRoot + "/" + ns + ".git"
	joins := []v1alpha1.MirrorAttribution{v1alpha1.MirrorAttributionAudit, v1alpha1.MirrorAttributionAdmission, v1alpha1.MirrorAttributionAuto}
	for _, j := range joins {
		m := e2e.NewMirror(ns, strings.ToLower(string(j)), v1alpha1.MirrorParameters{
			Path:          strings.ToLower(string(j)),
			Resources:     []v1alpha1.MirrorResource{{APIVersion: "v1", Kind: "ConfigMap"}},
			Attribution:   j,
			LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"mirror": "yes"}},
		}, e2e.PCRef())
		if err := e2e.CP.Client.Create(ctx, m); err != nil {
			b.Fatal(err)
		}
	}
	last := map[string]string{}
	for i := range accuracyObjects {
		name := fmt.Sprintf("o-%02d", i)
		cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, Labels: map[string]string{"mirror": "yes"}},
			Data: map[string]string{"by": writers[0].user, "seq": "0"}}
		if err := writers[0].c.Create(ctx, cm); err != nil {
			b.Fatal(err)
		}
		last[name] = "0"
	}
	waitHolds(b, dir, joins, last)
	before := gitOut(b, dir, "rev-parse", "main")

	rng := rand.New(rand.NewPCG(32, 5))
	tick := time.NewTicker(time.Second / accuracyRate)
	var wg sync.WaitGroup
	for seq := 1; seq <= edits; seq++ {
		<-tick.C
		w, name := writers[rng.IntN(len(writers))], fmt.Sprintf("o-%02d", rng.IntN(accuracyObjects))
		last[name] = strconv.Itoa(seq)
		patch := client.RawPatch("application/merge-patch+json", fmt.Appendf(nil, `{"data":{"by":%q,"seq":"%d"}}`, w.user, seq))
		cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}}
		wg.Go(func() {
			if err := w.c.Patch(ctx, cm, patch); err != nil {
				b.Error(err)
			}
		})
	}
	tick.Stop()
	wg.Wait()
	waitHolds(b, dir, joins, last)
	out := map[v1alpha1.MirrorAttribution]accuracy{}
	for _, j := range joins {
		out[j] = accuracyOf(b, dir, before, strings.ToLower(string(j)))
	}
	return out
}

// seqIn finds each ConfigMap's seq in `git grep` output.
var seqIn = regexp.MustCompile(`:([a-z]+)/[^:]*configmap/(o-\d+)\.yaml:\s*seq:\s*"(\d+)"`)

// waitHolds waits until every Mirror's folder holds the seq last says of
// each object.
func waitHolds(b *testing.B, dir string, joins []v1alpha1.MirrorAttribution, last map[string]string) {
	b.Helper()
	deadline := time.Now().Add(5 * time.Minute)
	for {
		out, _ := exec.Command("git", "-C", dir, "grep", "-e", "seq:", "main", "--").Output()
		held := map[string]string{}
		for _, m := range seqIn.FindAllStringSubmatch(string(out), -1) {
			held[m[1]+"/"+m[2]] = m[3]
		}
		missing := 0
		for _, j := range joins {
			for name, seq := range last {
				if held[strings.ToLower(string(j))+"/"+name] != seq {
					missing++
				}
			}
		}
		if missing == 0 {
			return
		}
		if time.Now().After(deadline) {
			b.Fatalf("%d objects' last edits are not on the remote after 5 minutes", missing)
		}
		time.Sleep(200 * time.Millisecond) // polling interval of a wait on a condition
	}
}

// byIn is who a ConfigMap's rendering says wrote it.
var byIn = regexp.MustCompile(`(?m)^\s*by:\s*"?([^"\n]+)"?\s*$`)

// accuracyOf checks every file change the commits after before record in
// folder: who wrote the content each holds, against the commit's author.
func accuracyOf(b *testing.B, dir, before, folder string) accuracy {
	b.Helper()
	log := gitOut(b, dir, "log", "--format=%x00%H%x09%an%x09%(trailers:key="+attribution.TrailerAttributedBy+",valueonly,separator=%x2C)", "--name-only", before+"..main", "--", folder+"/")
	type change struct{ commit, author, by, file string }
	var cs []change
	for entry := range strings.SplitSeq(log, "\x00") {
		lines := strings.Split(strings.TrimSpace(entry), "\n")
		head := strings.Split(lines[0], "\t")
		if len(head) < 3 {
			continue
		}
		for _, f := range lines[1:] {
			if f = strings.TrimSpace(f); strings.HasSuffix(f, ".yaml") && strings.Contains(f, "/configmap/") {
				cs = append(cs, change{commit: head[0], author: head[1], by: strings.TrimSpace(head[2]), file: f})
			}
		}
	}
	// Every content at once, through one git cat-file.
	var in strings.Builder
	for _, c := range cs {
		in.WriteString(c.commit + ":" + c.file + "\n")
	}
	cmd := exec.Command("git", "-C", dir, "cat-file", "--batch")
	cmd.Stdin = strings.NewReader(in.String())
	raw, err := cmd.Output()
	if err != nil {
		b.Fatal(err)
	}
	r := bufio.NewReader(strings.NewReader(string(raw)))
	a := accuracy{by: map[string]int{}}
	for _, c := range cs {
		hdr, err := r.ReadString('\n')
		if err != nil {
			b.Fatal(err)
		}
		f := strings.Fields(hdr)
		if len(f) != 3 {
			// A deletion records no content: none in this workload.
			continue
		}
		n, _ := strconv.Atoi(f[2])
		body := make([]byte, n+1)
		if _, err := io.ReadFull(r, body); err != nil {
			b.Fatal(err)
		}
		a.changes++
		a.by[c.by]++
		m := byIn.FindSubmatch(body)
		switch {
		case c.author == attribution.UnresolvedName:
			a.unresolved++
		case len(m) > 1 && string(m[1]) == c.author:
			a.exact++
		default:
			a.wrong++
		}
	}
	return a
}

// byLine is the Attributed-By counts on one line.
func byLine(by map[string]int) string {
	var parts []string
	for _, k := range []string{attribution.ByAdmission, attribution.ByAudit, attribution.ByUnresolved} {
		if by[k] > 0 {
			parts = append(parts, fmt.Sprintf("%s %d", k, by[k]))
		}
	}
	return strings.Join(parts, ", ")
}

// gitOut runs git in dir and returns its output.
func gitOut(b *testing.B, dir string, args ...string) string {
	b.Helper()
	out, err := exec.Command("git", append([]string{"-C", dir}, args...)...).Output()
	if err != nil {
		b.Fatalf("git %s: %v", strings.Join(args, " "), err)
	}
	return strings.TrimSpace(string(out))
}

// benchImpersonating acts as user, impersonated by the administrator, in
// system:masters.
func benchImpersonating(b *testing.B, user string) client.Client {
	b.Helper()
	cfg := rest.CopyConfig(e2e.CP.Config)
	cfg.QPS, cfg.Burst = 1000, 2000
	cfg.Impersonate = rest.ImpersonationConfig{UserName: user, Groups: []string{"system:masters", "system:authenticated"}}
	c, err := client.New(cfg, client.Options{Scheme: e2e.CP.Scheme})
	if err != nil {
		b.Fatal(err)
	}
	return c
}
