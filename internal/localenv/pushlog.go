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

package localenv

import (
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"
)

// Push is one receive-pack POST a Git HTTP server answered: which
// repository, who sent it (the User-Agent, which carries a replica's name
// when the provider runs with one), and when it began and ended. Replicas
// sharing repositories are checked with these: every repository pushed by
// one process at a time.
type Push struct {
	// Repo is the repository's path below the server's root, e.g. "a.git".
	Repo      string
	UserAgent string
	Start     time.Time
	End       time.Time
	// Status is the HTTP status answered.
	Status int
}

// pushLog keeps Pushes in the order they ended.
type pushLog struct {
	mu   sync.Mutex
	list []Push
}

func (l *pushLog) add(p Push) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.list = append(l.list, p)
}

func (l *pushLog) all() []Push {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.list)
}

// Pushes returns every receive-pack POST answered so far.
func (s *HTTPServer) Pushes() []Push { return s.pushes.all() }

// isReceivePack tells a push's POST (the half that sends the pack).
func isReceivePack(r *http.Request) bool {
	return r.Method == http.MethodPost && strings.HasSuffix(r.URL.Path, "/git-receive-pack")
}

// statusWriter remembers the status a handler answered.
type statusWriter struct {
	http.ResponseWriter
	code int
}

func (w *statusWriter) WriteHeader(code int) {
	if w.code == 0 {
		w.code = code
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *statusWriter) Write(b []byte) (int, error) {
	if w.code == 0 {
		w.code = http.StatusOK
	}
	return w.ResponseWriter.Write(b)
}

func (w *statusWriter) status() int {
	if w.code == 0 {
		return http.StatusOK
	}
	return w.code
}

// Overlaps returns the pairs of pushes to one repository by two different
// User-Agents whose times overlap: two replicas writing one repository at
// once, which sharing by repository must never let happen.
func Overlaps(pushes []Push) [][2]Push {
	by := map[string][]Push{}
	for _, p := range pushes {
		by[p.Repo] = append(by[p.Repo], p)
	}
	var out [][2]Push
	for _, ps := range by {
		slices.SortFunc(ps, func(a, b Push) int { return a.Start.Compare(b.Start) })
		for i := range ps {
			for j := i + 1; j < len(ps) && ps[j].Start.Before(ps[i].End); j++ {
				if ps[j].UserAgent != ps[i].UserAgent {
					out = append(out, [2]Push{ps[i], ps[j]})
				}
			}
		}
	}
	return out
}
