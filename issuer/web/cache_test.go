package web

import (
	"testing"

	"github.com/remnant/passportkit/issuer/issuing"
)

// TestExplainCacheKeepsTheRecent: the cache holds at most its size, and
// drops the least recently shown passport first.
func TestExplainCacheKeepsTheRecent(t *testing.T) {
	c := newExplainCache(2)
	is := func(h string) *issuing.Issued {
		return &issuing.Issued{PassportHash: h, EvidenceFile: []byte(`{"evidence":[]}`)}
	}
	a := c.get(is("a"))
	c.get(is("b"))
	if c.get(is("a")) != a {
		t.Fatal("a cached explanation was computed again")
	}
	c.get(is("c")) // drops b, the least recently shown
	if len(c.items) != 2 || c.items["b"] != nil || c.items["a"] != a || c.items["c"] == nil {
		t.Fatalf("cache holds %v, order %v", c.items, c.order)
	}
}
