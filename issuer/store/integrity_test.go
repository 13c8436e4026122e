package store_test

import (
	"context"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"sync"
	"testing"

	"github.com/remnant/passportkit/issuer"
	"github.com/remnant/passportkit/issuer/store"
	"github.com/remnant/passportkit/issuer/store/storetest"
	"github.com/remnant/passportkit/migrations"
	"github.com/remnant/passportkit/reputation"
)

func TestTriggersRefuseRewrites(t *testing.T) {
	storetest.Run(t, func(t *testing.T, db *store.DB) {
		f := newFixture(t, db)
		author, evaluator := f.agent("author"), f.agent("evaluator")
		m := f.publish(author, "sql")
		f.consumeAndValidate(evaluator, m, reputation.Corroborate)
		x := db.UnsafeSQL()
		for _, stmt := range []string{
			`UPDATE feedback_history SET reason = 'rewritten'`,
			`DELETE FROM feedback_history`,
			`UPDATE reputation_events SET delta = 100000`,
			`DELETE FROM reputation_events`,
			`UPDATE audit_events SET action = 'nothing'`,
			`DELETE FROM audit_events`,
		} {
			if _, err := x.Exec(stmt); err == nil {
				t.Errorf("%s: accepted", stmt)
			}
		}
		if db.Engine() == store.Postgres {
			for _, table := range []string{"feedback_history", "reputation_events", "audit_events"} {
				if _, err := x.Exec(`TRUNCATE ` + table + ` CASCADE`); err == nil {
					t.Errorf("TRUNCATE %s: accepted", table)
				}
			}
		}
		// An eligible position by the memory's own author.
		_, err := x.Exec(x.Rebind(`INSERT INTO feedback (public_id, memory_id, evaluator_id, type, reason, revision, eligible, weight,
			direct, created_at, updated_at) SELECT 'fb_x', id, author_id, 'corroborate', '', 1, ?, 500, ?, created_at, created_at
			FROM memories`), true, true)
		if err == nil {
			t.Error("an author-owned eligible position was accepted")
		}
		// Turning an existing position into the author's own.
		if _, err := x.Exec(x.Rebind(`UPDATE feedback SET evaluator_id = ?`), author.Key); err == nil {
			t.Error("rewriting a position to its author was accepted")
		}
		if n := f.count(`SELECT COUNT(*) FROM reputation_events`); n != 1 {
			t.Fatalf("%d journal entries after refused rewrites, want 1", n)
		}
	})
}

// Many evaluators submit and revise positions on one author's memories at
// once, while the author validates their memories in return; afterwards the
// incremental aggregates equal a rebuild from the journal.
func TestConcurrentSubmissionsEqualRebuild(t *testing.T) {
	storetest.Run(t, func(t *testing.T, db *store.DB) {
		f := newFixture(t, db)
		author := f.agent("author")
		var mems []issuer.MemoryID
		for i := range 6 {
			mems = append(mems, f.publish(author, []string{"sql", "go", "power bi / performance"}[i%3]))
		}
		const evaluators, rounds = 8, 12
		var ps []issuer.Principal
		var theirs []issuer.MemoryID
		for range evaluators {
			e := f.agent("evaluator")
			ps = append(ps, e)
			for _, m := range mems {
				f.retrieve(e, m)
			}
			own := f.publish(e, "sql")
			f.retrieve(author, own)
			theirs = append(theirs, own)
		}
		var wg sync.WaitGroup
		errs := make(chan error, evaluators+1)
		for i, e := range ps {
			wg.Add(1)
			go func(i int, e issuer.Principal) {
				defer wg.Done()
				rng := rand.New(rand.NewPCG(uint64(i), 7))
				for r := range rounds {
					fb := issuer.Feedback{Type: reputation.Types[rng.IntN(len(reputation.Types))], Reason: fmt.Sprint(rng.IntN(2))}
					if r%5 == 4 {
						fb.IdempotencyKey = fmt.Sprintf("k-%d", r)
					}
					if _, _, err := db.SubmitFeedback(context.Background(), e, mems[rng.IntN(len(mems))], fb, issuer.TransportHTTP); err != nil {
						errs <- err
						return
					}
				}
			}(i, e)
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			for r := range rounds {
				fb := issuer.Feedback{Type: reputation.Types[r%len(reputation.Types)]}
				if _, _, err := db.SubmitFeedback(context.Background(), author, theirs[r%len(theirs)], fb, issuer.TransportMCP); err != nil {
					errs <- err
					return
				}
			}
		}()
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Fatal(err)
		}

		before := derived(t, db)
		for _, p := range append([]issuer.Principal{author}, ps...) {
			rep, err := db.RebuildReputation(f.ctx, p.AgentID, nil)
			if err != nil {
				t.Fatal(err)
			}
			if rep.Corrected != 0 {
				t.Errorf("rebuild of %s corrected %d rows", p.AgentID, rep.Corrected)
			}
		}
		if changed := diffSnapshots(before, derived(t, db)); len(changed) > 0 {
			t.Fatalf("rebuild changed %v", changed)
		}
		if n := f.count(`SELECT COUNT(*) FROM feedback WHERE memory_id IN (SELECT id FROM memories WHERE author_id = ?)`, author.Key); n == 0 {
			t.Fatal("no positions recorded")
		}
	})
}

