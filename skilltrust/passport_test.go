package skilltrust_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/remnant/passportkit/evidence"
	"github.com/remnant/passportkit/passport"
	"github.com/remnant/passportkit/skilltrust"
)

// TestSkillPassport checks the serialised form: bounded previews with
// unresolved contradictions and failures first, rounded numbers, a hash
// over the canonical JSON, and no operator, actor or context label value.
func TestSkillPassport(t *testing.T) {
	var recs []evidence.Record
	for i := range 9 {
		r := evidence.Record{ID: fmt.Sprintf("ev_%d", i), Type: evidence.TypeOutcome, Outcome: evidence.OutcomeSuccess,
			Skill: "PostgreSQL indexing", Quality: evidence.QualityObservedReuse, Reporter: fmt.Sprintf("act_secret%d", i),
			Operator: fmt.Sprintf("op_secret%d", i), Ownership: evidence.OwnershipDistinct, Date: at.AddDays(-i),
			Context: evidence.Context{Workload: fmt.Sprintf("label-value-%d", i)}}
		switch i {
		case 7:
			r.Outcome = evidence.OutcomeFailure
		case 8:
			r.Type, r.Outcome = evidence.TypeContradiction, ""
		}
		recs = append(recs, r)
	}
	a := mustAssess(t, recs, skilltrust.Task{Skill: "PostgreSQL indexing", Context: evidence.Context{Workload: "label-value-1"}})
	sp, err := a.SkillPassport()
	if err != nil {
		t.Fatal(err)
	}
	if len(sp.Sources) != passport.MaxSourcePreviews || sp.SourceCount != 9 {
		t.Fatalf("%d previews of %d sources", len(sp.Sources), sp.SourceCount)
	}
	if sp.Sources[0].Evidence != "ev_8" || sp.Sources[0].Contradiction != "unresolved" || sp.Sources[1].Evidence != "ev_7" {
		t.Errorf("previews %+v: want the contradiction, then the failure first", sp.Sources)
	}
	if !sp.Contested || sp.Assessment != passport.AssessmentContested || (sp.Estimate == nil) != (a.Estimate == nil) {
		t.Errorf("contested %t, assessment %s, estimate %v", sp.Contested, sp.Assessment, sp.Estimate)
	}
	if a.Axes["operator"] != a.Effective.Operators || a.Axes["host"] != 0 || len(a.Axes) != 7 {
		t.Errorf("axes %v", a.Axes)
	}
	if got := sp.Policies; len(got) != 2 || got[0] != passport.TrustModelPolicy || got[1] != passport.OntologyPolicy {
		t.Errorf("policies %v", got)
	}
	h, err := sp.Hash()
	if err != nil || h != sp.AssessmentHash || len(h) != 64 {
		t.Errorf("hash %q, stored %q, %v", h, sp.AssessmentHash, err)
	}
	b := mustJSON(t, sp)
	for _, secret := range []string{"secret", "label-value", "op_", "act_"} {
		if strings.Contains(b, secret) {
			t.Errorf("the skill passport carries %q: %s", secret, b)
		}
	}
	if x := sp.Effective.Observations; x != float64(int64(x*1e6))/1e6 {
		t.Errorf("observations %v not rounded to six places", x)
	}
	// A different assessment date changes the hash.
	a2, _ := skilltrust.Assess(mustSet(t, recs), skilltrust.Task{Skill: "PostgreSQL indexing"}, at.AddDays(1))
	sp2, _ := a2.SkillPassport()
	if sp2.AssessmentHash == sp.AssessmentHash {
		t.Error("two different assessments share a hash")
	}
}

