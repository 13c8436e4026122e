package store_test

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/remnant/passportkit/evidence"
	"github.com/remnant/passportkit/issuer"
	"github.com/remnant/passportkit/issuer/keyring"
	"github.com/remnant/passportkit/issuer/service"
	"github.com/remnant/passportkit/issuer/store"
	"github.com/remnant/passportkit/issuer/store/storetest"
	"github.com/remnant/passportkit/passport"
	"github.com/remnant/passportkit/skilltrust"
)

// TestSkillHistoryThroughTheTrustService: only a known skill passport
// read through the trust service is written to the skill history, once
// per subject revision and hour across processes, and counted in the day's
// network metrics;
// general reads and unknown skills write nothing.
func TestSkillHistoryThroughTheTrustService(t *testing.T) {
	storetest.Run(t, func(t *testing.T, db *store.DB) {
		f := newFixture(t, db)
		subj, _ := recordedWorld(t, f)
		ring, err := keyring.New(db, keyring.Config{Issuer: "https://issuer.test", Dir: filepath.Join(t.TempDir(), "keys")})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := ring.EnsureActive(f.ctx, passport.EdDSA); err != nil {
			t.Fatal(err)
		}
		p := service.NewPassports(db, ring, service.PassportOptions{})
		rows := func() int {
			t.Helper()
			var n int
			x := db.UnsafeSQL()
			if err := x.GetContext(f.ctx, &n, `SELECT COUNT(*) FROM skill_trust_history`); err != nil {
				t.Fatal(err)
			}
			return n
		}
		day := time.Now().UTC().Format("2006-01-02")
		metrics := func() map[string]int64 {
			t.Helper()
			m, err := db.NetworkMetrics(f.ctx, day)
			if err != nil {
				t.Fatal(err)
			}
			return m
		}

		sp, err := p.InspectSkill(f.ctx, db, subj.AgentID, "SQL tuning")
		if err != nil {
			t.Fatal(err)
		}
		if sp.Skill == "" || rows() != 1 || metrics()[service.MetricAssessmentsGenerated] != 1 {
			t.Fatalf("first inspection: %s, %d rows, metrics %v", sp.Skill, rows(), metrics())
		}
		again, err := p.InspectSkill(f.ctx, db, subj.AgentID, "sql tuning")
		if err != nil || again.AssessmentHash != sp.AssessmentHash || rows() != 1 {
			t.Fatalf("second inspection: %v, %d rows", err, rows())
		}
		// Another process (a replica, or this one restarted), with its own
		// cache, inspecting in the same revision and hour writes nothing
		// and counts nothing.
		replica := service.NewPassports(db, ring, service.PassportOptions{})
		if _, err := replica.InspectSkill(f.ctx, db, subj.AgentID, "SQL tuning"); err != nil {
			t.Fatal(err)
		}
		if rows() != 1 || metrics()[service.MetricAssessmentsGenerated] != 1 {
			t.Fatalf("another process's inspection: %d rows, metrics %v", rows(), metrics())
		}
		var row struct {
			Skill, Revision, Hash string
		}
		x := db.UnsafeSQL()
		if err := x.QueryRowxContext(f.ctx, `SELECT skill, source_revision, assessment_hash FROM skill_trust_history`).Scan(&row.Skill, &row.Revision, &row.Hash); err != nil {
			t.Fatal(err)
		}
		rev, _ := db.SubjectRevision(f.ctx, subj.AgentID)
		if row.Skill != sp.Skill || row.Revision != service.SubjectToken(rev) || row.Hash != sp.AssessmentHash {
			t.Fatalf("history row %+v; skill passport %s %s, revision %s", row, sp.Skill, sp.AssessmentHash, rev)
		}

		// General reads, task contexts and unknown skills write nothing.
		if _, err := p.SkillPassport(f.ctx, subj.AgentID, skilltrust.Task{Skill: "sql tuning"}); err != nil {
			t.Fatal(err)
		}
		if _, err := p.Issue(f.ctx, subj.AgentID, ""); err != nil {
			t.Fatal(err)
		}
		for _, skill := range []string{"cooking", "knitting", "rust async"} {
			if _, err := p.InspectSkill(f.ctx, db, subj.AgentID, skill); issuer.ErrorCode(err) != issuer.CodeNotFound {
				t.Fatalf("unknown skill %s: %v", skill, err)
			}
		}
		if _, err := p.InspectSkill(f.ctx, db, "agt_aaaaaaaaaaaaaaaaaaaaaaaaaa", "sql tuning"); issuer.ErrorCode(err) != issuer.CodeNotFound {
			t.Fatalf("unknown agent: %v", err)
		}
		if rows() != 1 {
			t.Fatalf("%d rows after reads that must not record", rows())
		}

		// New evidence: a new revision, a new row, an evidence update.
		ev := f.agentWith(service.NewAgent{Name: "late evaluator", Operator: mustOperator(t, f, "Delta")})
		m := f.publishWith(subj, issuer.Publication{AppliesTo: issuer.AppliesTo{Skill: "sql tuning"}})
		f.retrieve(ev, m.ID)
		if _, _, err := f.outcome(ev, m.ID, issuer.OutcomeReport{Outcome: evidence.OutcomeSuccess}); err != nil {
			t.Fatal(err)
		}
		if _, err := p.InspectSkill(f.ctx, db, subj.AgentID, "sql tuning"); err != nil {
			t.Fatal(err)
		}
		got := metrics()
		if rows() != 2 || got[service.MetricAssessmentsGenerated] != 2 || got[service.MetricEvidenceUpdates] != 1 {
			t.Fatalf("after new evidence: %d rows, metrics %v", rows(), got)
		}
	})
}

func mustOperator(t *testing.T, f *fixture, name string) issuer.OperatorID {
	t.Helper()
	id, err := f.admin.CreateOperator(f.ctx, name)
	if err != nil {
		t.Fatal(err)
	}
	return id
}
