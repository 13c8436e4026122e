package passport

import (
	"crypto/sha256"
	"encoding/hex"
)

// MaxSourcePreviews bounds the source previews of one skill passport,
// keeping signed documents small; the full evidence stays reachable through
// the records.
const MaxSourcePreviews = 3

// SkillPassport is the assessment of one skill as a passport carries it
// (SPEC.md §4): the evidence state, the flags, the estimate or its absence,
// the labels, the effective counts, a few source previews and the policies
// that produced it. It holds no internal identifier, operator or context
// label value: sources are named by their evidence record's pseudonymous id.
//
// Members after evidenceLevel are left out when they hold their zero value:
// an absent estimate is N/A, absent counts are zero, absent lists are empty.
type SkillPassport struct {
	// Skill is the normalised skill term.
	Skill string `json:"skill"`
	// State is the evidence state.
	State SkillState `json:"state"`
	// Contested is set while relevant evidence has an unresolved eligible
	// contradiction.
	Contested bool `json:"contested"`
	// Stale is set when no eligible evidence is younger than two years.
	Stale bool `json:"stale"`
	// Assessment is the headline label.
	Assessment AssessmentLabel `json:"assessment"`
	// EvidenceLevel grades the independent evidence.
	EvidenceLevel EvidenceLevel `json:"evidenceLevel"`
	// Visibility says whether negative results are visible.
	Visibility Visibility `json:"visibility,omitempty"`
	// Calibration says whether calibration diagnostics exist.
	Calibration Calibration `json:"calibration,omitempty"`
	// Estimate is the policy-adjusted Wilson interval of the success rate,
	// or nil (member absent) when no estimate may be shown: N/A.
	Estimate *SkillEstimate `json:"estimate,omitempty"`
	// Effective holds the effective (weighted, capped) counts.
	Effective SkillCounts `json:"effective,omitzero"`
	// Independence counts, per independence axis, the distinct categories
	// observed among positions with positive weight (trust model 2.1). It
	// is written in every 2.1 skill passport, zeros included: an axis the
	// sources do not record reports zero observed categories and stays
	// unknown; nothing is inferred.
	Independence *SkillIndependence `json:"independence,omitempty"`
	// Corrections is the number of correction signals (trust model 2.1).
	Corrections int `json:"corrections,omitempty"`
	// Recency dates the latest eligible observation (trust model 2.1); nil
	// when there is none.
	Recency *SkillRecency `json:"recency,omitempty"`
	// Coverage counts the relevant evidence (trust model 2.1).
	Coverage SkillCoverage `json:"coverage,omitzero"`
	// Sources previews at most MaxSourcePreviews sources, unresolved
	// contradictions first, then failures, then the heaviest.
	Sources []SourcePreview `json:"sources,omitempty"`
	// SourceCount is the number of relevant records behind the assessment.
	SourceCount int `json:"sourceCount,omitempty"`
	// Limitations lists the reason codes of the limits that applied.
	Limitations []string `json:"limitations,omitempty"`
	// Policies names the versioned policies used, such as "skills-1".
	Policies []string `json:"policies,omitempty"`
	// AssessedAt is the assessment date, YYYY-MM-DD.
	AssessedAt string `json:"assessedAt,omitempty"`
	// AssessmentHash is the lower-case hex SHA-256 of the canonical JSON
	// (RFC 8785) of this skill passport without its assessmentHash member.
	AssessmentHash string `json:"assessmentHash,omitempty"`
}

// SkillEstimate is a policy-adjusted uncertainty interval: not a certified
// coverage guarantee, nor the probability of success on the next task.
type SkillEstimate struct {
	Midpoint float64 `json:"midpoint"`
	Lower    float64 `json:"lower"`
	Upper    float64 `json:"upper"`
}

// SkillCounts are effective counts: sums of capped weights, and numbers of
// distinct known independent operators, validators and contexts with
// positive weight.
type SkillCounts struct {
	Observations   float64 `json:"observations"`
	Binary         float64 `json:"binary"`
	Successes      float64 `json:"successes"`
	Failures       float64 `json:"failures"`
	Partial        float64 `json:"partial"`
	Uncertain      float64 `json:"uncertain"`
	Corroborations float64 `json:"corroborations"`
	Contradictions float64 `json:"contradictions"`
	Operators      int     `json:"operators"`
	Validators     int     `json:"validators"`
	Contexts       int     `json:"contexts"`
}

// SkillIndependence counts the distinct categories observed on each
// independence axis. Sources record registered operators only; the other
// axes report zero until a trusted adapter attests them.
type SkillIndependence struct {
	Operator    int `json:"operator"`
	Builder     int `json:"builder"`
	ModelFamily int `json:"modelFamily"`
	Host        int `json:"host"`
	Framework   int `json:"framework"`
	Project     int `json:"project"`
	Dataset     int `json:"dataset"`
}

// SkillRecency is how recent the eligible evidence is.
type SkillRecency struct {
	// LatestEligible is the day of the latest observation of non-zero
	// eligibility, YYYY-MM-DD.
	LatestEligible string `json:"latestEligible"`
	// AgeDays is the number of days from LatestEligible to assessedAt.
	AgeDays int `json:"ageDays"`
}

// SkillCoverage counts the relevant evidence behind a skill passport, before
// any weighting: what was looked at, not what it weighs.
type SkillCoverage struct {
	// Observations is the number of relevant outcome, corroboration and
	// contradiction records.
	Observations int `json:"observations"`
	// Positions is the number of reporter and lineage positions.
	Positions int `json:"positions"`
	// Lineages is the number of distinct lineage clusters among positions.
	Lineages int `json:"lineages"`
	// Contexts is the number of distinct normalised contexts among the
	// relevant observations.
	Contexts int `json:"contexts"`
}

