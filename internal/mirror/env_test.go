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
	"net/http"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	authorizationv1 "k8s.io/api/authorization/v1"
	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/crossplane/crossplane-runtime/v2/pkg/logging"

	"github.com/crossplane-contrib/provider-git/internal/testharness/testenv"
)

// The control plane is shared by every test and benchmark in this package
// and started on first use: starting kube-apiserver and etcd costs seconds.
var (
	cpOnce sync.Once
	cp     *testenv.ControlPlane
	cpErr  error
)

func TestMain(m *testing.M) {
	code := m.Run()
	if cp != nil {
		_ = cp.Stop()
	}
	os.Exit(code)
}

func controlPlane(t testing.TB) *testenv.ControlPlane {
	t.Helper()
	testenv.Integration(t)
	cpOnce.Do(func() {
		s := runtime.NewScheme()
		if cpErr = clientgoscheme.AddToScheme(s); cpErr != nil {
			return
		}
		if cpErr = apiextensionsv1.AddToScheme(s); cpErr != nil {
			return
		}
		cp, cpErr = testenv.StartControlPlane(testenv.ControlPlaneOptions{Scheme: s})
	})
	if cpErr != nil {
		t.Fatalf("cannot start control plane: %v", cpErr)
	}
	return cp
}

var nsSeq atomic.Int64

func newNamespace(t testing.TB, c client.Client) string {
	t.Helper()
	ns := fmt.Sprintf("m%d-%d", time.Now().UnixNano()%1e6, nsSeq.Add(1))
	if err := c.Create(context.Background(), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}); err != nil {
		t.Fatal(err)
	}
	return ns
}

// wakes records wake calls per owner.
type wakes struct {
	mu sync.Mutex
	n  map[types.NamespacedName]int
}

func (w *wakes) wake(o types.NamespacedName) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.n[o]++
}

func (w *wakes) of(o types.NamespacedName) int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.n[o]
}

// counter counts API requests by method and path while on.
type counter struct {
	mu    sync.Mutex
	reqs  []string
	gate  func(*http.Request) // called before a request goes out; may block
	ssars atomic.Int64
}

func (c *counter) wrap(rt http.RoundTripper) http.RoundTripper {
	return roundTripperFunc(func(r *http.Request) (*http.Response, error) {
		c.mu.Lock()
		c.reqs = append(c.reqs, r.Method+" "+r.URL.Path+"?"+r.URL.RawQuery)
		gate := c.gate
		c.mu.Unlock()
		if gate != nil {
			gate(r)
		}
		return rt.RoundTrip(r)
	})
}

func (c *counter) requests() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]string(nil), c.reqs...)
}

type roundTripperFunc func(*http.Request) (*http.Response, error)

func (f roundTripperFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// harness is Sources started against the control plane as the identity of
// cfg, with every request it sends counted.
type harness struct {
	s     *Sources
	wakes *wakes
	reqs  *counter
}

func startSources(t testing.TB, cfg *rest.Config, o ...Option) *harness {
	t.Helper()
	h := newHarness(t, cfg, o...)
	h.start(t)
	return h
}

// newHarness is startSources without the Start.
func newHarness(t testing.TB, cfg *rest.Config, o ...Option) *harness {
	t.Helper()
	h := &harness{wakes: &wakes{n: map[types.NamespacedName]int{}}, reqs: &counter{}}
	cfg = rest.CopyConfig(cfg)
	cfg.Wrap(h.reqs.wrap)
	dyn, err := dynamic.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	disco, err := discovery.NewDiscoveryClientForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	kc, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ssar := kc.AuthorizationV1().SelfSubjectAccessReviews()
	az := AccessReviewerFn(func(ctx context.Context, r *authorizationv1.SelfSubjectAccessReview, o metav1.CreateOptions) (*authorizationv1.SelfSubjectAccessReview, error) {
		h.reqs.ssars.Add(1)
		return ssar.Create(ctx, r, o)
	})
	h.s = NewSources(dyn, disco, az, h.wakes.wake, logging.NewNopLogger(), o...)
	return h
}

// start runs Start until the test ends.
func (h *harness) start(t testing.TB) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- h.s.Start(ctx) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("Start: %v", err)
		}
	})
}

// ensureSynced calls Ensure until its snapshot is synced, and returns it.
func ensureSynced(t testing.TB, s *Sources, r Request) Snapshot {
	t.Helper()
	var snap Snapshot
	testenv.Eventually(t, 30*time.Second, func() error {
		var err error
		snap, err = s.Ensure(context.Background(), r)
		if err != nil {
			return err
		}
		if !snap.Synced {
			return fmt.Errorf("not synced")
		}
		return nil
	})
	return snap
}

// paths returns the paths of snap's objects.
func paths(snap Snapshot) []string {
	p := make([]string, 0, len(snap.Objects))
	for _, o := range snap.Objects {
		p = append(p, o.Path)
	}
	return p
}

func isWatch(r *http.Request) bool { return strings.Contains(r.URL.RawQuery, "watch=true") }
