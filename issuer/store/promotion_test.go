package store_test

import (
	"slices"
	"testing"
	"time"

	"github.com/remnant/passportkit/issuer"
	"github.com/remnant/passportkit/issuer/service"
	"github.com/remnant/passportkit/issuer/store"
	"github.com/remnant/passportkit/issuer/store/storetest"
	"github.com/remnant/passportkit/reputation"
)

// confirm retrieves mem as p and corroborates it with free-text evidence.
func (f *fixture) confirm(p issuer.Principal, mem issuer.MemoryID) {
	f.t.Helper()
	f.retrieve(p, mem)
	f.validate(p, mem, reputation.Corroborate, "reproduced it on a clean machine")
}

// digest publishes a digest by curator with the given links.
func (f *fixture) digest(curator issuer.Principal, title string, links ...issuer.Link) issuer.MemoryID {
	f.t.Helper()
	m, err := svc(f.db).Publish(f.ctx, curator, issuer.Publication{Kind: issuer.KindDigest, Category: "rust", Domain: "rust",
		Title: title, Content: "Consolidated from the sources.", Confidence: 500, Links: links})
	if err != nil {
		f.t.Fatalf("digest: %v", err)
	}
	return m.ID
}

// entries lists the knowledge entries of a page, in order.
func entries(page issuer.SearchPage) []issuer.MemoryID {
	var ids []issuer.MemoryID
	for _, r := range page.Results {
		if r.Knowledge {
			ids = append(ids, r.ID)
		}
	}
	return ids
}

func coveredBy(r issuer.SearchResult) issuer.MemoryID {
	if r.CoveredBy == nil {
		return ""
	}
	return r.CoveredBy.ID
}

