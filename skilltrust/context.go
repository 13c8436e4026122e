package skilltrust

import "github.com/remnant/passportkit/evidence"

// Context relevance caps.
const (
	// ContextMismatchCap caps relevance when a label the task states
	// differs from the evidence's label on the same dimension.
	ContextMismatchCap = 0.2
	// ContextMissingCap caps relevance when the evidence lacks a dimension
	// the task states.
	ContextMissingCap = 0.5
)

// ContextMatch is how far evidence from one context bears on a task in
// another. It names dimensions, never label values.
type ContextMatch struct {
	// Value is 1, ContextMissingCap or ContextMismatchCap.
	Value float64 `json:"value"`
	// Mismatched lists the dimensions whose labels differ.
	Mismatched []string `json:"mismatched,omitempty"`
	// Missing lists the dimensions the task states and the evidence lacks.
	Missing []string `json:"missing,omitempty"`
}

// MatchContext compares the labels of evidence with those of a task, both
// already normalised (evidence.Context.Normalized). Only dimensions the
// task states constrain: an unspecified task matches everything fully;
// any mismatch caps the relevance at ContextMismatchCap; otherwise a
// missing dimension caps it at ContextMissingCap. Labels the task does not
// state are ignored, and nothing is read from prose.
func MatchContext(task, ev evidence.Context) ContextMatch {
	m := ContextMatch{Value: 1}
	tv, ev6 := task.Values(), ev.Values()
	for i, want := range tv {
		switch {
		case want == "":
		case ev6[i] == "":
			m.Missing = append(m.Missing, evidence.Dimensions[i])
		case ev6[i] != want:
			m.Mismatched = append(m.Mismatched, evidence.Dimensions[i])
		}
	}
	switch {
	case len(m.Mismatched) > 0:
		m.Value = ContextMismatchCap
	case len(m.Missing) > 0:
		m.Value = ContextMissingCap
	}
	return m
}
