package store_test

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/remnant/passportkit/issuer"
	"github.com/remnant/passportkit/issuer/issuing"
	"github.com/remnant/passportkit/issuer/service"
	"github.com/remnant/passportkit/issuer/store"
	"github.com/remnant/passportkit/issuer/store/storetest"
)

// seedAtLimits writes, directly, a subject at the collection limits:
// 2,000 memories over 50 skills, each with five corroborations by
// evaluators of five operators (10,000 position changes), and returns it.
func seedAtLimits(tb testing.TB, db *store.DB) issuer.AgentID {
	tb.Helper()
	ctx := context.Background()
	mk := func(name string, op issuer.OperatorID) {
		if _, err := storetest.Admin(db).CreateAgent(ctx, service.NewAgent{Name: name, Operator: op}); err != nil {
			tb.Fatal(err)
		}
	}
	var ops []issuer.OperatorID
	for i := range 6 {
		op, err := storetest.Admin(db).CreateOperator(ctx, fmt.Sprint("op ", i))
		if err != nil {
			tb.Fatal(err)
		}
		ops = append(ops, op)
	}
	subject, err := storetest.Admin(db).CreateAgent(ctx, service.NewAgent{Name: "subject", Operator: ops[0]})
	if err != nil {
		tb.Fatal(err)
	}
	sp, err := db.Authenticate(ctx, subject.Key)
	if err != nil {
		tb.Fatal(err)
	}
	for i := range 5 {
		mk(fmt.Sprint("evaluator ", i), ops[i+1])
	}
	x := db.UnsafeSQL()
	now := time.Now().UTC().Add(-time.Hour).Truncate(time.Microsecond)
	for _, q := range []struct {
		sql  string
		args []any
	}{
		{`WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 2000)
			INSERT INTO memories (public_id, author_id, category, domain, title, content, content_hash, applies_claim, confidence,
				validation_base_confidence, created_at, updated_at)
			SELECT 'mem_seed' || CAST(i AS TEXT), ?, 'sql', 'sql', 't', 'c', 'sha256:' || ?,
				'{"skill":"skill ' || CAST(i % 50 AS TEXT) || '","domain":"finance"}', 500, 500, ?, ? FROM n`,
			[]any{sp.Key, strings.Repeat("0", 64), now, now}},
		{`INSERT INTO feedback (public_id, memory_id, evaluator_id, type, revision, eligible, weight, base_weight, contribution,
				policy, created_at, updated_at)
			SELECT 'val_' || CAST(m.id AS TEXT) || '_' || CAST(a.id AS TEXT), m.id, a.id, 'corroborate', 1, TRUE, 1000, 1000, 0,
				'independent-validation-v2', ?, ? FROM memories m CROSS JOIN agents a WHERE m.author_id = ? AND a.name LIKE 'evaluator %'`,
			[]any{now, now, sp.Key}},
		{`INSERT INTO feedback_history (feedback_id, revision, change, type, reason, eligible, weight, transport, created_at)
			SELECT id, 1, 'position', type, '', TRUE, weight, 'http', created_at FROM feedback`, nil},
	} {
		if _, err := x.ExecContext(ctx, x.Rebind(q.sql), q.args...); err != nil {
			tb.Fatal(err)
		}
	}
	return sp.AgentID
}

// BenchmarkLoadSubject loads a subject at the collection limits (2,000
// memories, 10,000 events; on PostgreSQL with planner statistics) and, as the baseline of the same run, collects
// the loaded subject's evidence (issuing.Collect, pure): the ratio is the
// store's cost in units of the source adapter's.
func BenchmarkLoadSubject(b *testing.B) {
	for _, e := range storetest.Engines(b) {
		b.Run(string(e), func(b *testing.B) {
			db := storetest.Open(b, e, store.Options{Logger: storetest.Logger(b)})
			id := seedAtLimits(b, db)
			ctx := context.Background()
			if e == store.Postgres {
				// The steady state, once autovacuum has gathered planner
				// statistics; the plan without them, right after a bulk
				// load, is BenchmarkPassportAtTheLimits/uncached-unanalysed.
				if _, err := db.UnsafeSQL().Exec(`ANALYZE agents, agent_owner_bindings, memories, memory_links, feedback,
					feedback_history, memory_outcomes`); err != nil {
					b.Fatal(err)
				}
			}
			s, err := db.LoadSubject(ctx, id, time.Now)
			if err != nil {
				b.Fatal(err)
			}
			if len(s.Memories) != 2000 || len(s.Events) != 10000 || s.Truncated {
				b.Fatalf("seeded %d memories, %d events, truncated %v", len(s.Memories), len(s.Events), s.Truncated)
			}
			key := bytes.Repeat([]byte{7}, 32)
			var load, collect time.Duration
			b.ReportAllocs()
			for b.Loop() {
				t0 := time.Now()
				if _, err := db.LoadSubject(ctx, id, time.Now); err != nil {
					b.Fatal(err)
				}
				t1 := time.Now()
				if _, err := issuing.Collect(s, key, s.At); err != nil {
					b.Fatal(err)
				}
				load += t1.Sub(t0)
				collect += time.Since(t1)
			}
			b.ReportMetric(float64(load.Microseconds())/float64(b.N)/1000, "load-ms/op")
			b.ReportMetric(float64(collect.Microseconds())/float64(b.N)/1000, "collect-ms/op")
			b.ReportMetric(float64(load)/float64(collect), "load/collect")
		})
	}
}
