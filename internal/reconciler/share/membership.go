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

package share

import (
	"context"
	"slices"
	"sync"
	"time"

	"github.com/crossplane/crossplane-runtime/v2/pkg/errors"
	"github.com/crossplane/crossplane-runtime/v2/pkg/logging"
	coordinationv1 "k8s.io/api/coordination/v1"
	kerrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	coordinationv1client "k8s.io/client-go/kubernetes/typed/coordination/v1"
	"k8s.io/utils/clock"
	"k8s.io/utils/ptr"
)

// Labels and annotations of a member's Lease.
const (
	// LabelGroup names the group of replicas a Lease is a member of; its
	// value is Options.Group.
	LabelGroup = "git.crossplane.io/share"
	// AnnotationRepositories is how many repositories the member holds,
	// updated with every renewal, for a person reading the Leases.
	AnnotationRepositories = "git.crossplane.io/repositories"
)

const (
	errRenew   = "cannot renew this replica's Lease"
	errList    = "cannot list the members' Leases"
	errRelease = "cannot delete this replica's Lease"
	errStale   = "cannot delete the Lease of a member long gone"
	errOptions = "sharing needs a namespace, a replica name and a lease duration of at least 3s"
)

// MinLeaseDuration bounds the lease duration from below: renewals come every
// third of it, and a renewal is an API request.
const MinLeaseDuration = 3 * time.Second

// Options configure a Membership.
type Options struct {
	// Namespace of the Leases.
	Namespace string
	// Identity is this replica's name, unique among the members (the pod's
	// name): its Lease is named after it and it holds repositories by it.
	Identity string
	// Group is the value of LabelGroup on every member's Lease.
	Group string
	// LeaseDuration is how long a Lease not renewed stays a member. A
	// replica renews every third of it and stops pushing once two thirds
	// passed without a renewal; others count it gone after a whole one.
	LeaseDuration time.Duration
	// Clock times renewals and expiry; nil: the real clock.
	Clock clock.WithTicker
	Log   logging.Logger
	// Metrics, when set, publishes members and repositories held.
	Metrics *Metrics
	// Repositories returns the keys of the repositories in use, for the
	// count of those held; nil: none counted.
	Repositories func(ctx context.Context) []string
	// Address, when set, is where this replica receives the forge
	// deliveries the others forward (IP:port), published on its Lease
	// (AnnotationEventsAddress).
	Address string
}

// View is one replica's view of the membership at one time.
type View struct {
	// Self is this replica.
	Self string
	// Members are the live members, Self among them once it renewed,
	// sorted.
	Members []string
	// Active is false while Self holds nothing: before its first
	// renewal and for a settling time after it (re)joined, and once its
	// Lease is not current.
	Active bool
}

// Holds reports whether Self holds key in this view.
func (v View) Holds(key string) bool {
	return v.Active && Holder(key, v.Members) == v.Self
}

// equal reports whether two views assign every key alike.
func (v View) equal(o View) bool {
	return v.Self == o.Self && v.Active == o.Active && slices.Equal(v.Members, o.Members)
}

// seen is what a replica last saw of one member's Lease.
type seen struct {
	name     string
	version  string
	observed time.Time
	duration time.Duration
	// address is where it receives forwarded deliveries, "" for nowhere.
	address string
}

// staleAfter is how many lease durations a Lease not renewed stays before a
// member deletes it: a replica killed without leaving (a pod's name is new
// after each restart) leaves its Lease behind, and every list would carry it
// forever.
const staleAfter = 10

// A Membership is this replica's membership in a group of replicas that
// share repositories. Add it to the manager: it renews its Lease and reads
// the others' every third of the lease duration until the manager stops,
// then deletes its Lease so the others take its repositories at once.
//
// Exactly one writer per repository while membership is stable follows
// from every member computing Holder over the same live members. While it
// changes, safety comes from asymmetry: a replica drops a repository the
// moment its view says so, but a replica that joins (or rejoins after its
// Lease lapsed) holds nothing until a settling time of two renewals has
// passed, by which time every other member has read its Lease; and a
// replica whose renewals fail stops pushing (two thirds of a lease) before
// the others count it gone (a whole lease after they last saw it renewed).
type Membership struct {
	leases coordinationv1client.LeaseInterface
	o      Options
	renew  time.Duration
	settle time.Duration

	mu sync.Mutex
	// renewed is when the last successful renewal started: the Lease is
	// current until two thirds of a lease after it.
	renewed time.Time
	// joined is when this replica last became a member after not being
	// one; it holds nothing until settle after it.
	joined  time.Time
	own     *coordinationv1.Lease
	others  map[string]seen
	view    View
	changed chan struct{}
	held    int
}

