package store_test

import (
	"testing"

	"github.com/remnant/passportkit/issuer"
	"github.com/remnant/passportkit/issuer/service"
	"github.com/remnant/passportkit/issuer/store"
	"github.com/remnant/passportkit/issuer/store/storetest"
	"github.com/remnant/passportkit/reputation"
)

// The figures the policy states for a novice evaluator.
func TestWorkedFigures(t *testing.T) {
	storetest.Run(t, func(t *testing.T, db *store.DB) {
		f := newFixture(t, db)
		author, novice := f.agent("author"), f.agent("novice")
		m1, m2, m3 := f.publish(author, "sql"), f.publish(author, "sql"), f.publish(author, "sql")

		f.consumeAndValidate(novice, m1, reputation.Corroborate)
		if got := f.score(author); got != 500 {
			t.Fatalf("first corroboration: score %v, want 0.5", got)
		}
		f.consumeAndValidate(novice, m2, reputation.Corroborate)
		if got := f.score(author); got != 750 {
			t.Fatalf("second memory: score %v, want 0.75 (0.5 + 0.25)", got)
		}
		f.consumeAndValidate(novice, m3, reputation.Contradict)
		if got := f.score(author); got != 250 {
			t.Fatalf("first contradiction: score %v, want 0.25 (0.75 − 0.5)", got)
		}
		want := []event{
			{"apply", "corroborate", 500, 500},
			{"apply", "corroborate", 250, 250},
			{"apply", "contradict", 500, -500},
		}
		if got := f.events(author); !equalEvents(got, want) {
			t.Fatalf("journal %+v, want %+v", got, want)
		}
	})
}

