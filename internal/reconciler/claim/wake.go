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

package claim

import (
	"context"

	"github.com/crossplane/crossplane-runtime/v2/pkg/errors"
	"k8s.io/apimachinery/pkg/types"
	kcache "k8s.io/client-go/tools/cache"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/manager"
)

const (
	errWakerInformer = "cannot get the informer of claims of kind %s"
	errWakerHandler  = "cannot watch claims of kind %s"
)

// overlapping returns the resources of kind woken whose claims overlap what
// obj, of kind watched, claims. Best effort: what cannot be looked up wakes
// nobody (a Stalled claimant is still polled).
func (x *Index) overlapping(ctx context.Context, watched, woken Kind, obj client.Object) []types.NamespacedName {
	o, ok := obj.(Object)
	if !ok {
		return nil
	}
	l, ok := watched.Loc(o)
	if !ok {
		return nil
	}
	scopes, _, err := x.scopes(ctx, o.GetNamespace(), o.GetProviderConfigReference())
	if err != nil {
		return nil
	}
	others, err := x.claimants(ctx, []string{woken.Name}, scopes, l)
	if err != nil {
		return nil
	}
	self := claimantOf(watched, o, l)
	var out []types.NamespacedName
	for _, c := range others {
		if !c.same(self) && Overlaps(l, c.Loc) {
			out = append(out, types.NamespacedName{Namespace: c.Namespace, Name: c.Name})
		}
	}
	return out
}

// Waker returns a runnable that, while it runs, calls wake with each
// resource of kind woken whose claim overlaps a resource of kind watched
// that appears, starts being deleted or is gone. It does what Source does
// for a controller that cannot watch watched itself: one set up before
// watched's CRD is established (a kind that activates later). Add it to the
// manager from watched's own controller setup, waking woken through a
// channel its controller already has.
func (x *Index) Waker(c cache.Informers, watched, woken Kind, wake func(types.NamespacedName)) manager.Runnable {
	return manager.RunnableFunc(func(ctx context.Context) error {
		inf, err := c.GetInformer(ctx, watched.New())
		if err != nil {
			return errors.Wrapf(err, errWakerInformer, watched.Name)
		}
		fire := func(obj any) {
			if d, ok := obj.(kcache.DeletedFinalStateUnknown); ok {
				obj = d.Obj
			}
			o, ok := obj.(client.Object)
			if !ok {
				return
			}
			for _, nn := range x.overlapping(ctx, watched, woken, o) {
				wake(nn)
			}
		}
		h := kcache.ResourceEventHandlerFuncs{
			AddFunc: fire,
			UpdateFunc: func(oldObj, newObj any) {
				o, ok1 := oldObj.(client.Object)
				n, ok2 := newObj.(client.Object)
				if ok1 && ok2 && o.GetDeletionTimestamp() == nil && n.GetDeletionTimestamp() != nil {
					fire(n)
				}
			},
			DeleteFunc: fire,
		}
		if _, err := inf.AddEventHandler(h); err != nil {
			return errors.Wrapf(err, errWakerHandler, watched.Name)
		}
		<-ctx.Done()
		return nil
	})
}