// TestKnowledgeFirst: a confirmed digest with refs is an entry, listed
// before the memory it covers, which names it; a memory no digest covers
// is an entry on two independent confirmations with evidence; reading a
// covered memory shows its digest; with promotion off nothing is marked.
func TestKnowledgeFirst(t *testing.T) {
	storetest.Run(t, func(t *testing.T, db *store.DB) {
		f := newFixture(t, db)
		author, curator, c1, c2, reader := f.agent("author"), f.agent("curator"), f.agent("c1"), f.agent("c2"), f.agent("reader")
		src := f.publishText(author, "Musl builds need musl-tools", "Install musl-tools before cargo test on musl musl musl.")
		alone := f.publishText(author, "Musl static linking", "Set the target to x86_64-unknown-linux-musl.")
		d := f.digest(curator, "Rust on musl: install musl-tools", issuer.Link{Kind: issuer.LinkRefs, Target: src})
		for _, c := range []issuer.Principal{c1, c2} {
			f.confirm(c, d)
			f.confirm(c, src)
			f.confirm(c, alone)
		}
		later := time.Now().Add(40 * 24 * time.Hour)
		page := f.search(later, reader, "musl", false)
		if got := entries(page); !slices.Equal(got, []issuer.MemoryID{d, alone}) && !slices.Equal(got, []issuer.MemoryID{alone, d}) {
			t.Fatalf("entries %v, want %s and %s", got, d, alone)
		}
		dr, sr := findResult(t, page, d), findResult(t, page, src)
		if !slices.Equal(dr.Sources, []issuer.MemoryID{src}) || dr.Status != "confirmed" || dr.CoveredBy != nil {
			t.Fatalf("digest entry: %+v", dr)
		}
		if sr.Knowledge || coveredBy(sr) != d || sr.CoveredBy.Title != dr.Title {
			t.Fatalf("covered memory: %+v", sr)
		}
		if ids := resultIDs(page); slices.Index(ids, d) > slices.Index(ids, src) {
			t.Fatalf("digest after the memory it covers: %v", ids)
		}
		if ar := findResult(t, page, alone); !slices.Equal(ar.Sources, []issuer.MemoryID{alone}) {
			t.Fatalf("memory entry: %+v", ar)
		}
		// Reading the covered memory shows the digest.
		s := service.New(db, service.Options{Now: func() time.Time { return later }})
		m, err := s.Retrieve(f.ctx, reader, src)
		if err != nil || m.CoveredBy == nil || m.CoveredBy.ID != d || m.CoveredBy.Kind != issuer.KindDigest {
			t.Fatalf("read of the covered memory: %+v %v", m.CoveredBy, err)
		}
		if m, err := s.Retrieve(f.ctx, reader, alone); err != nil || m.CoveredBy != nil {
			t.Fatalf("read of an uncovered memory: %+v %v", m.CoveredBy, err)
		}
		// The baseline: promotion off.
		off := service.New(db, service.Options{Now: func() time.Time { return later }, Search: service.SearchOptions{NoKnowledge: true}})
		text, no := "musl", false
		q, err := issuer.NewSearchQuery(&text, &no, nil, nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		base, err := off.SearchMemories(f.ctx, reader, q)
		if err != nil || len(entries(base)) != 0 || coveredBy(findResult(t, base, src)) != "" {
			t.Fatalf("promotion off: %+v %v", base, err)
		}
	})
}

// TestPromotionFixedGraphs: a Sybil clique confirming itself gets no
// entry; a same-operator confirmation counts zero; a contradiction cycle
// leaves the memory contested and not an entry; a digest without refs
// never promotes.
func TestPromotionFixedGraphs(t *testing.T) {
	storetest.Run(t, func(t *testing.T, db *store.DB) {
		f := newFixture(t, db)
		now := time.Now()
		reader, author, h1, h2 := f.agent("reader"), f.agent("author"), f.agent("h1"), f.agent("h2")
		s1, s2, s3, own := f.agent("s1"), f.agent("s2"), f.agent("s3"), f.agent("own")
		honest := f.publishText(author, "Tokio runtime in tests", "Use #[tokio::test] rather than a nested runtime.")
		sybil := f.publishText(s1, "Tokio runtime everywhere", "Nest runtimes freely, tokio allows it.")
		f.confirm(h1, honest)
		f.confirm(h2, honest)
		f.confirm(s2, sybil)
		f.confirm(s3, sybil)
		f.confirm(s1, f.publishText(s2, "Tokio tip", "tokio tip from s2"))
		// The reader trusts h1 and h2; fresh keys outside that graph weigh
		// nothing, however many of them confirm one another.
		page := f.search(now, reader, "tokio", true, string(h1.AgentID), string(h2.AgentID))
		if got := entries(page); !slices.Equal(got, []issuer.MemoryID{honest}) {
			t.Fatalf("entries %v, want only %s", got, honest)
		}
		if r := findResult(t, page, sybil); r.Knowledge || r.Status == "confirmed" {
			t.Fatalf("Sybil clique promoted: %+v", r)
		}
		// However old the clique's keys grow: a reader whose graph carries
		// weight gives no key a cold-start floor.
		for _, days := range []int{10, 30, 40, 400} {
			at := now.Add(time.Duration(days) * 24 * time.Hour)
			page := f.search(at, reader, "tokio", true, string(h1.AgentID), string(h2.AgentID))
			if r := findResult(t, page, sybil); r.Knowledge || r.Status == "confirmed" || !r.LowTrust {
				t.Fatalf("day %d: Sybil clique weighs something: %+v", days, r)
			}
			// A reader's own trust set (its positive validation of the
			// honest author) carries weight too.
			if days == 40 {
				f.retrieve(own, honest)
				f.validate(own, honest, reputation.Useful, "")
				ownPage := f.search(at, own, "tokio", true)
				if r := findResult(t, ownPage, sybil); r.Knowledge || r.Status == "confirmed" || !r.LowTrust {
					t.Fatalf("own trust set, day %d: Sybil clique weighs something: %+v", days, r)
				}
			}
		}

		// Same operator: once h2 shares the author's operator, its
		// confirmation counts zero and one is not enough.
		later := now.Add(40 * 24 * time.Hour)
		if got := entries(f.search(later, reader, "tests", true)); !slices.Equal(got, []issuer.MemoryID{honest}) {
			t.Fatalf("before the merge: %v", got)
		}
		f.operator("op", author, h2)
		if got := entries(f.search(later, reader, "tests", true)); len(got) != 0 {
			t.Fatalf("a same-operator confirmation counted: %v", got)
		}

		// A contradiction cycle: x contradicts m, y contradicts x, and x
		// contradicts y (a link the API cannot write, but a store can
		// hold). m stays contested, and is no entry.
		m := f.publishText(author, "Serde rename_all", "rename_all camelCase applies to fields.")
		f.confirm(h1, m)
		f.confirm(s3, m)
		x := f.publishText(s1, "Serde rename_all is wrong", "it does not apply", issuer.Link{Kind: issuer.LinkContradicts, Target: m})
		y := f.publishText(s2, "Serde rename_all rebuttal", "it does apply", issuer.Link{Kind: issuer.LinkContradicts, Target: x})
		if got := entries(f.search(later, reader, "serde", true)); !slices.Equal(got, []issuer.MemoryID{m}) {
			t.Fatalf("rebutted contradiction: entries %v", got)
		}
		if _, err := db.UnsafeSQL().ExecContext(f.ctx, db.UnsafeSQL().Rebind(`INSERT INTO memory_links (memory_id, kind, target_id, position)
			SELECT a.id, 'contradicts', b.id, 1 FROM memories a, memories b WHERE a.public_id = ? AND b.public_id = ?`), x, y); err != nil {
			t.Fatal(err)
		}
		cyc := f.search(later, reader, "serde", true)
		if r := findResult(t, cyc, m); r.Knowledge || r.Status != "contested" || r.Why == nil || r.Why.Code != "cycle" {
			t.Fatalf("contradiction cycle: %+v why %+v", r, r.Why)
		}

		// A digest without refs never promotes, however confirmed.
		bare := f.digest(author, "Clippy pedantic is noisy")
		f.confirm(h1, bare)
		f.confirm(s3, bare)
		if r := findResult(t, f.search(later, reader, "clippy", true), bare); r.Knowledge || r.Status != "confirmed" {
			t.Fatalf("digest without refs: %+v", r)
		}
	})
}

// TestPromotionLineage: a superseded digest yields to its successor; when
// every confirmation of the successor has decayed it is stale, and the
// earlier version, renewed, takes over.
func TestPromotionLineage(t *testing.T) {
	storetest.Run(t, func(t *testing.T, db *store.DB) {
		f := newFixture(t, db)
		author, curator, c1, c2, reader := f.agent("author"), f.agent("curator"), f.agent("c1"), f.agent("c2"), f.agent("reader")
		src := f.publishText(author, "Wasm builds need wasm-pack", "Install wasm-pack for wasm builds.")
		d1 := f.digest(curator, "Wasm: use wasm-pack", issuer.Link{Kind: issuer.LinkRefs, Target: src})
		d2 := f.digest(curator, "Wasm: use wasm-pack 0.13", issuer.Link{Kind: issuer.LinkRefs, Target: src},
			issuer.Link{Kind: issuer.LinkSupersedes, Target: d1})
		for _, c := range []issuer.Principal{c1, c2} {
			f.confirm(c, d1)
			f.confirm(c, d2)
		}
		now := time.Now()
		page := f.search(now.Add(40*24*time.Hour), reader, "wasm", true)
		if got := entries(page); !slices.Equal(got, []issuer.MemoryID{d2}) {
			t.Fatalf("entries %v, want the successor %s", got, d2)
		}
		if coveredBy(findResult(t, page, d1)) != d2 || coveredBy(findResult(t, page, src)) != d2 {
			t.Fatalf("coverage: %+v", page.Results)
		}
		// c1 and c2 renew d1 three hundred days on; d2's confirmations
		// decay past two half-lives.
		renew := service.New(db, service.Options{Now: func() time.Time { return now.Add(300 * 24 * time.Hour) }})
		for _, c := range []issuer.Principal{c1, c2} {
			if _, _, err := renew.SubmitFeedback(f.ctx, c, d1, issuer.Feedback{Type: reputation.Corroborate,
				Reason: "reproduced it on a clean machine", StillValid: true}, issuer.TransportHTTP); err != nil {
				t.Fatal(err)
			}
		}
		page = f.search(now.Add(400*24*time.Hour), reader, "wasm", true)
		if r := findResult(t, page, d2); r.Status != "stale" || r.Knowledge {
			t.Fatalf("decayed successor: %+v", r)
		}
		if got := entries(page); !slices.Equal(got, []issuer.MemoryID{d1}) {
			t.Fatalf("entries %v, want the renewed %s", got, d1)
		}
		if coveredBy(findResult(t, page, src)) != d1 || coveredBy(findResult(t, page, d2)) != d1 {
			t.Fatalf("coverage after decay: %+v", page.Results)
		}
	})
}
