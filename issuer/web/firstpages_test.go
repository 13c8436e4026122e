package web

import (
	"testing"

	"github.com/remnant/passportkit/issuer"
)

// TestFirstPagesKeepTheRecent: the pages of at most max passports are
// kept, the least recently shown dropped first, each under the passport it
// names.
func TestFirstPagesKeepTheRecent(t *testing.T) {
	c := newFirstPages(2)
	page := func(h string, n int) issuer.EvidencePage { return issuer.EvidencePage{PassportHash: h, SourceCount: n} }
	c.put("sql", page("a", 1))
	c.put("go", page("a", 2))
	c.put("sql", page("b", 3))
	if ev, ok := c.get("a", "go"); !ok || ev.SourceCount != 2 {
		t.Fatalf("a's page of go: %v %v", ev, ok)
	}
	c.put("sql", page("c", 4)) // drops b, the least recently shown
	for _, k := range []struct {
		hash, skill string
		want        int
	}{{"a", "sql", 1}, {"a", "go", 2}, {"b", "sql", 0}, {"c", "sql", 4}, {"c", "go", 0}} {
		ev, ok := c.get(k.hash, k.skill)
		if ok != (k.want != 0) || ev.SourceCount != k.want {
			t.Errorf("%s's page of %s: %v %v", k.hash, k.skill, ev, ok)
		}
	}
	if len(c.pages) != 2 || len(c.order) != 2 {
		t.Errorf("%d passports kept, order %v", len(c.pages), c.order)
	}
}
