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
	"github.com/google/go-cmp/cmp"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"

	"github.com/crossplane-contrib/provider-git/apis/v1alpha1"
)

// TestSecretsReadListError: a List failure says List, and which kind.
func TestSecretsReadListError(t *testing.T) {
	cases := map[string]struct {
		reason string
		fails  func(client.ObjectList) bool
		want   string
	}{
		"ProviderConfigs": {
			reason: "The ProviderConfig List failed.",
			fails:  func(l client.ObjectList) bool { _, ok := l.(*v1alpha1.ProviderConfigList); return ok },
			want:   "cannot list ProviderConfigs: boom",
		},
		"ClusterProviderConfigs": {
			reason: "The ClusterProviderConfig List failed.",
			fails:  func(l client.ObjectList) bool { _, ok := l.(*v1alpha1.ClusterProviderConfigList); return ok },
			want:   "cannot list ClusterProviderConfigs: boom",
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			c := fake.NewClientBuilder().WithScheme(scheme(t)).WithInterceptorFuncs(interceptor.Funcs{
				List: func(ctx context.Context, c client.WithWatch, l client.ObjectList, opts ...client.ListOption) error {
					if tc.fails(l) {
						return errors.New("boom")
					}
					return c.List(ctx, l, opts...)
				},
			}).Build()
			_, err := SecretsRead(context.Background(), c, []string{"a"})
			got := ""
			if err != nil {
				got = err.Error()
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("%s\nSecretsRead: -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}
