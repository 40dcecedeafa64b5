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
	"fmt"
	"sync"
	"testing"

	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	"github.com/crossplane-contrib/provider-git/apis/v1alpha1"
	"github.com/crossplane-contrib/provider-git/internal/encrypt"
	"github.com/crossplane-contrib/provider-git/internal/git"
	"github.com/crossplane-contrib/provider-git/internal/mirror"
)

// countingRepo counts the blobs a Mirror reads from its clone.
type countingRepo struct {
	*fakeRepository
	mu    sync.Mutex
	reads int
}

func (r *countingRepo) ReadFileMax(ctx context.Context, commit, p string, limit int64) (git.Blob, error) {
	r.mu.Lock()
	r.reads++
	r.mu.Unlock()
	return r.fakeRepository.ReadFileMax(ctx, commit, p, limit)
}

func (r *countingRepo) take() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	n := r.reads
	r.reads = 0
	return n
}

// countingKube counts the lists of ProviderConfigs and ClusterProviderConfigs.
type countingKube struct {
	client.Client
	mu    sync.Mutex
	lists map[string]int
}

func (k *countingKube) List(ctx context.Context, l client.ObjectList, opts ...client.ListOption) error {
	k.mu.Lock()
	k.lists[fmt.Sprintf("%T", l)]++
	k.mu.Unlock()
	return k.Client.List(ctx, l, opts...)
}

func (k *countingKube) take() map[string]int {
	k.mu.Lock()
	defer k.mu.Unlock()
	n := k.lists
	k.lists = map[string]int{}
	return n
}

// steadyMirror is a Mirror of n Secrets whose folder already holds each,
// encrypted, and the marker owning them: the state of every poll once the
// Mirror converged.
type steadyMirror struct {
	mg     *v1alpha1.Mirror
	kube   *countingKube
	repo   *countingRepo
	src    *fakeSources
	keys   *encrypt.Keys
	sealer *encrypt.Sealer
	memo   *sealedFiles
}

func newSteadyMirror(tb testing.TB, n int) *steadyMirror {
	tb.Helper()
	keys := newKeys(tb)
	mg := newMirror(func(m *v1alpha1.Mirror) {
		m.Spec.ForProvider.Resources = []v1alpha1.MirrorResource{{APIVersion: "v1", Kind: "Secret"}}
	})
	snap := mirror.Snapshot{Synced: true}
	files := map[string]string{}
	var paths []string
	for i := range n {
		name := fmt.Sprintf("s-%04d", i)
		o := mirror.Object{
			Path: mirror.Path(secretGVK, "ns", name), GVK: secretGVK, Namespace: "ns", Name: name, Secret: true,
			Content: []byte("apiVersion: v1\nkind: Secret\nmetadata:\n  name: " + name + "\n  namespace: ns\ndata:\n  password: " + secretValue + "\n"),
		}
		doc, err := encrypt.Encrypt(keys, o.Content)
		if err != nil {
			tb.Fatal(err)
		}
		snap.Objects = append(snap.Objects, o)
		files["live/"+o.Path] = string(doc)
		paths = append(paths, o.Path)
	}
	files["live/"+MarkerFile] = markerOf("ns/m", paths...)
	// A configuration reading one Secret of the namespace, which is not
	// among the mirrored ones: the guard has something to look at.
	pc := &v1alpha1.ProviderConfig{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "git"}, Spec: v1alpha1.ProviderConfigSpec{
		URL: "https://example.org/r.git",
		Credentials: v1alpha1.ProviderCredentials{Source: xpv2.CredentialsSourceSecret,
			SecretRef: &v1alpha1.LocalCredentialsSecretRef{Name: "git-credentials"}},
	}}
	cpc := &v1alpha1.ClusterProviderConfig{ObjectMeta: metav1.ObjectMeta{Name: "shared"}}
	return &steadyMirror{
		mg:   mg,
		kube: &countingKube{Client: fakeKube(tb, pc, cpc), lists: map[string]int{}},
		repo: &countingRepo{fakeRepository: &fakeRepository{files: files}},
		src:  &fakeSources{snap: snap}, keys: keys, sealer: encrypt.NewSealer(0), memo: newSealedFiles(),
	}
}

func fakeKube(tb testing.TB, objs ...client.Object) client.Client {
	tb.Helper()
	s := runtime.NewScheme()
	if err := v1alpha1.SchemeBuilder.AddToScheme(s); err != nil {
		tb.Fatal(err)
	}
	return fake.NewClientBuilder().WithScheme(s).WithObjects(objs...).Build()
}

