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
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/record"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"

	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"
)

// widget is a test-only kind implementing Object: a spec, a top-level
// status.observedGeneration and a Crossplane condition list, like our MRs.
type widget struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              widgetSpec   `json:"spec,omitempty"`
	Status            widgetStatus `json:"status,omitempty"`
}

type widgetSpec struct {
	Size int `json:"size,omitempty"`
}

type widgetStatus struct {
	ObservedGeneration int64            `json:"observedGeneration,omitempty"`
	Conditions         []xpv2.Condition `json:"conditions,omitempty"`
}

func (w *widget) SetObservedGeneration(g int64)       { w.Status.ObservedGeneration = g }
func (w *widget) StatusConditions() *[]xpv2.Condition { return &w.Status.Conditions }

func (w *widget) DeepCopyObject() runtime.Object {
	out := *w
	w.ObjectMeta.DeepCopyInto(&out.ObjectMeta)
	if w.Status.Conditions != nil {
		out.Status.Conditions = append([]xpv2.Condition(nil), w.Status.Conditions...)
	}
	return &out
}

type widgetList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []widget `json:"items"`
}

func (l *widgetList) DeepCopyObject() runtime.Object {
	out := *l
	l.ListMeta.DeepCopyInto(&out.ListMeta)
	out.Items = nil
	for i := range l.Items {
		out.Items = append(out.Items, *l.Items[i].DeepCopyObject().(*widget))
	}
	return &out
}

var widgetGVK = schema.GroupVersionKind{Group: "session.test.git.m.crossplane.io", Version: "v1", Kind: "Widget"}

const (
	testNamespace = "default"
	testName      = "w"
	testKind      = "Widget"
)

var testKey = types.NamespacedName{Namespace: testNamespace, Name: testName}

func testScheme(t *testing.T) *runtime.Scheme {
	t.Helper()
	s := runtime.NewScheme()
	s.AddKnownTypes(widgetGVK.GroupVersion(), &widget{}, &widgetList{})
	metav1.AddToGroupVersion(s, widgetGVK.GroupVersion())
	return s
}

// newWidget is a stored widget at generation gen, with optional conditions.
func newWidget(gen int64, conds ...xpv2.Condition) *widget {
	return &widget{
		ObjectMeta: metav1.ObjectMeta{Namespace: testNamespace, Name: testName, Generation: gen},
		Status:     widgetStatus{Conditions: conds},
	}
}

// patchLog records every status patch body the fake client received.
type patchLog struct{ bodies []string }

// funcs intercepts status patches: records the body, then returns err when
// non-nil or forwards to the fake client.
func (p *patchLog) funcs(err error) interceptor.Funcs {
	return interceptor.Funcs{
		SubResourcePatch: func(ctx context.Context, c client.Client, sub string, obj client.Object, patch client.Patch, opts ...client.SubResourcePatchOption) error {
			body, derr := patch.Data(obj)
			if derr != nil {
				return derr
			}
			p.bodies = append(p.bodies, string(body))
			if err != nil {
				return err
			}
			return c.SubResource(sub).Patch(ctx, obj, patch, opts...)
		},
	}
}

// env builds a fake client holding stored (when non-nil) with a status
// subresource, and returns the object as a reconcile would read it.
func env(t *testing.T, stored *widget, funcs interceptor.Funcs) (client.Client, *widget) {
	t.Helper()
	b := fake.NewClientBuilder().WithScheme(testScheme(t)).WithStatusSubresource(&widget{}).WithInterceptorFuncs(funcs)
	if stored == nil {
		return b.Build(), newWidget(1)
	}
	c := b.WithObjects(stored).Build()
	got := &widget{}
	if err := c.Get(context.Background(), testKey, got); err != nil {
		t.Fatalf("Get: %v", err)
	}
	return c, got
}

// stored re-reads the widget from c.
func stored(t *testing.T, c client.Client) *widget {
	t.Helper()
	got := &widget{}
	if err := c.Get(context.Background(), testKey, got); err != nil {
		t.Fatalf("Get: %v", err)
	}
	return got
}

// drain returns every Event recorded so far.
func drain(r *record.FakeRecorder) []string {
	var out []string
	for {
		select {
		case e := <-r.Events:
			out = append(out, e)
		default:
			return out
		}
	}
}
