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
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	neturl "net/url"
	"strings"
	"sync"
	"time"

	"github.com/crossplane/crossplane-runtime/v2/pkg/errors"
	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/clock"

	"github.com/crossplane-contrib/provider-git/apis/v1alpha1"
	"github.com/crossplane-contrib/provider-git/internal/forge"
	"github.com/crossplane-contrib/provider-git/internal/reconciler/receiver"
)

// TypeEventsRegistered says whether the webhook spec.events.register asks
// for is on the forge. It is not part of Ready: events only make the
// provider act sooner, and the polls go on without them.
const TypeEventsRegistered xpv2.ConditionType = "EventsRegistered"

// Reasons of TypeEventsRegistered.
const (
	ReasonHookRegistered  xpv2.ConditionReason = "Registered"
	ReasonHookUnavailable xpv2.ConditionReason = "RegisterUnavailable"
	ReasonHookFailed      xpv2.ConditionReason = "RegisterFailed"
)

const (
	errHookNoURL      = "the provider runs without --events-url, so it cannot tell the forge where to deliver: add the hook by hand or set the flag"
	errHookNoSecret   = "credentials.secretRef.webhookSecretKey names no webhook secret to sign deliveries with"
	errHookNoServer   = "the provider serves no forge events (--events-bind-address)"
	errHookNoHooksFmt = "the %s client cannot keep webhooks: add the hook by hand (docs/guides/forge-events.md)"
	errHookOpen       = "cannot open the forge's API client"
	errHookKeep       = "cannot keep the webhook on the forge"
	errHookRemoveFmt  = "cannot remove webhook %s from the forge; remove it by hand"
)

// hookRecheck is how long a registered hook is trusted to be there before
// the forge is asked again: a hook someone deleted comes back within it,
// and a configuration at rest costs one list an hour.
const hookRecheck = time.Hour

// hookFirstBackoff is how long a configuration whose hook the forge refused
// waits before it is asked again; each refusal of the same request doubles
// it, up to hookRecheck. A change of the configuration asks at once.
const hookFirstBackoff = time.Minute

// registrar keeps each configuration's webhook on its forge. It remembers,
// per configuration, what it last put there, so a configuration at rest
// asks nothing of the forge.
type registrar struct {
	// base is the events endpoint's external URL (--events-url); "":
	// nothing is registered.
	base   string
	forges map[forge.Type]forge.Opener
	clock  clock.PassiveClock
	// kind is the kind of the configurations whose hooks it keeps, and
	// owners, when set, says which configuration receives at a hook path
	// ("" none; receiver.Registry.OwnerAt): a hook another configuration
	// receives from is never taken for one's own.
	kind   string
	owners func(path string) string

	mu   sync.Mutex
	kept map[types.NamespacedName]keptHook
}

// keptHook is a hook as the registrar last created or updated it, or the
// refusal it last met and how long it waits before asking again.
type keptHook struct {
	id, url, secret string
	at              time.Time
	failed          *xpv2.Condition
	backoff         time.Duration
}

func newRegistrar(base string, forges map[forge.Type]forge.Opener, clk clock.PassiveClock) *registrar {
	if clk == nil {
		clk = clock.RealClock{}
	}
	return &registrar{base: strings.TrimSuffix(base, "/"), forges: forges, clock: clk, kept: map[types.NamespacedName]keptHook{},
		kind: v1alpha1.ProviderConfigKind}
}

// hookClient is the forge of a configuration, opened for its hooks.
type hookClient func() (forge.Client, error)

// keep puts the hook at path (status.events.path) signed with secret on the
// forge, reusing id (status.events.hookID) or a hook already there with
// its URL, and returns the hook's id and the condition to publish.
func (g *registrar) keep(ctx context.Context, nn types.NamespacedName, id, path string, secret []byte, open hookClient) (string, xpv2.Condition) {
	url := g.base + path
	sum := secretSum(secret)
	g.mu.Lock()
	k, ok := g.kept[nn]
	g.mu.Unlock()
	same := ok && k.id == id && k.url == url && k.secret == sum
	switch {
	case same && k.failed == nil && g.clock.Since(k.at) < hookRecheck:
		return id, registered(url)
	case same && k.failed != nil && g.clock.Since(k.at) < k.backoff:
		// A refusal (a token without the right to manage hooks) is not
		// asked again at every check: the forge counts refused requests.
		return id, *k.failed
	}
	got, cond := g.attempt(ctx, nn, id, url, secret, k.secret == sum && ok && k.failed == nil, open)
	next := keptHook{id: got, url: url, secret: sum, at: g.clock.Now()}
	if cond.Status != corev1.ConditionTrue {
		next.failed, next.backoff = &cond, hookFirstBackoff
		if same && k.failed != nil {
			next.backoff = min(2*k.backoff, hookRecheck)
		}
	}
	g.mu.Lock()
	g.kept[nn] = next
	g.mu.Unlock()
	return got, cond
}

