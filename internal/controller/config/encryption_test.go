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
	"strings"
	"testing"

	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"
	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	"github.com/crossplane-contrib/provider-git/apis/v1alpha1"
	"github.com/crossplane-contrib/provider-git/internal/encrypt"
	"github.com/crossplane-contrib/provider-git/internal/reconciler/managed"
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

// TestEncryptionKeyMessages: an encryption configuration Stalled by its keys
// names the Secret and the key to fix, or the inline recipients, and never
// repeats the identity.
func TestEncryptionKeyMessages(t *testing.T) {
	identity, recipient, err := encrypt.GenerateIdentity()
	if err != nil {
		t.Fatal(err)
	}
	idRef := secretKeyRef{key: types.NamespacedName{Namespace: "team-a", Name: "age"}, dataKey: DefaultAgeIdentityKey}
	rRef := &secretKeyRef{key: types.NamespacedName{Namespace: "team-a", Name: "team"}, dataKey: "people"}
	type want struct {
		reason  xpv2.ConditionReason
		message string
	}
	cases := map[string]struct {
		reason  string
		ref     *encryptionRef
		objects []client.Object
		want    want
	}{
		"IdentityKeyAbsent": {
			reason:  "The identity Secret lacks the key the configuration names.",
			ref:     &encryptionRef{identity: idRef},
			objects: []client.Object{secret("team-a", "age", map[string]string{"other": identity})},
			want: want{reason: ReasonEncryptionKeyInvalid,
				message: `age identity Secret team-a/age has no key "age.agekey"`},
		},
		"IdentityUnparsable": {
			reason:  "An identity that is not an age key names its Secret and key, not its value.",
			ref:     &encryptionRef{identity: idRef},
			objects: []client.Object{secret("team-a", "age", map[string]string{DefaultAgeIdentityKey: "SECRET-NOT-A-KEY"})},
			want: want{reason: ReasonEncryptionKeyInvalid,
				message: `age identity Secret team-a/age key "age.agekey": cannot parse age identity (want one AGE-SECRET-KEY-1... line)`},
		},
		"RecipientsKeyAbsent": {
			reason:  "The recipients Secret lacks the key the configuration names.",
			ref:     &encryptionRef{identity: idRef, recipients: rRef},
			objects: []client.Object{secret("team-a", "age", map[string]string{DefaultAgeIdentityKey: identity}), secret("team-a", "team", map[string]string{"recipients": recipient})},
			want: want{reason: ReasonEncryptionKeyInvalid,
				message: `age recipients Secret team-a/team has no key "people"`},
		},
		"RecipientsUnparsable": {
			reason: "A bad recipient in the recipients Secret names that Secret and key, and the recipient (public).",
			ref:    &encryptionRef{identity: idRef, recipients: rRef},
			objects: []client.Object{secret("team-a", "age", map[string]string{DefaultAgeIdentityKey: identity}),
				secret("team-a", "team", map[string]string{"people": recipient + "\nage1nope\n"})},
			want: want{reason: ReasonEncryptionKeyInvalid,
				message: `age recipients Secret team-a/team key "people": cannot parse age recipient "age1nope" (want age1...): malformed recipient "age1nope": separator '1' at invalid position: pos=3, len=8`},
		},
		"InlineRecipientUnparsable": {
			reason:  "A bad recipient in the configuration itself names the field.",
			ref:     &encryptionRef{identity: idRef, inline: []string{"age1nope"}},
			objects: []client.Object{secret("team-a", "age", map[string]string{DefaultAgeIdentityKey: identity})},
			want: want{reason: ReasonEncryptionKeyInvalid,
				message: `encryption.age.recipients: cannot parse age recipient "age1nope" (want age1...): malformed recipient "age1nope": separator '1' at invalid position: pos=3, len=8`},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			c := fake.NewClientBuilder().WithScheme(scheme(t)).WithObjects(tc.objects...).Build()
			_, err := NewResolver(c, c, false).keys(context.Background(), tc.ref)
			var got want
			if err != nil {
				got.reason, _ = managed.StalledReason(err)
				got.message = err.Error()
			}
			if diff := cmp.Diff(tc.want, got, cmp.AllowUnexported(want{})); diff != "" {
				t.Errorf("%s\nkeys: -want, +got:\n%s", tc.reason, diff)
			}
			if err != nil && (strings.Contains(err.Error(), "SECRET-NOT-A-KEY") || strings.Contains(err.Error(), identity)) {
				t.Errorf("%s\nthe error repeats the identity: %v", tc.reason, err)
			}
		})
	}
}
