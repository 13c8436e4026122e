package store_test

import (
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/remnant/passportkit/evidence"
	"github.com/remnant/passportkit/issuer"
	"github.com/remnant/passportkit/issuer/issuing"
	"github.com/remnant/passportkit/issuer/service"
	"github.com/remnant/passportkit/issuer/store"
	"github.com/remnant/passportkit/issuer/store/storetest"
	"github.com/remnant/passportkit/reputation"
)

// publishWith publishes pub by author through the service and fails on
// error; category, title and content default to fixed text.
func (f *fixture) publishWith(author issuer.Principal, pub issuer.Publication) issuer.Memory {
	f.t.Helper()
	m, err := svc(f.db).Publish(f.ctx, author, f.pub(pub))
	if err != nil {
		f.t.Fatalf("publish: %v", err)
	}
	return m
}

func (f *fixture) pub(pub issuer.Publication) issuer.Publication {
	if pub.Category == "" {
		pub.Category, pub.Domain = "sql", "sql"
	}
	if pub.Title == "" {
		pub.Title = "A finding"
	}
	if pub.Content == "" {
		pub.Content = "Some knowledge."
	}
	if pub.Confidence == 0 {
		pub.Confidence = 500
	}
	return pub
}

// revision returns p's subject revision token.
func (f *fixture) revision(p issuer.Principal) string {
	f.t.Helper()
	r, err := f.db.RevisionOf(f.ctx, p.AgentID)
	if err != nil {
		f.t.Fatalf("revision: %v", err)
	}
	return r
}

func (f *fixture) outcome(p issuer.Principal, mem issuer.MemoryID, o issuer.OutcomeReport) (issuer.OutcomeResult, bool, error) {
	return svc(f.db).ReportOutcome(f.ctx, p, mem, o, issuer.TransportHTTP)
}

func TestPublishRecordsClaimsAndLineage(t *testing.T) {
	storetest.Run(t, func(t *testing.T, db *store.DB) {
		f := newFixture(t, db)
		author, other, reader := f.agent("author"), f.agent("other"), f.agent("reader")
		claim := issuer.AppliesTo{Skill: "sql tuning", Context: evidence.Context{Domain: "finance", Version: "16"}}
		ancestor := f.publishWith(author, issuer.Publication{Visibility: issuer.MemoryPrivate, Content: "private research notes"})
		theirs := f.publishWith(other, issuer.Publication{})
		v1 := f.publishWith(author, issuer.Publication{AppliesTo: claim, Links: []issuer.Link{
			{Kind: issuer.LinkDerivedFrom, Target: ancestor.ID}, {Kind: issuer.LinkExtends, Target: theirs.ID},
		}})
		v2 := f.publishWith(author, issuer.Publication{Links: []issuer.Link{{Kind: issuer.LinkSupersedes, Target: v1.ID}}})
		v3 := f.publishWith(author, issuer.Publication{Links: []issuer.Link{{Kind: issuer.LinkSupersedes, Target: v2.ID}}})

		if v1.AppliesTo != claim || v1.VersionRoot != "" || !strings.HasPrefix(v1.ContentHash, "sha256:") || len(v1.ContentHash) != 71 {
			t.Fatalf("v1 %+v", v1)
		}
		if v3.VersionRoot != v1.ID || v2.VersionRoot != v1.ID {
			t.Fatalf("version roots %s %s; want %s", v2.VersionRoot, v3.VersionRoot, v1.ID)
		}
		// The author sees its private ancestor; a reader never does.
		if mine := f.retrieve(author, v1.ID); len(mine.DerivedFrom) != 1 || mine.DerivedFrom[0] != ancestor.ID {
			t.Fatalf("author's view %+v", mine.DerivedFrom)
		}
		seen := f.retrieve(reader, v1.ID)
		if len(seen.DerivedFrom) != 0 || len(seen.Extends) != 1 || seen.Extends[0] != theirs.ID {
			t.Fatalf("reader's view derivedFrom %v extends %v", seen.DerivedFrom, seen.Extends)
		}
		_, err := svc(db).Retrieve(f.ctx, reader, ancestor.ID)
		wantCode(t, err, issuer.CodeNotFound)
		_, err = svc(db).Consult(f.ctx, reader, []issuer.MemoryID{ancestor.ID})
		wantCode(t, err, issuer.CodeNotFound)
		_, err = svc(db).Validations(f.ctx, reader, ancestor.ID)
		wantCode(t, err, issuer.CodeNotFound)
		// A private memory is not counted as published.
		if n := f.profile(author).Stats.MemoriesPublished; n != 3 {
			t.Fatalf("memoriesPublished %d; want 3", n)
		}
	})
}

