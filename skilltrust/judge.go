package skilltrust

import (
	"slices"

	"github.com/remnant/passportkit/evidence"
	"github.com/remnant/passportkit/passport"
)

// sum adds values in the order given. Callers pass them in the order of
// the positions (latest first, then by record id), which does not depend on
// the order of the input.
func sum(v []float64) float64 {
	t := 0.0
	for _, x := range v {
		t += x
	}
	return t
}

// aggregate computes the effective counts.
func (st *state) aggregate() {
	e := &st.a.Effective
	var all, bin, succ, fail, part, unc, corr, contra []float64
	ops, vals, ctxs := map[int32]bool{}, map[int32]bool{}, map[int32]bool{}
	bops, bvals := map[int32]bool{}, map[int32]bool{}
	for _, p := range st.pos {
		if p.w <= 0 {
			continue
		}
		r, k := p.rep.rec, p.rep.keys
		all = append(all, p.w)
		ctxs[k.Context] = true
		binary := false
		switch p.rep.class {
		case classSuccess:
			succ, binary = append(succ, p.w), true
		case classFailure:
			fail, binary = append(fail, p.w), true
		case classPartial:
			part = append(part, p.w)
		case classUncertain:
			unc = append(unc, p.w)
		case classCorroboration:
			corr = append(corr, p.w)
		default:
			contra = append(contra, p.w)
		}
		if binary {
			bin = append(bin, p.w)
		}
		if r.Ownership == evidence.OwnershipDistinct {
			ops[k.Operator], vals[k.Reporter] = true, true
			if binary {
				bops[k.Operator], bvals[k.Reporter] = true, true
			}
		}
	}
	e.Observations, e.Binary, e.Successes, e.Failures = sum(all), sum(bin), sum(succ), sum(fail)
	e.Partial, e.Uncertain, e.Corroborations, e.Contradictions = sum(part), sum(unc), sum(corr), sum(contra)
	e.Operators, e.Validators, e.Contexts = len(ops), len(vals), len(ctxs)
	e.BinaryOperators, e.BinaryValidators = len(bops), len(bvals)
	st.a.Axes = map[string]int{"operator": e.Operators, "builder": 0, "model_family": 0, "host": 0, "framework": 0, "project": 0, "dataset": 0}
}

// judge derives the estimate, level, state, flags and labels.
func (st *state) judge() {
	a, e := st.a, &st.a.Effective
	truncated := st.set.Truncated()
	if truncated {
		st.note(LimitTruncated)
	}
	if !a.KnownSkill {
		st.note(LimitUnknownSkill)
	}

	// The estimate, or the thresholds that held it back.
	var held []Threshold
	need := func(name string, required, actual float64) {
		if actual < required-tolerance {
			held = append(held, Threshold{Name: name, Required: required, Actual: actual})
		}
	}
	need("estimate.binary_outcomes", MinBinary, e.Binary)
	need("estimate.independent_operators", MinOperators, float64(e.BinaryOperators))
	need("estimate.independent_validators", MinValidators, float64(e.BinaryValidators))
	if truncated {
		held = append(held, Threshold{Name: "estimate.complete_collection", Required: 1, Actual: 0})
	}
	if len(held) == 0 {
		w := Wilson(e.Successes, e.Binary)
		a.Estimate = &w
	}

	// The evidence level, and what the next one needs.
	meets := func(t levelThreshold) bool {
		return e.Observations >= t.Observations-tolerance && e.Operators >= t.Operators &&
			e.Validators >= t.Validators && e.Contexts >= t.Contexts
	}
	level, next, nextName := passport.LevelVeryLow, lowLevel, "low"
	switch {
	case meets(strongLevel) && !truncated:
		level, nextName = passport.LevelStrong, ""
	case meets(moderateLevel) && !truncated:
		level, next, nextName = passport.LevelModerate, strongLevel, "strong"
	case meets(lowLevel):
		level, next, nextName = passport.LevelLow, moderateLevel, "moderate"
	}
	a.EvidenceLevel = level
	if nextName != "" {
		need(nextName+".observations", next.Observations, e.Observations)
		need(nextName+".independent_operators", float64(next.Operators), float64(e.Operators))
		need(nextName+".independent_validators", float64(next.Validators), float64(e.Validators))
		need(nextName+".contexts", float64(next.Contexts), float64(e.Contexts))
		if truncated && nextName != "low" {
			held = append(held, Threshold{Name: nextName + ".complete_collection", Required: 1, Actual: 0})
		}
	}
	if held == nil {
		held = []Threshold{}
	}
	a.HeldBackBy = held

	switch {
	case e.Observations <= 0:
		a.State = passport.StateNew
	case level == passport.LevelStrong:
		a.State = passport.StateWellEvidenced
	case level == passport.LevelModerate:
		a.State = passport.StateEvidenced
	default:
		a.State = passport.StateLimitedEvidence
	}

	// Flags: contested by any eligible unresolved contradiction; stale when
	// the latest eligible observation is older than StaleAfterDays.
	negative := false
	for i := range st.items {
		it := &st.items[i]
		r := it.rec
		if r.Outcome == evidence.OutcomeFailure || r.Type == evidence.TypeContradiction {
			negative = true
		}
		if !r.Type.Observation() || it.src.Eligibility <= 0 {
			continue
		}
		if it.src.Contradiction == "unresolved" {
			a.Contested = true
		}
		if a.LatestEligible == nil || r.Date.Sub(*a.LatestEligible) > 0 {
			d := r.Date
			a.LatestEligible = &d
		}
	}
	a.Stale = a.LatestEligible != nil && st.at.Sub(*a.LatestEligible) > StaleAfterDays

	switch {
	case a.Contested:
		a.Assessment = passport.AssessmentContested
	case a.Stale:
		a.Assessment = passport.AssessmentStale
	case a.State == passport.StateNew:
		a.Assessment = passport.AssessmentNew
	case a.Estimate == nil:
		a.Assessment = passport.AssessmentInsufficientEvidence
	case e.Failures > e.Successes+tolerance:
		a.Assessment = passport.AssessmentAdverseOutcomes
	default:
		a.Assessment = passport.AssessmentSupported
	}
	a.Visibility = passport.VisibilityLimited
	if negative {
		a.Visibility = passport.VisibilityNegativeResults
	}
	st.calibrate(truncated)
}

