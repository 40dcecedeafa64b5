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

// Encryption makes the provider write Kubernetes Secrets into Git, which it
// otherwise refuses, as SOPS documents encrypted to age recipients: the
// values of data and stringData are encrypted, the rest stays readable and
// is covered by the SOPS MAC. Flux's kustomize-controller and the sops tool
// decrypt them with any one of the recipients' identities.
type Encryption struct {
	// Age names the age keys files are encrypted to.
	Age AgeEncryption `json:"age"`
}

// AgeEncryption names the age recipients of encrypted files and the
// provider's own identity.
type AgeEncryption struct {
	// Recipients are age public keys (age1...) every encrypted file is
	// encrypted to, e.g. the key of the cluster that applies the repository.
	// +optional
	// +listType=set
	// +kubebuilder:validation:MaxItems=64
	// +kubebuilder:validation:items:Pattern=`^age1[qpzry9x8gf2tvdw0s3jn54khce6mua7l]{58}$`
	Recipients []string `json:"recipients,omitempty"`

	// RecipientsSecretRef names a Secret key holding more recipients, one or
	// more per line (commas or spaces between them, # comments allowed), as
	// in an age recipients file.
	// +optional
	RecipientsSecretRef *AgeRecipientsSecretRef `json:"recipientsSecretRef,omitempty"`

	// IdentitySecretRef names the Secret key holding the provider's own age
	// identity (AGE-SECRET-KEY-1...). Its public key is always a recipient:
	// the provider decrypts what it wrote to tell an unchanged Secret from a
	// changed one, since SOPS output differs at every encryption. The
	// default key, age.agekey, is the name Flux's kustomize-controller
	// reads an age identity from, so the same Secret can decrypt there.
	IdentitySecretRef AgeIdentitySecretRef `json:"identitySecretRef"`

	// GenerateWhenMissing makes the provider create the identity Secret with
	// a fresh age identity (and its public key under <key>.pub) when it does
	// not exist. An existing Secret is never changed.
	// +optional
	GenerateWhenMissing bool `json:"generateWhenMissing,omitempty"`
}

// AgeIdentitySecretRef names the Secret holding the provider's age identity.
type AgeIdentitySecretRef struct {
	// Name of the Secret.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	Name string `json:"name"`

	// Namespace of the Secret: required for a ClusterProviderConfig, not
	// allowed for a ProviderConfig (whose Secret is in its own namespace).
	// +optional
	// +kubebuilder:validation:MaxLength=63
	Namespace string `json:"namespace,omitempty"`

	// Key of the identity in the Secret.
	// +optional
	// +kubebuilder:default=age.agekey
	// +kubebuilder:validation:MaxLength=253
	// +kubebuilder:validation:Pattern=`^[-._a-zA-Z0-9]+$`
	Key string `json:"key,omitempty"`
}

// AgeRecipientsSecretRef names the Secret holding age recipients.
type AgeRecipientsSecretRef struct {
	// Name of the Secret.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	Name string `json:"name"`

	// Namespace of the Secret: required for a ClusterProviderConfig, not
	// allowed for a ProviderConfig (whose Secret is in its own namespace).
	// +optional
	// +kubebuilder:validation:MaxLength=63
	Namespace string `json:"namespace,omitempty"`

	// Key of the recipients in the Secret.
	// +optional
	// +kubebuilder:default=recipients
	// +kubebuilder:validation:MaxLength=253
	// +kubebuilder:validation:Pattern=`^[-._a-zA-Z0-9]+$`
	Key string `json:"key,omitempty"`
}

// EncryptionStatus publishes the keys files are encrypted to.
type EncryptionStatus struct {
	// PublicKey is the provider's own age recipient.
	PublicKey string `json:"publicKey"`

	// Recipients is every age recipient an encrypted file is written for,
	// the provider's own among them, sorted.
	// +optional
	Recipients []string `json:"recipients,omitempty"`
}
