package skilltrust

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/remnant/passportkit/passport"
)

// Why is an assessment in plain words: what its label, state, level and
// estimate mean, which sources and context bore on it, and the caps,
// limitations and unmet thresholds that applied. It is the one place the
// trust model's codes become sentences; like the assessment it names
// dimensions, never label values, and no actor, operator or record.
type Why struct {
	// Summary is one sentence on the headline. For a skill with no
	// relevant record it says there is no evidence for it.
	Summary string `json:"summary"`
	// Assessment, State and EvidenceLevel explain the three grades.
	Assessment Reason `json:"assessment"`
	State      Reason `json:"state"`
	// EvidenceLevel explains the level and what it requires.
	EvidenceLevel Reason `json:"evidenceLevel"`
	// Estimate explains the interval, or why there is none (N/A).
	Estimate string `json:"estimate"`
	// Sources says what the relevant records contributed.
	Sources string `json:"sources"`
	// Context says how the task context bore on the evidence.
	Context string `json:"context"`
	// Caps lists, per kind of group, the caps that scaled weights down
	// (code: the group kind, such as "lineage").
	Caps []Reason `json:"caps"`
	// Limitations explains each limitation code the assessment lists, in
	// its order.
	Limitations []Reason `json:"limitations"`
	// HeldBackBy explains each unmet threshold (code: the threshold's
	// name, such as "estimate.binary_outcomes").
	HeldBackBy []Reason `json:"heldBackBy"`
}

// Reason is a code of the trust model with its sentence.
type Reason struct {
	Code string `json:"code"`
	Text string `json:"text"`
}

// limitationTexts are the sentences of the limitation codes of SPEC.md
// §4.13. Like the other tables of this file, they are data the linker lays
// out or a switch, not maps: a map is built when the process starts, by
// every process that links this package, explaining anything or not.
var limitationTexts = [...]struct {
	code Limitation
	text string
}{
	{LimitCapsApplied, "Some weights were scaled down by the independence and lineage caps, " +
		"so that no reporter, operator, lineage or repeated context dominates."},
	{LimitContextMismatch, "Some evidence comes from a context that differs from the task's on a stated dimension; " +
		"it counts at most 0.2 of its weight."},
	{LimitContextMissing, "Some evidence does not state a dimension the task states; it counts at most half of its weight."},
	{LimitDeclarations, "Declared capabilities are listed but carry no weight."},
	{LimitFailedReuse, "A reuse of this agent's work failed: that limits where the evidence applies. " +
		"It is an outcome, not evidence of dishonesty."},
	{LimitLaterRecords, "Records dated after the assessment day were left out."},
	{LimitNonBinary, "Partial and uncertain outcomes are shown but do not enter the estimate."},
	{LimitMerged, "Several records of one reporter about one lineage were merged into one position, the most conservative, " +
		"so a repost or a mirror counts once."},
	{LimitSelfReports, "The agent's own reports and publications carry no weight."},
	{LimitSharedOwnership, "Reports by agents that share an operator with this agent carry no weight."},
	{LimitTruncated, "The evidence was cut at the collection limits: no estimate, no MODERATE or STRONG level " +
		"and no calibration are shown."},
	{LimitUnknownOwnership, "Reports whose reporter's operator is unknown count a quarter, all of them together at most one unit, " +
		"and earn no independent-operator credit."},
	{LimitUnknownSkill, "The skill is not in the skills-1 ontology: only evidence recorded under the same normalised term applies, " +
		"and no other skill's evidence is transferred to it."},
}

// Limitations returns every limitation code, sorted.
func Limitations() []Limitation {
	codes := make([]Limitation, 0, len(limitationTexts))
	for _, l := range limitationTexts {
		codes = append(codes, l.code)
	}
	slices.Sort(codes)
	return codes
}

// Text returns the sentence that explains l.
func (l Limitation) Text() string {
	for _, t := range limitationTexts {
		if t.code == l {
			return t.text
		}
	}
	return "The limitation " + string(l) + " applied."
}

// assessmentText is the sentence of each headline label (SPEC.md §4.10).
func assessmentText(a passport.AssessmentLabel) string {
	switch a {
	case passport.AssessmentContested:
		return "An eligible report contradicts this evidence and has not been withdrawn. " +
			"The other figures stay visible beside it."
	case passport.AssessmentStale:
		return fmt.Sprintf("The latest eligible observation is more than %d days old; "+
			"old evidence may no longer describe the skill.", StaleAfterDays)
	case passport.AssessmentNew:
		return "No observation by an eligible reporter carries weight: declarations, the agent's own records " +
			"and reports by a shared owner count for nothing."
	case passport.AssessmentInsufficientEvidence:
		return "There is weighted evidence, but not enough independent success or failure " +
			"outcomes to show an estimate."
	case passport.AssessmentAdverseOutcomes:
		return "There are enough independent outcomes for an estimate, and weighted failures " +
			"outweigh successes. Strong evidence is not a recommendation."
	case passport.AssessmentSupported:
		return "There are enough independent outcomes for an estimate, and weighted successes " +
			"at least match failures. It is evidence about past reports, not a guarantee of the next result."
	}
	return ""
}

