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

package mirror

import (
	"context"
	"strings"
	"testing"

	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"
	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/crossplane-contrib/provider-git/apis/v1alpha1"
	"github.com/crossplane-contrib/provider-git/internal/mirror"
	"github.com/crossplane-contrib/provider-git/internal/reconciler/managed"
	"github.com/crossplane-contrib/provider-git/internal/reconciler/spec"
)

func TestSecretsGrant(t *testing.T) {
	cpc := func(pol *v1alpha1.MirrorPolicy) *v1alpha1.ClusterProviderConfig {
		return &v1alpha1.ClusterProviderConfig{ObjectMeta: metav1.ObjectMeta{Name: "shared"}, Spec: v1alpha1.ClusterProviderConfigSpec{Mirror: pol}}
	}
	viaCPC := func(m *v1alpha1.Mirror) {
		m.Spec.ProviderConfigReference = &xpv2.ProviderConfigReference{Kind: v1alpha1.ClusterProviderConfigKind, Name: "shared"}
	}
	secrets := []mirror.Kind{{APIVersion: "v1", Kind: "ConfigMap"}, {APIVersion: "v1", Kind: "Secret"}}
	type args struct {
		objs     []client.Object
		mirror   *v1alpha1.Mirror
		kinds    []mirror.Kind
		nss      []string
		encrypts bool
	}
	type want struct {
		allowed []string
		note    string // a substring of the note; "" for none
		err     bool
	}
	cases := map[string]struct {
		reason string
		args   args
		want   want
	}{
		"NoEncryption": {
			reason: "without encryption nothing is looked up: the shared watches say why",
			args:   args{mirror: newMirror(viaCPC), kinds: secrets, nss: []string{"ns"}},
		},
		"NoSecretsNamed": {
			reason: "a Mirror that names no Secrets needs no grant and looks nothing up",
			args:   args{mirror: newMirror(viaCPC), kinds: secrets[:1], nss: []string{"ns"}, encrypts: true},
		},
		"SecretsByResource": {
			reason: "Secrets named by resource need the grant as well",
			args:   args{mirror: newMirror(), kinds: []mirror.Kind{{Resource: "secrets"}}, nss: []string{"ns"}, encrypts: true},
			want:   want{note: `uses ProviderConfig "git"`},
		},
		"NamespacedProviderConfig": {
			reason: "a ProviderConfig never grants Secrets: whoever writes the Mirror can write it",
			args:   args{mirror: newMirror(), kinds: secrets, nss: []string{"ns"}, encrypts: true},
			want:   want{note: "needs a grant in spec.mirror.secretNamespaces of a ClusterProviderConfig"},
		},
		"NoPolicy": {
			reason: "a ClusterProviderConfig without spec.mirror grants nothing",
			args:   args{objs: []client.Object{cpc(nil)}, mirror: newMirror(viaCPC), kinds: secrets, nss: []string{"ns"}, encrypts: true},
			want:   want{note: `ClusterProviderConfig "shared" has no spec.mirror policy`},
		},
		"NotGrantee": {
			reason: "the policy grants Mirrors of other namespaces only",
			args: args{objs: []client.Object{cpc(&v1alpha1.MirrorPolicy{MirrorNamespaces: []string{"other"}, SecretNamespaces: []string{"ns"}})},
				mirror: newMirror(viaCPC), kinds: secrets, nss: []string{"ns"}, encrypts: true},
			want: want{note: `does not list namespace "ns" in mirrorNamespaces`},
		},
		"OwnNamespaceNotListed": {
			reason: "even the Mirror's own namespace needs to be listed",
			args: args{objs: []client.Object{cpc(&v1alpha1.MirrorPolicy{MirrorNamespaces: []string{"ns"}})},
				mirror: newMirror(viaCPC), kinds: secrets, nss: []string{"ns"}, encrypts: true},
			want: want{note: "Secrets of namespace(s) ns are not read"},
		},
		"Granted": {
			reason: "the grant lists the namespace: its Secrets are read, and nothing is noted",
			args: args{objs: []client.Object{cpc(&v1alpha1.MirrorPolicy{MirrorNamespaces: []string{"ns"}, SecretNamespaces: []string{"ns"}})},
				mirror: newMirror(viaCPC), kinds: secrets, nss: []string{"ns"}, encrypts: true},
			want: want{allowed: []string{"ns"}},
		},
		"PartlyGranted": {
			reason: "of two namespaces read, the one granted is read, the other named",
			args: args{objs: []client.Object{cpc(&v1alpha1.MirrorPolicy{MirrorNamespaces: []string{"ns"}, SourceNamespaces: []string{"a", "b"}, SecretNamespaces: []string{"a"}})},
				mirror: newMirror(viaCPC), kinds: secrets, nss: []string{"a", "b"}, encrypts: true},
			want: want{allowed: []string{"a"}, note: "Secrets of namespace(s) b are not read"},
		},
		"ConfigGone": {
			reason: "the ClusterProviderConfig cannot be read: an error, not a grant",
			args:   args{mirror: newMirror(viaCPC), kinds: secrets, nss: []string{"ns"}, encrypts: true},
			want:   want{err: true},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			r := mirror.Request{Kinds: tc.args.kinds, Namespaces: tc.args.nss}
			allowed, note, err := secretsGrant(context.Background(), kube(t, tc.args.objs...), tc.args.mirror, r, tc.args.encrypts)
			if (err != nil) != tc.want.err {
				t.Fatalf("%s\nerr = %v, want error %t", tc.reason, err, tc.want.err)
			}
			if diff := cmp.Diff(tc.want.allowed, allowed); diff != "" {
				t.Errorf("%s\nallowed: -want, +got:\n%s", tc.reason, diff)
			}
			if (tc.want.note == "") != (note == "") || !strings.Contains(note, tc.want.note) {
				t.Errorf("%s\nnote = %q, want one with %q", tc.reason, note, tc.want.note)
			}
		})
	}
}

