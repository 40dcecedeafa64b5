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

package managed

import (
	"time"

	"github.com/crossplane/crossplane-runtime/v2/pkg/errors"
	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"
)

// A StalledError marks an error that waiting cannot clear: a human must act
// (credentials refused, host key mismatch, a spec the external system
// rejects). The reconciler reports it as Stalled=True, which kstatus reads as
// Failed, instead of retrying it with backoff as InProgress forever.
type StalledError struct {
	// Reason is the CamelCase reason written to Ready and Stalled, e.g.
	// AuthenticationFailed. It should name the cause, not restate the
	// condition type.
	Reason xpv2.ConditionReason
	err    error
}

// Error returns the wrapped error's message; the class is not part of the
// text a human reads in the condition message.
func (e *StalledError) Error() string { return e.err.Error() }

// Unwrap returns the wrapped error.
func (e *StalledError) Unwrap() error { return e.err }

// Stalled marks err as needing a human, with reason. An external client
// returns a plain error for anything that may clear by itself (network,
// 5xx, timeouts) and Stalled(...) for the rest. Stalled(reason, nil) is nil.
// The mark survives further wrapping with errors.Wrap.
func Stalled(reason xpv2.ConditionReason, err error) error {
	if err == nil {
		return nil
	}
	return &StalledError{Reason: reason, err: err}
}

// StalledReason returns the reason err was marked with, and whether it was
// marked at all. The outermost mark wins.
func StalledReason(err error) (xpv2.ConditionReason, bool) {
	var se *StalledError
	if !errors.As(err, &se) {
		return "", false
	}
	return se.Reason, true
}

// A ProgressingError marks an error that clears by itself but deserves a
// reason of its own (a kind whose CRD is not installed yet): the reconciler
// reports it as any transient error, Reconciling=True and retried with
// backoff, with Reason in Ready instead of ReconcileError.
type ProgressingError struct {
	// Reason is written to Ready, e.g. ResourceNotFound.
	Reason xpv2.ConditionReason
	err    error
}

// Error returns the wrapped error's message.
func (e *ProgressingError) Error() string { return e.err.Error() }

// Unwrap returns the wrapped error.
func (e *ProgressingError) Unwrap() error { return e.err }

// Progressing marks err as transient with reason. Progressing(reason, nil)
// is nil. The mark survives further wrapping with errors.Wrap; a Stalled
// mark outranks it.
func Progressing(reason xpv2.ConditionReason, err error) error {
	if err == nil {
		return nil
	}
	return &ProgressingError{Reason: reason, err: err}
}

// ProgressingReason returns the reason err was marked with by Progressing,
// and whether it was.
func ProgressingReason(err error) (xpv2.ConditionReason, bool) {
	var pe *ProgressingError
	if !errors.As(err, &pe) {
		return "", false
	}
	return pe.Reason, true
}

// A WaitingError is not a failure: an external client returns it from
// Observe, Create, Update or Delete when it handed a change to something
// asynchronous (a batching writer) that will wake the resource once the
// change landed or failed. The reconciler reports the resource progressing
// with Reason and does not requeue it: the wake brings it back.
type WaitingError struct {
	// Reason is written to Ready, e.g. Committing.
	Reason  xpv2.ConditionReason
	Message string
	// After, when positive, brings the resource back after this long
	// instead of on a wake: nothing will wake it (a forge's rate limit
	// resets, a person's review is polled for).
	After time.Duration
}

// Error returns the message.
func (e *WaitingError) Error() string { return e.Message }

// WaitingFor says the resource waits on something outside that no wake
// reports, and is to be looked at again after d: progressing (Synced True,
// Ready False with reason), requeued after d rather than with backoff.
func WaitingFor(reason xpv2.ConditionReason, msg string, d time.Duration) error {
	return &WaitingError{Reason: reason, Message: msg, After: max(d, time.Second)}
}

// Waiting says a change is under way and a wake will come.
func Waiting(reason xpv2.ConditionReason, msg string) error {
	return &WaitingError{Reason: reason, Message: msg}
}

// IsWaiting returns the WaitingError in err's chain, if any.
func IsWaiting(err error) (*WaitingError, bool) {
	var we *WaitingError
	if !errors.As(err, &we) {
		return nil, false
	}
	return we, true
}
