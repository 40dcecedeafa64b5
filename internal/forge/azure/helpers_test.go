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
	"context"
	"errors"
	"net/http"
	"net/url"
	"strconv"
	"testing"
	"time"

	clocktesting "k8s.io/utils/clock/testing"

	"github.com/crossplane-contrib/provider-git/internal/forge"
	fake "github.com/crossplane-contrib/provider-git/internal/testharness/forgetest/azure"
)

// epoch is the test clock's start.
var epoch = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

// newFake is a fake Azure DevOps and a Client of its repository on a
// clock at epoch.
func newFake(t *testing.T, opts ...fake.Option) (*fake.Server, *Client, *clocktesting.FakeClock) {
	t.Helper()
	srv := fake.NewServer(t, opts...)
	clk := clocktesting.NewFakeClock(epoch)
	c := newClient(t, srv.APIURL(), fake.PAT, srv.Client(), clk)
	return srv, c, clk
}

func newClient(t *testing.T, api, token string, hc *http.Client, clk *clocktesting.FakeClock) *Client {
	t.Helper()
	if clk == nil {
		clk = clocktesting.NewFakeClock(epoch)
	}
	c, err := NewClient(forge.Config{
		Type: forge.AzureDevOps, APIURL: api, Owner: fake.Org + "/" + fake.Project, Name: fake.Repo,
		Token:      func(context.Context) (string, error) { return token, nil },
		HTTPClient: hc,
	}, WithClock(clk))
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// writes counts the requests that were not reads.
func writes(rs []fake.Request) int {
	n := 0
	for _, r := range rs {
		if r.Method != http.MethodGet {
			n++
		}
	}
	return n
}

func ptr[T any](v T) *T { return &v }

func errorsAs(err error, target any) bool { return errors.As(err, target) }

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

func parseURL(s string) (*url.URL, error) { return url.Parse(s) }
