package skilltrust

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
)

// limitationSentences is the one mapping from limitation codes (SPEC.md
// §4.13) to plain sentences for people. Every code has one.
var limitationSentences = map[Limitation]string{
	LimitCapsApplied: "Caps reduced some weights: one reporter or one operator counts for at most 8 units, " +
		"one line of work for at most 3, one operator in one context for at most 1, and all reporters of unknown ownership together for at most 1.",
	LimitContextMismatch: "Some evidence comes from a context that differs from the task's, so it counts for at most a fifth.",
	LimitContextMissing:  "Some evidence does not say the context the task states, so it counts for at most half.",
	LimitDeclarations:    "What the agent declares about itself carries no weight.",
	LimitFailedReuse: "A reuse of the agent's work failed: this limits where the evidence applies. " +
		"It is an outcome, not evidence of dishonesty.",
	LimitLaterRecords:    "Records dated after the assessment day were left out.",
	LimitNonBinary:       "Partial and uncertain outcomes are shown but do not enter the estimate.",
	LimitMerged:          "Several records of one reporter about one line of work count once, as the most conservative of them.",
	LimitSelfReports:     "The agent's own reports carry no weight.",
	LimitSharedOwnership: "Reports from agents of the same owner carry no weight.",
	LimitTruncated:       "The evidence was cut at the collection limits, so no estimate and no moderate or strong level is given.",
	LimitUnknownOwnership: "Reports whose ownership is unknown count for a quarter and add no independent operator; " +
		"together they count for at most 1 unit.",
	LimitUnknownSkill: "The skill is not in the skills-1 ontology: only evidence filed under exactly this term applies.",
}

// Explain returns a plain sentence saying what the limitation means for an
// assessment, for people. A code this package does not know is explained as
// such, never left blank.
func (l Limitation) Explain() string {
	if s, ok := limitationSentences[l]; ok {
		return s
	}
	return fmt.Sprintf("A limitation this version does not describe applied (%s).", string(l))
}

// Limitations returns every limitation code this package knows, sorted.
func Limitations() []Limitation {
	out := make([]Limitation, 0, len(limitationSentences))
	for l := range limitationSentences {
		out = append(out, l)
	}
	slices.Sort(out)
	return out
}

// thresholdSubjects names what each threshold counts, by the last part of
// its name.
var thresholdSubjects = map[string]string{
	"binary_outcomes":        "effective successes and failures",
	"observations":           "effective observations",
	"independent_operators":  "independent operators",
	"independent_validators": "independent validators",
	"contexts":               "distinct task contexts",
}

// Explain returns a plain sentence saying what the unmet threshold asks and
// what the evidence has, for people: "An estimate needs 5 effective
// successes and failures; there are 3.1."
func (t Threshold) Explain() string {
	goal, what, _ := strings.Cut(t.Name, ".")
	switch goal {
	case "estimate":
		goal = "An estimate"
	default:
		goal = "The " + goal + " evidence level"
	}
	if what == "complete_collection" {
		return goal + " needs the complete evidence; it was cut at the collection limits."
	}
	subject, ok := thresholdSubjects[what]
	if !ok {
		subject = strings.ReplaceAll(what, "_", " ")
	}
	if what == "independent_operators" || what == "independent_validators" {
		if goal == "An estimate" {
			subject += " holding successes or failures"
		}
	}
	return fmt.Sprintf("%s needs %s %s; there are %s.", goal, number(t.Required), subject, number(t.Actual))
}

// number writes a figure as people read it: whole numbers without a
// fraction, others to two decimals.
func number(x float64) string {
	if x == float64(int64(x)) {
		return fmt.Sprintf("%d", int64(x))
	}
	return fmt.Sprintf("%.2f", x)
}

// RankedSources returns every source of a, best first, in the order the
// source previews follow (SPEC.md §4.12) extended to all of them: unresolved
// contradictions; failures holding a position; other records holding a
// position; the rest; within each rank heavier first, then in the order of
// a.Sources (latest first, then by record id). The first
// passport.MaxSourcePreviews are the skill passport's previews.
func (a *Assessment) RankedSources() []Source {
	out := slices.Clone(a.Sources)
	slices.SortStableFunc(out, func(x, y Source) int {
		if c := cmp.Compare(previewRank(x), previewRank(y)); c != 0 {
			return c
		}
		return cmp.Compare(y.Weight, x.Weight)
	})
	return out
}
