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

package controller_test

import (
	"context"
	"strings"
	"testing"
	"time"

	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/util/retry"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/crossplane-contrib/provider-git/apis/v1alpha1"
	"github.com/crossplane-contrib/provider-git/internal/controller/spec"
	"github.com/crossplane-contrib/provider-git/internal/session"
	"github.com/crossplane-contrib/provider-git/internal/testenv"
)

// TestPrivateCA: a repository served over HTTPS with a certificate from a
// private CA is refused, with a reason saying so on the ProviderConfig and
// its resources, until the credentials Secret carries the CA (Flux's caFile
// key); then both converge without a restart.
func TestPrivateCA(t *testing.T) {
	startProvider(t, "")
	ctx := context.Background()
	https, ca := testenv.NewHTTPSServer(t, gitRoot, gitUser, gitToken)
	f := newFixture(t)
	pc := &v1alpha1.ProviderConfig{ObjectMeta: metav1.ObjectMeta{Namespace: f.ns, Name: "git"}}
	err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		if err := cp.Client.Get(ctx, client.ObjectKeyFromObject(pc), pc); err != nil {
			return err
		}
		pc.Spec.URL = https.RepoURL(f.repo.Name)
		return cp.Client.Update(ctx, pc)
	})
	if err != nil {
		t.Fatal(err)
	}
	waitFor(t, 30*time.Second, pc, stalledWith(t, pc, spec.ReasonCertificateUntrusted))
	msg := pc.GetCondition(session.TypeStalled).Message
	t.Logf("Stalled message without the CA: %s", msg)
	if !strings.Contains(msg, "certificate") || strings.Contains(msg, gitToken) {
		t.Errorf("the Stalled message %q does not name the certificate problem, or repeats the token", msg)
	}
	head := f.repo.Head(t, "main")
	fl := newFile(f, "a", "apps/a.yaml", "a: 1\n")
	create(t, fl)
	waitFor(t, 30*time.Second, fl, stalledWith(t, fl, spec.ReasonCertificateUntrusted))
	if got := f.repo.Head(t, "main"); got != head {
		t.Fatalf("a commit %s reached a server the provider must not trust", got[:7])
	}

	setSecret(t, f.ns, map[string]string{"username": gitUser, "password": gitToken, "caFile": string(ca)})
	waitFor(t, 30*time.Second, pc, func() error {
		return conditionIs(pc, xpv2.TypeReady, corev1.ConditionTrue, session.ReasonSucceeded)
	})
	waitFor(t, 30*time.Second, fl, readyAndCurrent(t, fl))
	f.waitRemote(t, "main", map[string]string{"apps/a.yaml": "a: 1\n"})
}
