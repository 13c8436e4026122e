package skilltrust

import (
	"errors"
	"slices"

	"github.com/remnant/passportkit/evidence"
	"github.com/remnant/passportkit/passport"
)

// ErrTask is wrapped by the errors Assess and Compare return for a task
// they cannot assess; its reason code is CodeInvalidTask.
var ErrTask = errors.New("skilltrust: invalid task")

// CodeInvalidTask is the reason code of a task refused (SPEC.md §4.2): a
// blank skill term, or a term or context label over 200 bytes or blank.
// It belongs to the family of the evidence codes, which the vectors
// report beside it.
const CodeInvalidTask evidence.Code = "invalid_task"

// Task is what an assessment answers: a skill, and optionally the context
// it is needed in.
type Task struct {
	// Skill is a skill term; it is normalised with the ontology.
	Skill string
	// Context holds the labels the task states; unset dimensions impose no
	// constraint.
	Context evidence.Context
}

// Assessment is the assessment of one skill for one task from one subject's
// evidence, with everything that explains it: the sources and their
// weights, the independence groups and caps, contradictions, corrections,
// the limitations that applied and the thresholds that held it back. Every
// list is in a deterministic order that does not depend on the order of the
// input. It names records, actors and operators only by their pseudonyms and
// context dimensions only by name.
type Assessment struct {
	// Skill is the normalised task skill.
	Skill string `json:"skill"`
	// KnownSkill reports whether the ontology defines the skill.
	KnownSkill bool `json:"knownSkill"`
	// Ontology and Policy name the versioned policies applied.
	Ontology string `json:"ontology"`
	Policy   string `json:"policy"`
	// At is the assessment date; records dated later are left out.
	At evidence.Date `json:"at"`
	// TaskDimensions lists the context dimensions the task stated.
	TaskDimensions []string `json:"taskDimensions"`

	State         passport.SkillState      `json:"state"`
	Contested     bool                     `json:"contested"`
	Stale         bool                     `json:"stale"`
	Assessment    passport.AssessmentLabel `json:"assessment"`
	EvidenceLevel passport.EvidenceLevel   `json:"evidenceLevel"`
	Visibility    passport.Visibility      `json:"visibility"`
	Calibration   CalibrationResult        `json:"calibration"`
	// Estimate is nil when no estimate may be shown (N/A).
	Estimate *Estimate `json:"estimate"`
	// Effective holds the effective counts.
	Effective Effective `json:"effective"`
	// Counts holds raw counts of the relevant records.
	Counts Counts `json:"counts"`
	// Axes counts the distinct categories seen on each independence axis
	// among positions with positive weight. Sources record registered
	// operators only: the other axes report zero and remain unknown; they
	// are never inferred from names or declarations.
	Axes map[string]int `json:"axes"`
	// LatestEligible is the date of the latest eligible observation.
	LatestEligible *evidence.Date `json:"latestEligible,omitempty"`

	Sources        []Source        `json:"sources"`
	Groups         []Group         `json:"groups"`
	Contradictions []Contradiction `json:"contradictions"`
	Corrections    []Correction    `json:"corrections"`
	// Limitations lists the reason codes of the limits that applied,
	// sorted.
	Limitations []Limitation `json:"limitations"`
	// HeldBackBy lists the unmet thresholds of the estimate and of the next
	// evidence level.
	HeldBackBy []Threshold `json:"heldBackBy"`
}

// Effective counts are sums of final (capped) weights, and numbers of
// distinct known independent operators, validators and structured contexts
// among positions with positive weight.
type Effective struct {
	// Observations sums every position: outcomes of all kinds,
	// corroborations and contradictions.
	Observations float64 `json:"observations"`
	// Binary is N, the sum over successes and failures; Successes is S.
	Binary         float64 `json:"binary"`
	Successes      float64 `json:"successes"`
	Failures       float64 `json:"failures"`
	Partial        float64 `json:"partial"`
	Uncertain      float64 `json:"uncertain"`
	Corroborations float64 `json:"corroborations"`
	Contradictions float64 `json:"contradictions"`
	// Operators, Validators and Contexts count over all positions;
	// BinaryOperators and BinaryValidators over successes and failures.
	Operators        int `json:"operators"`
	Validators       int `json:"validators"`
	Contexts         int `json:"contexts"`
	BinaryOperators  int `json:"binaryOperators"`
	BinaryValidators int `json:"binaryValidators"`
}

// Counts are raw counts of the records relevant to the skill.
type Counts struct {
	Records int `json:"records"`
	// ByType and ByOutcome count records by type and outcome; ByQuality by
	// tier.
	ByType    map[evidence.Type]int    `json:"byType"`
	ByOutcome map[evidence.Outcome]int `json:"byOutcome"`
	ByQuality map[evidence.Quality]int `json:"byQuality"`
	// Positions counts the actor positions after merging representations.
	Positions int `json:"positions"`
	// LaterRecords counts records dated after the assessment date, left out.
	LaterRecords int `json:"laterRecords"`
	// Observations counts the relevant outcome, corroboration and
	// contradiction records; Lineages the distinct lineage clusters among
	// positions; Contexts the distinct normalised contexts among relevant
	// observations.
	Observations int `json:"observations"`
	Lineages     int `json:"lineages"`
	Contexts     int `json:"contexts"`
}

// Role says what a source contributed to an assessment.
type Role string

// Source roles.
const (
	// RoleCounted: the record holds its actor's position in its lineage.
	RoleCounted Role = "counted"
	// RoleMerged: another representation by the same actor in the same
	// lineage (a repost, a mirror): it adds no weight and stays visible.
	RoleMerged Role = "merged"
	// RoleNotWeighted: a declaration, publication, resolution or an act of
	// the subject on its work; never weighted.
	RoleNotWeighted Role = "not_weighted"
)

