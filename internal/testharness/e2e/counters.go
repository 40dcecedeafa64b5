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

package e2e

import (
	"fmt"
	"io"
	"maps"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
)

// CounterSum adds up every series of a counter family.
func CounterSum(t *testing.T, g prometheus.Gatherer, name string) float64 {
	t.Helper()
	mfs, err := g.Gather()
	if err != nil {
		t.Fatal(err)
	}
	var sum float64
	for _, mf := range mfs {
		if mf.GetName() != name {
			continue
		}
		for _, m := range mf.GetMetric() {
			sum += counterValue(m)
		}
	}
	return sum
}

func counterValue(m *dto.Metric) float64 {
	if c := m.GetCounter(); c != nil {
		return c.GetValue()
	}
	return 0
}

// WriteCounter counts the provider's API writes per namespace, as
// "VERB resource[/subresource]" (PUT files, PATCH files/status, POST events).
type WriteCounter struct {
	next http.RoundTripper
	// keep names the writes whose bodies are kept (KeepBodies).
	keep   string
	mu     sync.Mutex
	n      map[string]map[string]int
	bodies map[string][]string
}

// KeepBodies keeps the body of every write named what (as the counts name
// it, e.g. "PATCH mirrors/status"), by namespace, so that a test can show
// what a write it did not expect changed. Call it before the provider
// starts.
func (c *WriteCounter) KeepBodies(what string) { c.keep = what }

// Bodies returns the kept bodies of ns, oldest first.
func (c *WriteCounter) Bodies(ns string) []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Clone(c.bodies[ns])
}

// RoundTrip counts r when it writes, then sends it on. It counts before
// sending: a test that reads what the write did from the API server must
// find it counted already, or a write that ends one phase of a test is
// taken for one of the next (a phase's last status write counted after the
// test read that status). A write the API server refuses (a conflict) is
// then moved to a count of its own.
func (c *WriteCounter) RoundTrip(r *http.Request) (*http.Response, error) {
	ns, what, ok := writeOf(r.Method, r.URL.Path)
	if r.Method == http.MethodGet || !ok {
		return c.next.RoundTrip(r)
	}
	body := c.bodyOf(r)
	c.mu.Lock()
	if body != "" {
		c.bodies[ns] = append(c.bodies[ns], body)
	}
	if c.n[ns] == nil {
		c.n[ns] = map[string]int{}
	}
	c.n[ns][what]++
	c.mu.Unlock()
	resp, err := c.next.RoundTrip(r)
	if resp != nil && resp.StatusCode >= http.StatusBadRequest {
		c.mu.Lock()
		c.n[ns][what]--
		c.n[ns][what+" ("+http.StatusText(resp.StatusCode)+")"]++
		c.mu.Unlock()
	}
	return resp, err
}

// bodyOf is r's body when r is a write KeepBodies names, else "".
func (c *WriteCounter) bodyOf(r *http.Request) string {
	if c.keep == "" || r.GetBody == nil {
		return ""
	}
	if _, what, ok := writeOf(r.Method, r.URL.Path); !ok || what != c.keep {
		return ""
	}
	b, err := r.GetBody()
	if err != nil {
		return ""
	}
	defer func() { _ = b.Close() }()
	data, _ := io.ReadAll(io.LimitReader(b, 64<<10))
	return string(data)
}

// NewWriteCounter counts nothing yet.
func NewWriteCounter() *WriteCounter {
	return &WriteCounter{n: map[string]map[string]int{}, bodies: map[string][]string{}}
}

// Through has the provider's API requests pass through c.
func (c *WriteCounter) Through() ProviderOption {
	return WithTransport(func(rt http.RoundTripper) http.RoundTripper {
		c.next = rt
		return c
	})
}

// writeOf reads a namespaced request path:
// /api/v1/namespaces/NS/RESOURCE[/NAME[/SUB]] or
// /apis/GROUP/VERSION/namespaces/NS/RESOURCE[/NAME[/SUB]].
func writeOf(verb, path string) (ns, what string, ok bool) {
	_, rest, found := strings.Cut(path, "/namespaces/")
	if !found {
		return "", "", false
	}
	parts := strings.Split(rest, "/")
	if len(parts) < 2 {
		return "", "", false
	}
	what = verb + " " + parts[1]
	if len(parts) > 3 {
		what += "/" + parts[3]
	}
	return parts[0], what, true
}

// Of returns a copy of the counts of ns.
func (c *WriteCounter) Of(ns string) map[string]int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return maps.Clone(c.n[ns])
}

// Total adds up the counts of m.
func Total(m map[string]int) int {
	n := 0
	for _, v := range m {
		n += v
	}
	return n
}

// Show prints m on one line, keys sorted.
func Show(m map[string]int) string {
	var b strings.Builder
	for _, k := range slices.Sorted(maps.Keys(m)) {
		fmt.Fprintf(&b, "| %s | %d |\n", k, m[k])
	}
	return b.String()
}

// Minus returns after - before, per key, leaving out zeroes.
func Minus(after, before map[string]int) map[string]int {
	d := map[string]int{}
	for k, v := range after {
		if v-before[k] != 0 {
			d[k] = v - before[k]
		}
	}
	return d
}

// StatusCounter counts the provider's writes to status subresources; Next
// is the transport it wraps (set it in a WithTransport option).
type StatusCounter struct {
	Next http.RoundTripper
	mu   sync.Mutex
	// writes are the writes, oldest first: method, path and the start of
	// the body, so that a test can show what a write it did not expect
	// changed.
	writes []string
}

// statusBodyShown is how much of a status write's body Since shows.
const statusBodyShown = 2 << 10

// RoundTrip counts r when it writes a status, then sends it on.
func (c *StatusCounter) RoundTrip(r *http.Request) (*http.Response, error) {
	if r.Method != http.MethodGet && strings.HasSuffix(r.URL.Path, "/status") {
		w := r.Method + " " + r.URL.Path
		if r.GetBody != nil {
			if b, err := r.GetBody(); err == nil {
				data, _ := io.ReadAll(io.LimitReader(b, statusBodyShown))
				_ = b.Close()
				w += " " + string(data)
			}
		}
		c.mu.Lock()
		c.writes = append(c.writes, w)
		c.mu.Unlock()
	}
	return c.Next.RoundTrip(r)
}

// Writes is how many status writes c has counted.
func (c *StatusCounter) Writes() int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return int64(len(c.writes))
}

// Since names the writes after the first n (a Writes value read earlier),
// with what each wrote, so that a test can say which object wrote a status
// it did not expect and why.
func (c *StatusCounter) Since(n int64) []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	if int(n) >= len(c.writes) {
		return nil
	}
	return slices.Clone(c.writes[n:])
}
