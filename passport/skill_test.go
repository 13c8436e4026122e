package passport

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/remnant/passportkit/internal/cjson"
)

func validSkill(t *testing.T) SkillPassport {
	t.Helper()
	sp := SkillPassport{Skill: "PostgreSQL", State: StateLimitedEvidence, Assessment: AssessmentInsufficientEvidence,
		EvidenceLevel: LevelVeryLow, Visibility: VisibilityLimited, Calibration: CalibrationInsufficientData,
		Effective:   SkillCounts{Observations: 1, Binary: 1, Successes: 1, Operators: 1, Validators: 1, Contexts: 1},
		Sources:     []SourcePreview{{Evidence: "ev_1", Type: "outcome", Outcome: "success", Quality: "OBSERVED_REUSE", Date: "2026-01-01", Weight: 1, Applicability: 1, Contradiction: "none"}},
		SourceCount: 1, Policies: []string{TrustModelPolicy, OntologyPolicy}, AssessedAt: "2026-01-01"}
	h, err := sp.Hash()
	if err != nil {
		t.Fatal(err)
	}
	sp.AssessmentHash = h
	return sp
}

// checkSkill checks sp as it is signed: its canonical JSON.
func checkSkill(t *testing.T, sp SkillPassport) error {
	t.Helper()
	b, err := Marshal(sp)
	if err != nil {
		t.Fatal(err)
	}
	return CheckSkillPassportJSON(b, form20)
}

// The forms of trust models 2.0 and 2.1.
var (
	form20 = SkillForm{}
	form21 = SkillForm{minor: 1}
)

func TestSkillPassportValidate(t *testing.T) {
	if err := checkSkill(t, validSkill(t)); err != nil {
		t.Fatalf("valid skill passport refused: %v", err)
	}
	for name, change := range map[string]func(*SkillPassport){
		"no skill":         func(sp *SkillPassport) { sp.Skill = "" },
		"state":            func(sp *SkillPassport) { sp.State = "trusted" },
		"level":            func(sp *SkillPassport) { sp.EvidenceLevel = "HIGH" },
		"assessment":       func(sp *SkillPassport) { sp.Assessment = "GOOD" },
		"visibility":       func(sp *SkillPassport) { sp.Visibility = "ALL" },
		"calibration":      func(sp *SkillPassport) { sp.Calibration = "CALIBRATED" },
		"four previews":    func(sp *SkillPassport) { sp.Sources = append(sp.Sources, sp.Sources[0], sp.Sources[0], sp.Sources[0]) },
		"contested label":  func(sp *SkillPassport) { sp.Contested = true },
		"changed figure":   func(sp *SkillPassport) { sp.Effective.Successes = 2 },
		"changed estimate": func(sp *SkillPassport) { sp.Estimate = &SkillEstimate{Midpoint: 0.9, Lower: 0.8, Upper: 1} },
	} {
		sp := validSkill(t)
		change(&sp)
		var e *Error
		if err := checkSkill(t, sp); !errors.As(err, &e) || (e.Reason != ReasonFieldInvalid && e.Reason != ReasonFieldMissing) {
			t.Errorf("%s: %v", name, err)
		}
	}
}

// TestSkillPassportOmitsZero: members beyond the first six are left out at
// their zero value, so an absent estimate reads as N/A.
func TestSkillPassportOmitsZero(t *testing.T) {
	b, err := Marshal(SkillPassport{Skill: "SQLite", State: StateNew, Assessment: AssessmentNew, EvidenceLevel: LevelVeryLow})
	if err != nil {
		t.Fatal(err)
	}
	const want = `{"assessment":"NEW","contested":false,"evidenceLevel":"VERY_LOW","skill":"SQLite","stale":false,"state":"new"}`
	if string(b) != want {
		t.Errorf("got %s", b)
	}
}

