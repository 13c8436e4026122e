package skilltrust

import (
	"cmp"
	"math"
	"slices"

	"github.com/remnant/passportkit/evidence"
	"github.com/remnant/passportkit/passport"
)

// SkillPassport serialises a as a passport's skill passport, with its
// assessment hash. Numbers are rounded to six decimal places; the source
// previews are the MaxSourcePreviews most telling sources (unresolved
// contradictions, then counted failures, then the heaviest counted
// sources); no actor, operator or context label value is carried.
func (a *Assessment) SkillPassport() (passport.SkillPassport, error) {
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
		Limitations: slices.Clone(a.Limitations),
		Policies:    []string{PolicyID, a.Ontology},
		AssessedAt:  a.At.String(),
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
