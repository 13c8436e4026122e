package store_test

import (
	"testing"

	"github.com/remnant/passportkit/issuer"
	"github.com/remnant/passportkit/issuer/store"
	"github.com/remnant/passportkit/issuer/store/storetest"
	"github.com/remnant/passportkit/reputation"
)

func TestOnePositionPerEvaluatorAcrossTypesAndTransports(t *testing.T) {
	storetest.Run(t, func(t *testing.T, db *store.DB) {
		f := newFixture(t, db)
		author, evaluator := f.agent("author"), f.agent("evaluator")
		m := f.publish(author, "sql")
		first := f.consumeAndValidate(evaluator, m, reputation.Corroborate)
		second, _, err := svc(db).SubmitFeedback(f.ctx, evaluator, m, issuer.Feedback{Type: reputation.UsedSuccessfully}, issuer.TransportMCP)
		if err != nil {
			t.Fatal(err)
		}
		if second.Validation.ID != first.Validation.ID || second.Validation.Revision != 2 {
			t.Fatalf("second transport: %+v, want the same position at revision 2", second.Validation)
		}
		receipt, err := svc(db).Consult(f.ctx, evaluator, []issuer.MemoryID{m})
		if err != nil {
			t.Fatal(err)
		}
		third, _, err := svc(db).SubmitReceiptFeedback(f.ctx, evaluator, receipt.ID, issuer.Feedback{Type: reputation.Useful}, issuer.TransportHTTP)
		if err != nil {
			t.Fatal(err)
		}
		if v := third.Validations[0].Validation; v.ID != first.Validation.ID || v.Revision != 3 || v.Type != reputation.Useful {
			t.Fatalf("receipt feedback: %+v, want the same position at revision 3", v)
		}
		if n := f.count(`SELECT COUNT(*) FROM feedback`); n != 1 {
			t.Fatalf("%d positions, want 1", n)
		}
		sum := third.Validations[0].Confidence
		if sum.IndependentValidators != 1 || sum.Counts.Useful != 1 || sum.Counts.Corroborate != 0 {
			t.Fatalf("summary %+v, want one useful position", sum)
		}
		if d := f.domain(author, "sql"); d.SampleSize != 1 || d.PositiveEvents != 1 {
			t.Fatalf("domain %+v, want one evaluator and one position", d)
		}
		// Only the last position counts: 0.5 × 0.5 points.
		if got := f.score(author); got != 250 {
			t.Fatalf("score %v, want 0.25", got)
		}
	})
}

func TestReplacementAppendsCompensationAndHistory(t *testing.T) {
	storetest.Run(t, func(t *testing.T, db *store.DB) {
		f := newFixture(t, db)
		author, evaluator := f.agent("author"), f.agent("evaluator")
		m := f.publish(author, "sql")
		f.consumeAndValidate(evaluator, m, reputation.Corroborate)
		f.validate(evaluator, m, reputation.Contradict, "it failed for me")
		want := []event{
			{"apply", "corroborate", 500, 500},
			{"compensation", "corroborate", 500, -500},
			{"apply", "contradict", 500, -500},
		}
		if got := f.events(author); !equalEvents(got, want) {
			t.Fatalf("journal %+v, want %+v", got, want)
		}
		if n := f.count(`SELECT COUNT(*) FROM feedback_history WHERE change = 'position'`); n != 2 {
			t.Fatalf("%d position revisions in history, want 2", n)
		}
		if got := f.score(author); got != -500 {
			t.Fatalf("score %v, want −0.5", got)
		}
	})
}

func TestReasonOnlyChangeHasNoReputationEffect(t *testing.T) {
	storetest.Run(t, func(t *testing.T, db *store.DB) {
		f := newFixture(t, db)
		author, evaluator := f.agent("author"), f.agent("evaluator")
		m := f.publish(author, "sql")
		f.retrieve(evaluator, m)
		f.validate(evaluator, m, reputation.Corroborate, "first reason")
		evidence := f.retrieve(evaluator, m).EvidenceUpdatedAt
		before := derived(t, db)
		events := len(f.events(author))

		res := f.validate(evaluator, m, reputation.Corroborate, "a better reason")
		if res.Validation.Revision != 2 {
			t.Fatalf("revision %d, want 2", res.Validation.Revision)
		}
		if len(f.events(author)) != events {
			t.Fatal("a reason change appended journal entries")
		}
		if got := derived(t, db); len(diffSnapshots(before, got)) > 0 {
			t.Fatalf("a reason change moved %v", diffSnapshots(before, got))
		}
		if n := f.count(`SELECT COUNT(*) FROM feedback_history WHERE change = 'detail' AND reason = 'a better reason'`); n != 1 {
			t.Fatalf("%d detail revisions, want 1", n)
		}
		// The history is the record of a direct validation; the audit log
		// does not repeat it.
		if n := f.count(`SELECT COUNT(*) FROM feedback_history WHERE change = 'detail' AND transport = 'http'`); n != 1 {
			t.Fatalf("%d detail revisions over http, want 1", n)
		}
		if n := f.count(`SELECT COUNT(*) FROM audit_events WHERE action LIKE 'validation.%'`); n != 0 {
			t.Fatalf("%d audit entries for direct validations, want 0", n)
		}
		if after := f.retrieve(evaluator, m).EvidenceUpdatedAt; after == nil || !after.Equal(*evidence) {
			t.Fatalf("evidence timestamp moved from %v to %v", evidence, after)
		}
	})
}

