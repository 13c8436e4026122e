package store_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/remnant/passportkit/issuer"
	"github.com/remnant/passportkit/issuer/service"
	"github.com/remnant/passportkit/issuer/store"
	"github.com/remnant/passportkit/issuer/store/storetest"
)

// seedKnowledge turns the search graph's memories into knowledge: one
// "vacuum" memory in fifty is a digest citing the one two before it (also
// about vacuum), confirmed with evidence by two agents; every other
// corroboration carries a reason.
func seedKnowledge(tb testing.TB, db *store.DB, reader issuer.Principal) {
	tb.Helper()
	ctx := context.Background()
	x := db.UnsafeSQL()
	then := time.Now().UTC().Add(-60 * 24 * time.Hour).Truncate(time.Microsecond)
	for _, q := range []struct {
		sql  string
		args []any
	}{
		{`UPDATE memories SET kind = 'digest' WHERE public_id LIKE 'mem_bench%' AND id % 50 IN (0, 1) AND title LIKE 'Vacuum%'`, nil},
		{`INSERT INTO memory_links (memory_id, kind, target_id, position)
			SELECT d.id, 'refs', t.id, 0 FROM memories d JOIN memories t ON t.id = d.id - 2
			WHERE d.kind = 'digest' AND d.public_id LIKE 'mem_bench%'`, nil},
		{`UPDATE feedback SET reason = 'reproduced it' WHERE public_id LIKE 'val_bench%' AND id % 2 = 0`, nil},
		{`INSERT INTO feedback (public_id, memory_id, evaluator_id, type, revision, eligible, weight, base_weight, contribution,
				policy, reason, created_at, updated_at)
			SELECT 'val_bench' || CAST(k.j AS TEXT) || '_' || CAST(m.id AS TEXT), m.id,
				CASE WHEN m.author_id + k.j > CAST(? AS BIGINT) THEN m.author_id + k.j - CAST(? AS BIGINT) ELSE m.author_id + k.j END,
				'corroborate', 1, TRUE, 1000, 1000, 0, 'independent-validation-v2', 'ran it', ?, ?
			FROM memories m CROSS JOIN (SELECT 2 AS j UNION ALL SELECT 3) k
			WHERE m.kind = 'digest' AND m.public_id LIKE 'mem_bench%' AND m.id % 5 <> 0`, []any{reader.Key + benchAgents, benchAgents, then, then}},
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
}

// BenchmarkKnowledgeSearch measures, in one run, a warm search with
// knowledge first (SPEC.md §15.11) against the same search with promotion
// off (the search before it), at the search benchmark's 5,000 memories and
// at 100,000 (-short: 5,000 only).
func BenchmarkKnowledgeSearch(b *testing.B) {
	sizes := []int{benchMemories, 100_000}
	if testing.Short() {
		sizes = sizes[:1]
	}
	for _, e := range storetest.Engines(b) {
		for _, n := range sizes {
			b.Run(fmt.Sprintf("%s/%d", e, n), func(b *testing.B) {
				db := storetest.Open(b, e, store.Options{Logger: storetest.Logger(b)})
				reader := seedSearchGraphN(b, db, n)
				seedKnowledge(b, db, reader)
				ctx := context.Background()
				text := "vacuum"
				q, err := issuer.NewSearchQuery(&text, nil, nil, nil, nil)
				if err != nil {
					b.Fatal(err)
				}
				on := service.New(db, service.Options{})
				off := service.New(db, service.Options{Search: service.SearchOptions{NoKnowledge: true}})
				page, err := on.SearchMemories(ctx, reader, q)
				if err != nil || len(page.Results) == 0 {
					b.Fatalf("search: %+v, %v", page, err)
				}
				if _, err := off.SearchMemories(ctx, reader, q); err != nil {
					b.Fatal(err)
				}
				entries := 0
				for _, r := range page.Results {
					if r.Knowledge {
						entries++
					}
				}
				var tOn, tOff time.Duration
				timed := func(d *time.Duration, s *service.Service) {
					t0 := time.Now()
					if _, err := s.SearchMemories(ctx, reader, q); err != nil {
						b.Fatal(err)
					}
					*d += time.Since(t0)
				}
				b.ReportAllocs()
				runs := 0
				for b.Loop() {
					runs++
					timed(&tOff, off)
					timed(&tOn, on)
				}
				per := func(d time.Duration) float64 { return float64(d.Microseconds()) / float64(runs) }
				b.ReportMetric(float64(entries), "entries/page")
				b.ReportMetric(per(tOff), "µs-search-baseline")
				b.ReportMetric(per(tOn), "µs-search-knowledge")
				b.ReportMetric(float64(tOn)/float64(tOff), "knowledge/baseline")
			})
		}
	}
}
