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

	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"
	"github.com/google/go-cmp/cmp"

	"github.com/crossplane-contrib/provider-git/internal/forge"
	"github.com/crossplane-contrib/provider-git/internal/git"
	"github.com/crossplane-contrib/provider-git/internal/reconciler/managed"
)

type appSource struct{ tok string }

func (a appSource) AppToken() (func(context.Context) (string, error), bool) {
	return func(context.Context) (string, error) { return a.tok, nil }, a.tok != ""
}

func TestForgeAccessConfig(t *testing.T) {
	type args struct {
		a      ForgeAccess
		remote git.Remote
		repo   tokenSource
	}
	type want struct {
		typ    forge.Type
		api    string
		token  string
		reason xpv2.ConditionReason
		msg    string
	}
	cases := map[string]struct {
		reason string
		args   args
		want   want
	}{
		"GitHubPassword": {
			reason: "On github.com the forge is known and an HTTPS token is the API token.",
			args:   args{remote: git.Remote{URL: "https://github.com/o/r.git", Auth: &git.BasicAuth{Username: "git", Password: "pat"}}},
			want:   want{typ: forge.GitHub, api: "https://api.github.com/", token: "pat"},
		},
		"BitbucketCloudAccessToken": {
			reason: "A Cloud access token (Git user x-token-auth) is the API's bearer token.",
			args:   args{remote: git.Remote{URL: "https://bitbucket.org/ws/r.git", Auth: &git.BasicAuth{Username: "x-token-auth", Password: "tok"}}},
			want:   want{typ: forge.BitbucketCloud, api: "https://api.bitbucket.org/2.0/", token: "tok"},
		},
		"BitbucketCloudAppPassword": {
			reason: "A Cloud user's app password is basic authentication with the user name.",
			args:   args{remote: git.Remote{URL: "https://bitbucket.org/ws/r.git", Auth: &git.BasicAuth{Username: "bot", Password: "ATBB"}}},
			want:   want{typ: forge.BitbucketCloud, api: "https://api.bitbucket.org/2.0/", token: "bot:ATBB"},
		},
		"BitbucketDataCenterToken": {
			reason: "A Data Center HTTP access token is the API's bearer token whatever the user name.",
			args: args{a: ForgeAccess{Type: forge.BitbucketDataCenter},
				remote: git.Remote{URL: "https://git.example.com/scm/PLAT/r.git", Auth: &git.BasicAuth{Username: "jdoe", Password: "BBDC-tok"}}},
			want: want{typ: forge.BitbucketDataCenter, api: "https://git.example.com/rest/api/1.0/", token: "BBDC-tok"},
		},
		"APITokenKeyWins": {
			reason: "A Secret's apiToken key is used before the Git credentials.",
			args:   args{a: ForgeAccess{token: "api"}, remote: git.Remote{URL: "https://gitlab.com/g/s/r.git", Auth: &git.BasicAuth{Password: "pat"}}},
			want:   want{typ: forge.GitLab, api: "https://gitlab.com/api/v4/", token: "api"},
		},
		"Bearer": {
			reason: "A bearer token serves the API too.",
			args:   args{remote: git.Remote{URL: "https://codeberg.org/o/r.git", Auth: &git.BearerAuth{Token: "b"}}},
			want:   want{typ: forge.Forgejo, api: "https://codeberg.org/api/v1/", token: "b"},
		},
		"App": {
			reason: "A GitHub App's installation token is the clone's own.",
			args:   args{remote: git.Remote{URL: "https://github.com/o/r.git", Auth: &git.AppInstallationAuth{AppID: "1", InstallationID: "2"}}, repo: appSource{tok: "ghs_x"}},
			want:   want{typ: forge.GitHub, api: "https://api.github.com/", token: "ghs_x"},
		},
		"SSHWithoutToken": {
			reason: "An SSH configuration has no token the API takes: Stalled, naming the Secret and key.",
			args:   args{a: ForgeAccess{ssh: true, secret: "ns/git", tokenKey: "apiToken"}, remote: git.Remote{URL: "git@github.com:o/r.git", Auth: &git.SSHAuth{}}},
			want: want{reason: ReasonForgeTokenMissing,
				msg: `credentials Secret ns/git has no key "apiToken": an SSH configuration needs an API token for the forge's pull requests there`},
		},
		"SSHWithToken": {
			reason: "With an API token key an SSH configuration reaches the API.",
			args:   args{a: ForgeAccess{ssh: true, secret: "ns/git", tokenKey: "apiToken", token: "t"}, remote: git.Remote{URL: "git@github.com:o/r.git", Auth: &git.SSHAuth{}}},
			want:   want{typ: forge.GitHub, api: "https://api.github.com/", token: "t"},
		},
		"Anonymous": {
			reason: "No Secret at all: no token.",
			args:   args{remote: git.Remote{URL: "https://github.com/o/r.git"}},
			want:   want{reason: ReasonForgeTokenMissing, msg: errTokenNoSecret},
		},
		"Unknown": {
			reason: "A host that is not well known, with no spec.forge.type: Stalled, naming the host.",
			args:   args{remote: git.Remote{URL: "https://git.example.com/o/r.git", Auth: &git.BasicAuth{Password: "p"}}},
			want: want{reason: ReasonForgeUnknown,
				msg: `cannot tell the forge of https://git.example.com/o/r.git (spec.forge.type ""): cannot tell which forge hosts "git.example.com": name it in the configuration's spec.forge.type`},
		},
		"Named": {
			reason: "spec.forge.type names a self-hosted forge; its API URL follows from the host.",
			args:   args{a: ForgeAccess{Type: forge.Gitea}, remote: git.Remote{URL: "https://git.example.com/o/r.git", Auth: &git.BasicAuth{Password: "p"}}},
			want:   want{typ: forge.Gitea, api: "https://git.example.com/api/v1/", token: "p"},
		},
		"InsecureAPI": {
			reason: "An http:// API URL is refused without --allow-insecure-remotes, as an http:// Git URL is.",
			args:   args{a: ForgeAccess{Type: forge.Gitea, APIURL: "http://127.0.0.1:3000/api/v1/"}, remote: git.Remote{URL: "https://git.example.com/o/r.git", Auth: &git.BasicAuth{Password: "p"}}},
			want:   want{reason: ReasonInsecureRemote, msg: `spec.forge.apiURL "http://127.0.0.1:3000/api/v1/" is http://: refused unless the provider runs with --allow-insecure-remotes`},
		},
		"InsecureAPIAllowed": {
			reason: "With the flag the test forge's http:// API is reached.",
			args:   args{a: ForgeAccess{Type: forge.Gitea, APIURL: "http://127.0.0.1:3000/api/v1/", allowInsecure: true}, remote: git.Remote{URL: "http://127.0.0.1:3000/o/r.git", Auth: &git.BasicAuth{Password: "p"}}},
			want:   want{typ: forge.Gitea, api: "http://127.0.0.1:3000/api/v1/", token: "p"},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			c, key, err := tc.args.a.Config(tc.args.remote, tc.args.repo)
			got := want{typ: c.Type, api: c.APIURL}
			if err != nil {
				got.reason, _ = managed.StalledReason(err)
				got.msg = err.Error()
			} else {
				if got.token, err = c.Token(context.Background()); err != nil {
					t.Fatal(err)
				}
				if key == "" || c.HTTPClient == nil {
					t.Errorf("%s\nConfig(...): key %q, HTTP client %v: want both", tc.reason, key, c.HTTPClient)
				}
			}
			if diff := cmp.Diff(tc.want, got, cmp.AllowUnexported(want{})); diff != "" {
				t.Errorf("%s\nConfig(...): -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}