// stateText is the sentence of each evidence state (SPEC.md §4.8).
func stateText(s passport.SkillState) string {
	switch s {
	case passport.StateNew:
		return "new: no observation carries weight."
	case passport.StateLimitedEvidence:
		return "limited evidence: observations carry weight, below the MODERATE level."
	case passport.StateEvidenced:
		return "evidenced: the MODERATE level is met."
	case passport.StateWellEvidenced:
		return "well evidenced: the STRONG level is met."
	}
	return ""
}

// levelText is the sentence of each evidence level (SPEC.md §4.8).
func levelText(l passport.EvidenceLevel) string {
	switch l {
	case passport.LevelVeryLow:
		return fmt.Sprintf("VERY_LOW: fewer than %g effective observations, or fewer than %d independent operators or %d independent validators.",
			lowLevel.Observations, lowLevel.Operators, lowLevel.Validators)
	case passport.LevelLow:
		return fmt.Sprintf("LOW: at least %g effective observations from %d independent operators and %d independent validators.",
			lowLevel.Observations, lowLevel.Operators, lowLevel.Validators)
	case passport.LevelModerate:
		return fmt.Sprintf("MODERATE: at least %g effective observations from %d independent operators, %d validators and %d distinct contexts, from a complete collection.",
			moderateLevel.Observations, moderateLevel.Operators, moderateLevel.Validators, moderateLevel.Contexts)
	case passport.LevelStrong:
		return fmt.Sprintf("STRONG: at least %g effective observations from %d independent operators, %d validators and %d distinct contexts, from a complete collection.",
			strongLevel.Observations, strongLevel.Operators, strongLevel.Validators, strongLevel.Contexts)
	}
	return ""
}

// capText says what each kind of cap bounds (SPEC.md §4.6), or "" for a
// kind it does not know.
func capText(kind string) string {
	switch kind {
	case GroupActor:
		return "One reporter"
	case GroupOperator:
		return "One known operator"
	case GroupUnknownOperators:
		return "All reporters of unknown ownership together"
	case GroupLineage:
		return "One evidence lineage"
	case GroupOperatorContext:
		return "One operator in one identical context"
	}
	return ""
}

// thresholdGoal and thresholdMeasure name the parts of a threshold's name,
// or return "" for a part they do not know.
func thresholdGoal(goal string) string {
	switch goal {
	case "estimate":
		return "An estimate"
	case "low":
		return "The LOW level"
	case "moderate":
		return "The MODERATE level"
	case "strong":
		return "The STRONG level"
	}
	return ""
}

func thresholdMeasure(measure string) string {
	switch measure {
	case "binary_outcomes":
		return "effective success or failure outcomes"
	case "independent_operators":
		return "independent operators"
	case "independent_validators":
		return "independent validators"
	case "observations":
		return "effective observations"
	case "contexts":
		return "distinct contexts"
	}
	return ""
}

// Text returns the sentence that explains an unmet threshold.
func (t Threshold) Text() string {
	goal, measure, _ := strings.Cut(t.Name, ".")
	g := thresholdGoal(goal)
	if g == "" {
		g = "The next level"
	}
	if measure == "complete_collection" {
		return g + " needs a complete collection; this one was cut at the collection limits."
	}
	m := thresholdMeasure(measure)
	if m == "" {
		m = measure
	}
	if goal == "estimate" && (measure == "independent_operators" || measure == "independent_validators") {
		// The estimate counts the operators and validators of the success
		// and failure outcomes only (Effective.BinaryOperators and
		// BinaryValidators): a smaller figure than the independent
		// operators and validators of every observation, which the
		// levels count and a skill passport shows, so it is named apart.
		m += " with a success or failure outcome"
	}
	return fmt.Sprintf("%s needs %s %s; there are %s.", g, number(t.Required), m, number(t.Actual))
}

// number writes a figure with at most two decimals, as the sentences show
// them.
func number(x float64) string {
	s := strings.TrimRight(strings.TrimRight(fmt.Sprintf("%.2f", x), "0"), ".")
	if s == "-0" {
		return "0"
	}
	return s
}

