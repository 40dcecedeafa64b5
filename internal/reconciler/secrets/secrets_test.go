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

package secrets

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	kerrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	corev1client "k8s.io/client-go/kubernetes/typed/core/v1"
	"k8s.io/client-go/util/workqueue"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/crossplane-contrib/provider-git/internal/testharness/testenv"
)

// countingReader counts the reads that reach the API server.
type countingReader struct {
	client.Reader
	mu sync.Mutex
	n  int
}

func (r *countingReader) Get(ctx context.Context, key client.ObjectKey, obj client.Object, opts ...client.GetOption) error {
	r.mu.Lock()
	r.n++
	r.mu.Unlock()
	return r.Reader.Get(ctx, key, obj, opts...)
}

func (r *countingReader) count() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.n
}

// TestCache runs the cache against a real API server: a retained Secret is
// served from its watch, a change of it is announced, another Secret of the
// namespace is never held, and a Secret nobody retains is read directly.
func TestCache(t *testing.T) {
	cp, err := testenv.StartControlPlane(testenv.ControlPlaneOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cp.Stop() })
	ctx := t.Context()
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "cfg"}}
	mk := func(name, v string) *corev1.Secret {
		return &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: "cfg", Name: name}, Data: map[string][]byte{"k": []byte(v)}}
	}
	for _, o := range []client.Object{ns, mk("creds", "1"), mk("helm-release", "big")} {
		if err := cp.Client.Create(ctx, o); err != nil {
			t.Fatal(err)
		}
	}
	cs, err := corev1client.NewForConfig(cp.Config)
	if err != nil {
		t.Fatal(err)
	}
	direct := &countingReader{Reader: cp.Client}
	c := NewCache(cs, direct)
	q := workqueue.NewTypedRateLimitingQueue(workqueue.DefaultTypedControllerRateLimiter[reconcile.Request]())
	t.Cleanup(q.ShutDown)
	creds := types.NamespacedName{Namespace: "cfg", Name: "creds"}
	src := c.Source(func(_ context.Context, key types.NamespacedName) []reconcile.Request {
		return []reconcile.Request{{NamespacedName: types.NamespacedName{Name: "for-" + key.Name}}}
	})
	if err := src.Start(ctx, q); err != nil {
		t.Fatal(err)
	}
	// Retained before Start: watched once it starts.
	c.Retain("ProviderConfig/cfg/git", []types.NamespacedName{creds})
	cctx, cancel := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- c.Start(cctx) }()
	t.Cleanup(func() { cancel(); <-done })

	read := func(key types.NamespacedName) (string, error) {
		s := &corev1.Secret{}
		err := c.Get(ctx, key, s)
		return string(s.Data["k"]), err
	}
	// Once the watch listed it, reads are served from it.
	testenv.Eventually(t, 10*time.Second, func() error {
		before := direct.count()
		v, err := read(creds)
		if err != nil || v != "1" {
			return fmt.Errorf("creds: %q, %w", v, err)
		}
		if direct.count() != before {
			return fmt.Errorf("creds was read from the API server, not from its watch")
		}
		return nil
	})
	// A change is announced and served.
	s := mk("creds", "2")
	if err := cp.Client.Update(ctx, s); err != nil {
		t.Fatal(err)
	}
	testenv.Eventually(t, 10*time.Second, func() error {
		if v, err := read(creds); err != nil || v != "2" {
			return fmt.Errorf("creds after the update: %q, %w", v, err)
		}
		return nil
	})
	testenv.Eventually(t, 10*time.Second, func() error {
		if q.Len() == 0 {
			return fmt.Errorf("a change of creds enqueued nothing")
		}
		return nil
	})
	for q.Len() > 0 {
		r, _ := q.Get()
		q.Done(r)
		if r.Name != "for-creds" {
			t.Errorf("a change of creds enqueued %v", r)
		}
	}

	// The other Secret of the namespace is not held: it is read directly.
	before := direct.count()
	if v, err := read(types.NamespacedName{Namespace: "cfg", Name: "helm-release"}); err != nil || v != "big" {
		t.Errorf("helm-release: %q, %v", v, err)
	}
	if direct.count() != before+1 {
		t.Errorf("a Secret nobody retains was not read from the API server")
	}
	if got := c.Watched(); len(got) != 1 || got[0] != creds {
		t.Errorf("watched %v, want only %v", got, creds)
	}

	// A Secret deleted is NotFound from the watch.
	if err := cp.Client.Delete(ctx, s); err != nil {
		t.Fatal(err)
	}
	testenv.Eventually(t, 10*time.Second, func() error {
		if _, err := read(creds); !kerrors.IsNotFound(err) {
			return fmt.Errorf("creds after its deletion: %w, want NotFound", err)
		}
		return nil
	})

	// Let go of: the watch stops, reads go to the API server.
	c.Retain("ProviderConfig/cfg/git", nil)
	if got := c.Watched(); len(got) != 0 {
		t.Errorf("watched %v after the only owner let go", got)
	}
	before = direct.count()
	if _, err := read(creds); !kerrors.IsNotFound(err) {
		t.Errorf("creds: %v, want NotFound", err)
	}
	if direct.count() != before+1 {
		t.Errorf("a Secret nobody retains any more was not read from the API server")
	}
}