func equalEvents(a, b []event) bool {
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

func TestValidationRequiresConsumption(t *testing.T) {
	storetest.Run(t, func(t *testing.T, db *store.DB) {
		f := newFixture(t, db)
		author, evaluator := f.agent("author"), f.agent("evaluator")
		m := f.publish(author, "sql")
		_, _, err := svc(db).SubmitFeedback(f.ctx, evaluator, m, issuer.Feedback{Type: reputation.Corroborate}, issuer.TransportHTTP)
		wantCode(t, err, issuer.CodeConsumptionRequired)
		// A consultation is consumption too.
		if _, err := svc(db).Consult(f.ctx, evaluator, []issuer.MemoryID{m}); err != nil {
			t.Fatal(err)
		}
		f.validate(evaluator, m, reputation.Corroborate, "")
	})
}

func TestSelfFeedbackRefused(t *testing.T) {
	storetest.Run(t, func(t *testing.T, db *store.DB) {
		f := newFixture(t, db)
		author := f.agent("author")
		m := f.publish(author, "sql")
		f.retrieve(author, m)
		_, _, err := svc(db).SubmitFeedback(f.ctx, author, m, issuer.Feedback{Type: reputation.Corroborate}, issuer.TransportHTTP)
		wantCode(t, err, issuer.CodeSelfFeedback)
	})
}

func TestSameOwnerRefusedIncludingHistoricalBindings(t *testing.T) {
	storetest.Run(t, func(t *testing.T, db *store.DB) {
		f := newFixture(t, db)
		op1, err := storetest.Admin(db).CreateOperator(f.ctx, "Operator one")
		if err != nil {
			t.Fatal(err)
		}
		op2, _ := storetest.Admin(db).CreateOperator(f.ctx, "Operator two")
		author := f.agentWith(service.NewAgent{Name: "author", Operator: op1})
		sibling := f.agentWith(service.NewAgent{Name: "sibling", Operator: op1})
		stranger := f.agentWith(service.NewAgent{Name: "stranger", Operator: op2})
		unowned := f.agent("unowned")
		m := f.publish(author, "sql")
		for _, p := range []issuer.Principal{sibling, stranger, unowned} {
			f.retrieve(p, m)
		}
		_, _, err = svc(db).SubmitFeedback(f.ctx, sibling, m, issuer.Feedback{Type: reputation.Corroborate}, issuer.TransportHTTP)
		wantCode(t, err, issuer.CodeSameOwner)
		f.validate(stranger, m, reputation.Corroborate, "")
		f.validate(unowned, m, reputation.Corroborate, "")

		// Moving the sibling to another operator keeps the old binding in
		// history: it is still a known sibling.
		if err := storetest.Admin(db).BindOwner(f.ctx, op2, sibling.AgentID); err != nil {
			t.Fatal(err)
		}
		if n := f.count(`SELECT COUNT(*) FROM agent_owner_bindings WHERE agent_id = ?`, sibling.Key); n != 2 {
			t.Fatalf("%d owner bindings, want the closed one and the new one", n)
		}
		_, _, err = svc(db).SubmitFeedback(f.ctx, sibling, m, issuer.Feedback{Type: reputation.Corroborate}, issuer.TransportHTTP)
		wantCode(t, err, issuer.CodeSameOwner)

		// A binding made after the fact makes the pair siblings from now on.
		if err := storetest.Admin(db).BindOwner(f.ctx, op1, unowned.AgentID); err != nil {
			t.Fatal(err)
		}
		_, _, err = svc(db).SubmitFeedback(f.ctx, unowned, m, issuer.Feedback{Type: reputation.Contradict}, issuer.TransportHTTP)
		wantCode(t, err, issuer.CodeSameOwner)
	})
}

func TestInactiveAgentsRefused(t *testing.T) {
	storetest.Run(t, func(t *testing.T, db *store.DB) {
		f := newFixture(t, db)
		author, evaluator := f.agent("author"), f.agent("evaluator")
		m := f.publish(author, "sql")
		f.retrieve(evaluator, m)
		if err := storetest.Admin(db).SetAgentStatus(f.ctx, evaluator.AgentID, issuer.AgentSuspended); err != nil {
			t.Fatal(err)
		}
		suspended := f.reauth(evaluator)
		if suspended.Status != issuer.AgentSuspended {
			t.Fatalf("re-authenticated as %+v, want a suspended principal", suspended)
		}
		_, _, err := svc(db).SubmitFeedback(f.ctx, suspended, m, issuer.Feedback{Type: reputation.Corroborate}, issuer.TransportHTTP)
		wantCode(t, err, issuer.CodeAgentInactive)

		// A suspended author's memories are hidden and cannot be validated.
		if err := storetest.Admin(db).SetAgentStatus(f.ctx, evaluator.AgentID, issuer.AgentActive); err != nil {
			t.Fatal(err)
		}
		evaluator = f.reauth(evaluator)
		if err := storetest.Admin(db).SetAgentStatus(f.ctx, author.AgentID, issuer.AgentSuspended); err != nil {
			t.Fatal(err)
		}
		_, _, err = svc(db).SubmitFeedback(f.ctx, evaluator, m, issuer.Feedback{Type: reputation.Corroborate}, issuer.TransportHTTP)
		wantCode(t, err, issuer.CodeNotFound)
	})
}

func TestScopesRequired(t *testing.T) {
	storetest.Run(t, func(t *testing.T, db *store.DB) {
		f := newFixture(t, db)
		author := f.agent("author")
		m := f.publish(author, "sql")
		reader := f.agent("reader", issuer.ScopeSearch)
		writer := f.agent("writer", issuer.ScopeFeedback)
		_, err := svc(db).Publish(f.ctx, reader, issuer.Publication{Category: "x", Domain: "x", Title: "t", Content: "c"})
		wantCode(t, err, issuer.CodeInsufficientScope)
		_, err = svc(db).Retrieve(f.ctx, writer, m)
		wantCode(t, err, issuer.CodeInsufficientScope)
		f.retrieve(reader, m)
		_, _, err = svc(db).SubmitFeedback(f.ctx, reader, m, issuer.Feedback{Type: reputation.Corroborate}, issuer.TransportHTTP)
		wantCode(t, err, issuer.CodeInsufficientScope)
		_, err = svc(db).Validations(f.ctx, writer, m)
		wantCode(t, err, issuer.CodeInsufficientScope)
		_, err = svc(db).Reputation(f.ctx, writer, author.AgentID, issuer.ReputationQuery{Limit: 20})
		wantCode(t, err, issuer.CodeInsufficientScope)
	})
}

// Refused submissions change nothing: not history, reputation, aggregates,
// audit or idempotency records.
func TestRefusalsLeaveNoTrace(t *testing.T) {
	storetest.Run(t, func(t *testing.T, db *store.DB) {
		f := newFixture(t, db)
		op, _ := storetest.Admin(db).CreateOperator(f.ctx, "op")
		author := f.agentWith(service.NewAgent{Name: "author", Operator: op})
		sibling := f.agentWith(service.NewAgent{Name: "sibling", Operator: op})
		evaluator := f.agent("evaluator")
		noScope := f.agent("no feedback scope", issuer.ScopeSearch)
		m := f.publish(author, "sql")
		own := f.publish(evaluator, "sql")
		unread := f.publish(author, "sql")
		for _, p := range []issuer.Principal{sibling, evaluator, noScope} {
			f.retrieve(p, m)
		}
		f.retrieve(evaluator, own)
		receipt, err := svc(db).Consult(f.ctx, evaluator, []issuer.MemoryID{m, own})
		if err != nil {
			t.Fatal(err)
		}
		// An earlier success, so that a reused key has something to clash with.
		if _, _, err := svc(db).SubmitFeedback(f.ctx, evaluator, m, issuer.Feedback{Type: reputation.Useful, IdempotencyKey: "k1"}, issuer.TransportHTTP); err != nil {
			t.Fatal(err)
		}
		suspended := f.agent("suspended")
		f.retrieve(suspended, m)
		if err := storetest.Admin(db).SetAgentStatus(f.ctx, suspended.AgentID, issuer.AgentSuspended); err != nil {
			t.Fatal(err)
		}
		suspended.Status = issuer.AgentSuspended

		before := snapshot(t, db)
		fb := issuer.Feedback{Type: reputation.Corroborate, Reason: "r", IdempotencyKey: "fresh"}
		for _, c := range []struct {
			name string
			run  func() error
			code issuer.Code
		}{
			{"self", func() error { return f.submit(evaluator, own, fb) }, issuer.CodeSelfFeedback},
			{"not consumed", func() error { return f.submit(evaluator, unread, fb) }, issuer.CodeConsumptionRequired},
			{"same owner", func() error { return f.submit(sibling, m, fb) }, issuer.CodeSameOwner},
			{"missing scope", func() error { return f.submit(noScope, m, fb) }, issuer.CodeInsufficientScope},
			{"inactive", func() error { return f.submit(suspended, m, fb) }, issuer.CodeAgentInactive},
			{"unknown memory", func() error { return f.submit(evaluator, "mem_aaaaaaaaaaaaaaaaaaaaaaaaaa", fb) }, issuer.CodeNotFound},
			{"key reused with other input", func() error {
				return f.submit(evaluator, m, issuer.Feedback{Type: reputation.Contradict, IdempotencyKey: "k1"})
			}, issuer.CodeIdempotencyConflict},
			{"receipt with own memory", func() error {
				_, _, err := svc(db).SubmitReceiptFeedback(f.ctx, evaluator, receipt.ID, fb, issuer.TransportHTTP)
				return err
			}, issuer.CodeSelfFeedback},
			{"someone else's receipt", func() error {
				_, _, err := svc(db).SubmitReceiptFeedback(f.ctx, sibling, receipt.ID, fb, issuer.TransportHTTP)
				return err
			}, issuer.CodeNotFound},
		} {
			t.Run(c.name, func(t *testing.T) {
				wantCode(t, c.run(), c.code)
				if changed := diffSnapshots(before, snapshot(t, db)); len(changed) > 0 {
					t.Fatalf("a refusal changed tables %v", changed)
				}
			})
		}
	})
}

// submit sends a direct validation over HTTP and returns only the error.
func (f *fixture) submit(p issuer.Principal, mem issuer.MemoryID, fb issuer.Feedback) error {
	_, _, err := svc(f.db).SubmitFeedback(f.ctx, p, mem, fb, issuer.TransportHTTP)
	return err
}
