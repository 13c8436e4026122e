// Package trustgraph holds the conformance vectors of reader-local trust,
// global EigenTrust, weighted grounded contradictions and the signal rules
// (SPEC.md §15): one JSON file per case, each the inputs and the expected
// results. README.md in this folder specifies the format for
// implementations in other languages; [Check] is the reference comparison.
//
// The cases are written by a generator, one small function per case with
// its expectations worked out by hand; run the package's tests with -update
// to rewrite them.
package trustgraph

import (
	"embed"
	"encoding/json"
	"fmt"
	"io/fs"
	"sort"
	"strings"

	"github.com/remnant/passportkit/vectors/internal/vectorcase"
)

//go:embed cases/*.json
var files embed.FS

// FS returns the case files, in the folder "cases".
func FS() fs.FS { return files }

// Tolerance is the absolute difference allowed between an expected and a
// computed number.
const Tolerance = vectorcase.Tolerance

// The kinds of case.
const (
	KindPropagate = "propagate" // reader-local propagation from an edge file
	KindGlobal    = "global"    // global EigenTrust from an edge file
	KindGrounded  = "grounded"  // grounded labelling of an argument graph
	KindFloor     = "floor"     // the cold-start floor
	KindDecay     = "decay"     // the decay factor of one signal
	KindClock     = "clock"     // the decay clock after renewals
	KindGroups    = "groups"    // diversity groups and a post's tally
	KindStatus    = "status"    // a post's status
)

// Case is one conformance vector.
type Case struct {
	// Name is the file name without ".json"; negative cases end in "_fail".
	Name string `json:"name"`
	// Kind says which computation the case exercises.
	Kind string `json:"kind"`
	// Rule names the rule of SPEC.md §15 the case exercises.
	Rule string `json:"rule"`
	// Description says, in a sentence, what is checked.
	Description string `json:"description"`
	// Edges is an edge file, verbatim (propagate, global).
	Edges string `json:"edges,omitempty"`
	// TrustSet is the reader's trust set (propagate).
	TrustSet []string `json:"trustSet,omitempty"`
	// Damping, Depth, Factor and Alpha, when present, replace the defaults.
	Damping *float64 `json:"damping,omitempty"`
	Depth   *int     `json:"depth,omitempty"`
	Factor  *float64 `json:"factor,omitempty"`
	Alpha   *float64 `json:"alpha,omitempty"`
	// PreTrust is the pre-trust object (global); absent means uniform.
	PreTrust map[string]float64 `json:"preTrust,omitempty"`
	// Graph is an argument graph, verbatim (grounded).
	Graph json.RawMessage `json:"graph,omitempty"`
	// Input holds the inputs of the signal kinds; see README.md.
	Input json.RawMessage `json:"input,omitempty"`
	// Expect holds the expected results; see README.md.
	Expect map[string]any `json:"expect"`
}

// Fail reports whether the case expects its input to be refused.
func (c Case) Fail() bool { return vectorcase.Fail(c.Name) }

// Cases reads every case, sorted by name.
func Cases() ([]Case, error) {
	return vectorcase.Load(files, func(c *Case) string { return c.Name }, func(c *Case) map[string]any { return c.Expect })
}

// CheckError compares the reason code of a refused case with the expected
// one.
func CheckError(expect map[string]any, code string) error {
	return vectorcase.CheckError(expect, code)
}

// CheckLine compares the line number of a refused edge file with the
// expected one, when the case expects one.
func CheckLine(expect map[string]any, line int) error {
	want, ok := expect["line"]
	if !ok {
		return nil
	}
	if want != float64(line) {
		return fmt.Errorf("error: got line %d, want %v", line, want)
	}
	return nil
}

// Check compares a result, as JSON, with a case's expectations and returns
// every difference found. A propagation's result has "scores" as a list of
// {"id","score"}; a grounded result has "rootLabel", "contested", "why"
// {"code"} and "arguments" [{"id","label","depth"}]; a signal kind's result
// is the object README.md gives for it.
func Check(expect map[string]any, result []byte) error {
	var out map[string]any
	if err := json.Unmarshal(result, &out); err != nil {
		return fmt.Errorf("result: %w", err)
	}
	var problems []string
	bad := func(format string, a ...any) { problems = append(problems, fmt.Sprintf(format, a...)) }
	keys := make([]string, 0, len(expect))
	for k := range expect {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		want := expect[k]
		switch k {
		case "error", "line":
			bad("%s: expected a refusal, got a result", k)
		case "scores":
			got := map[string]any{}
			for _, s := range list(out["scores"]) {
				got[str(object(s)["id"])] = object(s)["score"]
			}
			if !equal(want, got) {
				bad("scores: got %v, want %v", got, want)
			}
		case "labels", "depths":
			field := map[string]string{"labels": "label", "depths": "depth"}[k]
			got := map[string]any{}
			for _, a := range list(out["arguments"]) {
				got[str(object(a)["id"])] = object(a)[field]
			}
			if !equal(want, got) {
				bad("%s: got %v, want %v", k, got, want)
			}
		case "why":
			if got := object(out["why"])["code"]; !equal(want, got) {
				bad("why: got %v, want %v", got, want)
			}
		default:
			got, ok := out[k]
			if !ok {
				bad("%s: missing", k)
			} else if !equal(want, got) {
				bad("%s: got %v, want %v", k, got, want)
			}
		}
	}
	if len(problems) > 0 {
		return fmt.Errorf("%s", strings.Join(problems, "; "))
	}
	return nil
}

var (
	equal  = vectorcase.Equal
	object = vectorcase.Object
	list   = vectorcase.List
	str    = vectorcase.Str
)
