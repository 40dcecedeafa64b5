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

package git

import (
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// Metrics of the Git engine. Every series is labelled by remote host only,
// never by repository path or resource, so cardinality stays bounded by the
// number of Git servers. A nil *Metrics records nothing.
type Metrics struct {
	fetches        *prometheus.CounterVec
	polls          *prometheus.CounterVec
	pushes         *prometheus.CounterVec
	pushRetries    *prometheus.CounterVec
	pushRejections *prometheus.CounterVec
	batchSize      *prometheus.HistogramVec
	fetchSeconds   *prometheus.HistogramVec
	pushSeconds    *prometheus.HistogramVec
	pushesWithheld *prometheus.CounterVec
	apiCommits     *prometheus.CounterVec
	apiFallbacks   *prometheus.CounterVec
	blobFetches    *prometheus.CounterVec
	blobsFetched   *prometheus.CounterVec
	memory         memoryMetrics
}

// NewMetrics returns unregistered metrics; the caller registers them on its
// registry (e.g. controller-runtime's metrics.Registry) with Register.
func NewMetrics() *Metrics {
	host := []string{"host"}
	hostResult := []string{"host", "result"}
	return &Metrics{
		fetches: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "provider_git_fetches_total", Help: "Fetches from a Git remote (ls-refs included), by result.",
		}, hostResult),
		polls: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "provider_git_polls_total", Help: "Drift checks of a repository (one ls-remote; a fetch follows only when a head moved), by result.",
		}, hostResult),
		pushes: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "provider_git_pushes_total", Help: "Pushes sent to a Git remote, by result.",
		}, hostResult),
		pushRetries: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "provider_git_push_retries_total", Help: "Pushes retried after the branch moved under us.",
		}, host),
		pushRejections: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "provider_git_push_rejections_total", Help: "Pushes refused by the server (non-fast-forward, hooks, protection).",
		}, host),
		batchSize: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "provider_git_commit_batch_size", Help: "Changes carried by one push.",
			Buckets: prometheus.ExponentialBuckets(1, 4, 7), // 1 … 4096
		}, host),
		fetchSeconds: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "provider_git_fetch_duration_seconds", Help: "Latency of fetches.",
			Buckets: prometheus.ExponentialBuckets(0.01, 2.5, 10), // 10 ms … ~38 s
		}, host),
		pushSeconds: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "provider_git_push_duration_seconds", Help: "Latency of pushes.",
			Buckets: prometheus.ExponentialBuckets(0.01, 2.5, 10),
		}, host),
		pushesWithheld: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "provider_git_pushes_withheld_total", Help: "Pushes the fence withheld: this replica no longer held the repository (or its Lease was not current) when the push was ready to go.",
		}, host),
		apiCommits: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "provider_git_api_commits_total", Help: "Batches sent through the forge's API instead of a push (spec.commit.via API), by result.",
		}, hostResult),
		apiFallbacks: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "provider_git_api_fallbacks_total", Help: "Batches of a configuration with spec.commit.via API pushed instead, by reason (files, bytes, requests, empty-repository, object-differs).",
		}, []string{"host", "reason"}),
		blobFetches: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "provider_git_blob_fetches_total", Help: "Requests for the blobs a partial clone lacks, made when a read meets one (many blobs each), by result.",
		}, hostResult),
		blobsFetched: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "provider_git_blobs_fetched_total", Help: "Blobs asked for by the requests of provider_git_blob_fetches_total that succeeded.",
		}, host),
		memory: newMemoryMetrics(),
	}
}

func (m *Metrics) collectors() []prometheus.Collector {
	return []prometheus.Collector{m.fetches, m.polls, m.pushes, m.pushRetries, m.pushRejections, m.batchSize, m.fetchSeconds, m.pushSeconds, m.pushesWithheld, m.apiCommits, m.apiFallbacks,
		m.blobFetches, m.blobsFetched, m.memory.cacheBytes, m.memory.indexBytes, m.memory.budgetBytes, m.memory.clones}
}

// Register registers every metric on r.
func (m *Metrics) Register(r prometheus.Registerer) error {
	for _, c := range m.collectors() {
		if err := r.Register(c); err != nil {
			return err
		}
	}
	return nil
}

func result(err error) string {
	if err == nil {
		return "success"
	}
	return KindOf(err).String()
}

func (m *Metrics) fetched(host string, start time.Time, err error) {
	if m == nil {
		return
	}
	m.fetches.WithLabelValues(host, result(err)).Inc()
	m.fetchSeconds.WithLabelValues(host).Observe(time.Since(start).Seconds())
}

func (m *Metrics) polled(host string, err error) {
	if m != nil {
		m.polls.WithLabelValues(host, result(err)).Inc()
	}
}

func (m *Metrics) pushed(host string, start time.Time, err error) {
	if m == nil {
		return
	}
	m.pushes.WithLabelValues(host, result(err)).Inc()
	m.pushSeconds.WithLabelValues(host).Observe(time.Since(start).Seconds())
}

func (m *Metrics) retried(host string) {
	if m != nil {
		m.pushRetries.WithLabelValues(host).Inc()
	}
}

func (m *Metrics) rejected(host string) {
	if m != nil {
		m.pushRejections.WithLabelValues(host).Inc()
	}
}

func (m *Metrics) withheld(host string) {
	if m != nil {
		m.pushesWithheld.WithLabelValues(host).Inc()
	}
}

func (m *Metrics) batch(host string, n int) {
	if m != nil {
		m.batchSize.WithLabelValues(host).Observe(float64(n))
	}
}

func (m *Metrics) apiCommitted(host string, _ time.Time, err error) {
	if m != nil {
		m.apiCommits.WithLabelValues(host, result(err)).Inc()
	}
}

func (m *Metrics) apiFellBack(host, reason string) {
	if m != nil {
		m.apiFallbacks.WithLabelValues(host, reason).Inc()
	}
}

// blobFetched counts one request for n blobs of a partial clone
// (blobfetch.go).
func (m *Metrics) blobFetched(host string, n int, err error) {
	if m == nil {
		return
	}
	m.blobFetches.WithLabelValues(host, result(err)).Inc()
	if err == nil {
		m.blobsFetched.WithLabelValues(host).Add(float64(n))
	}
}
