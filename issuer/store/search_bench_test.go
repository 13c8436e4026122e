package store_test

import (
	"context"
	"testing"
	"time"

	"github.com/remnant/passportkit/issuer"
	"github.com/remnant/passportkit/issuer/service"
	"github.com/remnant/passportkit/issuer/store"
	"github.com/remnant/passportkit/issuer/store/storetest"
)

// Sizes of the search benchmark's seeded graph.
const (
	benchAgents   = 5000
	benchOutEdges = 10 // per agent: 50,000 trust edges
	benchMemories = 5000
)

// seedSearchGraph seeds benchAgents agents 60 days old, benchOutEdges
// trust edges from each, and benchMemories memories of which half mention
// "vacuum", each fifth corroborated by the next agent. It returns the
// reader.
func seedSearchGraph(tb testing.TB, db *store.DB) issuer.Principal {
	return seedSearchGraphN(tb, db, benchMemories)
}

// seedSearchGraphN is seedSearchGraph with the given number of memories.
func seedSearchGraphN(tb testing.TB, db *store.DB, memories int) issuer.Principal {
	tb.Helper()
	ctx := context.Background()
	a, err := storetest.Admin(db).CreateAgent(ctx, service.NewAgent{Name: "reader"})
	if err != nil {
		tb.Fatal(err)
	}
	reader, err := db.Authenticate(ctx, a.Key)
	if err != nil {
		tb.Fatal(err)
	}
	x := db.UnsafeSQL()
	then := time.Now().UTC().Add(-60 * 24 * time.Hour).Truncate(time.Microsecond)
	for _, q := range []struct {
		sql  string
		args []any
	}{
		{`WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ?)
			INSERT INTO agents (public_id, name, created_at, updated_at)
			SELECT 'agt_bench' || CAST(i AS TEXT), 'bench', ?, ? FROM n`, []any{benchAgents, then, then}},
		{`WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < ?)
			INSERT INTO memories (public_id, author_id, category, domain, title, content, content_hash, confidence,
				validation_base_confidence, created_at, updated_at)
			SELECT 'mem_bench' || CAST(i AS TEXT), CAST(? AS BIGINT) + i % ?, 'sql', 'sql',
				CASE i % 2 WHEN 0 THEN 'Vacuum tuning note ' ELSE 'Index note ' END || CAST(i AS TEXT),
				CASE i % 4 WHEN 0 THEN 'Lower the vacuum scale factor on hot tables.' WHEN 1 THEN 'Covering indexes avoid heap fetches.'
					WHEN 2 THEN 'Autovacuum workers need memory.' ELSE 'Partial indexes shrink the index.' END,
				'sha256:' || ?, 500, 500, ?, ? FROM n`, []any{memories - 1, reader.Key + 1, benchAgents, "0000000000000000000000000000000000000000000000000000000000000000", then, then}},
		{`INSERT INTO feedback (public_id, memory_id, evaluator_id, type, revision, eligible, weight, base_weight, contribution,
				policy, created_at, updated_at)
			SELECT 'val_bench' || CAST(m.id AS TEXT), m.id, CASE WHEN m.author_id = CAST(? AS BIGINT) THEN CAST(? AS BIGINT) ELSE m.author_id + 1 END,
				'corroborate', 1, TRUE, 1000, 1000, 0, 'independent-validation-v2', ?, ?
			FROM memories m WHERE m.public_id LIKE 'mem_bench%' AND m.id % 5 = 0`, []any{reader.Key + benchAgents, reader.Key + 1, then, then}},
		// Each agent trusts benchOutEdges others, spread over the graph;
		// the reader trusts the first ten.
		{`WITH RECURSIVE k(j) AS (SELECT 0 UNION ALL SELECT j + 1 FROM k WHERE j < ?)
			INSERT INTO trust_edges (source_id, target_id, weight)
			SELECT s, t, w FROM (SELECT a.id AS s, CAST(? AS BIGINT) + ((a.id - CAST(? AS BIGINT)) * 7 + k.j * 131 + 1) % ? AS t,
				1000 + (a.id * (k.j + 1)) % 5000 AS w
				FROM agents a CROSS JOIN k WHERE a.public_id LIKE 'agt_bench%') e WHERE s <> t
			ON CONFLICT (source_id, target_id) DO NOTHING`, []any{benchOutEdges - 1, reader.Key + 1, reader.Key + 1, benchAgents}},
		{`WITH RECURSIVE k(j) AS (SELECT 1 UNION ALL SELECT j + 1 FROM k WHERE j < 10)
			INSERT INTO trust_edges (source_id, target_id, weight) SELECT CAST(? AS BIGINT), CAST(? AS BIGINT) + k.j, 1000 FROM k WHERE true
			ON CONFLICT (source_id, target_id) DO NOTHING`, []any{reader.Key, reader.Key}},
	} {
		if _, err := x.ExecContext(ctx, x.Rebind(q.sql), q.args...); err != nil {
			tb.Fatalf("seed: %v\n%s", err, q.sql)
		}
	}
	if db.Engine() == store.Postgres {
		if _, err := x.ExecContext(ctx, `ANALYZE`); err != nil {
			tb.Fatal(err)
		}
	}
	return reader
}