// New returns the membership of o.Identity, renewing its Lease through
// leases (the namespace's Leases).
func New(leases coordinationv1client.LeaseInterface, o Options) (*Membership, error) {
	if o.Namespace == "" || o.Identity == "" || o.LeaseDuration < MinLeaseDuration {
		return nil, errors.New(errOptions)
	}
	if o.Clock == nil {
		o.Clock = clock.RealClock{}
	}
	if o.Log == nil {
		o.Log = logging.NewNopLogger()
	}
	renew := o.LeaseDuration / 3
	return &Membership{
		leases: leases, o: o, renew: renew, settle: 2 * renew,
		others: map[string]seen{}, view: View{Self: o.Identity}, changed: make(chan struct{}),
	}, nil
}

// Identity is this replica's name.
func (m *Membership) Identity() string { return m.o.Identity }

// NeedLeaderElection is false: every replica is a member; sharing is what replaces
// leader election.
func (m *Membership) NeedLeaderElection() bool { return false }

// Start renews and reads the Leases until ctx ends, then leaves.
func (m *Membership) Start(ctx context.Context) error {
	t := m.o.Clock.NewTicker(m.renew)
	defer t.Stop()
	m.Tick(ctx)
	for {
		select {
		case <-ctx.Done():
			// Leaving outlives the manager's context, bounded by its own.
			m.leave(context.WithoutCancel(ctx))
			return nil
		case <-t.C():
			m.Tick(ctx)
		}
	}
}

// View returns the current view.
func (m *Membership) View() View {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.currentLocked()
}

// Changed returns a channel closed at the next change of the view. Take it
// before reading View, so no change falls between the two.
func (m *Membership) Changed() <-chan struct{} {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.changed
}

// Holds reports whether this replica holds the repository key now, with a
// current Lease.
func (m *Membership) Holds(key string) bool { return m.View().Holds(key) }

// MayPush is git.Fence: the engine asks it before every push.
func (m *Membership) MayPush(key string) bool { return m.Holds(key) }

// currentLocked is the view, made inactive at once (without waiting for the
// next tick) once the Lease is no longer current. The lapse is a change of
// the view like any other, announced on Changed: while it lasts the Filter
// drops this replica's events and Admit forgets what its queues held, so
// the renewal that ends it (a slow one, started while the Lease was still
// current: no settling time) must be announced too, or the Handover never
// enqueues those resources again and they wait for the informer's resync
// (an hour). That is how Files stayed unready after a replica's kill -9:
// the survivors' renewals, slowed by the failover's load, outlasted two
// thirds of a lease.
func (m *Membership) currentLocked() View {
	if m.view.Active && !m.currentAtLocked(m.o.Clock.Now()) {
		m.view.Active = false
		m.announceLocked()
	}
	return m.view
}

// announceLocked closes the channel Changed returned: the view changed.
func (m *Membership) announceLocked() {
	close(m.changed)
	m.changed = make(chan struct{})
}

// currentAtLocked reports whether this replica's Lease is current at now:
// renewed less than two thirds of a lease ago.
func (m *Membership) currentAtLocked(now time.Time) bool {
	return !m.renewed.IsZero() && now.Sub(m.renewed) < m.o.LeaseDuration-m.renew
}