// TestSkillPassportHashOverSignedBytes pins SPEC.md §4.1 and §4.14: the
// hash is over the bytes as signed, every member of effective is written
// (zeros included), and unknown members of a later minor version are
// hashed with the rest.
func TestSkillPassportHashOverSignedBytes(t *testing.T) {
	b, err := Marshal(validSkill(t))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(b, []byte(`"contradictions":0,"corroborations":0`)) {
		t.Fatalf("zero members of effective not written: %s", b)
	}
	rehash := func(b []byte) []byte {
		var m map[string]any
		if err := json.Unmarshal(b, &m); err != nil {
			t.Fatal(err)
		}
		delete(m, "assessmentHash")
		c, err := Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		sum := sha256.Sum256(c)
		m["assessmentHash"] = hex.EncodeToString(sum[:])
		out, err := Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	for _, tt := range []struct {
		name string
		edit func([]byte) []byte
		want Reason
	}{
		{"as signed", func(b []byte) []byte { return b }, ""},
		{"a member 2.0 does not define", func(b []byte) []byte {
			return rehash(bytes.Replace(b, []byte(`"assessedAt"`), []byte(`"aNewMember":[1,{"x":true}],"assessedAt"`), 1))
		}, ReasonFieldInvalid},
		{"zeros of effective left out, hash over what is given", func(b []byte) []byte {
			return rehash(bytes.Replace(b, []byte(`"contradictions":0,"corroborations":0,`), nil, 1))
		}, ReasonFieldInvalid},
		{"a zero-valued list written", func(b []byte) []byte {
			return rehash(bytes.Replace(b, []byte(`"skill":`), []byte(`"limitations":[],"skill":`), 1))
		}, ReasonFieldInvalid},
		{"a preview's outcome left out", func(b []byte) []byte {
			return rehash(bytes.Replace(b, []byte(`"outcome":"success",`), nil, 1))
		}, ReasonFieldInvalid},
		{"a preview's zero weight left out", func(b []byte) []byte {
			return rehash(bytes.Replace(b, []byte(`"weight":1`), []byte(`"x":1`), 1))
		}, ReasonFieldInvalid},
		{"wrong hash", func(b []byte) []byte {
			return bytes.Replace(b, []byte(`"assessmentHash":"`), []byte(`"assessmentHash":"0`), 1)[:len(b)]
		}, ReasonFieldInvalid},
		{"no hash", func(b []byte) []byte {
			var m map[string]any
			json.Unmarshal(b, &m)
			delete(m, "assessmentHash")
			out, _ := Marshal(m)
			return out
		}, ReasonFieldMissing},
		{"figure changed", func(b []byte) []byte {
			return bytes.Replace(b, []byte(`"successes":1`), []byte(`"successes":2`), 1)
		}, ReasonFieldInvalid},
	} {
		err := CheckSkillPassportJSON(tt.edit(slices.Clone(b)), form20)
		if got := ReasonOf(err); (tt.want == "" && err != nil) || (tt.want != "" && got != tt.want) {
			t.Errorf("%s: %v, want %q", tt.name, err, tt.want)
		}
	}
}

// BenchmarkCheckSkillPassportJSON measures the signed-bytes check of one
// skill passport, on its own (parse and check) and as the verifier runs it
// (on the bundle's index), against a baseline measured in the same loop:
// SHA-256 of the same bytes, which any hash check must pay.
func BenchmarkCheckSkillPassportJSON(b *testing.B) {
	sp := SkillPassport{Skill: "PostgreSQL indexing", State: StateEvidenced, Assessment: AssessmentSupported, EvidenceLevel: LevelModerate,
		Visibility: VisibilityLimited, Calibration: CalibrationInsufficientData, Estimate: &SkillEstimate{Midpoint: 0.71, Lower: 0.45, Upper: 0.88},
		Effective:    SkillCounts{Observations: 9.5, Binary: 9.5, Successes: 8.25, Failures: 1.25, Operators: 3, Validators: 4, Contexts: 2},
		Independence: &SkillIndependence{Operator: 3}, Recency: &SkillRecency{LatestEligible: "2026-04-01", AgeDays: 30},
		Coverage: SkillCoverage{Observations: 11, Positions: 10, Lineages: 8, Contexts: 2}, SourceCount: 11,
		Policies: []string{TrustModelPolicy, OntologyPolicy}, AssessedAt: "2026-05-01"}
	for range 3 {
		sp.Sources = append(sp.Sources, SourcePreview{Evidence: "ev_00017", Type: "outcome", Outcome: "success", Quality: "OBSERVED_REUSE",
			Date: "2026-04-01", Weight: 0.871, Applicability: 1, Contradiction: "none"})
	}
	h, err := sp.Hash()
	if err != nil {
		b.Fatal(err)
	}
	sp.AssessmentHash = h
	raw, err := Marshal(sp)
	if err != nil {
		b.Fatal(err)
	}
	doc, err := cjson.Parse(raw, cjson.Options{Canonical: true})
	if err != nil {
		b.Fatal(err)
	}
	for name, check := range map[string]func() error{
		"parsed":  func() error { return CheckSkillPassportJSON(raw, form21) },
		"indexed": func() error { return CheckIndexedSkillPassport(doc.Root(), form21) },
	} {
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			var ours, base time.Duration
			for b.Loop() {
				t0 := time.Now()
				if err := check(); err != nil {
					b.Fatal(err)
				}
				t1 := time.Now()
				sha256.Sum256(raw)
				t2 := time.Now()
				ours += t1.Sub(t0)
				base += t2.Sub(t1)
			}
			b.ReportMetric(float64(len(raw)), "bytes")
			b.ReportMetric(float64(ours)/float64(base), "x-sha256")
		})
	}
}

