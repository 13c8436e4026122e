package store_test

import (
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/remnant/passportkit/issuer"
	"github.com/remnant/passportkit/issuer/store"
	"github.com/remnant/passportkit/issuer/store/storetest"
	"github.com/remnant/passportkit/reputation"
)

// After a concurrent storm of every write that moves an activity counter
// (publish, retrieve, consult, direct and receipt validations, moderation)
// the counters equal the counts of history on both engines.
func TestActivityCountersEqualHistoryAfterStorm(t *testing.T) {
	storetest.Run(t, func(t *testing.T, db *store.DB) {
		f := newFixture(t, db)
		authors := []issuer.Principal{f.agent("a0"), f.agent("a1"), f.agent("a2")}
		var mems []issuer.MemoryID
		for _, a := range authors {
			for range 4 {
				mems = append(mems, f.publish(a, "sql"))
			}
		}
		var readers []issuer.Principal
		for i := range 6 {
			readers = append(readers, f.agent(fmt.Sprint("r", i)))
		}
		var wg sync.WaitGroup
		errs := make(chan error, 1000)
		for i, r := range readers {
			wg.Go(func() {
				for j := range 12 {
					m := mems[(i*5+j)%len(mems)]
					var err error
					switch j % 4 {
					case 0:
						_, err = svc(db).Retrieve(f.ctx, r, m)
						if err == nil {
							_, _, err = svc(db).SubmitFeedback(f.ctx, r, m, issuer.Feedback{Type: reputation.Corroborate}, issuer.TransportHTTP)
						}
					case 1:
						var rc issuer.Receipt
						rc, err = svc(db).Consult(f.ctx, r, []issuer.MemoryID{m, mems[(i+j+1)%len(mems)]})
						if err == nil && j%8 == 1 {
							_, _, err = svc(db).SubmitReceiptFeedback(f.ctx, r, rc.ID, issuer.Feedback{Type: reputation.Useful}, issuer.TransportMCP)
						}
					case 2:
						_, err = storetest.Service(db).Publish(f.ctx, r, issuer.Publication{Category: "go", Domain: "go", Title: "t", Content: "c", Confidence: 500})
					case 3:
						st := issuer.MemoryQuarantined
						if j%8 == 7 {
							st = issuer.MemoryActive
						}
						_, err = storetest.Admin(db).ModerateMemory(f.ctx, mems[(i+j)%len(mems)], issuer.Moderation{Status: st})
					}
					// A memory quarantined meanwhile is a legitimate refusal.
					if err != nil && issuer.ErrorCode(err) != issuer.CodeNotFound {
						errs <- err
					}
				}
			})
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Fatal(err)
		}
		drift, err := db.CheckActivity(f.ctx)
		if err != nil {
			t.Fatal(err)
		}
		if len(drift) != 0 {
			t.Fatalf("counters differ from history: %+v", drift)
		}
		var total int
		for _, r := range readers {
			s := f.profile(r).Stats
			total += s.Retrievals + s.Consultations + s.FeedbackGiven + s.MemoriesPublished
		}
		if total == 0 {
			t.Fatal("the storm counted nothing")
		}
	})
}

// A profile reads the counters, not history: rows written behind the
// store's back do not show until RebuildActivity recounts them.
func TestProfileReadsCountersAndRebuildRecounts(t *testing.T) {
	storetest.Run(t, func(t *testing.T, db *store.DB) {
		f := newFixture(t, db)
		author, reader := f.agent("author"), f.agent("reader")
		m := f.publish(author, "sql")
		f.retrieve(reader, m)
		if s := f.profile(reader).Stats; s.Retrievals != 1 {
			t.Fatalf("stats %+v", s)
		}
		x := db.UnsafeSQL()
		if _, err := x.Exec(x.Rebind(`INSERT INTO retrievals (agent_id, memory_id, created_at) SELECT ?, memory_id, created_at FROM retrievals`), reader.Key); err != nil {
			t.Fatal(err)
		}
		if s := f.profile(reader).Stats; s.Retrievals != 1 {
			t.Fatalf("the profile counted history: %+v", s)
		}
		drift, err := db.CheckActivity(f.ctx)
		if err != nil || len(drift) != 1 || drift[0].Agent != reader.AgentID || drift[0].Counted.Retrievals != 2 {
			t.Fatalf("drift %+v, %v", drift, err)
		}
		if n, err := db.RebuildActivity(f.ctx); err != nil || n != 1 {
			t.Fatalf("rebuild changed %d agents (%v), want 1", n, err)
		}
		if s := f.profile(reader).Stats; s.Retrievals != 2 {
			t.Fatalf("after rebuild %+v", s)
		}
		if drift, _ := db.CheckActivity(f.ctx); len(drift) != 0 {
			t.Fatalf("drift after rebuild %+v", drift)
		}
	})
}

