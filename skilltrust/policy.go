package skilltrust

import "github.com/remnant/passportkit/passport"

// The contextual-trust-v2 policy (trust model 2.0 and 2.1). These are conservative, explicit release
// choices, not empirically calibrated cutoffs; changing any of them is a new
// policy version.
const (
	// PolicyID names this policy in assessments and passports.
	PolicyID = passport.TrustModelPolicy

	// Eligibility of a reporter by ownership: known distinct ownership
	// counts fully, unknown ownership is discounted (a policy discount, not
	// a probability of independence), and the subject's own reports and
	// reports from a shared owner count for nothing.
	EligibilityDistinct = 1.0
	EligibilityUnknown  = 0.25

	// HalfLifeDays is the half-life of evidence weight.
	HalfLifeDays = 365
	// StaleAfterDays: an assessment whose latest eligible evidence is older
	// than this is stale.
	StaleAfterDays = 730

	// Caps, in weight units, on the initial mass of each group. A group
	// over its cap has every member scaled down by cap/mass; each position
	// takes the smallest factor among its groups; nothing is scaled up.
	CapOperator        = 8.0 // per known operator
	CapActor           = 8.0 // per actor
	CapUnknownOperator = 1.0 // all reporters of unknown ownership together
	CapLineage         = 3.0 // per lineage cluster
	CapOperatorContext = 1.0 // per operator and identical structured context

	// An estimate is shown only from MinBinary effective binary outcomes
	// reported by at least MinOperators known independent operators and
	// MinValidators known independent validators, and never from a
	// truncated collection.
	MinBinary     = 5.0
	MinOperators  = 2
	MinValidators = 2

	// MaxCompareAgents and MaxCompareSkills bound a comparison.
	MaxCompareAgents = 5
	MaxCompareSkills = 5

	// tolerance absorbs floating-point rounding when a sum of weights is
	// compared with a threshold.
	tolerance = 1e-9
)

// levelThreshold is what an evidence level requires: effective observations
// and distinct known independent operators, validators and structured
// contexts, each with positive weight.
type levelThreshold struct {
	Observations float64
	Operators    int
	Validators   int
	Contexts     int
}

// The evidence level thresholds. LOW requires what an estimate requires of
// all observations; MODERATE and STRONG are never reached by a truncated
// collection.
var (
	lowLevel      = levelThreshold{Observations: MinBinary, Operators: MinOperators, Validators: MinValidators}
	moderateLevel = levelThreshold{Observations: 8, Operators: 2, Validators: 2, Contexts: 2}
	strongLevel   = levelThreshold{Observations: 30, Operators: 5, Validators: 5, Contexts: 5}
)

// Calibration diagnostics need at least this many comparable outcomes with
// a prediction recorded beforehand, from this many lineage clusters and
// known independent operators, with at least this much effective mass.
const (
	CalibrationMinOutcomes  = 50
	CalibrationMinClusters  = 50
	CalibrationMinOperators = 5
	CalibrationMinMass      = 30.0
)
