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
	"fmt"
	"runtime"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/prometheus/client_golang/prometheus/testutil"
	clocktesting "k8s.io/utils/clock/testing"
)

func factBy(user string) Fact {
	return Fact{User: User{Username: user, Groups: []string{"system:authenticated"}}, Verb: "update", AuditID: "id-" + user}
}

func keyN(i int) Key {
	return Key{GroupResource: configMaps, Namespace: "default", Name: fmt.Sprintf("cm-%05d", i)}
}

// TestStoreBytesBound: past its byte bound the Store drops the oldest facts,
// whatever object they are of, and counts each eviction.
func TestStoreBytesBound(t *testing.T) {
	clk := clocktesting.NewFakePassiveClock(time.Unix(1000, 0))
	one := sizeOf(keyN(0), factBy("u0"))
	m := NewMetrics()
	s := NewStore(WithClock(clk), WithMaxBytes(10*one), WithMetrics(m))
	s.Want("m", configMaps)
	for i := range 25 {
		s.Add(keyN(i), factBy(fmt.Sprintf("u%d", i%10)))
		clk.SetTime(clk.Now().Add(time.Millisecond))
	}
	if got := s.Len(); got != 10 {
		t.Errorf("Len(): want the 10 newest facts kept, got %d", got)
	}
	if got := s.Bytes(); got > 10*one {
		t.Errorf("Bytes(): want at most %d, got %d", 10*one, got)
	}
	if got := s.Since(keyN(14), time.Time{}); len(got) != 0 {
		t.Errorf("Since(cm-00014): want the 15 oldest evicted, got %v", got)
	}
	if got := s.Since(keyN(15), time.Time{}); len(got) != 1 {
		t.Errorf("Since(cm-00015): want the newest 10 kept, got %v", got)
	}
	if got := testutil.ToFloat64(m.evictions.WithLabelValues(reasonBytes)); got != 15 {
		t.Errorf("evictions{reason=bytes}: want 15, got %v", got)
	}
	if got := testutil.ToFloat64(m.bytes); got != float64(s.Bytes()) {
		t.Errorf("provider_git_audit_store_bytes: want %d, got %v", s.Bytes(), got)
	}
}

// TestStoreMaxAge: a fact older than the age bound is dropped when the next
// arrives, so a quiet store does not hold the last burst for ever.
func TestStoreMaxAge(t *testing.T) {
	clk := clocktesting.NewFakePassiveClock(time.Unix(1000, 0))
	m := NewMetrics()
	s := NewStore(WithClock(clk), WithMaxAge(time.Minute), WithMetrics(m))
	s.Want("m", configMaps)
	s.Add(keyN(1), factBy("old"))
	clk.SetTime(clk.Now().Add(time.Minute + time.Second))
	s.Add(keyN(2), factBy("new"))
	if got := s.Since(keyN(1), time.Time{}); len(got) != 0 {
		t.Errorf("Since(old): want the fact past the age bound gone, got %v", got)
	}
	if got := s.Len(); got != 1 {
		t.Errorf("Len(): want 1, got %d", got)
	}
	if got := testutil.ToFloat64(m.evictions.WithLabelValues(reasonAge)); got != 1 {
		t.Errorf("evictions{reason=age}: want 1, got %v", got)
	}
}

// TestStoreSince: Since returns an object's facts from a time on, oldest
// first, and only that object's.
func TestStoreSince(t *testing.T) {
	t0 := time.Unix(1000, 0)
	clk := clocktesting.NewFakePassiveClock(t0)
	s := NewStore(WithClock(clk))
	s.Want("m", configMaps)
	for i, u := range []string{"alice", "bob", "carol"} {
		clk.SetTime(t0.Add(time.Duration(i) * time.Second))
		s.Add(keyX(), factBy(u))
		s.Add(keyN(i), factBy("someone-else"))
	}
	var got []string
	for _, f := range s.Since(keyX(), t0.Add(time.Second)) {
		got = append(got, f.User.Username)
	}
	if diff := cmp.Diff([]string{"bob", "carol"}, got); diff != "" {
		t.Errorf("Since(x, t0+1s): -want, +got:\n%s", diff)
	}
}