func TestPublishRefusesLinksTheAuthorMayNotMake(t *testing.T) {
	storetest.Run(t, func(t *testing.T, db *store.DB) {
		f := newFixture(t, db)
		author, other := f.agent("author"), f.agent("other")
		theirPrivate := f.publishWith(other, issuer.Publication{Visibility: issuer.MemoryPrivate})
		ownPrivate := f.publishWith(author, issuer.Publication{Visibility: issuer.MemoryPrivate})
		hidden := f.publishWith(other, issuer.Publication{})
		if _, err := storetest.Admin(db).ModerateMemory(f.ctx, hidden.ID, issuer.Moderation{Status: issuer.MemoryQuarantined}); err != nil {
			t.Fatal(err)
		}
		unknown := issuer.MemoryID("mem_" + strings.Repeat("a", 26))
		before, rev := snapshot(t, db), f.revision(author)
		for name, l := range map[string]issuer.Link{
			"another's private memory":     {Kind: issuer.LinkDerivedFrom, Target: theirPrivate.ID},
			"a quarantined memory":         {Kind: issuer.LinkExtends, Target: hidden.ID},
			"an unknown memory":            {Kind: issuer.LinkSupersedes, Target: unknown},
			"contradicting a private memo": {Kind: issuer.LinkContradicts, Target: ownPrivate.ID},
		} {
			_, err := svc(db).Publish(f.ctx, author, f.pub(issuer.Publication{Links: []issuer.Link{l}}))
			if issuer.ErrorCode(err) != issuer.CodeNotFound {
				t.Errorf("%s: %v; want not_found", name, err)
			}
		}
		if changed := diffSnapshots(before, snapshot(t, db)); len(changed) > 0 {
			t.Fatalf("refused publications changed %v", changed)
		}
		if f.revision(author) != rev {
			t.Fatal("a refused publication bumped the revision")
		}
	})
}

func TestOutcomeReports(t *testing.T) {
	storetest.Run(t, func(t *testing.T, db *store.DB) {
		f := newFixture(t, db)
		op, err := storetest.Admin(db).CreateOperator(f.ctx, "Acme")
		if err != nil {
			t.Fatal(err)
		}
		author := f.agentWith(service.NewAgent{Name: "author", Operator: op})
		sibling := f.agentWith(service.NewAgent{Name: "sibling", Operator: op})
		ev, stranger := f.agent("evaluator"), f.agent("stranger")
		mem := f.publishWith(author, issuer.Publication{AppliesTo: issuer.AppliesTo{Skill: "sql"}}).ID
		f.retrieve(sibling, mem)
		f.retrieve(ev, mem)

		rev := f.revision(author)
		before := snapshot(t, db)
		_, _, err = f.outcome(stranger, mem, issuer.OutcomeReport{Outcome: evidence.OutcomeSuccess})
		wantCode(t, err, issuer.CodeConsumptionRequired)
		_, _, err = f.outcome(sibling, mem, issuer.OutcomeReport{Outcome: evidence.OutcomePartial})
		wantCode(t, err, issuer.CodeSameOwner)
		_, _, err = f.outcome(author, mem, issuer.OutcomeReport{Outcome: evidence.OutcomeUncertain})
		wantCode(t, err, issuer.CodeSelfFeedback)
		_, _, err = f.outcome(ev, "mem_"+issuer.MemoryID(strings.Repeat("b", 26)), issuer.OutcomeReport{Outcome: evidence.OutcomeSuccess})
		wantCode(t, err, issuer.CodeNotFound)
		if changed := diffSnapshots(before, snapshot(t, db)); len(changed) > 0 {
			t.Fatalf("refused reports changed %v", changed)
		}
		if f.revision(author) != rev {
			t.Fatal("a refused report bumped the revision")
		}

		// partial and uncertain: recorded, no reputation effect.
		rep := derived(t, db)
		for _, o := range []evidence.Outcome{evidence.OutcomePartial, evidence.OutcomeUncertain} {
			res, _, err := f.outcome(ev, mem, issuer.OutcomeReport{Outcome: o, Context: evidence.Context{Environment: "prod"}})
			if err != nil {
				t.Fatal(err)
			}
			if res.Validation != nil || res.Outcome != o {
				t.Fatalf("%s: %+v", o, res)
			}
			if r := f.revision(author); r == rev {
				t.Fatalf("%s did not bump the revision", o)
			} else {
				rev = r
			}
		}
		if changed := diffSnapshots(rep, derived(t, db)); len(changed) > 0 {
			t.Fatalf("partial/uncertain changed reputation: %v", changed)
		}
		if n := f.count(`SELECT COUNT(*) FROM feedback`); n != 0 {
			t.Fatalf("%d positions after partial/uncertain", n)
		}

		// success is the used_successfully position, with its effect.
		score := f.score(author)
		res, replayed, err := f.outcome(ev, mem, issuer.OutcomeReport{Outcome: evidence.OutcomeSuccess, IdempotencyKey: "k1"})
		if err != nil || replayed {
			t.Fatal(err, replayed)
		}
		if res.Validation == nil || res.Validation.Type != reputation.UsedSuccessfully || res.Validation.Revision != 1 {
			t.Fatalf("success: %+v", res)
		}
		if f.score(author) <= score {
			t.Fatal("success had no reputation effect")
		}
		// The same key and input replays; other input conflicts.
		again, replayed, err := f.outcome(ev, mem, issuer.OutcomeReport{Outcome: evidence.OutcomeSuccess, IdempotencyKey: "k1"})
		if err != nil || !replayed || again.Validation.ID != res.Validation.ID {
			t.Fatal("replay:", err, replayed, again)
		}
		_, _, err = f.outcome(ev, mem, issuer.OutcomeReport{Outcome: evidence.OutcomeFailure, IdempotencyKey: "k1"})
		wantCode(t, err, issuer.CodeIdempotencyConflict)
		// failure replaces the position: one position per evaluator and memory.
		res, _, err = f.outcome(ev, mem, issuer.OutcomeReport{Outcome: evidence.OutcomeFailure})
		if err != nil || res.Validation.Type != reputation.UsedUnsuccessfully || res.Validation.Revision != 2 {
			t.Fatal(err, res)
		}
		if n := f.count(`SELECT COUNT(*) FROM feedback`); n != 1 {
			t.Fatalf("%d positions; want 1", n)
		}
		if n := f.count(`SELECT COUNT(*) FROM memory_outcomes`); n != 1 {
			t.Fatalf("%d current reports; want 1", n)
		}
	})
}