// Source is one record relevant to the assessed skill and what it
// contributed.
type Source struct {
	ID        string             `json:"id"`
	Type      evidence.Type      `json:"type"`
	Outcome   evidence.Outcome   `json:"outcome,omitempty"`
	Quality   evidence.Quality   `json:"quality"`
	Skill     string             `json:"skill"`
	Date      evidence.Date      `json:"date"`
	Reporter  string             `json:"reporter"`
	Ownership evidence.Ownership `json:"ownership"`
	Lineage   string             `json:"lineage"`
	// Applicability is the skill match, ContextMatch the context match
	// (shared between sources of one context; never nil),
	// Eligibility the ownership coefficient and Decay the age factor.
	Applicability float64       `json:"applicability"`
	ContextMatch  *ContextMatch `json:"contextMatch"`
	Eligibility   float64       `json:"eligibility"`
	Decay         float64       `json:"decay"`
	// InitialWeight is their product, before caps; Weight the final weight.
	InitialWeight float64 `json:"initialWeight"`
	Weight        float64 `json:"weight"`
	Role          Role    `json:"role"`
	// MergedInto names the record holding the position a merged record
	// belongs to.
	MergedInto string `json:"mergedInto,omitempty"`
	// Contradiction is "unresolved" or "resolved" on contradictions.
	Contradiction string `json:"contradiction,omitempty"`
}

// Group kinds.
const (
	GroupActor            = "actor"
	GroupOperator         = "operator"
	GroupUnknownOperators = "unknown_operators"
	GroupLineage          = "lineage"
	GroupOperatorContext  = "operator_context"
)

// Group is an independence or lineage group with its cap.
type Group struct {
	Kind string `json:"kind"`
	// Key is the actor, operator or lineage cluster; for operator_context
	// the operator (or "unknown") and the ordinal of the context among the
	// assessment's distinct contexts.
	Key         string  `json:"key"`
	Cap         float64 `json:"cap"`
	InitialMass float64 `json:"initialMass"`
	// Factor is min(1, cap/initial mass); Mass the group's final mass.
	Factor float64 `json:"factor"`
	Mass   float64 `json:"mass"`
	// Members lists the positions' records, latest first.
	Members []string `json:"members"`
}

// Contradiction is a relevant contradiction and its status.
type Contradiction struct {
	ID       string `json:"id"`
	Eligible bool   `json:"eligible"`
	// Status is "unresolved" or "resolved"; ResolvedBy names the
	// resolution record.
	Status     string        `json:"status"`
	ResolvedBy string        `json:"resolvedBy,omitempty"`
	Date       evidence.Date `json:"date"`
}

// Correction is an observable correction signal: the subject revised or
// deprecated its work after a contrary report about it. It adds no weight
// and resolves nothing.
type Correction struct {
	ID    string        `json:"id"`
	Type  evidence.Type `json:"type"`
	Date  evidence.Date `json:"date"`
	After string        `json:"after"`
}

// Threshold is a threshold that was not met.
type Threshold struct {
	Name     string  `json:"name"`
	Required float64 `json:"required"`
	Actual   float64 `json:"actual"`
}

// CalibrationResult reports calibration diagnostics, available only when
// enough outcomes carry a prediction recorded before them.
type CalibrationResult struct {
	Status passport.Calibration `json:"status"`
	// Outcomes, Clusters, Operators and Mass describe the binary positions
	// with a prior prediction.
	Outcomes  int     `json:"outcomes"`
	Clusters  int     `json:"clusters"`
	Operators int     `json:"operators"`
	Mass      float64 `json:"mass"`
	// Brier is the weighted Brier score, MeanPrediction the weighted mean
	// prediction and ObservedRate the weighted success rate; set only when
	// available.
	Brier          *float64 `json:"brier,omitempty"`
	MeanPrediction *float64 `json:"meanPrediction,omitempty"`
	ObservedRate   *float64 `json:"observedRate,omitempty"`
}

// Limitation is the reason code of a limit that applied to an assessment;
// SPEC.md §4 lists them.
type Limitation string

// Limitation reason codes.
const (
	LimitCapsApplied     Limitation = "caps_applied"
	LimitContextMismatch Limitation = "context_mismatch"
	LimitContextMissing  Limitation = "context_missing"
	LimitDeclarations    Limitation = "declarations_carry_no_weight"
	// LimitFailedReuse: a reuse of the subject's work failed, which limits
	// where the evidence applies (trust model 2.1). It says nothing about
	// honesty.
	LimitFailedReuse      Limitation = "failed_reuse_limits_applicability"
	LimitLaterRecords     Limitation = "later_records_ignored"
	LimitNonBinary        Limitation = "non_binary_outcomes_not_estimated"
	LimitMerged           Limitation = "representations_merged"
	LimitSelfReports      Limitation = "self_reports_carry_no_weight"
	LimitSharedOwnership  Limitation = "shared_ownership_carries_no_weight"
	LimitTruncated        Limitation = "truncated_collection"
	LimitUnknownOwnership Limitation = "unknown_ownership_discounted"
	LimitUnknownSkill     Limitation = "unknown_skill"
)

// note records that a limitation applied.
func (st *state) note(l Limitation) {
	if !slices.Contains(st.limits, l) {
		st.limits = append(st.limits, l)
	}
}

// class orders an actor's records in one lineage from most to least
// conservative; the most conservative holds the position.
type class int

const (
	classUnresolved class = iota // unresolved contradiction
	classFailure
	classPartial
	classUncertain
	classSuccess
	classResolved // resolved contradiction
	classCorroboration
)