// attempt lists the forge's hooks and creates, repoints or leaves the
// provider's; secretKept says this process set the secret it holds now.
//
// A hook that status.events.hookID names and that points at url was put
// there with the secret: the path in url derives from the secret, and the
// provider writes a hook's id to status only once the hook holds the
// url's secret. Such a hook is left alone after a restart (whose memory of
// what it set is gone): Gitea's edit API cannot change a secret, so an
// update there is a new hook and a deletion, once per restart for
// nothing. A hook found by url alone (a person's, or a lost status write)
// is given the secret once.
func (g *registrar) attempt(ctx context.Context, nn types.NamespacedName, id, url string, secret []byte, secretKept bool, open hookClient) (string, xpv2.Condition) {
	hooks, cond := hooksOf(open)
	if hooks == nil {
		return id, cond
	}
	have, err := hooks.ListHooks(ctx)
	if err != nil {
		return id, failed(errors.Wrap(err, errHookKeep))
	}
	h, found := g.findHook(have, nn, id, url)
	secretKept = secretKept || (id != "" && h.ID == id && h.URL == url)
	want := forge.Hook{ID: h.ID, URL: url, Secret: string(secret)}
	switch {
	case !found:
		if h, err = hooks.CreateHook(ctx, want); err != nil {
			return id, failed(errors.Wrap(err, errHookKeep))
		}
	case h.URL != url || !h.Active || !secretKept:
		// Forges never return a hook's secret: one this process did
		// not put there itself is set again, once.
		if h, err = hooks.UpdateHook(ctx, want); err != nil {
			// A replacement created before the old hook's delete failed
			// is the one to keep.
			return cmp.Or(h.ID, id), failed(errors.Wrap(err, errHookKeep))
		}
	}
	return h.ID, registered(url)
}

// remove deletes the hook id that was registered for nn, if any.
func (g *registrar) remove(ctx context.Context, nn types.NamespacedName, id string, open hookClient) error {
	g.forget(nn)
	if id == "" {
		return nil
	}
	hooks, cond := hooksOf(open)
	if hooks == nil {
		return errors.New(cond.Message)
	}
	have, err := hooks.ListHooks(ctx)
	if err != nil {
		return errors.Wrapf(err, errHookRemoveFmt, id)
	}
	h, found := g.findHook(have, nn, id, "")
	if !found {
		return nil
	}
	if err := hooks.DeleteHook(ctx, h.ID); err != nil && !errors.Is(err, forge.ErrNotFound) {
		return errors.Wrapf(err, errHookRemoveFmt, id)
	}
	return nil
}

// forget drops what the registrar remembers of nn's hook.
func (g *registrar) forget(nn types.NamespacedName) {
	g.mu.Lock()
	delete(g.kept, nn)
	g.mu.Unlock()
}

// hooksOf opens the forge client and asserts it keeps hooks, or says why
// not.
func hooksOf(open hookClient) (forge.Hooks, xpv2.Condition) {
	c, err := open()
	if err != nil {
		return nil, failed(errors.Wrap(err, errHookOpen))
	}
	h, ok := c.(forge.Hooks)
	if !ok {
		return nil, unavailable(errors.Errorf(errHookNoHooksFmt, c.Type()).Error())
	}
	return h, xpv2.Condition{}
}

// findHook finds nn's registered hook: by its id while it still exists,
// else by URL (a status write that was lost, or a restart). A hook found by
// id counts only while it points at a hook path of this provider's that no
// other configuration receives at (ownHook): an id that someone able to
// write the status put there must not make the provider repoint or delete
// a person's hook, nor another configuration's. Any endpoint's: a hook
// registered under an earlier --events-url is repointed, not orphaned.
func (g *registrar) findHook(have []forge.Hook, nn types.NamespacedName, id, url string) (forge.Hook, bool) {
	for _, h := range have {
		if id != "" && h.ID == id && g.ownHook(nn, h.URL) {
			return h, true
		}
	}
	for _, h := range have {
		if url != "" && h.URL == url {
			return h, true
		}
	}
	return forge.Hook{}, false
}

// ownHook reports whether a hook with url may be nn's: its path ends in
// a receiver path (receiver.PathPrefix and one segment) that nn receives
// at now, or that no configuration does (one its secret's rotation left).
func (g *registrar) ownHook(nn types.NamespacedName, url string) bool {
	u, err := neturl.Parse(url)
	if err != nil {
		return false
	}
	i := strings.LastIndex(u.Path, receiver.PathPrefix)
	if i < 0 {
		return false
	}
	p := u.Path[i:]
	if rest := strings.TrimPrefix(p, receiver.PathPrefix); rest == "" || strings.Contains(rest, "/") {
		return false
	}
	if g.owners == nil {
		return true
	}
	o := g.owners(p)
	return o == "" || o == ownerOf(g.kind, nn)
}

