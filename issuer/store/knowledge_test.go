package store_test

import (
	"testing"

	"github.com/remnant/passportkit/issuer"
	"github.com/remnant/passportkit/issuer/store"
	"github.com/remnant/passportkit/issuer/store/storetest"
	"github.com/remnant/passportkit/reputation"
)

func TestKnowledgeStateAndConfidenceThroughValidations(t *testing.T) {
	storetest.Run(t, func(t *testing.T, db *store.DB) {
		f := newFixture(t, db)
		author := f.agent("author")
		pub := issuer.Publication{Category: "sql", Domain: "sql", Title: "t", Content: "c", Confidence: 600}
		mem, err := svc(db).Publish(f.ctx, author, pub)
		if err != nil {
			t.Fatal(err)
		}
		if mem.ConfidenceState != reputation.StateNew || mem.Confidence != 600 {
			t.Fatalf("new memory: %s at %v", mem.ConfidenceState, mem.Confidence)
		}
		steps := []struct {
			typ   reputation.Type
			state reputation.KnowledgeState
			conf  reputation.Milli
		}{
			{reputation.Corroborate, reputation.StateObserved, 615}, // +0.03 × 0.5
			{reputation.Useful, reputation.StateCorroborated, 630},  // two positive, weight 1
			{reputation.Contradict, reputation.StateContested, 600}, // positive 1, negative 0.5: −0.06 × 0.5
			{reputation.NotUseful, reputation.StateContested, 570},  // negative 1
			{reputation.UsedSuccessfully, reputation.StateContested, 585},
		}
		for i, s := range steps {
			res := f.consumeAndValidate(f.agent("evaluator"), mem.ID, s.typ)
			got := f.retrieve(author, mem.ID)
			if res.Confidence.State != s.state || got.ConfidenceState != s.state || got.ValidationSummary != res.Confidence {
				t.Fatalf("step %d: state %s / %s, want %s", i+1, res.Confidence.State, got.ConfidenceState, s.state)
			}
			if got.Confidence != s.conf {
				t.Fatalf("step %d: confidence %v, want %v", i+1, got.Confidence, s.conf)
			}
		}
		sum, err := svc(db).Validations(f.ctx, author, mem.ID)
		if err != nil {
			t.Fatal(err)
		}
		want := reputation.Summary{
			State: reputation.StateContested, IndependentValidators: 5,
			Counts:             reputation.Counts{Corroborate: 1, Contradict: 1, Useful: 1, NotUseful: 1, UsedSuccessfully: 1},
			PositiveValidators: 3, NegativeValidators: 2, PositiveWeight: 1500, NegativeWeight: 1000,
		}
		if sum != want {
			t.Fatalf("summary\n%+v\nwant\n%+v", sum, want)
		}
	})
}

func TestLineageGrantsNothing(t *testing.T) {
	storetest.Run(t, func(t *testing.T, db *store.DB) {
		f := newFixture(t, db)
		author := f.agent("author")
		parent := f.publish(author, "sql")
		for range 3 {
			f.consumeAndValidate(f.agent("evaluator"), parent, reputation.Corroborate)
		}
		score := f.score(author)
		child, err := svc(db).Publish(f.ctx, author, issuer.Publication{
			Category: "sql", Domain: "sql", Title: "v2", Content: "better", Confidence: 500,
			Links: []issuer.Link{{Kind: issuer.LinkSupersedes, Target: parent}},
		})
		if err != nil {
			t.Fatal(err)
		}
		if child.ConfidenceState != reputation.StateNew || child.ValidationSummary.IndependentValidators != 0 {
			t.Fatalf("a new version inherited validations: %+v", child.ValidationSummary)
		}
		if len(child.Supersedes) != 1 || child.Supersedes[0] != parent || child.VersionRoot != parent {
			t.Fatalf("lineage %+v %s", child.Supersedes, child.VersionRoot)
		}
		if f.score(author) != score {
			t.Fatal("publishing a new version changed the author's score")
		}
	})
}