func TestRequestIgnore(t *testing.T) {
	type want struct {
		managers      []string
		skipGenerated bool
		invalid       string // a substring of the refusal
	}
	cases := map[string]struct {
		reason string
		mutate func(*v1alpha1.Mirror)
		want   want
	}{
		"Defaults": {
			reason: "no ignore: every change is mirrored, and generated objects are skipped",
			mutate: func(*v1alpha1.Mirror) {},
			want:   want{skipGenerated: true},
		},
		"GeneratedMirrored": {
			reason: "skipClusterGenerated: false mirrors them too",
			mutate: func(m *v1alpha1.Mirror) { m.Spec.ForProvider.SkipClusterGenerated = ptr.To(false) },
			want:   want{},
		},
		"FieldManagers": {
			reason: "the field managers reach the request",
			mutate: func(m *v1alpha1.Mirror) {
				m.Spec.ForProvider.Ignore = &v1alpha1.MirrorIgnore{FieldManagers: []string{"kustomize-controller", "helm"}}
			},
			want: want{managers: []string{"kustomize-controller", "helm"}, skipGenerated: true},
		},
		"UsersWithoutAttribution": {
			reason: "the CRD's rule again: users need attribution: Audit, refused rather than pretended",
			mutate: func(m *v1alpha1.Mirror) {
				m.Spec.ForProvider.Ignore = &v1alpha1.MirrorIgnore{Users: []string{"system:serviceaccount:flux-system:kustomize-controller"}}
			},
			want: want{invalid: "needs spec.forProvider.attribution Audit, Admission or Auto"},
		},
		"UsersWithAttribution": {
			reason: "with attribution: Audit, users are accepted (the join applies them)",
			mutate: func(m *v1alpha1.Mirror) {
				m.Spec.ForProvider.Attribution = v1alpha1.MirrorAttributionAudit
				m.Spec.ForProvider.Ignore = &v1alpha1.MirrorIgnore{Users: []string{"system:serviceaccount:flux-system:kustomize-controller"}}
			},
			want: want{skipGenerated: true},
		},
		"UsersWithAdmission": {
			reason: "with attribution: Admission, users are accepted too (admission names them)",
			mutate: func(m *v1alpha1.Mirror) {
				m.Spec.ForProvider.Attribution = v1alpha1.MirrorAttributionAdmission
				m.Spec.ForProvider.Ignore = &v1alpha1.MirrorIgnore{Users: []string{"system:serviceaccount:flux-system:kustomize-controller"}}
			},
			want: want{skipGenerated: true},
		},
		"LongUser": {
			reason: "the CRD's rule again: a user of at most 256 characters",
			mutate: func(m *v1alpha1.Mirror) {
				m.Spec.ForProvider.Attribution = v1alpha1.MirrorAttributionAudit
				m.Spec.ForProvider.Ignore = &v1alpha1.MirrorIgnore{Users: []string{strings.Repeat("x", 257)}}
			},
			want: want{invalid: "ignore.users[0]"},
		},
		"UnknownAttribution": {
			reason: "the CRD's enum again",
			mutate: func(m *v1alpha1.Mirror) { m.Spec.ForProvider.Attribution = "Guess" },
			want:   want{invalid: "must be None, Audit, Admission or Auto"},
		},
		"AuthorWithoutAttribution": {
			reason: "the CRD's rule again: author templates need attribution: Audit",
			mutate: func(m *v1alpha1.Mirror) { m.Spec.ForProvider.Author = &v1alpha1.MirrorAuthor{Name: "{{ .Username }}"} },
			want:   want{invalid: "author needs"},
		},
		"AuthorDoesNotParse": {
			reason: "an author template that does not parse is refused when the Mirror is read, not at its next change",
			mutate: func(m *v1alpha1.Mirror) {
				m.Spec.ForProvider.Attribution = v1alpha1.MirrorAttributionAudit
				m.Spec.ForProvider.Author = &v1alpha1.MirrorAuthor{Name: "{{ .Username"}
			},
			want: want{invalid: "cannot parse spec.forProvider.author.name"},
		},
		"AuthorUnknownField": {
			reason: "a template naming a field authors do not have does not render",
			mutate: func(m *v1alpha1.Mirror) {
				m.Spec.ForProvider.Attribution = v1alpha1.MirrorAttributionAudit
				m.Spec.ForProvider.Author = &v1alpha1.MirrorAuthor{Email: "{{ .Mail }}"}
			},
			want: want{invalid: "cannot render spec.forProvider.author.email"},
		},
		"AuthorAngleBrackets": {
			reason: "a rendering that would break the commit's author line is refused",
			mutate: func(m *v1alpha1.Mirror) {
				m.Spec.ForProvider.Attribution = v1alpha1.MirrorAttributionAudit
				m.Spec.ForProvider.Author = &v1alpha1.MirrorAuthor{Email: `{{ "<" }}{{ .Username }}`}
			},
			want: want{invalid: "spec.forProvider.author.email renders"},
		},
		"AuthorRange": {
			reason: "nothing in an author needs a loop",
			mutate: func(m *v1alpha1.Mirror) {
				m.Spec.ForProvider.Attribution = v1alpha1.MirrorAttributionAudit
				m.Spec.ForProvider.Author = &v1alpha1.MirrorAuthor{Name: "{{ range .Groups }}{{ . }}{{ end }}"}
			},
			want: want{invalid: "must not use range"},
		},
		"EmptyManager": {
			reason: "the CRD's rule again: an empty field manager",
			mutate: func(m *v1alpha1.Mirror) {
				m.Spec.ForProvider.Ignore = &v1alpha1.MirrorIgnore{FieldManagers: []string{""}}
			},
			want: want{invalid: "ignore.fieldManagers[0]"},
		},
		"LongManager": {
			reason: "the CRD's rule again: at most 128 characters",
			mutate: func(m *v1alpha1.Mirror) {
				m.Spec.ForProvider.Ignore = &v1alpha1.MirrorIgnore{FieldManagers: []string{strings.Repeat("x", 129)}}
			},
			want: want{invalid: "ignore.fieldManagers[0]"},
		},
		"TooManyManagers": {
			reason: "the CRD's rule again: at most 32",
			mutate: func(m *v1alpha1.Mirror) {
				m.Spec.ForProvider.Ignore = &v1alpha1.MirrorIgnore{FieldManagers: make([]string, 33)}
			},
			want: want{invalid: "at most 32"},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			r, err := Request(newMirror(tc.mutate))
			if tc.want.invalid != "" {
				reason, ok := managed.StalledReason(err)
				if !ok || reason != spec.ReasonInvalidSpec || !strings.Contains(err.Error(), tc.want.invalid) {
					t.Errorf("%s\nerr = %v (%s), want InvalidSpec with %q", tc.reason, err, reason, tc.want.invalid)
				}
				return
			}
			if err != nil {
				t.Fatalf("%s\nerr = %v", tc.reason, err)
			}
			if diff := cmp.Diff(tc.want.managers, r.IgnoreManagers); diff != "" {
				t.Errorf("%s\nmanagers: -want, +got:\n%s", tc.reason, diff)
			}
			if r.SkipGenerated != tc.want.skipGenerated {
				t.Errorf("%s\nSkipGenerated = %t, want %t", tc.reason, r.SkipGenerated, tc.want.skipGenerated)
			}
		})
	}
}
