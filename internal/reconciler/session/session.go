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

package session

import (
	"context"
	"slices"
	"time"

	corev1 "k8s.io/api/core/v1"
	kerrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/record"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/crossplane/crossplane-runtime/v2/pkg/errors"
	"github.com/crossplane/crossplane-runtime/v2/pkg/logging"
	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"
)

// RequeueWriteLostInterval is how soon a reconcile whose status write was
// lost comes back. Only the informer cache has to catch up with the write
// that won; upstream first borrowed a 10s settle interval and raced 10s test
// waits with it.
const RequeueWriteLostInterval = 100 * time.Millisecond

const (
	errSnapshot     = "cannot snapshot object as status patch base"
	errComputePatch = "cannot compute status patch"
	errPatchStatus  = "cannot patch status"
)

const (
	msgWriteLost   = "published status is stale until reconciled again"
	msgTrioRefused = "refusing to write a kstatus trio condition outside ApplyReadiness"
)

// Object is what a session needs of the object whose status it writes. It
// carries no kind name on purpose: which kinds publish metrics is the
// caller's explicit choice (WithMetrics), not something any type could opt
// into by implementing a method.
type Object interface {
	client.Object
	// SetObservedGeneration sets the top-level status.observedGeneration.
	SetObservedGeneration(generation int64)
	// StatusConditions returns a pointer to the LIVE condition slice, not a
	// copy, so writes through the session land in the object.
	StatusConditions() *[]xpv2.Condition
}

// An Option configures a Session.
type Option func(*Session)

// WithRecorder emits an Event per persisted Ready transition. Without it (or
// with nil) no Events are emitted.
func WithRecorder(r record.EventRecorder) Option {
	return func(s *Session) { s.recorder = r }
}

// WithMetrics publishes the object's trio under kind on every Commit. nil
// publishes nothing.
func WithMetrics(m *ConditionMetrics, kind string) Option {
	return func(s *Session) { s.metrics, s.kind = m, kind }
}

// WithLogger logs lost writes and refused trio writes.
func WithLogger(l logging.Logger) Option {
	return func(s *Session) { s.log = l }
}

// A Session is one reconcile's status write. It replaces read-modify-write
// status helpers that wrote unconditionally (each write re-enqueued the
// object), stamped a re-read object with a generation the reconcile never saw,
// and retried conflicts by replaying status computed from stale data.
type Session struct {
	client   client.Client
	obj      Object
	recorder record.EventRecorder
	metrics  *ConditionMetrics
	kind     string
	log      logging.Logger
	now      func() metav1.Time

	// before is the object as read; the patch is computed against it.
	before client.Object
	// persistedConds is the condition set the object held as read, for
	// detecting a Ready transition.
	persistedConds []xpv2.Condition
	// afterPersist run only once the computed status is what the object holds.
	afterPersist []func()
	// unheard keeps Ready transitions of writes whose reply was lost.
	unheard *Unheard
	// superseded keeps the resourceVersions this session's writes
	// replaced (replaced), once they landed.
	superseded *Superseded
	replaced   []string

	// writeLost is sticky: once a write was lost the published status is
	// stale, and nothing later in the same reconcile changes that the caller
	// must come back promptly. A session commits once, so there is nothing to
	// reset it for.
	writeLost bool
}

// Begin opens the session. Call it once, right after the Get and before any
// condition is written.
//
// The patch base is captured BEFORE status.observedGeneration is stamped.
// That order makes the stamp itself a diff, so a reconcile whose only news is
// a new generation still writes; snapshotting after the stamp would leave
// observedGeneration behind and kstatus would report the object stale
// forever on exactly the reconciles that change nothing else.
func Begin(c client.Client, obj Object, opts ...Option) *Session {
	before, _ := obj.DeepCopyObject().(client.Object)
	s := &Session{
		client:         c,
		obj:            obj,
		log:            logging.NewNopLogger(),
		now:            func() metav1.Time { return metav1.Now().Rfc3339Copy() },
		before:         before,
		persistedConds: slices.Clone(*obj.StatusConditions()),
	}
	for _, o := range opts {
		o(s)
	}
	if s.unheard != nil {
		if ready, ok := s.unheard.settle(obj.GetUID(), obj.GetResourceVersion(), s.persistedConds); ok {
			s.announce(ready, s.persistedConds)
		}
	}
	obj.SetObservedGeneration(obj.GetGeneration())
	return s
}

