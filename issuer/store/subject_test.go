package store_test

import (
	"bytes"
	"context"
	"crypto/rand"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/remnant/passportkit/evidence"
	"github.com/remnant/passportkit/issuer"
	"github.com/remnant/passportkit/issuer/issuing"
	"github.com/remnant/passportkit/issuer/service"
	"github.com/remnant/passportkit/issuer/store"
	"github.com/remnant/passportkit/issuer/store/storetest"
	"github.com/remnant/passportkit/passport"
	"github.com/remnant/passportkit/reputation"
	"github.com/remnant/passportkit/skilltrust"
	"github.com/remnant/passportkit/verifier"
)

// recordedWorld writes a small world through the service and returns the
// subject and every value that must never leave the issuer.
func recordedWorld(t *testing.T, f *fixture) (subject issuer.Principal, secrets []string) {
	t.Helper()
	op := func(name string) issuer.OperatorID {
		id, err := f.admin.CreateOperator(f.ctx, name)
		if err != nil {
			t.Fatal(err)
		}
		return id
	}
	opA, opB, opC := op("Acme"), op("Beta"), op("Gamma")
	s := f.agentWith(service.NewAgent{Name: "subject", Operator: opA})
	sib := f.agentWith(service.NewAgent{Name: "sibling", Operator: opA})
	e1 := f.agentWith(service.NewAgent{Name: "e1", Operator: opB})
	e2 := f.agentWith(service.NewAgent{Name: "e2", Operator: opC})
	e3 := f.agent("e3")
	o := f.agentWith(service.NewAgent{Name: "other", Operator: opB})

	sql := issuer.AppliesTo{Skill: "sql tuning", Context: evidence.Context{Domain: "finance", Version: "16"}}
	anc := f.publishWith(s, issuer.Publication{Visibility: issuer.MemoryPrivate, Content: "SECRET-ancestor-notes",
		AppliesTo: issuer.AppliesTo{Skill: "sql tuning", Context: evidence.Context{Workload: "secret-workload-label"}}})
	m1 := f.publishWith(s, issuer.Publication{AppliesTo: sql, Links: []issuer.Link{{Kind: issuer.LinkDerivedFrom, Target: anc.ID}}})
	m2 := f.publishWith(s, issuer.Publication{AppliesTo: sql, Links: []issuer.Link{{Kind: issuer.LinkDerivedFrom, Target: anc.ID}}})
	f.publishWith(s, issuer.Publication{AppliesTo: sql, Links: []issuer.Link{{Kind: issuer.LinkSupersedes, Target: m1.ID}}})
	m4 := f.publishWith(s, issuer.Publication{AppliesTo: issuer.AppliesTo{Skill: "power bi"}})
	f.publishWith(o, issuer.Publication{Links: []issuer.Link{{Kind: issuer.LinkContradicts, Target: m4.ID}}})

	for _, e := range []issuer.Principal{e1, e2, e3, sib} {
		for _, m := range []issuer.MemoryID{m1.ID, m2.ID, m4.ID} {
			f.retrieve(e, m)
		}
	}
	report := func(p issuer.Principal, m issuer.MemoryID, o evidence.Outcome, c evidence.Context) {
		t.Helper()
		if _, _, err := f.outcome(p, m, issuer.OutcomeReport{Outcome: o, Context: c}); err != nil {
			t.Fatal(err)
		}
	}
	report(e1, m1.ID, evidence.OutcomeSuccess, evidence.Context{Environment: "prod"})
	report(e2, m2.ID, evidence.OutcomeFailure, evidence.Context{})
	report(e3, m1.ID, evidence.OutcomePartial, evidence.Context{Protocol: "http"})
	report(e3, m4.ID, evidence.OutcomeSuccess, evidence.Context{})
	f.validate(e2, m1.ID, reputation.Corroborate, "")
	f.validate(e1, m2.ID, reputation.Contradict, "")
	f.validate(e1, m2.ID, reputation.Corroborate, "") // withdraws the contradiction
	f.validate(e1, m4.ID, reputation.Useful, "")      // no record
	if _, err := svc(f.db).DeclareCapabilities(f.ctx, s, []string{"sql tuning", "reporting"}); err != nil {
		t.Fatal(err)
	}
	// The sibling's praise is refused at submission.
	_, _, err := f.outcome(sib, m1.ID, issuer.OutcomeReport{Outcome: evidence.OutcomeSuccess})
	wantCode(t, err, issuer.CodeSameOwner)

	secrets = []string{string(anc.ID), anc.ContentHash, "SECRET", "secret-workload-label", string(opA), string(opB), string(opC)}
	for _, p := range []issuer.Principal{sib, e1, e2, e3, o} {
		secrets = append(secrets, string(p.AgentID))
	}
	return s, secrets
}

