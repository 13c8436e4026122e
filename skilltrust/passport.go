package skilltrust

import (
	"cmp"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/remnant/passportkit/evidence"
	"github.com/remnant/passportkit/passport"
)

// SkillPassport serialises a as a passport's skill passport, with its
// assessment hash. Numbers are rounded to six decimal places; the source
// previews are the MaxSourcePreviews most telling sources (unresolved
// contradictions, then counted failures, then the heaviest counted
// sources); no actor, operator or context label value is carried.
//
// It writes the trust model version passport.TrustModelVersion; see
// SkillPassportAs for an earlier one.
func (a *Assessment) SkillPassport() (passport.SkillPassport, error) {
	return a.SkillPassportAs(passport.TrustModelVersion)
}

// SkillPassportAs serialises a as a skill passport of the given trust model
// version, such as "2.0" or "2.1" (SPEC.md §4.1): a 2.0 skill passport has
// neither the members nor the limitation code that 2.1 added. A later minor
// version of major 2 is written as the latest this package knows; "" stands
// for 2.0. Another major version is an error.
func (a *Assessment) SkillPassportAs(version string) (passport.SkillPassport, error) {
	minor, err := trustModelMinor(version)
	if err != nil {
		return passport.SkillPassport{}, err
	}
	e := a.Effective
	sp := passport.SkillPassport{
		Skill: a.Skill, State: a.State, Contested: a.Contested, Stale: a.Stale,
		Assessment: a.Assessment, EvidenceLevel: a.EvidenceLevel, Visibility: a.Visibility,
		Calibration: a.Calibration.Status,
		Effective: passport.SkillCounts{
			Observations: round6(e.Observations), Binary: round6(e.Binary), Successes: round6(e.Successes),
			Failures: round6(e.Failures), Partial: round6(e.Partial), Uncertain: round6(e.Uncertain),
			Corroborations: round6(e.Corroborations), Contradictions: round6(e.Contradictions),
			Operators: e.Operators, Validators: e.Validators, Contexts: e.Contexts,
		},
		Sources:     []passport.SourcePreview{},
		SourceCount: len(a.Sources),
		Limitations: limitationStrings(a.Limitations),
		Policies:    []string{PolicyID, a.Ontology},
		AssessedAt:  a.At.String(),
	}
	if minor >= 1 {
		ax := a.Axes
		sp.Independence = &passport.SkillIndependence{
			Operator: ax["operator"], Builder: ax["builder"], ModelFamily: ax["model_family"], Host: ax["host"],
			Framework: ax["framework"], Project: ax["project"], Dataset: ax["dataset"],
		}
		sp.Corrections = len(a.Corrections)
		if a.LatestEligible != nil {
			sp.Recency = &passport.SkillRecency{LatestEligible: a.LatestEligible.String(), AgeDays: a.At.Sub(*a.LatestEligible)}
		}
		c := a.Counts
		sp.Coverage = passport.SkillCoverage{Observations: c.Observations, Positions: c.Positions, Lineages: c.Lineages, Contexts: c.Contexts}
	} else {
		sp.Limitations = slices.DeleteFunc(sp.Limitations, func(l string) bool { return l == string(LimitFailedReuse) })
	}
	if a.Estimate != nil {
		sp.Estimate = &passport.SkillEstimate{
			Midpoint: round6(a.Estimate.Midpoint), Lower: round6(a.Estimate.Lower), Upper: round6(a.Estimate.Upper),
		}
	}
	ranked := slices.Clone(a.Sources)
	slices.SortStableFunc(ranked, func(x, y Source) int {
		if c := cmp.Compare(previewRank(x), previewRank(y)); c != 0 {
			return c
		}
		return cmp.Compare(y.Weight, x.Weight) // heavier first; ties keep the date order
	})
	for _, s := range ranked[:min(len(ranked), passport.MaxSourcePreviews)] {
		c := s.Contradiction
		if c == "" {
			c = "none"
		}
		sp.Sources = append(sp.Sources, passport.SourcePreview{
			Evidence: s.ID, Type: string(s.Type), Outcome: string(s.Outcome), Quality: string(s.Quality),
			Date: s.Date.String(), Weight: round6(s.Weight), Applicability: s.Applicability, Contradiction: c,
		})
	}
	h, err := sp.Hash()
	if err != nil {
		return passport.SkillPassport{}, err
	}
	sp.AssessmentHash = h
	return sp, nil
}

// previewRank orders sources for previews: unresolved contradictions,
// counted failures, other counted sources, then the rest.
func previewRank(s Source) int {
	switch {
	case s.Contradiction == "unresolved":
		return 0
	case s.Role == RoleCounted && s.Outcome == evidence.OutcomeFailure:
		return 1
	case s.Role == RoleCounted:
		return 2
	}
	return 3
}

func round6(x float64) float64 { return math.Round(x*1e6) / 1e6 }

// trustModelMinor returns the minor version of a trust model version of
// major 2, capped at the latest minor this package writes.
func trustModelMinor(version string) (int, error) {
	if version == "" {
		return 0, nil
	}
	if err := passport.CheckVersion("trustModelVersion", version, passport.TrustModelVersion); err != nil {
		return 0, err
	}
	_, minor, _ := strings.Cut(version, ".")
	_, latest, _ := strings.Cut(passport.TrustModelVersion, ".")
	m, _ := strconv.Atoi(minor)
	l, _ := strconv.Atoi(latest)
	return min(m, l), nil
}

// limitationStrings returns the codes as the skill passport writes them.
func limitationStrings(ls []Limitation) []string {
	out := make([]string, len(ls))
	for i, l := range ls {
		out[i] = string(l)
	}
	return out
}