// Why returns a in plain words.
func (a *Assessment) Why() Why {
	w := Why{
		Assessment:    Reason{Code: string(a.Assessment), Text: assessmentText(a.Assessment)},
		State:         Reason{Code: string(a.State), Text: stateText(a.State)},
		EvidenceLevel: Reason{Code: string(a.EvidenceLevel), Text: levelText(a.EvidenceLevel)},
		Caps:          []Reason{},
		Limitations:   make([]Reason, 0, len(a.Limitations)),
		HeldBackBy:    make([]Reason, 0, len(a.HeldBackBy)),
	}
	if len(a.Sources) == 0 {
		w.Summary = fmt.Sprintf("No evidence for %s: no record of this agent applies to it, so it is NEW, with no estimate.", a.Skill)
	} else {
		w.Summary = fmt.Sprintf("%s is %s: %s", a.Skill, a.Assessment, w.Assessment.Text)
	}
	w.Estimate = a.estimateText()
	w.Sources = a.sourcesText()
	w.Context = a.contextText()
	for _, l := range a.Limitations {
		w.Limitations = append(w.Limitations, Reason{Code: string(l), Text: l.Text()})
	}
	for _, t := range a.HeldBackBy {
		w.HeldBackBy = append(w.HeldBackBy, Reason{Code: t.Name, Text: t.Text()})
	}
	w.Caps = a.capsText()
	return w
}

func (a *Assessment) estimateText() string {
	e := a.Effective
	if a.Estimate != nil {
		return fmt.Sprintf("Between %s and %s (midpoint %s): a policy-adjusted interval from %s effective success or failure outcomes, %s of them successes. "+
			"It is not the probability of success on the next task.",
			number(a.Estimate.Lower), number(a.Estimate.Upper), number(a.Estimate.Midpoint), number(e.Binary), number(e.Successes))
	}
	return fmt.Sprintf("N/A: an estimate needs at least %g effective success or failure outcomes from %d independent operators and %d independent validators, "+
		"from a complete collection; here there are %s success or failure outcomes, from %d independent operators and %d independent validators with such an outcome.",
		MinBinary, MinOperators, MinValidators, number(e.Binary), e.BinaryOperators, e.BinaryValidators)
}

func (a *Assessment) sourcesText() string {
	if len(a.Sources) == 0 {
		return "No relevant record: declarations, publications and reports about other skills do not apply unless skills-1 relates the skills."
	}
	var counted, merged, unweighted, related int
	for i := range a.Sources {
		s := &a.Sources[i]
		switch s.Role {
		case RoleCounted:
			counted++
		case RoleMerged:
			merged++
		default:
			unweighted++
		}
		if s.Applicability < 1 {
			related++
		}
	}
	text := fmt.Sprintf("%d relevant records: %d hold a reporter's position, %d merged into another, %d carry no weight by their kind "+
		"(declarations, publications, resolutions, the agent's own acts).", len(a.Sources), counted, merged, unweighted)
	if related > 0 {
		text += fmt.Sprintf(" %d of them are about a related skill of skills-1 and count at its applicability "+
			"(0.75 for a child skill, 0.35 for the parent, 0.2 for a sibling).", related)
	}
	return text
}

func (a *Assessment) contextText() string {
	if len(a.TaskDimensions) == 0 {
		return "No task context was given: evidence from every context counts fully."
	}
	var match, missing, mismatch int
	for i := range a.Sources {
		s := &a.Sources[i]
		if !s.Type.Observation() {
			continue
		}
		switch {
		case len(s.ContextMatch.Mismatched) > 0:
			mismatch++
		case len(s.ContextMatch.Missing) > 0:
			missing++
		default:
			match++
		}
	}
	return fmt.Sprintf("The task states %s. Of the relevant observations, %d match it, %d do not state a dimension it states "+
		"(they count at most %g), and %d differ on one (they count at most %g). Labels are the reporters' claims.",
		strings.Join(a.TaskDimensions, ", "), match, missing, ContextMissingCap, mismatch, ContextMismatchCap)
}

func (a *Assessment) capsText() []Reason {
	type kind struct {
		n          int
		cap, least float64
	}
	by := map[string]*kind{}
	for _, g := range a.Groups {
		if g.Factor >= 1 {
			continue
		}
		k := by[g.Kind]
		if k == nil {
			k = &kind{cap: g.Cap, least: g.Factor}
			by[g.Kind] = k
		}
		k.n++
		k.least = min(k.least, g.Factor)
	}
	out := []Reason{}
	for _, name := range slices.Sorted(maps.Keys(by)) {
		k := by[name]
		what := capText(name)
		if what == "" {
			what = name
		}
		groups := "1 group went"
		if k.n > 1 {
			groups = fmt.Sprintf("%d groups went", k.n)
		}
		out = append(out, Reason{Code: name, Text: fmt.Sprintf("%s may count at most %s in weight; %s over, and each had its weights scaled down together, by a factor of %s at the least.",
			what, number(k.cap), groups, number(k.least))})
	}
	return out
}
