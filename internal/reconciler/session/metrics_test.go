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
	"fmt"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	dto "github.com/prometheus/client_model/go"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/record"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"

	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"
)

// st is one published trio condition: status and reason label.
type st struct{ status, reason string }

// exposition is the expected text for objects built with series.
func exposition(objects ...string) string {
	return "# HELP " + MetricResourceCondition + " " + helpResourceCondition + "\n" +
		"# TYPE " + MetricResourceCondition + " gauge\n" + strings.Join(objects, "")
}

// series is the exposition the collector must produce, written out
// independently of it: three series per trio type, 1 on the current status,
// the reason label on all three.
func series(kind, ns, name string, ready, reconciling, stalled st) string {
	var b strings.Builder
	for _, tc := range []struct {
		t string
		s st
	}{{"Ready", ready}, {"Reconciling", reconciling}, {"Stalled", stalled}} {
		for _, status := range []string{"True", "False", "Unknown"} {
			v := 0
			if status == tc.s.status {
				v = 1
			}
			fmt.Fprintf(&b, "%s{kind=%q,reason=%q,resource_name=%q,resource_namespace=%q,status=%q,type=%q} %d\n",
				MetricResourceCondition, kind, tc.s.reason, name, ns, status, tc.t, v)
		}
	}
	return b.String()
}

var unknown = st{"Unknown", "Unspecified"}

func trio(ready, reconciling, stalled st) []xpv2.Condition {
	return []xpv2.Condition{
		{Type: xpv2.TypeReady, Status: corev1.ConditionStatus(ready.status), Reason: xpv2.ConditionReason(ready.reason)},
		{Type: TypeReconciling, Status: corev1.ConditionStatus(reconciling.status), Reason: xpv2.ConditionReason(reconciling.reason)},
		{Type: TypeStalled, Status: corev1.ConditionStatus(stalled.status), Reason: xpv2.ConditionReason(stalled.reason)},
	}
}

func TestRecordExposition(t *testing.T) {
	// One literal expectation, so the series helper is checked against the
	// exposition format at least once.
	m := NewConditionMetrics()
	m.Record("Widget", "default", "w", append(trio(st{"True", "Available"}, st{"False", "Succeeded"}, st{"False", "Succeeded"}),
		xpv2.Condition{Type: xpv2.TypeSynced, Status: corev1.ConditionTrue, Reason: xpv2.ReasonReconcileSuccess}))
	want := `# HELP provider_git_resource_condition ` + helpResourceCondition + `
# TYPE provider_git_resource_condition gauge
provider_git_resource_condition{kind="Widget",reason="Available",resource_name="w",resource_namespace="default",status="False",type="Ready"} 0
provider_git_resource_condition{kind="Widget",reason="Available",resource_name="w",resource_namespace="default",status="True",type="Ready"} 1
provider_git_resource_condition{kind="Widget",reason="Available",resource_name="w",resource_namespace="default",status="Unknown",type="Ready"} 0
provider_git_resource_condition{kind="Widget",reason="Succeeded",resource_name="w",resource_namespace="default",status="False",type="Reconciling"} 1
provider_git_resource_condition{kind="Widget",reason="Succeeded",resource_name="w",resource_namespace="default",status="True",type="Reconciling"} 0
provider_git_resource_condition{kind="Widget",reason="Succeeded",resource_name="w",resource_namespace="default",status="Unknown",type="Reconciling"} 0
provider_git_resource_condition{kind="Widget",reason="Succeeded",resource_name="w",resource_namespace="default",status="False",type="Stalled"} 1
provider_git_resource_condition{kind="Widget",reason="Succeeded",resource_name="w",resource_namespace="default",status="True",type="Stalled"} 0
provider_git_resource_condition{kind="Widget",reason="Succeeded",resource_name="w",resource_namespace="default",status="Unknown",type="Stalled"} 0
`
	if err := testutil.CollectAndCompare(m, strings.NewReader(want), MetricResourceCondition); err != nil {
		t.Error(err)
	}
}