// TestStoreWant: a group/resource is wanted while any owner wants it, and
// a fact of one nobody wants is not kept.
func TestStoreWant(t *testing.T) {
	deployments := GroupResource{Group: "apps", Resource: "deployments"}
	s := NewStore()
	s.Want("a", configMaps, deployments)
	s.Want("b", configMaps)
	s.Want("a", deployments)
	if !s.Wants(configMaps) {
		t.Error("Wants(configmaps): b still wants it")
	}
	s.Want("b")
	if s.Wants(configMaps) {
		t.Error("Wants(configmaps): nobody wants it any more")
	}
	if s.Add(keyX(), factBy("alice")) {
		t.Error("Add(configmaps): kept a fact nobody wants")
	}
	if !s.Add(Key{GroupResource: deployments, Namespace: "default", Name: "d"}, factBy("alice")) {
		t.Error("Add(deployments.apps): a still wants it")
	}
}

// TestStoreNotify: a fact kept wakes who asked, with its key; one dropped
// wakes nobody.
func TestStoreNotify(t *testing.T) {
	s := NewStore()
	s.Want("m", configMaps)
	var got []Key
	s.Notify(func(k Key) { got = append(got, k) })
	s.Add(keyX(), factBy("alice"))
	s.Add(Key{GroupResource: GroupResource{Resource: "secrets"}, Namespace: "default", Name: "s"}, factBy("alice"))
	if diff := cmp.Diff([]Key{keyX()}, got); diff != "" {
		t.Errorf("notified keys: -want, +got:\n%s", diff)
	}
}

// TestFactSizeAccounted: the Store's estimate of its size is not far below
// the heap its facts really hold (within 1.5x), so its byte bound bounds
// memory.
func TestFactSizeAccounted(t *testing.T) {
	const n = 20000
	s := NewStore(WithMaxBytes(1 << 40))
	s.Want("m", configMaps)
	keys := make([]Key, n)
	facts := make([]Fact, n)
	for i := range n {
		// Fresh strings, as decoding makes them.
		keys[i] = Key{GroupResource: GroupResource{Resource: string([]byte("configmaps"))}, Namespace: string([]byte("team-a")), Name: fmt.Sprintf("cm-%05d", i)}
		facts[i] = Fact{
			User: User{Username: fmt.Sprintf("user-%d", i%50), UID: fmt.Sprintf("%036d", i), Groups: []string{string([]byte("system:authenticated")), string([]byte("dev"))}},
			Verb: string([]byte("update")), AuditID: fmt.Sprintf("%036d", i), UserAgent: string([]byte("kubectl/v1.37.2 (linux/amd64)")),
		}
	}
	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	for i := range n {
		s.Add(keys[i], facts[i])
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	// The strings were made before: the heap grows by what the Store adds
	// around them, and its estimate counts the strings too.
	grown := int64(after.HeapAlloc) - int64(before.HeapAlloc)
	var strs int64
	for i := range n {
		strs += sizeOf(keys[i], facts[i]) - factOverhead
	}
	onHeap := grown + strs
	if est := s.Bytes(); est*3 < onHeap*2 {
		t.Errorf("Bytes(): estimated %d for %d facts, but they hold about %d on the heap", est, n, onHeap)
	}
	runtime.KeepAlive(keys)
	runtime.KeepAlive(facts)
}

// TestStoreDeduplicatesAuditID: an event delivered twice (the API server
// retries a batch) is one fact; another request's event of the same object
// is another. Before, a retried batch counted every change twice.
func TestStoreDeduplicatesAuditID(t *testing.T) {
	s := NewStore()
	s.Want("m", configMaps)
	reused := factBy("mallory")
	reused.AuditID = factBy("alice").AuditID // a client chose alice's Audit-ID
	got := []bool{s.Add(keyX(), factBy("alice")), s.Add(keyX(), factBy("alice")), s.Add(keyX(), factBy("bob")), s.Add(keyX(), reused)}
	if diff := cmp.Diff([]bool{true, false, true, true}, got); diff != "" {
		t.Errorf("Add(alice, alice again, bob, mallory under alice's ID): kept -want, +got:\n%s", diff)
	}
	if n := len(s.Since(keyX(), time.Time{})); n != 3 {
		t.Errorf("facts of x: want 3, got %d", n)
	}
}
