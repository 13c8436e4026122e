// Package ratelimit keeps one token bucket per key (a client address, an
// agent), with a bounded memory of keys. The HTTP services use it to bound
// each client's request rate.
//
// # Bounded memory without resetting budgets
//
// A Limiter remembers at most Config.MaxKeys buckets. It forgets a bucket
// only once it has refilled to its burst: a fresh bucket for that key would
// be identical, so forgetting changes no one's budget. When every
// remembered bucket is still in use, a new key is refused (with the wait
// until the first bucket refills) rather than handed a fresh burst at
// someone else's expense. No key is ever allowed more than Burst plus
// Rate times the time since its first request.
//
// Keys are spread over shards by a seeded hash, each with its own lock and
// its own share of MaxKeys, so eviction scans one small shard and never
// sorts or locks all keys.
package ratelimit

import (
	"hash/maphash"
	"sync"
	"time"

	"golang.org/x/time/rate"
)

// DefaultMaxKeys bounds the keys a Limiter remembers when Config.MaxKeys is
// zero.
const DefaultMaxKeys = 10_000

// Sharding: about keysPerShard keys a shard, at most maxShards shards.
const (
	keysPerShard = 256
	maxShards    = 64
)

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
	limit  rate.Limit
	burst  int
	now    func() time.Time
	seed   maphash.Seed
	shards []shard
}

// shard is one lock's share of the keys.
type shard struct {
	mu      sync.Mutex
	max     int
	buckets map[string]*rate.Limiter
	// full is when the shard was last found full with nothing to forget,
	// and refill when its first bucket will have refilled: until then a
	// new key is refused without another scan.
	full   bool
	refill time.Time
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
	n := min(maxShards, max(1, cfg.MaxKeys/keysPerShard))
	l := &Limiter{limit: rate.Limit(cfg.Rate), burst: cfg.Burst, now: cfg.Now, seed: maphash.MakeSeed(), shards: make([]shard, n)}
	for i := range l.shards {
		// The shares add up to MaxKeys exactly.
		l.shards[i].max = cfg.MaxKeys / n
		if i < cfg.MaxKeys%n {
			l.shards[i].max++
		}
		l.shards[i].buckets = map[string]*rate.Limiter{}
	}
	return l
}

// Allow takes a token for key. When none is left, or when the key is new
// and every remembered key is still in use, it reports how long to wait.
func (l *Limiter) Allow(key string) (ok bool, wait time.Duration) {
	now := l.now()
	s := &l.shards[maphash.String(l.seed, key)%uint64(len(l.shards))]
	s.mu.Lock()
	defer s.mu.Unlock()
	b, found := s.buckets[key]
	if !found {
		if len(s.buckets) >= s.max && !l.forget(s, now) {
			return false, max(s.refill.Sub(now), time.Millisecond)
		}
		b = rate.NewLimiter(l.limit, l.burst)
		s.buckets[key] = b
	}
	r := b.ReserveN(now, 1)
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
	n := 0
	for i := range l.shards {
		s := &l.shards[i]
		s.mu.Lock()
		n += len(s.buckets)
		s.mu.Unlock()
	}
	return n
}

// forget drops the shard's buckets that have refilled to their burst,
// which changes nothing, and reports whether any room was made. When none
// was, it records when the first bucket will have refilled, and until then
// answers at once. The caller holds s.mu.
func (l *Limiter) forget(s *shard, now time.Time) bool {
	if s.full && now.Before(s.refill) {
		return false
	}
	burst := float64(l.burst)
	var soonest time.Duration = -1
	for k, b := range s.buckets {
		missing := burst - b.TokensAt(now)
		if missing <= 0 {
			delete(s.buckets, k)
			continue
		}
		if soonest != 0 {
			d := time.Second // a bucket with no rate never refills
			if l.limit > 0 {
				d = time.Duration(missing / float64(l.limit) * float64(time.Second))
			}
			if soonest < 0 || d < soonest {
				soonest = max(d, 1)
			}
		}
	}
	if len(s.buckets) < s.max {
		s.full = false
		return true
	}
	s.full, s.refill = true, now.Add(soonest)
	return false
}
