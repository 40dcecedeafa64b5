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

package azure

import (
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
)

func TestPagesEnd(t *testing.T) {
	// A forge (an API URL a tenant chose) that names a next page for ever.
	var served atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if served.Add(1) > 2*maxPages {
			http.Error(w, "enough", http.StatusGone)
			return
		}
		w.Header().Set(continuationHeader, "page-"+strconv.FormatInt(served.Load(), 10))
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"count":0,"value":[]}`))
	}))
	t.Cleanup(srv.Close)
	c := newClient(t, srv.URL+"/org/", "token", srv.Client(), nil)
	_, _, err := c.ListOpen(t.Context())
	if err == nil || !strings.Contains(err.Error(), "past 200 pages") {
		t.Errorf("A list whose pages never end is refused after maxPages.\nListOpen(...): want an error naming the page bound, got %v", err)
	}
	if got := served.Load(); got != maxPages {
		t.Errorf("A list whose pages never end is refused after maxPages.\nListOpen(...): %d requests, want %d", got, maxPages)
	}
}