func TestLoadSubjectRoundTrip(t *testing.T) {
	storetest.Run(t, func(t *testing.T, db *store.DB) {
		f := newFixture(t, db)
		subj, secrets := recordedWorld(t, f)
		s, err := svc(db).LoadSubject(f.ctx, subj.AgentID, time.Now)
		if err != nil {
			t.Fatal(err)
		}
		if s.PublicID != subj.AgentID || len(s.Memories) != 5 || len(s.Capabilities) != 2 || s.Truncated {
			t.Fatalf("subject %s: %d memories, %d capabilities, truncated %v", s.PublicID, len(s.Memories), len(s.Capabilities), s.Truncated)
		}
		kinds := map[string]int{}
		for _, e := range s.Events {
			kinds[string(e.Kind)+":"+string(e.Outcome)]++
		}
		want := map[string]int{"outcome:success": 2, "outcome:failure": 1, "outcome:partial": 1, "corroboration:": 2,
			"contradiction:": 2, "resolution:": 1, "revision:": 1}
		if fmt.Sprint(kinds) != fmt.Sprint(want) {
			t.Fatalf("events %v; want %v", kinds, want)
		}
		if len(s.Owners) != 4 { // the subject, e1, e2 and the contradicting author; e3 has no operator
			t.Fatalf("%d owner bindings", len(s.Owners))
		}
		// The loaded subject names no private memory and holds no content.
		dump := fmt.Sprintf("%+v", *s)
		for _, sec := range secrets[:4] {
			if strings.Contains(dump, sec) {
				t.Fatalf("the loaded subject holds %q", sec)
			}
		}

		key, err := passport.GenerateKey(passport.EdDSA, rand.Reader)
		if err != nil {
			t.Fatal(err)
		}
		pseudo := make([]byte, 32)
		rand.Read(pseudo)
		out, err := issuing.Issue(s, pseudo, passport.NewSigner(key), issuing.Options{Issuer: "https://issuer.test", IssuedAt: s.At}, issuing.DiscloseAll)
		if err != nil {
			t.Fatal(err)
		}
		for _, doc := range [][]byte{out.Bundle, out.EvidenceFile} {
			for _, sec := range secrets {
				if bytes.Contains(doc, []byte(sec)) {
					t.Fatalf("%q leaked into an issued document", sec)
				}
			}
		}
		trust, err := verifier.NewTrust("https://issuer.test", verifier.TrustedKey{Key: key.Public()})
		if err != nil {
			t.Fatal(err)
		}
		v, err := verifier.New(trust, verifier.WithClock(func() time.Time { return s.At.Add(time.Minute) }))
		if err != nil {
			t.Fatal(err)
		}
		res, err := v.Verify(context.Background(), out.Bundle, verifier.AnySubject())
		if err != nil || !res.Verified {
			t.Fatalf("verify: %v %+v", err, res)
		}
		set, err := evidence.Parse(out.EvidenceFile)
		if err != nil {
			t.Fatal(err)
		}
		leaves := map[int][]byte{}
		for i, r := range set.Records() {
			if leaves[i], err = r.Canonical(); err != nil {
				t.Fatal(err)
			}
		}
		if len(out.Passport.SkillPassports) == 0 {
			t.Fatal("no skill passport")
		}
		for _, rc := range skilltrust.Recompute(out.Passport.SkillPassports, out.Passport.EvidenceCount, leaves) {
			if rc.Status != skilltrust.RecomputeMatch {
				t.Errorf("recompute %s: %s %s", rc.Skill, rc.Status, rc.Detail)
			}
		}
		if got := strings.Join(out.Passport.DeclaredCapabilities, "|"); got != "reporting|sql tuning" {
			t.Errorf("declaredCapabilities %q", got)
		}

		// The revision is the one the snapshot holds, and the time is read
		// after every record in it was written.
		rev, err := db.SubjectRevision(f.ctx, subj.AgentID)
		if err != nil || rev == "" || s.Revision != rev {
			t.Errorf("revision %q, the store's %q (%v)", s.Revision, rev, err)
		}
		for _, m := range s.Memories {
			if m.CreatedAt.After(s.At) {
				t.Errorf("memory %d created at %v, after the subject's time %v", m.Key, m.CreatedAt, s.At)
			}
		}
	})
}

func TestLoadSubjectNotFound(t *testing.T) {
	storetest.Run(t, func(t *testing.T, db *store.DB) {
		f := newFixture(t, db)
		private := f.agentWith(service.NewAgent{Name: "private", Visibility: issuer.VisibilityPrivate})
		unlisted := f.agentWith(service.NewAgent{Name: "unlisted", Visibility: issuer.VisibilityUnlisted})
		suspended := f.agent("suspended")
		if err := storetest.Admin(db).SetAgentStatus(f.ctx, suspended.AgentID, issuer.AgentSuspended); err != nil {
			t.Fatal(err)
		}
		for _, id := range []issuer.AgentID{private.AgentID, unlisted.AgentID, suspended.AgentID, "agt_" + issuer.AgentID(strings.Repeat("d", 26))} {
			_, err := db.LoadSubject(f.ctx, id, time.Now)
			wantCode(t, err, issuer.CodeNotFound)
		}
	})
}

