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
	"k8s.io/apimachinery/pkg/types"

	"github.com/crossplane-contrib/provider-git/apis/v1alpha1"
)

// TestEncryptionOf checks in code the namespace rules the CRDs check.
func TestEncryptionOf(t *testing.T) {
	age := func(idNS, rNS string) *v1alpha1.Encryption {
		return &v1alpha1.Encryption{Age: v1alpha1.AgeEncryption{
			IdentitySecretRef:   v1alpha1.AgeIdentitySecretRef{Name: "age", Namespace: idNS},
			RecipientsSecretRef: &v1alpha1.AgeRecipientsSecretRef{Name: "team", Namespace: rNS},
		}}
	}
	type args struct {
		e          *v1alpha1.Encryption
		namespaced bool
	}
	cases := map[string]struct {
		reason string
		args   args
		want   *encryptionRef
	}{
		"None": {
			reason: "No encryption block: Secrets are refused.",
			args:   args{namespaced: true},
		},
		"OwnNamespace": {
			reason: "A ProviderConfig's Secrets are in its own namespace, with the default keys.",
			args:   args{e: age("", ""), namespaced: true},
			want: &encryptionRef{
				identity:   secretKeyRef{key: types.NamespacedName{Namespace: "team-a", Name: "age"}, dataKey: DefaultAgeIdentityKey},
				recipients: &secretKeyRef{key: types.NamespacedName{Namespace: "team-a", Name: "team"}, dataKey: DefaultAgeRecipientsKey},
			},
		},
		"OtherNamespace": {
			reason: "A ProviderConfig cannot read another namespace's Secret.",
			args:   args{e: age("", "other"), namespaced: true},
			want: &encryptionRef{
				identity:   secretKeyRef{key: types.NamespacedName{Namespace: "team-a", Name: "age"}, dataKey: DefaultAgeIdentityKey},
				recipients: &secretKeyRef{key: types.NamespacedName{Namespace: "other", Name: "team"}, dataKey: DefaultAgeRecipientsKey},
				invalid:    errEncryptionNamespace,
			},
		},
		"ClusterNoNamespace": {
			reason: "A ClusterProviderConfig must name its Secrets' namespaces.",
			args:   args{e: age("crossplane-system", "")},
			want: &encryptionRef{
				identity:   secretKeyRef{key: types.NamespacedName{Namespace: "crossplane-system", Name: "age"}, dataKey: DefaultAgeIdentityKey},
				recipients: &secretKeyRef{key: types.NamespacedName{Name: "team"}, dataKey: DefaultAgeRecipientsKey},
				invalid:    errEncryptionNoNS,
			},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got := encryptionOf(tc.args.e, "team-a", tc.args.namespaced)
			if diff := cmp.Diff(tc.want, got, cmp.AllowUnexported(encryptionRef{}, secretKeyRef{})); diff != "" {
				t.Errorf("%s\nencryptionOf(...): -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}