func TestReceiptFeedbackAppliesToEachActivatedMemory(t *testing.T) {
	storetest.Run(t, func(t *testing.T, db *store.DB) {
		f := newFixture(t, db)
		a, b, evaluator := f.agent("a"), f.agent("b"), f.agent("evaluator")
		ma, mb := f.publish(a, "sql"), f.publish(b, "go")
		r, err := svc(db).Consult(f.ctx, evaluator, []issuer.MemoryID{ma, mb})
		if err != nil {
			t.Fatal(err)
		}
		res, _, err := svc(db).SubmitReceiptFeedback(f.ctx, evaluator, r.ID, issuer.Feedback{Type: reputation.Corroborate, Verdict: reputation.VerdictConfirm, Reason: "good"}, issuer.TransportHTTP)
		if err != nil {
			t.Fatal(err)
		}
		if !res.OK || res.Receipt.ID != r.ID || res.Receipt.Revision != 1 || len(res.Validations) != 2 {
			t.Fatalf("response %+v", res)
		}
		for _, v := range res.Validations {
			if v.Validation.Type != reputation.Corroborate || v.Validation.Revision != 1 {
				t.Fatalf("validation %+v", v)
			}
		}
		if f.score(a) != 500 || f.score(b) != 500 {
			t.Fatalf("scores %v and %v, want 0.5 each", f.score(a), f.score(b))
		}
		// The consultation counts once towards feedbackGiven.
		if got := f.profile(evaluator).Stats.FeedbackGiven; got != 1 {
			t.Fatalf("feedbackGiven %d, want 1", got)
		}
	})
}

func TestReceiptWithOwnMemoryIsRefusedWhole(t *testing.T) {
	storetest.Run(t, func(t *testing.T, db *store.DB) {
		f := newFixture(t, db)
		other, evaluator := f.agent("other"), f.agent("evaluator")
		theirs, own := f.publish(other, "sql"), f.publish(evaluator, "sql")
		r, err := svc(db).Consult(f.ctx, evaluator, []issuer.MemoryID{theirs, own})
		if err != nil {
			t.Fatal(err)
		}
		before := snapshot(t, db)
		_, _, err = svc(db).SubmitReceiptFeedback(f.ctx, evaluator, r.ID, issuer.Feedback{Type: reputation.Corroborate}, issuer.TransportHTTP)
		wantCode(t, err, issuer.CodeSelfFeedback)
		if changed := diffSnapshots(before, snapshot(t, db)); len(changed) > 0 {
			t.Fatalf("a refused receipt changed %v", changed)
		}
	})
}

func TestReceiptRepeatDoesNotOverwriteNewerDirectPosition(t *testing.T) {
	storetest.Run(t, func(t *testing.T, db *store.DB) {
		f := newFixture(t, db)
		author, evaluator := f.agent("author"), f.agent("evaluator")
		m1, m2 := f.publish(author, "sql"), f.publish(author, "sql")
		r, err := svc(db).Consult(f.ctx, evaluator, []issuer.MemoryID{m1, m2})
		if err != nil {
			t.Fatal(err)
		}
		fb := issuer.Feedback{Type: reputation.Corroborate, Reason: "consulted"}
		submit := func(fb issuer.Feedback) issuer.ReceiptFeedbackResult {
			t.Helper()
			res, _, err := svc(db).SubmitReceiptFeedback(f.ctx, evaluator, r.ID, fb, issuer.TransportHTTP)
			if err != nil {
				t.Fatal(err)
			}
			return res
		}
		submit(fb)
		direct := f.validate(evaluator, m1, reputation.Contradict, "direct")
		events := len(f.events(author))
		audits := f.count(`SELECT COUNT(*) FROM audit_events WHERE action = 'consultation.validation_repeated'`)

		// An unchanged repeat without a key leaves both positions alone and
		// records the attempt in the audit log.
		res := submit(fb)
		if res.Validations[0].Validation != direct.Validation {
			t.Fatalf("repeat reported %+v for m1, want the direct position %+v", res.Validations[0].Validation, direct.Validation)
		}
		if len(f.events(author)) != events {
			t.Fatal("an unchanged repeat moved reputation")
		}
		if n := f.count(`SELECT COUNT(*) FROM audit_events WHERE action = 'consultation.validation_repeated'`); n != audits+1 {
			t.Fatalf("%d repeat audit entries, want %d", n, audits+1)
		}

		// A reason edit revises only the memory the receipt still owns.
		res = submit(issuer.Feedback{Type: reputation.Corroborate, Reason: "consulted again"})
		if res.Receipt.Revision != 2 {
			t.Fatalf("receipt revision %d, want 2", res.Receipt.Revision)
		}
		var reasons []string
		if err := db.UnsafeSQL().Select(&reasons, `SELECT reason FROM feedback ORDER BY memory_id`); err != nil {
			t.Fatal(err)
		}
		if reasons[0] != "direct" || reasons[1] != "consulted again" {
			t.Fatalf("reasons %v", reasons)
		}
		if len(f.events(author)) != events {
			t.Fatal("a reason edit moved reputation")
		}

		// A change of type applies to every activated memory again.
		res = submit(issuer.Feedback{Type: reputation.Useful})
		for _, v := range res.Validations {
			if v.Validation.Type != reputation.Useful {
				t.Fatalf("after a type change: %+v", v)
			}
		}
		if n := f.count(`SELECT COUNT(*) FROM feedback`); n != 2 {
			t.Fatalf("%d positions, want 2", n)
		}
	})
}

