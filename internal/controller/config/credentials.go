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
	"fmt"
	"strconv"
	"strings"

	"github.com/crossplane/crossplane-runtime/v2/pkg/errors"
	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/crossplane-contrib/provider-git/apis/v1alpha1"
	"github.com/crossplane-contrib/provider-git/internal/git"
	"github.com/crossplane-contrib/provider-git/internal/reconciler/managed"
)

// Errors name the Secret (namespace/name) and the key to fix, never a value.
const (
	credentialsFmt           = "credentials Secret %s key %q"
	errSSHNeedsKeyFmt        = "credentials Secret %s has no key %s: an SSH URL needs the private key"
	errSSHNeedsKnownHostsFmt = "credentials Secret %s has no key %q: an SSH URL needs the server's host keys; add them under %q (ssh-keyscan output; from Argo CD, copy key ssh_known_hosts of ConfigMap argocd-ssh-known-hosts-cm)"
	errHTTPSNeedsKeyFmt      = "credentials Secret %s has no key %q: the configuration names it for the password or token"
	errHTTPSNeedsPassFmt     = "credentials Secret %s has none of the keys %s: an HTTPS URL needs a password, token, bearer token or GitHub App"
	errCAOverSSHFmt          = "credentials Secret %s key %q: a CA bundle applies to HTTPS URLs only"
	errAppOverSSHFmt         = "credentials Secret %s key %q: GitHub App credentials apply to HTTPS URLs only"
	errAppInsecureAPIFmt     = "credentials Secret %s key %q: the GitHub App API URL must be https:// unless the provider runs with --allow-insecure-remotes"
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

// credentialsFrom reads the credentials remote's URL needs from s, and
// names the Secret and the key they came from (Connection.Credentials).
// Errors name the Secret and its keys, never values.
// allowInsecure accepts an http:// GitHub API URL (tests only).
func credentialsFrom(s *corev1.Secret, keys v1alpha1.CredentialKeys, ssh, allowInsecure bool, remote *git.Remote) (string, error) {
	name := types.NamespacedName{Namespace: s.Namespace, Name: s.Name}.String()
	stalled := func(reason xpv2.ConditionReason, format string, args ...any) (string, error) {
		return "", managed.Stalled(reason, errors.Errorf(format, append([]any{name}, args...)...))
	}
	from := func(key string) string { return fmt.Sprintf(credentialsFmt, name, key) }
	ca := lookupKey(s, "", caKeys[0], caKeys[1:]...)
	app := lookupKey(s, "", appIDKey)
	if ssh {
		if ca.found() {
			return stalled(ReasonSecretMalformed, errCAOverSSHFmt, ca.name)
		}
		if app.found() {
			return stalled(ReasonSecretMalformed, errAppOverSSHFmt, app.name)
		}
		key := lookupKey(s, keys.SSHPrivateKeyKey, "identity", sshKeyAliases...)
		if !key.found() {
			return stalled(ReasonSecretMalformed, errSSHNeedsKeyFmt, key.wanted())
		}
		known := lookupKey(s, keys.KnownHostsKey, "known_hosts")
		if !known.found() {
			return stalled(ReasonSecretMalformed, errSSHNeedsKnownHostsFmt, known.name, known.name)
		}
		remote.Auth = &git.SSHAuth{PrivateKey: key.value, KnownHosts: known.value}
		return from(key.name), nil
	}
	remote.CABundle = ca.value
	if app.found() {
		api := lookupKey(s, "", appAPIKeys[0], appAPIKeys[1:]...)
		if api.found() && transportOf(string(api.value)) == transportInsecure && !allowInsecure {
			return stalled(ReasonInsecureRemote, errAppInsecureAPIFmt, api.name)
		}
		remote.Auth = &git.AppInstallationAuth{AppID: string(app.value), InstallationID: string(s.Data[appInstallationKey]),
			PrivateKey: s.Data[appPrivateKeyKey], APIURL: string(api.value)}
		return from(appPrivateKeyKey), nil
	}
	pass := lookupKey(s, keys.PasswordKey, "password")
	if !pass.found() {
		if token := lookupKey(s, "", bearerKeys[0]); token.found() {
			remote.Auth = &git.BearerAuth{Token: string(token.value)}
			return from(token.name), nil
		}
		if pass.named {
			return stalled(ReasonSecretMalformed, errHTTPSNeedsKeyFmt, pass.name)
		}
		return stalled(ReasonSecretMalformed, errHTTPSNeedsPassFmt, quoted(pass.name, bearerKeys[0], appIDKey))
	}
	user := string(lookupKey(s, keys.UsernameKey, "username").value)
	if user == "" {
		// Forges accept any username with a token; git's own default.
		user = "git"
	}
	remote.Auth = &git.BasicAuth{Username: user, Password: string(pass.value)}
	return from(pass.name), nil
}

// keyValue is one key read from a Secret.
type keyValue struct {
	// name is the key read, or, when none was found, the key asked for.
	name  string
	value []byte
	// named: the configuration names the key (it is not the default), so
	// no alias stands in for it.
	named bool
	// aliases were also tried, the configured key being the default.
	aliases []string
}

func (k keyValue) found() bool { return len(k.value) > 0 }

// wanted names the keys that were tried, for an error.
func (k keyValue) wanted() string { return quoted(append([]string{k.name}, k.aliases...)...) }

// lookupKey reads key of s, fallback when key is empty. An alias is read
// only when the key is the default and absent.
func lookupKey(s *corev1.Secret, key, fallback string, aliases ...string) keyValue {
	if key == "" {
		key = fallback
	}
	if v := s.Data[key]; len(v) > 0 || key != fallback {
		return keyValue{name: key, value: v, named: key != fallback}
	}
	for _, a := range aliases {
		if v := s.Data[a]; len(v) > 0 {
			return keyValue{name: a, value: v}
		}
	}
	return keyValue{name: key, aliases: aliases}
}

// quoted lists keys for an error: "a", "b" or "c".
func quoted(keys ...string) string {
	q := make([]string, len(keys))
	for i, k := range keys {
		q[i] = strconv.Quote(k)
	}
	if len(q) < 2 {
		return strings.Join(q, "")
	}
	return strings.Join(q[:len(q)-1], ", ") + " or " + q[len(q)-1]
}