// A private memory is never counted: not as published, not as retrieved by
// its author, whatever its moderation. The recount counts what the write
// paths count, so it finds no drift and changes nothing.
func TestPrivateMemoryIsNeverCounted(t *testing.T) {
	storetest.Run(t, func(t *testing.T, db *store.DB) {
		f := newFixture(t, db)
		author, reader := f.agent("author"), f.agent("reader")
		public := f.publish(author, "sql")
		private := f.publishWith(author, issuer.Publication{Visibility: issuer.MemoryPrivate}).ID
		f.retrieve(author, private)
		f.retrieve(author, public)
		f.retrieve(reader, public)
		for _, st := range []issuer.MemoryStatus{issuer.MemoryQuarantined, issuer.MemoryActive} {
			if _, err := storetest.Admin(db).ModerateMemory(f.ctx, private, issuer.Moderation{Status: st}); err != nil {
				t.Fatal(err)
			}
		}
		drift, err := db.CheckActivity(f.ctx)
		if err != nil || len(drift) != 0 {
			t.Fatalf("drift %+v, %v", drift, err)
		}
		want := issuer.AgentStats{MemoriesPublished: 1, Retrievals: 1}
		if s := f.profile(author).Stats; s != want {
			t.Fatalf("stats %+v, want %+v", s, want)
		}
		if n, err := db.RebuildActivity(f.ctx); err != nil || n != 0 {
			t.Fatalf("rebuild changed %d agents (%v), want none", n, err)
		}
		if s := f.profile(author).Stats; s != want {
			t.Fatalf("after rebuild %+v, want %+v", s, want)
		}
	})
}

// Migration 12 recounts the published and retrieval counters that an
// earlier release let a private memory inflate: a recount that counted it
// as published, and its author reading it.
func TestMigrationRecountsPrivateMemoriesOut(t *testing.T) {
	storetest.Run(t, func(t *testing.T, db *store.DB) {
		f := newFixture(t, db)
		author := f.agent("author")
		f.publish(author, "sql")
		f.retrieve(author, f.publishWith(author, issuer.Publication{Visibility: issuer.MemoryPrivate}).ID)
		x := db.UnsafeSQL()
		if _, err := x.Exec(x.Rebind(`UPDATE agent_activity_counters SET memories_published = 2, retrievals = 1 WHERE agent_id = ?`), author.Key); err != nil {
			t.Fatal(err)
		}
		if _, err := x.Exec(`DELETE FROM goose_db_version WHERE version_id = 12`); err != nil {
			t.Fatal(err)
		}
		if err := db.ApplyMigration(f.ctx, 12); err != nil {
			t.Fatalf("migration 12: %v", err)
		}
		if s, want := f.profile(author).Stats, (issuer.AgentStats{MemoriesPublished: 1}); s != want {
			t.Fatalf("stats %+v, want %+v", s, want)
		}
	})
}

// The eligibility check of a consultation's validation counts the
// retrievals under one receipt through the receipt index, not through the
// agent's whole retrieval history.
func TestReceiptEligibilityUsesReceiptIndex(t *testing.T) {
	storetest.Run(t, func(t *testing.T, db *store.DB) {
		const query = `SELECT COUNT(DISTINCT memory_id) FROM retrievals WHERE agent_id = ? AND receipt_id = ?`
		if text := queryPlan(t, db, query, 1, 1); !strings.Contains(text, "retrievals_receipt") {
			t.Fatalf("the eligibility query does not use retrievals_receipt:\n%s", text)
		}
	})
}
