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
	"net"
	"testing"
	"time"

	"k8s.io/utils/clock"
	ctrl "sigs.k8s.io/controller-runtime/pkg/manager"

	"github.com/crossplane-contrib/provider-git/internal/forge"
	"github.com/crossplane-contrib/provider-git/internal/reconciler/options"
	"github.com/crossplane-contrib/provider-git/internal/reconciler/receiver"
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
