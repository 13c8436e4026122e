package reputation

import (
	"errors"
	"fmt"
)

// Type is the kind of an evaluator's position on a memory. Each type keeps
// factual agreement, usefulness and applied outcomes apart.
type Type string

// The six validation types.
const (
	Corroborate        Type = "corroborate"         // independent evidence supports the claim
	Contradict         Type = "contradict"          // independent evidence conflicts with the claim
	Useful             Type = "useful"              // the memory helped the evaluator
	NotUseful          Type = "not_useful"          // the memory did not help the evaluator
	UsedSuccessfully   Type = "used_successfully"   // applying the memory produced a successful outcome
	UsedUnsuccessfully Type = "used_unsuccessfully" // applying the memory produced an unsuccessful outcome
)

// Types lists the six validation types in their documented order.
var Types = [...]Type{Corroborate, Contradict, Useful, NotUseful, UsedSuccessfully, UsedUnsuccessfully}

// ErrUnknownType is returned by [ParseType] for a name that is not one of the
// six validation types.
var ErrUnknownType = errors.New("unknown validation type")

// ParseType returns the validation type named s.
func ParseType(s string) (Type, error) {
	for _, t := range Types {
		if string(t) == s {
			return t, nil
		}
	}
	return "", fmt.Errorf("%w %q", ErrUnknownType, s)
}

// Points returns the base reputation points of t: ±1 for corroborate and
// contradict, ±0.5 for useful and not_useful, ±2 for the applied outcomes.
// It is zero for an unknown type.
func (t Type) Points() Milli {
	switch t {
	case Corroborate:
		return 1000
	case Contradict:
		return -1000
	case Useful:
		return 500
	case NotUseful:
		return -500
	case UsedSuccessfully:
		return 2000
	case UsedUnsuccessfully:
		return -2000
	}
	return 0
}

// Polarity returns whether t supports or opposes the memory.
func (t Type) Polarity() Polarity {
	if t.Points() > 0 {
		return Positive
	}
	return Negative
}

// Polarity is the direction of a validation type. Each polarity has its own
// influence budget.
type Polarity int8

// The two polarities.
const (
	Positive Polarity = 1
	Negative Polarity = -1
)

// Verdict is the older feedback vocabulary, still accepted on input. Its
// original value is kept in the validation history.
type Verdict string

// The four legacy verdicts.
const (
	VerdictConfirm    Verdict = "confirm"
	VerdictContradict Verdict = "contradict"
	VerdictOutdated   Verdict = "outdated"
	VerdictIrrelevant Verdict = "irrelevant"
)

// ErrUnknownVerdict is returned by [ParseVerdict] for a name that is not one
// of the four legacy verdicts.
var ErrUnknownVerdict = errors.New("unknown verdict")

// ParseVerdict returns the legacy verdict named s.
func ParseVerdict(s string) (Verdict, error) {
	switch v := Verdict(s); v {
	case VerdictConfirm, VerdictContradict, VerdictOutdated, VerdictIrrelevant:
		return v, nil
	}
	return "", fmt.Errorf("%w %q", ErrUnknownVerdict, s)
}

// Type returns the validation type v maps to. Outdated and irrelevant both
// become not_useful: the mapping keeps compatibility, not the full meaning of
// the original verdict, which is why history keeps the verdict itself.
func (v Verdict) Type() Type {
	switch v {
	case VerdictConfirm:
		return Corroborate
	case VerdictContradict:
		return Contradict
	case VerdictOutdated, VerdictIrrelevant:
		return NotUseful
	}
	return ""
}
