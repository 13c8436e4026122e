package passport

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
)

// Bounds on the skill section of a passport, keeping signed documents small;
// the full evidence stays reachable through the records.
const (
	MaxSkillPassports = 50 // skill passports in one passport
	MaxSourcePreviews = 3  // source previews in one skill passport
)

// SkillPassport is the assessment of one skill as a passport carries it
// (SPEC.md §4): the evidence state, the flags, the estimate or its absence,
// the labels, the effective counts, a few source previews and the policies
// that produced it. It holds no internal identifier, operator or context
// label value: sources are named by their evidence record's pseudonymous id.
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
	Visibility Visibility `json:"visibility"`
	// Calibration says whether calibration diagnostics exist.
	Calibration Calibration `json:"calibration"`
	// Estimate is the policy-adjusted Wilson interval of the success rate,
	// or nil (JSON null) when no estimate may be shown: N/A.
	Estimate *SkillEstimate `json:"estimate"`
	// Effective holds the effective (weighted, capped) counts.
	Effective SkillCounts `json:"effective"`
	// Sources previews at most MaxSourcePreviews sources, unresolved
	// contradictions first, then failures, then the heaviest.
	Sources []SourcePreview `json:"sources"`
	// SourceCount is the number of relevant records behind the assessment.
	SourceCount int `json:"sourceCount"`
	// Limitations lists the reason codes of the limits that applied.
	Limitations []string `json:"limitations"`
	// Policies names the versioned policies used, such as "skills-1".
	Policies []string `json:"policies"`
	// AssessedAt is the assessment date, YYYY-MM-DD.
	AssessedAt string `json:"assessedAt"`
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

// ErrSkillPassport is wrapped by every error Validate returns.
var ErrSkillPassport = errors.New("passport: invalid skill passport")

// Hash returns the assessment hash of sp: the lower-case hex SHA-256 of its
// canonical JSON without the assessmentHash member.
func (sp SkillPassport) Hash() (string, error) {
	sp.AssessmentHash = ""
	b, err := Marshal(sp)
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:]), nil
}

// Validate checks the bounds and vocabulary of a skill passport and that
// its assessment hash matches its content.
func (sp SkillPassport) Validate() error {
	bad := func(format string, a ...any) error {
		return fmt.Errorf("%w: %s: %s", ErrSkillPassport, sp.Skill, fmt.Sprintf(format, a...))
	}
	if sp.Skill == "" {
		return bad("no skill")
	}
	switch {
	case !oneOf(sp.State, StateNew, StateLimitedEvidence, StateEvidenced, StateWellEvidenced):
		return bad("unknown state %q", sp.State)
	case !oneOf(sp.EvidenceLevel, LevelVeryLow, LevelLow, LevelModerate, LevelStrong):
		return bad("unknown evidence level %q", sp.EvidenceLevel)
	case !oneOf(sp.Assessment, AssessmentContested, AssessmentStale, AssessmentNew,
		AssessmentSupported, AssessmentAdverseOutcomes, AssessmentInsufficientEvidence):
		return bad("unknown assessment %q", sp.Assessment)
	case !oneOf(sp.Visibility, VisibilityNegativeResults, VisibilityLimited):
		return bad("unknown visibility %q", sp.Visibility)
	case !oneOf(sp.Calibration, CalibrationInsufficientData, CalibrationAvailable):
		return bad("unknown calibration %q", sp.Calibration)
	case len(sp.Sources) > MaxSourcePreviews:
		return bad("%d source previews; at most %d", len(sp.Sources), MaxSourcePreviews)
	case sp.Contested != (sp.Assessment == AssessmentContested):
		return bad("the contested flag and the assessment disagree")
	}
	h, err := sp.Hash()
	if err != nil {
		return bad("%v", err)
	}
	if h != sp.AssessmentHash {
		return bad("assessment hash %q does not match the content (%s)", sp.AssessmentHash, h)
	}
	return nil
}

// ValidateSkillPassports checks a passport's list of skill passports: at
// most MaxSkillPassports, one per skill, each valid.
func ValidateSkillPassports(list []SkillPassport) error {
	if len(list) > MaxSkillPassports {
		return fmt.Errorf("%w: %d skill passports; at most %d", ErrSkillPassport, len(list), MaxSkillPassports)
	}
	seen := make(map[string]bool, len(list))
	for _, sp := range list {
		if seen[sp.Skill] {
			return fmt.Errorf("%w: skill %q appears twice", ErrSkillPassport, sp.Skill)
		}
		seen[sp.Skill] = true
		if err := sp.Validate(); err != nil {
			return err
		}
	}
	return nil
}

func oneOf[T comparable](v T, allowed ...T) bool {
	for _, a := range allowed {
		if v == a {
			return true
		}
	}
	return false
}
