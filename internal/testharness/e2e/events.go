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

package e2e

import (
	"context"
	"fmt"
	"net"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"k8s.io/utils/clock"
	ctrl "sigs.k8s.io/controller-runtime/pkg/manager"

	"github.com/crossplane-contrib/provider-git/apis/v1alpha1"
	"github.com/crossplane-contrib/provider-git/internal/controller/config"
	"github.com/crossplane-contrib/provider-git/internal/forge"
	"github.com/crossplane-contrib/provider-git/internal/reconciler/options"
	"github.com/crossplane-contrib/provider-git/internal/reconciler/receiver"
	"github.com/crossplane-contrib/provider-git/internal/testharness/testenv"
)

// WithEvents serves forge events on a loopback port the provider holds
// from the start (Provider.EventsURL), as --events-bind-address does.
func WithEvents() ProviderOption {
	return func(o *providerOptions) { o.events = true }
}

// WithEventsRegistered serves forge events as WithEvents does and gives
// the endpoint's URL as --events-url, so configurations with
// spec.events.register put their hooks on the forge.
func WithEventsRegistered() ProviderOption {
	return func(o *providerOptions) { o.events, o.register = true, true }
}

// WithRelaxedPoll polls a repository whose forge events arrive every d, as
// --events-relaxed-poll does.
func WithRelaxedPoll(d time.Duration) ProviderOption {
	return func(o *providerOptions) { o.relaxed = d }
}

// serveEvents listens on loopback, serves o's hooks there through its
// Watcher and a Board of its own, and returns the endpoint's URL. The
// listener is bound before the provider starts: no port is picked and
// given back.
func serveEvents(t testing.TB, mgr ctrl.Manager, o *options.Options) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	o.Events, o.Board = receiver.NewRegistry(), forge.NewBoard(clock.RealClock{})
	srv := receiver.NewServer("", receiver.New(o.Events, o.Watcher, o.Board, o.Logger), o.Logger)
	if err := mgr.Add(ctrl.RunnableFunc(func(ctx context.Context) error { return srv.Serve(ctx, l) })); err != nil {
		t.Fatal(err)
	}
	return "http://" + l.Addr().String()
}

// SetWebhook puts secret under the key "webhook" of the Secret secretName
// in ns, has ns's ProviderConfig "git" verify deliveries with it, applies
// mutate (nil: nothing more) to the configuration, and returns it once
// ready passes on what the API server holds (checked every 100ms for a
// minute).
func SetWebhook(tb testing.TB, ns, secretName, secret string, mutate func(*v1alpha1.ProviderConfig), ready func(*v1alpha1.ProviderConfig) error) *v1alpha1.ProviderConfig {
	tb.Helper()
	ctx := context.Background()
	s := &corev1.Secret{}
	if err := CP.Client.Get(ctx, client.ObjectKey{Namespace: ns, Name: secretName}, s); err != nil {
		tb.Fatal(err)
	}
	if s.Data == nil {
		s.Data = map[string][]byte{}
	}
	s.Data["webhook"] = []byte(secret)
	if err := CP.Client.Update(ctx, s); err != nil {
		tb.Fatal(err)
	}
	pc := &v1alpha1.ProviderConfig{}
	if err := CP.Client.Get(ctx, client.ObjectKey{Namespace: ns, Name: "git"}, pc); err != nil {
		tb.Fatal(err)
	}
	// A merge patch: an update could meet the provider's own write of the
	// configuration (its finalizer) and fail on a stale resourceVersion.
	base := pc.DeepCopy()
	pc.Spec.Credentials.SecretRef.WebhookSecretKey = "webhook"
	if mutate != nil {
		mutate(pc)
	}
	if err := CP.Client.Patch(ctx, pc, client.MergeFrom(base)); err != nil {
		tb.Fatal(err)
	}
	testenv.Eventually(tb, time.Minute, func() error {
		if err := CP.Client.Get(ctx, client.ObjectKeyFromObject(pc), pc); err != nil {
			return err
		}
		return ready(pc)
	})
	return pc
}

// EventsPublished is a SetWebhook readiness: the configuration publishes
// where it receives events.
func EventsPublished(pc *v1alpha1.ProviderConfig) error {
	if pc.Status.Events == nil || pc.Status.Events.Path == "" {
		return fmt.Errorf("no events path published: %+v", pc.Status)
	}
	return nil
}

// Registered is a SetWebhook readiness: the configuration receives events
// at the path secret derives and, as register says, its hook is registered
// (an id and EventsRegistered True) or none is (no id, no condition).
func Registered(secret string, register bool) func(*v1alpha1.ProviderConfig) error {
	return func(pc *v1alpha1.ProviderConfig) error {
		ev, c := pc.Status.Events, pc.GetCondition(config.TypeEventsRegistered)
		path := receiver.PathOf(v1alpha1.ProviderConfigKind+"/"+pc.Namespace+"/"+pc.Name, []byte(secret))
		switch {
		case ev == nil || ev.Path != path:
			return fmt.Errorf("events path is not the secret's yet: %+v", ev)
		case register && (ev.HookID == "" || c.Status != corev1.ConditionTrue):
			return fmt.Errorf("not registered: hook %q, %s: %s", ev.HookID, c.Reason, c.Message)
		case !register && (ev.HookID != "" || c.Reason != ""):
			return fmt.Errorf("still registered: hook %q, %s: %s", ev.HookID, c.Reason, c.Message)
		}
		return nil
	}
}

// Register sets spec.events.register, for SetWebhook.
func Register(register bool) func(*v1alpha1.ProviderConfig) {
	return func(pc *v1alpha1.ProviderConfig) { pc.Spec.Events = &v1alpha1.EventsConfig{Register: register} }
}