// isTrio reports whether t is written only by ApplyReadiness.
func isTrio(t xpv2.ConditionType) bool {
	return t == xpv2.TypeReady || t == TypeReconciling || t == TypeStalled
}

// Set upserts an axis condition in place (see upsert), pinned to the
// generation this reconcile observed. The caller need not fill
// LastTransitionTime or ObservedGeneration.
//
// Set refuses Ready, Reconciling and Stalled (and logs it): ApplyReadiness is
// their only writer. When each gate could write the trio, the trio reflected
// whichever gate ran last, and a terminal refusal was overwritten by a milder
// gate; refusing here makes "one writer" structural rather than a convention.
func (s *Session) Set(c xpv2.Condition) {
	if isTrio(c.Type) {
		s.log.Info(msgTrioRefused, "type", c.Type)
		return
	}
	s.set(c)
}

// SetValue is Set from a gate's verdict.
func (s *Session) SetValue(t xpv2.ConditionType, v Verdict) {
	s.Set(xpv2.Condition{Type: t, Status: v.Status, Reason: v.Reason, Message: v.Message})
}

// Remove drops one axis condition, so a report the reconciler no longer
// makes leaves no stale answer standing. It is the only way a condition
// disappears; like Set, it refuses the trio.
func (s *Session) Remove(t xpv2.ConditionType) {
	if isTrio(t) {
		s.log.Info(msgTrioRefused, "type", t)
		return
	}
	conds := s.obj.StatusConditions()
	*conds = remove(*conds, t)
}

// ApplyReadiness writes Ready, Reconciling and Stalled from r. It is the
// ONLY writer of the trio; call it once, after every gate contributed.
func (s *Session) ApplyReadiness(r *Readiness) {
	t := r.Trio()
	s.setVerdict(xpv2.TypeReady, t.Ready)
	s.setVerdict(TypeReconciling, t.Reconciling)
	s.setVerdict(TypeStalled, t.Stalled)
}

func (s *Session) setVerdict(t xpv2.ConditionType, v Verdict) {
	s.set(xpv2.Condition{Type: t, Status: v.Status, Reason: v.Reason, Message: v.Message})
}

func (s *Session) set(c xpv2.Condition) {
	c.ObservedGeneration = s.obj.GetGeneration()
	conds := s.obj.StatusConditions()
	*conds = upsert(*conds, c, s.now())
}

// StoredSeen tells the session what the API server holds now, as a write
// of the object's metadata returned it (MetadataWritten's write): its
// conditions replace the ones read at Begin, which a lagging cache may have
// served, as the base a Ready transition is told against. Without it a
// transition the previous reconcile stored and announced is announced again
// when this one read the object from before it; and a transition stored by
// a write whose reply was lost (WithUnheard) is settled here, seen stored,
// or never.
func (s *Session) StoredSeen(stored Object) {
	conds := *stored.StatusConditions()
	if s.unheard != nil {
		if ready, ok := s.unheard.settle(stored.GetUID(), stored.GetResourceVersion(), conds); ok {
			s.announce(ready, conds)
		}
	}
	s.persistedConds = slices.Clone(conds)
}

// AfterPersist registers fn to run, in registration order and at most once,
// when this reconcile's computed status is what the object holds: after a
// successful patch, or when there was nothing to write. It does not run when
// the write is lost, fails, or the object is gone. Use it for any in-memory
// record a later reconcile reads back as "what this object published";
// living on the session makes that right on every exit path.
func (s *Session) AfterPersist(fn func()) {
	s.afterPersist = append(s.afterPersist, fn)
}

