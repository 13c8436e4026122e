package skilltrust_test

import (
	"fmt"
	"math"
	"syscall"
	"testing"
	"time"

	"github.com/remnant/passportkit/evidence"
	"github.com/remnant/passportkit/skilltrust"
)

// limitRecords returns a subject's evidence at the collection limits:
// 10,000 reports on 2,000 memories (a fifth of them derived from another),
// from 300 actors of 80 operators and a pool of unknown ownership, in a
// dozen contexts, over three years.
func limitRecords() []evidence.Record {
	skills := []string{"PostgreSQL indexing", "PostgreSQL", "Postgres replication", "PG tuning", "SQLite"}
	outcomes := []evidence.Outcome{evidence.OutcomeSuccess, evidence.OutcomeSuccess, evidence.OutcomeSuccess, evidence.OutcomeFailure, evidence.OutcomePartial, evidence.OutcomeUncertain}
	recs := make([]evidence.Record, evidence.MaxReports)
	for i := range recs {
		actor := (i * 7) % 300
		m := i % evidence.MaxMemories
		r := evidence.Record{
			ID: fmt.Sprintf("ev_%05d", i), Type: evidence.TypeOutcome, Outcome: outcomes[i%len(outcomes)], Skill: skills[i%len(skills)],
			Quality: evidence.QualityObservedReuse, Reporter: fmt.Sprintf("act_%d", actor), Operator: fmt.Sprintf("op_%d", actor%80),
			Ownership: evidence.OwnershipDistinct, Lineage: &evidence.Lineage{Memory: fmt.Sprintf("mem_%d", m)},
			Context: evidence.Context{Workload: []string{"oltp", "batch", "mixed"}[i%3], Version: []string{"16", "17", ""}[i%3/1%3], Domain: []string{"payments", "analytics"}[i%2]},
			Date:    at.AddDays(-(i % 1100)),
		}
		if m%5 == 0 && m > 0 {
			r.Lineage.DerivedFrom = []string{fmt.Sprintf("mem_%d", m-1)}
		}
		switch {
		case actor%50 == 7:
			r.Ownership, r.Operator = evidence.OwnershipUnknown, ""
		case i%97 == 0:
			r.Type, r.Outcome = evidence.TypeContradiction, ""
		case i%13 == 0:
			r.Type, r.Outcome = evidence.TypeCorroboration, ""
		}
		recs[i] = r
	}
	return recs
}

// BenchmarkAssess measures one assessment at the collection limits, beside
// a baseline measured in the same run: one pass over the same records
// computing each initial weight (applicability, context match, decay) with
// no clustering, positions or caps, the least any assessment must do.
func BenchmarkAssess(b *testing.B) {
	recs := limitRecords()
	set, err := evidence.NewSet(recs, false)
	if err != nil {
		b.Fatal(err)
	}
	task := skilltrust.Task{Skill: "PostgreSQL indexing", Context: evidence.Context{Workload: "oltp", Version: "17"}}
	o := skilltrust.Skills1()
	ts, tctx := o.Normalize(task.Skill), task.Context.Normalized()
	baseline := func() float64 {
		skills := map[string]skilltrust.Skill{}
		total := 0.0
		for i := range recs {
			r := &recs[i]
			s, ok := skills[r.Skill]
			if !ok {
				s = o.Normalize(r.Skill)
				skills[r.Skill] = s
			}
			total += skilltrust.Applicability(s, ts) * skilltrust.MatchContext(tctx, r.Context).Value *
				math.Exp2(-float64(at.Sub(r.Date))/skilltrust.HalfLifeDays)
		}
		return total
	}
	b.Run("baseline_single_pass", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			baseline()
		}
	})
	// paired alternates the baseline and the assessment in every iteration,
	// so both see the same machine load, and reports their ratio in wall
	// time and in process CPU time (which a busy machine disturbs less).
	b.Run("paired", func(b *testing.B) {
		var wallB, wallA, cpuB, cpuA time.Duration
		for b.Loop() {
			c0, t0 := cpuTime(), time.Now()
			baseline()
			c1, t1 := cpuTime(), time.Now()
			if _, err := skilltrust.Assess(set, task, at); err != nil {
				b.Fatal(err)
			}
			c2, t2 := cpuTime(), time.Now()
			wallB, wallA, cpuB, cpuA = wallB+t1.Sub(t0), wallA+t2.Sub(t1), cpuB+c1-c0, cpuA+c2-c1
		}
		n := float64(b.N)
		b.ReportMetric(float64(wallB.Nanoseconds())/n, "baseline-ns/op")
		b.ReportMetric(float64(wallA.Nanoseconds())/n, "assess-ns/op")
		b.ReportMetric(float64(wallA)/float64(wallB), "x-baseline")
		b.ReportMetric(float64(cpuA.Nanoseconds())/n, "assess-cpu-ns/op")
		b.ReportMetric(float64(cpuA)/float64(cpuB), "x-baseline-cpu")
	})
	b.Run("assess_10000_reports", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := skilltrust.Assess(set, task, at); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("new_set_10000_reports", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := evidence.NewSet(recs, false); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// cpuTime returns the process's user and system CPU time so far.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
