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
	"github.com/crossplane/crossplane-runtime/v2/pkg/errors"
	corev1 "k8s.io/api/core/v1"

	"github.com/crossplane-contrib/provider-git/apis/v1alpha1"
	"github.com/crossplane-contrib/provider-git/internal/git"
	"github.com/crossplane-contrib/provider-git/internal/managed"
)

const (
	errSSHNeedsKey    = "an SSH URL needs a private key and known_hosts in the credentials Secret"
	errHTTPSNeedsPass = "an HTTPS URL needs a password, token or bearer token in the credentials Secret"
	errCAOverSSH      = "a CA bundle (caFile, ca.crt) applies to HTTPS URLs only"
	errAppOverSSH     = "GitHub App credentials (githubAppID) apply to HTTPS URLs only"
	errAppInsecureAPI = "the GitHub App API URL must be https:// unless the provider runs with --allow-insecure-remotes"
)

// Secret keys read besides CredentialKeys, so a Secret written for Flux,
// Argo CD or a kubernetes.io/ssh-auth or basic-auth type serves as is. An
// alias is read only when the configured key is the default and absent.
var (
	// sshKeyAliases: Argo CD's repository Secret, kubernetes.io/ssh-auth.
	sshKeyAliases = []string{"sshPrivateKey", "ssh-privatekey"}
	// caKeys: Flux's caFile, and ca.crt as cert-manager and
	// kubernetes.io/tls Secrets name a CA.
	caKeys = []string{"caFile", "ca.crt"}
	// bearerKeys: Flux's bearerToken.
	bearerKeys = []string{"bearerToken"}
	// GitHub App keys, the same in Flux and Argo CD but for the API URL.
	appIDKey, appInstallationKey, appPrivateKeyKey = "githubAppID", "githubAppInstallationID", "githubAppPrivateKey"
	// appAPIKeys: Flux's githubAppBaseURL, Argo CD's githubAppEnterpriseBaseUrl.
	appAPIKeys = []string{"githubAppBaseURL", "githubAppEnterpriseBaseUrl"}
)

// credentialsFrom reads the credentials remote's URL needs from s. Errors
// name keys, never values.
// allowInsecure accepts an http:// GitHub API URL (tests only).
func credentialsFrom(s *corev1.Secret, keys v1alpha1.CredentialKeys, ssh, allowInsecure bool, remote *git.Remote) error {
	value := func(key, fallback string, aliases ...string) []byte {
		if key == "" {
			key = fallback
		}
		if v := s.Data[key]; len(v) > 0 || key != fallback {
			return v
		}
		for _, a := range aliases {
			if v := s.Data[a]; len(v) > 0 {
				return v
			}
		}
		return nil
	}
	ca := value("", caKeys[0], caKeys[1:]...)
	app := len(s.Data[appIDKey]) > 0
	if ssh {
		if len(ca) > 0 {
			return managed.Stalled(ReasonSecretMalformed, errors.New(errCAOverSSH))
		}
		if app {
			return managed.Stalled(ReasonSecretMalformed, errors.New(errAppOverSSH))
		}
		key, known := value(keys.SSHPrivateKeyKey, "identity", sshKeyAliases...), value(keys.KnownHostsKey, "known_hosts")
		if len(key) == 0 || len(known) == 0 {
			return managed.Stalled(ReasonSecretMalformed, errors.New(errSSHNeedsKey))
		}
		remote.Auth = &git.SSHAuth{PrivateKey: key, KnownHosts: known}
		return nil
	}
	remote.CABundle = ca
	if app {
		api := string(value("", appAPIKeys[0], appAPIKeys[1:]...))
		if api != "" && transportOf(api) == transportInsecure && !allowInsecure {
			return managed.Stalled(ReasonInsecureRemote, errors.New(errAppInsecureAPI))
		}
		remote.Auth = &git.AppInstallationAuth{AppID: string(s.Data[appIDKey]), InstallationID: string(s.Data[appInstallationKey]),
			PrivateKey: s.Data[appPrivateKeyKey], APIURL: api}
		return nil
	}
	pass := value(keys.PasswordKey, "password")
	if len(pass) == 0 {
		if token := value("", bearerKeys[0]); len(token) > 0 {
			remote.Auth = &git.BearerAuth{Token: string(token)}
			return nil
		}
		return managed.Stalled(ReasonSecretMalformed, errors.New(errHTTPSNeedsPass))
	}
	user := string(value(keys.UsernameKey, "username"))
	if user == "" {
		// Forges accept any username with a token; git's own default.
		user = "git"
	}
	remote.Auth = &git.BasicAuth{Username: user, Password: string(pass)}
	return nil
}
