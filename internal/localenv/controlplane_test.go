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

package localenv

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

func TestTail(t *testing.T) {
	cases := map[string]struct {
		reason string
		writes []string
		want   string
	}{
		"Short":   {reason: "Output under the bound is kept whole.", writes: []string{"a\n", "b\n"}, want: "a\nb\n"},
		"Over":    {reason: "Past the bound, only the last bytes are kept.", writes: []string{strings.Repeat("x", tailSize), "end\n"}, want: strings.Repeat("x", tailSize-4) + "end\n"},
		"Nothing": {reason: "Nothing written is nothing kept."},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			tl := &tail{}
			for _, w := range tc.writes {
				if _, err := fmt.Fprint(tl, w); err != nil {
					t.Fatal(err)
				}
			}
			if diff := cmp.Diff(tc.want, tl.String()); diff != "" {
				t.Errorf("%s\ntail: -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}

// TestControlPlaneStartSaysWhy: a control plane that cannot start names
// what its process printed, here the API server's refusal of a flag.
func TestControlPlaneStartSaysWhy(t *testing.T) {
	if testing.Short() {
		t.Skip("starts etcd and kube-apiserver")
	}
	_, err := StartControlPlane(ControlPlaneOptions{APIServerArgs: map[string][]string{"no-such-flag": {"x"}}})
	if err == nil || !strings.Contains(err.Error(), "unknown flag: --no-such-flag") {
		t.Errorf("StartControlPlane with an unknown flag: want its error to carry the API server's words, got %v", err)
	}
}

// TestControlPlaneAdminToken: the administrator's configuration carries
// a bearer token and no client certificate, and is a cluster
// administrator; the token's file goes with Stop.
func TestControlPlaneAdminToken(t *testing.T) {
	if testing.Short() {
		t.Skip("starts etcd and kube-apiserver")
	}
	cp, err := StartControlPlane(ControlPlaneOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if cp.Config.BearerToken == "" || len(cp.Config.CertData) != 0 || len(cp.Config.KeyData) != 0 {
		t.Errorf("Config: want a bearer token and no client certificate, got token %t, certificate %d bytes, key %d bytes",
			cp.Config.BearerToken != "", len(cp.Config.CertData), len(cp.Config.KeyData))
	}
	ns := &corev1.Namespace{}
	ns.Name = "token-admin"
	if err := cp.Client.Create(context.Background(), ns); err != nil {
		t.Errorf("Create as the administrator: %v", err)
	}
	wrong := rest.CopyConfig(cp.Config)
	wrong.BearerToken = "not-the-token"
	c, err := client.New(wrong, client.Options{Scheme: cp.Scheme})
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Get(context.Background(), client.ObjectKeyFromObject(ns), &corev1.Namespace{}); err == nil {
		t.Error("Get with another token: want it refused")
	}
	file := cp.token.file()
	if err := cp.Stop(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(file); !os.IsNotExist(err) {
		t.Errorf("token file after Stop: want it gone, got %v", err)
	}
}
