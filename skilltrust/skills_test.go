package skilltrust_test

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/remnant/passportkit/evidence"
	"github.com/remnant/passportkit/skilltrust"
	vectors "github.com/remnant/passportkit/vectors/skilltrust"
)

// allTasks are tasks about every skill of skills-1, aliases, an unknown
// skill, and contexts.
var allTasks = []skilltrust.Task{
	{Skill: "PostgreSQL"}, {Skill: "PostgreSQL indexing"}, {Skill: "PostgreSQL replication"},
	{Skill: "pg tuning"}, {Skill: "SQLite"}, {Skill: "SQLite indexing"}, {Skill: "SQLite query optimization"},
	{Skill: "MCP"}, {Skill: "MCP debugging"}, {Skill: "MCP server development"}, {Skill: "rust async"},
	{Skill: "PostgreSQL indexing", Context: evidence.Context{Workload: "oltp"}},
	{Skill: "PostgreSQL replication", Context: evidence.Context{Version: "17", Workload: "batch"}},
}

// sameAsAssess checks that AssessSkills gives, for every task, exactly
// what Assess gives.
func sameAsAssess(t *testing.T, set *evidence.Set, tasks []skilltrust.Task, at evidence.Date) {
	t.Helper()
	all, err := skilltrust.AssessSkills(set, tasks, at)
	if err != nil {
		t.Fatal(err)
	}
	if len(all) != len(tasks) {
		t.Fatalf("%d assessments for %d tasks", len(all), len(tasks))
	}
	for i, task := range tasks {
		one, err := skilltrust.Assess(set, task, at)
		if err != nil {
			t.Fatal(err)
		}
		if a, b := mustJSON(t, all[i]), mustJSON(t, one); a != b {
			t.Fatalf("task %+v at %s: AssessSkills differs from Assess:\n%s\n%s", task, at, a, b)
		}
	}
}

// TestAssessSkills: assessing many skills in one pass changes nothing, on
// every conformance vector, on random sets with records after the
// assessment day, and at the collection limits.
func TestAssessSkills(t *testing.T) {
	cases, err := vectors.Cases()
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range cases {
		set, err := evidence.Parse(c.Evidence)
		if err != nil || c.Fail() {
			continue
		}
		task := skilltrust.Task{Skill: c.Task.Skill}
		for k, v := range c.Task.Context {
			task.Context.Set(k, v)
		}
		t.Run(c.Name, func(t *testing.T) {
			sameAsAssess(t, set, append([]skilltrust.Task{task}, allTasks...), evidence.MustDate(c.At))
		})
	}
	rng := rand.New(rand.NewPCG(11, 12))
	for i := range 20 {
		set := mustSet(t, randomRecords(rng, 50+i*20))
		sameAsAssess(t, set, allTasks, at)
		sameAsAssess(t, set, allTasks, at.AddDays(-400)) // later records left out
	}
	sameAsAssess(t, mustSet(t, limitRecords()), allTasks, at)
	if _, err := skilltrust.AssessSkills(mustSet(t, nil), []skilltrust.Task{{Skill: " "}}, at); err == nil {
		t.Error("a blank task skill was accepted")
	}
}

// limitRecords50 is limitRecords with the reports spread over 50 skills:
// the eleven of skills-1 and its aliases, and unknown ones.
func limitRecords50() ([]evidence.Record, []skilltrust.Task) {
	names := []string{"PostgreSQL", "PostgreSQL indexing", "PostgreSQL replication", "PostgreSQL query optimization",
		"SQLite", "SQLite indexing", "SQLite query optimization", "MCP", "MCP reliability", "MCP server development"}
	for len(names) < 50 {
		names = append(names, fmt.Sprintf("skill %02d", len(names)))
	}
	recs := limitRecords()
	for i := range recs {
		recs[i].Skill = names[i%len(names)]
	}
	tasks := make([]skilltrust.Task, len(names))
	for i, n := range names {
		tasks[i] = skilltrust.Task{Skill: n}
	}
	return recs, tasks
}

// BenchmarkAssessSkills measures the assessment of all 50 skills of a
// subject at the collection limits (10,000 reports over 50 skills) in one
// pass, against two baselines measured in the same run:
//
//   - one skill at the limits: one Assess over 10,000 reports all about
//     that skill (x-one-at-limits, the figure the issuer's goal names);
//   - one skill of the same subject: one Assess of PostgreSQL, the skill
//     with the most relevant reports among the 50 (x-one-of-50).
//
// The separately sub-benchmark reports x-one-by-one: 50 Assess calls, the
// cost before AssessSkills, against the same one-of-50 baseline.
func BenchmarkAssessSkills(b *testing.B) {
	recs, tasks := limitRecords50()
	set, err := evidence.NewSet(recs, false)
	if err != nil {
		b.Fatal(err)
	}
	single := limitRecords()
	for i := range single {
		single[i].Skill = "PostgreSQL"
	}
	singleSet, err := evidence.NewSet(single, false)
	if err != nil {
		b.Fatal(err)
	}
	assess := func(set *evidence.Set, task skilltrust.Task) {
		if _, err := skilltrust.Assess(set, task, at); err != nil {
			b.Fatal(err)
		}
	}
	all := func() {
		if _, err := skilltrust.AssessSkills(set, tasks, at); err != nil {
			b.Fatal(err)
		}
	}
	b.Run("paired", func(b *testing.B) {
		var tLimit, tOne, tAll, cLimit, cAll time.Duration
		for b.Loop() {
			c0, t0 := cpuTime(), time.Now()
			assess(singleSet, tasks[0])
			c1, t1 := cpuTime(), time.Now()
			assess(set, tasks[0])
			t2 := time.Now()
			c2 := cpuTime()
			all()
			c3, t3 := cpuTime(), time.Now()
			tLimit, tOne, tAll = tLimit+t1.Sub(t0), tOne+t2.Sub(t1), tAll+t3.Sub(t2)
			cLimit, cAll = cLimit+c1-c0, cAll+c3-c2
		}
		n := float64(b.N)
		b.ReportMetric(float64(tLimit.Nanoseconds())/n, "one-at-limits-ns/op")
		b.ReportMetric(float64(tAll.Nanoseconds())/n, "all50-ns/op")
		b.ReportMetric(float64(tAll)/float64(tLimit), "x-one-at-limits")
		b.ReportMetric(float64(cAll)/float64(cLimit), "x-one-at-limits-cpu")
		b.ReportMetric(float64(tAll)/float64(tOne), "x-one-of-50")
	})
	b.Run("separately", func(b *testing.B) {
		var tOne, tSep time.Duration
		for b.Loop() {
			t0 := time.Now()
			assess(set, tasks[0])
			t1 := time.Now()
			for _, task := range tasks {
				assess(set, task)
			}
			tOne, tSep = tOne+t1.Sub(t0), tSep+time.Since(t1)
		}
		b.ReportMetric(float64(tSep)/float64(tOne), "x-one-by-one")
	})
}