func TestCapabilities(t *testing.T) {
	storetest.Run(t, func(t *testing.T, db *store.DB) {
		f := newFixture(t, db)
		a := f.agent("a")
		rev := f.revision(a)
		got, err := svc(db).DeclareCapabilities(f.ctx, a, []string{"sql tuning", " power bi ", "sql tuning"})
		if err != nil || strings.Join(got.Capabilities, "|") != "sql tuning|power bi" {
			t.Fatal(err, got)
		}
		r1 := f.revision(a)
		if r1 == rev {
			t.Fatal("declaring capabilities did not bump the revision")
		}
		if _, err := svc(db).DeclareCapabilities(f.ctx, a, []string{"power bi", "sql tuning"}); err != nil {
			t.Fatal(err)
		}
		if f.revision(a) != r1 {
			t.Fatal("an unchanged declaration bumped the revision")
		}
		before := snapshot(t, db)
		for _, bad := range [][]string{nil, {""}, {strings.Repeat("x", 201)}, {"a\u202eb"}, make([]string, 65)} {
			_, err := svc(db).DeclareCapabilities(f.ctx, a, bad)
			wantCode(t, err, issuer.CodeInvalid)
		}
		if changed := diffSnapshots(before, snapshot(t, db)); len(changed) > 0 {
			t.Fatalf("refused declarations changed %v", changed)
		}
		noPublish := f.agent("reader", issuer.ScopeSearch)
		_, err = svc(db).DeclareCapabilities(f.ctx, noPublish, []string{"x"})
		wantCode(t, err, issuer.CodeInsufficientScope)
	})
}

