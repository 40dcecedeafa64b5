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

package attribution

import (
	"maps"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/clock"

	"github.com/crossplane-contrib/provider-git/internal/audit"
	"github.com/crossplane-contrib/provider-git/internal/git"
	"github.com/crossplane-contrib/provider-git/internal/mirror"
)

// DefaultWait is how long a change waits for the audit event that names
// who made it: above the API server's webhook batch wait of the documented
// set-up (1s) plus its delivery.
const DefaultWait = 3 * time.Second

// facts is what a Mirror needs of the audit store.
type facts interface {
	Want(owner string, grs ...audit.GroupResource)
	Since(k audit.Key, t time.Time) []audit.Fact
	Collection(gr audit.GroupResource, namespace string, t time.Time) []audit.Fact
}

// Attributions join the changes Mirrors commit to the audit facts that name
// who made them. One is shared by every reconcile of every Mirror of the
// process; it keeps, per Mirror, a ledger of what it has spent.
//
// The join, at the Metadata level (see package audit): a change of an
// object is what the Mirror's plan finds differing between the live object
// and its file. The plan that first finds it notes when (noticed). Its
// facts are the object's facts (by group, resource, namespace and name)
// that arrived from noticed minus the wait on, and after the facts the
// Mirror's last landed commit of that object spent. A change with facts is
// authored by the user of the last of them (the last writer, whose content
// the file holds); the other users of its facts are Co-authored-by
// trailers. A change without facts waits, out of the write, until noticed
// plus the wait, then is authored unresolved. A change whose facts all name
// users the Mirror ignores keeps the object's file as it was (a put; a
// deletion is always committed, as with ignored field managers).
type Attributions struct {
	store   facts
	clock   clock.PassiveClock
	wait    time.Duration
	metrics *audit.Metrics

	// admitted are the admission webhook's facts; nil: none in this
	// process (SetAdmission).
	admitted admitted

	mu      sync.Mutex
	ledgers map[string]*ledger
	// waiting are the objects whose facts a deferred change waits for, and
	// which Mirrors to wake when one arrives.
	waiting map[audit.Key]map[types.NamespacedName]bool
	wake    func(types.NamespacedName)
}

// ledger is one Mirror's join state, by the relative path of each file.
type ledger struct {
	// keys name the object at each path, as last seen in a snapshot, so
	// that a deletion is joined to the object that was there.
	keys map[string]audit.Key
	// noticed is when a plan first found a change at the path that has not
	// landed yet.
	noticed map[string]time.Time
	// seen is the content (blob SHA) the change at the path last had and
	// since when: it can move while the change waits.
	seen map[string]seenAs
	// after: facts that arrived before it were spent by a landed commit.
	after map[string]time.Time
	// ignored is the blob SHA of a content ignored users alone wrote, held
	// back while the object still has it.
	ignored map[string]string
	// spending is what the write in flight spends once it lands, and how
	// many of its changes were resolved and unresolved.
	spending             map[string]time.Time
	resolved, unresolved int
	// uids are the UID of the object at each path, as last seen in a
	// snapshot: an admission fact of a deletion names its object by it.
	uids map[string]string
	// admission is what the last change joined found of the admission
	// webhook.
	admission admissionSeen
}

// seenAs is a content of a change and when a plan first found it.
type seenAs struct {
	sha string
	at  time.Time
}

func newLedger() *ledger {
	return &ledger{keys: map[string]audit.Key{}, noticed: map[string]time.Time{}, seen: map[string]seenAs{},
		after: map[string]time.Time{}, ignored: map[string]string{}, uids: map[string]string{}}
}

// seenSince records that the change at rel has the content sha and returns
// since when it has.
func (l *ledger) seenSince(rel, sha string, now time.Time) time.Time {
	if s, ok := l.seen[rel]; ok && s.sha == sha {
		return s.at
	}
	l.seen[rel] = seenAs{sha: sha, at: now}
	return now
}

// noticeDone forgets when the change at rel was noticed and seen.
func (l *ledger) noticeDone(rel string) {
	delete(l.noticed, rel)
	delete(l.seen, rel)
}

// NewAttributions returns the join state over store, waiting up to wait
// for a change's facts, by clk; wake is called with a Mirror whose deferred
// change just got a fact. m counts the outcomes (nil: none).
func NewAttributions(store *audit.Store, clk clock.PassiveClock, wait time.Duration, m *audit.Metrics) *Attributions {
	a := newAttributions(store, clk, wait, m)
	store.Notify(a.arrived)
	return a
}

func newAttributions(store facts, clk clock.PassiveClock, wait time.Duration, m *audit.Metrics) *Attributions {
	if clk == nil {
		clk = clock.RealClock{}
	}
	return &Attributions{
		store: store, clock: clk, wait: wait, metrics: m,
		ledgers: map[string]*ledger{}, waiting: map[audit.Key]map[types.NamespacedName]bool{},
		wake: func(types.NamespacedName) {},
	}
}

