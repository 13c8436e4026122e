package web

import (
	"fmt"
	"html/template"
	"strings"

	"github.com/remnant/passportkit/evidence"
	"github.com/remnant/passportkit/passport"
)

// The words the pages use for the trust model's labels: one table each, so
// that a label reads the same on every page. They name labels in a table
// cell; what a code means, in a sentence, is package skilltrust's to say
// (skilltrust.Why), as the trust API says it.

var assessmentWords = map[passport.AssessmentLabel]string{
	passport.AssessmentContested:            "Contested",
	passport.AssessmentStale:                "Stale",
	passport.AssessmentNew:                  "New: no observations",
	passport.AssessmentInsufficientEvidence: "Insufficient evidence",
	passport.AssessmentAdverseOutcomes:      "Evidenced, with adverse outcomes",
	passport.AssessmentSupported:            "Supported",
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

var qualityWords = map[evidence.Quality]string{
	evidence.QualityDeclared:                     "declared",
	evidence.QualitySelfReported:                 "self-reported",
	evidence.QualityObservedReuse:                "observed reuse",
	evidence.QualityIndependentReproduction:      "independent reproduction",
	evidence.QualityMachineVerified:              "machine verified",
	evidence.QualityMultiIndependentVerification: "multiple independent verifications",
}

// ownershipWords says how a record's reporter relates to the subject's
// ownership (SPEC.md §5.3).
var ownershipWords = map[evidence.Ownership]string{
	evidence.OwnershipSelf:     "the agent itself",
	evidence.OwnershipShared:   "shares an operator with the agent",
	evidence.OwnershipDistinct: "an independent operator's",
	evidence.OwnershipUnknown:  "operator unknown",
}

// roleWords says what each role of a source (SPEC.md §16.3) did.
var roleWords = map[string]string{
	"counted":      "holds a position",
	"merged":       "merged into another position",
	"not_weighted": "carries no weight by its kind",
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
	"count": count,
	"fixed": fixed,
	"inc":   func(i int) int { return i + 1 },
}