func TestConditionMetrics(t *testing.T) {
	ok := st{"True", "Available"}
	done := st{"False", "Succeeded"}
	cases := map[string]struct {
		reason string
		do     func(m *ConditionMetrics)
		want   string
	}{
		"MissingTrioIsUnknownUnspecified": {
			reason: "A trio type the object does not carry is published Unknown/Unspecified; axis conditions are not published.",
			do: func(m *ConditionMetrics) {
				m.Record("Widget", "ns", "w", []xpv2.Condition{{Type: xpv2.TypeSynced, Status: corev1.ConditionTrue, Reason: "ReconcileSuccess"}})
			},
			want: exposition(series("Widget", "ns", "w", unknown, unknown, unknown)),
		},
		"EmptyReasonIsUnspecified": {
			reason: "An empty reason is published as Unspecified.",
			do:     func(m *ConditionMetrics) { m.Record("Widget", "ns", "w", trio(st{"True", ""}, done, done)) },
			want:   exposition(series("Widget", "ns", "w", st{"True", "Unspecified"}, done, done)),
		},
		"UnknownStatusValueIsThreeZeros": {
			reason: "A status matching none of True/False/Unknown yields three zeros.",
			do:     func(m *ConditionMetrics) { m.Record("Widget", "ns", "w", trio(st{"Bogus", "Odd"}, done, done)) },
			want:   exposition(series("Widget", "ns", "w", st{"Bogus", "Odd"}, done, done)),
		},
		"ReasonChangeLeavesNoStaleSeries": {
			reason: "Record replaces everything for the object, so the old reason's series disappear.",
			do: func(m *ConditionMetrics) {
				m.Record("Widget", "ns", "w", trio(st{"False", "WatchError"}, st{"False", "WatchError"}, st{"True", "WatchError"}))
				m.Record("Widget", "ns", "w", trio(ok, done, done))
			},
			want: exposition(series("Widget", "ns", "w", ok, done, done)),
		},
		"EmptyUpdateIsNotADelete": {
			reason: "Recording an empty list keeps what was published.",
			do: func(m *ConditionMetrics) {
				m.Record("Widget", "ns", "w", trio(ok, done, done))
				m.Record("Widget", "ns", "w", nil)
			},
			want: exposition(series("Widget", "ns", "w", ok, done, done)),
		},
		"ForgetIsScopedToTheIdentity": {
			reason: "Forget removes every type of exactly one (kind, namespace, name).",
			do: func(m *ConditionMetrics) {
				m.Record("Widget", "a", "w", trio(ok, done, done))
				m.Record("Widget", "b", "w", trio(ok, done, done))
				m.Record("Gadget", "a", "w", trio(ok, done, done))
				m.Forget("Widget", "a", "w")
			},
			want: exposition(series("Widget", "b", "w", ok, done, done), series("Gadget", "a", "w", ok, done, done)),
		},
		"ClusterScopedHasEmptyNamespace": {
			reason: "Cluster-scoped kinds publish an empty resource_namespace.",
			do:     func(m *ConditionMetrics) { m.Record("ClusterWidget", "", "c", trio(ok, done, done)) },
			want:   exposition(series("ClusterWidget", "", "c", ok, done, done)),
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			m := NewConditionMetrics()
			tc.do(m)
			if err := testutil.CollectAndCompare(m, strings.NewReader(tc.want), MetricResourceCondition); err != nil {
				t.Errorf("%s\n%v", tc.reason, err)
			}
		})
	}
}

// counts is the expected exposition of the per-kind counts, lines written
// out in the exposition's own (sorted) order.
func counts(lines ...string) string {
	return "# HELP " + MetricResources + " " + helpResources + "\n" +
		"# TYPE " + MetricResources + " gauge\n" + strings.Join(lines, "\n") + "\n"
}