// SourcePreview summarises one evidence record behind a skill passport.
type SourcePreview struct {
	// Evidence is the record's id in the passport's evidence.
	Evidence      string  `json:"evidence"`
	Type          string  `json:"type"`
	Outcome       string  `json:"outcome,omitempty"`
	Quality       string  `json:"quality"`
	Date          string  `json:"date"`
	Weight        float64 `json:"weight"`
	Applicability float64 `json:"applicability"`
	// Contradiction is "unresolved" or "resolved" on contradictions, else
	// "none".
	Contradiction string `json:"contradiction"`
}

// SkillState is the evidence state of a skill.
type SkillState string

// The evidence states.
const (
	StateNew             SkillState = "new"
	StateLimitedEvidence SkillState = "limited_evidence"
	StateEvidenced       SkillState = "evidenced"
	StateWellEvidenced   SkillState = "well_evidenced"
)

// EvidenceLevel grades the amount and independence of the evidence.
type EvidenceLevel string

// The evidence levels, weakest first.
const (
	LevelVeryLow  EvidenceLevel = "VERY_LOW"
	LevelLow      EvidenceLevel = "LOW"
	LevelModerate EvidenceLevel = "MODERATE"
	LevelStrong   EvidenceLevel = "STRONG"
)

// AssessmentLabel is the headline of a skill assessment.
type AssessmentLabel string

// The assessment labels. CONTESTED takes precedence over STALE, and both
// over the rest.
const (
	AssessmentContested            AssessmentLabel = "CONTESTED"
	AssessmentStale                AssessmentLabel = "STALE"
	AssessmentNew                  AssessmentLabel = "NEW"
	AssessmentSupported            AssessmentLabel = "SUPPORTED"
	AssessmentAdverseOutcomes      AssessmentLabel = "EVIDENCED_WITH_ADVERSE_OUTCOMES"
	AssessmentInsufficientEvidence AssessmentLabel = "INSUFFICIENT_EVIDENCE"
)

// Visibility says whether an assessment shows negative results.
type Visibility string

// The visibility labels.
const (
	VisibilityNegativeResults Visibility = "NEGATIVE_RESULTS_VISIBLE"
	VisibilityLimited         Visibility = "LIMITED_VISIBILITY"
)

// Calibration says whether calibration diagnostics are available.
type Calibration string

// The calibration labels.
const (
	CalibrationInsufficientData Calibration = "INSUFFICIENT_DATA"
	CalibrationAvailable        Calibration = "AVAILABLE"
)

// Hash returns the assessment hash of sp: the lower-case hex SHA-256 of its
// canonical JSON without the assessmentHash member.
func (sp SkillPassport) Hash() (string, error) {
	sp.AssessmentHash = ""
	var buf [2048]byte
	b, err := sp.AppendCanonical(buf[:0])
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:]), nil
}

// validate checks a skill passport's vocabulary and bounds. Its assessment
// hash is checked over the signed bytes by CheckSkillPassportJSON; whether
// its figures follow from the evidence is a separate question, answered by
// recomputing them.
func (sp *SkillPassport) validate() error {
	bad := func(format string, a ...any) error { return errorf(ReasonFieldInvalid, format, a...) }
	switch {
	case sp.Skill == "":
		return errorf(ReasonFieldMissing, "skill is missing")
	case !knownState(string(sp.State)):
		return bad("unknown state %q", sp.State)
	case !knownLevel(string(sp.EvidenceLevel)):
		return bad("unknown evidence level %q", sp.EvidenceLevel)
	case !knownAssessment(string(sp.Assessment)):
		return bad("unknown assessment %q", sp.Assessment)
	case sp.Visibility != "" && !knownVisibility(string(sp.Visibility)):
		return bad("unknown visibility %q", sp.Visibility)
	case sp.Calibration != "" && !knownCalibration(string(sp.Calibration)):
		return bad("unknown calibration %q", sp.Calibration)
	case len(sp.Sources) > MaxSourcePreviews:
		return bad("%d source previews; at most %d", len(sp.Sources), MaxSourcePreviews)
	case sp.Contested != (sp.Assessment == AssessmentContested):
		return bad("the contested flag and the assessment disagree")
	}
	return nil
}

// The vocabularies of a skill passport's labels.
func knownState(s string) bool {
	return oneOf(SkillState(s), StateNew, StateLimitedEvidence, StateEvidenced, StateWellEvidenced)
}

func knownLevel(s string) bool {
	return oneOf(EvidenceLevel(s), LevelVeryLow, LevelLow, LevelModerate, LevelStrong)
}

func knownAssessment(s string) bool {
	return oneOf(AssessmentLabel(s), AssessmentContested, AssessmentStale, AssessmentNew,
		AssessmentSupported, AssessmentAdverseOutcomes, AssessmentInsufficientEvidence)
}

func knownVisibility(s string) bool {
	return oneOf(Visibility(s), VisibilityNegativeResults, VisibilityLimited)
}

func knownCalibration(s string) bool {
	return oneOf(Calibration(s), CalibrationInsufficientData, CalibrationAvailable)
}

func oneOf[T comparable](v T, allowed ...T) bool {
	for _, a := range allowed {
		if v == a {
			return true
		}
	}
	return false
}
