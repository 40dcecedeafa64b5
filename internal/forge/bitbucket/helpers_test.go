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

package bitbucket

import (
	"context"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp/cmpopts"
	clocktesting "k8s.io/utils/clock/testing"

	"github.com/crossplane-contrib/provider-git/internal/forge"
	fake "github.com/crossplane-contrib/provider-git/internal/testharness/forgetest/bitbucket"
)

// now is the tests' clock: rate-limit waits are measured on it.
var now = time.Date(2026, 12, 6, 10, 0, 0, 0, time.UTC)

func static(t string) func(context.Context) (string, error) {
	return func(context.Context) (string, error) { return t, nil }
}

// cloudClient is a Cloud client of the fake's repository with token.
func cloudClient(t *testing.T, s *fake.CloudServer, token string) *Cloud {
	t.Helper()
	c, err := NewCloudClient(forge.Config{Type: forge.BitbucketCloud, APIURL: s.URL(), Owner: fake.Workspace, Name: fake.RepoSlug,
		Token: static(token)}, WithClock(clocktesting.NewFakePassiveClock(now)))
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// dcClient is a Data Center client of the fake's repository with token.
func dcClient(t *testing.T, s *fake.DCServer, token string) *DataCenter {
	t.Helper()
	c, err := NewDataCenterClient(forge.Config{Type: forge.BitbucketDataCenter, APIURL: s.URL(), Owner: fake.Project, Name: fake.RepoSlug,
		Token: static(token)}, WithClock(clocktesting.NewFakePassiveClock(now)))
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// ignoreURL leaves out what depends on the fake's port.
var ignoreURL = cmpopts.IgnoreFields(forge.PullRequest{}, "URL")
