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

package audit

import (
	"github.com/prometheus/client_golang/prometheus"
)

// Why a fact left the Store, and what became of an event.
const (
	reasonBytes = "bytes"
	reasonAge   = "age"

	resultStored    = "stored"
	resultUnwatched = "unwatched"
	resultNotAWrite = "not_a_write"
	resultInvalid   = "invalid"

	reloadTaken   = "reloaded"
	reloadRevoked = "revoked"
	reloadInvalid = "invalid"
	reloadError   = "error"
)

// Metrics of the audit endpoint and its Store. No label names a user or an
// object: cardinality is fixed. A nil *Metrics records nothing.
type Metrics struct {
	requests  *prometheus.CounterVec
	events    *prometheus.CounterVec
	bytes     prometheus.Gauge
	facts     prometheus.Gauge
	evictions *prometheus.CounterVec
	// attributions are counted by the Mirror controller (Attributed).
	attributions *prometheus.CounterVec
	reloads      *prometheus.CounterVec
}

// NewMetrics returns unregistered metrics; Register registers them.
func NewMetrics() *Metrics {
	return &Metrics{
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "provider_git_audit_requests_total", Help: "Requests to the audit webhook endpoint, by HTTP status code.",
		}, []string{"code"}),
		events: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "provider_git_audit_events_total", Help: "Audit events received, by result: stored, unwatched (no Mirror with attribution watches the kind), not_a_write, invalid.",
		}, []string{"result"}),
		bytes: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "provider_git_audit_store_bytes", Help: "Estimated heap held by the audit facts kept for attribution.",
		}),
		facts: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "provider_git_audit_store_facts", Help: "Audit facts kept for attribution.",
		}),
		evictions: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "provider_git_audit_store_evictions_total", Help: "Audit facts dropped before their time (bytes: the store's byte bound) or after it (age).",
		}, []string{"reason"}),
		attributions: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "provider_git_mirror_attributions_total", Help: "Changes Mirrors with attribution: Audit committed or held back, by result: resolved (an audit event named the author), unresolved (none within --audit-attribution-wait), ignored (ignore.users alone made them).",
		}, []string{"result"}),
		reloads: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "provider_git_audit_credential_reloads_total", Help: "Looks at the audit endpoint's credentials that changed what is in force or failed, by result: reloaded, revoked (the Secret or a file is gone, or holds neither CA nor token: every client is refused), invalid (changed but does not load; kept), error (could not look; kept).",
		}, []string{"result"}),
	}
}

// Register registers every metric on r.
func (m *Metrics) Register(r prometheus.Registerer) error {
	for _, c := range []prometheus.Collector{m.requests, m.events, m.bytes, m.facts, m.evictions, m.attributions, m.reloads} {
		if err := r.Register(c); err != nil {
			return err
		}
	}
	return nil
}

func (m *Metrics) size(bytes int64, facts int) {
	if m != nil {
		m.bytes.Set(float64(bytes))
		m.facts.Set(float64(facts))
	}
}

func (m *Metrics) evicted(reason string) {
	if m != nil {
		m.evictions.WithLabelValues(reason).Inc()
	}
}

func (m *Metrics) event(result string, n int) {
	if m != nil && n > 0 {
		m.events.WithLabelValues(result).Add(float64(n))
	}
}

func (m *Metrics) reload(result string) {
	if m != nil {
		m.reloads.WithLabelValues(result).Inc()
	}
}

func (m *Metrics) request(code string) {
	if m != nil {
		m.requests.WithLabelValues(code).Inc()
	}
}

// Attributed counts n changes a Mirror committed (or held back) with the
// outcome result: resolved (an audit fact named the author), unresolved
// (none within the wait) or ignored (ignored users alone made it).
func (m *Metrics) Attributed(result string, n int) {
	if m != nil && n > 0 {
		m.attributions.WithLabelValues(result).Add(float64(n))
	}
}