// TestSkillMemberListsMatchStructs pins the member lists of the skill
// passport check to the members the types of this package write.
func TestSkillMemberListsMatchStructs(t *testing.T) {
	for _, tt := range []struct {
		v     any
		names []numeric
	}{
		{SkillEstimate{}, estimateMembers}, {SkillCounts{}, effectiveMembers},
		{SkillIndependence{}, independenceMembers}, {SkillCoverage{}, coverageMembers},
	} {
		b, err := json.Marshal(tt.v)
		if err != nil {
			t.Fatal(err)
		}
		var m map[string]any
		if err := json.Unmarshal(b, &m); err != nil {
			t.Fatal(err)
		}
		var want, got []string
		for k := range m {
			want = append(want, k)
		}
		for _, n := range tt.names {
			got = append(got, n.name)
		}
		slices.Sort(want)
		slices.Sort(got)
		if !slices.Equal(got, want) {
			t.Errorf("%T: checked %q, written %q", tt.v, got, want)
		}
	}
}

// TestSkillPassportLaterMinor checks that a member this package does not
// know is accepted, and hashed, only in a skill passport of a later minor
// version than it knows (SPEC.md §4.1).
func TestSkillPassportLaterMinor(t *testing.T) {
	sp := validSkill(t)
	sp.Independence = &SkillIndependence{Operator: 1}
	b, err := Marshal(sp)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	delete(m, "assessmentHash")
	m["aNewMember"] = []any{1, map[string]any{"x": true}}
	m["coverage"] = map[string]any{"contexts": 0, "lineages": 1, "observations": 1, "positions": 1, "zLater": 2}
	unhashed, _ := Marshal(m)
	m["assessmentHash"] = PassportHash(unhashed)
	raw, _ := Marshal(m)
	if err := CheckSkillPassportJSON(raw, SkillForm{minor: 2}); err != nil {
		t.Errorf("2.2: %v", err)
	}
	if err := CheckSkillPassportJSON(raw, form21); ReasonOf(err) != ReasonFieldInvalid {
		t.Errorf("2.1: %v, want %s", err, ReasonFieldInvalid)
	}
}
