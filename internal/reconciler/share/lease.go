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
	"math"
	"strconv"
	"time"

	"github.com/crossplane/crossplane-runtime/v2/pkg/errors"
	coordinationv1 "k8s.io/api/coordination/v1"
	kerrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
)

// renewLease creates this replica's Lease or moves its renewTime to now.
func (m *Membership) renewLease(ctx context.Context, own *coordinationv1.Lease, now time.Time, held int) (*coordinationv1.Lease, error) {
	t := metav1.NewMicroTime(now)
	secs := int32(min(m.o.LeaseDuration/time.Second, math.MaxInt32)) //nolint:gosec // clamped to int32 on the line itself
	if own == nil {
		m.o.Metrics.request()
		l, err := m.leases.Get(ctx, m.leaseName(), metav1.GetOptions{})
		switch {
		case kerrors.IsNotFound(err):
			l = &coordinationv1.Lease{
				ObjectMeta: metav1.ObjectMeta{Name: m.leaseName(), Namespace: m.o.Namespace, Labels: map[string]string{LabelGroup: m.o.Group},
					Annotations: m.annotations()},
				Spec: coordinationv1.LeaseSpec{HolderIdentity: ptr.To(m.o.Identity), LeaseDurationSeconds: &secs,
					AcquireTime: &t, RenewTime: &t},
			}
			m.o.Metrics.request()
			created, err := m.leases.Create(ctx, l, metav1.CreateOptions{})
			return created, errors.Wrap(err, errRenew)
		case err != nil:
			return nil, errors.Wrap(err, errRenew)
		}
		own = l
	}
	l := own.DeepCopy()
	if l.Labels == nil {
		l.Labels = map[string]string{}
	}
	l.Labels[LabelGroup] = m.o.Group
	if l.Annotations == nil {
		l.Annotations = map[string]string{}
	}
	l.Annotations[AnnotationRepositories] = strconv.Itoa(held)
	if m.o.Address != "" {
		l.Annotations[AnnotationEventsAddress] = m.o.Address
	} else {
		delete(l.Annotations, AnnotationEventsAddress)
	}
	l.Spec.HolderIdentity, l.Spec.LeaseDurationSeconds, l.Spec.RenewTime = ptr.To(m.o.Identity), &secs, &t
	m.o.Metrics.request()
	updated, err := m.leases.Update(ctx, l, metav1.UpdateOptions{})
	if kerrors.IsConflict(err) {
		// Our own last renewal landed after its request timed out (a
		// loaded API server): read the Lease again and renew once more in
		// this tick, rather than lapse and rejoin.
		m.o.Metrics.request()
		cur, gerr := m.leases.Get(ctx, m.leaseName(), metav1.GetOptions{})
		if gerr != nil {
			return nil, err
		}
		l.ResourceVersion = cur.ResourceVersion
		m.o.Metrics.request()
		updated, err = m.leases.Update(ctx, l, metav1.UpdateOptions{})
	}
	return updated, err
}

// leaseName is this replica's Lease.
func (m *Membership) leaseName() string { return m.o.Group + "-" + m.o.Identity }

// leave stops holding anything, then deletes the Lease so the others take
// this replica's repositories at their next read instead of a lease later.
func (m *Membership) leave(ctx context.Context) {
	m.mu.Lock()
	m.renewed = time.Time{}
	m.view.Active = false
	close(m.changed)
	m.changed = make(chan struct{})
	m.mu.Unlock()
	ctx, cancel := context.WithTimeout(ctx, m.renew)
	defer cancel()
	if err := m.leases.Delete(ctx, m.leaseName(), metav1.DeleteOptions{}); err != nil && !kerrors.IsNotFound(err) {
		m.o.Log.Info(errRelease, "error", err)
	}
}

// staleLocked are the names of the Leases of others gone for staleAfter
// lease durations.
func (m *Membership) staleLocked(now time.Time) []string {
	var out []string
	for id, s := range m.others {
		if id != m.o.Identity && now.Sub(s.observed) > staleAfter*s.duration {
			out = append(out, s.name)
		}
	}
	return out
}

// deleteStale deletes long-dead members' Leases; another member deleting
// one first is no error.
func (m *Membership) deleteStale(ctx context.Context, names []string) {
	for _, n := range names {
		dctx, cancel := context.WithTimeout(ctx, m.renew)
		m.o.Metrics.request()
		if err := m.leases.Delete(dctx, n, metav1.DeleteOptions{}); err != nil && !kerrors.IsNotFound(err) {
			m.o.Log.Info(errStale, "lease", n, "error", err)
		}
		cancel()
	}
}