func TestConditionMetricsCounts(t *testing.T) {
	ok := st{"True", "Available"}
	done := st{"False", "Succeeded"}
	cases := map[string]struct {
		reason  string
		opts    []MetricsOption
		do      func(m *ConditionMetrics)
		series  string
		counted string
	}{
		"EveryKindIsCounted": {
			reason: "Objects with series of their own are in the counts too, one series per (kind, type, status, reason) some object holds.",
			do: func(m *ConditionMetrics) {
				m.Record("Widget", "a", "w", trio(ok, done, done))
				m.Record("Widget", "b", "w", trio(ok, done, done))
				m.Record("Widget", "b", "x", trio(st{"False", "Creating"}, st{"True", "Creating"}, done))
			},
			series: exposition(series("Widget", "a", "w", ok, done, done), series("Widget", "b", "w", ok, done, done),
				series("Widget", "b", "x", st{"False", "Creating"}, st{"True", "Creating"}, done)),
			counted: counts(
				`provider_git_resources{kind="Widget",reason="Available",status="True",type="Ready"} 2`,
				`provider_git_resources{kind="Widget",reason="Creating",status="False",type="Ready"} 1`,
				`provider_git_resources{kind="Widget",reason="Creating",status="True",type="Reconciling"} 1`,
				`provider_git_resources{kind="Widget",reason="Succeeded",status="False",type="Reconciling"} 2`,
				`provider_git_resources{kind="Widget",reason="Succeeded",status="False",type="Stalled"} 3`),
		},
		"KindNotNamedHasNoSeriesOfItsOwn": {
			reason: "A kind OwnSeriesFor does not name is published in the counts alone; the kinds it names keep their series.",
			opts:   []MetricsOption{OwnSeriesFor("Widget", "Gizmo")},
			do: func(m *ConditionMetrics) {
				for i := range 1000 {
					m.Record("Gadget", "ns", fmt.Sprintf("g-%d", i), trio(ok, done, done))
				}
				m.Record("Widget", "ns", "w", trio(ok, done, done))
			},
			series: exposition(series("Widget", "ns", "w", ok, done, done)),
			counted: counts(
				`provider_git_resources{kind="Gadget",reason="Available",status="True",type="Ready"} 1000`,
				`provider_git_resources{kind="Gadget",reason="Succeeded",status="False",type="Reconciling"} 1000`,
				`provider_git_resources{kind="Gadget",reason="Succeeded",status="False",type="Stalled"} 1000`,
				`provider_git_resources{kind="Widget",reason="Available",status="True",type="Ready"} 1`,
				`provider_git_resources{kind="Widget",reason="Succeeded",status="False",type="Reconciling"} 1`,
				`provider_git_resources{kind="Widget",reason="Succeeded",status="False",type="Stalled"} 1`),
		},
		"ForgetLeavesTheCounts": {
			reason: "A forgotten object is no longer counted; a count that reaches zero has no series.",
			opts:   []MetricsOption{OwnSeriesFor("Widget")},
			do: func(m *ConditionMetrics) {
				m.Record("Gadget", "ns", "a", trio(ok, done, done))
				m.Record("Gadget", "ns", "b", trio(st{"False", "Conflict"}, st{"False", "Conflict"}, st{"True", "Conflict"}))
				m.Forget("Gadget", "ns", "b")
			},
			series: "",
			counted: counts(
				`provider_git_resources{kind="Gadget",reason="Available",status="True",type="Ready"} 1`,
				`provider_git_resources{kind="Gadget",reason="Succeeded",status="False",type="Reconciling"} 1`,
				`provider_git_resources{kind="Gadget",reason="Succeeded",status="False",type="Stalled"} 1`),
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			m := NewConditionMetrics(tc.opts...)
			tc.do(m)
			if err := testutil.CollectAndCompare(m, strings.NewReader(tc.series), MetricResourceCondition); err != nil {
				t.Errorf("%s\nseries: %v", tc.reason, err)
			}
			if err := testutil.CollectAndCompare(m, strings.NewReader(tc.counted), MetricResources); err != nil {
				t.Errorf("%s\ncounts: %v", tc.reason, err)
			}
		})
	}
}

