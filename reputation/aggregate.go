package reputation

// ScoreBound bounds domain and global scores to [−ScoreBound, ScoreBound]:
// ±100. The raw sums are kept unbounded, so a reversal at the boundary still
// takes effect.
const ScoreBound Milli = 100_000

// FullConfidenceEvaluators is the number of distinct weighted evaluators at
// which an aggregate's confidence reaches 1.
const FullConfidenceEvaluators = 10

// Aggregate is an author's reputation in one domain, or across all domains.
type Aggregate struct {
	// Raw is the unclamped sum of the author's journal deltas.
	Raw Milli
	// Evaluators is the sample size: distinct evaluators holding at least
	// one weighted current position. Negative evaluators count too:
	// confidence measures coverage, not endorsement.
	Evaluators int
	// Positive and Negative count weighted current positions by polarity,
	// not journal entries.
	Positive, Negative int
}

// Score returns Raw clamped to ±[ScoreBound].
func (a Aggregate) Score() Milli { return clamp(a.Raw, -ScoreBound, ScoreBound) }

// Confidence returns min(1, Evaluators / 10).
func (a Aggregate) Confidence() Milli {
	return min(One, Milli(a.Evaluators)*One/FullConfidenceEvaluators)
}

// Move returns a after one evaluator's position changed from prev to next
// (nil for none). held is the number of that evaluator's weighted positions
// a counted before the change; Move returns the count after it. An evaluator
// joins the sample when its count rises from zero and leaves it when its
// count falls back to zero.
func (a Aggregate) Move(prev, next *Position, held int) (Aggregate, int) {
	if prev != nil {
		a.Raw -= prev.Contribution
		if prev.Weighted() {
			held--
			a.count(prev.Type, -1)
			if held == 0 {
				a.Evaluators--
			}
		}
	}
	if next != nil {
		a.Raw += next.Contribution
		if next.Weighted() {
			held++
			a.count(next.Type, 1)
			if held == 1 {
				a.Evaluators++
			}
		}
	}
	return a, held
}

func (a *Aggregate) count(t Type, n int) {
	if t.Polarity() == Positive {
		a.Positive += n
	} else {
		a.Negative += n
	}
}

// TrustLevel is an author's global trust, recalculated from its global score
// and distinct weighted evaluators. It is separate from the agent's status
// and from domain credibility.
type TrustLevel string

// The trust levels, from lowest to highest.
const (
	TrustNew       TrustLevel = "new"
	TrustObserved  TrustLevel = "observed"
	TrustTrusted   TrustLevel = "trusted"
	TrustHighTrust TrustLevel = "high_trust"
)

// trustTable is checked from the highest level down.
var trustTable = [...]struct {
	level      TrustLevel
	score      Milli
	evaluators int
}{
	{TrustHighTrust, 30_000, 10},
	{TrustTrusted, 10_000, 5},
	{TrustObserved, 2_000, 2},
}

// Trust returns the trust level for a global score and a count of distinct
// evaluators with weighted current positions across all domains.
func Trust(score Milli, evaluators int) TrustLevel {
	for _, row := range trustTable {
		if score >= row.score && evaluators >= row.evaluators {
			return row.level
		}
	}
	return TrustNew
}

// Trust returns the trust level of a global aggregate.
func (a Aggregate) Trust() TrustLevel { return Trust(a.Score(), a.Evaluators) }
