package trustgraph

import "errors"

// Reason codes: the stable name of each refusal, for a CLI, a service or a
// test to read (SPEC.md §15.6).
const (
	ReasonTooLarge      = "too_large"
	ReasonBadWeight     = "bad_weight"
	ReasonBadID         = "bad_id"
	ReasonBadLine       = "bad_line"
	ReasonBadGraph      = "bad_graph"
	ReasonBadOption     = "bad_option"
	ReasonEmptyTrustSet = "empty_trust_set"
	ReasonBadSignal     = "bad_signal"
)

// Reason returns the reason code of an error from this package, or "" for
// any other error. Size wins over the other faults of the same input.
func Reason(err error) string {
	for _, r := range []struct {
		err  error
		code string
	}{
		{ErrTooLarge, ReasonTooLarge}, {ErrBadWeight, ReasonBadWeight}, {ErrBadID, ReasonBadID},
		{ErrBadLine, ReasonBadLine}, {ErrBadGraph, ReasonBadGraph}, {ErrBadOption, ReasonBadOption},
		{ErrEmptyTrustSet, ReasonEmptyTrustSet}, {ErrBadSignal, ReasonBadSignal},
	} {
		if errors.Is(err, r.err) {
			return r.code
		}
	}
	return ""
}