// Tick renews this replica's Lease, reads every member's, and publishes the
// new view. Start calls it every third of a lease; tests call it with a
// fake clock.
func (m *Membership) Tick(ctx context.Context) {
	start := m.o.Clock.Now()
	m.mu.Lock()
	own, held := m.own, m.held
	m.mu.Unlock()

	rctx, cancel := context.WithTimeout(ctx, m.renew)
	own, err := m.renewLease(rctx, own, start, held)
	cancel()
	if err != nil {
		m.o.Log.Info(errRenew, "error", err)
	}
	m.mu.Lock()
	if err == nil {
		m.renewedLocked(own, start, m.o.Clock.Now())
	} else if kerrors.IsConflict(err) || kerrors.IsNotFound(err) {
		// Read again (or create) next time.
		m.own = nil
	}
	m.mu.Unlock()

	lctx, cancel := context.WithTimeout(ctx, m.renew)
	m.o.Metrics.request()
	list, lerr := m.leases.List(lctx, metav1.ListOptions{LabelSelector: LabelGroup + "=" + m.o.Group})
	cancel()
	if lerr != nil {
		m.o.Log.Info(errList, "error", lerr)
	}

	now := m.o.Clock.Now()
	m.mu.Lock()
	var stale []string
	if lerr == nil {
		m.observeLocked(list.Items, now)
		stale = m.staleLocked(now)
	}
	v := View{Self: m.o.Identity, Members: m.liveLocked(now)}
	v.Active = m.currentAtLocked(now) && !now.Before(m.joined.Add(m.settle))
	// Compared with the view as observers last saw it: currentLocked may
	// have made it inactive while the renewal was under way.
	changed := !v.equal(m.currentLocked())
	m.view = v
	if changed {
		m.announceLocked()
	}
	m.mu.Unlock()

	if changed {
		m.o.Log.Info("Membership changed", "members", v.Members, "active", v.Active)
	}
	m.count(ctx, v)
	m.deleteStale(ctx, stale)
}

// renewedLocked records a renewal that started at start and whose response
// arrived at landed. It is recorded at once, before the List that follows:
// a View taken while a slow List is under way must not see a lapse that is
// not one (each lapse is two changes of the view, and each makes every
// kind's Handover list and queue every resource this replica holds).
//
// A renewal that lands once the Lease is no longer current (two thirds of a
// lease after the last one started) is a rejoin: the others count this
// replica gone a whole lease after they last saw its Lease change and may
// have taken its repositories, and they see the renewal only at their next
// List, up to a renewal later. So this replica holds nothing for the full
// settling time, counted from when the response arrived rather than from
// when the request left (the request may have taken up to a renewal, and
// the others' List up to one more), as a joiner does.
func (m *Membership) renewedLocked(own *coordinationv1.Lease, start, landed time.Time) {
	m.own = own
	if !m.currentAtLocked(landed) {
		m.joined = landed
	}
	m.renewed = start
}

// observeLocked records what changed on the members' Leases. A Lease seen
// changing is observed now, by this replica's clock: the others' clocks
// never count. A Lease seen first counts from its renewTime when that is
// earlier, so a dead replica's Lease found by a replica that just started is
// not taken for a live one.
func (m *Membership) observeLocked(items []coordinationv1.Lease, now time.Time) {
	listed := map[string]bool{}
	for i := range items {
		l := &items[i]
		id := ptr.Deref(l.Spec.HolderIdentity, "")
		if id == "" {
			continue
		}
		listed[id] = true
		d := m.o.LeaseDuration
		if s := ptr.Deref(l.Spec.LeaseDurationSeconds, 0); s > 0 {
			d = time.Duration(s) * time.Second
		}
		// A renewal moves renewTime, and the API server the version.
		version := l.ResourceVersion
		if l.Spec.RenewTime != nil {
			version += "/" + l.Spec.RenewTime.UTC().Format(time.RFC3339Nano)
		}
		prev, ok := m.others[id]
		addr := forwardable(l.Annotations[AnnotationEventsAddress], m.o.Address)
		switch {
		case !ok:
			at := now
			if l.Spec.RenewTime != nil && l.Spec.RenewTime.Time.Before(now) {
				at = l.Spec.RenewTime.Time
			}
			m.others[id] = seen{name: l.Name, version: version, observed: at, duration: d, address: addr}
		case prev.version != version:
			m.others[id] = seen{name: l.Name, version: version, observed: now, duration: d, address: addr}
		}
	}
	for id := range m.others {
		// A deleted Lease is a member that left on purpose, having
		// stopped pushing first.
		if !listed[id] {
			delete(m.others, id)
		}
	}
}

// liveLocked are the members whose Lease changed within its duration.
func (m *Membership) liveLocked(now time.Time) []string {
	var out []string
	for id, s := range m.others {
		if now.Sub(s.observed) < s.duration {
			out = append(out, id)
		}
	}
	slices.Sort(out)
	return out
}

// count publishes how many repositories in use this replica holds.
func (m *Membership) count(ctx context.Context, v View) {
	n := 0
	if m.o.Repositories != nil {
		for _, k := range m.o.Repositories(ctx) {
			if v.Holds(k) {
				n++
			}
		}
	}
	m.mu.Lock()
	m.held = n
	m.mu.Unlock()
	m.o.Metrics.set(len(v.Members), n, v.Active)
}
