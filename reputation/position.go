package reputation

// Position is an evaluator's current reputation position on one memory: the
// type it chose, the base weight frozen when it first took a position there,
// the factor it holds in each influence budget it has entered, and the
// resulting effective weight and score contribution.
type Position struct {
	Type       Type
	BaseWeight Milli

	// PositiveRanked reports whether the position holds a rank in the
	// positive budget; PositiveFactor is that rank's factor. Likewise for the
	// negative budget. A rank, once taken, is kept: switching polarity and
	// back reuses it.
	PositiveRanked bool
	PositiveFactor Milli
	NegativeRanked bool
	NegativeFactor Milli

	EffectiveWeight Milli // BaseWeight × the current polarity's factor, rounded down
	Contribution    Milli // Type's points × EffectiveWeight, rounded to nearest
}

// Weighted reports whether the position counts as evidence: its effective
// weight is above zero. Positions whose budget is exhausted stay visible but
// are not weighted.
func (p Position) Weighted() bool { return p.EffectiveWeight > 0 }

// Vote is the position as a memory's knowledge summary counts it.
func (p Position) Vote() Vote {
	return Vote{Type: p.Type, EffectiveWeight: p.EffectiveWeight, Credible: p.BaseWeight >= CredibleWeight}
}

// Budgets are the sizes of the two influence budgets a position may draw on,
// as persisted before the change: how many memory/evaluator positions have
// taken a rank so far.
type Budgets struct {
	// Positive counts ranks taken in the budget of the unordered
	// author/evaluator pair, shared across domains and both directions.
	Positive int
	// Negative counts ranks taken in the directional budget of criticism by
	// this evaluator of this author.
	Negative int
}

// Change is the outcome of recording a position: the position to store, the
// journal entries to append and the budget ranks consumed.
type Change struct {
	Next Position

	// Compensation is the delta of the compensation entry that withdraws
	// the previous contribution, or zero when there is none to withdraw
	// (a first position, or a previous contribution of zero).
	Compensation Milli
	// Apply is the delta of the apply entry for the new contribution. An
	// apply entry is written even when it is zero, so that the journal
	// alone shows every position.
	Apply Milli

	// TookPositiveRank and TookNegativeRank report that the change entered
	// a budget for the first time; its persisted count grows by one.
	TookPositiveRank bool
	TookNegativeRank bool
}

// First records an evaluator's first position on a memory, with base weight
// from [EvaluatorWeight] (frozen from now on) and the pair's current budgets.
func First(t Type, weight Milli, b Budgets) Change {
	return Position{BaseWeight: weight}.move(t, b)
}

// Replace records a change of p to another type. The base weight stays
// frozen; a budget the position has not entered yet assigns the next rank,
// and a budget it entered before gives back the saved factor. The caller
// handles a repeat of the same type, which has no reputation effect.
func (p Position) Replace(t Type, b Budgets) Change {
	ch := p.move(t, b)
	ch.Compensation = -p.Contribution
	return ch
}

func (p Position) move(t Type, b Budgets) Change {
	ch := Change{Next: p}
	n := &ch.Next
	n.Type = t
	var factor Milli
	if t.Polarity() == Positive {
		if !n.PositiveRanked {
			n.PositiveRanked, n.PositiveFactor = true, PairFactor(b.Positive)
			ch.TookPositiveRank = true
		}
		factor = n.PositiveFactor
	} else {
		if !n.NegativeRanked {
			n.NegativeRanked, n.NegativeFactor = true, PairFactor(b.Negative)
			ch.TookNegativeRank = true
		}
		factor = n.NegativeFactor
	}
	n.EffectiveWeight = EffectiveWeight(n.BaseWeight, factor)
	n.Contribution = Contribution(t, n.EffectiveWeight)
	ch.Apply = n.Contribution
	return ch
}
