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

package mirror

import (
	"testing"
	"time"
)

// What a steady poll over 1,000 encrypted Secrets cost before the guard
// made one pass and the Sealer's verdicts were kept by blob SHA: measured
// with this benchmark on main at 1ef30f3 (every Secret's blob read, and the
// marker's; each Secret listing both configuration kinds). The time is
// that run's at -benchtime=20x on two shared cores.
const (
	baselineBlobReads = 1001
	baselinePCLists   = 1000
	baselineCPCLists  = 1000
	baselinePerPoll   = 74 * time.Millisecond
)

// BenchmarkSteadyPollOf1000EncryptedSecrets observes a converged Mirror of
// 1,000 encrypted Secrets again and again, as its polls do, and reports the
// blobs each Observe reads from the clone and the configuration lists it
// makes, beside the baseline.
func BenchmarkSteadyPollOf1000EncryptedSecrets(b *testing.B) {
	const n = 1000
	s := newSteadyMirror(b, n)
	// The first Observe after a start reads and decrypts every file.
	s.observe(b)
	var reads, pcs, cpcs int
	b.ResetTimer()
	start := time.Now()
	for range b.N {
		r, l := s.observe(b)
		p, c := configLists(l)
		reads, pcs, cpcs = reads+r, pcs+p, cpcs+c
	}
	took := time.Since(start) / time.Duration(b.N)
	per := func(v int) float64 { return float64(v) / float64(b.N) }
	b.ReportMetric(per(reads), "blobs/poll")
	b.ReportMetric(per(pcs+cpcs), "configlists/poll")
	b.ReportMetric(baselineBlobReads, "baseline-blobs/poll")
	b.ReportMetric(baselinePCLists+baselineCPCLists, "baseline-configlists/poll")
	b.Logf("\nSteady poll of a Mirror of %d encrypted Secrets, per Observe\n"+
		"| | blobs read | ProviderConfig lists | ClusterProviderConfig lists | time |\n|---|---|---|---|---|\n"+
		"| baseline (main 1ef30f3) | %d | %d | %d | %s |\n| now | %.0f | %.0f | %.0f | %s |",
		n, baselineBlobReads, baselinePCLists, baselineCPCLists, baselinePerPoll,
		per(reads), per(pcs), per(cpcs), took.Round(time.Millisecond))
}
