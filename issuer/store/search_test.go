package store_test

import (
	"crypto/rand"
	"slices"
	"testing"
	"time"

	"github.com/remnant/passportkit/issuer"
	"github.com/remnant/passportkit/issuer/service"
	"github.com/remnant/passportkit/issuer/store"
	"github.com/remnant/passportkit/issuer/store/storetest"
	"github.com/remnant/passportkit/reputation"
)

// publishText publishes a memory with the given title and content.
func (f *fixture) publishText(author issuer.Principal, title, content string, links ...issuer.Link) issuer.MemoryID {
	f.t.Helper()
	m, err := svc(f.db).Publish(f.ctx, author, issuer.Publication{
		Category: "sql", Domain: "sql", Title: title, Content: content, Confidence: 500, Links: links,
	})
	if err != nil {
		f.t.Fatalf("publish: %v", err)
	}
	return m.ID
}

// search runs a search through a service whose clock is at now.
func (f *fixture) search(now time.Time, p issuer.Principal, text string, includeLow bool, trust ...string) issuer.SearchPage {
	f.t.Helper()
	var ts []string
	if len(trust) > 0 {
		ts = trust
	}
	q, err := issuer.NewSearchQuery(&text, &includeLow, nil, nil, ts)
	if err != nil {
		f.t.Fatalf("query: %v", err)
	}
	s := service.New(f.db, service.Options{Now: func() time.Time { return now }})
	page, err := s.SearchMemories(f.ctx, p, q)
	if err != nil {
		f.t.Fatalf("search %q: %v", text, err)
	}
	return page
}

func resultIDs(page issuer.SearchPage) []issuer.MemoryID {
	var ids []issuer.MemoryID
	for _, r := range page.Results {
		ids = append(ids, r.ID)
	}
	return ids
}

func findResult(t *testing.T, page issuer.SearchPage, id issuer.MemoryID) issuer.SearchResult {
	t.Helper()
	for _, r := range page.Results {
		if r.ID == id {
			return r
		}
	}
	t.Fatalf("%s not in %v", id, resultIDs(page))
	return issuer.SearchResult{}
}

