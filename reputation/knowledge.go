package reputation

// KnowledgeState is what the current eligible positions on a memory say about
// how well its knowledge is evidenced. It is not a verdict on truth, and it
// is separate from the author's trust and the memory's visibility.
type KnowledgeState string

// The knowledge states, in the order [Classify] tests them.
const (
	StateNew          KnowledgeState = "new"
	StateContested    KnowledgeState = "contested"
	StateRobust       KnowledgeState = "robust"
	StateCorroborated KnowledgeState = "corroborated"
	StateObserved     KnowledgeState = "observed"
)

// Vote is one eligible current position on a memory, from an evaluator other
// than its author, as the knowledge summary sees it: weights here describe
// evaluator influence and are not multiplied by a type's points.
type Vote struct {
	Type            Type
	EffectiveWeight Milli
	// Credible reports that the evaluator's frozen base weight for this
	// memory is [CredibleWeight].
	Credible bool
}

// Counts holds the number of current positions of each type, zero-weight
// positions included.
type Counts struct {
	Corroborate        int `json:"corroborate"`
	Contradict         int `json:"contradict"`
	Useful             int `json:"useful"`
	NotUseful          int `json:"not_useful"`
	UsedSuccessfully   int `json:"used_successfully"`
	UsedUnsuccessfully int `json:"used_unsuccessfully"`
}

func (c *Counts) field(t Type) *int {
	switch t {
	case Corroborate:
		return &c.Corroborate
	case Contradict:
		return &c.Contradict
	case Useful:
		return &c.Useful
	case NotUseful:
		return &c.NotUseful
	case UsedSuccessfully:
		return &c.UsedSuccessfully
	case UsedUnsuccessfully:
		return &c.UsedUnsuccessfully
	}
	return nil
}

// Summary is the validation summary of one memory. IndependentValidators and
// Counts include eligible positions of zero weight, so feedback from an
// exhausted budget stays visible; every other count requires a positive
// effective weight.
type Summary struct {
	State                      KnowledgeState `json:"state"`
	IndependentValidators      int            `json:"independentValidators"`
	CredibleValidators         int            `json:"credibleValidators"`
	Counts                     Counts         `json:"counts"`
	PositiveValidators         int            `json:"positiveValidators"`
	NegativeValidators         int            `json:"negativeValidators"`
	PositiveWeight             Milli          `json:"positiveWeight"`
	NegativeWeight             Milli          `json:"negativeWeight"`
	CrediblePositiveValidators int            `json:"crediblePositiveValidators"`
}

// Summarize returns the summary of a memory's current eligible votes.
func Summarize(votes ...Vote) Summary {
	s := Summary{State: StateNew}
	for _, v := range votes {
		s.Add(v)
	}
	return s
}

// Add counts one more vote and updates the state.
func (s *Summary) Add(v Vote) { s.tally(v, 1) }

// Remove withdraws a vote counted before and updates the state.
func (s *Summary) Remove(v Vote) { s.tally(v, -1) }

func (s *Summary) tally(v Vote, n int) {
	s.IndependentValidators += n
	if p := s.Counts.field(v.Type); p != nil {
		*p += n
	}
	if v.EffectiveWeight > 0 {
		if v.Credible {
			s.CredibleValidators += n
		}
		w := v.EffectiveWeight * Milli(n)
		if v.Type.Polarity() == Positive {
			s.PositiveValidators += n
			s.PositiveWeight += w
			if v.Credible {
				s.CrediblePositiveValidators += n
			}
		} else {
			s.NegativeValidators += n
			s.NegativeWeight += w
		}
	}
	s.State = Classify(*s)
}

// Thresholds of the knowledge states.
const (
	contestedEachWeight    Milli = 500  // positive and negative weight both at least this …
	contestedNegative      Milli = 1000 // … or negative weight at least this
	robustPositive               = 5
	robustCrediblePositive       = 3
	robustPositiveWeight   Milli = 3000
	robustNegativeWeight   Milli = 250
	robustSharePercent           = 90
	corroboratedPositive         = 2
	corroboratedWeight     Milli = 1000
)

// Classify returns the knowledge state of s. The rules run in order and the
// first that matches wins: new, contested, robust, corroborated, observed.
func Classify(s Summary) KnowledgeState {
	pw, nw := s.PositiveWeight, s.NegativeWeight
	switch {
	case s.PositiveValidators+s.NegativeValidators == 0:
		return StateNew
	case pw >= contestedEachWeight && nw >= contestedEachWeight, nw >= contestedNegative:
		return StateContested
	case s.PositiveValidators >= robustPositive &&
		s.CrediblePositiveValidators >= robustCrediblePositive &&
		pw >= robustPositiveWeight &&
		nw <= robustNegativeWeight &&
		int64(pw)*100 >= robustSharePercent*int64(pw+nw):
		return StateRobust
	case s.PositiveValidators >= corroboratedPositive && pw >= corroboratedWeight:
		return StateCorroborated
	}
	return StateObserved
}

// Confidence returns a memory's numeric confidence: its baseline moved up by
// 0.03 per unit of positive weight and down by 0.06 per unit of negative
// weight, clamped to [0, 1].
func (s Summary) Confidence(baseline Milli) Milli {
	shift := divRound(30*int64(s.PositiveWeight)-60*int64(s.NegativeWeight), 1000)
	return clamp(baseline+shift, 0, One)
}
