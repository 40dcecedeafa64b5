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

package v1alpha1

import (
	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// ProviderConfigSpec says which repository to manage and how to reach it.
// +kubebuilder:validation:XValidation:rule="!has(self.commit) || !has(self.commit.signing) || !has(self.commit.signing.secretRef.__namespace__)",message="commit.signing.secretRef.namespace is not allowed in a ProviderConfig: its signing key Secret is in its own namespace"
// +kubebuilder:validation:XValidation:rule="!has(self.commit) || !has(self.commit.via) || self.commit.via != 'API' || (self.url.matches('^https?://') && ((has(self.forge) && has(self.forge.type) && self.forge.type == 'GitHub') || self.url.matches('^https://github[.]com/')))",message="commit.via API needs a GitHub repository over HTTPS (spec.forge.type GitHub, or a github.com URL) and GitHub App credentials"
// +kubebuilder:validation:XValidation:rule="!has(self.encryption) || (!has(self.encryption.age.identitySecretRef.__namespace__) && (!has(self.encryption.age.recipientsSecretRef) || !has(self.encryption.age.recipientsSecretRef.__namespace__)))",message="encryption.age secret references must not name a namespace in a ProviderConfig: its Secrets are in its own namespace"
type ProviderConfigSpec struct {
	// URL of the repository: https://host/path, ssh://[user@]host[:port]/path, or
	// scp-like user@host:path. http:// and file:// URLs are accepted here but
	// refused by the provider unless it runs with --allow-insecure-remotes (for
	// tests and the local default only). Credentials never go in the URL.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=2048
	// +kubebuilder:validation:XValidation:rule="self.matches('^(https?://[^/@ ]+/[^ ]+|ssh://([A-Za-z0-9._-]+@)?[^/@ ]+/[^ ]+|[A-Za-z0-9._-]+@[A-Za-z0-9.-]+:[^ ]+|file:///[^ ]+)$')",message="url must be https://host/path, ssh://[user@]host/path or scp-like user@host:path (http:// and file:// only for tests); credentials never go in the URL"
	URL string `json:"url"`

	// Credentials used to fetch from and push to the repository.
	Credentials ProviderCredentials `json:"credentials"`

	// Commit configures the commits the provider makes.
	// +optional
	// +kubebuilder:default={}
	Commit CommitConfig `json:"commit,omitempty"`

	// Encryption, when set, lets Files write Kubernetes Secrets, encrypted
	// with SOPS to age recipients. Without it a File's Secret is refused. A
	// Mirror never reads a Secret through a ProviderConfig: mirroring
	// Secrets needs a ClusterProviderConfig's spec.mirror.secretNamespaces.
	// +optional
	Encryption *Encryption `json:"encryption,omitempty"`

	// Forge names the forge that hosts the repository, for PullRequests.
	// Without it the forge is told from a well-known host (github.com,
	// gitlab.com, gitea.com, codeberg.org, bitbucket.org; dev.azure.com and
	// *.visualstudio.com for AzureDevOps).
	// +optional
	Forge *ForgeConfig `json:"forge,omitempty"`

	// Events says what the provider does about the forge's webhook on this
	// repository.
	// +optional
	Events *EventsConfig `json:"events,omitempty"`
}

// ForgeType names a forge's API.
// +kubebuilder:validation:Enum=GitHub;GitLab;Gitea;Forgejo;BitbucketCloud;BitbucketDataCenter;AzureDevOps
type ForgeType string

// ForgeConfig names the forge that hosts a repository and its API.
type ForgeConfig struct {
	// Type of the forge: GitHub (and GitHub Enterprise), GitLab, Gitea,
	// Forgejo, BitbucketCloud, BitbucketDataCenter (also Bitbucket Server)
	// or AzureDevOps (Services and Server). Optional on a well-known host;
	// a Bitbucket Data Center is never told from its host and must be
	// named.
	// +optional
	Type ForgeType `json:"type,omitempty"`

	// APIURL is the forge's REST API base, e.g.
	// https://github.example.com/api/v3/, https://gitlab.example.com/api/v4/,
	// https://gitea.example.com/api/v1/ or (Bitbucket Data Center)
	// https://bitbucket.example.com/rest/api/1.0/; for AzureDevOps the
	// organization's or collection's URL (https://dev.azure.com/{org}/,
	// https://tfs.example.com/tfs/DefaultCollection/). Empty: the type's
	// usual path on the repository's host (Bitbucket Data Center: the
	// context path of an https://host/<context>/scm/… URL kept). http://
	// only when the provider runs with
	// --allow-insecure-remotes.
	// +optional
	// +kubebuilder:validation:MaxLength=2048
	// +kubebuilder:validation:XValidation:rule="self.matches('^https?://[^/@ ]+(/[^ ]*)?$')",message="forge.apiURL must be an http(s) URL without credentials"
	APIURL string `json:"apiURL,omitempty"`
}

// EventsConfig is about the forge webhook that delivers a configuration's
// events.
type EventsConfig struct {
	// Register keeps the webhook on the forge instead of leaving it to a
	// person: created with the events endpoint's external URL
	// (--events-url) and status.events.path, the webhook secret, push and
	// pull request events; pointed at the new path when the secret
	// rotates; removed when this is turned off or the configuration is
	// deleted. It needs credentials.secretRef.webhookSecretKey, a provider
	// serving events with --events-url, and an API token allowed to manage
	// the repository's webhooks (GitHub: a GitHub App with the webhooks
	// permission or a token with admin:repo_hook; GitLab: Maintainer;
	// Gitea and Forgejo: the repository's admin). The EventsRegistered
	// condition says how it went; it is not part of Ready.
	// +optional
	Register bool `json:"register,omitempty"`
}

// CommitConfig configures the commits the provider makes.
type CommitConfig struct {
	// Author of the provider's commits.
	// +optional
	Author *CommitAuthor `json:"author,omitempty"`

	// Window is how long a branch's writer waits for more changes before it
	// commits and pushes them together. Changes from many resources within one
	// window become one commit and one push. At most 30s: a resource's write
	// waits for its window inside a reconcile that times out after a minute.
	// +optional
	// +kubebuilder:default="1s"
	// +kubebuilder:validation:XValidation:rule="duration(self) >= duration('0s') && duration(self) <= duration('30s')",message="commit.window must be a duration between 0s and 30s"
	Window *metav1.Duration `json:"window,omitempty"`

	// Signing makes the provider sign every commit it makes with an SSH key,
	// so a forge can show it as verified and branch protection can require
	// it. The public key is published in status.signing.publicKey.
	// +optional
	Signing *CommitSigning `json:"signing,omitempty"`

	// Via is how commits reach the repository: Git (a push, the default)
	// or API, where GitHub creates each commit through its Git data API
	// and signs it, so it shows as Verified with no user account's key.
	// API needs a GitHub repository (spec.forge.type GitHub, or a
	// github.com URL) over HTTPS with GitHub App credentials; a batch
	// larger than the API serves well (over 100 files, 4 MiB or 60
	// requests) is pushed instead.
	// +optional
	// +kubebuilder:validation:Enum=Git;API
	Via CommitVia `json:"via,omitempty"`
}

// CommitVia is how commits reach the repository.
type CommitVia string

// Ways commits reach the repository.
const (
	// CommitViaGit pushes commits the provider made (and signed, with
	// spec.commit.signing).
	CommitViaGit CommitVia = "Git"
	// CommitViaAPI has GitHub create and sign them through its API.
	CommitViaAPI CommitVia = "API"
)

// CommitSigning names the SSH key that signs the provider's commits.
type CommitSigning struct {
	// SecretRef names the Secret and the key in it that hold an unencrypted
	// ed25519 private key in OpenSSH format.
	SecretRef SigningKeySecretRef `json:"secretRef"`

	// GenerateWhenMissing makes the provider create the Secret with a fresh
	// ed25519 key (and its public key under <key>.pub) when it does not exist.
	// An existing Secret is never changed.
	// +optional
	GenerateWhenMissing bool `json:"generateWhenMissing,omitempty"`
}

// SigningKeySecretRef names the Secret holding a signing key.
type SigningKeySecretRef struct {
	// Name of the Secret.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	Name string `json:"name"`

	// Namespace of the Secret: required for a ClusterProviderConfig, not
	// allowed for a ProviderConfig (whose Secret is in its own namespace).
	// +optional
	// +kubebuilder:validation:MaxLength=63
	Namespace string `json:"namespace,omitempty"`

	// Key of the private key in the Secret.
	// +optional
	// +kubebuilder:default=identity
	// +kubebuilder:validation:MaxLength=253
	// +kubebuilder:validation:Pattern=`^[-._a-zA-Z0-9]+$`
	Key string `json:"key,omitempty"`
}

// CommitAuthor is the identity written into commits as author and committer.
type CommitAuthor struct {
	// Name of the author.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=256
	Name string `json:"name"`

	// Email of the author.
	// +kubebuilder:validation:MinLength=3
	// +kubebuilder:validation:MaxLength=256
	// +kubebuilder:validation:XValidation:rule="self.matches('^[^@<> ]+@[^@<> ]+$')",message="commit.author.email must look like user@host"
	Email string `json:"email"`
}

// ProviderCredentials selects where credentials come from. The URL decides
// which ones are used: an SSH URL needs a private key and known_hosts, an
// HTTPS URL a username and password or token.
// +kubebuilder:validation:XValidation:rule="self.source != 'Secret' || has(self.secretRef)",message="credentials.secretRef is required when credentials.source is Secret"
type ProviderCredentials struct {
	// Source of the credentials: Secret, or None for anonymous read-only
	// access over HTTPS.
	// +kubebuilder:validation:Enum=None;Secret
	// +kubebuilder:default=Secret
	Source xpv2.CredentialsSource `json:"source"`

	// SecretRef names the Secret, in this ProviderConfig's namespace, that
	// holds the credentials.
	// +optional
	SecretRef *LocalCredentialsSecretRef `json:"secretRef,omitempty"`
}

// ClusterProviderCredentials selects where a ClusterProviderConfig's
// credentials come from.
// +kubebuilder:validation:XValidation:rule="self.source != 'Secret' || has(self.secretRef)",message="credentials.secretRef is required when credentials.source is Secret"
type ClusterProviderCredentials struct {
	// Source of the credentials: Secret, or None for anonymous read-only
	// access over HTTPS.
	// +kubebuilder:validation:Enum=None;Secret
	// +kubebuilder:default=Secret
	Source xpv2.CredentialsSource `json:"source"`

	// SecretRef names the Secret, and its namespace, that holds the
	// credentials.
	// +optional
	SecretRef *CredentialsSecretRef `json:"secretRef,omitempty"`
}

// CredentialKeys names the keys of a credentials Secret. The defaults follow
// the key names Flux uses for Git credentials, so one Secret can serve both.
type CredentialKeys struct {
	// SSHPrivateKeyKey is the key holding a PEM or OpenSSH private key.
	// +optional
	// +kubebuilder:default=identity
	SSHPrivateKeyKey string `json:"sshPrivateKeyKey,omitempty"`

	// KnownHostsKey is the key holding known_hosts lines for the SSH host.
	// Required with SSH: host keys are always verified.
	// +optional
	// +kubebuilder:default=known_hosts
	KnownHostsKey string `json:"knownHostsKey,omitempty"`

	// UsernameKey is the key holding the HTTPS username.
	// +optional
	// +kubebuilder:default=username
	UsernameKey string `json:"usernameKey,omitempty"`

	// PasswordKey is the key holding the HTTPS password or access token.
	// +optional
	// +kubebuilder:default=password
	PasswordKey string `json:"passwordKey,omitempty"`

	// APITokenKey is the key holding a token for the forge's API, used by
	// PullRequests. Without it an HTTPS configuration's password, bearer
	// token or GitHub App serves; an SSH configuration needs it.
	// +optional
	// +kubebuilder:default=apiToken
	APITokenKey string `json:"apiTokenKey,omitempty"`

	// WebhookSecretKey is the key holding the secret the forge signs its
	// webhook deliveries with (GitHub, Gitea, Forgejo, Bitbucket Cloud and
	// Data Center) or sends as their token (GitLab) or basic
	// authentication password (Azure DevOps); at least 16 bytes. Set, and
	// the provider serving events (--events-bind-address), the
	// configuration accepts push and pull request events at
	// status.events.path: a change is acted on at once rather than at the
	// next poll.
	// +optional
	// +kubebuilder:validation:MaxLength=253
	// +kubebuilder:validation:Pattern=`^[-._a-zA-Z0-9]+$`
	WebhookSecretKey string `json:"webhookSecretKey,omitempty"`
}

// LocalCredentialsSecretRef names a Secret in the referencing object's
// namespace.
type LocalCredentialsSecretRef struct {
	// Name of the Secret.
	// +kubebuilder:validation:MinLength=1
	Name string `json:"name"`

	CredentialKeys `json:",inline"`
}

// CredentialsSecretRef names a Secret in a given namespace.
type CredentialsSecretRef struct {
	// Name of the Secret.
	// +kubebuilder:validation:MinLength=1
	Name string `json:"name"`

	// Namespace of the Secret.
	// +kubebuilder:validation:MinLength=1
	Namespace string `json:"namespace"`

	CredentialKeys `json:",inline"`
}

// ProviderConfigStatus is the observed state of a provider configuration.
type ProviderConfigStatus struct {
	xpv2.ProviderConfigStatus `json:",inline"`

	// ObservedGeneration is the metadata.generation this status describes.
	// +optional
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`

	// Signing describes the key that signs the provider's commits, when
	// spec.commit.signing is set and the key is readable.
	// +optional
	Signing *SigningStatus `json:"signing,omitempty"`

	// Encryption publishes the age keys Secrets are encrypted to, when
	// spec.encryption is set and its keys are readable.
	// +optional
	Encryption *EncryptionStatus `json:"encryption,omitempty"`

	// Writer is the replica that writes this repository when replicas
	// share the repositories (--share-repositories): it alone reconciles
	// the resources that use this configuration and pushes to the
	// repository. Empty when one replica writes everything.
	// +optional
	// +kubebuilder:validation:MaxLength=253
	Writer string `json:"writer,omitempty"`

	// Events says where the forge delivers this configuration's events,
	// when credentials.secretRef.webhookSecretKey is set.
	// +optional
	Events *EventsStatus `json:"events,omitempty"`
}

// EventsStatus says where the provider receives a configuration's forge
// events.
type EventsStatus struct {
	// Path is the path of the events endpoint (--events-bind-address)
	// that receives this configuration's webhook deliveries. It is derived
	// from the webhook secret, so nobody can guess it from names alone;
	// paste the endpoint's external URL with this path into the forge.
	// Empty while the configuration receives no events but still names
	// the hook it registered (hookID).
	// +optional
	// +kubebuilder:validation:MaxLength=253
	Path string `json:"path,omitempty"`

	// PollInterval is how often the repository is polled while its forge
	// delivers events: --events-relaxed-poll after a verified event, until
	// none came for that long. Empty while it is polled every --poll.
	// +optional
	PollInterval *metav1.Duration `json:"pollInterval,omitempty"`

	// HookID is the forge's id of the webhook the provider registered
	// (spec.events.register); on Azure DevOps the ids of its service hook
	// subscriptions, one per event type, joined by commas. Empty when it
	// registered none.
	// +optional
	// +kubebuilder:validation:MaxLength=253
	HookID string `json:"hookID,omitempty"`
}

// SetWriter records the replica that writes the repository.
func (s *ProviderConfigStatus) SetWriter(w string) { s.Writer = w }

// SigningStatus publishes the signing key for users to register on their
// forge and in their allowed-signers file.
type SigningStatus struct {
	// PublicKey is the signing key's public half as an authorized_keys line.
	PublicKey string `json:"publicKey"`
}

// +kubebuilder:object:root=true

// A ProviderConfig configures how provider-git reaches one repository. Managed
// resources in the same namespace use it through spec.providerConfigRef.
// +kubebuilder:subresource:status
// +kubebuilder:printcolumn:name="URL",type="string",JSONPath=".spec.url"
// +kubebuilder:printcolumn:name="READY",type="string",JSONPath=".status.conditions[?(@.type=='Ready')].status"
// +kubebuilder:printcolumn:name="REASON",type="string",JSONPath=".status.conditions[?(@.type=='Ready')].reason"
// +kubebuilder:printcolumn:name="WRITER",type="string",JSONPath=".status.writer"
// +kubebuilder:printcolumn:name="AGE",type="date",JSONPath=".metadata.creationTimestamp"
// +kubebuilder:resource:scope=Namespaced,categories={crossplane,provider,git}
type ProviderConfig struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   ProviderConfigSpec   `json:"spec"`
	Status ProviderConfigStatus `json:"status,omitempty"`
}

// +kubebuilder:object:root=true

// ProviderConfigList contains a list of ProviderConfig.
type ProviderConfigList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []ProviderConfig `json:"items"`
}

// ClusterProviderConfigSpec is a ProviderConfigSpec whose Secret may live in
// any namespace: only a cluster administrator can write one.
// +kubebuilder:validation:XValidation:rule="!has(self.commit) || !has(self.commit.signing) || has(self.commit.signing.secretRef.__namespace__)",message="commit.signing.secretRef.namespace is required in a ClusterProviderConfig"
// +kubebuilder:validation:XValidation:rule="!has(self.commit) || !has(self.commit.via) || self.commit.via != 'API' || (self.url.matches('^https?://') && ((has(self.forge) && has(self.forge.type) && self.forge.type == 'GitHub') || self.url.matches('^https://github[.]com/')))",message="commit.via API needs a GitHub repository over HTTPS (spec.forge.type GitHub, or a github.com URL) and GitHub App credentials"
// +kubebuilder:validation:XValidation:rule="!has(self.encryption) || (has(self.encryption.age.identitySecretRef.__namespace__) && (!has(self.encryption.age.recipientsSecretRef) || has(self.encryption.age.recipientsSecretRef.__namespace__)))",message="encryption.age secret references must name a namespace in a ClusterProviderConfig"
type ClusterProviderConfigSpec struct {
	// URL of the repository; see ProviderConfig.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=2048
	// +kubebuilder:validation:XValidation:rule="self.matches('^(https?://[^/@ ]+/[^ ]+|ssh://([A-Za-z0-9._-]+@)?[^/@ ]+/[^ ]+|[A-Za-z0-9._-]+@[A-Za-z0-9.-]+:[^ ]+|file:///[^ ]+)$')",message="url must be https://host/path, ssh://[user@]host/path or scp-like user@host:path (http:// and file:// only for tests); credentials never go in the URL"
	URL string `json:"url"`

	// Credentials used to fetch from and push to the repository.
	Credentials ClusterProviderCredentials `json:"credentials"`

	// Commit configures the commits the provider makes.
	// +optional
	// +kubebuilder:default={}
	Commit CommitConfig `json:"commit,omitempty"`

	// Encryption, when set, lets Files and Mirrors write Kubernetes Secrets,
	// encrypted with SOPS to age recipients. Without it a File's Secret is
	// refused and a Mirror reads no Secret; with it a Mirror reads the
	// Secrets of the namespaces spec.mirror.secretNamespaces grants.
	// +optional
	Encryption *Encryption `json:"encryption,omitempty"`

	// Forge names the forge that hosts the repository, for PullRequests.
	// Without it the forge is told from a well-known host (github.com,
	// gitlab.com, gitea.com, codeberg.org).
	// +optional
	Forge *ForgeConfig `json:"forge,omitempty"`

	// Events says what the provider does about the forge's webhook on this
	// repository.
	// +optional
	Events *EventsConfig `json:"events,omitempty"`

	// Mirror grants Mirrors that use this configuration reads beyond their
	// own namespace. Without it a Mirror reads only its own namespace.
	// +optional
	Mirror *MirrorPolicy `json:"mirror,omitempty"`
}

// MirrorPolicy is what a cluster administrator lets Mirrors read through a
// ClusterProviderConfig. Only a cluster administrator can write one, so a
// namespace's users cannot grant themselves another namespace's objects.
type MirrorPolicy struct {
	// MirrorNamespaces are the namespaces whose Mirrors may use this grant.
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=256
	// +listType=set
	// +kubebuilder:validation:items:MaxLength=63
	// +kubebuilder:validation:items:Pattern=`^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`
	MirrorNamespaces []string `json:"mirrorNamespaces"`

	// SourceNamespaces are the namespaces those Mirrors may read.
	// +optional
	// +kubebuilder:validation:MaxItems=256
	// +listType=set
	// +kubebuilder:validation:items:MaxLength=63
	// +kubebuilder:validation:items:Pattern=`^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`
	SourceNamespaces []string `json:"sourceNamespaces,omitempty"`

	// SourceNamespaceSelector selects, by their labels, more namespaces those
	// Mirrors may read.
	// +optional
	SourceNamespaceSelector *metav1.LabelSelector `json:"sourceNamespaceSelector,omitempty"`

	// ClusterScoped lets those Mirrors read cluster-scoped kinds.
	// +optional
	ClusterScoped bool `json:"clusterScoped,omitempty"`

	// SecretNamespaces are the namespaces whose Secrets those Mirrors may
	// mirror (encrypted, so this configuration needs spec.encryption). It
	// grants no namespace to read: a Mirror reads its own namespace, and
	// others only as sourceNamespaces and sourceNamespaceSelector grant.
	// Without it no Mirror mirrors a Secret, not even of its own namespace:
	// whoever can write a Mirror and a ProviderConfig could otherwise have
	// the provider copy every Secret of the namespace to a repository and
	// recipients of their choosing.
	// +optional
	// +kubebuilder:validation:MaxItems=256
	// +listType=set
	// +kubebuilder:validation:items:MaxLength=63
	// +kubebuilder:validation:items:Pattern=`^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`
	SecretNamespaces []string `json:"secretNamespaces,omitempty"`
}

// +kubebuilder:object:root=true

// A ClusterProviderConfig configures how provider-git reaches one repository,
// for managed resources in any namespace.
// +kubebuilder:subresource:status
// +kubebuilder:printcolumn:name="URL",type="string",JSONPath=".spec.url"
// +kubebuilder:printcolumn:name="READY",type="string",JSONPath=".status.conditions[?(@.type=='Ready')].status"
// +kubebuilder:printcolumn:name="REASON",type="string",JSONPath=".status.conditions[?(@.type=='Ready')].reason"
// +kubebuilder:printcolumn:name="WRITER",type="string",JSONPath=".status.writer"
// +kubebuilder:printcolumn:name="AGE",type="date",JSONPath=".metadata.creationTimestamp"
// +kubebuilder:resource:scope=Cluster,categories={crossplane,provider,git}
type ClusterProviderConfig struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   ClusterProviderConfigSpec `json:"spec"`
	Status ProviderConfigStatus      `json:"status,omitempty"`
}

// +kubebuilder:object:root=true

// ClusterProviderConfigList contains a list of ClusterProviderConfig.
type ClusterProviderConfigList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []ClusterProviderConfig `json:"items"`
}

// +kubebuilder:object:root=true

// A ProviderConfigUsage records that a managed resource uses a ProviderConfig
// or ClusterProviderConfig. It lives in the managed resource's namespace and
// is owned by it, so a configuration in use cannot be deleted from under it.
// +kubebuilder:printcolumn:name="AGE",type="date",JSONPath=".metadata.creationTimestamp"
// +kubebuilder:printcolumn:name="CONFIG-KIND",type="string",JSONPath=".providerConfigRef.kind"
// +kubebuilder:printcolumn:name="CONFIG-NAME",type="string",JSONPath=".providerConfigRef.name"
// +kubebuilder:printcolumn:name="RESOURCE-KIND",type="string",JSONPath=".resourceRef.kind"
// +kubebuilder:printcolumn:name="RESOURCE-NAME",type="string",JSONPath=".resourceRef.name"
// +kubebuilder:resource:scope=Namespaced,categories={crossplane,provider,git}
type ProviderConfigUsage struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	xpv2.TypedProviderConfigUsage `json:",inline"`
}

// +kubebuilder:object:root=true

// ProviderConfigUsageList contains a list of ProviderConfigUsage.
type ProviderConfigUsageList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []ProviderConfigUsage `json:"items"`
}

func init() {
	SchemeBuilder.Register(
		&ProviderConfig{}, &ProviderConfigList{},
		&ClusterProviderConfig{}, &ClusterProviderConfigList{},
		&ProviderConfigUsage{}, &ProviderConfigUsageList{},
	)
}
