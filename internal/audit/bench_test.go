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
	"bytes"
	"fmt"
	"net/http"
	"net/http/httptest"
	"runtime"
	"testing"
	"time"

	clocktesting "k8s.io/utils/clock/testing"
)

// batch is how many events the API server sends at most in one request
// (--audit-webhook-batch-max-size's default).
const batch = 400

// batches are n updates of distinct ConfigMaps, as EventLists of batch.
func batches(n int) [][]byte {
	var out [][]byte
	for i := 0; i < n; i += batch {
		es := make([]ev, 0, batch)
		for j := i; j < min(i+batch, n); j++ {
			e := update()
			e.name, e.id = fmt.Sprintf("cm-%05d", j), fmt.Sprintf("%036d", j)
			es = append(es, e)
		}
		out = append(out, list(es...))
	}
	return out
}

// benchIngest posts 10,000 events per iteration to s and reports the CPU
// time per 10,000 events.
func benchIngest(b *testing.B, s *Server) {
	b.Helper()
	bodies := batches(10000)
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		for _, body := range bodies {
			r := httptest.NewRequest(http.MethodPost, "/", bytes.NewReader(body))
			r.Header.Set("Authorization", "Bearer "+testToken)
			w := httptest.NewRecorder()
			s.ServeHTTP(w, r)
			if w.Code != http.StatusOK {
				b.Fatalf("status %d", w.Code)
			}
		}
	}
	b.ReportMetric(float64(b.Elapsed().Microseconds())/1000/float64(b.N), "ms/10k-events")
}

// BenchmarkUnwatched: 10,000 audit events of a kind no Mirror watches (the
// API server sends what its policy selects): decoded and dropped. Its
// baseline, BenchmarkWatched, keeps the same events as facts.
func BenchmarkUnwatched(b *testing.B) {
	st := NewStore()
	st.Want("m", GroupResource{Group: "apps", Resource: "deployments"})
	benchIngest(b, &Server{store: st, creds: Static{Token: []byte(testToken)}, maxBody: DefaultMaxBody})
	if st.Len() != 0 {
		b.Fatalf("kept %d facts of an unwatched kind", st.Len())
	}
}

// BenchmarkWatched is BenchmarkUnwatched's baseline: the same events, of a
// watched kind, kept.
func BenchmarkWatched(b *testing.B) {
	st := NewStore(WithMaxBytes(1 << 40))
	st.Want("m", configMaps)
	benchIngest(b, &Server{store: st, creds: Static{Token: []byte(testToken)}, maxBody: DefaultMaxBody})
}

// BenchmarkMixed: 10,000 audit events of which one in each batch of 400
// is of a watched kind, so every batch is parsed: the other 399 are
// scanned and skipped, not decoded. Baseline: BenchmarkWatched.
func BenchmarkMixed(b *testing.B) {
	st := NewStore(WithMaxBytes(1 << 40))
	st.Want("m", GroupResource{Group: "apps", Resource: "deployments"})
	var bodies [][]byte
	for i := 0; i < 10000; i += batch {
		es := make([]ev, 0, batch)
		for j := i; j < i+batch; j++ {
			e := update()
			e.name, e.id = fmt.Sprintf("cm-%05d", j), fmt.Sprintf("%036d", j)
			if j == i {
				e.group, e.resource = "apps", "deployments"
			}
			es = append(es, e)
		}
		bodies = append(bodies, list(es...))
	}
	s := &Server{store: st, creds: Static{Token: []byte(testToken)}, maxBody: DefaultMaxBody}
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		for _, body := range bodies {
			r := httptest.NewRequest(http.MethodPost, "/", bytes.NewReader(body))
			r.Header.Set("Authorization", "Bearer "+testToken)
			w := httptest.NewRecorder()
			s.ServeHTTP(w, r)
			if w.Code != http.StatusOK {
				b.Fatalf("status %d", w.Code)
			}
		}
	}
	b.ReportMetric(float64(b.Elapsed().Microseconds())/1000/float64(b.N), "ms/10k-events")
	if got := st.Len(); got != 25*b.N {
		b.Fatalf("kept %d facts, want the %d watched", got, 25*b.N)
	}
}

// BenchmarkStoreTenThousandPerMinute: the join state at 10,000 changes per
// minute (a write every 6 ms, to 1,000 objects of 10 users), kept for the
// default age bound: its estimated bytes and the heap it really holds.
func BenchmarkStoreTenThousandPerMinute(b *testing.B) {
	for range b.N {
		b.StopTimer()
		runtime.GC()
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		b.StartTimer()
		clk := clocktesting.NewFakePassiveClock(time.Unix(1000, 0))
		s := NewStore(WithClock(clk), WithMaxAge(time.Minute), WithMaxBytes(1<<40))
		s.Want("m", configMaps)
		for i := range 10000 {
			clk.SetTime(clk.Now().Add(6 * time.Millisecond))
			s.Add(
				Key{GroupResource: GroupResource{Resource: string([]byte("configmaps"))}, Namespace: "team-a", Name: fmt.Sprintf("cm-%04d", i%1000)},
				Fact{
					User: User{Username: fmt.Sprintf("user-%d@example.org", i%10), UID: fmt.Sprintf("%036d", i%10), Groups: []string{"system:authenticated", "dev"}},
					Verb: "update", AuditID: fmt.Sprintf("%036d", i), UserAgent: "kubectl/v1.37.2 (linux/amd64) kubernetes/abcdef0", ResourceVersion: fmt.Sprint(i),
				})
		}
		b.StopTimer()
		runtime.GC()
		runtime.ReadMemStats(&after)
		b.ReportMetric(float64(s.Bytes()), "store-bytes")
		b.ReportMetric(float64(int64(after.HeapAlloc)-int64(before.HeapAlloc)), "heap-bytes")
		b.ReportMetric(float64(s.Len()), "facts")
		runtime.KeepAlive(s)
		b.StartTimer()
	}
}
