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
	"fmt"
	"testing"

	"github.com/crossplane/crossplane-runtime/v2/pkg/errors"
	kmeta "k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/crossplane-contrib/provider-git/apis/v1alpha1"
)

// indexReader reads through client-go indexers, as the manager's cache does:
// a lookup by field is a map lookup (ByIndex), a list without one walks every
// object. Enough of client.Reader for the Index.
type indexReader struct {
	client.Reader
	stores map[string]cache.Indexer
}

func newIndexReader() *indexReader { return &indexReader{stores: map[string]cache.Indexer{}} }

// kindOf names the store of an object or list by its Go type.
func kindOf(o runtime.Object) string {
	switch o.(type) {
	case *v1alpha1.File, *v1alpha1.FileList:
		return "File"
	case *v1alpha1.Branch, *v1alpha1.BranchList:
		return "Branch"
	case *v1alpha1.ProviderConfig, *v1alpha1.ProviderConfigList:
		return "ProviderConfig"
	case *v1alpha1.ClusterProviderConfig, *v1alpha1.ClusterProviderConfigList:
		return "ClusterProviderConfig"
	}
	return fmt.Sprintf("%T", o)
}

func (r *indexReader) store(o runtime.Object) cache.Indexer {
	k := kindOf(o)
	s, ok := r.stores[k]
	if !ok {
		s = cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{})
		r.stores[k] = s
	}
	return s
}

func (r *indexReader) IndexField(_ context.Context, obj client.Object, field string, fn client.IndexerFunc) error {
	return r.store(obj).AddIndexers(cache.Indexers{field: func(o any) ([]string, error) {
		co, _ := o.(client.Object)
		return fn(co), nil
	}})
}

func (r *indexReader) add(objs ...client.Object) error {
	for _, o := range objs {
		if err := r.store(o).Add(o); err != nil {
			return err
		}
	}
	return nil
}

func (r *indexReader) Get(_ context.Context, key types.NamespacedName, obj client.Object, _ ...client.GetOption) error {
	k := key.Name
	if key.Namespace != "" {
		k = key.Namespace + "/" + key.Name
	}
	item, ok, err := r.store(obj).GetByKey(k)
	if err != nil {
		return err
	}
	if !ok {
		return notFound{}
	}
	src, _ := item.(runtime.Object)
	return runtime.DefaultUnstructuredConverter.FromUnstructured(mustUnstructured(src), obj)
}

func (r *indexReader) List(_ context.Context, list client.ObjectList, opts ...client.ListOption) error {
	o := (&client.ListOptions{}).ApplyOptions(opts)
	var items []any
	if o.FieldSelector != nil {
		reqs := o.FieldSelector.Requirements()
		var err error
		if items, err = r.store(list).ByIndex(reqs[0].Field, reqs[0].Value); err != nil {
			return err
		}
	} else {
		items = r.store(list).List()
	}
	objs := make([]runtime.Object, len(items))
	for i, it := range items {
		objs[i], _ = it.(runtime.Object)
	}
	return kmeta.SetList(list, objs)
}

type notFound struct{}

func (notFound) Error() string { return "not found" }

func mustUnstructured(o runtime.Object) map[string]any {
	u, err := runtime.DefaultUnstructuredConverter.ToUnstructured(o)
	if err != nil {
		panic(errors.Wrap(err, "cannot convert"))
	}
	return u
}

// BenchmarkCheck measures one claim check of a File among n Files of one
// repository reached through c ProviderConfigs (one per namespace) and a
// ClusterProviderConfig, through the Index and, as the baseline, by scanning
// every File. The Index's cost grows with the configurations of the
// repository (one lookup each), not with the Files; the scan's grows with
// the Files.
func BenchmarkCheck(b *testing.B) {
	for _, c := range []int{1, 100} {
		for _, n := range []int{100, 10000} {
			benchmarkCheck(b, c, n)
		}
	}
}

func benchmarkCheck(b *testing.B, configs, n int) {
	r := newIndexReader()
	x := NewIndex(r, r)
	for _, k := range []Kind{File(), Branch()} {
		if err := x.Register(context.Background(), k); err != nil {
			b.Fatal(err)
		}
	}
	if err := r.add(cpcAt("shared", "https://h/org/r.git")); err != nil {
		b.Fatal(err)
	}
	for ns := range configs {
		if err := r.add(pcAt(fmt.Sprintf("ns-%03d", ns), "git", "https://h/org/r.git")); err != nil {
			b.Fatal(err)
		}
	}
	var self *v1alpha1.File
	for i := range n {
		f := fileAt(fmt.Sprintf("ns-%03d", i%configs), fmt.Sprintf("f-%05d", i), later(i), local, "main", fmt.Sprintf("apps/app-%05d/config.yaml", i))
		if err := r.add(f); err != nil {
			b.Fatal(err)
		}
		self = f
	}
	b.Run(fmt.Sprintf("Index/Configs=%d/Files=%d", configs, n), func(b *testing.B) {
		for b.Loop() {
			if _, err := x.Check(context.Background(), File(), self); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run(fmt.Sprintf("ScanBaseline/Configs=%d/Files=%d", configs, n), func(b *testing.B) {
		l, _ := File().Loc(self)
		me := claimantOf(File(), self, l)
		for b.Loop() {
			all := &v1alpha1.FileList{}
			if err := r.List(context.Background(), all); err != nil {
				b.Fatal(err)
			}
			var others []Claimant
			for i := range all.Items {
				if ol, ok := File().Loc(&all.Items[i]); ok {
					others = append(others, claimantOf(File(), &all.Items[i], ol))
				}
			}
			if _, held := Holder(me, others); held {
				b.Fatal("held")
			}
		}
	})
}
