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

package audit

import (
	"context"
	"net/http"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/prometheus/client_golang/prometheus/testutil"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	clocktesting "k8s.io/utils/clock/testing"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"
)

// blockingLoader answers its first look at once and blocks every later
// one until release is closed, telling entered when it starts one: a
// Secret Get that hangs, as one whose own audit event waits on this
// endpoint would.
type blockingLoader struct {
	creds   Credentials
	looks   atomic.Int32
	entered chan struct{}
	release chan struct{}
}

func (b *blockingLoader) version(context.Context) (string, error) {
	if b.looks.Add(1) == 1 {
		return "v1", nil
	}
	b.entered <- struct{}{}
	<-b.release
	return "v1", nil
}

func (b *blockingLoader) load(context.Context) (Credentials, error) { return b.creds, nil }

// TestReloadLookDoesNotBlock: while a look at the source hangs, handshakes
// and requests are served with the credentials in force, without waiting
// on it, and no second look starts.
func TestReloadLookDoesNotBlock(t *testing.T) {
	g := newGeneration(t, "only", "the-token")
	serving, err := credentials(g.cert, g.key, nil, []byte(g.token))
	if err != nil {
		t.Fatal(err)
	}
	b := &blockingLoader{creds: serving, entered: make(chan struct{}, 1), release: make(chan struct{})}
	clk := clocktesting.NewFakeClock(time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC))
	src, err := newReloading(context.Background(), b, []ReloadOption{WithReloadClock(clk), WithReloadInterval(10 * time.Second)})
	if err != nil {
		t.Fatal(err)
	}
	url := serveReloading(t, src)
	t.Cleanup(func() { close(b.release); settle(src) })

	clk.Step(10 * time.Second)
	// The look is started by whoever comes first after the interval; it
	// runs in a goroutine of the test so that a Current that waits on it
	// shows as the requests below failing, not as this test hanging.
	go src.Current()
	<-b.entered
	// Another interval passes while the look hangs: still one at a time.
	clk.Step(10 * time.Second)

	var got []int
	for range 3 {
		code, err := send(t, url, g.serverCA.pool(), http.MethodPost, nil, "Bearer "+g.token, list(update()))
		if err != nil {
			t.Fatalf("POST while a look hangs: %v", err)
		}
		got = append(got, code)
	}
	if diff := cmp.Diff([]int{http.StatusOK, http.StatusOK, http.StatusOK}, got); diff != "" {
		t.Errorf("requests while a look hangs: -want +got:\n%s", diff)
	}
	if n := b.looks.Load(); n != 2 {
		t.Errorf("looks at the source: got %d, want 2 (the first, and one at a time after the interval)", n)
	}
}

