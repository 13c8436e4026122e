package store_test

import (
	"testing"

	"github.com/remnant/passportkit/issuer"
	"github.com/remnant/passportkit/issuer/store"
	"github.com/remnant/passportkit/issuer/store/storetest"
	"github.com/remnant/passportkit/reputation"
)

// Publishing, retrieving, consulting and validating earn nothing; only an
// author receives the effect of a validation.
func TestOnlyAuthorsEarnReputation(t *testing.T) {
	storetest.Run(t, func(t *testing.T, db *store.DB) {
		f := newFixture(t, db)
		author, evaluator := f.agent("author"), f.agent("evaluator")
		if p := f.profile(author); p.ReputationScore != 0 || p.TrustLevel != reputation.TrustNew || len(p.DomainReputations) != 0 {
			t.Fatalf("a new agent: %+v", p)
		}
		var mems []issuer.MemoryID
		for range 3 {
			mems = append(mems, f.publish(author, "sql"))
		}
		if _, err := svc(db).Consult(f.ctx, evaluator, mems); err != nil {
			t.Fatal(err)
		}
		if f.score(author) != 0 {
			t.Fatal("publishing and being consulted earned reputation")
		}
		for _, m := range mems {
			f.consumeAndValidate(evaluator, m, reputation.UsedSuccessfully)
		}
		if p := f.profile(evaluator); p.ReputationScore != 0 || len(p.DomainReputations) != 0 || p.Stats.FeedbackGiven != 3 {
			t.Fatalf("the evaluator earned something for validating: %+v", p)
		}
		if f.score(author) == 0 {
			t.Fatal("the author earned nothing")
		}
	})
}

func TestReceiptIdempotencyKeyReplays(t *testing.T) {
	storetest.Run(t, func(t *testing.T, db *store.DB) {
		f := newFixture(t, db)
		author, evaluator := f.agent("author"), f.agent("evaluator")
		m := f.publish(author, "sql")
		r, err := svc(db).Consult(f.ctx, evaluator, []issuer.MemoryID{m})
		if err != nil {
			t.Fatal(err)
		}
		old := issuer.Feedback{Type: reputation.Useful, Verdict: "", Reason: "consulted", IdempotencyKey: "receipt-001"}
		first, replayed, err := svc(db).SubmitReceiptFeedback(f.ctx, evaluator, r.ID, old, issuer.TransportHTTP)
		if err != nil || replayed {
			t.Fatalf("%v %v", replayed, err)
		}
		if _, _, err := svc(db).SubmitReceiptFeedback(f.ctx, evaluator, r.ID, issuer.Feedback{Type: reputation.NotUseful}, issuer.TransportHTTP); err != nil {
			t.Fatal(err)
		}
		before := snapshot(t, db)
		again, replayed, err := svc(db).SubmitReceiptFeedback(f.ctx, evaluator, r.ID, old, issuer.TransportMCP)
		if err != nil || !replayed || again.Receipt != first.Receipt || len(again.Validations) != 1 || again.Validations[0] != first.Validations[0] {
			t.Fatalf("delayed retry: %+v replayed=%v %v", again, replayed, err)
		}
		if changed := diffSnapshots(before, snapshot(t, db)); len(changed) > 0 {
			t.Fatalf("a replayed receipt retry changed %v", changed)
		}
		_, _, err = svc(db).SubmitReceiptFeedback(f.ctx, evaluator, r.ID, issuer.Feedback{Type: reputation.Corroborate, IdempotencyKey: "receipt-001"}, issuer.TransportHTTP)
		wantCode(t, err, issuer.CodeIdempotencyConflict)
	})
}

// Zero-weight positions stay visible but do not refresh a memory's
// evidence timestamp.
func TestZeroWeightPositionsLeaveEvidenceTimestamp(t *testing.T) {
	storetest.Run(t, func(t *testing.T, db *store.DB) {
		f := newFixture(t, db)
		author, evaluator := f.agent("author"), f.agent("evaluator")
		for range 5 { // spend the pair's positive budget
			f.consumeAndValidate(evaluator, f.publish(author, "sql"), reputation.Corroborate)
		}
		m := f.publish(author, "sql")
		f.consumeAndValidate(f.agent("other"), m, reputation.Useful)
		stamp := f.retrieve(author, m).EvidenceUpdatedAt
		res := f.consumeAndValidate(evaluator, m, reputation.Corroborate)
		if res.Confidence.IndependentValidators != 2 || res.Confidence.PositiveValidators != 1 {
			t.Fatalf("summary %+v: the exhausted position should be visible, not weighted", res.Confidence)
		}
		if got := f.retrieve(author, m).EvidenceUpdatedAt; stamp == nil || got == nil || !got.Equal(*stamp) {
			t.Fatalf("evidence timestamp moved from %v to %v", stamp, got)
		}
	})
}

// A rebuild never touches the influence budgets.
func TestRebuildKeepsPairRanks(t *testing.T) {
	storetest.Run(t, func(t *testing.T, db *store.DB) {
		f := newFixture(t, db)
		a, b := f.agent("a"), f.agent("b")
		f.consumeAndValidate(b, f.publish(a, "sql"), reputation.Corroborate)
		f.consumeAndValidate(b, f.publish(a, "sql"), reputation.Contradict)
		f.consumeAndValidate(a, f.publish(b, "go"), reputation.Useful)
		before := snapshot(t, db)
		for _, p := range []issuer.Principal{a, b} {
			if _, err := db.RebuildReputation(f.ctx, p.AgentID, nil); err != nil {
				t.Fatal(err)
			}
		}
		after := snapshot(t, db)
		for _, table := range []string{"reputation_pair_counters", "reputation_negative_pair_counters", "reputation_events", "feedback", "feedback_history"} {
			if len(diffSnapshots(map[string][]string{table: before[table]}, map[string][]string{table: after[table]})) > 0 {
				t.Errorf("rebuild changed %s", table)
			}
		}
	})
}