// BenchmarkReaderSearch measures, in one run, the reader's neighbourhood
// query against a primary-key read of one edge (the round-trip floor), and
// search with a cold and a warm trust cache against the bare full-text
// query it starts from.
func BenchmarkReaderSearch(b *testing.B) {
	for _, e := range storetest.Engines(b) {
		b.Run(string(e), func(b *testing.B) {
			db := storetest.Open(b, e, store.Options{Logger: storetest.Logger(b)})
			reader := seedSearchGraph(b, db)
			ctx := context.Background()
			seeds, err := db.TrustSeeds(ctx, reader.Key, service.MaxOwnTrustSeeds)
			if err != nil || len(seeds) != 10 {
				b.Fatalf("seeds %v, %v", seeds, err)
			}
			seeds = append([]int64{reader.Key}, seeds...)
			text := "vacuum"
			q, err := issuer.NewSearchQuery(&text, nil, nil, nil, nil)
			if err != nil {
				b.Fatal(err)
			}
			cold := service.New(db, service.Options{Search: service.SearchOptions{CacheTTL: time.Nanosecond}})
			warm := service.New(db, service.Options{})
			page, err := warm.SearchMemories(ctx, reader, q)
			if err != nil || len(page.Results) == 0 {
				b.Fatalf("search: %+v, %v", page, err)
			}
			edges, err := db.TrustNeighbourhood(ctx, seeds, 3, service.DefaultFanOut)
			if err != nil {
				b.Fatal(err)
			}
			x := db.UnsafeSQL()
			point := x.Rebind(`SELECT weight FROM trust_edges WHERE source_id = ? AND target_id = ?`)
			var tPoint, tHood, tFTS, tCold, tWarm time.Duration
			timed := func(d *time.Duration, f func() error) {
				t0 := time.Now()
				if err := f(); err != nil {
					b.Fatal(err)
				}
				*d += time.Since(t0)
			}
			b.ReportAllocs()
			n := 0
			for b.Loop() {
				n++
				timed(&tPoint, func() error {
					var w int64
					return x.GetContext(ctx, &w, point, reader.Key, seeds[1])
				})
				timed(&tHood, func() error { _, err := db.TrustNeighbourhood(ctx, seeds, 3, service.DefaultFanOut); return err })
				timed(&tFTS, func() error {
					_, _, err := db.SearchCandidates(ctx, reader.Key, q.Terms, issuer.SearchWindow)
					return err
				})
				timed(&tCold, func() error { _, err := cold.SearchMemories(ctx, reader, q); return err })
				timed(&tWarm, func() error { _, err := warm.SearchMemories(ctx, reader, q); return err })
			}
			per := func(d time.Duration) float64 { return float64(d.Microseconds()) / float64(n) }
			b.ReportMetric(float64(len(edges)), "edges/neighbourhood")
			b.ReportMetric(per(tPoint), "µs-point-read")
			b.ReportMetric(per(tHood), "µs-neighbourhood")
			b.ReportMetric(per(tFTS), "µs-fulltext")
			b.ReportMetric(per(tCold), "µs-search-cold")
			b.ReportMetric(per(tWarm), "µs-search-warm")
			b.ReportMetric(float64(tHood)/float64(tPoint), "neighbourhood/point")
			b.ReportMetric(float64(tCold)/float64(tFTS), "search-cold/fulltext")
			b.ReportMetric(float64(tWarm)/float64(tFTS), "search-warm/fulltext")
		})
	}
}
