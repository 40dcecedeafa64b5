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

package admission

import "github.com/prometheus/client_golang/prometheus"

// Why a fact left the Store early, and what became of a request.
const (
	reasonCount = "count"
	reasonBytes = "bytes"
	reasonAge   = "age"

	resultStored          = "stored"
	resultNotAFact        = "not_a_fact"
	resultUnauthenticated = "unauthenticated"
	resultInvalid         = "invalid"
	resultBusy            = "busy"
)

// Metrics of the admission webhook and its Store. No label names a user or
// an object: cardinality is fixed. A nil *Metrics records nothing.
type Metrics struct {
	requests *prometheus.CounterVec
	facts    prometheus.Gauge
	drops    *prometheus.CounterVec
}

// NewMetrics returns unregistered metrics; Register registers them.
func NewMetrics() *Metrics {
	return &Metrics{
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "provider_git_admission_requests_total", Help: "Admission reviews the webhook answered (always allowed), by result: stored, not_a_fact (a subresource, a dry run, a connect), unauthenticated (client authentication is configured and the caller had none: kept nothing), invalid (not an AdmissionReview).",
		}, []string{"result"}),
		facts: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "provider_git_admission_facts", Help: "Admission facts kept for attribution.",
		}),
		drops: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "provider_git_admission_facts_dropped_total", Help: "Admission facts dropped, by reason: count (the store's bound, --admission-store-max-facts, dropped the oldest fact of the namespace holding the most), bytes (its byte bound) or age (--admission-store-max-age).",
		}, []string{"reason"}),
	}
}

// Register registers every metric on r.
func (m *Metrics) Register(r prometheus.Registerer) error {
	for _, c := range []prometheus.Collector{m.requests, m.facts, m.drops} {
		if err := r.Register(c); err != nil {
			return err
		}
	}
	return nil
}

func (m *Metrics) size(n int) {
	if m != nil {
		m.facts.Set(float64(n))
	}
}

func (m *Metrics) dropped(reason string) {
	if m != nil {
		m.drops.WithLabelValues(reason).Inc()
	}
}

func (m *Metrics) request(result string) {
	if m != nil {
		m.requests.WithLabelValues(result).Inc()
	}
}
