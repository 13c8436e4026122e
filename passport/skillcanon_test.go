package passport

import (
	"bytes"
	"encoding/json"
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/gowebpki/jcs"
)

// skillTexts exercise every escaping rule of RFC 8785, and invalid UTF-8.
var skillTexts = []string{
	"", "a", "PostgreSQL indexing", "quote\" back\\slash", "\b\t\n\f\r", "\x00\x01\x1f\x7f", "<>&", "\u2028\u2029",
	"é ü 日本語 🎉", "\xff", "a\xc3", "\xed\xa0\x80", "ok\x80ok", "/slash/",
}

// skillNumbers hold the boundaries of the ECMAScript forms and of the
// ±(2^53−1) guard, and values with no JSON form.
var skillNumbers = []float64{0, 1, 0.5, -2.75, 1e-7, 1e-6, 0.1 + 0.2, 1e21, 1e20, 123456789.125, math.SmallestNonzeroFloat64,
	math.Copysign(0, -1), 1<<53 - 1, 1 << 53, -(1 << 53), math.MaxFloat64, math.NaN(), math.Inf(1)}

// skillInts hold the boundaries of the guard.
var skillInts = []int{0, 1, -1, 42, 1<<53 - 1, 1 << 53, -(1<<53 - 1), -(1 << 53)}

func randomSkillPassport(r *rand.Rand) SkillPassport {
	text := func() string { return skillTexts[r.IntN(len(skillTexts))] }
	num := func() float64 {
		if r.IntN(3) == 0 {
			return skillNumbers[r.IntN(len(skillNumbers))]
		}
		return float64(r.IntN(4)) / 2
	}
	n := func() int {
		if r.IntN(8) == 0 {
			return skillInts[r.IntN(len(skillInts))]
		}
		return r.IntN(3)
	}
	texts := func() []string {
		if r.IntN(4) == 0 {
			return []string{} // empty, not nil: left out too
		}
		var out []string
		for range r.IntN(3) {
			out = append(out, text())
		}
		return out
	}
	sp := SkillPassport{Skill: text(), State: SkillState(text()), Contested: r.IntN(2) == 0, Stale: r.IntN(2) == 0,
		Assessment: AssessmentLabel(text()), EvidenceLevel: EvidenceLevel(text()), Visibility: Visibility(text()),
		Calibration: Calibration(text()), Corrections: n(), SourceCount: n(), Limitations: texts(), Policies: texts(),
		AssessedAt: text(), AssessmentHash: text()}
	if r.IntN(2) == 0 {
		sp.Estimate = &SkillEstimate{Midpoint: num(), Lower: num(), Upper: num()}
	}
	if r.IntN(3) > 0 {
		sp.Effective = SkillCounts{Observations: num(), Binary: num(), Successes: num(), Failures: num(), Partial: num(),
			Uncertain: num(), Corroborations: num(), Contradictions: num(), Operators: n(), Validators: n(), Contexts: n()}
	}
	if r.IntN(2) == 0 {
		sp.Independence = &SkillIndependence{Operator: n(), Builder: n(), ModelFamily: n(), Host: n(), Framework: n(), Project: n(), Dataset: n()}
	}
	if r.IntN(2) == 0 {
		sp.Recency = &SkillRecency{LatestEligible: text(), AgeDays: n()}
	}
	if r.IntN(3) > 0 {
		sp.Coverage = SkillCoverage{Observations: n(), Positions: n(), Lineages: n(), Contexts: n()}
	}
	for range r.IntN(MaxSourcePreviews + 2) {
		sp.Sources = append(sp.Sources, SourcePreview{Evidence: text(), Type: text(), Outcome: text(), Quality: text(),
			Date: text(), Weight: num(), Applicability: num(), Contradiction: text()})
	}
	return sp
}

// checkSkillCanonical checks sp's direct encoding against Marshal, the
// guarded jcs(encoding/json): the same bytes, or both refused; and what
// Marshal accepts against jcs.Transform itself.
func checkSkillCanonical(t testing.TB, sp SkillPassport) {
	t.Helper()
	got, err := sp.AppendCanonical(nil)
	want, werr := Marshal(sp)
	if (err != nil) != (werr != nil) {
		t.Fatalf("direct encoding refuses %v, Marshal %v:\n%+v", err, werr, sp)
	}
	if werr != nil {
		return
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("direct encoding differs from Marshal:\n got %s\nwant %s", got, want)
	}
	j, err := json.Marshal(sp)
	if err != nil {
		t.Fatal(err)
	}
	if ref, err := jcs.Transform(j); err != nil || !bytes.Equal(ref, got) {
		t.Fatalf("jcs gives %s (%v), the direct encoding %s", ref, err, got)
	}
}

