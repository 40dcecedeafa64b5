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
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/crossplane-contrib/provider-git/apis/v1alpha1"
	"github.com/crossplane-contrib/provider-git/internal/forge"
	"github.com/crossplane-contrib/provider-git/internal/forge/events"
	"github.com/crossplane-contrib/provider-git/internal/git"
	"github.com/crossplane-contrib/provider-git/internal/reconciler/receiver"
)

// hook receives pc's forge events at the path its webhook secret derives,
// and publishes that path; a configuration without a webhook secret, or a
// provider serving no events, receives none and publishes nothing. Its
// deliveries act on the clone its own credentials open, nothing else.
func (r *Reconciler) hook(pc configObject, conn *Connection) {
	nn := types.NamespacedName{Namespace: pc.GetNamespace(), Name: pc.GetName()}
	repo, err := git.RepositoryKey(conn.Remote.URL)
	if r.hooks == nil || len(conn.WebhookSecret) == 0 || err != nil {
		r.unhook(nn)
		setEvents(pc, nil)
		return
	}
	clone := ""
	if r.cache != nil {
		clone = r.cache.IdentityOf(conn.Remote)
	}
	t := receiver.Target{Repo: repo, Clone: clone, Sources: sourcesOf(pc, conn.Remote.URL)}
	ev := &v1alpha1.EventsStatus{Path: r.hooks.Set(r.owner(nn), t, conn.WebhookSecret)}
	if d := r.pollOf(clone); d > r.poll {
		ev.PollInterval = &metav1.Duration{Duration: d}
	}
	setEvents(pc, ev)
}

// sourcesOf are the forges whose deliveries pc accepts: its forge's (named,
// or known by the URL's host), or any when it names none.
func sourcesOf(pc configObject, url string) []string {
	v, _ := viewOf(pc) // pc is one of the two kinds: the reconciler made it.
	t, api := forge.Type(""), ""
	if v.forge != nil {
		t, api = forge.Type(v.forge.Type), v.forge.APIURL
	}
	c, err := forge.Resolve(url, t, api)
	if err != nil {
		return nil
	}
	switch c.Type {
	case forge.GitHub:
		return []string{events.SourceGitHub}
	case forge.GitLab:
		return []string{events.SourceGitLab}
	case forge.Gitea, forge.Forgejo:
		return []string{events.SourceGitea, events.SourceForgejo}
	case forge.BitbucketCloud:
		return []string{events.SourceBitbucketCloud}
	case forge.BitbucketDataCenter:
		return []string{events.SourceBitbucketDataCenter}
	case forge.AzureDevOps:
		return []string{events.SourceAzureDevOps}
	}
	return nil
}

// unhook stops receiving the events of the configuration nn names.
func (r *Reconciler) unhook(nn types.NamespacedName) {
	if r.hooks != nil {
		r.hooks.Remove(r.owner(nn))
	}
}

// eventsOf is where pc says it receives events, nil when nowhere.
func eventsOf(pc configObject) *v1alpha1.EventsStatus {
	switch c := pc.(type) {
	case *v1alpha1.ProviderConfig:
		return c.Status.Events
	case *v1alpha1.ClusterProviderConfig:
		return c.Status.Events
	}
	return nil
}

// hookIDOf is the webhook pc's status says was registered, "" if none.
func hookIDOf(pc configObject) string {
	if ev := eventsOf(pc); ev != nil {
		return ev.HookID
	}
	return ""
}

// setEvents publishes where pc receives events.
// Receiving none, it still names the hook registered on the forge, so
// that turning registration off or deleting the configuration removes it.
func setEvents(pc configObject, ev *v1alpha1.EventsStatus) {
	if id := hookIDOf(pc); ev == nil && id != "" {
		ev = &v1alpha1.EventsStatus{HookID: id}
	}
	switch c := pc.(type) {
	case *v1alpha1.ProviderConfig:
		c.Status.Events = ev
	case *v1alpha1.ClusterProviderConfig:
		c.Status.Events = ev
	}
}

// pollIntervals says how often a repository is polled now: longer while
// its forge events arrive (watch.Watcher.PollInterval).
type pollIntervals interface {
	PollInterval(clone string) time.Duration
}

// pollOf is how often the clone id is polled now: the configuration's own
// check need not be more frequent.
func (r *Reconciler) pollOf(clone string) time.Duration {
	if r.polls == nil || clone == "" {
		return r.poll
	}
	return max(r.poll, r.polls.PollInterval(clone))
}

// resolveAndHook resolves pc and receives its forge events with what it
// resolved to; a configuration that does not resolve receives none, so a
// webhook secret removed or rotated away stops verifying at once.
func (r *Reconciler) resolveAndHook(ctx context.Context, pc configObject) (*Connection, ForgeAccess, error) {
	fa := ForgeAccess{}
	conn, err := r.resolver.resolveAll(ctx, pc, &fa)
	if err != nil {
		r.unhook(client.ObjectKeyFromObject(pc))
		setEvents(pc, nil)
		return nil, fa, err
	}
	r.hook(pc, conn)
	return conn, fa, nil
}

// hookOnly keeps receiving the events of pc, whose repository another
// replica holds: the forge delivers to any replica behind the Service, and
// one that answered 404 would count towards the forge disabling its hook.
// Such a delivery acts on no clone here (none is open), and the holder
// publishes the path, which is the same on every replica.
// Without an events endpoint it neither reads nor watches anything.
func (r *Reconciler) hookOnly(ctx context.Context, pc configObject) {
	nn := client.ObjectKeyFromObject(pc)
	if r.hooks == nil {
		r.secrets.Retain(r.owner(nn), nil)
		return
	}
	r.secrets.Retain(r.owner(nn), secretsOf(pc))
	_, _, _ = r.resolveAndHook(ctx, pc)
}
