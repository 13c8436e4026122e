package passport

import (
	"errors"
	"testing"
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

func TestSkillPassportValidate(t *testing.T) {
	if sp := validSkill(t); sp.validate() != nil {
		t.Fatalf("valid skill passport refused: %v", sp.validate())
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
		if err := sp.validate(); !errors.As(err, &e) || (e.Reason != ReasonFieldInvalid && e.Reason != ReasonFieldMissing) {
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