func TestRevisionFollowsEvidence(t *testing.T) {
	storetest.Run(t, func(t *testing.T, db *store.DB) {
		f := newFixture(t, db)
		author, ev := f.agent("author"), f.agent("evaluator")
		bumped := func(what string, fn func()) {
			t.Helper()
			before := f.revision(author)
			fn()
			if f.revision(author) == before {
				t.Errorf("%s did not bump the revision", what)
			}
		}
		var mem issuer.MemoryID
		bumped("publish", func() { mem = f.publish(author, "sql") })
		f.retrieve(ev, mem)
		bumped("a validation of its memory", func() { f.validate(ev, mem, reputation.Corroborate, "") })
		var against issuer.MemoryID
		bumped("another author's contradicting memory", func() {
			against = f.publishWith(ev, issuer.Publication{Links: []issuer.Link{{Kind: issuer.LinkContradicts, Target: mem}}}).ID
		})
		bumped("moderation of the contradicting memory", func() {
			if _, err := storetest.Admin(db).ModerateMemory(f.ctx, against, issuer.Moderation{Status: issuer.MemoryRemoved}); err != nil {
				t.Fatal(err)
			}
		})
		evOp, err := storetest.Admin(db).CreateOperator(f.ctx, "Evaluators")
		if err != nil {
			t.Fatal(err)
		}
		bumped("an owner binding of an evaluator", func() {
			if err := storetest.Admin(db).BindOwner(f.ctx, evOp, ev.AgentID); err != nil {
				t.Fatal(err)
			}
		})
		bumped("moderation", func() {
			if _, err := storetest.Admin(db).ModerateMemory(f.ctx, mem, issuer.Moderation{Status: issuer.MemoryQuarantined}); err != nil {
				t.Fatal(err)
			}
		})
		op, err := storetest.Admin(db).CreateOperator(f.ctx, "Acme")
		if err != nil {
			t.Fatal(err)
		}
		bumped("an owner binding", func() {
			if err := storetest.Admin(db).BindOwner(f.ctx, op, author.AgentID); err != nil {
				t.Fatal(err)
			}
		})
		// Only the subject whose evidence changed is bumped.
		before := f.revision(ev)
		f.publish(author, "go")
		if f.revision(ev) != before {
			t.Error("another agent's publication bumped the evaluator's revision")
		}
		bumped("a status change", func() {
			if err := storetest.Admin(db).SetAgentStatus(f.ctx, author.AgentID, issuer.AgentSuspended); err != nil {
				t.Fatal(err)
			}
		})
		_, err = db.SubjectRevision(f.ctx, "agt_"+issuer.AgentID(strings.Repeat("c", 26)))
		wantCode(t, err, issuer.CodeNotFound)
		// A public read of the revision answers for listed agents only.
		_, err = db.SubjectRevision(f.ctx, author.AgentID)
		wantCode(t, err, issuer.CodeNotFound)
	})
}

func TestSkillTrustHistoryIsAppendOnly(t *testing.T) {
	storetest.Run(t, func(t *testing.T, db *store.DB) {
		f := newFixture(t, db)
		a := f.agent("a")
		x := db.UnsafeSQL()
		if _, err := x.ExecContext(f.ctx, x.Rebind(`INSERT INTO skill_trust_history (subject_id, skill, policy, source_revision,
			assessed_at, state, estimate, operators, contradictions, assessment_hash) VALUES (?, 'sql', 'skills-1', 'rev', ?, 'EMERGING', 610, 2, 0, 'sha256:00')`),
			a.Key, "2026-01-01 00:00:00+00:00"); err != nil {
			t.Fatal(err)
		}
		for _, q := range []string{`UPDATE skill_trust_history SET state = 'STRONG'`, `DELETE FROM skill_trust_history`} {
			if _, err := x.ExecContext(f.ctx, q); err == nil {
				t.Errorf("%s was allowed", q)
			}
		}
		if _, err := x.ExecContext(f.ctx, x.Rebind(`INSERT INTO network_metrics (day, name, value) VALUES (?, 'skill_gamified_points', 1)`), "2026-01-01"); err == nil {
			t.Error("an unknown network metric was accepted")
		}
	})
}

