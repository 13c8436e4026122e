package trustgraph

import "errors"

// ReasonCode is the stable name of a refusal of this package (SPEC.md
// §15.6), for a CLI, a service or a test to read.
type ReasonCode string

// The reason codes of SPEC.md §15.6.
const (
	ReasonTooLarge      ReasonCode = "too_large"
	ReasonBadWeight     ReasonCode = "bad_weight"
	ReasonBadID         ReasonCode = "bad_id"
	ReasonBadLine       ReasonCode = "bad_line"
	ReasonBadGraph      ReasonCode = "bad_graph"
	ReasonBadOption     ReasonCode = "bad_option"
	ReasonEmptyTrustSet ReasonCode = "empty_trust_set"
	ReasonBadSignal     ReasonCode = "bad_signal"
)

// Reason returns the reason code of an error from this package, or "" for
// any other error. Size wins over the other faults of the same input.
func Reason(err error) ReasonCode {
	for _, r := range []struct {
		err  error
		code ReasonCode
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
