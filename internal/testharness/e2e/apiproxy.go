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

package e2e

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
)

// APICounts are the requests one process sent the API server through a
// CountingAPIProxy, counted as they arrive (a watch once, when it opens).
type APICounts struct {
	// All is every request.
	All int64
	// Leases is every request on coordination.k8s.io Leases: reads,
	// writes, lists and watches.
	Leases int64
}

// CountingAPIProxy is a plain-HTTP reverse proxy on loopback in front of the
// control plane, for one process: its kubeconfig points here, and every
// request it sends is counted on the way, by the proxy rather than by the
// process's own metrics, so a figure of API load does not rest on what the
// code under test says it asked.
type CountingAPIProxy struct {
	// Kubeconfig is the path of a kubeconfig that reaches the control
	// plane through the proxy.
	Kubeconfig string
	all        atomic.Int64
	leases     atomic.Int64
}

// Counts returns the requests counted so far.
func (p *CountingAPIProxy) Counts() APICounts {
	return APICounts{All: p.all.Load(), Leases: p.leases.Load()}
}

// StartCountingAPIProxy serves a CountingAPIProxy until the test ends. The
// proxy reaches the API server as a cluster administrator.
func StartCountingAPIProxy(t testing.TB) *CountingAPIProxy {
	t.Helper()
	cfg, err := CP.UserConfig("provider-binary-counted", "system:masters")
	if err != nil {
		t.Fatal(err)
	}
	target, err := url.Parse(cfg.Host)
	if err != nil {
		t.Fatal(err)
	}
	rt, err := rest.TransportFor(cfg)
	if err != nil {
		t.Fatal(err)
	}
	p := &CountingAPIProxy{}
	rp := httputil.NewSingleHostReverseProxy(target)
	// Watches stream: every event goes on as it comes.
	rp.Transport, rp.FlushInterval = rt, -1
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{ReadHeaderTimeout: 10 * time.Second, Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p.all.Add(1)
		if strings.Contains(r.URL.Path, "/apis/coordination.k8s.io/") && strings.Contains(r.URL.Path, "/leases") {
			p.leases.Add(1)
		}
		rp.ServeHTTP(w, r)
	})}
	go func() { _ = srv.Serve(l) }() // ErrServerClosed at cleanup
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if err := srv.Shutdown(ctx); err != nil && !errors.Is(err, context.DeadlineExceeded) {
			t.Log(err)
		}
		_ = srv.Close() // watches never end by themselves
	})
	kc := clientcmdapi.NewConfig()
	kc.Clusters["proxy"] = &clientcmdapi.Cluster{Server: "http://" + l.Addr().String()}
	kc.AuthInfos["proxy"] = &clientcmdapi.AuthInfo{}
	kc.Contexts["proxy"] = &clientcmdapi.Context{Cluster: "proxy", AuthInfo: "proxy"}
	kc.CurrentContext = "proxy"
	b, err := clientcmd.Write(*kc)
	if err != nil {
		t.Fatal(err)
	}
	p.Kubeconfig = filepath.Join(t.TempDir(), "kubeconfig")
	if err := os.WriteFile(p.Kubeconfig, b, 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}