// observe runs one Observe, as one reconcile's external client would, and
// returns the blobs it read and the configurations it listed.
func (s *steadyMirror) observe(tb testing.TB) (reads int, lists map[string]int) {
	tb.Helper()
	e := &external{kube: s.kube, claims: letGo, repo: s.repo, src: s.src, watch: fakeTracker{}, keys: s.keys, sealer: s.sealer, memo: s.memo}
	s.repo.take()
	s.kube.take()
	obs, err := e.Observe(context.Background(), s.mg.DeepCopy())
	if err != nil {
		tb.Fatal(err)
	}
	if !obs.ResourceUpToDate {
		tb.Fatalf("a converged folder is not up to date: %+v", obs)
	}
	return s.repo.take(), s.kube.take()
}

// configLists sums the lists of either configuration kind.
func configLists(lists map[string]int) (pcs, cpcs int) {
	return lists["*v1alpha1.ProviderConfigList"], lists["*v1alpha1.ClusterProviderConfigList"]
}

// TestSteadyObserveOfSecrets: once a Mirror's encrypted Secrets are known to
// hold what the live Secrets hold, an Observe that finds the same blobs
// reads none of them, nor the marker, and lists each configuration kind at
// most once, however many Secrets there are.
func TestSteadyObserveOfSecrets(t *testing.T) {
	const n = 20
	s := newSteadyMirror(t, n)
	// The first Observe after a start knows nothing: it reads and decrypts.
	if reads, _ := s.observe(t); reads == 0 {
		t.Errorf("the first Observe read no blob: it cannot have checked the files it never saw")
	}
	for i := range 3 {
		reads, lists := s.observe(t)
		pcs, cpcs := configLists(lists)
		if reads != 0 {
			t.Errorf("steady Observe %d over %d Secrets read %d blobs, want 0", i, n, reads)
		}
		if pcs > 1 || cpcs > 1 {
			t.Errorf("steady Observe %d over %d Secrets listed ProviderConfigs %d and ClusterProviderConfigs %d times, want at most once each", i, n, pcs, cpcs)
		}
	}
}

// TestSteadyObserveSeesChanges: what sealedFiles keeps never hides a
// change. A Secret whose content changed, or keys that changed, make the
// file be read and encrypted again; a marker edited by hand is read again.
func TestSteadyObserveSeesChanges(t *testing.T) {
	cases := map[string]struct {
		reason string
		change func(t *testing.T, s *steadyMirror)
		// puts are the files the change must write.
		puts int
	}{
		"SecretChanged": {
			reason: "A live Secret that changed is encrypted again, though its file's blob is the one known.",
			change: func(_ *testing.T, s *steadyMirror) {
				o := &s.src.snap.Objects[0]
				o.Content = append(append([]byte{}, o.Content...), []byte("  token: bmV3\n")...)
			},
			puts: 1,
		},
		"KeysChanged": {
			reason: "A new recipient re-encrypts every Secret, though every blob is the one known.",
			change: func(t *testing.T, s *steadyMirror) {
				_, r, err := encrypt.GenerateIdentity()
				if err != nil {
					t.Fatal(err)
				}
				id, _, err := encrypt.GenerateIdentity()
				if err != nil {
					t.Fatal(err)
				}
				if s.keys, err = encrypt.NewKeys(id, r); err != nil {
					t.Fatal(err)
				}
			},
			puts: 3,
		},
		"MarkerEdited": {
			reason: "A marker whose blob changed is read again: here it no longer lists one file, which is then someone else's and adopted as that Secret.",
			change: func(_ *testing.T, s *steadyMirror) {
				var paths []string
				for _, o := range s.src.snap.Objects[1:] {
					paths = append(paths, o.Path)
				}
				s.repo.files["live/"+MarkerFile] = markerOf("ns/m", paths...)
			},
			puts: 1, // the marker, listing it again
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			s := newSteadyMirror(t, 3)
			s.observe(t)
			s.observe(t)
			tc.change(t, s)
			e := &external{kube: s.kube, claims: letGo, repo: s.repo, src: s.src, watch: fakeTracker{}, keys: s.keys, sealer: s.sealer, memo: s.memo}
			s.repo.take()
			obs, err := e.Observe(context.Background(), s.mg.DeepCopy())
			if err != nil {
				t.Fatal(err)
			}
			reads := s.repo.take()
			got := 0
			if e.change != nil {
				got = len(e.change.Puts)
			}
			if obs.ResourceUpToDate || got != tc.puts {
				t.Errorf("%s\nObserve: up to date %t, %d puts (read %d blobs), want %d puts", tc.reason, obs.ResourceUpToDate, got, reads, tc.puts)
			}
		})
	}
}
