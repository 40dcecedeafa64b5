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

package mirror

import (
	"context"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/types"
	clocktesting "k8s.io/utils/clock/testing"

	"github.com/crossplane-contrib/provider-git/apis/v1alpha1"
	"github.com/crossplane-contrib/provider-git/internal/attribution"
	"github.com/crossplane-contrib/provider-git/internal/audit"
	"github.com/crossplane-contrib/provider-git/internal/git"
	"github.com/crossplane-contrib/provider-git/internal/mirror"
	"github.com/crossplane-contrib/provider-git/internal/mirror/plan"
	"github.com/crossplane-contrib/provider-git/internal/reconciler/managed"
)

var configMapsGR = audit.GroupResource{Resource: "configmaps"}

// cm is a ConfigMap as a snapshot holds it, with its resource for the join.
func cm(name, data string) mirror.Object {
	o := object(name, data)
	o.Resource = "configmaps"
	return o
}

func keyOfCM(name string) audit.Key {
	return audit.Key{GroupResource: configMapsGR, Namespace: "ns", Name: name}
}

func by(user string) audit.Fact {
	return audit.Fact{User: audit.User{Username: user, Groups: []string{"system:authenticated"}}, Verb: "update"}
}

// joinBed is a Mirror with attribution Audit over a fake folder and
// snapshot, a real audit Store and a fake clock.
type joinBed struct {
	t     *testing.T
	clk   *clocktesting.FakeClock
	store *audit.Store
	attr  *attribution.Attributions
	repo  *fakeRepository
	src   *fakeSources
	mg    *v1alpha1.Mirror
	woken []types.NamespacedName
}

var configured = git.Signature{Name: "Platform Bot", Email: "bot@example.org"}

func newJoinBed(t *testing.T, mutate ...func(*v1alpha1.Mirror)) *joinBed {
	t.Helper()
	b := &joinBed{t: t, clk: clocktesting.NewFakeClock(time.Unix(1000, 0))}
	b.store = audit.NewStore(audit.WithClock(b.clk))
	b.attr = attribution.NewAttributions(b.store, b.clk, 3*time.Second, nil)
	b.attr.SetWaker(func(nn types.NamespacedName) { b.woken = append(b.woken, nn) })
	// The folder is the Mirror's already, with no object in it.
	b.repo = &fakeRepository{files: map[string]string{"live/" + MarkerFile: markerOf("ns/m")}}
	b.src = &fakeSources{snap: mirror.Snapshot{Synced: true}}
	b.mg = newMirror(append([]func(*v1alpha1.Mirror){func(m *v1alpha1.Mirror) { m.Spec.ForProvider.Attribution = v1alpha1.MirrorAttributionAudit }}, mutate...)...)
	// The Mirror's first plan registers what it watches; the Store keeps
	// facts of those only.
	b.store.Want(keyOf(b.mg), configMapsGR)
	return b
}

// observe runs one reconcile's Observe, and Create when it found a change;
// it returns the change handed to the branch writer (nil: none) and
// Observe's error.
func (b *joinBed) observe(objs ...mirror.Object) (*git.Change, error) {
	b.t.Helper()
	b.src.snap = mirror.Snapshot{Synced: true, Objects: objs, Resources: []mirror.ResourceCount{{GVR: cmGVK.GroupVersion().WithResource("configmaps"), Count: len(objs)}}}
	b.repo.enqueued = nil
	e := newExternal(b.t, b.repo, b.src)
	e.attr, e.author = b.attr, configured
	obs, err := e.Observe(context.Background(), b.mg)
	if err != nil || obs.ResourceUpToDate {
		return nil, err
	}
	if _, err := e.Create(context.Background(), b.mg); err != nil {
		if _, ok := managed.IsWaiting(err); !ok {
			b.t.Fatalf("Create: %v", err)
		}
	}
	return b.repo.enqueued, nil
}

// land makes the enqueued change the folder's content, as a push would,
// and reports it landed.
func (b *joinBed) land(c *git.Change) {
	b.t.Helper()
	for _, p := range c.Parts {
		for path, f := range p.Puts {
			b.repo.files[path] = string(f.Content)
		}
		for _, path := range p.Deletes {
			delete(b.repo.files, path)
		}
	}
	b.repo.result = &git.Result{Commit: head}
}

// commit is one part as a test reads it.
type commit struct {
	Author  git.Signature
	Files   []string
	Message string
}

