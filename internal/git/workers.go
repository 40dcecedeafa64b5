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

import "sync"

// workers counts the goroutines a Cache starts (shared fetches, branch
// writers, the idle sweeper) so that Close can wait for them. Unlike a
// sync.WaitGroup it may start one while another waits: a Submit racing
// Close starts a writer that finds the cache closing and fails its changes
// without touching the clone, and wait returns once it has.
type workers struct {
	mu   sync.Mutex
	n    int
	none *sync.Cond
}

func (w *workers) init() { w.none = sync.NewCond(&w.mu) }

// start runs fn in a goroutine of its own, counted until it returns.
func (w *workers) start(fn func()) {
	w.mu.Lock()
	w.n++
	w.mu.Unlock()
	go func() {
		defer w.done()
		fn()
	}()
}

func (w *workers) done() {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.n--
	if w.n == 0 {
		w.none.Broadcast()
	}
}

// wait returns once no counted goroutine runs.
func (w *workers) wait() {
	w.mu.Lock()
	defer w.mu.Unlock()
	for w.n > 0 {
		w.none.Wait()
	}
}
