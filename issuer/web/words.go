package web

import (
	"fmt"
	"html/template"
	"strings"

	"github.com/remnant/passportkit/evidence"
	"github.com/remnant/passportkit/passport"
	"github.com/remnant/passportkit/skilltrust"
)

// The words the pages use for the trust model's labels: one table each, so
// that a label reads the same on every page.

var assessmentWords = map[passport.AssessmentLabel]string{
	passport.AssessmentContested:            "Contested",
	passport.AssessmentStale:                "Stale",
	passport.AssessmentNew:                  "New: no observations",
	passport.AssessmentInsufficientEvidence: "Insufficient evidence",
	passport.AssessmentAdverseOutcomes:      "Evidenced, with adverse outcomes",
	passport.AssessmentSupported:            "Supported",
}

// assessmentLeads says in one sentence what each headline means.
var assessmentLeads = map[passport.AssessmentLabel]string{
	passport.AssessmentContested: "An eligible contradiction of this work is unresolved, so the assessment is contested, " +
		"whatever else the evidence shows. The figures below stay visible.",
	passport.AssessmentStale: "The latest eligible observation is more than two years old, so the assessment is stale.",
	passport.AssessmentNew: "Nobody has reported using this skill's work: there is nothing to weigh yet. " +
		"A declaration or a publication alone is not evidence.",
	passport.AssessmentInsufficientEvidence: "There is some evidence, but not enough independent outcomes for an estimate.",
	passport.AssessmentAdverseOutcomes: "There is enough independent evidence for an estimate, and failures outweigh successes. " +
		"Strong evidence is not a recommendation.",
	passport.AssessmentSupported: "Enough independent outcomes support an estimate, and successes outweigh failures. " +
		"The interval describes recorded evidence; it is not the chance that the next task succeeds.",
}

var stateWords = map[passport.SkillState]string{
	passport.StateNew:             "new",
	passport.StateLimitedEvidence: "limited evidence",
	passport.StateEvidenced:       "evidenced",
	passport.StateWellEvidenced:   "well evidenced",
}

var levelWords = map[passport.EvidenceLevel]string{
	passport.LevelVeryLow:  "very low",
	passport.LevelLow:      "low",
	passport.LevelModerate: "moderate",
	passport.LevelStrong:   "strong",
}

// groupWords names each kind of capped group (SPEC.md §4.6) without its
// pseudonymous key.
var groupWords = map[string]string{
	skilltrust.GroupActor:            "one reporter",
	skilltrust.GroupOperator:         "one operator",
	skilltrust.GroupUnknownOperators: "all reporters of unknown ownership",
	skilltrust.GroupLineage:          "one line of work",
	skilltrust.GroupOperatorContext:  "one operator in one context",
}

var ownershipWords = map[evidence.Ownership]string{
	evidence.OwnershipDistinct: "independent owner",
	evidence.OwnershipUnknown:  "unknown owner",
	evidence.OwnershipSelf:     "the agent itself",
	evidence.OwnershipShared:   "same owner",
}

var qualityWords = map[evidence.Quality]string{
	evidence.QualityDeclared:                     "declared",
	evidence.QualitySelfReported:                 "self-reported",
	evidence.QualityObservedReuse:                "observed reuse",
	evidence.QualityIndependentReproduction:      "independent reproduction",
	evidence.QualityMachineVerified:              "machine verified",
	evidence.QualityMultiIndependentVerification: "multiple independent verifications",
}

// word looks a label up, falling back to the label itself (a later minor
// version may add labels).
func word[K ~string](m map[K]string, k K) string {
	if s, ok := m[k]; ok {
		return s
	}
	return strings.ReplaceAll(strings.ToLower(string(k)), "_", " ")
}

// NotEnoughEvidence is how the pages say that an estimate is N/A.
const NotEnoughEvidence = "N/A — not enough evidence"

// estimateText writes an estimate as its midpoint and interval, or
// NotEnoughEvidence.
func estimateText(e *passport.SkillEstimate) string {
	if e == nil {
		return NotEnoughEvidence
	}
	return fmt.Sprintf("%.2f (interval %.2f–%.2f)", e.Midpoint, e.Lower, e.Upper)
}

// count writes n things, in the singular for one.
func count(n int, thing string) string {
	if n == 1 {
		return "1 " + thing
	}
	return fmt.Sprintf("%d %ss", n, thing)
}

// fixed writes a weight or an effective count to two decimals.
func fixed(x float64) string { return fmt.Sprintf("%.2f", x) }

// funcs are the template functions.
var funcs = template.FuncMap{
	"fixed": fixed,
	"inc":   func(i int) int { return i + 1 },
}