// MetadataWritten tells the session the reconcile wrote the object itself
// (e.g. added a finalizer with Update). Call it right after that write. The
// new resourceVersion, finalizers, annotations and labels are copied into the patch base, so the
// optimistic lock is taken against the reconcile's own write instead of
// conflicting with it, and the status patch carries no metadata diff.
//
// The write's response replaced the in-memory status with the stored one, so
// Begin's observedGeneration stamp is re-applied here (at the generation the
// write left, which the reconcile has now seen). Conditions set before the
// write were lost the same way: set them after it.
func (s *Session) MetadataWritten() {
	if s.before != nil {
		if rv := s.before.GetResourceVersion(); rv != s.obj.GetResourceVersion() {
			s.replaced = append(s.replaced, rv)
		}
		s.before.SetResourceVersion(s.obj.GetResourceVersion())
		s.before.SetFinalizers(s.obj.GetFinalizers())
		// Annotations and labels too: an external-name or create-succeeded
		// annotation written mid-reconcile must not turn up as a diff in the
		// status patch (the status subresource ignores it, but a non-empty
		// patch is a write that did not need to happen).
		s.before.SetAnnotations(s.obj.GetAnnotations())
		s.before.SetLabels(s.obj.GetLabels())
	}
	s.obj.SetObservedGeneration(s.obj.GetGeneration())
}

// WriteLost reports whether Commit's patch was rejected by the optimistic
// lock.
func (s *Session) WriteLost() bool { return s.writeLost }

// RequeueAfter returns cadence, or RequeueWriteLostInterval when the write was
// lost. Route EVERY exit's requeue through it: the winning write was
// status-only and the generation-changed predicate filters it, so nothing
// else re-enqueues the object and it would keep the loser's older answer for
// a full cadence.
func (s *Session) RequeueAfter(cadence time.Duration) time.Duration {
	if s.writeLost {
		return RequeueWriteLostInterval
	}
	return cadence
}

// Commit publishes condition metrics, then writes the status if it changed.
//
// Metrics come first, before the no-op check: the gauge is a level, so a
// fresh process whose first reconcile changes nothing must still publish,
// and a lost write still publishes what was computed.
//
// An unchanged status sends nothing; that suppression breaks the self-trigger
// loop (status write, resourceVersion bump, Update event, requeue). Nor does
// the status of an object deleted for good.
//
// A changed status is sent once as an optimistic-lock merge patch, with no
// retry. There is one status writer per kind and controller-runtime never
// reconciles one key concurrently, so a conflict is cache lag: this reconcile
// read an older object than the last one wrote. Replaying status computed
// from stale data is wrong; the conflict is recorded (see WriteLost) and not
// returned, because it is an expected race, not a failure.
func (s *Session) Commit(ctx context.Context) error {
	s.publishMetrics()
	if s.before == nil {
		return errors.New(errSnapshot)
	}
	if deletedForGood(s.obj) {
		// The reconcile removed the last finalizer of an object being
		// deleted, so the API server deleted it: a status patch could only
		// be answered NotFound.
		s.gone()
		return nil
	}
	data, err := client.MergeFrom(s.before).Data(s.obj)
	if err != nil {
		return errors.Wrap(err, errComputePatch)
	}
	if string(data) == "{}" {
		s.recordSuperseded()
		s.runAfterPersist()
		return nil
	}
	base := s.before.GetResourceVersion()
	err = s.client.Status().Patch(ctx, s.obj, client.MergeFromWithOptions(s.before, client.MergeFromWithOptimisticLock{}))
	switch {
	case kerrors.IsNotFound(err):
		s.gone()
		return nil
	case kerrors.IsConflict(err):
		s.writeLost = true
		s.recordSuperseded()
		s.log.Info(msgWriteLost, "object", client.ObjectKeyFromObject(s.obj))
		return nil
	case err != nil:
		s.rememberUnheard(err)
		s.recordSuperseded()
		return errors.Wrap(err, errPatchStatus)
	}
	if base != s.obj.GetResourceVersion() {
		s.replaced = append(s.replaced, base)
	}
	s.recordSuperseded()
	s.forgetUnheard()
	s.recordReadyTransition()
	s.rebase()
	s.runAfterPersist()
	return nil
}

