package reputation

// Evaluator weights: a newcomer counts half; an evaluator credible in the
// memory's domain counts fully.
const (
	NoviceWeight   Milli = 500
	CredibleWeight Milli = 1000
)

// Domain credibility thresholds: an evaluator whose score in a domain is at
// least CredibleScore, with confidence at least CredibleConfidence there, has
// [CredibleWeight] in that domain.
const (
	CredibleScore      Milli = 5000
	CredibleConfidence Milli = 500
)

// EvaluatorWeight returns the base weight of an evaluator whose reputation in
// the memory's domain has the given score and confidence. Expertise in
// another domain does not count: pass the figures of the memory's domain, or
// zeros when the evaluator has none.
func EvaluatorWeight(domainScore, domainConfidence Milli) Milli {
	if domainScore >= CredibleScore && domainConfidence >= CredibleConfidence {
		return CredibleWeight
	}
	return NoviceWeight
}

// pairFactors are the factors of successive ranks in an influence budget;
// every later rank has factor zero.
var pairFactors = [...]Milli{1000, 500, 250, 125, 62}

// PairFactor returns the factor of the position with the given rank (0 for
// the first position) in an influence budget: 1, 0.5, 0.25, 0.125, 0.062,
// then 0.
func PairFactor(rank int) Milli {
	if rank < 0 || rank >= len(pairFactors) {
		return 0
	}
	return pairFactors[rank]
}

// EffectiveWeight returns base × factor, rounded down to a thousandth.
func EffectiveWeight(base, factor Milli) Milli {
	return Milli(int64(base) * int64(factor) / 1000)
}

// Contribution returns the signed score contribution of a position of type t
// with the given effective weight: points × weight, rounded to the nearest
// thousandth (halves away from zero).
func Contribution(t Type, effective Milli) Milli {
	return mulRound(t.Points(), effective)
}
