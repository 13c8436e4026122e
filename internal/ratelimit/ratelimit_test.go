package ratelimit

import (
	"fmt"
	"math/rand/v2"
	"sync"
	"testing"
	"time"
)

type clock struct{ t time.Time }

func (c *clock) now() time.Time { return c.t }

func TestAllow(t *testing.T) {
	c := &clock{t: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
	l := New(Config{Rate: 2, Burst: 3, Now: c.now})
	for i := range 3 {
		if ok, _ := l.Allow("a"); !ok {
			t.Fatalf("request %d of the burst refused", i)
		}
	}
	ok, wait := l.Allow("a")
	if ok || wait <= 0 || wait > time.Second {
		t.Fatalf("after the burst: ok %v wait %v; want a refusal with a wait of at most 1s", ok, wait)
	}
	if ok, _ := l.Allow("b"); !ok {
		t.Fatal("another key shares the first key's bucket")
	}
	c.t = c.t.Add(wait)
	if ok, _ := l.Allow("a"); !ok {
		t.Fatal("refused after waiting as told")
	}
	if ok, _ := l.Allow("a"); ok {
		t.Fatal("a refused request must not have spent a token")
	}
}

func TestBoundedKeys(t *testing.T) {
	c := &clock{t: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
	l := New(Config{Rate: 1, MaxKeys: 100, Now: c.now})
	for i := range 1000 {
		l.Allow(fmt.Sprint("client-", i))
		c.t = c.t.Add(time.Millisecond)
	}
	if n := l.Len(); n > 100 {
		t.Fatalf("%d keys remembered; the bound is 100", n)
	}
}

// No key is ever allowed more than Burst plus Rate times the time since its
// first request, however many keys compete for the bounded memory: an
// evicted key never comes back with a fresh burst it had not earned.
func TestNoKeyExceedsItsBudget(t *testing.T) {
	c := &clock{t: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
	const (
		rateps = 5.0
		burst  = 10
	)
	l := New(Config{Rate: rateps, Burst: burst, MaxKeys: 1000, Now: c.now})
	rng := rand.New(rand.NewPCG(1, 2))
	first := map[string]time.Time{}
	allowed := map[string]int{}
	for i := range 200_000 {
		// Hot keys hammer in turn, each for 2,000 requests, then rest
		// while the others do: long enough to be the least recently seen,
		// too short to refill. Many cold keys come and go meanwhile and
		// keep the table full.
		var key string
		if rng.IntN(4) == 0 {
			key = fmt.Sprint("hot-", i/2000%20)
		} else {
			key = fmt.Sprint("cold-", rng.IntN(50_000))
		}
		if _, ok := first[key]; !ok {
			first[key] = c.t
		}
		ok, wait := l.Allow(key)
		if ok {
			allowed[key]++
		} else if wait <= 0 {
			t.Fatalf("request %d: refused with wait %v", i, wait)
		}
		if budget := float64(burst) + rateps*c.t.Sub(first[key]).Seconds(); float64(allowed[key]) > budget+1e-9 {
			t.Fatalf("request %d: key %s allowed %d, budget %.3f", i, key, allowed[key], budget)
		}
		if n := l.Len(); n > 1000 {
			t.Fatalf("%d keys remembered; the bound is 1000", n)
		}
		c.t = c.t.Add(time.Duration(rng.IntN(40)) * time.Microsecond)
	}
	for k, n := range allowed {
		if n == 0 && k[:3] == "hot" {
			t.Errorf("hot key %s never served", k)
		}
	}
}

// When every remembered key is still in use, a new key is refused, with
// the wait until the first bucket refills, and is admitted after it.
func TestFullTableRefusesNewKeys(t *testing.T) {
	c := &clock{t: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
	l := New(Config{Rate: 1, Burst: 2, MaxKeys: 3, Now: c.now})
	for _, k := range []string{"a", "b", "c"} {
		if ok, _ := l.Allow(k); !ok {
			t.Fatalf("%s refused", k)
		}
	}
	ok, wait := l.Allow("d")
	if ok || wait != time.Second {
		t.Fatalf("a fourth key: ok %v wait %v; want a refusal for 1s", ok, wait)
	}
	// The remembered keys keep their budgets: one token left each.
	if ok, _ := l.Allow("a"); !ok {
		t.Fatal("a lost its remaining token")
	}
	if ok, _ := l.Allow("a"); ok {
		t.Fatal("a was given a fresh burst")
	}
	c.t = c.t.Add(wait)
	if ok, _ := l.Allow("d"); !ok {
		t.Fatal("d refused after the wait")
	}
	// b and c had refilled and were forgotten to make room; a had not.
	if n := l.Len(); n != 2 {
		t.Fatalf("%d keys remembered, want 2 (a and d)", n)
	}
	if ok, _ := l.Allow("a"); !ok {
		t.Fatal("a lost the token it earned in the second")
	}
	if ok, _ := l.Allow("a"); ok {
		t.Fatal("a was given a fresh burst")
	}
}

// Many goroutines over many keys: run with -race.
func TestConcurrentKeys(t *testing.T) {
	l := New(Config{Rate: 1000, MaxKeys: 500})
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for i := range 5000 {
				l.Allow(fmt.Sprint(g, "-", i%700))
			}
		})
	}
	wg.Wait()
	if n := l.Len(); n > 500 {
		t.Fatalf("%d keys remembered; the bound is 500", n)
	}
}

// BenchmarkAllowManyKeys measures Allow for a stream of 50,000 keys that
// overflows the 10,000 remembered, none of which ever refills, against
// Allow on a limiter with one key, alternating the two in the same loop,
// and reports the ratio.
func BenchmarkAllowManyKeys(b *testing.B) {
	keys := make([]string, 50_000)
	for i := range keys {
		keys[i] = fmt.Sprint("client-", i)
	}
	one := New(Config{Rate: 1e-3, Burst: 1000})
	many := New(Config{Rate: 1e-3, Burst: 1000})
	var tOne, tMany time.Duration
	i := 0
	b.ReportAllocs()
	for b.Loop() {
		t0 := time.Now()
		one.Allow(keys[0])
		t1 := time.Now()
		many.Allow(keys[i%len(keys)])
		tMany += time.Since(t1)
		tOne += t1.Sub(t0)
		i += 7919
	}
	b.ReportMetric(float64(tOne.Nanoseconds())/float64(b.N), "ns/allow-one-key")
	b.ReportMetric(float64(tMany.Nanoseconds())/float64(b.N), "ns/allow-many-keys")
	b.ReportMetric(float64(tMany)/float64(tOne), "ratio")
}
