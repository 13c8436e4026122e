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
	"math"
	"path"
	"reflect"
	"slices"
	"sort"
	"strings"
)

//go:embed cases/*.json
var files embed.FS

// FS returns the case files, in the folder "cases".
func FS() fs.FS { return files }

// Tolerance is the absolute difference allowed between an expected and a
// computed number.
const Tolerance = 1e-9

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
func (c Case) Fail() bool { return strings.HasSuffix(c.Name, "_fail") }

// Cases reads every case, sorted by name.
func Cases() ([]Case, error) {
	names, err := fs.Glob(files, "cases/*.json")
	if err != nil {
		return nil, err
	}
	sort.Strings(names)
	cases := make([]Case, 0, len(names))
	for _, n := range names {
		b, err := files.ReadFile(n)
		if err != nil {
			return nil, err
		}
		var c Case
		if err := json.Unmarshal(b, &c); err != nil {
			return nil, fmt.Errorf("%s: %w", n, err)
		}
		if c.Name+".json" != path.Base(n) {
			return nil, fmt.Errorf("%s: name %q does not match the file", n, c.Name)
		}
		if _, ok := c.Expect["error"]; ok != c.Fail() {
			return nil, fmt.Errorf("%s: an error is expected exactly in _fail cases", n)
		}
		cases = append(cases, c)
	}
	return cases, nil
}

// CheckError compares the reason code of a refused case with the expected
// one.
func CheckError(expect map[string]any, code string) error {
	if want := expect["error"]; want != code {
		return fmt.Errorf("error: got reason %q, want %q", code, want)
	}
	return nil
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

// equal compares decoded JSON values, numbers within Tolerance.
func equal(want, got any) bool {
	switch w := want.(type) {
	case float64:
		g, ok := got.(float64)
		return ok && math.Abs(w-g) <= Tolerance
	case []any:
		g, ok := got.([]any)
		if !ok && got == nil {
			return len(w) == 0
		}
		return ok && slices.EqualFunc(w, g, equal)
	case map[string]any:
		g, ok := got.(map[string]any)
		if !ok || len(g) != len(w) {
			return false
		}
		for k, v := range w {
			if !equal(v, g[k]) {
				return false
			}
		}
		return true
	}
	return reflect.DeepEqual(want, got)
}

func object(v any) map[string]any { m, _ := v.(map[string]any); return m }
func list(v any) []any            { l, _ := v.([]any); return l }
func str(v any) string            { s, _ := v.(string); return s }
