// Package ratelimit keeps one token bucket per key (a client address, an
// agent), with a bounded memory of keys. The HTTP services use it to bound
// each client's request rate.
package ratelimit

import (
	"slices"
	"sync"
	"time"

	"golang.org/x/time/rate"
)

// DefaultMaxKeys bounds the keys a Limiter remembers when Config.MaxKeys is
// zero.
const DefaultMaxKeys = 10_000

// Config sets a Limiter's rate. Zero fields take the defaults shown.
type Config struct {
	// Rate is the sustained number of events a second per key.
	Rate float64
	// Burst is how many events a key may save up (default: twice Rate,
	// at least 1).
	Burst int
	// MaxKeys bounds the keys remembered (default DefaultMaxKeys).
	MaxKeys int
	// Now is the clock (default time.Now).
	Now func() time.Time
}

// Limiter holds a token bucket per key. It is safe for concurrent use.
type Limiter struct {
	mu      sync.Mutex
	limit   rate.Limit
	burst   int
	max     int
	now     func() time.Time
	buckets map[string]*bucket
}

type bucket struct {
	lim  *rate.Limiter
	seen time.Time
}

// New returns a Limiter for cfg.
func New(cfg Config) *Limiter {
	if cfg.Burst <= 0 {
		cfg.Burst = max(1, int(2*cfg.Rate))
	}
	if cfg.MaxKeys <= 0 {
		cfg.MaxKeys = DefaultMaxKeys
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	return &Limiter{limit: rate.Limit(cfg.Rate), burst: cfg.Burst, max: cfg.MaxKeys, now: cfg.Now, buckets: map[string]*bucket{}}
}

// Allow takes a token for key. When none is left it reports how long until
// one will be.
func (l *Limiter) Allow(key string) (ok bool, wait time.Duration) {
	now := l.now()
	l.mu.Lock()
	defer l.mu.Unlock()
	b, found := l.buckets[key]
	if !found {
		if len(l.buckets) >= l.max {
			l.forget(now)
		}
		b = &bucket{lim: rate.NewLimiter(l.limit, l.burst)}
		l.buckets[key] = b
	}
	b.seen = now
	r := b.lim.ReserveN(now, 1)
	if !r.OK() {
		return false, time.Second
	}
	if d := r.DelayFrom(now); d > 0 {
		r.CancelAt(now)
		return false, d
	}
	return true, 0
}

// Len returns the number of keys remembered.
func (l *Limiter) Len() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.buckets)
}

// forget drops the buckets that have refilled, which changes nothing, and
// then, if that is not enough, the least recently seen tenth.
func (l *Limiter) forget(now time.Time) {
	for k, b := range l.buckets {
		if b.lim.TokensAt(now) >= float64(l.burst) {
			delete(l.buckets, k)
		}
	}
	if len(l.buckets) < l.max {
		return
	}
	type entry struct {
		key  string
		seen time.Time
	}
	all := make([]entry, 0, len(l.buckets))
	for k, b := range l.buckets {
		all = append(all, entry{k, b.seen})
	}
	slices.SortFunc(all, func(a, b entry) int { return a.seen.Compare(b.seen) })
	for _, e := range all[:len(all)/10+1] {
		delete(l.buckets, e.key)
	}
}
