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
	"context"
	"maps"
	"sync"
	"sync/atomic"

	"github.com/crossplane/crossplane-runtime/v2/pkg/meta"
	xpmanaged "github.com/crossplane/crossplane-runtime/v2/pkg/reconciler/managed"
	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"

	"github.com/crossplane-contrib/provider-git/internal/testharness/testkind/v1alpha1"
)

// extThing is the external resource a Thing stands for.
type extThing struct {
	Value  string
	Colour string
}

// store is a scripted in-memory external system shared by tests and
// benchmarks: things keyed by namespace/external-name, plus per-key errors
// each operation returns until cleared.
type store struct {
	mu         sync.Mutex
	things     map[string]extThing
	observeErr map[string]error
	createErr  map[string]error
	updateErr  map[string]error
	createAt   map[string]string // what Create writes into status.atProvider, to prove it survives

	connects, observes, creates, updates, deletes atomic.Int64
}

func newStore() *store {
	return &store{things: map[string]extThing{}, observeErr: map[string]error{}, createErr: map[string]error{}, updateErr: map[string]error{}, createAt: map[string]string{}}
}

func key(mg *v1alpha1.Thing) string { return mg.GetNamespace() + "/" + meta.GetExternalName(mg) }

func (s *store) put(k string, t extThing) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.things[k] = t
}

func (s *store) get(k string) (extThing, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	t, ok := s.things[k]
	return t, ok
}

func (s *store) snapshot() map[string]extThing {
	s.mu.Lock()
	defer s.mu.Unlock()
	return maps.Clone(s.things)
}

func (s *store) setObserveErr(k string, err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err == nil {
		delete(s.observeErr, k)
		return
	}
	s.observeErr[k] = err
}

func (s *store) setUpdateErr(k string, err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.updateErr[k] = err
}

// Connect satisfies managed.TypedExternalConnector[*v1alpha1.Thing].
func (s *store) Connect(_ context.Context, _ *v1alpha1.Thing) (xpmanaged.TypedExternalClient[*v1alpha1.Thing], error) {
	s.connects.Add(1)
	return &scripted{s: s}, nil
}

type scripted struct{ s *store }

func (c *scripted) Observe(_ context.Context, mg *v1alpha1.Thing) (xpmanaged.ExternalObservation, error) {
	c.s.observes.Add(1)
	k := key(mg)
	c.s.mu.Lock()
	err := c.s.observeErr[k]
	t, ok := c.s.things[k]
	c.s.mu.Unlock()
	if err != nil {
		return xpmanaged.ExternalObservation{}, err
	}
	if !ok {
		return xpmanaged.ExternalObservation{}, nil
	}
	mg.Status.AtProvider.Value = t.Value
	// As crossplane-runtime providers do; our reconciler must ignore it.
	mg.SetConditions(xpv2.Available())
	li := false
	if mg.Spec.ForProvider.Colour == nil && t.Colour != "" {
		c := t.Colour
		mg.Spec.ForProvider.Colour = &c
		li = true
	}
	return xpmanaged.ExternalObservation{
		ResourceExists:          true,
		ResourceUpToDate:        t.Value == mg.Spec.ForProvider.Value,
		ResourceLateInitialized: li,
		ConnectionDetails:       xpmanaged.ConnectionDetails{"value": []byte(t.Value)},
	}, nil
}

func (c *scripted) Create(_ context.Context, mg *v1alpha1.Thing) (xpmanaged.ExternalCreation, error) {
	c.s.creates.Add(1)
	k := key(mg)
	c.s.mu.Lock()
	defer c.s.mu.Unlock()
	if err := c.s.createErr[k]; err != nil {
		return xpmanaged.ExternalCreation{}, err
	}
	c.s.things[k] = extThing{Value: mg.Spec.ForProvider.Value}
	if v, ok := c.s.createAt[k]; ok {
		mg.Status.AtProvider.Value = v
	}
	return xpmanaged.ExternalCreation{ConnectionDetails: xpmanaged.ConnectionDetails{"value": []byte(mg.Spec.ForProvider.Value)}}, nil
}

func (c *scripted) Update(_ context.Context, mg *v1alpha1.Thing) (xpmanaged.ExternalUpdate, error) {
	c.s.updates.Add(1)
	k := key(mg)
	c.s.mu.Lock()
	defer c.s.mu.Unlock()
	if err := c.s.updateErr[k]; err != nil {
		return xpmanaged.ExternalUpdate{}, err
	}
	t := c.s.things[k]
	t.Value = mg.Spec.ForProvider.Value
	c.s.things[k] = t
	return xpmanaged.ExternalUpdate{}, nil
}

func (c *scripted) Delete(_ context.Context, mg *v1alpha1.Thing) (xpmanaged.ExternalDelete, error) {
	c.s.deletes.Add(1)
	c.s.mu.Lock()
	defer c.s.mu.Unlock()
	delete(c.s.things, key(mg))
	return xpmanaged.ExternalDelete{}, nil
}

func (c *scripted) Disconnect(_ context.Context) error { return nil }
