package store_test

import (
	"context"
	"crypto/rand"
	"fmt"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/remnant/passportkit/evidence"
	"github.com/remnant/passportkit/issuer"
	"github.com/remnant/passportkit/issuer/issuing"
	"github.com/remnant/passportkit/issuer/keyring"
	"github.com/remnant/passportkit/issuer/service"
	"github.com/remnant/passportkit/issuer/store"
	"github.com/remnant/passportkit/issuer/store/storetest"
	"github.com/remnant/passportkit/passport"
)

// limitWorld records, through the service, a subject at the collection
// limits: 2,000 public memories about 50 skills and 8,000 outcome reports
// by 200 evaluators of 40 operators (10,000 records with the
// publications).
func limitWorld(b *testing.B, engine store.Engine) (*store.DB, issuer.AgentID) {
	b.Helper()
	ctx := context.Background()
	db := storetest.Open(b, engine, store.Options{MaxOpenConns: 8, Logger: storetest.Logger(b)})
	agent := func(name string, op issuer.OperatorID) issuer.Principal {
		a, err := storetest.Admin(db).CreateAgent(ctx, service.NewAgent{Name: name, Operator: op})
		if err != nil {
			b.Fatal(err)
		}
		p, err := db.Authenticate(ctx, a.Key)
		if err != nil {
			b.Fatal(err)
		}
		return p
	}
	ops := make([]issuer.OperatorID, 41)
	for i := range ops {
		id, err := storetest.Admin(db).CreateOperator(ctx, fmt.Sprint("operator ", i))
		if err != nil {
			b.Fatal(err)
		}
		ops[i] = id
	}
	subject := agent("subject", ops[40])
	s := svc(db)
	mems := make([]issuer.MemoryID, evidence.MaxMemories)
	for i := range mems {
		m, err := s.Publish(ctx, subject, issuer.Publication{Category: "bench", Domain: "bench", Title: "t", Content: fmt.Sprint("c", i),
			Visibility: issuer.MemoryPublic, AppliesTo: issuer.AppliesTo{Skill: fmt.Sprintf("skill %02d", i%50),
				Context: evidence.Context{Workload: []string{"oltp", "batch"}[i%2]}}})
		if err != nil {
			b.Fatal(err)
		}
		mems[i] = m.ID
	}
	evals := make([]issuer.Principal, 200)
	for i := range evals {
		evals[i] = agent(fmt.Sprint("evaluator ", i), ops[i%40])
	}
	x := db.UnsafeSQL()
	if _, err := x.Exec(`INSERT INTO retrievals (agent_id, memory_id, created_at)
		SELECT a.id, m.id, m.created_at FROM agents a CROSS JOIN memories m WHERE a.name LIKE 'evaluator %'`); err != nil {
		b.Fatal(err)
	}
	outcomes := []evidence.Outcome{evidence.OutcomeSuccess, evidence.OutcomeSuccess, evidence.OutcomeFailure, evidence.OutcomePartial}
	reports := evidence.MaxReports - evidence.MaxMemories
	var wg sync.WaitGroup
	errs := make(chan error, 4)
	for w := range 4 {
		wg.Go(func() {
			for i := w; i < reports; i += 4 {
				// Each evaluator reports on 40 distinct memories.
				e := i % len(evals)
				_, _, err := s.ReportOutcome(ctx, evals[e], mems[(i/len(evals)*50+e)%len(mems)],
					issuer.OutcomeReport{Outcome: outcomes[i%len(outcomes)]}, issuer.TransportHTTP)
				if err != nil && issuer.ErrorCode(err) != issuer.CodeConflict {
					errs <- err
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		b.Fatal(err)
	}
	return db, subject.AgentID
}

// BenchmarkPassportAtTheLimits issues the passport of a subject at the
// collection limits on PostgreSQL (SQLite without it): uncached, step by
// step as the service does (the shares of SQL, assessment and signing are
// reported), then cached; both as ratios to one Ed25519 signature measured
// in the same run.
func BenchmarkPassportAtTheLimits(b *testing.B) {
	engine := store.SQLite
	if len(storetest.Engines(b)) > 1 {
		engine = store.Postgres
	}
	db, id := limitWorld(b, engine)
	ctx := context.Background()
	ring, err := keyring.New(db, keyring.Config{Issuer: "https://issuer.test", Dir: filepath.Join(b.TempDir(), "keys")})
	if err != nil {
		b.Fatal(err)
	}
	if _, err := ring.EnsureActive(ctx, passport.EdDSA); err != nil {
		b.Fatal(err)
	}
	signer, _, err := ring.Active(ctx)
	if err != nil {
		b.Fatal(err)
	}

	// The baseline: one Ed25519 signature of a small payload.
	const sigRuns = 2000
	t0 := time.Now()
	for range sigRuns {
		if _, err := signer.SignCompact([]byte(`{"passport":{},"passportHash":"x"}`), passport.JWSType); err != nil {
			b.Fatal(err)
		}
	}
	sig := time.Since(t0) / sigRuns

	uncached := func(b *testing.B) {
		var loadT, keepT, assessT, signT time.Duration
		var records, skills int
		for b.Loop() {
			t0 := time.Now()
			if _, err := db.SubjectRevision(ctx, id); err != nil {
				b.Fatal(err)
			}
			sub, err := db.LoadSubject(ctx, id, time.Now)
			if err != nil {
				b.Fatal(err)
			}
			t1 := time.Now()
			now := sub.At.Truncate(time.Second)
			key := make([]byte, service.PseudonymKeySize)
			rand.Read(key)
			col, err := issuing.Collect(sub, key, now)
			if err != nil {
				b.Fatal(err)
			}
			draft, err := issuing.Assemble(sub, col, issuing.Options{Issuer: ring.Issuer(), IssuedAt: now, Validity: service.DefaultPassportValidity})
			if err != nil {
				b.Fatal(err)
			}
			t2 := time.Now()
			is, err := draft.Sign(signer, issuing.DisclosePreviews)
			if err != nil {
				b.Fatal(err)
			}
			t3 := time.Now()
			if err := db.SaveIssuedPassport(ctx, service.IssuedPassport{PassportHash: is.PassportHash, Subject: id, KID: signer.Key().KeyID(),
				IssuedAt: is.Passport.IssuedAt.UTC(), ExpiresAt: is.Passport.ExpiresAt.UTC(), EvidenceFile: is.EvidenceFile,
				PreviewMemories: is.PreviewMemories},
				is.Passport.ExpiresAt.Add(service.DefaultEvidenceRetention)); err != nil {
				b.Fatal(err)
			}
			t4 := time.Now()
			loadT, keepT = loadT+t1.Sub(t0), keepT+t4.Sub(t3)
			assessT += t2.Sub(t1)
			signT += t3.Sub(t2)
			records, skills = is.Passport.EvidenceCount, len(is.Passport.SkillPassports)
		}
		sqlT := loadT + keepT
		total := sqlT + assessT + signT
		b.ReportMetric(float64(sqlT)/float64(total), "sql-share")
		b.ReportMetric(float64(assessT)/float64(total), "assess-share")
		b.ReportMetric(float64(signT)/float64(total), "sign-share")
		b.ReportMetric(float64(total)/float64(b.N)/float64(sig), "x-ed25519")
		n := float64(b.N)
		b.Logf("%s: %d records, %d skills; %.1f ms per passport (SQL %.1f: loading %.1f, keeping the evidence file %.1f; assessment %.1f; signing %.1f); one Ed25519 signature %.1f µs",
			engine, records, skills, ms(total)/n, ms(sqlT)/n, ms(loadT)/n, ms(keepT)/n, ms(assessT)/n, ms(signT)/n, float64(sig.Nanoseconds())/1e3)
	}
	// Right after the bulk load the tables have no planner statistics;
	// autovacuum gathers them within a minute or so of such a load. The
	// first run shows what a plan without them costs, the second the
	// steady state.
	b.Run("uncached-unanalysed", uncached)
	if engine == store.Postgres {
		if _, err := db.UnsafeSQL().Exec(`ANALYZE agents, agent_owner_bindings, memories, memory_links, feedback, feedback_history,
			memory_outcomes, retrievals, agent_activity_counters`); err != nil {
			b.Fatal(err)
		}
	}
	b.Run("uncached", uncached)
	b.Run("cached", func(b *testing.B) {
		p := service.NewPassports(db, ring, service.PassportOptions{})
		if _, err := p.Issue(ctx, id, issuing.DisclosePreviews); err != nil {
			b.Fatal(err)
		}
		t0 := time.Now()
		for b.Loop() {
			if _, err := p.Issue(ctx, id, issuing.DisclosePreviews); err != nil {
				b.Fatal(err)
			}
		}
		per := time.Since(t0) / time.Duration(b.N)
		b.ReportMetric(float64(per)/float64(sig), "x-ed25519")
		b.Logf("%s: a cached passport in %.3f ms (the revision read included)", engine, ms(per))
	})
}

func ms(d time.Duration) float64 { return float64(d.Nanoseconds()) / 1e6 }