// Fifty concurrent requests with one idempotency key have one effect and
// one response.
func TestConcurrentIdempotentRequestsHaveOneEffect(t *testing.T) {
	storetest.Run(t, func(t *testing.T, db *store.DB) {
		f := newFixture(t, db)
		author, evaluator := f.agent("author"), f.agent("evaluator")
		m := f.publish(author, "sql")
		f.retrieve(evaluator, m)
		fb := issuer.Feedback{Type: reputation.Corroborate, Reason: "once", IdempotencyKey: "retry-storm"}
		const n = 50
		results := make([]issuer.FeedbackResult, n)
		replays := make([]bool, n)
		errs := make([]error, n)
		var wg sync.WaitGroup
		for i := range n {
			wg.Add(1)
			go func() {
				defer wg.Done()
				results[i], replays[i], errs[i] = db.SubmitFeedback(context.Background(), evaluator, m, fb, issuer.TransportHTTP)
			}()
		}
		wg.Wait()
		fresh := 0
		for i := range n {
			if errs[i] != nil {
				t.Fatalf("request %d: %v", i, errs[i])
			}
			if results[i] != results[0] {
				t.Fatalf("request %d answered %+v, request 0 %+v", i, results[i], results[0])
			}
			if !replays[i] {
				fresh++
			}
		}
		if fresh != 1 {
			t.Fatalf("%d requests took effect, want 1", fresh)
		}
		for table, want := range map[string]int{"feedback": 1, "feedback_history": 1, "reputation_events": 1, "validation_requests": 1} {
			if got := f.count(`SELECT COUNT(*) FROM ` + table); got != want {
				t.Errorf("%s has %d rows, want %d", table, got, want)
			}
		}
	})
}

func TestRebuildRestoresDerivedRowsWithoutNewEvents(t *testing.T) {
	storetest.Run(t, func(t *testing.T, db *store.DB) {
		f := newFixture(t, db)
		author := f.agent("author")
		m1, m2 := f.publish(author, "sql"), f.publish(author, "go")
		e1, e2 := f.agent("e1"), f.agent("e2")
		f.consumeAndValidate(e1, m1, reputation.Corroborate)
		f.consumeAndValidate(e2, m1, reputation.Contradict)
		f.consumeAndValidate(e1, m2, reputation.UsedSuccessfully)
		good := derived(t, db)
		x := db.UnsafeSQL()
		for _, stmt := range []string{
			`UPDATE agent_domain_reputation SET raw = 0, score = 0, sample_size = 9`,
			`UPDATE agent_reputation_aggregates SET raw = 77, score = 77, trust_level = 'high_trust'`,
			`DELETE FROM agent_domain_evaluator_counts`,
			`UPDATE agent_global_evaluator_counts SET positions = 40`,
			`UPDATE memories SET validation_summary_json = '{"state":"robust"}', confidence_state = 'robust'`,
		} {
			if _, err := x.Exec(stmt); err != nil {
				t.Fatal(err)
			}
		}
		events := f.count(`SELECT COUNT(*) FROM reputation_events`)
		var calls int
		rep, err := db.RebuildReputation(f.ctx, author.AgentID, func(done, total int) { calls++ })
		if err != nil {
			t.Fatal(err)
		}
		if rep.Events != 3 || rep.Domains != 2 || rep.Corrected == 0 || calls == 0 {
			t.Fatalf("report %+v after %d progress calls", rep, calls)
		}
		// Evaluators' own aggregates were corrupted too.
		for _, e := range []issuer.Principal{e1, e2} {
			if _, err := db.RebuildReputation(f.ctx, e.AgentID, nil); err != nil {
				t.Fatal(err)
			}
		}
		if changed := diffSnapshots(good, derived(t, db)); len(changed) > 0 {
			// updated_at differs on rewritten rows; compare the figures.
			for _, table := range changed {
				if table != "agent_domain_reputation" && table != "agent_reputation_aggregates" {
					t.Errorf("%s not restored", table)
				}
			}
		}
		if d := f.domain(author, "sql"); d.Score != 0 || d.SampleSize != 2 || d.PositiveEvents != 1 || d.NegativeEvents != 1 {
			t.Fatalf("sql domain %+v", d)
		}
		// 0.5 − 0.5 + 2 × 0.25 (the pair's second positive rank).
		if p := f.profile(author); p.ReputationScore != 500 || p.TrustLevel != reputation.TrustNew {
			t.Fatalf("global %v %s, want 0.5 and new", p.ReputationScore, p.TrustLevel)
		}
		if got := f.count(`SELECT COUNT(*) FROM reputation_events`); got != events {
			t.Fatalf("rebuild appended %d events", got-events)
		}
		if again, _ := db.RebuildReputation(f.ctx, author.AgentID, nil); again.Corrected != 0 {
			t.Fatalf("a second rebuild corrected %d rows", again.Corrected)
		}
	})
}

