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

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"testing"

	"github.com/crossplane-contrib/provider-git/internal/audit"
)

// benchFacts is how many facts BenchmarkStoreMemory keeps: the default
// bound.
const benchFacts = DefaultMaxFacts

// realistic is the AdmissionReview of update i of a ConfigMap of ten keys
// by a ServiceAccount, in one of twenty namespaces, as an API server sends
// it: the object as it will be stored and as it was.
func realistic(i int) string {
	ns := fmt.Sprintf("team-%02d", i%20)
	uid := fmt.Sprintf("%08x-%04x-4%03x-8%03x-%012x", i, i%0xffff, i%0xfff, (i*7)%0xfff, i*31)
	var data strings.Builder
	for k := range 10 {
		fmt.Fprintf(&data, `,"key-%d":"value %d of object %d, a line of configuration"`, k, k, i)
	}
	object := func(rv string, v int) string {
		return fmt.Sprintf(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"app-%05d","namespace":%q,"uid":%q,"resourceVersion":%q,`+
			`"labels":{"app.kubernetes.io/name":"app","mirror":"yes"}},"data":{"seq":"%d"%s}}`, i, ns, uid, rv, v, data.String())
	}
	return fmt.Sprintf(`{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{"uid":"req-%d",`+
		`"kind":{"group":"","version":"v1","kind":"ConfigMap"},"resource":{"group":"","version":"v1","resource":"configmaps"},`+
		`"namespace":%q,"name":"app-%05d","operation":"UPDATE",`+
		`"userInfo":{"username":"system:serviceaccount:%s:deployer","uid":%q,"groups":["system:serviceaccounts","system:serviceaccounts:%s","system:authenticated"]},`+
		`"object":%s,"oldObject":%s,"options":{"kind":"UpdateOptions","apiVersion":"meta.k8s.io/v1","fieldManager":"kubectl-client-side-apply"}}}`,
		i, ns, i, ns, uid, ns, object("", 2), object(fmt.Sprint(1000+i), 1))
}

// BenchmarkStoreMemory keeps 10,000 facts (the default bound), each from
// a realistic review through the webhook's handler, and reports what they
// take: the Store's own estimate (what --admission-store-max-bytes is
// compared with) beside the Go heap's growth after a collection (heap in
// use, and live objects), per 10,000 facts and per fact.
func BenchmarkStoreMemory(b *testing.B) {
	for range b.N {
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		s := NewStore()
		srv, err := NewServer("127.0.0.1:0", s, audit.Static{Certificate: serving(b)})
		if err != nil {
			b.Fatal(err)
		}
		for i := range benchFacts {
			r := httptest.NewRequest(http.MethodPost, "/admit", strings.NewReader(realistic(i)))
			srv.ServeHTTP(httptest.NewRecorder(), r)
		}
		runtime.GC()
		runtime.GC()
		runtime.ReadMemStats(&after)
		if s.Len() != benchFacts {
			b.Fatalf("the store kept %d facts, want %d", s.Len(), benchFacts)
		}
		est := s.Bytes()
		inuse := int64(after.HeapInuse) - int64(before.HeapInuse)
		live := int64(after.HeapAlloc) - int64(before.HeapAlloc)
		runtime.KeepAlive(s)
		runtime.KeepAlive(srv)
		fmt.Printf("\n%d admission facts (updates of ConfigMaps by ServiceAccounts, 20 namespaces), each from a review through the webhook's handler\n"+
			"| | per %d facts | per fact |\n|----|----|----|\n"+
			"| the Store's estimate (what --admission-store-max-bytes bounds) | %.2f MiB | %d B |\n"+
			"| Go heap in use, grown (after a collection) | %.2f MiB | %d B |\n"+
			"| Go heap live objects, grown (after a collection) | %.2f MiB | %d B |\n",
			benchFacts, benchFacts, mib(est), est/benchFacts, mib(inuse), inuse/benchFacts, mib(live), live/benchFacts)
	}
}

func mib(n int64) float64 { return float64(n) / (1 << 20) }
