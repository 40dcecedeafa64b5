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
	"bytes"
	"context"
	"encoding/base64"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/crossplane-contrib/provider-git/internal/testharness/testenv"
)

// TestSecretsOnlyWhenOptedIn checks that a Secret informer runs only for an
// owner whose request opts in to Secrets: that owner sees the Secret,
// marked, at its .sops.yaml path, in plain text for its caller to encrypt,
// and follows its edits; an owner without the opt-in, on the same
// namespace, still sees none and is told why; releasing the owner that
// opted in stops the Secret informer.
func TestSecretsOnlyWhenOptedIn(t *testing.T) {
	cp := controlPlane(t)
	ns := newNamespace(t, cp.Client)
	ctx := context.Background()
	s := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "creds"}, StringData: map[string]string{"token": "first"}}
	if err := cp.Client.Create(ctx, s); err != nil {
		t.Fatal(err)
	}
	if err := cp.Client.Create(ctx, configMap(ns, "c", nil, "1")); err != nil {
		t.Fatal(err)
	}
	h := startSources(t, cp.Config)
	plain := Request{Owner: types.NamespacedName{Namespace: ns, Name: "plain"}, Kinds: []Kind{secrets, configMaps}}
	sealed := Request{Owner: types.NamespacedName{Namespace: ns, Name: "sealed"}, Kinds: []Kind{secrets, configMaps}, SecretNamespaces: []string{ns}}

	snap := ensureSynced(t, h.s, plain)
	if diff := cmp.Diff([]string{ns + "/core/configmap/c.yaml"}, paths(snap)); diff != "" {
		t.Errorf("objects without the opt-in: -want, +got:\n%s", diff)
	}
	if got := h.s.Informers(); got != 1 {
		t.Fatalf("informers without the opt-in: %d, want 1 (none for Secrets)", got)
	}
	snap = ensureSynced(t, h.s, sealed)
	if diff := cmp.Diff([]string{ns + "/core/configmap/c.yaml", ns + "/core/secret/creds.sops.yaml"}, paths(snap)); diff != "" {
		t.Errorf("objects with the opt-in: -want, +got:\n%s", diff)
	}
	if len(snap.Skipped) != 0 {
		t.Errorf("skipped with the opt-in: %v, want none", snap.Skipped)
	}
	if got := h.s.Informers(); got != 2 {
		t.Errorf("informers with the opt-in: %d, want 2", got)
	}
	secretHolds := func(value string) error {
		snap, err := h.s.Ensure(ctx, sealed)
		if err != nil {
			return err
		}
		for _, o := range snap.Objects {
			if o.Path != ns+"/core/secret/creds.sops.yaml" {
				if o.Secret {
					return fmt.Errorf("%s is marked a Secret", o.Path)
				}
				continue
			}
			if !o.Secret {
				return fmt.Errorf("%s is not marked a Secret", o.Path)
			}
			if !bytes.Contains(o.Content, []byte(base64.StdEncoding.EncodeToString([]byte(value)))) {
				return fmt.Errorf("the Secret's content does not hold %q:\n%s", value, o.Content)
			}
			return nil
		}
		return fmt.Errorf("no Secret in the snapshot")
	}
	testenv.Eventually(t, 30*time.Second, func() error { return secretHolds("first") })
	s.StringData = map[string]string{"token": "second"}
	if err := cp.Client.Update(ctx, s); err != nil {
		t.Fatal(err)
	}
	testenv.Eventually(t, 30*time.Second, func() error { return secretHolds("second") })

	// The owner without the opt-in shares the namespace, not the Secrets.
	snap = ensureSynced(t, h.s, plain)
	if diff := cmp.Diff([]string{ns + "/core/configmap/c.yaml"}, paths(snap)); diff != "" {
		t.Errorf("objects without the opt-in: -want, +got:\n%s", diff)
	}
	if diff := cmp.Diff([]string{noteSecretsNotRead}, snap.Skipped); diff != "" {
		t.Errorf("skipped without the opt-in: -want, +got:\n%s", diff)
	}

	h.s.Release(sealed.Owner)
	if got := h.s.Informers(); got != 1 {
		t.Errorf("informers after the opted-in owner left: %d, want 1", got)
	}
	for _, o := range snap.Objects {
		if strings.Contains(string(o.Content), "c2Vjb25k") {
			t.Errorf("%s holds the Secret's value", o.Path)
		}
	}
}