// SetWaker sets whom a fact for a deferred change wakes.
func (a *Attributions) SetWaker(wake func(types.NamespacedName)) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.wake = wake
}

// arrived wakes the Mirrors waiting for a fact of k; a deletecollection's
// (k names no object) wakes those waiting for any object it may have
// deleted: of its resource, in its namespace, or in any when it has none.
func (a *Attributions) arrived(k audit.Key) {
	a.mu.Lock()
	owners := a.waiting[k]
	delete(a.waiting, k)
	if k.Name == "" {
		// Rare (a deletecollection): a scan of what waits, where an
		// object's fact is one lookup.
		owners = map[types.NamespacedName]bool{}
		for w, nns := range a.waiting {
			if w.GroupResource == k.GroupResource && (k.Namespace == "" || w.Namespace == k.Namespace) {
				maps.Copy(owners, nns)
				delete(a.waiting, w)
			}
		}
	}
	wake := a.wake
	a.mu.Unlock()
	for nn := range owners {
		wake(nn)
	}
}

// want records the group/resources the snapshot of the Mirror key covers
// as the facts it needs; nil resources withdraw it.
func (a *Attributions) want(key string, res []mirror.ResourceCount) {
	a.mu.Lock()
	if a.ledgers[key] == nil {
		a.ledgers[key] = newLedger()
	}
	a.mu.Unlock()
	grs := make([]audit.GroupResource, 0, len(res))
	for _, r := range res {
		grs = append(grs, audit.GroupResource{Group: r.GVR.Group, Resource: r.GVR.Resource})
	}
	a.store.Want(key, grs...)
}

