package service

import (
	"fmt"
	"testing"

	"github.com/remnant/passportkit/issuer"
)

// TestCacheBounds: the cache holds at most CacheSubjects subjects and
// CacheContexts entries each, dropping the least recently used; a new
// revision or hour of a subject drops its older entries; invalidation
// drops one subject only.
func TestCacheBounds(t *testing.T) {
	c := newCache()
	id := func(i int) issuer.AgentID { return issuer.AgentID(fmt.Sprintf("agt_%026d", i)) }
	key := func(ctx int) cacheKey { return cacheKey{revision: "r1", context: fmt.Sprint(ctx), hour: 7} }

	for i := range CacheSubjects + 20 {
		c.put(id(i), key(0), i)
		if i == CacheSubjects-1 {
			c.get(id(0), key(0)) // subject 0 is used again: it stays
		}
	}
	if s, _ := c.len(); s != CacheSubjects {
		t.Fatalf("%d subjects cached; want %d", s, CacheSubjects)
	}
	if _, ok := c.get(id(0), key(0)); !ok {
		t.Error("a recently used subject was evicted")
	}
	if _, ok := c.get(id(1), key(0)); ok {
		t.Error("the least recently used subject was kept")
	}

	for ctx := range CacheContexts + 30 {
		c.put(id(500), key(ctx), ctx)
	}
	if _, ok := c.get(id(500), key(0)); ok {
		t.Error("the least recently used context was kept")
	}
	if v, ok := c.get(id(500), key(CacheContexts+29)); !ok || v != CacheContexts+29 {
		t.Error("the newest context was not kept")
	}
	before, entries := c.len()
	if entries > CacheSubjects*CacheContexts {
		t.Fatalf("%d entries", entries)
	}

	// A new revision makes the old entries unreachable and drops them.
	c.put(id(500), cacheKey{revision: "r2", context: "0", hour: 7}, "new")
	if _, ok := c.get(id(500), key(CacheContexts+29)); ok {
		t.Error("an entry of an older revision is still served")
	}
	if _, n := c.len(); n != entries-CacheContexts+1 {
		t.Errorf("%d entries after a new revision; want %d", n, entries-CacheContexts+1)
	}
	// So does a new hour.
	c.put(id(500), cacheKey{revision: "r2", context: "0", hour: 8}, "later")
	if _, ok := c.get(id(500), cacheKey{revision: "r2", context: "0", hour: 7}); ok {
		t.Error("an entry of an earlier hour is still served")
	}

	// add keeps the first of concurrent misses.
	if got := c.add(id(600), key(1), "first"); got != "first" {
		t.Fatal(got)
	}
	if got := c.add(id(600), key(1), "second"); got != "first" {
		t.Errorf("add replaced an entry: %v", got)
	}

	c.invalidate(id(500))
	if _, ok := c.get(id(500), cacheKey{revision: "r2", context: "0", hour: 8}); ok {
		t.Error("an invalidated subject is still served")
	}
	if _, ok := c.get(id(0), key(0)); !ok {
		t.Error("invalidating one subject dropped another")
	}
	if after, _ := c.len(); after != before-1 {
		t.Errorf("%d subjects after adding one to %d (evicting one) and invalidating one", after, before)
	}
	c.clear()
	if s, n := c.len(); s != 0 || n != 0 {
		t.Errorf("%d subjects, %d entries after clear", s, n)
	}
}