func TestExactRepeatWithoutKeyIsNoop(t *testing.T) {
	storetest.Run(t, func(t *testing.T, db *store.DB) {
		f := newFixture(t, db)
		author, evaluator := f.agent("author"), f.agent("evaluator")
		m := f.publish(author, "sql")
		f.retrieve(evaluator, m)
		first := f.validate(evaluator, m, reputation.Useful, "helped")
		before := snapshot(t, db)
		again := f.validate(evaluator, m, reputation.Useful, "helped")
		if again.Validation != first.Validation {
			t.Fatalf("repeat returned %+v, want %+v", again.Validation, first.Validation)
		}
		if changed := diffSnapshots(before, snapshot(t, db)); len(changed) > 0 {
			t.Fatalf("an exact repeat changed %v", changed)
		}
	})
}

func TestIdempotencyKeyReplaysRecordedResponse(t *testing.T) {
	storetest.Run(t, func(t *testing.T, db *store.DB) {
		f := newFixture(t, db)
		author, evaluator := f.agent("author"), f.agent("evaluator")
		m := f.publish(author, "sql")
		f.retrieve(evaluator, m)
		old := issuer.Feedback{Type: reputation.Corroborate, Reason: "reproduced", IdempotencyKey: "reproduction-001"}
		first, replayed, err := svc(db).SubmitFeedback(f.ctx, evaluator, m, old, issuer.TransportHTTP)
		if err != nil || replayed {
			t.Fatalf("first submission: replayed %v, %v", replayed, err)
		}
		f.validate(evaluator, m, reputation.Contradict, "changed my mind")
		before := snapshot(t, db)

		// A delayed retry of the old request returns its recorded response
		// and does not bring the old position back.
		again, replayed, err := svc(db).SubmitFeedback(f.ctx, evaluator, m, old, issuer.TransportMCP)
		if err != nil || !replayed {
			t.Fatalf("retry: replayed %v, %v", replayed, err)
		}
		if again.Validation != first.Validation || again.Confidence != first.Confidence {
			t.Fatalf("retry returned %+v, want the recorded %+v", again, first)
		}
		if changed := diffSnapshots(before, snapshot(t, db)); len(changed) > 0 {
			t.Fatalf("a replay changed %v", changed)
		}
		if got := f.score(author); got != -500 {
			t.Fatalf("score %v: the replay restored the outdated position", got)
		}
	})
}

func TestIdempotencyKeyConflict(t *testing.T) {
	storetest.Run(t, func(t *testing.T, db *store.DB) {
		f := newFixture(t, db)
		author, evaluator := f.agent("author"), f.agent("evaluator")
		m1, m2 := f.publish(author, "sql"), f.publish(author, "sql")
		receipt, err := svc(db).Consult(f.ctx, evaluator, []issuer.MemoryID{m1, m2})
		if err != nil {
			t.Fatal(err)
		}
		if err := f.submit(evaluator, m1, issuer.Feedback{Type: reputation.Useful, IdempotencyKey: "k"}); err != nil {
			t.Fatal(err)
		}
		wantCode(t, f.submit(evaluator, m1, issuer.Feedback{Type: reputation.Useful, Reason: "x", IdempotencyKey: "k"}), issuer.CodeIdempotencyConflict)
		wantCode(t, f.submit(evaluator, m2, issuer.Feedback{Type: reputation.Useful, IdempotencyKey: "k"}), issuer.CodeIdempotencyConflict)
		// Memory and receipt feedback share one namespace per agent.
		_, _, err = svc(db).SubmitReceiptFeedback(f.ctx, evaluator, receipt.ID, issuer.Feedback{Type: reputation.Useful, IdempotencyKey: "k"}, issuer.TransportHTTP)
		wantCode(t, err, issuer.CodeIdempotencyConflict)
		// Another agent's namespace is its own.
		other := f.agent("other")
		f.retrieve(other, m1)
		if err := f.submit(other, m1, issuer.Feedback{Type: reputation.Contradict, IdempotencyKey: "k"}); err != nil {
			t.Fatal(err)
		}
	})
}