func mustSet(t testing.TB, recs []evidence.Record) *evidence.Set {
	t.Helper()
	s, err := evidence.NewSet(recs, false)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestCompare checks bounds and order of a comparison.
func TestCompare(t *testing.T) {
	empty := mustSet(t, nil)
	subjects := []skilltrust.Subject{{Name: "zeta", Evidence: empty}, {Name: "alpha", Evidence: empty}}
	c, err := skilltrust.Compare(subjects, []string{"SQLite", "PG"}, evidence.Context{}, at)
	if err != nil {
		t.Fatal(err)
	}
	if c.Agents[0].Name != "zeta" || c.Agents[1].Assessments[1].Skill != "PostgreSQL" {
		t.Errorf("order not kept: %+v", c.Agents)
	}
	six := make([]skilltrust.Subject, 6)
	for i := range six {
		six[i] = subjects[0]
	}
	if _, err := skilltrust.Compare(six, []string{"SQLite"}, evidence.Context{}, at); err == nil {
		t.Error("six agents accepted")
	}
	if _, err := skilltrust.Compare(subjects, []string{"a", "b", "c", "d", "e", "f"}, evidence.Context{}, at); err == nil {
		t.Error("six skills accepted")
	}
}

// TestAssessTaskErrors checks refused tasks.
func TestAssessTaskErrors(t *testing.T) {
	set := mustSet(t, nil)
	for name, task := range map[string]skilltrust.Task{
		"blank":      {Skill: " \t"},
		"long":       {Skill: strings.Repeat("x", 201)},
		"long label": {Skill: "PostgreSQL", Context: evidence.Context{Domain: strings.Repeat("d", 201)}},
	} {
		if _, err := skilltrust.Assess(set, task, at); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
	if _, err := skilltrust.Assess(set, skilltrust.Task{Skill: "PostgreSQL"}, evidence.Date{}); err == nil {
		t.Error("zero date accepted")
	}
}

func ExampleAssess() {
	set, err := evidence.Parse([]byte(`{"evidence":[
	 {"id":"ev_1","type":"outcome","skill":"Postgres indexing","outcome":"success","quality":"OBSERVED_REUSE",
	  "reporter":"act_1","operator":"op_1","ownership":"distinct","date":"2025-07-01","context":{"workload":"oltp"}},
	 {"id":"ev_2","type":"declaration","skill":"PostgreSQL","quality":"DECLARED","reporter":"act_0","ownership":"self","date":"2025-01-01"}]}`))
	if err != nil {
		panic(err)
	}
	a, err := skilltrust.Assess(set, skilltrust.Task{Skill: "PostgreSQL", Context: evidence.Context{Workload: "OLTP"}},
		evidence.MustDate("2026-01-01"))
	if err != nil {
		panic(err)
	}
	fmt.Println(a.Skill, a.Assessment, a.EvidenceLevel, a.Estimate == nil)
	for _, s := range a.Sources {
		fmt.Printf("%s applicability %.2f weight %.4f %s\n", s.ID, s.Applicability, s.Weight, s.Role)
	}
	fmt.Println(a.HeldBackBy[0].Name, a.Limitations)
	// Output:
	// PostgreSQL INSUFFICIENT_EVIDENCE VERY_LOW true
	// ev_1 applicability 0.75 weight 0.5288 counted
	// ev_2 applicability 1.00 weight 0.0000 not_weighted
	// estimate.binary_outcomes [declarations_carry_no_weight]
}

// TestLimitationsKnownToPassport checks that every limitation code an
// assessment lists is one the skill passport check accepts, and the 2.1
// code only from 2.1 on (SPEC.md §4.13).
func TestLimitationsKnownToPassport(t *testing.T) {
	form20, _ := passport.SkillFormOf("2.0")
	form21, _ := passport.SkillFormOf("2.1")
	for _, l := range []skilltrust.Limitation{
		skilltrust.LimitCapsApplied, skilltrust.LimitContextMismatch, skilltrust.LimitContextMissing,
		skilltrust.LimitDeclarations, skilltrust.LimitFailedReuse, skilltrust.LimitLaterRecords,
		skilltrust.LimitNonBinary, skilltrust.LimitMerged, skilltrust.LimitSelfReports,
		skilltrust.LimitSharedOwnership, skilltrust.LimitTruncated, skilltrust.LimitUnknownOwnership,
		skilltrust.LimitUnknownSkill,
	} {
		if !passport.KnownLimitation(string(l), form21) {
			t.Errorf("%s is not known to 2.1", l)
		}
		if got, want := passport.KnownLimitation(string(l), form20), l != skilltrust.LimitFailedReuse; got != want {
			t.Errorf("%s known to 2.0: %v, want %v", l, got, want)
		}
	}
}