// commitsOf are c's commits, their messages' trailers but Attributed-By
// (bysOf).
func commitsOf(c *git.Change) []commit {
	if c == nil {
		return nil
	}
	var out []commit
	for _, p := range c.Parts {
		files := slices.Sorted(maps.Keys(p.Puts))
		files = append(files, p.Deletes...)
		var trailers []string
		if i := strings.Index(p.Message, "\n\n"); i >= 0 {
			for l := range strings.SplitSeq(p.Message[i+2:], "\n") {
				if !strings.HasPrefix(l, attribution.TrailerAttributedBy+": ") {
					trailers = append(trailers, l)
				}
			}
		}
		out = append(out, commit{Author: p.Author, Files: files, Message: strings.Join(trailers, "\n")})
	}
	return out
}

// bysOf are the Attributed-By trailers of c's commits ("" for none).
func bysOf(c *git.Change) []string {
	if c == nil {
		return nil
	}
	var out []string
	for _, p := range c.Parts {
		by := ""
		for l := range strings.SplitSeq(p.Message, "\n") {
			if v, ok := strings.CutPrefix(l, attribution.TrailerAttributedBy+": "); ok {
				by = v
			}
		}
		out = append(out, by)
	}
	return out
}

// unresolved authors a change no audit event named.
func unresolved() git.Signature {
	return git.Signature{Name: attribution.UnresolvedName, Email: attribution.UnresolvedEmail}
}

func user(name string) git.Signature {
	return git.Signature{Name: name, Email: name + "@users.noreply.example.org"}
}

// TestAttributionOneCommitPerAuthor: three objects changed by two users and
// a ServiceAccount in one window are three commits, each authored by its
// actor, committed by the configuration's identity; the marker lands with
// the last.
func TestAttributionOneCommitPerAuthor(t *testing.T) {
	b := newJoinBed(t)
	sa := "system:serviceaccount:ns:deployer"
	for _, w := range []struct{ name, user string }{{"a", "alice"}, {"b", "bob"}, {"c", sa}} {
		b.store.Add(keyOfCM(w.name), by(w.user))
		b.clk.Step(10 * time.Millisecond)
	}
	c, err := b.observe(cm("a", "1"), cm("b", "1"), cm("c", "1"))
	if err != nil {
		t.Fatal(err)
	}
	want := []commit{
		{Author: user("alice"), Files: []string{"live/ns/core/configmap/a.yaml"}},
		{Author: user("bob"), Files: []string{"live/ns/core/configmap/b.yaml"}},
		{Author: user(sa), Files: []string{"live/" + MarkerFile, "live/ns/core/configmap/c.yaml"}},
	}
	if diff := cmp.Diff(want, commitsOf(c)); diff != "" {
		t.Errorf("commits: -want, +got:\n%s", diff)
	}
	if c != nil && c.Committer != configured {
		t.Errorf("Committer: want the configuration's identity %v, got %v", configured, c.Committer)
	}
}

// TestAttributionUnresolved: a change no fact names waits out of the write
// until the wait ends, then is authored unresolved, never the committer.
func TestAttributionUnresolved(t *testing.T) {
	b := newJoinBed(t)
	c, err := b.observe(cm("a", "1"))
	if w, ok := managed.IsWaiting(err); !ok || w.Reason != ReasonAttributing || w.After != 3*time.Second {
		t.Fatalf("Observe() within the wait: want Waiting %s for 3s, got %v", ReasonAttributing, err)
	}
	if c != nil {
		t.Fatalf("Observe() within the wait: enqueued %v, want nothing", commitsOf(c))
	}
	b.clk.Step(3 * time.Second)
	c, err = b.observe(cm("a", "1"))
	if err != nil {
		t.Fatal(err)
	}
	want := []commit{{Author: unresolved(), Files: []string{"live/" + MarkerFile, "live/ns/core/configmap/a.yaml"}}}
	if diff := cmp.Diff(want, commitsOf(c)); diff != "" {
		t.Errorf("commits: -want, +got:\n%s", diff)
	}
}

// TestAttributionFactWakes: a fact that arrives for a waiting change wakes
// its Mirror, whose next plan is authored by it.
func TestAttributionFactWakes(t *testing.T) {
	b := newJoinBed(t)
	if _, err := b.observe(cm("a", "1")); err == nil {
		t.Fatal("Observe() without a fact: want Waiting")
	}
	b.clk.Step(time.Second)
	b.store.Add(keyOfCM("a"), by("alice"))
	if diff := cmp.Diff([]types.NamespacedName{{Namespace: "ns", Name: "m"}}, b.woken); diff != "" {
		t.Errorf("woken: -want, +got:\n%s", diff)
	}
	c, err := b.observe(cm("a", "1"))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]commit{{Author: user("alice"), Files: []string{"live/" + MarkerFile, "live/ns/core/configmap/a.yaml"}}}, commitsOf(c)); diff != "" {
		t.Errorf("commits: -want, +got:\n%s", diff)
	}
}

