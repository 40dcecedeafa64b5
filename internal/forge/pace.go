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

package forge

import (
	"sync"
	"time"

	"k8s.io/utils/clock"
)

// A Rate is how many content-creating requests (a create, a comment, a
// review request, a label set) a forge accepts per minute, and how many at
// once; PerHour, when not 0, how many in any hour.
type Rate struct {
	PerMinute float64
	Burst     float64
	PerHour   float64
}

// RateOf returns the pace at which pull requests are created on t, in
// content-creating requests (a create that makes more spends more:
// Pacer.TakeN). GitHub documents 80 content-creating requests per minute
// (and 500 per hour) before its secondary limit answers 403: a burst of 20
// and 60 a minute are at most 80 in any minute, and the last hour's are
// counted against its 500. The others document
// none this low, so they are paced only to stay polite. Gitea and Forgejo open
// pull requests one at a time (on SQLite, their default, each holds the
// database): a burst of 50 queued there past the reconcile's minute on a
// loaded server, and every create that timed out was sent again, so their
// burst is 10 and the rest wait here, requeued, not in their queue.
func RateOf(t Type) Rate {
	switch t {
	case GitHub:
		return Rate{PerMinute: 60, Burst: 20, PerHour: 500}
	case Gitea, Forgejo:
		return Rate{PerMinute: 300, Burst: 10}
	case GitLab:
		return Rate{PerMinute: 300, Burst: 50}
	case BitbucketCloud:
		// 1,000 API requests an hour per token (the least a workspace
		// has), of which a create spends about three (the look for an
		// open one, the create, the read after): 5 a minute is 900.
		return Rate{PerMinute: 5, Burst: 10}
	case AzureDevOps:
		// Azure documents no count of requests: each identity has 200
		// throughput units (TSTUs) in a sliding five minutes, and a
		// request costs what it costs the service. Its X-RateLimit-*
		// headers and Retry-After hold the account when it nears them.
		return Rate{PerMinute: 60, Burst: 10}
	case BitbucketDataCenter:
		// Data Center's limiter, when an admin turns it on, refills 5
		// requests a second after a burst of 60 by default.
		return Rate{PerMinute: 60, Burst: 20}
	}
	return Rate{PerMinute: 60, Burst: 10}
}

// A Pacer spaces content-creating requests to each forge account (a key:
// the API URL and the credentials) and holds every request to an account
// the forge asked to wait (Retry-After, X-RateLimit-Reset). It never
// blocks: a caller told to wait requeues itself for the time it is given,
// so a burst of creates is a queue ordered by those times, not a pile of
// blocked workers.
type Pacer struct {
	clock clock.PassiveClock

	mu      sync.Mutex
	buckets map[string]*bucket
}

type bucket struct {
	rate   Rate
	tokens float64
	last   time.Time
	hold   time.Time
	// hour holds the takes of the last hour, oldest first, where the
	// rate has a PerHour: at most PerHour entries.
	hour []take
}

// take is n requests spent at a time.
type take struct {
	at time.Time
	n  float64
}

// NewPacer returns a Pacer reading time from c.
func NewPacer(c clock.PassiveClock) *Pacer {
	return &Pacer{clock: c, buckets: map[string]*bucket{}}
}

func (p *Pacer) bucket(key string, r Rate, now time.Time) *bucket {
	b, ok := p.buckets[key]
	if !ok {
		b = &bucket{rate: r, tokens: r.Burst, last: now}
		p.buckets[key] = b
	}
	if el := now.Sub(b.last); el > 0 {
		b.tokens = min(b.rate.Burst, b.tokens+el.Minutes()*b.rate.PerMinute)
		b.last = now
	}
	return b
}

// Take spends one content-creating request of key at rate r. It returns
// true when the request may go now, else the time to try again.
func (p *Pacer) Take(key string, r Rate) (bool, time.Time) {
	return p.TakeN(key, r, 1)
}

// TakeN spends n content-creating requests of key at rate r at once: a
// create that the forge follows with more (GitHub's labels and review
// requests, each counted by its secondary limit) spends them all before
// the first goes, so the pace holds for requests, not for creates. n is
// at least 1 and at most the burst (a create costlier than the burst
// would never go).
func (p *Pacer) TakeN(key string, r Rate, n int) (bool, time.Time) {
	now := p.clock.Now()
	p.mu.Lock()
	defer p.mu.Unlock()
	b := p.bucket(key, r, now)
	if now.Before(b.hold) {
		return false, b.hold
	}
	cost := min(max(float64(n), 1), max(b.rate.Burst, 1))
	if b.rate.PerHour > 0 {
		cost = min(cost, b.rate.PerHour)
		if at, ok := b.hourFree(now, cost); !ok {
			return false, at
		}
	}
	if b.tokens >= cost {
		b.tokens -= cost
		if b.rate.PerHour > 0 {
			b.hour = append(b.hour, take{at: now, n: cost})
		}
		return true, time.Time{}
	}
	wait := time.Duration((cost - b.tokens) / b.rate.PerMinute * float64(time.Minute))
	return false, now.Add(wait)
}

// hourFree reports whether cost more requests keep the last hour within
// PerHour, else when enough of the oldest leave it. It drops the takes
// older than an hour.
func (b *bucket) hourFree(now time.Time, cost float64) (time.Time, bool) {
	i := 0
	for i < len(b.hour) && !now.Before(b.hour[i].at.Add(time.Hour)) {
		i++
	}
	b.hour = b.hour[i:]
	used := 0.0
	for _, t := range b.hour {
		used += t.n
	}
	over := used + cost - b.rate.PerHour
	for _, t := range b.hour {
		if over <= 0 {
			break
		}
		over -= t.n
		if over <= 0 {
			return t.at.Add(time.Hour), false
		}
	}
	return time.Time{}, true
}

// Held returns when the forge lets key make requests again, if it asked
// to wait: every request, not only creates, waits for it.
func (p *Pacer) Held(key string) (time.Time, bool) {
	now := p.clock.Now()
	p.mu.Lock()
	defer p.mu.Unlock()
	b, ok := p.buckets[key]
	if !ok || !now.Before(b.hold) {
		return time.Time{}, false
	}
	return b.hold, true
}

// Hold makes every request of key wait until t, as the forge asked.
func (p *Pacer) Hold(key string, r Rate, t time.Time) {
	now := p.clock.Now()
	p.mu.Lock()
	defer p.mu.Unlock()
	b := p.bucket(key, r, now)
	if t.After(b.hold) {
		b.hold = t
	}
}
