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

package v1alpha1_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/crossplane-contrib/provider-git/apis/v1alpha1"
)

// ageRecipient is a valid age X25519 public key.
const ageRecipient = "age1ql3z7hjy54pw3hyww5ayyfg7zqgvc7w3j2elw8zmrj2kg5sfn9aqmcac8p"

// TestEncryptionValidation checks spec.encryption's rules on a real API
// server, for both configuration kinds; internal/controller/config checks
// the same namespace rules in code.
func TestEncryptionValidation(t *testing.T) {
	id := v1alpha1.AgeIdentitySecretRef{Name: "age"}
	cases := map[string]struct {
		reason     string
		cluster    bool
		encryption v1alpha1.Encryption
		message    string
	}{
		"Inline": {
			reason:     "Inline recipients and a generated identity in the ProviderConfig's namespace.",
			encryption: v1alpha1.Encryption{Age: v1alpha1.AgeEncryption{Recipients: []string{ageRecipient}, IdentitySecretRef: id, GenerateWhenMissing: true}},
		},
		"GarbledRecipient": {
			reason:     "An inline recipient must be an age X25519 public key.",
			encryption: v1alpha1.Encryption{Age: v1alpha1.AgeEncryption{Recipients: []string{"age1notakey"}, IdentitySecretRef: id}},
			message:    "spec.encryption.age.recipients[0]",
		},
		"IdentityOtherNamespace": {
			reason:     "A ProviderConfig reads Secrets of its own namespace only.",
			encryption: v1alpha1.Encryption{Age: v1alpha1.AgeEncryption{IdentitySecretRef: v1alpha1.AgeIdentitySecretRef{Name: "age", Namespace: "other"}}},
			message:    "encryption.age secret references must not name a namespace in a ProviderConfig",
		},
		"RecipientsOtherNamespace": {
			reason: "The recipients Secret too.",
			encryption: v1alpha1.Encryption{Age: v1alpha1.AgeEncryption{IdentitySecretRef: id,
				RecipientsSecretRef: &v1alpha1.AgeRecipientsSecretRef{Name: "r", Namespace: "other"}}},
			message: "encryption.age secret references must not name a namespace in a ProviderConfig",
		},
		"ClusterNamed": {
			reason:  "A ClusterProviderConfig names its Secrets' namespaces.",
			cluster: true,
			encryption: v1alpha1.Encryption{Age: v1alpha1.AgeEncryption{IdentitySecretRef: v1alpha1.AgeIdentitySecretRef{Name: "age", Namespace: "crossplane-system"},
				RecipientsSecretRef: &v1alpha1.AgeRecipientsSecretRef{Name: "r", Namespace: "crossplane-system"}}},
		},
		"ClusterMissingNamespace": {
			reason:     "A ClusterProviderConfig has no namespace of its own to fall back on.",
			cluster:    true,
			encryption: v1alpha1.Encryption{Age: v1alpha1.AgeEncryption{IdentitySecretRef: id}},
			message:    "encryption.age secret references must name a namespace in a ClusterProviderConfig",
		},
	}
	ns := namespace(t)
	i := 0
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			i++
			e := tc.encryption
			var obj client.Object = &v1alpha1.ProviderConfig{
				ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: fmt.Sprintf("enc-%d", i)},
				Spec: v1alpha1.ProviderConfigSpec{URL: "https://git.example.org/platform/gitops.git",
					Credentials: v1alpha1.ProviderCredentials{Source: xpv2.CredentialsSourceNone}, Encryption: &e},
			}
			if tc.cluster {
				obj = &v1alpha1.ClusterProviderConfig{
					ObjectMeta: metav1.ObjectMeta{Name: "enc-" + strings.ToLower(name)},
					Spec: v1alpha1.ClusterProviderConfigSpec{URL: "https://git.example.org/platform/gitops.git",
						Credentials: v1alpha1.ClusterProviderCredentials{Source: xpv2.CredentialsSourceNone}, Encryption: &e},
				}
			}
			err := kube.Create(context.Background(), obj)
			switch {
			case tc.message == "" && err != nil:
				t.Errorf("%s\nCreate: want accepted, got: %v", tc.reason, err)
			case tc.message != "" && (err == nil || !strings.Contains(err.Error(), tc.message)):
				t.Errorf("%s\nCreate: want an error containing %q, got: %v", tc.reason, tc.message, err)
			}
		})
	}
}
