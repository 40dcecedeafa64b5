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

package git

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
)

// blobHanger is a smart-HTTP proxy that, once hang is set, holds every
// upload-pack request (a fetch of blobs, in a partial clone that is open)
// until the test releases it, then forwards it: a server that stops
// answering mid-fetch, and comes back.
type blobHanger struct {
	URL string
	// hang makes upload-pack requests wait for release.
	hang atomic.Bool
	// arrived receives each request held, once it is held.
	arrived chan struct{}
	release chan struct{}
}

func newBlobHanger(t testing.TB, target string) *blobHanger {
	t.Helper()
	u, err := url.Parse(target)
	if err != nil {
		t.Fatal(err)
	}
	h := &blobHanger{arrived: make(chan struct{}, 16), release: make(chan struct{})}
	rp := httputil.NewSingleHostReverseProxy(u)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if h.hang.Load() && r.Method == http.MethodPost && strings.HasSuffix(r.URL.Path, "/git-upload-pack") {
			h.arrived <- struct{}{}
			select {
			case <-h.release:
			case <-r.Context().Done():
				return
			}
		}
		rp.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	// Runs before srv.Close (cleanups run last first): a request still held
	// is let go, so Close does not wait for it.
	t.Cleanup(h.unhang)
	h.URL = srv.URL
	return h
}

// unhang lets the held requests, and any later one, through.
func (h *blobHanger) unhang() {
	if h.hang.CompareAndSwap(true, false) {
		close(h.release)
	}
}

// TestReadEndsWithItsContext: a read of a blob the partial clone lacks,
// while the server holds the blob fetch unanswered, returns a transient
// error once its context ends, not after the fetch timeout (2 minutes,
// and up to about four of them); the batch goes on for the others, and a
// read after the server answers gets the content.
func TestReadEndsWithItsContext(t *testing.T) {
	t.Parallel()
	s := partialServer(t, servesFilterReachable)
	h := newBlobHanger(t, s.http.URL)
	r, _ := newRepo(t, Remote{URL: strings.Replace(s.remote.URL, s.http.URL, h.URL, 1), Auth: s.remote.Auth})
	if err := r.Refresh(ctx(t), 0, "main"); err != nil {
		t.Fatal(err)
	}
	if !r.Partial() {
		t.Fatal("the clone is not partial: the test tests nothing")
	}
	head := mustHead(t, r, "main")
	h.hang.Store(true)

	rctx, cancel := context.WithCancel(ctx(t))
	defer cancel()
	type read struct {
		b   Blob
		err error
	}
	done := make(chan read, 1)
	go func() {
		b, err := r.ReadFileMax(rctx, head, "apps/a.yaml", 1<<20)
		done <- read{b, err}
	}()
	<-h.arrived // the blob fetch is at the server, and held there
	cancel()
	var got read
	select {
	case got = <-done:
	case <-ctx(t).Done():
		t.Fatal("the read did not return when its context ended")
	}
	var gerr *Error
	if !errors.As(got.err, &gerr) || gerr.Kind != KindTransient || !errors.Is(got.err, context.Canceled) {
		t.Errorf("ReadFileMax with its context ended = %q, %v; want a transient error wrapping context.Canceled", got.b.Content, got.err)
	}

	h.unhang()
	if b, err := r.ReadFile(ctx(t), head, "apps/a.yaml"); err != nil || string(b.Content) != "a: 1\n" {
		t.Errorf("ReadFile once the server answers = %q, %v; want a: 1", b.Content, err)
	}
}
