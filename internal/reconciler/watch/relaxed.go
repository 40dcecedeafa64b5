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

package watch

import "time"

// Heard records that a verified forge event reached the clone id through
// the hook of a configuration that opens it: its forge delivers events, so
// its polls may relax.
func (w *Watcher) Heard(id string) {
	if id == "" || w.relaxed <= 0 {
		return
	}
	now := w.clock.Now()
	w.mu.Lock()
	defer w.mu.Unlock()
	for k, at := range w.heard {
		// Only configurations' clones are heard of; those whose events
		// stopped are dropped, so the map holds the live ones.
		if now.Sub(at) >= w.relaxed {
			delete(w.heard, k)
		}
	}
	w.heard[id] = now
}

// PollInterval is how often the clone id is polled now: the relaxed
// interval while its forge events arrive, the regular one otherwise.
func (w *Watcher) PollInterval(id string) time.Duration {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.relaxedLocked(id) {
		return w.relaxed
	}
	return w.interval
}

// relaxedLocked reports whether a verified event reached the clone id less
// than the relaxed interval ago.
func (w *Watcher) relaxedLocked(id string) bool {
	at, ok := w.heard[id]
	return ok && w.relaxed > w.interval && w.clock.Since(at) < w.relaxed
}

// skips reports whether the tick of clone id's loop, whose last poll was
// at last, polls nothing: its repository's events arrive and it was
// polled less than the relaxed interval ago. When events stop, the ticks
// poll again at once: the fallback needs nothing but time.
func (w *Watcher) skips(id string, last time.Time) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.relaxedLocked(id) && !last.IsZero() && w.clock.Since(last) < w.relaxed
}