// TestSkillPassportAppendCanonical: the direct encoder writes exactly what
// Marshal writes, for skill passports with every member present or absent,
// zero or not (-0 included), text that needs every kind of escaping and
// numbers at the guard, and refuses what Marshal refuses.
func TestSkillPassportAppendCanonical(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for range 5000 {
		checkSkillCanonical(t, randomSkillPassport(r))
	}
	checkSkillCanonical(t, SkillPassport{})
	checkSkillCanonical(t, SkillPassport{Effective: SkillCounts{Partial: math.Copysign(0, -1)}})
	checkSkillCanonical(t, validSkill(t))
	for _, sp := range []SkillPassport{
		{Estimate: &SkillEstimate{Lower: math.NaN()}},
		{Effective: SkillCounts{Binary: 1 << 53}},
		{Coverage: SkillCoverage{Positions: 1 << 53}},
	} {
		if _, err := sp.AppendCanonical(nil); err == nil {
			t.Errorf("%+v was encoded", sp)
		}
	}
}

// FuzzSkillPassportCanonical checks the direct encoder against Marshal on
// arbitrary text and numbers in every member.
func FuzzSkillPassportCanonical(f *testing.F) {
	for i, s := range skillTexts {
		f.Add(s, skillTexts[(i+1)%len(skillTexts)], skillNumbers[i%len(skillNumbers)], int64(skillInts[i%len(skillInts)]), uint8(i))
	}
	f.Fuzz(func(t *testing.T, a, b string, x float64, n int64, flags uint8) {
		on := func(bit uint) bool { return flags&(1<<bit) != 0 }
		sp := SkillPassport{Skill: a, State: SkillState(b), Contested: on(0), Stale: on(1), Assessment: AssessmentLabel(a),
			EvidenceLevel: EvidenceLevel(b), Visibility: Visibility(a), Calibration: Calibration(b), Corrections: int(n),
			SourceCount: int(n), Limitations: []string{a, b}, Policies: []string{b}, AssessedAt: a, AssessmentHash: b,
			Effective: SkillCounts{Successes: x, Operators: int(n)}, Coverage: SkillCoverage{Lineages: int(n)}}
		if on(2) {
			sp.Estimate = &SkillEstimate{Midpoint: x, Lower: x / 2, Upper: x * 2}
		}
		if on(3) {
			sp.Independence = &SkillIndependence{Host: int(n)}
		}
		if on(4) {
			sp.Recency = &SkillRecency{LatestEligible: a, AgeDays: int(n)}
		}
		if on(5) {
			sp.Sources = []SourcePreview{{Evidence: a, Type: b, Outcome: a, Quality: b, Date: a, Weight: x, Applicability: -x, Contradiction: b}}
		}
		if on(6) {
			sp.Effective, sp.Coverage, sp.Limitations, sp.Policies = SkillCounts{}, SkillCoverage{}, nil, []string{}
		}
		checkSkillCanonical(t, sp)
	})
}

// BenchmarkSkillPassportCanonical writes a typical skill passport directly
// and through Marshal, and reports the direct encoder's time as a ratio to
// Marshal's measured in the same run.
func BenchmarkSkillPassportCanonical(b *testing.B) {
	sp := SkillPassport{Skill: "PostgreSQL indexing", State: StateEvidenced, Assessment: AssessmentSupported,
		EvidenceLevel: LevelModerate, Visibility: VisibilityNegativeResults, Calibration: CalibrationInsufficientData,
		Estimate:     &SkillEstimate{Midpoint: 0.8123456789, Lower: 0.61234, Upper: 0.9312345},
		Effective:    SkillCounts{Observations: 40.5, Binary: 38, Successes: 30.25, Failures: 7.75, Operators: 12, Validators: 3, Contexts: 4},
		Independence: &SkillIndependence{Operator: 12}, Recency: &SkillRecency{LatestEligible: "2026-04-01", AgeDays: 12},
		Coverage: SkillCoverage{Observations: 200, Positions: 180, Lineages: 40, Contexts: 4},
		Sources: []SourcePreview{
			{Evidence: "ev_abcdefghijklmnopqrstuvwxyz", Type: "contradiction", Quality: "OBSERVED_REUSE", Date: "2026-04-01", Weight: 0.5, Applicability: 1, Contradiction: "unresolved"},
			{Evidence: "ev_bcdefghijklmnopqrstuvwxyza", Type: "outcome", Outcome: "failure", Quality: "OBSERVED_REUSE", Date: "2026-03-01", Weight: 1, Applicability: 0.75, Contradiction: "none"},
			{Evidence: "ev_cdefghijklmnopqrstuvwxyzab", Type: "outcome", Outcome: "success", Quality: "OBSERVED_REUSE", Date: "2026-02-01", Weight: 1, Applicability: 1, Contradiction: "none"},
		},
		SourceCount: 200, Limitations: []string{"stale_evidence"}, Policies: []string{TrustModelPolicy, OntologyPolicy}, AssessedAt: "2026-04-13"}
	var direct, viaMarshal time.Duration
	b.ReportAllocs()
	for b.Loop() {
		t0 := time.Now()
		if _, err := sp.AppendCanonical(nil); err != nil {
			b.Fatal(err)
		}
		t1 := time.Now()
		if _, err := Marshal(sp); err != nil {
			b.Fatal(err)
		}
		direct, viaMarshal = direct+t1.Sub(t0), viaMarshal+time.Since(t1)
	}
	b.ReportMetric(float64(direct)/float64(viaMarshal), "direct/marshal")
}