// gone drops what was kept for an object that no longer exists.
func (s *Session) gone() {
	s.forgetUnheard()
	s.superseded.Forget(client.ObjectKeyFromObject(s.obj))
}

// deletedForGood is whether o's deletion was requested and no finalizer
// holds it: the API server has deleted it.
func deletedForGood(o client.Object) bool {
	return o.GetDeletionTimestamp() != nil && len(o.GetFinalizers()) == 0
}

// recordSuperseded keeps the versions this session's landed writes
// replaced, for the next reconcile to recognise a cache that has not caught
// up with them (Superseded.Stale).
func (s *Session) recordSuperseded() {
	s.superseded.record(client.ObjectKeyFromObject(s.obj), s.replaced)
}

// publishMetrics records the trio, or forgets the object once it is deleted
// for good (deletion requested and no finalizer left), so a gone object
// leaves no series behind.
func (s *Session) publishMetrics() {
	if s.metrics == nil {
		return
	}
	id := identity{kind: s.kind, namespace: s.obj.GetNamespace(), name: s.obj.GetName()}
	if deletedForGood(s.obj) {
		s.metrics.Forget(id.kind, id.namespace, id.name)
		return
	}
	s.metrics.record(id, *s.obj.StatusConditions())
}

// recordReadyTransition emits one Event per PERSISTED Ready transition
// (status or reason changed; message-only changes are not transitions). It
// runs only after a successful patch because a reconcile may compute Ready
// more than once and only the stored value may be announced.
//
// Severity is read off Stalled, not off "Ready is not True": when every
// not-ready state was a Warning, routine progress after a restart made
// Warnings noise and a real block looked like the sixty-fourth routine one.
// An absent Stalled stays Warning, so a future writer of Ready without the
// trio is loud rather than silently downgraded.
func (s *Session) recordReadyTransition() {
	if after, ok := s.readyTransition(); ok {
		s.announce(after, *s.obj.StatusConditions())
	}
}

// readyTransition returns the computed Ready when it differs, in status or
// reason, from the persisted one.
func (s *Session) readyTransition() (xpv2.Condition, bool) {
	after := Find(*s.obj.StatusConditions(), xpv2.TypeReady)
	if after == nil {
		return xpv2.Condition{}, false
	}
	if before := Find(s.persistedConds, xpv2.TypeReady); before != nil &&
		before.Status == after.Status && before.Reason == after.Reason {
		return xpv2.Condition{}, false
	}
	return *after, true
}

// rememberUnheard keeps the Ready transition of a write that failed in a
// way that may still have stored it, for a later reconcile to announce.
func (s *Session) rememberUnheard(err error) {
	if s.unheard == nil || !ambiguous(err) {
		return
	}
	if after, ok := s.readyTransition(); ok {
		s.unheard.remember(s.obj.GetUID(), s.before.GetResourceVersion(), after)
	}
}

// forgetUnheard drops an unheard write of the object: this write's outcome
// is known, and it announces its own transition.
func (s *Session) forgetUnheard() {
	if s.unheard != nil {
		s.unheard.forget(s.obj.GetUID())
	}
}

// announce emits the Event of a persisted Ready transition to after, with
// conds the conditions stored beside it.
func (s *Session) announce(after xpv2.Condition, conds []xpv2.Condition) {
	if s.recorder == nil {
		return
	}
	eventType := corev1.EventTypeNormal
	if st := Find(conds, TypeStalled); st == nil || st.Status == corev1.ConditionTrue {
		eventType = corev1.EventTypeWarning
	}
	s.recorder.Event(s.obj, eventType, string(after.Reason), after.Message)
}

// rebase makes what was just persisted the base of any further commit, so a
// (discouraged) second commit neither conflicts with this one nor announces
// its Ready transition twice.
func (s *Session) rebase() {
	if before, ok := s.obj.DeepCopyObject().(client.Object); ok {
		s.before = before
	}
	s.persistedConds = slices.Clone(*s.obj.StatusConditions())
}

func (s *Session) runAfterPersist() {
	fns := s.afterPersist
	s.afterPersist = nil
	for _, fn := range fns {
		fn()
	}
}