func TestSchemaCheckAndMigrations(t *testing.T) {
	t.Parallel()
	for _, engine := range storetest.Engines(t) {
		t.Run(string(engine), func(t *testing.T) {
			db := storetest.OpenEmpty(t, engine, store.Options{})
			ctx := context.Background()
			err := db.CheckSchema(ctx)
			wantCode(t, err, issuer.CodeConflict)
			tables := `SELECT COUNT(*) FROM sqlite_master WHERE type = 'table'`
			if engine == store.Postgres {
				tables = `SELECT COUNT(*) FROM pg_catalog.pg_tables WHERE schemaname = current_schema()`
			}
			var n int
			if err := db.UnsafeSQL().Get(&n, tables); err != nil || n != 0 {
				t.Fatalf("checking the schema left %d tables (%v)", n, err)
			}
			files, err := fs.Glob(migrations.FS, string(engine)+"/*.sql")
			if err != nil {
				t.Fatal(err)
			}
			applied, err := db.Migrate(ctx)
			if err != nil || len(applied) != len(files) {
				t.Fatalf("migrate: %v, %v", applied, err)
			}
			if err := db.CheckSchema(ctx); err != nil {
				t.Fatal(err)
			}
			again, err := db.Migrate(ctx)
			if err != nil || len(again) != 0 {
				t.Fatalf("second migrate: %v, %v", again, err)
			}
		})
	}
}

// Concurrent validations of one consultation, with and without changes of
// type, serialise cleanly.
func TestConcurrentReceiptValidations(t *testing.T) {
	storetest.Run(t, func(t *testing.T, db *store.DB) {
		f := newFixture(t, db)
		a, b, evaluator := f.agent("a"), f.agent("b"), f.agent("evaluator")
		r, err := db.Consult(f.ctx, evaluator, []issuer.MemoryID{f.publish(a, "sql"), f.publish(b, "go"), f.publish(a, "go")})
		if err != nil {
			t.Fatal(err)
		}
		var wg sync.WaitGroup
		errs := make(chan error, 20)
		for i := range 20 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				fb := issuer.Feedback{Type: reputation.Types[i%3], Reason: fmt.Sprint(i % 2)}
				if _, _, err := db.SubmitReceiptFeedback(context.Background(), evaluator, r.ID, fb, issuer.TransportHTTP); err != nil {
					errs <- err
				}
			}()
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Fatal(err)
		}
		if n := f.count(`SELECT COUNT(*) FROM consultation_feedback`); n != 1 {
			t.Fatalf("%d consultation validations, want 1", n)
		}
		for _, p := range []issuer.Principal{a, b} {
			if rep, err := db.RebuildReputation(f.ctx, p.AgentID, nil); err != nil || rep.Corrected != 0 {
				t.Fatalf("rebuild %s: %+v %v", p.AgentID, rep, err)
			}
		}
	})
}