// Concurrent outcome reports, mixed with validations of the same memories,
// leave one position per evaluator and memory, one current report each, a
// state a rebuild from the journal does not correct, and one effect for
// twenty requests sharing an idempotency key.
func TestConcurrentOutcomeReports(t *testing.T) {
	storetest.Run(t, func(t *testing.T, db *store.DB) {
		f := newFixture(t, db)
		author := f.agent("author")
		var mems []issuer.MemoryID
		for range 3 {
			mems = append(mems, f.publish(author, "sql"))
		}
		var evs []issuer.Principal
		for range 6 {
			e := f.agent("evaluator")
			for _, m := range mems {
				f.retrieve(e, m)
			}
			evs = append(evs, e)
		}
		outcomes := []evidence.Outcome{evidence.OutcomeSuccess, evidence.OutcomeFailure, evidence.OutcomePartial, evidence.OutcomeUncertain}
		var wg sync.WaitGroup
		errs := make(chan error, 64)
		for i, e := range evs {
			wg.Go(func() {
				for r := range 10 {
					m := mems[(i+r)%len(mems)]
					var err error
					if r%3 == 2 {
						_, _, err = svc(db).SubmitFeedback(f.ctx, e, m, issuer.Feedback{Type: reputation.Corroborate}, issuer.TransportHTTP)
					} else {
						_, _, err = f.outcome(e, m, issuer.OutcomeReport{Outcome: outcomes[(i*7+r)%4]})
					}
					if err != nil {
						errs <- err
						return
					}
				}
			})
		}
		storm := make([]issuer.OutcomeResult, 20)
		replayed := make([]bool, 20)
		for i := range storm {
			wg.Go(func() {
				var err error
				storm[i], replayed[i], err = f.outcome(evs[0], mems[0], issuer.OutcomeReport{Outcome: evidence.OutcomeSuccess, IdempotencyKey: "storm"})
				if err != nil {
					errs <- err
				}
			})
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Fatal(err)
		}
		fresh := 0
		for i := range storm {
			if *storm[i].Validation != *storm[0].Validation {
				t.Fatalf("storm answers differ: %+v %+v", storm[i], storm[0])
			}
			if !replayed[i] {
				fresh++
			}
		}
		if fresh != 1 {
			t.Fatalf("%d storm requests took effect; want 1", fresh)
		}
		if n := f.count(`SELECT COUNT(*) FROM (SELECT memory_id, evaluator_id FROM feedback GROUP BY memory_id, evaluator_id HAVING COUNT(*) > 1) d`); n != 0 {
			t.Fatalf("%d evaluator-memory pairs hold several positions", n)
		}
		before := derived(t, db)
		rep, err := db.RebuildReputation(f.ctx, author.AgentID, nil)
		if err != nil {
			t.Fatal(err)
		}
		if rep.Corrected != 0 {
			t.Errorf("rebuild corrected %d rows", rep.Corrected)
		}
		if changed := diffSnapshots(before, derived(t, db)); len(changed) > 0 {
			t.Fatalf("rebuild changed %v", changed)
		}
		// The loaded subject holds every current report.
		s, err := db.LoadSubject(f.ctx, author.AgentID, time.Now)
		if err != nil {
			t.Fatal(err)
		}
		partial := f.count(`SELECT COUNT(*) FROM memory_outcomes WHERE feedback_id IS NULL`)
		got := 0
		for _, e := range s.Events {
			if e.Kind == issuing.EventOutcome && (e.Outcome == evidence.OutcomePartial || e.Outcome == evidence.OutcomeUncertain) {
				got++
			}
		}
		if got != partial {
			t.Fatalf("loaded %d partial/uncertain reports; the store holds %d", got, partial)
		}
	})
}

// A write that fails after the revision was bumped leaves the revision as
// it was: the bump is part of the write's transaction. A trigger makes the
// audit entry of a publication, written after the bump, fail.
func TestRevisionBumpRollsBackWithItsWrite(t *testing.T) {
	storetest.Run(t, func(t *testing.T, db *store.DB) {
		f := newFixture(t, db)
		author := f.agent("author")
		f.publish(author, "sql")
		rev, mems := f.revision(author), f.count(`SELECT COUNT(*) FROM memories`)
		x := db.UnsafeSQL()
		stmts := []string{`CREATE TRIGGER fail_publication BEFORE INSERT ON audit_events
			FOR EACH ROW WHEN (NEW.action = 'memory.published') BEGIN SELECT RAISE(ABORT, 'injected failure'); END`}
		if db.Engine() == store.Postgres {
			stmts = []string{
				`CREATE FUNCTION fail_publication() RETURNS trigger LANGUAGE plpgsql AS $$
				BEGIN RAISE EXCEPTION 'injected failure'; END $$`,
				`CREATE TRIGGER fail_publication BEFORE INSERT ON audit_events
					FOR EACH ROW WHEN (NEW.action = 'memory.published') EXECUTE FUNCTION fail_publication()`,
			}
		}
		for _, s := range stmts {
			if _, err := x.ExecContext(f.ctx, s); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := svc(db).Publish(f.ctx, author, f.pub(issuer.Publication{})); err == nil {
			t.Fatal("the injected failure did not fail the publication")
		}
		if f.revision(author) != rev || f.count(`SELECT COUNT(*) FROM memories`) != mems {
			t.Fatal("a failed publication left its revision or its memory behind")
		}
	})
}