// calibrate reports calibration diagnostics when enough binary positions
// carry a prediction recorded before their outcome; otherwise
// INSUFFICIENT_DATA.
func (st *state) calibrate(truncated bool) {
	c := &st.a.Calibration
	c.Status = passport.CalibrationInsufficientData
	var w, wp, wy, wsq []float64
	clusters, ops := map[int32]bool{}, map[int32]bool{}
	for _, p := range st.pos {
		r := p.rep.rec
		if r.Prediction == nil || p.w <= 0 || !r.Outcome.Binary() {
			continue
		}
		y := 0.0
		if r.Outcome == evidence.OutcomeSuccess {
			y = 1
		}
		q := r.Prediction.Probability
		c.Outcomes++
		clusters[p.rep.keys.Cluster] = true
		if r.Ownership == evidence.OwnershipDistinct {
			ops[p.rep.keys.Operator] = true
		}
		w, wp, wy, wsq = append(w, p.w), append(wp, p.w*q), append(wy, p.w*y), append(wsq, p.w*(q-y)*(q-y))
	}
	c.Clusters, c.Operators, c.Mass = len(clusters), len(ops), sum(w)
	if truncated || c.Outcomes < CalibrationMinOutcomes || c.Clusters < CalibrationMinClusters ||
		c.Operators < CalibrationMinOperators || c.Mass < CalibrationMinMass-tolerance {
		return
	}
	brier, mean, rate := sum(wsq)/c.Mass, sum(wp)/c.Mass, sum(wy)/c.Mass
	c.Status, c.Brier, c.MeanPrediction, c.ObservedRate = passport.CalibrationAvailable, &brier, &mean, &rate
}

// explain fills the lists: sources, contradictions, corrections and
// limitations, each in a deterministic order.
func (st *state) explain() {
	a := st.a
	contrary := map[int32][]*item{} // lineage -> failures and contradictions by others
	for i := range st.items {
		it := &st.items[i]
		r := it.rec
		if r.Ownership != evidence.OwnershipSelf && (r.Outcome == evidence.OutcomeFailure || r.Type == evidence.TypeContradiction) {
			contrary[it.keys.Cluster] = append(contrary[it.keys.Cluster], it)
		}
	}
	a.Contradictions, a.Corrections = []Contradiction{}, []Correction{}
	for i := range st.items {
		it := &st.items[i]
		r, s := it.rec, it.src
		switch {
		case r.Type == evidence.TypeDeclaration:
			st.note(LimitDeclarations)
		case r.Ownership == evidence.OwnershipSelf:
			st.note(LimitSelfReports)
		case r.Ownership == evidence.OwnershipShared:
			st.note(LimitSharedOwnership)
		case r.Ownership == evidence.OwnershipUnknown && r.Type.Observation():
			st.note(LimitUnknownOwnership)
		}
		if r.Type.Observation() && s.Eligibility > 0 {
			if len(s.ContextMatch.Mismatched) > 0 {
				st.note(LimitContextMismatch)
			} else if len(s.ContextMatch.Missing) > 0 {
				st.note(LimitContextMissing)
			}
		}
		if r.Outcome == evidence.OutcomeFailure && r.Quality == evidence.QualityObservedReuse && s.Eligibility > 0 {
			st.note(LimitFailedReuse)
		}
		if s.Role == RoleCounted && (r.Outcome == evidence.OutcomePartial || r.Outcome == evidence.OutcomeUncertain) {
			st.note(LimitNonBinary)
		}
		if r.Type == evidence.TypeContradiction {
			a.Contradictions = append(a.Contradictions, Contradiction{
				ID: r.ID, Eligible: s.Eligibility > 0, Status: s.Contradiction, ResolvedBy: st.resolved[r.ID], Date: r.Date,
			})
		}
		if r.Type == evidence.TypeRevision || r.Type == evidence.TypeDeprecation {
			// The earliest contrary report about the same lineage on or
			// before the act makes it a correction signal.
			var after *item
			for _, c := range contrary[it.keys.Cluster] {
				if r.Date.Sub(c.rec.Date) >= 0 && (after == nil || c.rec.Date.Sub(after.rec.Date) < 0 ||
					(c.rec.Date == after.rec.Date && c.rec.ID < after.rec.ID)) {
					after = c
				}
			}
			if after != nil {
				a.Corrections = append(a.Corrections, Correction{ID: r.ID, Type: r.Type, Date: r.Date, After: after.rec.ID})
			}
		}
	}
	// Both lists are in the order of the items: SPEC.md §5.5, latest
	// first, then by id.
	a.Limitations = slices.Clone(st.limits)
	if a.Limitations == nil {
		a.Limitations = []Limitation{}
	}
	slices.Sort(a.Limitations) // SPEC.md §4: in code order
	if a.Groups == nil {
		a.Groups = []Group{}
	}
}