// TestLoadSubjectStopsAtTheLimits seeds a subject beyond the collection
// limits directly (the service would take minutes) and checks that the
// load is bounded and marked truncated.
func TestLoadSubjectStopsAtTheLimits(t *testing.T) {
	if testing.Short() {
		t.Skip("seeds 2,001 memories and 12,000 reports")
	}
	storetest.Run(t, func(t *testing.T, db *store.DB) {
		now := time.Now().UTC().Truncate(time.Microsecond)
		f, s := prolific(t, db, 2001, now)
		// Six evaluators: the reports below come from every other agent.
		for i := range 6 {
			f.agent(fmt.Sprintf("e%d", i))
		}
		x := db.UnsafeSQL()
		if _, err := x.ExecContext(f.ctx, x.Rebind(`INSERT INTO memory_outcomes (memory_id, evaluator_id, outcome, context, created_at, updated_at)
			SELECT m.id, a.id, 'partial', '{}', ?, ? FROM memories m CROSS JOIN agents a WHERE m.author_id = ? AND a.id <> ?`),
			now, now, s.Key, s.Key); err != nil {
			t.Fatal(err)
		}
		got, err := db.LoadSubject(f.ctx, s.AgentID, time.Now)
		if err != nil {
			t.Fatal(err)
		}
		if len(got.Memories) != 2000 || len(got.Events) != 10000 || !got.Truncated {
			t.Fatalf("%d memories, %d events, truncated %v", len(got.Memories), len(got.Events), got.Truncated)
		}
		c, err := issuing.Collect(got, bytes.Repeat([]byte{1}, 32), now.Add(time.Second))
		if err != nil {
			t.Fatal(err)
		}
		if !c.Truncated {
			t.Fatal("the collection is not marked truncated")
		}
	})
}

// TestLoadSubjectKeepsTheOldestEvents seeds more event rows than the
// bound the events are read under, each evaluator's reports at one time,
// and checks that the events kept are the oldest: those of the five
// evaluators who reported first.
func TestLoadSubjectKeepsTheOldestEvents(t *testing.T) {
	if testing.Short() {
		t.Skip("seeds 2,000 memories and 22,000 reports")
	}
	storetest.Run(t, func(t *testing.T, db *store.DB) {
		now := time.Now().UTC().Truncate(time.Microsecond)
		f, s := prolific(t, db, 2000, now.Add(-time.Hour))
		x := db.UnsafeSQL()
		// Eleven evaluators, the later created reporting earlier: 22,000
		// rows, over twice the 10,000 events kept.
		oldest := map[issuing.Key]bool{}
		for i := range 11 {
			e := f.agent(fmt.Sprintf("e%d", i))
			at := now.Add(-time.Duration(i+1) * time.Minute)
			if i >= 6 {
				oldest[issuing.Key(e.Key)] = true
			}
			if _, err := x.ExecContext(f.ctx, x.Rebind(`INSERT INTO memory_outcomes (memory_id, evaluator_id, outcome, context, created_at, updated_at)
				SELECT m.id, ?, 'partial', '{}', ?, ? FROM memories m WHERE m.author_id = ?`), e.Key, at, at, s.Key); err != nil {
				t.Fatal(err)
			}
		}
		got, err := db.LoadSubject(f.ctx, s.AgentID, time.Now)
		if err != nil {
			t.Fatal(err)
		}
		if len(got.Events) != 10000 || !got.Truncated {
			t.Fatalf("%d events, truncated %v", len(got.Events), got.Truncated)
		}
		for i, e := range got.Events {
			if !oldest[e.Actor] || (i > 0 && e.At.Before(got.Events[i-1].At)) {
				t.Fatalf("event %d (by %d at %s) is not among the oldest, oldest first", i, e.Actor, e.At)
			}
		}
	})
}

// prolific creates the agent "prolific" and writes n public memories of it
// directly (the service would take minutes), all created at at.
func prolific(t *testing.T, db *store.DB, n int, at time.Time) (*fixture, issuer.Principal) {
	t.Helper()
	f := newFixture(t, db)
	s := f.agent("prolific")
	x := db.UnsafeSQL()
	if _, err := x.ExecContext(f.ctx, x.Rebind(`WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ?)
		INSERT INTO memories (public_id, author_id, category, domain, title, content, content_hash, applies_claim, confidence,
			validation_base_confidence, created_at, updated_at)
		SELECT 'mem_seed' || CAST(i AS TEXT), ?, 'sql', 'sql', 't', 'c', 'sha256:' || ?, '{"skill":"sql"}', 500, 500, ?, ?  FROM n`),
		n, s.Key, strings.Repeat("0", 64), at, at); err != nil {
		t.Fatal(err)
	}
	return f, s
}
