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
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/crossplane-contrib/provider-git/apis/v1alpha1"
	"github.com/crossplane-contrib/provider-git/internal/git"
	"github.com/crossplane-contrib/provider-git/internal/reconciler/managed"
)

func TestCredentialsFrom(t *testing.T) {
	defaults := v1alpha1.CredentialKeys{SSHPrivateKeyKey: "identity", KnownHostsKey: "known_hosts", UsernameKey: "username", PasswordKey: "password"}
	type want struct {
		remote  git.Remote
		reason  string // stalled reason; "" means no error
		message string // the error's message, naming Secret and key
		from    string // Connection.Credentials: the Secret and key used
	}
	// sshKey is what a Secret with an SSH private key under key and
	// known_hosts reads to.
	sshKey := func(key string) want {
		return want{remote: git.Remote{Auth: &git.SSHAuth{PrivateKey: []byte("KEY"), KnownHosts: []byte("KH")}}, from: `credentials Secret a/s key "` + key + `"`}
	}
	// app is a GitHub App's three keys and its API URL under urlKey.
	app := func(urlKey, url string) map[string]string {
		return map[string]string{"githubAppID": "1", "githubAppInstallationID": "2", "githubAppPrivateKey": "PEM", urlKey: url}
	}
	// appAuth is what app's keys read to, with API URL url.
	appAuth := func(url string) want {
		return want{remote: git.Remote{Auth: &git.AppInstallationAuth{AppID: "1", InstallationID: "2", PrivateKey: []byte("PEM"), APIURL: url}}, from: `credentials Secret a/s key "githubAppPrivateKey"`}
	}
	// insecureAPI is the refusal of an http:// API URL under urlKey.
	insecureAPI := func(urlKey string) want {
		return want{reason: string(ReasonInsecureRemote),
			message: `credentials Secret a/s key "` + urlKey + `": the GitHub App API URL must be https:// unless the provider runs with --allow-insecure-remotes`}
	}
	cases := map[string]struct {
		reason string
		data   map[string]string
		keys   v1alpha1.CredentialKeys
		ssh    bool
		want   want
	}{
		"FluxHTTPS": {
			reason: "Flux's HTTPS keys, with its caFile.",
			data:   map[string]string{"username": "u", "password": "p", "caFile": "CA"},
			keys:   defaults,
			want:   want{remote: git.Remote{Auth: &git.BasicAuth{Username: "u", Password: "p"}, CABundle: []byte("CA")}, from: `credentials Secret a/s key "password"`},
		},
		"CACrt": {
			reason: "ca.crt, as cert-manager and TLS Secrets name a CA.",
			data:   map[string]string{"password": "p", "ca.crt": "CA"},
			keys:   defaults,
			want:   want{remote: git.Remote{Auth: &git.BasicAuth{Username: "git", Password: "p"}, CABundle: []byte("CA")}, from: `credentials Secret a/s key "password"`},
		},
		"FluxBearer": {
			reason: "Flux's bearerToken is sent as a bearer token.",
			data:   map[string]string{"bearerToken": "tok"},
			keys:   defaults,
			want:   want{remote: git.Remote{Auth: &git.BearerAuth{Token: "tok"}}, from: `credentials Secret a/s key "bearerToken"`},
		},
		"PasswordBeforeBearer": {
			reason: "A password wins over a bearer token: basic auth is what Git hosts expect first.",
			data:   map[string]string{"password": "p", "bearerToken": "tok"},
			keys:   defaults,
			want:   want{remote: git.Remote{Auth: &git.BasicAuth{Username: "git", Password: "p"}}, from: `credentials Secret a/s key "password"`},
		},
		"FluxSSH": {
			reason: "Flux's identity and known_hosts.",
			data:   map[string]string{"identity": "KEY", "known_hosts": "KH"},
			keys:   defaults,
			ssh:    true,
			want:   sshKey("identity"),
		},
		"ArgoSSH": {
			reason: "Argo CD's sshPrivateKey is read when identity is absent.",
			data:   map[string]string{"sshPrivateKey": "KEY", "known_hosts": "KH"},
			keys:   defaults,
			ssh:    true,
			want:   sshKey("sshPrivateKey"),
		},
		"KubernetesSSHAuth": {
			reason: "A kubernetes.io/ssh-auth Secret's ssh-privatekey is read when identity is absent.",
			data:   map[string]string{"ssh-privatekey": "KEY", "known_hosts": "KH"},
			keys:   defaults,
			ssh:    true,
			want:   sshKey("ssh-privatekey"),
		},
		"NamedKeyHasNoAlias": {
			reason: "A key the configuration names is read alone: no alias stands in for it.",
			data:   map[string]string{"sshPrivateKey": "KEY", "known_hosts": "KH"},
			keys:   v1alpha1.CredentialKeys{SSHPrivateKeyKey: "deploy-key", KnownHostsKey: "known_hosts"},
			ssh:    true,
			want: want{reason: string(ReasonSecretMalformed),
				message: `credentials Secret a/s has no key "deploy-key": an SSH URL needs the private key`},
		},
		"CAOverSSH": {
			reason: "A CA bundle means nothing to SSH: refused rather than ignored.",
			data:   map[string]string{"identity": "KEY", "known_hosts": "KH", "caFile": "CA"},
			keys:   defaults,
			ssh:    true,
			want: want{reason: string(ReasonSecretMalformed),
				message: `credentials Secret a/s key "caFile": a CA bundle applies to HTTPS URLs only`},
		},
		"FluxGitHubApp": {
			reason: "Flux's GitHub App keys, with a GitHub Enterprise API URL.",
			data:   app("githubAppBaseURL", "https://ghe.example.org/api/v3"),
			keys:   defaults,
			want:   appAuth("https://ghe.example.org/api/v3"),
		},
		"ArgoGitHubApp": {
			reason: "Argo CD's GitHub App keys: its enterprise URL key, github.com without it.",
			data:   app("githubAppEnterpriseBaseUrl", "https://ghe.example.org/api/v3"),
			keys:   defaults,
			want:   appAuth("https://ghe.example.org/api/v3"),
		},
		"GitHubAppInsecureAPI": {
			reason: "The App's JWT never goes over http:// outside tests.",
			data:   app("githubAppBaseURL", "http://ghe.example.org/api/v3"),
			keys:   defaults,
			want:   insecureAPI("githubAppBaseURL"),
		},
		"GitHubAppInsecureAPIUpper": {
			reason: "HTTP:// is http://: a scheme is case-insensitive, so the JWT is refused clear text whatever the case.",
			data:   app("githubAppBaseURL", "HTTP://ghe.example.org/api/v3"),
			keys:   defaults,
			want:   insecureAPI("githubAppBaseURL"),
		},
		"GitHubAppInsecureAPIMixed": {
			reason: "Http:// is http:// too.",
			data:   app("githubAppEnterpriseBaseUrl", "Http://ghe.example.org/api/v3"),
			keys:   defaults,
			want:   insecureAPI("githubAppEnterpriseBaseUrl"),
		},
		"GitHubAppMixedCaseHTTPS": {
			reason: "hTTps:// is https://: accepted.",
			data:   app("githubAppBaseURL", "hTTps://ghe.example.org/api/v3"),
			keys:   defaults,
			want:   appAuth("hTTps://ghe.example.org/api/v3"),
		},
		"GitHubAppOverSSH": {
			reason: "A GitHub App authenticates HTTPS only.",
			data:   map[string]string{"githubAppID": "1", "identity": "KEY", "known_hosts": "KH"},
			keys:   defaults,
			ssh:    true,
			want: want{reason: string(ReasonSecretMalformed),
				message: `credentials Secret a/s key "githubAppID": GitHub App credentials apply to HTTPS URLs only`},
		},
		"NothingForHTTPS": {
			reason: "An HTTPS Secret with a username only is malformed.",
			data:   map[string]string{"username": "u"},
			keys:   defaults,
			want: want{reason: string(ReasonSecretMalformed),
				message: `credentials Secret a/s has none of the keys "password", "bearerToken" or "githubAppID": an HTTPS URL needs a password, token, bearer token or GitHub App`},
		},
		"NamedPasswordKeyAbsent": {
			reason: "A passwordKey the configuration names, absent, is what the message names.",
			data:   map[string]string{"username": "u", "password": "p"},
			keys:   v1alpha1.CredentialKeys{UsernameKey: "username", PasswordKey: "token"},
			want: want{reason: string(ReasonSecretMalformed),
				message: `credentials Secret a/s has no key "token": the configuration names it for the password or token`},
		},
		"SSHNoKey": {
			reason: "An SSH Secret without a private key names every key that was tried.",
			data:   map[string]string{"known_hosts": "KH"},
			keys:   defaults,
			ssh:    true,
			want: want{reason: string(ReasonSecretMalformed),
				message: `credentials Secret a/s has no key "identity", "sshPrivateKey" or "ssh-privatekey": an SSH URL needs the private key`},
		},
		"KubernetesSSHAuthNoKnownHosts": {
			reason: "A kubernetes.io/ssh-auth (or Argo CD) Secret carries no known_hosts: the message says which key to add and where Argo CD keeps them.",
			data:   map[string]string{"ssh-privatekey": "KEY"},
			keys:   defaults,
			ssh:    true,
			want: want{reason: string(ReasonSecretMalformed),
				message: `credentials Secret a/s has no key "known_hosts": an SSH URL needs the server's host keys; add them under "known_hosts" (ssh-keyscan output; from Argo CD, copy key ssh_known_hosts of ConfigMap argocd-ssh-known-hosts-cm)`},
		},
		"NamedKnownHostsKeyAbsent": {
			reason: "A knownHostsKey the configuration names is the one the message names.",
			data:   map[string]string{"identity": "KEY", "known_hosts": "KH"},
			keys:   v1alpha1.CredentialKeys{SSHPrivateKeyKey: "identity", KnownHostsKey: "hosts"},
			ssh:    true,
			want: want{reason: string(ReasonSecretMalformed),
				message: `credentials Secret a/s has no key "hosts": an SSH URL needs the server's host keys; add them under "hosts" (ssh-keyscan output; from Argo CD, copy key ssh_known_hosts of ConfigMap argocd-ssh-known-hosts-cm)`},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			var got want
			from, err := credentialsFrom(secret("a", "s", tc.data), tc.keys, tc.ssh, false, &got.remote)
			got.from = from
			if err != nil {
				r, _ := managed.StalledReason(err)
				got = want{reason: string(r), message: err.Error()}
			}
			if diff := cmp.Diff(tc.want, got, cmp.AllowUnexported(want{})); diff != "" {
				t.Errorf("%s\ncredentialsFrom: -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}