// TestAttributionPartial: a change that waits stays out of the write while
// the others go, and the marker does not list its new file yet.
func TestAttributionPartial(t *testing.T) {
	b := newJoinBed(t)
	b.store.Add(keyOfCM("a"), by("alice"))
	c, err := b.observe(cm("a", "1"), cm("b", "1"))
	if err != nil {
		t.Fatal(err)
	}
	got := commitsOf(c)
	if diff := cmp.Diff([]commit{{Author: user("alice"), Files: []string{"live/" + MarkerFile, "live/ns/core/configmap/a.yaml"}}}, got); diff != "" {
		t.Fatalf("commits: -want, +got:\n%s", diff)
	}
	m, _ := plan.ParseMarker(c.Parts[0].Puts["live/"+MarkerFile].Content)
	if diff := cmp.Diff([]string{"ns/core/configmap/a.yaml"}, m.Files); diff != "" {
		t.Errorf("marker: -want, +got:\n%s", diff)
	}
}

// TestAttributionCoauthors: two users who changed one object in a window:
// the last is the author, the other a Co-authored-by trailer.
func TestAttributionCoauthors(t *testing.T) {
	b := newJoinBed(t)
	b.store.Add(keyOfCM("a"), by("alice"))
	b.clk.Step(time.Millisecond)
	b.store.Add(keyOfCM("a"), by("bob"))
	c, err := b.observe(cm("a", "2"))
	if err != nil {
		t.Fatal(err)
	}
	want := []commit{{Author: user("bob"), Files: []string{"live/" + MarkerFile, "live/ns/core/configmap/a.yaml"}, Message: "Co-authored-by: alice <alice@users.noreply.example.org>"}}
	if diff := cmp.Diff(want, commitsOf(c)); diff != "" {
		t.Errorf("commits: -want, +got:\n%s", diff)
	}
	if diff := cmp.Diff([]string{attribution.ByAudit}, bysOf(c)); diff != "" {
		t.Errorf("Attributed-By: -want, +got:\n%s", diff)
	}
}

// TestAttributionSpent: the facts a landed commit used are spent: the
// object's next change waits for facts of its own.
func TestAttributionSpent(t *testing.T) {
	b := newJoinBed(t)
	b.store.Add(keyOfCM("a"), by("alice"))
	c, err := b.observe(cm("a", "1"))
	if err != nil || c == nil {
		t.Fatalf("first change: %v, %v", c, err)
	}
	b.land(c)
	b.clk.Step(100 * time.Millisecond)
	c, err = b.observe(cm("a", "2"))
	if w, ok := managed.IsWaiting(err); !ok || w.Reason != ReasonAttributing {
		t.Errorf("second change without a fact: want Waiting %s, got %v and %v", ReasonAttributing, commitsOf(c), err)
	}
}

// TestAttributionIgnoredUsers: a change whose facts all name ignored users
// keeps the file as it was (no commit); a change by anyone else commits
// the whole live object, authored by them.
func TestAttributionIgnoredUsers(t *testing.T) {
	flux := "system:serviceaccount:flux-system:kustomize-controller"
	b := newJoinBed(t, func(m *v1alpha1.Mirror) { m.Spec.ForProvider.Ignore = &v1alpha1.MirrorIgnore{Users: []string{flux}} })
	b.store.Add(keyOfCM("a"), by(flux))
	c, err := b.observe(cm("a", "1"))
	if w, ok := managed.IsWaiting(err); !ok || w.Reason != ReasonAttributing {
		t.Fatalf("ignored on the facts so far, within the wait: want Waiting %s, got %v", ReasonAttributing, err)
	}
	if c != nil {
		t.Fatalf("a change by an ignored user alone: enqueued %v, want nothing", commitsOf(c))
	}
	b.clk.Step(3 * time.Second)
	if c, err = b.observe(cm("a", "1")); err != nil || c != nil {
		t.Fatalf("once the wait is over: enqueued %v (%v), want nothing", commitsOf(c), err)
	}
	// Still nothing at the next reconcile, whatever the wait.
	b.clk.Step(time.Minute)
	if c, err = b.observe(cm("a", "1")); err != nil || c != nil {
		t.Fatalf("the same content again: enqueued %v (%v), want nothing", commitsOf(c), err)
	}
	b.store.Add(keyOfCM("a"), by("alice"))
	c, err = b.observe(cm("a", "2"))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]commit{{Author: user("alice"), Files: []string{"live/" + MarkerFile, "live/ns/core/configmap/a.yaml"}}}, commitsOf(c)); diff != "" {
		t.Errorf("commits: -want, +got:\n%s", diff)
	}
}