func TestConditionMetricsForgetAll(t *testing.T) {
	m := NewConditionMetrics()
	m.Record("Widget", "ns", "w", trio(st{"True", "Available"}, st{"False", "Succeeded"}, st{"False", "Succeeded"}))
	m.Forget("Widget", "ns", "w")
	if n := testutil.CollectAndCount(m); n != 0 {
		t.Errorf("series after Forget = %d, want 0", n)
	}
}

func TestConditionMetricsManyObjects(t *testing.T) {
	// 300 objects (2,700 series) keep their own labels: no overflow bucket,
	// the last object is identifiable. A pedantic registry also checks that
	// Collect matches Describe.
	m := NewConditionMetrics()
	for i := range 300 {
		m.Record("Widget", "ns", fmt.Sprintf("w-%03d", i), trio(st{"True", "Available"}, st{"False", "Succeeded"}, st{"False", "Succeeded"}))
	}
	reg := prometheus.NewPedanticRegistry()
	reg.MustRegister(m)
	families, err := reg.Gather()
	if err != nil {
		t.Fatalf("Gather(): %v", err)
	}
	var family *dto.MetricFamily
	for _, f := range families {
		if f.GetName() == MetricResourceCondition {
			family = f
		}
	}
	if family == nil || len(family.GetMetric()) != 2700 {
		t.Fatalf("gathered %v, want %s with 2700 series", families, MetricResourceCondition)
	}
	found := false
	for _, metric := range family.GetMetric() {
		labels := map[string]string{}
		for _, l := range metric.GetLabel() {
			labels[l.GetName()] = l.GetValue()
		}
		if labels["resource_name"] == "w-299" && labels["type"] == "Ready" && labels["status"] == "True" && metric.GetGauge().GetValue() == 1 {
			found = true
		}
	}
	if !found {
		t.Error("the 300th object's Ready=True series is missing")
	}
}

func TestCommitPublishesMetrics(t *testing.T) {
	now := metav1.Now()
	cases := map[string]struct {
		reason string
		obj    func() *widget
		stored bool
		want   string
	}{
		"FreshObjectIsUnknown": {
			reason: "A fresh object committed without a trio publishes all three types Unknown/Unspecified.",
			obj:    func() *widget { return newWidget(1) },
			stored: true,
			want: exposition(series(testKind, testNamespace, testName, unknown, unknown, unknown),
				series(testKind, testNamespace, "other", unknown, unknown, unknown)),
		},
		"DeletedWithoutFinalizersIsForgotten": {
			reason: "An object with a deletionTimestamp and no finalizers left is forgotten instead of recorded; other objects stay.",
			obj: func() *widget {
				w := newWidget(1)
				w.DeletionTimestamp = &now
				return w
			},
			want: exposition(series(testKind, testNamespace, "other", unknown, unknown, unknown)),
		},
		"DeletingWithFinalizersIsRecorded": {
			reason: "While a finalizer remains the object still exists and is still published.",
			obj: func() *widget {
				w := newWidget(1)
				w.DeletionTimestamp = &now
				w.Finalizers = []string{"f"}
				return w
			},
			want: exposition(series(testKind, testNamespace, testName, unknown, unknown, unknown),
				series(testKind, testNamespace, "other", unknown, unknown, unknown)),
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			var stored *widget
			if tc.stored {
				stored = tc.obj()
			}
			c, obj := env(t, stored, interceptor.Funcs{})
			if !tc.stored {
				obj = tc.obj()
			}
			m := NewConditionMetrics()
			m.Record(testKind, testNamespace, testName, trio(st{"True", "Available"}, st{"False", "Succeeded"}, st{"False", "Succeeded"}))
			m.Record(testKind, testNamespace, "other", trio(unknown, unknown, unknown))
			s := Begin(c, obj, WithMetrics(m, testKind), WithRecorder(record.NewFakeRecorder(10)))
			if err := s.Commit(context.Background()); err != nil {
				t.Fatalf("Commit(): %v", err)
			}
			if err := testutil.CollectAndCompare(m, strings.NewReader(tc.want), MetricResourceCondition); err != nil {
				t.Errorf("%s\n%v", tc.reason, err)
			}
		})
	}
}
