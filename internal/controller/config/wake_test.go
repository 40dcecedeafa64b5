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

	"github.com/crossplane/crossplane-runtime/v2/pkg/errors"
	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"
	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/crossplane-contrib/provider-git/apis/v1alpha1"
)

func TestUsersOf(t *testing.T) {
	usage := func(ns, name string, k configKind, pc, kind, resource string) *v1alpha1.ProviderConfigUsage {
		u := &v1alpha1.ProviderConfigUsage{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, Labels: map[string]string{
			xpv2.LabelKeyProviderName: pc, xpv2.LabelKeyProviderKind: k.gvk.Kind,
		}}}
		u.SetProviderConfigReference(xpv2.ProviderConfigReference{Kind: k.gvk.Kind, Name: pc})
		u.SetResourceReference(xpv2.TypedReference{APIVersion: v1alpha1.SchemeGroupVersion.String(), Kind: kind, Name: resource})
		return u
	}
	usages := []client.Object{
		usage("a", "u1", providerConfig, "git", "File", "one"),
		usage("a", "u2", providerConfig, "git", "File", "two"),
		usage("a", "u3", providerConfig, "git", "Branch", "main"),
		usage("a", "u4", providerConfig, "other", "File", "three"),
		usage("b", "u5", providerConfig, "git", "File", "four"),
		usage("a", "u6", clusterProviderConfig, "git", "File", "five"),
		usage("b", "u7", clusterProviderConfig, "git", "File", "six"),
	}
	req := func(ns, name string) reconcile.Request {
		return reconcile.Request{NamespacedName: types.NamespacedName{Namespace: ns, Name: name}}
	}
	all := func(context.Context, client.Reader, types.NamespacedName) (bool, error) { return true, nil }
	cases := map[string]struct {
		reason string
		k      configKind
		pc     client.Object
		wants  Wants
		want   []reconcile.Request
		err    bool
	}{
		"ProviderConfigReachesItsNamespaceOnly": {
			reason: "A ProviderConfig's users are the resources of the kind in its namespace whose usage names it.",
			k:      providerConfig,
			pc:     &v1alpha1.ProviderConfig{ObjectMeta: metav1.ObjectMeta{Namespace: "a", Name: "git"}},
			wants:  all,
			want:   []reconcile.Request{req("a", "one"), req("a", "two")},
		},
		"ClusterProviderConfigReachesEveryNamespace": {
			reason: "A ClusterProviderConfig's users are in any namespace, never the ProviderConfig's of the same name.",
			k:      clusterProviderConfig,
			pc:     &v1alpha1.ClusterProviderConfig{ObjectMeta: metav1.ObjectMeta{Name: "git"}},
			wants:  all,
			want:   []reconcile.Request{req("a", "five"), req("b", "six")},
		},
		"WantsFilters": {
			reason: "Only the resources wants accepts are woken.",
			k:      providerConfig,
			pc:     &v1alpha1.ProviderConfig{ObjectMeta: metav1.ObjectMeta{Namespace: "a", Name: "git"}},
			wants: func(_ context.Context, _ client.Reader, nn types.NamespacedName) (bool, error) {
				return nn.Name == "two", nil
			},
			want: []reconcile.Request{req("a", "two")},
		},
		"UnreadableUserIsWokenAndSaid": {
			reason: "A user wants cannot read is woken all the same (its reconcile reads it again), and the error is returned, not dropped.",
			k:      providerConfig,
			pc:     &v1alpha1.ProviderConfig{ObjectMeta: metav1.ObjectMeta{Namespace: "a", Name: "git"}},
			wants: func(_ context.Context, _ client.Reader, nn types.NamespacedName) (bool, error) {
				if nn.Name == "one" {
					return false, errors.New("boom")
				}
				return false, nil
			},
			want: []reconcile.Request{req("a", "one")},
			err:  true,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			c := fake.NewClientBuilder().WithScheme(scheme(t)).WithObjects(usages...).Build()
			got, err := usersOf(context.Background(), c, tc.k, tc.pc, "File", tc.wants)
			if (err != nil) != tc.err {
				t.Errorf("%s\nusersOf(...): error %v, want error: %t", tc.reason, err, tc.err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("%s\nusersOf(...): -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}

func TestEncryptionChanged(t *testing.T) {
	pc := func(st *v1alpha1.EncryptionStatus, users int64) *v1alpha1.ProviderConfig {
		p := &v1alpha1.ProviderConfig{ObjectMeta: metav1.ObjectMeta{Namespace: "a", Name: "git"}}
		p.Status.Encryption = st
		p.Status.Users = users
		return p
	}
	one := &v1alpha1.EncryptionStatus{PublicKey: "age1own", Recipients: []string{"age1own"}}
	two := &v1alpha1.EncryptionStatus{PublicKey: "age1own", Recipients: []string{"age1own", "age1team"}}
	cases := map[string]struct {
		reason string
		e      event.UpdateEvent
		want   bool
	}{
		"RecipientAdded": {
			reason: "A recipient more is an encryption change.",
			e:      event.UpdateEvent{ObjectOld: pc(one, 3), ObjectNew: pc(two, 3)},
			want:   true,
		},
		"EncryptionRemoved": {
			reason: "Encryption turned off is a change: Mirrors drop their Secrets.",
			e:      event.UpdateEvent{ObjectOld: pc(one, 3), ObjectNew: pc(nil, 3)},
			want:   true,
		},
		"UsersCounted": {
			reason: "The usage count's write wakes nobody.",
			e:      event.UpdateEvent{ObjectOld: pc(one, 3), ObjectNew: pc(one.DeepCopy(), 4)},
			want:   false,
		},
		"ClusterProviderConfig": {
			reason: "A ClusterProviderConfig's encryption is read too.",
			e: event.UpdateEvent{
				ObjectOld: &v1alpha1.ClusterProviderConfig{Status: v1alpha1.ProviderConfigStatus{Encryption: one}},
				ObjectNew: &v1alpha1.ClusterProviderConfig{Status: v1alpha1.ProviderConfigStatus{Encryption: two}},
			},
			want: true,
		},
	}
	p := encryptionChanged()
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if got := p.Update(tc.e); got != tc.want {
				t.Errorf("%s\nUpdate(...) = %t, want %t", tc.reason, got, tc.want)
			}
		})
	}
	if p.Create(event.CreateEvent{Object: pc(one, 0)}) || p.Delete(event.DeleteEvent{Object: pc(one, 0)}) || p.Generic(event.GenericEvent{Object: pc(one, 0)}) {
		t.Error("a create, delete or generic event of a configuration woke its users; only an encryption change may")
	}
}

func TestSpecChanged(t *testing.T) {
	gen := func(g int64) *v1alpha1.ClusterProviderConfig {
		c := &v1alpha1.ClusterProviderConfig{}
		c.SetGeneration(g)
		return c
	}
	granted := gen(2)
	granted.Spec.Mirror = &v1alpha1.MirrorPolicy{SecretNamespaces: []string{"team-a"}}
	counted := gen(1)
	counted.Status.Users = 3
	cases := map[string]struct {
		reason string
		e      event.UpdateEvent
		want   bool
	}{
		"GrantAdded": {
			reason: "A grant of Secrets added to a configuration (a new generation) wakes its users: a converged Mirror is not polled.",
			e:      event.UpdateEvent{ObjectOld: gen(1), ObjectNew: granted},
			want:   true,
		},
		"StatusOnly": {
			reason: "A status write (the usage count) wakes nobody.",
			e:      event.UpdateEvent{ObjectOld: gen(1), ObjectNew: counted},
			want:   false,
		},
	}
	p := specChanged()
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if got := p.Update(tc.e); got != tc.want {
				t.Errorf("%s\nUpdate(...) = %t, want %t", tc.reason, got, tc.want)
			}
		})
	}
	if p.Create(event.CreateEvent{Object: gen(1)}) || p.Delete(event.DeleteEvent{Object: gen(1)}) || p.Generic(event.GenericEvent{Object: gen(1)}) {
		t.Error("a create, delete or generic event of a configuration woke its users; only a change of its spec may")
	}
}