func TestSearchReaderView(t *testing.T) {
	storetest.Run(t, func(t *testing.T, db *store.DB) {
		f := newFixture(t, db)
		now := time.Now()
		reader, trusted, fresh, critic := f.agent("reader"), f.agent("trusted"), f.agent("fresh"), f.agent("critic")
		confirmedMem := f.publishText(trusted, "Vacuum tuning for busy tables", "Lower autovacuum_vacuum_scale_factor on hot tables.")
		plainMem := f.publishText(trusted, "Vacuum and bloat", "Vacuum reclaims space from dead tuples.")
		freshMem := f.publishText(fresh, "Vacuum everything nightly", "Run VACUUM FULL every night.")
		f.publishText(trusted, "Index only scans", "Covering indexes avoid heap fetches.")
		// The reader vouches for trusted's work by corroborating it, with
		// free-text evidence: a bare corroboration is only a vote.
		f.retrieve(reader, confirmedMem)
		f.validate(reader, confirmedMem, reputation.Corroborate, "bloat fell on our busiest table")

		page := f.search(now, reader, "vacuum", false)
		if page.TrustSet != "own" || page.HiddenLowTrust != 1 {
			t.Fatalf("trust set %q, hidden %d: %+v", page.TrustSet, page.HiddenLowTrust, page)
		}
		if got := resultIDs(page); len(got) != 2 || got[0] != confirmedMem || got[1] != plainMem {
			t.Fatalf("results %v, want [%s %s]", got, confirmedMem, plainMem)
		}
		c := findResult(t, page, confirmedMem)
		if c.Status != "confirmed" || c.Counts.Confirmations != 1 || c.Why != nil || c.Author != trusted.AgentID {
			t.Fatalf("confirmed memory: %+v", c)
		}
		if p := findResult(t, page, plainMem); p.Status != "unverified" {
			t.Fatalf("plain memory: %+v", p)
		}

		// include_low shows the fresh author, labelled.
		low := f.search(now, reader, "vacuum", true)
		if r := findResult(t, low, freshMem); !r.LowTrust || low.HiddenLowTrust != 0 {
			t.Fatalf("include_low: %+v hidden %d", r, low.HiddenLowTrust)
		}
		// Past the cold-start window a key has a floor, and is shown, only to
		// a reader whose graph carries no weight yet (SPEC.md §15.4).
		if later := f.search(now.Add(40*24*time.Hour), reader, "vacuum", true); !findResult(t, later, freshMem).LowTrust {
			t.Fatalf("an aged key has a floor for a reader with a graph: %+v", findResult(t, later, freshMem))
		}
		newcomer := f.agent("newcomer")
		if r := findResult(t, f.search(now.Add(40*24*time.Hour), newcomer, "vacuum", false), freshMem); r.LowTrust {
			t.Fatalf("an aged key is still low for a reader without a graph: %+v", r)
		}

		// A contradiction by a key the reader gives no weight is ignored;
		// from a trust set that holds the critic it stands.
		f.publishText(critic, "Vacuum and bloat are unrelated", "Bloat comes from elsewhere.",
			issuer.Link{Kind: issuer.LinkContradicts, Target: plainMem})
		own := f.search(now, reader, "bloat", false)
		if r := findResult(t, own, plainMem); r.Status != "unverified" || r.Counts.Contradictions != 1 {
			t.Fatalf("own view of the contradicted memory: %+v", r)
		}
		theirs := f.search(now, reader, "bloat", true, string(critic.AgentID))
		r := findResult(t, theirs, plainMem)
		if theirs.TrustSet != "explicit" || r.Status != "contested" || r.Why == nil || r.Why.Code != "contradicted" {
			t.Fatalf("critic's view of the contradicted memory: %+v why %+v", r, r.Why)
		}
		// Contested sinks below the critic's own memory of comparable relevance.
		if got := resultIDs(theirs); got[len(got)-1] != plainMem {
			t.Fatalf("contested memory not last: %v", got)
		}

		// Unknown trust-set IDs are reported; none known is an error.
		ghostID, err := issuer.NewAgentID(rand.Reader)
		if err != nil {
			t.Fatal(err)
		}
		ghost := string(ghostID)
		mixed := f.search(now, reader, "bloat", true, string(critic.AgentID), ghost)
		if len(mixed.UnknownTrustSet) != 1 || string(mixed.UnknownTrustSet[0]) != ghost {
			t.Fatalf("unknown trust set %v", mixed.UnknownTrustSet)
		}
		text, yes := "bloat", true
		q, err := issuer.NewSearchQuery(&text, &yes, nil, nil, []string{ghost})
		if err != nil {
			t.Fatal(err)
		}
		_, err = svc(db).SearchMemories(f.ctx, reader, q)
		wantCode(t, err, issuer.CodeInvalid)
	})
}

func TestSearchHidesWhatTheViewerMayNotRead(t *testing.T) {
	storetest.Run(t, func(t *testing.T, db *store.DB) {
		f := newFixture(t, db)
		reader, author := f.agent("reader"), f.agent("author")
		mem := f.publishText(author, "Replication lag alarms", "Alert on replay lag, not on write lag.")
		m, err := svc(db).Publish(f.ctx, author, issuer.Publication{Category: "sql", Domain: "sql",
			Title: "Replication secret", Content: "private notes", Confidence: 500, Visibility: issuer.MemoryPrivate})
		if err != nil {
			t.Fatal(err)
		}
		later := time.Now().Add(60 * 24 * time.Hour)
		if got := resultIDs(f.search(later, reader, "replication", true)); !slices.Equal(got, []issuer.MemoryID{mem}) {
			t.Fatalf("reader sees %v", got)
		}
		if got := resultIDs(f.search(later, author, "replication", true)); len(got) != 2 || !slices.Contains(got, m.ID) {
			t.Fatalf("author sees %v", got)
		}
		if _, err := storetest.Admin(db).ModerateMemory(f.ctx, mem, issuer.Moderation{Status: issuer.MemoryQuarantined, Reason: "test"}); err != nil {
			t.Fatal(err)
		}
		if got := resultIDs(f.search(later, reader, "replication", true)); len(got) != 0 {
			t.Fatalf("quarantined memory found: %v", got)
		}
	})
}

