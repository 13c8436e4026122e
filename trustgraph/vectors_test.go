package trustgraph

import (
	"encoding/json"
	"errors"
	"testing"

	vectors "github.com/remnant/passportkit/vectors/trustgraph"
)

// TestVectors runs every trustgraph conformance vector through the package.
func TestVectors(t *testing.T) {
	cases, err := vectors.Cases()
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range cases {
		t.Run(c.Name, func(t *testing.T) {
			out, err := RunCase(c)
			if c.Fail() {
				if err == nil {
					t.Fatalf("accepted; want reason %v", c.Expect["error"])
				}
				if err := vectors.CheckError(c.Expect, string(Reason(err))); err != nil {
					t.Fatalf("%v (%v)", err, err)
				}
				var le *LineError
				line := 0
				if errors.As(err, &le) {
					line = le.Line
				}
				if err := vectors.CheckLine(c.Expect, line); err != nil {
					t.Fatal(err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			b, err := json.Marshal(out)
			if err != nil {
				t.Fatal(err)
			}
			if err := vectors.Check(c.Expect, b); err != nil {
				t.Errorf("%s: %v", c.Rule, err)
			}
		})
	}
}

// RunCase computes a case's result with the package.
func RunCase(c vectors.Case) (any, error) {
	switch c.Kind {
	case vectors.KindPropagate, vectors.KindGlobal:
		edges, err := ParseEdges([]byte(c.Edges))
		if err != nil {
			return nil, err
		}
		g, err := NewGraph(edges)
		if err != nil {
			return nil, err
		}
		if c.Kind == vectors.KindGlobal {
			return Global(g, GlobalOptions{Alpha: *c.Alpha, PreTrust: c.PreTrust})
		}
		var o PropagateOptions
		if c.Damping != nil {
			o.Damping, o.DampingSet = *c.Damping, true
		}
		if c.Depth != nil {
			o.Depth, o.DepthSet = *c.Depth, true
		}
		return Propagate(g, c.TrustSet, o)
	case vectors.KindGrounded:
		g, err := ParseArgumentGraph(c.Graph)
		if err != nil {
			return nil, err
		}
		var o GroundedOptions
		if c.Depth != nil {
			o.Depth, o.DepthSet = *c.Depth, true
		}
		if c.Factor != nil {
			o.Factor, o.FactorSet = *c.Factor, true
		}
		return Grounded(g, o)
	case vectors.KindFloor, vectors.KindDecay, vectors.KindClock, vectors.KindGroups, vectors.KindStatus:
		b, err := json.Marshal(map[string]any{"kind": c.Kind, "input": c.Input})
		if err != nil {
			return nil, err
		}
		q, err := ParseSignalQuery(b)
		if err != nil {
			return nil, err
		}
		return q.Eval()
	}
	return nil, errors.New("unknown kind " + c.Kind)
}