// secretSum identifies a secret in memory without keeping it.
func secretSum(secret []byte) string {
	s := sha256.Sum256(secret)
	return hex.EncodeToString(s[:])
}

func registered(url string) xpv2.Condition {
	return xpv2.Condition{Type: TypeEventsRegistered, Status: corev1.ConditionTrue, Reason: ReasonHookRegistered,
		Message: "the forge delivers push and pull request events to " + url}
}

func failed(err error) xpv2.Condition {
	return xpv2.Condition{Type: TypeEventsRegistered, Status: corev1.ConditionFalse, Reason: ReasonHookFailed, Message: err.Error()}
}

func unavailable(msg string) xpv2.Condition {
	return xpv2.Condition{Type: TypeEventsRegistered, Status: corev1.ConditionFalse, Reason: ReasonHookUnavailable, Message: msg}
}

// register keeps or removes pc's webhook on its forge as spec.events.register
// says, and publishes the hook's id and TypeEventsRegistered. prev is the
// id pc's status held before this reconcile.
func (r *Reconciler) register(ctx context.Context, s conditionSetter, pc configObject, conn *Connection, fa ForgeAccess, prev string) {
	if r.registrar == nil {
		return
	}
	v, _ := viewOf(pc) // pc is one of the two kinds: the reconciler made it.
	nn := types.NamespacedName{Namespace: pc.GetNamespace(), Name: pc.GetName()}
	ev := eventsOf(pc)
	open := func() (forge.Client, error) { return r.forgeClient(fa, conn) }
	if !v.register {
		if err := r.registrar.remove(ctx, nn, prev, open); err != nil {
			keepHookID(ev, prev)
			s.Set(failed(err))
			return
		}
		if ev != nil {
			ev.HookID = ""
			if ev.Path == "" {
				setEvents(pc, nil)
			}
		}
		s.Remove(TypeEventsRegistered)
		return
	}
	var why string
	switch {
	case r.hooks == nil:
		why = errHookNoServer
	case r.registrar.base == "":
		why = errHookNoURL
	case ev == nil || ev.Path == "":
		why = errHookNoSecret
	}
	if why != "" {
		keepHookID(ev, prev)
		s.Set(unavailable(why))
		return
	}
	id, cond := r.registrar.keep(ctx, nn, prev, ev.Path, conn.WebhookSecret, open)
	ev.HookID = id
	s.Set(cond)
}

// unregister removes the webhook a deleted pc registered. A forge that
// refuses does not hold the deletion up: the Warning event names the hook
// for a person to remove.
func (r *Reconciler) unregister(ctx context.Context, pc configObject) {
	id := hookIDOf(pc)
	nn := types.NamespacedName{Namespace: pc.GetNamespace(), Name: pc.GetName()}
	if r.registrar == nil {
		return
	}
	if id == "" {
		r.registrar.forget(nn)
		return
	}
	conn, fa, err := r.resolveAndHook(ctx, pc)
	if err == nil {
		err = r.registrar.remove(ctx, nn, id, func() (forge.Client, error) { return r.forgeClient(fa, conn) })
	}
	if err != nil {
		r.recorder.Event(pc, corev1.EventTypeWarning, string(ReasonHookFailed), errors.Wrapf(err, errHookRemoveFmt, id).Error())
	}
}

// conditionSetter is what register needs of the session.
type conditionSetter interface {
	Set(c xpv2.Condition)
	Remove(t xpv2.ConditionType)
}

// forgeClient opens the forge API client of the configuration conn and fa
// describe, with the same token and HTTP client its PullRequests use.
func (r *Reconciler) forgeClient(fa ForgeAccess, conn *Connection) (forge.Client, error) {
	var repo tokenSource
	if r.cache != nil {
		gr, err := conn.Open(r.cache)
		if err != nil {
			return nil, err
		}
		repo = gr
	}
	cfg, _, err := fa.Config(conn.Remote, repo)
	if err != nil {
		return nil, err
	}
	open, ok := r.registrar.forges[cfg.Type]
	if !ok {
		return nil, errors.Errorf(errHookNoHooksFmt, cfg.Type)
	}
	return open(cfg)
}

// keepHookID leaves the id of a hook that is still on the forge in status.
func keepHookID(ev *v1alpha1.EventsStatus, id string) {
	if ev != nil {
		ev.HookID = id
	}
}
