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
	"github.com/prometheus/client_golang/prometheus"
)

// Metrics publish one replica's share of the repositories. Each replica
// serves its own; summed over the replicas, held is every repository in use.
type Metrics struct {
	members prometheus.Gauge
	held    prometheus.Gauge
	active  prometheus.Gauge
	api     prometheus.Counter
}

// NewMetrics returns the metrics, not registered.
func NewMetrics() *Metrics {
	return &Metrics{
		members: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "provider_git_share_members", Help: "Live members (replicas sharing the repositories) this replica sees, itself included.",
		}),
		held: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "provider_git_share_repositories_held", Help: "Repositories in use that this replica holds: it alone reconciles their resources and pushes to them.",
		}),
		active: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "provider_git_share_active", Help: "1 while this replica may hold repositories (its Lease is current and it has settled after joining), else 0; how many it holds is provider_git_share_repositories_held.",
		}),
		api: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "provider_git_share_api_requests_total", Help: "API requests made for the membership: reads, writes and lists of Leases.",
		}),
	}
}

// Register registers every metric with r.
func (m *Metrics) Register(r prometheus.Registerer) error {
	for _, c := range []prometheus.Collector{m.members, m.held, m.active, m.api} {
		if err := r.Register(c); err != nil {
			return err
		}
	}
	return nil
}

// set publishes one tick's figures; a nil Metrics publishes none.
func (m *Metrics) set(members, held int, active bool) {
	if m == nil {
		return
	}
	m.members.Set(float64(members))
	m.held.Set(float64(held))
	a := 0.0
	if active {
		a = 1
	}
	m.active.Set(a)
}

// request counts one API request; a nil Metrics counts none.
func (m *Metrics) request() {
	if m != nil {
		m.api.Inc()
	}
}
