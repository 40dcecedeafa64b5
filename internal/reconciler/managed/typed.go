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

	"github.com/crossplane/crossplane-runtime/v2/pkg/errors"
	xpmanaged "github.com/crossplane/crossplane-runtime/v2/pkg/reconciler/managed"
	"github.com/crossplane/crossplane-runtime/v2/pkg/resource"
)

const errFmtUnexpectedType = "managed resource %T is not of the type this connector expects"

// typedConnector adapts a TypedExternalConnector to the untyped interface the
// reconciler drives, failing (not panicking) on a type mismatch.
type typedConnector[T resource.Managed] struct {
	c xpmanaged.TypedExternalConnector[T]
}

func (tc typedConnector[T]) Connect(ctx context.Context, mg resource.Managed) (xpmanaged.ExternalClient, error) {
	cr, ok := mg.(T)
	if !ok {
		return nil, errors.Errorf(errFmtUnexpectedType, mg)
	}
	ec, err := tc.c.Connect(ctx, cr)
	if err != nil {
		return nil, err
	}
	return typedClient[T]{c: ec}, nil
}

type typedClient[T resource.Managed] struct {
	c xpmanaged.TypedExternalClient[T]
}

func (tc typedClient[T]) Observe(ctx context.Context, mg resource.Managed) (xpmanaged.ExternalObservation, error) {
	cr, ok := mg.(T)
	if !ok {
		return xpmanaged.ExternalObservation{}, errors.Errorf(errFmtUnexpectedType, mg)
	}
	return tc.c.Observe(ctx, cr)
}

func (tc typedClient[T]) Create(ctx context.Context, mg resource.Managed) (xpmanaged.ExternalCreation, error) {
	cr, ok := mg.(T)
	if !ok {
		return xpmanaged.ExternalCreation{}, errors.Errorf(errFmtUnexpectedType, mg)
	}
	return tc.c.Create(ctx, cr)
}

func (tc typedClient[T]) Update(ctx context.Context, mg resource.Managed) (xpmanaged.ExternalUpdate, error) {
	cr, ok := mg.(T)
	if !ok {
		return xpmanaged.ExternalUpdate{}, errors.Errorf(errFmtUnexpectedType, mg)
	}
	return tc.c.Update(ctx, cr)
}

func (tc typedClient[T]) Delete(ctx context.Context, mg resource.Managed) (xpmanaged.ExternalDelete, error) {
	cr, ok := mg.(T)
	if !ok {
		return xpmanaged.ExternalDelete{}, errors.Errorf(errFmtUnexpectedType, mg)
	}
	return tc.c.Delete(ctx, cr)
}

// Note forwards the typed client's note (Noter), if it has one.
func (tc typedClient[T]) Note() string {
	if n, ok := tc.c.(Noter); ok {
		return n.Note()
	}
	return ""
}

func (tc typedClient[T]) Disconnect(ctx context.Context) error { return tc.c.Disconnect(ctx) }
