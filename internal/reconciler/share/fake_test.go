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
	"strconv"
	"sync"

	coordinationv1 "k8s.io/api/coordination/v1"
	kerrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime/schema"
	coordinationv1client "k8s.io/client-go/kubernetes/typed/coordination/v1"
)

// leases is an API server's Leases of one namespace, in memory: what the
// membership uses of it (get, create, update with optimistic locking, list
// by label, delete), counted.
type leases struct {
	coordinationv1client.LeaseInterface // the rest is not used

	mu       sync.Mutex
	items    map[string]*coordinationv1.Lease
	version  int
	requests int
	// down fails every request, as an unreachable API server would.
	down bool
	// slow, when set, runs at the start of every Update, before the API
	// server reads or writes anything: a slow request, during which a test
	// moves the clock, ticks other members and looks around. It runs
	// without the lock, so the hook may use these Leases itself.
	slow func()
	// slowList is slow for every List.
	slowList func()
}

func newLeases() *leases { return &leases{items: map[string]*coordinationv1.Lease{}} }

var leaseResource = schema.GroupResource{Group: "coordination.k8s.io", Resource: "leases"}

func (l *leases) begin() error {
	l.requests++
	if l.down {
		return kerrors.NewServiceUnavailable("down")
	}
	return nil
}

func (l *leases) Get(_ context.Context, name string, _ metav1.GetOptions) (*coordinationv1.Lease, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if err := l.begin(); err != nil {
		return nil, err
	}
	o, ok := l.items[name]
	if !ok {
		return nil, kerrors.NewNotFound(leaseResource, name)
	}
	return o.DeepCopy(), nil
}

func (l *leases) Create(_ context.Context, o *coordinationv1.Lease, _ metav1.CreateOptions) (*coordinationv1.Lease, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if err := l.begin(); err != nil {
		return nil, err
	}
	if _, ok := l.items[o.Name]; ok {
		return nil, kerrors.NewAlreadyExists(leaseResource, o.Name)
	}
	l.version++
	c := o.DeepCopy()
	c.ResourceVersion = strconv.Itoa(l.version)
	l.items[o.Name] = c
	return c.DeepCopy(), nil
}

func (l *leases) Update(_ context.Context, o *coordinationv1.Lease, _ metav1.UpdateOptions) (*coordinationv1.Lease, error) {
	if l.slow != nil {
		l.slow()
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if err := l.begin(); err != nil {
		return nil, err
	}
	cur, ok := l.items[o.Name]
	if !ok {
		return nil, kerrors.NewNotFound(leaseResource, o.Name)
	}
	if cur.ResourceVersion != o.ResourceVersion {
		return nil, kerrors.NewConflict(leaseResource, o.Name, nil)
	}
	l.version++
	c := o.DeepCopy()
	c.ResourceVersion = strconv.Itoa(l.version)
	l.items[o.Name] = c
	return c.DeepCopy(), nil
}

func (l *leases) List(_ context.Context, opts metav1.ListOptions) (*coordinationv1.LeaseList, error) {
	if l.slowList != nil {
		l.slowList()
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if err := l.begin(); err != nil {
		return nil, err
	}
	sel, err := labels.Parse(opts.LabelSelector)
	if err != nil {
		return nil, err
	}
	out := &coordinationv1.LeaseList{}
	for _, o := range l.items {
		if sel.Matches(labels.Set(o.Labels)) {
			out.Items = append(out.Items, *o.DeepCopy())
		}
	}
	return out, nil
}

func (l *leases) Delete(_ context.Context, name string, _ metav1.DeleteOptions) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if err := l.begin(); err != nil {
		return err
	}
	if _, ok := l.items[name]; !ok {
		return kerrors.NewNotFound(leaseResource, name)
	}
	delete(l.items, name)
	return nil
}

func (l *leases) count() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.requests
}

func (l *leases) setDown(down bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.down = down
}
