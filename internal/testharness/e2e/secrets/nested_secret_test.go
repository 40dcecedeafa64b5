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

package secrets_test

import (
	"strings"
	"testing"
	"time"

	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/crossplane-contrib/provider-git/internal/reconciler/spec"
	"github.com/crossplane-contrib/provider-git/internal/testharness/e2e"
)

// listWithSecret is a v1 List whose second item is a Secret.
var listWithSecret = []byte(`{"apiVersion":"v1","kind":"List","items":[` +
	`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"app"},"data":{"k":"v"}},` +
	`{"apiVersion":"v1","kind":"Secret","metadata":{"name":"db"},"stringData":{"password":"` + secretPassword + `"}}]}`)

// TestFileRefusesSecretInAList: a File whose object is a List with a Secret
// among its items is SecretRefused naming the item, as a bare Secret is,
// and writes nothing; with encryption configured too, since a List's items
// are split from it before Flux decrypts (manifest.ErrNestedSecret).
func TestFileRefusesSecretInAList(t *testing.T) {
	for name, encrypted := range map[string]bool{"WithoutEncryption": false, "WithEncryption": true} {
		t.Run(name, func(t *testing.T) {
			f := e2e.NewFixture(t)
			e2e.StartProvider(t, "")
			if encrypted {
				generatedIdentity(t, f)
			}
			fl := e2e.NewFile(f, "bundle", "apps/bundle.yaml", "")
			fl.Spec.ForProvider.Content = nil
			fl.Spec.ForProvider.Object = &runtime.RawExtension{Raw: listWithSecret}
			head := f.Repo.Head(t, "main")
			e2e.Create(t, fl)
			e2e.WaitFor(t, 30*time.Second, fl, e2e.StalledWith(t, fl, spec.ReasonSecretRefused))
			if msg := fl.GetCondition(xpv2.TypeReady).Message; !strings.Contains(msg, "items[1] is a Secret") {
				t.Errorf("Ready's message must name the item that is a Secret: %q", msg)
			}
			f.Stays(t, fl, false, "main", head, "a Secret in a List must never reach Git")
			noPlaintextInHistory(t, f)
		})
	}
}
