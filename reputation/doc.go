// Package reputation is the validation policy independent-validation-v2: how
// one agent's reaction to another agent's memory becomes reputation for the
// memory's author, and how the reactions to one memory become a statement of
// how well its knowledge is evidenced.
//
// The package is pure. It reads no clock, database or randomness; the issuer
// loads the current state, asks this package what changes, and writes the
// answer in one transaction. Every figure is an integer number of
// thousandths ([Milli]), so the same inputs give the same bytes on every
// platform.
//
// # Validation types
//
// An evaluator records one current [Type] per memory. Each type has base
// points ([Type.Points]) and a polarity: corroborate (+1), useful (+0.5) and
// used_successfully (+2) are positive; contradict (−1), not_useful (−0.5) and
// used_unsuccessfully (−2) are negative. The older verdict vocabulary maps onto
// these types through [Verdict.Type].
//
// # Weights and influence budgets
//
// An evaluator's base weight is 0.5, or 1 where it is credible in the memory's
// domain ([EvaluatorWeight]). The weight is frozen when the evaluator first
// takes a position on a memory. Each position is further scaled by a pair
// factor from an influence budget ([PairFactor]): positive positions draw on a
// budget shared by both agents of an unordered pair, negative positions on a
// budget owned by the (author, evaluator) direction. [First] and
// [Position.Replace] compute a position change and the journal entries it
// produces: a compensation for the previous contribution and an apply entry
// for the new one.
//
// # Aggregates and trust
//
// [Aggregate] holds an author's reputation in one domain or overall: the raw
// sum of its journal entries, the score clamped to ±100, the number of distinct
// evaluators with weight, and the evidence counts. [Trust] turns the global
// score and evaluator count into a [TrustLevel].
//
// # Knowledge confidence
//
// [Summary] describes the current eligible positions on one memory, and
// [Classify] gives its [KnowledgeState]. [Summary.Confidence] moves a memory's
// baseline numeric confidence by its positive and negative weights. None of
// these certify that a memory is true; they describe the recorded evidence.
package reputation

// Policy names the validation policy this package implements. Journal
// entries record it, so that entries written under an older policy keep their
// meaning.
const Policy = "independent-validation-v2"