// TestTrustEdgesFollowPositions checks that the triggers keep trust_edges
// equal to its definition from the current positions.
func TestTrustEdgesFollowPositions(t *testing.T) {
	storetest.Run(t, func(t *testing.T, db *store.DB) {
		f := newFixture(t, db)
		a, b, ev := f.agent("a"), f.agent("b"), f.agent("ev")
		ma, mb := f.publish(a, "sql"), f.publish(b, "sql")
		f.consumeAndValidate(ev, ma, reputation.Corroborate)
		f.consumeAndValidate(ev, mb, reputation.Useful)
		f.consumeAndValidate(a, mb, reputation.Contradict)
		f.validate(ev, mb, reputation.NotUseful, "changed my mind")
		f.consumeAndValidate(b, ma, reputation.UsedSuccessfully)
		x := db.UnsafeSQL()
		var got, want []string
		if err := x.Select(&got, `SELECT source_id || '>' || target_id || '=' || weight FROM trust_edges ORDER BY 1`); err != nil {
			t.Fatal(err)
		}
		if err := x.Select(&want, `SELECT f.evaluator_id || '>' || m.author_id || '=' || SUM(f.weight) FROM feedback f
			JOIN memories m ON m.id = f.memory_id
			WHERE f.eligible AND f.type IN ('corroborate', 'useful', 'used_successfully') AND m.author_id <> f.evaluator_id
			GROUP BY f.evaluator_id, m.author_id HAVING SUM(f.weight) > 0 ORDER BY 1`); err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(got, want) || len(got) != 2 {
			t.Fatalf("trust_edges %v, want %v (two edges: ev→a, b→a)", got, want)
		}
	})
}

// TestTrustNeighbourhood checks the depth cap, the fan-out cap and the
// totals of the neighbourhood query on a seeded graph.
func TestTrustNeighbourhood(t *testing.T) {
	storetest.Run(t, func(t *testing.T, db *store.DB) {
		f := newFixture(t, db)
		var k []int64
		for i := range 8 {
			p := f.agent("n" + string(rune('a'+i)))
			k = append(k, p.Key)
		}
		// A chain k0→k1→k2→k3→k4 and a star k1→{k5,k6,k7}.
		edges := [][3]int64{{k[0], k[1], 1000}, {k[1], k[2], 3000}, {k[2], k[3], 1000}, {k[3], k[4], 1000},
			{k[1], k[5], 2000}, {k[1], k[6], 1000}, {k[1], k[7], 1000}}
		x := db.UnsafeSQL()
		for _, e := range edges {
			if _, err := x.Exec(x.Rebind(`INSERT INTO trust_edges (source_id, target_id, weight) VALUES (?, ?, ?)`), e[0], e[1], e[2]); err != nil {
				t.Fatal(err)
			}
		}
		got, err := db.TrustNeighbourhood(f.ctx, []int64{k[0]}, 3, 2)
		if err != nil {
			t.Fatal(err)
		}
		slices.SortFunc(got, func(a, b service.TrustEdge) int {
			if a.Source != b.Source {
				return int(a.Source - b.Source)
			}
			return int(a.Target - b.Target)
		})
		// Depth 3 reads the out-edges of nodes 0, 1 and 2 hops away: k0, k1,
		// k2 and k5 (k1's two heaviest are k2 and k5); not k3's.
		want := []service.TrustEdge{
			{Source: k[0], Target: k[1], Weight: 1000, Total: 1000},
			{Source: k[1], Target: k[2], Weight: 3000, Total: 7000},
			{Source: k[1], Target: k[5], Weight: 2000, Total: 7000},
			{Source: k[2], Target: k[3], Weight: 1000, Total: 1000},
		}
		if !slices.Equal(got, want) {
			t.Fatalf("neighbourhood\n%+v\nwant\n%+v", got, want)
		}
		if got, _ := db.TrustNeighbourhood(f.ctx, []int64{k[0]}, 1, 2); len(got) != 1 {
			t.Fatalf("depth 1: %+v", got)
		}
	})
}