func TestFeedbackGivenCountsDistinctMemoriesAndReceipts(t *testing.T) {
	storetest.Run(t, func(t *testing.T, db *store.DB) {
		f := newFixture(t, db)
		author, evaluator := f.agent("author"), f.agent("evaluator")
		m1, m2, m3 := f.publish(author, "sql"), f.publish(author, "sql"), f.publish(author, "sql")
		f.consumeAndValidate(evaluator, m1, reputation.Corroborate)
		f.validate(evaluator, m1, reputation.Contradict, "")  // a revision
		f.validate(evaluator, m1, reputation.Contradict, "x") // another
		f.consumeAndValidate(evaluator, m2, reputation.Useful)
		r, err := svc(db).Consult(f.ctx, evaluator, []issuer.MemoryID{m2, m3})
		if err != nil {
			t.Fatal(err)
		}
		if _, _, err := svc(db).SubmitReceiptFeedback(f.ctx, evaluator, r.ID, issuer.Feedback{Type: reputation.Corroborate}, issuer.TransportHTTP); err != nil {
			t.Fatal(err)
		}
		if _, _, err := svc(db).SubmitReceiptFeedback(f.ctx, evaluator, r.ID, issuer.Feedback{Type: reputation.Useful}, issuer.TransportHTTP); err != nil {
			t.Fatal(err)
		}
		// m1 and m2 directly, plus one receipt; m3's receipt-generated
		// position is not direct feedback.
		if got := f.profile(evaluator).Stats.FeedbackGiven; got != 3 {
			t.Fatalf("feedbackGiven %d, want 3", got)
		}
	})
}

func TestModerationChangesVisibilityOnly(t *testing.T) {
	storetest.Run(t, func(t *testing.T, db *store.DB) {
		f := newFixture(t, db)
		author, evaluator := f.agent("author"), f.agent("evaluator")
		m := f.publish(author, "sql")
		f.consumeAndValidate(evaluator, m, reputation.Corroborate)
		score := f.score(author)
		events := len(f.events(author))
		report := func() issuer.ReputationReport {
			rep, err := svc(db).Reputation(f.ctx, evaluator, author.AgentID, issuer.ReputationQuery{Limit: 20})
			if err != nil {
				t.Fatal(err)
			}
			return rep
		}
		if got := report().Events[0].Memory; got != m {
			t.Fatalf("report names memory %q, want %s", got, m)
		}
		for _, status := range []issuer.MemoryStatus{issuer.MemoryQuarantined, issuer.MemoryRemoved} {
			prev, err := storetest.Admin(db).ModerateMemory(f.ctx, m, issuer.Moderation{Status: status, Reason: "review"})
			if err != nil {
				t.Fatal(err)
			}
			if prev == status {
				t.Fatalf("previous status %s", prev)
			}
			if f.score(author) != score || len(f.events(author)) != events {
				t.Fatalf("moderation to %s moved reputation", status)
			}
			if got := report().Events[0].Memory; got != "" {
				t.Fatalf("%s memory still referenced as %q", status, got)
			}
			_, err = svc(db).Retrieve(f.ctx, evaluator, m)
			wantCode(t, err, issuer.CodeNotFound)
		}
		if _, err := storetest.Admin(db).ModerateMemory(f.ctx, m, issuer.Moderation{Status: issuer.MemoryActive}); err != nil {
			t.Fatal(err)
		}
		if got := report().Events[0].Memory; got != m {
			t.Fatalf("restored memory reported as %q", got)
		}
		if n := f.count(`SELECT COUNT(*) FROM audit_events WHERE action = 'memory.moderated' AND subject = ?`, string(m)); n != 3 {
			t.Fatalf("%d moderation audit entries, want 3", n)
		}
	})
}