// TestAttributionIgnoredIsProvisional: an ignored manager (Flux) and a
// person change one object within the wait, their facts in separate
// batches, in either order; the plan run after the first batch does not
// settle "ignored", and the person's change is committed, authored by
// them. Before, a plan that saw Flux's fact alone recorded the content as
// ignored and the person's change never reached Git.
func TestAttributionIgnoredIsProvisional(t *testing.T) {
	flux := "system:serviceaccount:flux-system:kustomize-controller"
	for name, order := range map[string][]string{"FluxFirst": {flux, "alice"}, "PersonFirst": {"alice", flux}} {
		t.Run(name, func(t *testing.T) {
			b := newJoinBed(t, func(m *v1alpha1.Mirror) { m.Spec.ForProvider.Ignore = &v1alpha1.MirrorIgnore{Users: []string{flux}} })
			var c *git.Change
			var err error
			for _, u := range order {
				b.store.Add(keyOfCM("a"), by(u))
				if c, err = b.observe(cm("a", "1")); c != nil {
					break
				}
				b.clk.Step(time.Second)
			}
			if c == nil {
				b.clk.Step(3 * time.Second)
				if c, err = b.observe(cm("a", "1")); err != nil {
					t.Fatal(err)
				}
			}
			got := commitsOf(c)
			if len(got) != 1 || got[0].Author != user("alice") {
				t.Errorf("the person's change: want one commit authored by alice, got %+v (%v)", got, err)
			}
		})
	}
}

// TestAttributionIgnoredContentMoved: Flux creates an object; while its
// change waits out the provisional "ignored", a person edits it, and a plan
// sees the person's content before the person's audit event came, past the
// wait of Flux's. The verdict must not be recorded for the person's
// content on Flux's fact alone: it waits a wait of its own, and the
// person's change is committed, authored by them. Before, the verdict
// stuck and the person's edit never reached Git (TestIgnoredUsers under
// load).
func TestAttributionIgnoredContentMoved(t *testing.T) {
	flux := "system:serviceaccount:flux-system:kustomize-controller"
	b := newJoinBed(t, func(m *v1alpha1.Mirror) { m.Spec.ForProvider.Ignore = &v1alpha1.MirrorIgnore{Users: []string{flux}} })
	b.store.Add(keyOfCM("a"), by(flux))
	if c, err := b.observe(cm("a", "1")); c != nil || err == nil {
		t.Fatalf("Flux's create within the wait: enqueued %v (%v), want a wait", commitsOf(c), err)
	}
	b.clk.Step(2 * time.Second)
	// The person's content, past Flux's wait, with only Flux's fact yet.
	b.clk.Step(2 * time.Second)
	c, err := b.observe(cm("a", "2"))
	if w, ok := managed.IsWaiting(err); !ok || w.Reason != ReasonAttributing || c != nil {
		t.Fatalf("new content seen with only an ignored user's fact: enqueued %v (%v), want Waiting %s", commitsOf(c), err, ReasonAttributing)
	}
	b.store.Add(keyOfCM("a"), by("alice"))
	if c, err = b.observe(cm("a", "2")); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]commit{{Author: user("alice"), Files: []string{"live/" + MarkerFile, "live/ns/core/configmap/a.yaml"}}}, commitsOf(c)); diff != "" {
		t.Errorf("the person's edit: -want, +got:\n%s", diff)
	}
}

// TestAttributionOff: a Mirror without attribution writes one change as
// before, authored by the configuration.
func TestAttributionOff(t *testing.T) {
	b := newJoinBed(t, func(m *v1alpha1.Mirror) { m.Spec.ForProvider.Attribution = "" })
	b.store.Add(keyOfCM("a"), by("alice"))
	c, err := b.observe(cm("a", "1"))
	if err != nil || c == nil {
		t.Fatalf("Observe(): %v, %v", c, err)
	}
	if len(c.Parts) != 0 || c.Author != configured {
		t.Errorf("want one change authored by the configuration, got %d parts by %v", len(c.Parts), c.Author)
	}
}
