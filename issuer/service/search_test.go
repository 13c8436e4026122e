package service

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/remnant/passportkit/issuer"
)

// TestRankResults pins the order of SPEC.md §15.7: bands of a quarter of
// the best relevance, then status, then relevance.
func TestRankResults(t *testing.T) {
	at := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	res := func(id, status string, rel float64) rankedResult {
		return rankedResult{SearchResult: issuer.SearchResult{ID: issuer.MemoryID(id), Status: status, CreatedAt: at}, relevance: rel}
	}
	rs := []rankedResult{
		res("a-contested-top", "contested", 1.0),
		res("b-unverified", "unverified", 0.9),
		res("c-confirmed", "confirmed", 0.76), // band 0: within a quarter of the best
		res("d-confirmed", "confirmed", 0.75), // band 1: exactly three quarters
		res("e-stale", "stale", 0.8),          // band 0, with unverified
		res("f-unverified-low", "unverified", 0.1),
		res("g-confirmed-low", "confirmed", 0.05), // band 3 with f: confirmed first
	}
	rankResults(rs)
	var got []string
	for _, r := range rs {
		got = append(got, string(r.ID))
	}
	want := []string{"c-confirmed", "b-unverified", "e-stale", "a-contested-top", "d-confirmed", "g-confirmed-low", "f-unverified-low"}
	if !slices.Equal(got, want) {
		t.Fatalf("order\n%v\nwant\n%v", got, want)
	}
	if rs[0].band != 0 || rs[4].band != 1 || rs[6].band != 3 {
		t.Fatalf("bands %d %d %d", rs[0].band, rs[4].band, rs[6].band)
	}
}

func TestTrustCache(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	c := newTrustCache(2, time.Minute)
	for i := range 3 {
		c.put(fmt.Sprint(i), map[int64]float64{int64(i): 1}, now)
	}
	if c.len() != 2 {
		t.Fatalf("%d entries, bound 2", c.len())
	}
	if _, ok := c.get("0", now); ok {
		t.Fatal("the least recently used entry survived")
	}
	if _, ok := c.get("1", now.Add(59*time.Second)); !ok {
		t.Fatal("a fresh entry was missed")
	}
	c.put("3", nil, now) // evicts "2": "1" was used more recently
	if _, ok := c.get("2", now); ok {
		t.Fatal("LRU order not kept")
	}
	if _, ok := c.get("1", now.Add(time.Minute)); ok {
		t.Fatal("an entry outlived its TTL")
	}
	if _, ok := c.get("3", now.Add(-time.Second)); ok {
		t.Fatal("an entry from the future was used")
	}
}

// TestRankKnowledgeFirst pins the order of SPEC.md §15.11: within a band an
// entry comes first, whatever its status order against the others; a
// covered memory takes its shown entry's band when that band is worse.
func TestRankKnowledgeFirst(t *testing.T) {
	at := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	res := func(id, status string, rel float64, knowledge bool) rankedResult {
		return rankedResult{SearchResult: issuer.SearchResult{ID: issuer.MemoryID(id), Status: status, CreatedAt: at, Knowledge: knowledge},
			relevance: rel, cover: -1}
	}
	rs := []rankedResult{
		res("a-confirmed-top", "confirmed", 1.0, false),
		res("b-entry", "confirmed", 0.8, true),         // band 0: first of it
		res("c-covered", "confirmed", 0.9, false),      // covered by e: takes band 2
		res("d-entry-low", "confirmed", 0.3, true),     // band 2: not before band 0
		res("e-digest", "confirmed", 0.45, true),       // band 2
		res("f-unverified", "unverified", 0.46, false), // band 2
	}
	rs[2].cover = 4
	rankResults(rs)
	var got []string
	for _, r := range rs {
		got = append(got, string(r.ID))
	}
	want := []string{"b-entry", "a-confirmed-top", "e-digest", "d-entry-low", "c-covered", "f-unverified"}
	if !slices.Equal(got, want) {
		t.Fatalf("order\n%v\nwant\n%v", got, want)
	}
}