func TestLegacyVerdictsAreMappedAndKept(t *testing.T) {
	storetest.Run(t, func(t *testing.T, db *store.DB) {
		f := newFixture(t, db)
		author, evaluator := f.agent("author"), f.agent("evaluator")
		m := f.publish(author, "sql")
		f.retrieve(evaluator, m)
		submit := func(v reputation.Verdict, note string) issuer.FeedbackResult {
			res, _, err := svc(db).SubmitFeedback(f.ctx, evaluator, m, issuer.Feedback{Type: v.Type(), Verdict: v, Reason: note}, issuer.TransportHTTP)
			if err != nil {
				t.Fatal(err)
			}
			return res
		}
		if res := submit(reputation.VerdictConfirm, "works"); res.Validation.Type != reputation.Corroborate {
			t.Fatalf("confirm recorded as %s", res.Validation.Type)
		}
		submit(reputation.VerdictOutdated, "works")
		// irrelevant maps to the same type: a revision, no reputation effect.
		events := len(f.events(author))
		if res := submit(reputation.VerdictIrrelevant, "works"); res.Validation.Type != reputation.NotUseful || res.Validation.Revision != 3 {
			t.Fatalf("irrelevant: %+v", res.Validation)
		}
		if len(f.events(author)) != events {
			t.Fatal("a verdict change within one type moved reputation")
		}
		var verdicts []string
		if err := db.UnsafeSQL().Select(&verdicts, `SELECT legacy_verdict FROM feedback_history ORDER BY id`); err != nil {
			t.Fatal(err)
		}
		if want := []string{"confirm", "outdated", "irrelevant"}; !equalStrings(verdicts, want) {
			t.Fatalf("history verdicts %v, want %v", verdicts, want)
		}
	})
}

