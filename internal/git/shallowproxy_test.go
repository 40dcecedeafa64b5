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
	"bytes"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
)

// shallowDropper is a smart-HTTP proxy that drops the shallow lines of
// every upload-pack request: a server that takes every clone for whole.
// With unoffered set, it also takes "shallow" out of the capabilities the
// server advertises: a server that offers no shallow fetches at all.
type shallowDropper struct {
	URL       string
	drops     atomic.Int64
	unoffered atomic.Bool
}

func newShallowDropper(t testing.TB, target string) *shallowDropper {
	t.Helper()
	u, err := url.Parse(target)
	if err != nil {
		t.Fatal(err)
	}
	d := &shallowDropper{}
	rp := httputil.NewSingleHostReverseProxy(u)
	rp.ModifyResponse = d.unoffer
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost && strings.HasSuffix(r.URL.Path, "/git-upload-pack") {
			body, err := io.ReadAll(r.Body)
			if err != nil {
				http.Error(w, err.Error(), http.StatusBadRequest)
				return
			}
			body = d.drop(body)
			r.Body, r.ContentLength = io.NopCloser(bytes.NewReader(body)), int64(len(body))
			r.Header.Set("Content-Length", strconv.Itoa(len(body)))
		}
		rp.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	d.URL = srv.URL
	return d
}

// drop returns the pkt-lines of body without those that start "shallow ".
func (d *shallowDropper) drop(body []byte) []byte {
	return rewritePktLines(body, func(line string) (string, bool) {
		if strings.HasPrefix(line, "shallow ") {
			d.drops.Add(1)
			return "", false
		}
		return line, true
	})
}

func (d *shallowDropper) dropped() int64 { return d.drops.Load() }

// unoffer takes the shallow capability out of an upload-pack advertisement
// (the first ref line's, after its NUL) when d.unoffered is set.
func (d *shallowDropper) unoffer(resp *http.Response) error {
	if !d.unoffered.Load() || !strings.HasSuffix(resp.Request.URL.Path, "/info/refs") {
		return nil
	}
	body, err := io.ReadAll(resp.Body)
	_ = resp.Body.Close()
	if err != nil {
		return err
	}
	body = rewritePktLines(body, func(line string) (string, bool) {
		ref, caps, ok := strings.Cut(line, "\x00")
		if !ok {
			return line, true
		}
		var kept []string
		for _, c := range strings.Fields(caps) {
			if c != "shallow" {
				kept = append(kept, c)
			}
		}
		return ref + "\x00" + strings.Join(kept, " ") + "\n", true
	})
	resp.Body = io.NopCloser(bytes.NewReader(body))
	resp.ContentLength = int64(len(body))
	resp.Header.Set("Content-Length", strconv.Itoa(len(body)))
	return nil
}

// rewritePktLines passes each pkt-line's payload of body through f, which
// returns what to write instead, or false to drop the line. Flushes and
// anything after a malformed length pass unchanged.
func rewritePktLines(body []byte, f func(line string) (string, bool)) []byte {
	var out bytes.Buffer
	for len(body) >= 4 {
		n, perr := strconv.ParseUint(string(body[:4]), 16, 16)
		if perr != nil || (n > 0 && (n < 4 || int(n) > len(body))) {
			break
		}
		if n == 0 {
			out.Write(body[:4])
			body = body[4:]
			continue
		}
		if line, keep := f(string(body[4:n])); keep {
			fmt.Fprintf(&out, "%04x%s", len(line)+4, line)
		}
		body = body[n:]
	}
	out.Write(body)
	return out.Bytes()
}

// TestTooManyShallowLinesRefused: a server whose answer names thousands of
// boundary commits for one wanted head (each would be looked up under the
// clone's lock) has its fetch refused, and nothing of it stored.
func TestTooManyShallowLinesRefused(t *testing.T) {
	t.Parallel()
	s := deepServer(t, 30)
	u, err := url.Parse(s.http.URL)
	if err != nil {
		t.Fatal(err)
	}
	var added atomic.Int64
	rp := httputil.NewSingleHostReverseProxy(u)
	rp.ModifyResponse = func(resp *http.Response) error {
		if resp.Request.Method != http.MethodPost || !strings.HasSuffix(resp.Request.URL.Path, "/git-upload-pack") {
			return nil
		}
		body, err := io.ReadAll(resp.Body)
		_ = resp.Body.Close()
		if err != nil {
			return err
		}
		body = addShallowLines(body, maxShallowLines(1)+1, &added)
		resp.Body, resp.ContentLength = io.NopCloser(bytes.NewReader(body)), int64(len(body))
		resp.Header.Set("Content-Length", strconv.Itoa(len(body)))
		return nil
	}
	srv := httptest.NewServer(rp)
	t.Cleanup(srv.Close)
	s.remote.URL = srv.URL + "/" + s.repo.Name
	r, _ := newRepo(t, s.remote, WithHistoryDepth(10))
	if err := r.Refresh(ctx(t), 0, "main"); err == nil {
		t.Fatal("a fetch whose answer names thousands of shallow commits for one head was taken")
	}
	if added.Load() == 0 {
		t.Fatal("the proxy added no shallow line: the test tests nothing")
	}
	if n, sh := clonedCommits(t, r); n != 0 || sh != 0 {
		t.Errorf("the refused fetch left %d commits and %d shallow commits in the clone, want none", n, sh)
	}
}

// addShallowLines writes n made-up "shallow" pkt-lines after the first
// one of an upload-pack answer's shallow-info section.
func addShallowLines(body []byte, n int, added *atomic.Int64) []byte {
	i := bytes.Index(body, []byte("shallow "))
	if i < 4 {
		return body
	}
	end := i - 4 + int(mustHex(body[i-4:i]))
	var extra bytes.Buffer
	for k := range n {
		fmt.Fprintf(&extra, "%04xshallow %040x\n", 4+8+40+1, k+1)
	}
	added.Add(int64(n))
	return append(append(append([]byte{}, body[:end]...), extra.Bytes()...), body[end:]...)
}

func mustHex(b []byte) uint64 {
	n, err := strconv.ParseUint(string(b), 16, 16)
	if err != nil {
		panic(err)
	}
	return n
}
