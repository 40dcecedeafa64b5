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

package config

import (
	"context"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	"github.com/crossplane-contrib/provider-git/apis/v1alpha1"
	"github.com/crossplane-contrib/provider-git/internal/forge/events"
	"github.com/crossplane-contrib/provider-git/internal/git"
	"github.com/crossplane-contrib/provider-git/internal/reconciler/receiver"
)

// relaxedPolls says every clone is polled every d.
type relaxedPolls time.Duration

func (p relaxedPolls) PollInterval(string) time.Duration { return time.Duration(p) }

// TestResolveAndHook: a configuration with a webhook secret receives its
// forge's deliveries (and no other forge's) at the path its secret
// derives, acting on the clone its own credentials open, and publishes
// the path and a relaxed poll; once the key is gone from its Secret it
// receives nothing and publishes nothing.
func TestResolveAndHook(t *testing.T) {
	const hookKey, hookSecret = "hook", "0123456789abcdef-hook"
	p := withWebhookKey(pc("a", "https://github.com/org/apps.git", "creds"), hookKey)
	s := secret("a", "creds", map[string]string{"password": "p", hookKey: hookSecret})
	c := fake.NewClientBuilder().WithScheme(scheme(t)).WithObjects(p, s).Build()
	cache, err := git.NewCache(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	hooks := receiver.NewRegistry()
	r := &Reconciler{client: c, resolver: NewResolver(c, c, false), cache: cache, kind: providerConfig,
		poll: time.Minute, hooks: hooks, polls: relaxedPolls(10 * time.Minute)}

	conn, _, err := r.resolveAndHook(context.Background(), p)
	if err != nil {
		t.Fatal(err)
	}
	want := &v1alpha1.EventsStatus{Path: receiver.PathOf("ProviderConfig/a/git", []byte(hookSecret)),
		PollInterval: &metav1.Duration{Duration: 10 * time.Minute}}
	if diff := cmp.Diff(want, p.Status.Events); diff != "" {
		t.Errorf("status.events: -want, +got:\n%s", diff)
	}
	wantTarget := receiver.Target{Repo: "github.com/org/apps", Clone: cache.IdentityOf(conn.Remote), Sources: []string{events.SourceGitHub}}
	if diff := cmp.Diff(wantTarget, receiver.TargetAt(hooks, want.Path)); diff != "" {
		t.Errorf("the hook's target: -want, +got:\n%s", diff)
	}

	delete(s.Data, hookKey)
	if err := c.Update(context.Background(), s); err != nil {
		t.Fatal(err)
	}
	if _, _, err := r.resolveAndHook(context.Background(), p); err == nil {
		t.Fatal("resolved a configuration whose webhook key is gone")
	}
	if p.Status.Events != nil {
		t.Errorf("status.events after the key went: %+v, want none", p.Status.Events)
	}
	if got := receiver.TargetAt(hooks, want.Path); got.Clone != "" {
		t.Errorf("the old path still receives, for %+v", got)
	}
}

// TestSourcesOf: a configuration takes the deliveries of its forge only,
// named or known by host, and any when it names none.
func TestSourcesOf(t *testing.T) {
	forged := func(url string, typ v1alpha1.ForgeType) client.Object {
		p := pc("a", url, "")
		p.Spec.Forge = &v1alpha1.ForgeConfig{Type: typ, APIURL: "https://git.example.org/api/v1"}
		return p
	}
	cases := map[string]struct {
		pc   client.Object
		want []string
	}{
		"GitHubByHost":         {pc: pc("a", "https://github.com/org/apps.git", ""), want: []string{events.SourceGitHub}},
		"GitLabByHost":         {pc: pc("a", "https://gitlab.com/org/apps.git", ""), want: []string{events.SourceGitLab}},
		"GiteaNamed":           {pc: forged("https://git.example.org/org/apps.git", "Gitea"), want: []string{events.SourceGitea, events.SourceForgejo}},
		"UnknownHost":          {pc: pc("a", "https://bitbucket.example.org/scm/org/apps.git", "")},
		"BitbucketCloudByHost": {pc: pc("a", "https://bitbucket.org/org/apps.git", ""), want: []string{events.SourceBitbucketCloud}},
		"BitbucketDataCenterNamed": {pc: forged("https://bitbucket.example.org/scm/ORG/apps.git", "BitbucketDataCenter"),
			want: []string{events.SourceBitbucketDataCenter}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			o := tc.pc.(configObject)
			if diff := cmp.Diff(tc.want, sourcesOf(o, o.(*v1alpha1.ProviderConfig).Spec.URL)); diff != "" {
				t.Errorf("sources: -want, +got:\n%s", diff)
			}
		})
	}
}
