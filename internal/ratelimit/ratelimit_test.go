package ratelimit

import (
	"fmt"
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