func equalStrings(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// credible makes e credible in domain: five novices corroborate five of its
// memories each once; score 5 × 0.5 × 2 points, confidence 0.5.
func (f *fixture) makeCredible(e issuer.Principal, domain string) {
	f.t.Helper()
	for i := range 5 {
		m := f.publish(e, domain)
		v := f.agent("voucher")
		f.retrieve(v, m)
		f.validate(v, m, reputation.UsedSuccessfully, "")
		_ = i
	}
	d := f.domain(e, domain)
	if d.Score < reputation.CredibleScore || d.Confidence < reputation.CredibleConfidence {
		f.t.Fatalf("%s not credible in %s: %+v", e.AgentID, domain, d)
	}
}

func TestEvaluatorWeightByDomainCredibilityFrozenAtFirstPosition(t *testing.T) {
	storetest.Run(t, func(t *testing.T, db *store.DB) {
		f := newFixture(t, db)
		author, evaluator := f.agent("author"), f.agent("evaluator")
		before := f.publish(author, "sql")
		f.consumeAndValidate(evaluator, before, reputation.Corroborate) // weight 0.5

		f.makeCredible(evaluator, "sql")

		after := f.publish(author, "sql")
		other := f.publish(author, "go")
		f.consumeAndValidate(evaluator, after, reputation.Corroborate)
		f.consumeAndValidate(evaluator, other, reputation.Corroborate)
		// Changing the early position keeps its frozen weight 0.5.
		f.validate(evaluator, before, reputation.UsedSuccessfully, "")

		var weights []int64
		if err := db.UnsafeSQL().Select(&weights, db.UnsafeSQL().Rebind(`SELECT f.base_weight FROM feedback f
			JOIN memories m ON m.id = f.memory_id WHERE m.author_id = ? ORDER BY f.memory_id`), author.Key); err != nil {
			t.Fatal(err)
		}
		if want := []int64{500, 1000, 500}; len(weights) != 3 || weights[0] != want[0] || weights[1] != want[1] || weights[2] != want[2] {
			t.Fatalf("base weights %v, want %v (frozen, credible in sql, novice in go)", weights, want)
		}
	})
}

func TestPositiveBudgetSharedAcrossDirectionsAndDomains(t *testing.T) {
	storetest.Run(t, func(t *testing.T, db *store.DB) {
		f := newFixture(t, db)
		a, b := f.agent("a"), f.agent("b")
		ma := f.publish(a, "sql")
		mb := f.publish(b, "go")
		f.consumeAndValidate(a, mb, reputation.Corroborate) // rank 0 of the pair
		f.consumeAndValidate(b, ma, reputation.Corroborate) // rank 1, the other direction and domain
		if got := f.score(b); got != 500 {
			t.Fatalf("b: %v, want 0.5", got)
		}
		if got := f.score(a); got != 250 {
			t.Fatalf("a: %v, want 0.25: praise in one direction spends the pair's budget", got)
		}
	})
}

func TestNegativeBudgetIsDirectional(t *testing.T) {
	storetest.Run(t, func(t *testing.T, db *store.DB) {
		f := newFixture(t, db)
		a, b := f.agent("a"), f.agent("b")
		var mb []issuer.MemoryID
		for range 3 {
			mb = append(mb, f.publish(b, "sql"))
		}
		ma := f.publish(a, "sql")
		// Reciprocal praise spends the positive budget only.
		f.consumeAndValidate(a, mb[0], reputation.Corroborate)
		f.consumeAndValidate(b, ma, reputation.Corroborate)
		f.consumeAndValidate(a, mb[1], reputation.Contradict)
		ev := f.events(b)
		if last := ev[len(ev)-1]; last.Delta != -500 {
			t.Fatalf("a's first criticism of b: %+v, want −0.5", last)
		}
		// b criticising a draws on b's own budget towards a.
		f.validate(b, ma, reputation.Contradict, "")
		ev = f.events(a)
		if last := ev[len(ev)-1]; last.Delta != -500 {
			t.Fatalf("b's first criticism of a: %+v, want −0.5", last)
		}
		// a's second criticism of b is its second rank.
		f.consumeAndValidate(a, mb[2], reputation.NotUseful)
		ev = f.events(b)
		if last := ev[len(ev)-1]; last.Weight != 250 || last.Delta != -125 {
			t.Fatalf("a's second criticism: %+v, want weight 0.25, delta −0.125", last)
		}
	})
}

func TestBudgetExhaustionKeepsZeroWeightPositionsVisible(t *testing.T) {
	storetest.Run(t, func(t *testing.T, db *store.DB) {
		f := newFixture(t, db)
		author, evaluator := f.agent("author"), f.agent("evaluator")
		wantDelta := []int64{500, 250, 125, 62, 31, 0}
		var last issuer.FeedbackResult
		for i, w := range wantDelta {
			m := f.publish(author, "sql")
			last = f.consumeAndValidate(evaluator, m, reputation.Corroborate)
			ev := f.events(author)
			if got := ev[len(ev)-1].Delta; got != w {
				t.Fatalf("position %d: delta %d, want %d", i+1, got, w)
			}
		}
		s := last.Confidence
		if s.IndependentValidators != 1 || s.Counts.Corroborate != 1 || s.PositiveValidators != 0 || s.State != reputation.StateNew {
			t.Fatalf("exhausted position's summary %+v: visible in counts, not advancing", s)
		}
		if d := f.domain(author, "sql"); d.SampleSize != 1 || d.PositiveEvents != 5 {
			t.Fatalf("domain %+v: one evaluator, five weighted positions", d)
		}
	})
}

func TestPolaritySwitchRanksOnceAndSwitchingBackReusesWeight(t *testing.T) {
	storetest.Run(t, func(t *testing.T, db *store.DB) {
		f := newFixture(t, db)
		author, evaluator := f.agent("author"), f.agent("evaluator")
		m1, m2, m3 := f.publish(author, "sql"), f.publish(author, "sql"), f.publish(author, "sql")
		f.consumeAndValidate(evaluator, m1, reputation.Contradict)  // negative rank 0
		f.consumeAndValidate(evaluator, m2, reputation.Corroborate) // positive rank 0
		f.validate(evaluator, m2, reputation.Contradict, "")        // negative rank 1: 0.25
		f.consumeAndValidate(evaluator, m3, reputation.Useful)      // positive rank 1: 0.25
		f.validate(evaluator, m2, reputation.Useful, "")            // back to positive rank 0: 0.5
		ev := f.events(author)
		want := []event{
			{"apply", "contradict", 500, -500},
			{"apply", "corroborate", 500, 500},
			{"compensation", "corroborate", 500, -500},
			{"apply", "contradict", 250, -250},
			{"apply", "useful", 250, 125},
			{"compensation", "contradict", 250, 250},
			{"apply", "useful", 500, 250},
		}
		if !equalEvents(ev, want) {
			t.Fatalf("journal\n%+v\nwant\n%+v", ev, want)
		}
		if n := f.count(`SELECT positions FROM reputation_negative_pair_counters`); n != 2 {
			t.Fatalf("negative budget %d, want 2", n)
		}
		if n := f.count(`SELECT positions FROM reputation_pair_counters`); n != 2 {
			t.Fatalf("positive budget %d, want 2", n)
		}
	})
}