// Forget drops m's ledger and interest: it attributes nothing more.
func (a *Attributions) Forget(m Mirror) {
	if a == nil {
		return
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if _, ok := a.ledgers[m.Key]; !ok {
		return
	}
	a.store.Want(m.Key)
	delete(a.ledgers, m.Key)
	for k, w := range a.waiting {
		for nn := range w {
			if nn == m.Name {
				delete(w, nn)
			}
		}
		if len(w) == 0 {
			delete(a.waiting, k)
		}
	}
}

// verdict is what the join decided for one path.
type verdict int

// The verdicts of a change in the write; a change that waits, or that
// ignored users alone made, is held out of it (attributed.keep).
const (
	resolved verdict = iota
	unattributed
)

// attribution is one path's verdict.
type attribution struct {
	verdict verdict
	// author and coauthors (resolved).
	author    git.Signature
	coauthors []git.Signature
	// when orders the commits: the first fact's arrival, or the end of the
	// wait of an unresolved change.
	when time.Time
	// spent is where the path's facts are spent to once the write lands.
	spent time.Time
	// by is what named the author: ByAdmission, ByAudit or ByUnresolved
	// (the commit's Attributed-By trailer).
	by string
}

// attributed is what the join decided for one plan of one Mirror.
type attributed struct {
	byPath map[string]attribution
	// keep are the paths held as Git has them (deferred or ignored).
	keep map[string]bool
	// wait is how long until the first deferred change's wait ends.
	wait     time.Duration
	deferred int
	// collected are the deletions a deletecollection authors (by its
	// fact), and pending the deletions still waiting for a fact of their own
	// object: see holdCollections.
	collected map[string]factID
	pending   map[string]pendingDeletion
	// admission is what the join found of the admission webhook.
	admission admissionSeen
}

// decide joins the changes of m's first plan of snap (changed: the blob
// SHA of each file it writes, "" for each it deletes, by path relative to
// the folder) to facts.
func (a *Attributions) decide(m Mirror, snap mirror.Snapshot, changed map[string]string, who *authors) attributed {
	now := a.clock.Now()
	a.mu.Lock()
	defer a.mu.Unlock()
	l := a.ledgers[m.Key]
	if l == nil {
		l = newLedger()
		a.ledgers[m.Key] = l
	}
	l.settle(snap, changed)
	out := attributed{byPath: map[string]attribution{}, keep: map[string]bool{}, collected: map[string]factID{}, pending: map[string]pendingDeletion{}}
	for rel, sha := range changed {
		if sha != "" && l.ignored[rel] == sha {
			// Ignored users or managers alone made this content: held
			// while the object still has it, whatever the source.
			out.keep[rel] = true
			continue
		}
		if m.Source.admission() {
			if a.admitted == nil {
				// No webhook in this process: nothing was seen.
				l.admission = admissionSeen{state: AdmissionOff}
			} else if a.decideAdmitted(&out, l, m, rel, sha, objectAt(snap, rel), now, who) {
				continue
			}
			if !m.Source.audit() {
				// No admission fact joins it, and none can come: the
				// webhook's fact precedes the write it admits.
				out.byPath[rel] = attribution{verdict: unattributed, author: unresolved(), when: now, spent: now, by: ByUnresolved}
				continue
			}
		}
		a.decideOne(&out, l, m, rel, sha, now, who)
	}
	a.holdCollections(&out, now)
	out.admission = l.admission
	return out
}

// settle records the key of every object of snap and forgets what no
// longer differs: a path back as Git has it, or whose write landed, starts
// a new change when it differs again; a path gone whose deletion landed
// has nothing more to join.
func (l *ledger) settle(snap mirror.Snapshot, changed map[string]string) {
	live := make(map[string]bool, len(snap.Objects))
	for _, o := range snap.Objects {
		live[o.Path] = true
		if o.UID != "" {
			l.uids[o.Path] = o.UID
		}
		if _, ok := l.keys[o.Path]; !ok {
			l.keys[o.Path] = audit.Key{GroupResource: audit.GroupResource{Group: o.GVK.Group, Resource: o.Resource}, Namespace: o.Namespace, Name: o.Name}
		}
	}
	for rel := range l.keys {
		if _, ok := changed[rel]; !ok && !live[rel] {
			delete(l.keys, rel)
			delete(l.after, rel)
			delete(l.uids, rel)
		}
	}
	for rel := range l.noticed {
		if _, ok := changed[rel]; !ok {
			l.noticeDone(rel)
		}
	}
	for rel := range l.ignored {
		if _, ok := changed[rel]; !ok {
			delete(l.ignored, rel)
		}
	}
}

// decideOne joins the change at rel (blob SHA sha; "" for a deletion) of
// the Mirror nn to its facts, into out. Call with mu held.
func (a *Attributions) decideOne(out *attributed, l *ledger, m Mirror, rel, sha string, now time.Time, who *authors) {
	nn := m.Name
	noticed, ok := l.noticed[rel]
	if !ok {
		noticed = now
		l.noticed[rel] = now
	}
	seen := l.seenSince(rel, sha, now)
	k, known := l.keys[rel]
	var fs []audit.Fact
	var since time.Time
	if known {
		since = noticed.Add(-a.wait)
		if t := l.after[rel]; t.After(since) {
			since = t
		}
		fs = a.store.Since(k, since)
		if len(fs) == 0 && sha == "" && !now.Before(noticed.Add(a.wait)) {
			// A deletion no fact of its own object names once the
			// wait for one is over: a deletecollection of its
			// resource, in its namespace or all, in the same window,
			// deleted it (its audit event names no object). Not
			// before: the window opens a wait before the deletion
			// was noticed, so an earlier, unrelated deletecollection
			// would author a deletion whose own event is still on
			// its way, and that event, when it comes in time, wins.
			fs = a.store.Collection(k.GroupResource, k.Namespace, since)
			if len(fs) > 0 {
				out.collected[rel] = idOf(fs[len(fs)-1])
			}
		}
	}
	until := noticed.Add(a.wait)
	ignored := len(fs) > 0 && sha != "" && allIgnored(fs, m)
	if ignored {
		// "Ignored" on the facts so far is provisional until a wait after
		// the content was first seen as it is: a person's change of the
		// same object may be in the API server's next batch, and a
		// verdict recorded for content whose own fact has not come would
		// keep that person's change out of Git for good.
		until = later(until, seen.Add(a.wait))
	}
	waits := known && (len(fs) == 0 || ignored) && now.Before(until)
	if !waits {
		a.stopWaitingLocked(k, nn)
	}
	switch {
	case ignored && !waits:
		l.ignored[rel] = sha
		l.after[rel] = fs[len(fs)-1].Arrived.Add(time.Nanosecond)
		l.noticeDone(rel)
		out.keep[rel] = true
		a.metrics.Attributed("ignored", 1)
	case len(fs) > 0 && !waits:
		out.byPath[rel] = joined(fs, m, who)
	case waits:
		out.keep[rel] = true
		out.deferred++
		if w := until.Sub(now); out.wait == 0 || w < out.wait {
			out.wait = w
		}
		if a.waiting[k] == nil {
			a.waiting[k] = map[types.NamespacedName]bool{}
		}
		a.waiting[k][nn] = true
		if sha == "" {
			out.pending[rel] = pendingDeletion{key: k, since: since, until: noticed.Add(a.wait)}
		}
	default:
		// No facts, and none can come (the wait is over, or the object
		// was never seen: deleted while the provider was down).
		out.byPath[rel] = attribution{verdict: unattributed, author: unresolved(), when: noticed.Add(a.wait), spent: now, by: ByUnresolved}
	}
}

// stopWaitingLocked: nn no longer waits for a fact of k.
func (a *Attributions) stopWaitingLocked(k audit.Key, nn types.NamespacedName) {
	if w := a.waiting[k]; w != nil {
		delete(w, nn)
		if len(w) == 0 {
			delete(a.waiting, k)
		}
	}
}

// later is the later of a and b.
func later(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}