// TestReloadFilesContentFingerprint: a token rewritten with the same
// length and its modification time kept is still seen: the files are
// fingerprinted by content.
func TestReloadFilesContentFingerprint(t *testing.T) {
	g := newGeneration(t, "only", "token-aaaa")
	dir := t.TempDir()
	f := Files{Cert: filepath.Join(dir, "tls.crt"), Key: filepath.Join(dir, "tls.key"), Token: filepath.Join(dir, "token")}
	stamp := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	write := func(p string, b []byte) {
		t.Helper()
		if err := os.WriteFile(p, b, 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(p, stamp, stamp); err != nil {
			t.Fatal(err)
		}
	}
	write(f.Cert, g.cert)
	write(f.Key, g.key)
	write(f.Token, []byte("token-aaaa"))
	clk := clocktesting.NewFakeClock(time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC))
	src, err := ReloadFiles(context.Background(), f, WithReloadClock(clk), WithReloadInterval(10*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	write(f.Token, []byte("token-bbbb"))
	clk.Step(10 * time.Second)
	src.Current()
	settle(src)
	if diff := cmp.Diff("token-bbbb", string(src.Current().Token)); diff != "" {
		t.Errorf("token in force after a same-length rewrite with the same mtime: -want +got:\n%s", diff)
	}
}

// TestReloadFilesDeletedRevokes: deleting a file refuses every client
// (its certificate and its token) while TLS still answers with the
// serving certificate in force; writing the files back lets them in again.
func TestReloadFilesDeletedRevokes(t *testing.T) {
	g := newGeneration(t, "only", "the-token")
	dir := t.TempDir()
	f := Files{Cert: filepath.Join(dir, "tls.crt"), Key: filepath.Join(dir, "tls.key"), CA: filepath.Join(dir, "ca.crt"), Token: filepath.Join(dir, "token")}
	files := map[string][]byte{f.Cert: g.cert, f.Key: g.key, f.CA: g.clientCA.pem, f.Token: []byte(g.token)}
	for p, b := range files {
		if err := os.WriteFile(p, b, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	clk := clocktesting.NewFakeClock(time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC))
	src, err := ReloadFiles(context.Background(), f, WithReloadClock(clk), WithReloadInterval(10*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	url := serveReloading(t, src)
	look := func() {
		clk.Step(10 * time.Second)
		src.Current()
		settle(src)
	}

	got := []accepted{g.try(t, url, g.serverCA.pool())}
	if err := os.Remove(f.Token); err != nil {
		t.Fatal(err)
	}
	look()
	got = append(got, g.try(t, url, g.serverCA.pool()))
	if err := os.WriteFile(f.Token, files[f.Token], 0o600); err != nil {
		t.Fatal(err)
	}
	look()
	got = append(got, g.try(t, url, g.serverCA.pool()))
	in := accepted{Handshake: true, Certificate: http.StatusOK, Token: http.StatusOK}
	refused := accepted{Handshake: true, Certificate: http.StatusUnauthorized, Token: http.StatusUnauthorized}
	if diff := cmp.Diff([]accepted{in, refused, in}, got); diff != "" {
		t.Errorf("before, after the token file is deleted, after it is back: -want +got:\n%s", diff)
	}
}

// TestReloadSecretLookFails: a Secret that is gone (deleted, or no longer
// readable) refuses every client and keeps the serving certificate; one
// that cannot be read for a while (a timeout, a 5xx) keeps the credentials
// in force.
func TestReloadSecretLookFails(t *testing.T) {
	nn := types.NamespacedName{Namespace: "crossplane-system", Name: "audit"}
	gr := schema.GroupResource{Resource: "secrets"}
	g := newGeneration(t, "only", "the-token")
	type want struct {
		Token    string
		CertKept bool
		Reloads  map[string]float64
	}
	cases := map[string]struct {
		reason string
		err    error
		want   want
	}{
		"NotFound": {
			reason: "A deleted Secret revokes the token; TLS is still served.",
			err:    apierrors.NewNotFound(gr, nn.Name),
			want:   want{Token: "", CertKept: true, Reloads: map[string]float64{reloadRevoked: 1}},
		},
		"Forbidden": {
			reason: "A Secret the provider may no longer read revokes the token.",
			err:    apierrors.NewForbidden(gr, nn.Name, nil),
			want:   want{Token: "", CertKept: true, Reloads: map[string]float64{reloadRevoked: 1}},
		},
		"Timeout": {
			reason: "A timeout keeps the credentials in force.",
			err:    apierrors.NewTimeoutError("slow", 1),
			want:   want{Token: g.token, CertKept: true, Reloads: map[string]float64{reloadError: 2}},
		},
		"ServiceUnavailable": {
			reason: "A 5xx keeps the credentials in force.",
			err:    apierrors.NewServiceUnavailable("down"),
			want:   want{Token: g.token, CertKept: true, Reloads: map[string]float64{reloadError: 2}},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			sec := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: nn.Namespace, Name: nn.Name}, Data: map[string][]byte{
				SecretKeyCert: g.cert, SecretKeyKey: g.key, SecretKeyToken: []byte(g.token),
			}}
			var fail atomic.Bool
			c := fake.NewClientBuilder().WithObjects(sec).WithInterceptorFuncs(interceptor.Funcs{
				Get: func(ctx context.Context, c client.WithWatch, key client.ObjectKey, obj client.Object, o ...client.GetOption) error {
					if fail.Load() {
						return tc.err
					}
					return c.Get(ctx, key, obj, o...)
				},
			}).Build()
			clk := clocktesting.NewFakeClock(time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC))
			m := NewMetrics()
			src, err := ReloadSecret(context.Background(), c, nn, WithReloadClock(clk), WithReloadInterval(10*time.Second), WithReloadMetrics(m))
			if err != nil {
				t.Fatal(err)
			}
			before := src.Current().Certificate
			fail.Store(true)
			// Two looks fail alike: each failure is counted, a revocation once.
			for range 2 {
				clk.Step(10 * time.Second)
				src.Current()
				settle(src)
			}
			cur := src.Current()
			got := want{
				Token:    string(cur.Token),
				CertKept: cur.ClientCAs == nil && len(cur.Certificate.Certificate) > 0 && cmp.Equal(before.Certificate, cur.Certificate.Certificate),
				Reloads:  map[string]float64{},
			}
			for _, r := range []string{reloadTaken, reloadRevoked, reloadInvalid, reloadError} {
				if n := testutil.ToFloat64(m.reloads.WithLabelValues(r)); n > 0 {
					got.Reloads[r] = n
				}
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("%s\n-want +got:\n%s", tc.reason, diff)
			}
		})
	}
}

// TestReloadSecretDeletedAndBack: a deleted Secret refuses the token, and
// the Secret made again lets it in.
func TestReloadSecretDeletedAndBack(t *testing.T) {
	nn := types.NamespacedName{Namespace: "crossplane-system", Name: "audit"}
	g := newGeneration(t, "only", "the-token")
	newSecret := func() *corev1.Secret {
		return &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: nn.Namespace, Name: nn.Name}, Data: map[string][]byte{
			SecretKeyCert: g.cert, SecretKeyKey: g.key, SecretKeyCA: g.clientCA.pem, SecretKeyToken: []byte(g.token),
		}}
	}
	c := fake.NewClientBuilder().WithObjects(newSecret()).Build()
	clk := clocktesting.NewFakeClock(time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC))
	src, err := ReloadSecret(context.Background(), c, nn, WithReloadClock(clk), WithReloadInterval(10*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	type state struct {
		Token string
		CA    bool
	}
	look := func() state {
		clk.Step(10 * time.Second)
		src.Current()
		settle(src)
		cur := src.Current()
		return state{Token: string(cur.Token), CA: cur.ClientCAs != nil}
	}
	got := []state{look()}
	if err := c.Delete(context.Background(), newSecret()); err != nil {
		t.Fatal(err)
	}
	got = append(got, look())
	if err := c.Create(context.Background(), newSecret()); err != nil {
		t.Fatal(err)
	}
	got = append(got, look())
	want := []state{{Token: g.token, CA: true}, {}, {Token: g.token, CA: true}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("before, after the Secret is deleted, after it is made again: -want +got:\n%s", diff)
	}
}

// TestReloadIntervalBound: a Reloading source refuses an interval below
// MinReloadInterval, as the flag does: 0 would be a look per request.
func TestReloadIntervalBound(t *testing.T) {
	g := newGeneration(t, "only", "the-token")
	creds, err := credentials(g.cert, g.key, nil, []byte(g.token))
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range []time.Duration{-time.Second, 0, MinReloadInterval - time.Nanosecond} {
		b := &blockingLoader{creds: creds}
		if _, err := newReloading(context.Background(), b, []ReloadOption{WithReloadInterval(d)}); err == nil {
			t.Errorf("newReloading with interval %s: want an error", d)
		}
	}
	if _, err := newReloading(context.Background(), &blockingLoader{creds: creds}, []ReloadOption{WithReloadInterval(MinReloadInterval)}); err != nil {
		t.Errorf("newReloading with interval %s: %v", MinReloadInterval, err)
	}
}
