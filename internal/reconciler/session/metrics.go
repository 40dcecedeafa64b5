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
	"sync"

	"github.com/prometheus/client_golang/prometheus"
	corev1 "k8s.io/api/core/v1"

	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"
)

// MetricResourceCondition is the name of the condition gauge family.
const MetricResourceCondition = "provider_git_resource_condition"

const helpResourceCondition = "Status of an object's Ready, Reconciling and Stalled conditions: 1 on the series of the current status, 0 on the other two."

// MetricResources is the name of the per-kind count family.
const MetricResources = "provider_git_resources"

const helpResources = "Number of objects of a kind whose Ready, Reconciling or Stalled condition has this status and reason."

// trioTypes are the only published condition types: axis conditions are not,
// the failing gate is identified by the reason label instead.
var trioTypes = [...]xpv2.ConditionType{xpv2.TypeReady, TypeReconciling, TypeStalled}

// statuses are the three series published per condition type.
var statuses = [...]corev1.ConditionStatus{corev1.ConditionTrue, corev1.ConditionFalse, corev1.ConditionUnknown}

// identity is one published object. The namespace is empty for
// cluster-scoped kinds.
type identity struct{ kind, namespace, name string }

// state is one trio condition as published.
type state struct {
	status corev1.ConditionStatus
	reason xpv2.ConditionReason
}

// ConditionMetrics publishes the trio of every object as gauge families read
// at scrape time from an in-process map, so forgetting an object
// is a map delete and there is no stale value to unset.
//
// Identity labels are prefixed (resource_namespace, not namespace) because a
// pod scrape with honor_labels=false overwrites a bare namespace label.
// Every kind is in the per-kind counts (provider_git_resources), a handful
// of series however many objects there are; an object has nine series of
// its own only if its kind is named by OwnSeriesFor (every kind, without
// it), so a kind of many objects cannot get them by accident.
type ConditionMetrics struct {
	desc, count *prometheus.Desc
	// own are the kinds with series of their own; nil: every kind.
	own map[string]bool

	mu      sync.Mutex
	objects map[identity][len(trioTypes)]state
}

// A MetricsOption configures ConditionMetrics.
type MetricsOption func(*ConditionMetrics)

// OwnSeriesFor gives series of their own to the objects of kinds only, the
// kinds a person declares one by one. Kinds whose population follows the
// data, such as one object per file or per commit, are left to the counts:
// nine series per object at every scrape would make the scrape the largest
// allocation of the process (90,000 series for 10,000 objects).
func OwnSeriesFor(kinds ...string) MetricsOption {
	return func(m *ConditionMetrics) {
		m.own = map[string]bool{}
		for _, k := range kinds {
			m.own[k] = true
		}
	}
}

// NewConditionMetrics returns empty families. It registers nothing: cmd
// registers it on controller-runtime's metrics.Registry, so tests can use
// their own registries.
func NewConditionMetrics(o ...MetricsOption) *ConditionMetrics {
	m := &ConditionMetrics{
		desc: prometheus.NewDesc(MetricResourceCondition, helpResourceCondition,
			[]string{"kind", "resource_namespace", "resource_name", "type", "status", "reason"}, nil),
		count: prometheus.NewDesc(MetricResources, helpResources,
			[]string{"kind", "type", "status", "reason"}, nil),
		objects: map[identity][len(trioTypes)]state{},
	}
	for _, fn := range o {
		fn(m)
	}
	return m
}

// Record replaces everything published for (kind, namespace, name) with the
// trio found in conditions, so a reason change leaves no stale series. A trio
// type the object does not carry is published as Unknown/Unspecified: "not
// reconciled yet" is a state, distinct from "not published at all". An empty
// list is a no-op, never a delete: only Forget removes an object.
func (m *ConditionMetrics) Record(kind, namespace, name string, conditions []xpv2.Condition) {
	if len(conditions) == 0 {
		return
	}
	m.record(identity{kind: kind, namespace: namespace, name: name}, conditions)
}

// record is Record without the empty-list guard: a session publishes a fresh
// object's (empty) condition set as three Unknown conditions.
func (m *ConditionMetrics) record(id identity, conditions []xpv2.Condition) {
	var s [len(trioTypes)]state
	for i, t := range trioTypes {
		s[i] = state{status: corev1.ConditionUnknown, reason: ReasonUnspecified}
		if c := Find(conditions, t); c != nil {
			s[i] = state{status: c.Status, reason: c.Reason}
			if c.Reason == "" {
				s[i].reason = ReasonUnspecified
			}
		}
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	m.objects[id] = s
}

// Forget removes every series of exactly (kind, namespace, name).
func (m *ConditionMetrics) Forget(kind, namespace, name string) {
	if m == nil {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	delete(m.objects, identity{kind: kind, namespace: namespace, name: name})
}

// Describe implements prometheus.Collector.
func (m *ConditionMetrics) Describe(ch chan<- *prometheus.Desc) {
	ch <- m.desc
	ch <- m.count
}

// counted is one series of the per-kind counts.
type counted struct {
	kind string
	t    xpv2.ConditionType
	state
}

// Collect implements prometheus.Collector. Each trio type of an object with
// series of its own yields three series, one per status; the current one is
// 1. A status matching none of the three yields three zeros. The counts
// have a series per (kind, type, status, reason) that some object holds.
func (m *ConditionMetrics) Collect(ch chan<- prometheus.Metric) {
	// Count and copy under the lock, send outside it, so a slow scrape never
	// blocks a reconcile's Record.
	m.mu.Lock()
	counts := map[counted]int{}
	own := make(map[identity][len(trioTypes)]state)
	for id, trio := range m.objects {
		for i, t := range trioTypes {
			counts[counted{kind: id.kind, t: t, state: trio[i]}]++
		}
		if m.own == nil || m.own[id.kind] {
			own[id] = trio
		}
	}
	m.mu.Unlock()
	for c, n := range counts {
		ch <- prometheus.MustNewConstMetric(m.count, prometheus.GaugeValue, float64(n),
			c.kind, string(c.t), string(c.status), string(c.reason))
	}
	for id, trio := range own {
		for i, t := range trioTypes {
			for _, st := range statuses {
				v := 0.0
				if trio[i].status == st {
					v = 1
				}
				ch <- prometheus.MustNewConstMetric(m.desc, prometheus.GaugeValue, v,
					id.kind, id.namespace, id.name, string(t), string(st), string(trio[i].reason))
			}
		}
	}
}
