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

package configuration_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/crossplane-contrib/provider-git/apis/v1alpha1"
	"github.com/crossplane-contrib/provider-git/internal/testharness/e2e"
	"github.com/crossplane-contrib/provider-git/internal/testharness/testenv"
)

// advertCounter is a proxy in front of the HTTP Git server that counts the
// reference advertisements (GET info/refs?service=git-upload-pack: an
// ls-remote, or the start of a fetch) asked through it, so a test counts
// those of its own repository only.
type advertCounter struct {
	url     string
	adverts atomic.Int64
}

func newAdvertCounter(t *testing.T) *advertCounter {
	t.Helper()
	target, err := url.Parse(e2e.HTTPGit.URL)
	if err != nil {
		t.Fatal(err)
	}
	c := &advertCounter{}
	proxy := httputil.NewSingleHostReverseProxy(target)
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodGet && strings.HasSuffix(r.URL.Path, "/info/refs") && r.URL.Query().Get("service") == "git-upload-pack" {
			c.adverts.Add(1)
		}
		proxy.ServeHTTP(w, r)
	}))
	t.Cleanup(s.Close)
	c.url = s.URL
	return c
}

func (c *advertCounter) RepoURL(name string) string { return c.url + "/" + name }

// TestOneRemoteCheckPerInterval: a repository with a ProviderConfig and a
// converged File on it is asked for its references once per poll interval,
// the drift poll's ls-remote serving the configuration's own check too. The
// configuration's check used to run its own ls-remote every poll on top of
// the drift poll's: two per interval.
func TestOneRemoteCheckPerInterval(t *testing.T) {
	const intervals = 4
	e2e.StartProvider(t, "")
	counter := newAdvertCounter(t)
	f := e2e.NewFixtureAt(t, counter.RepoURL, map[string][]testenv.CommitSpec{
		"main": {{Message: "seed", Files: map[string]string{"README.md": "seed\n"}}},
	})
	fl := e2e.NewFile(f, "one", "apps/one.yaml", "one\n")
	e2e.Create(t, fl)
	e2e.WaitFor(t, 30*time.Second, fl, func() error {
		if fl.GetCondition("Ready").Status != corev1.ConditionTrue {
			return fmt.Errorf("not Ready yet")
		}
		return nil
	})
	pc := &v1alpha1.ProviderConfig{ObjectMeta: metav1.ObjectMeta{Namespace: f.Namespace, Name: "git"}}
	e2e.WaitFor(t, 30*time.Second, pc, func() error {
		if pc.Status.Users != 1 || pc.GetCondition("Ready").Status != corev1.ConditionTrue {
			return fmt.Errorf("ProviderConfig counts %d users, Ready %s", pc.Status.Users, pc.GetCondition("Ready").Status)
		}
		return nil
	})
	e2e.WritesLanded(t)
	// In phase with the drift poll: measure from just after one of its
	// advertisements, for intervals polls and half an interval more, so
	// the count is exact however the polls fall (each comes within
	// milliseconds of its tick, far less than half an interval).
	a := counter.adverts.Load()
	testenv.Eventually(t, 2*e2e.Poll, func() error {
		if counter.adverts.Load() == a {
			return fmt.Errorf("no reference advertisement yet")
		}
		return nil
	})
	from := counter.adverts.Load()
	// The measurement's span, not a wait for something to happen.
	<-time.After(intervals*e2e.Poll + e2e.Poll/2)
	if got := counter.adverts.Load() - from; got != intervals {
		t.Errorf("%d reference advertisements of the repository over %d poll intervals, want %d: one per interval",
			got, intervals, intervals)
	}
}
