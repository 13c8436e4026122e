package store_test

import (
	"testing"

	"github.com/remnant/passportkit/issuer"
	"github.com/remnant/passportkit/issuer/store"
	"github.com/remnant/passportkit/issuer/store/storetest"
	"github.com/remnant/passportkit/reputation"
)

func TestDomainComesFromNormalisedCategory(t *testing.T) {
	storetest.Run(t, func(t *testing.T, db *store.DB) {
		f := newFixture(t, db)
		author, evaluator := f.agent("author"), f.agent("evaluator")
		pub, err := issuer.ParsePublication([]byte(`{"category":"  Power\tBI  /  Performance ","title":"t","content":"c"}`))
		if err != nil {
			t.Fatal(err)
		}
		m, err := svc(db).Publish(f.ctx, author, pub)
		if err != nil {
			t.Fatal(err)
		}
		if m.Domain != "power bi / performance" || m.Category != "Power\tBI  /  Performance" {
			t.Fatalf("category %q, domain %q", m.Category, m.Domain)
		}
		f.consumeAndValidate(evaluator, m.ID, reputation.Corroborate)
		q, err := issuer.NewReputationQuery(ptr("POWER BI / Performance"), nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		rep, err := svc(db).Reputation(f.ctx, evaluator, author.AgentID, q)
		if err != nil {
			t.Fatal(err)
		}
		if len(rep.Domains) != 1 || rep.Domains[0].Domain != "power bi / performance" || len(rep.Events) != 1 {
			t.Fatalf("filtered report %+v", rep)
		}
	})
}

func ptr[T any](v T) *T { return &v }

func TestSampleSizeCountsDistinctWeightedEvaluators(t *testing.T) {
	storetest.Run(t, func(t *testing.T, db *store.DB) {
		f := newFixture(t, db)
		author := f.agent("author")
		m1, m2 := f.publish(author, "sql"), f.publish(author, "sql")
		praise, critic := f.agent("praise"), f.agent("critic")
		f.consumeAndValidate(praise, m1, reputation.Corroborate)
		f.consumeAndValidate(praise, m2, reputation.Useful)
		f.consumeAndValidate(critic, m1, reputation.Contradict)
		d := f.domain(author, "sql")
		// Two evaluators: one with two positions, one negative.
		if d.SampleSize != 2 || d.Confidence != 200 || d.PositiveEvents != 2 || d.NegativeEvents != 1 {
			t.Fatalf("domain %+v, want sample 2, confidence 0.2, 2 positive and 1 negative positions", d)
		}
		// Replacing a position moves the counts, not adds to them.
		f.validate(praise, m2, reputation.NotUseful, "")
		d = f.domain(author, "sql")
		if d.SampleSize != 2 || d.PositiveEvents != 1 || d.NegativeEvents != 2 {
			t.Fatalf("after replacement %+v", d)
		}
		// Confidence saturates at ten evaluators.
		for range 10 {
			f.consumeAndValidate(f.agent("more"), m1, reputation.Corroborate)
		}
		if d := f.domain(author, "sql"); d.SampleSize != 12 || d.Confidence != 1000 {
			t.Fatalf("after twelve evaluators %+v", d)
		}
	})
}

func TestTrustLevelFollowsGlobalScoreAndEvaluators(t *testing.T) {
	storetest.Run(t, func(t *testing.T, db *store.DB) {
		f := newFixture(t, db)
		author := f.agent("author")
		m := f.publish(author, "sql")
		if got := f.profile(author).TrustLevel; got != reputation.TrustNew {
			t.Fatalf("a new agent has trust %s", got)
		}
		var evaluators []issuer.Principal
		for i := range 4 {
			e := f.agent("evaluator")
			evaluators = append(evaluators, e)
			f.consumeAndValidate(e, m, reputation.Corroborate)
			want := reputation.TrustNew
			if i == 3 { // four novices: score 2, four evaluators
				want = reputation.TrustObserved
			}
			if got := f.profile(author).TrustLevel; got != want {
				t.Fatalf("after %d corroborations: trust %s, want %s", i+1, got, want)
			}
		}
		// A corrected position can lower trust again.
		f.validate(evaluators[0], m, reputation.Contradict, "")
		if p := f.profile(author); p.TrustLevel != reputation.TrustNew || p.ReputationScore != 1000 {
			t.Fatalf("after a contradiction: %s at %v, want new at 1", p.TrustLevel, p.ReputationScore)
		}
	})
}

// Scores clamp to ±100 while the raw sums carry on, and the global score is
// the clamp of the raw global sum, not the sum of clamped domain scores.
func TestScoresClampOverRawSums(t *testing.T) {
	storetest.Run(t, func(t *testing.T, db *store.DB) {
		f := newFixture(t, db)
		author := f.agent("author")
		var mems []issuer.MemoryID
		for range 5 {
			mems = append(mems, f.publish(author, "a"))
		}
		// Each novice reports five successful uses: 2 × (0.5 + 0.25 + 0.125 +
		// 0.062 + 0.031) = 1.936 per evaluator; 52 of them make 100.672.
		var first issuer.Principal
		for i := range 52 {
			e := f.agent("user")
			r, err := svc(db).Consult(f.ctx, e, mems)
			if err != nil {
				t.Fatal(err)
			}
			if _, _, err := svc(db).SubmitReceiptFeedback(f.ctx, e, r.ID, issuer.Feedback{Type: reputation.UsedSuccessfully}, issuer.TransportHTTP); err != nil {
				t.Fatal(err)
			}
			if i == 0 {
				first = e
			}
		}
		if d := f.domain(author, "a"); d.Score != reputation.ScoreBound {
			t.Fatalf("domain score %v, want the bound 100", d.Score)
		}
		// Another domain pulls the global raw sum down: 100.672 − 2.5. The
		// sum of clamped domain scores would be 97.5.
		other := f.publish(author, "b")
		for range 5 {
			f.consumeAndValidate(f.agent("critic"), other, reputation.Contradict)
		}
		if d := f.domain(author, "b"); d.Score != -2500 {
			t.Fatalf("domain b %v, want −2.5", d.Score)
		}
		if got := f.score(author); got != 98_172 {
			t.Fatalf("global score %v, want 98.172", got)
		}
		// A reversal at the boundary takes effect against the raw sum:
		// 100.672 − 1 (withdrawn) − 1 (first criticism) = 98.672, not 98.
		f.validate(first, mems[0], reputation.UsedUnsuccessfully, "")
		if d := f.domain(author, "a"); d.Score != 98_672 {
			t.Fatalf("after a reversal: domain score %v, want 98.672", d.Score)
		}
		if got := f.score(author); got != 96_172 {
			t.Fatalf("global score %v, want 96.172", got)
		}
		rep, err := db.RebuildReputation(f.ctx, author.AgentID, nil)
		if err != nil || rep.Corrected != 0 {
			t.Fatalf("rebuild after clamping: %+v, %v", rep, err)
		}
	})
}
