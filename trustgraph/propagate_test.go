package trustgraph

import (
	"errors"
	"math"
	"strings"
	"testing"
)

func near(t *testing.T, what string, got, want float64) {
	t.Helper()
	if math.Abs(got-want) > 1e-12 {
		t.Errorf("%s: got %.15g, want %.15g", what, got, want)
	}
}

func mustGraph(t testing.TB, edges ...Edge) *Graph {
	t.Helper()
	g, err := NewGraph(edges)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

func TestPropagateByHand(t *testing.T) {
	g := mustGraph(t, Edge{"a", "b", 1}, Edge{"a", "c", 3}, Edge{"b", "c", 1})
	r, err := Propagate(g, []string{"a"}, PropagateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	near(t, "a", r.Of("a"), .15)
	near(t, "b", r.Of("b"), .15*.85*.25)
	near(t, "c", r.Of("c"), .15*.85*.75+.15*.85*.85*.25)
	near(t, "undistributed", r.Undistributed, 1-.15-.15*.85*.25-.15*.85*.75-.15*.85*.85*.25)
	if r.Scores[0].ID != "a" || r.Scores[1].ID != "c" || r.Scores[2].ID != "b" {
		t.Errorf("order %v", r.Scores)
	}
}

func TestPropagateEdgeRules(t *testing.T) {
	// Parallel edges add, self-loops and non-positive weights carry nothing.
	g := mustGraph(t,
		Edge{"a", "b", 1}, Edge{"a", "b", 1}, Edge{"a", "c", 2},
		Edge{"a", "a", 50}, Edge{"a", "d", -5}, Edge{"a", "e", 0})
	r, err := Propagate(g, []string{"a"}, PropagateOptions{Depth: 1})
	if err != nil {
		t.Fatal(err)
	}
	near(t, "b", r.Of("b"), .15*.85*.5)
	near(t, "c", r.Of("c"), .15*.85*.5)
	near(t, "d", r.Of("d"), 0)
	if g.Len() != 5 || g.Edges() != 2 {
		t.Errorf("%d nodes, %d edges; want 5 and 2", g.Len(), g.Edges())
	}
}

func TestPropagateTrustSet(t *testing.T) {
	g := mustGraph(t, Edge{"a", "b", 1})
	r, err := Propagate(g, []string{"a", "zz", "a", "yy"}, PropagateOptions{Depth: 2})
	if err != nil {
		t.Fatal(err)
	}
	// Three distinct ids: a, zz, yy.
	near(t, "a", r.Of("a"), .15/3)
	near(t, "zz", r.Of("zz"), .15/3)
	near(t, "b", r.Of("b"), .15*.85/3)
	if strings.Join(r.UnknownTrustSet, ",") != "yy,zz" {
		t.Errorf("unknownTrustSet %v", r.UnknownTrustSet)
	}
	if _, err := Propagate(g, nil, PropagateOptions{}); !errors.Is(err, ErrEmptyTrustSet) || !strings.Contains(err.Error(), "trusts directly") {
		t.Errorf("empty trust set: %v", err)
	}
}

func TestPropagateOptions(t *testing.T) {
	g := mustGraph(t, Edge{"a", "b", 1})
	for _, o := range []PropagateOptions{{Damping: 1}, {Damping: -0.1}, {Damping: math.NaN()}, {Depth: -1}, {Depth: MaxDepth + 1}} {
		if _, err := Propagate(g, []string{"a"}, o); !errors.Is(err, ErrBadOption) {
			t.Errorf("%+v: %v", o, err)
		}
	}
	// Depth 0 keeps only the seed's own share; damping 0 gives the seed everything.
	r, _ := Propagate(g, []string{"a"}, PropagateOptions{DepthSet: true})
	near(t, "depth 0", r.Of("b"), 0)
	r, _ = Propagate(g, []string{"a"}, PropagateOptions{DampingSet: true})
	near(t, "damping 0", r.Of("a"), 1)
	near(t, "damping 0 undistributed", r.Undistributed, 0)
}

// TestSybilCliqueGetsNothing: a clique that praises itself gets no trust
// unless an edge from the reader's graph points into it.
func TestSybilCliqueGetsNothing(t *testing.T) {
	edges := []Edge{{"r", "h", 1}, {"h", "r", 1}}
	for _, a := range []string{"s1", "s2", "s3"} {
		for _, b := range []string{"s1", "s2", "s3"} {
			edges = append(edges, Edge{a, b, 10})
		}
	}
	r, err := Propagate(mustGraph(t, edges...), []string{"r"}, PropagateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{"s1", "s2", "s3"} {
		if r.Of(s) != 0 {
			t.Errorf("%s got %g", s, r.Of(s))
		}
	}
	edges = append(edges, Edge{"h", "s1", 1})
	r, _ = Propagate(mustGraph(t, edges...), []string{"r"}, PropagateOptions{})
	if r.Of("s1") == 0 {
		t.Error("an attack edge should let trust in")
	}
}

func TestNewGraphRefusals(t *testing.T) {
	for _, e := range []Edge{{"a", "b", math.NaN()}, {"a", "b", math.Inf(1)}} {
		if _, err := NewGraph([]Edge{{"x", "y", 1}, e}); !errors.Is(err, ErrBadWeight) || !strings.Contains(err.Error(), "edge 1") {
			t.Errorf("%v: %v", e, err)
		}
	}
	if _, err := NewGraph([]Edge{{"", "b", 1}}); !errors.Is(err, ErrBadID) {
		t.Errorf("empty id: %v", err)
	}
	if _, err := NewGraph([]Edge{{strings.Repeat("x", MaxIDBytes+1), "b", 1}}); !errors.Is(err, ErrBadID) {
		t.Errorf("long id: %v", err)
	}
}

func TestGlobalRefusals(t *testing.T) {
	g := mustGraph(t, Edge{"a", "b", 1})
	for _, o := range []GlobalOptions{{Alpha: 0}, {Alpha: 1.5}, {Alpha: .5, PreTrust: map[string]float64{"a": -1}},
		{Alpha: .5, PreTrust: map[string]float64{"a": 0}}, {Alpha: .5, PreTrust: map[string]float64{"a": math.Inf(1)}}} {
		if _, err := Global(g, o); err == nil {
			t.Errorf("%+v accepted", o)
		}
	}
	// Pre-trust ids absent from the graph are nodes.
	r, err := Global(g, GlobalOptions{Alpha: .5, PreTrust: map[string]float64{"a": 1, "new": 1}})
	if err != nil {
		t.Fatal(err)
	}
	if r.Of("new") == 0 || len(r.UnknownTrustSet) != 1 {
		t.Errorf("new: %+v", r)
	}
	near(t, "sum", r.Undistributed, 0)
}

// TestPropagatorReuse: answers from one Propagator equal fresh answers, in
// any order of queries.
func TestPropagatorReuse(t *testing.T) {
	g := otcGraph(t)
	p := NewPropagator(g)
	sets := [][]string{{"1", "2", "3"}, {"35", "7"}, {"1", "2", "3"}, {"4000", "nope"}}
	for _, s := range sets {
		a, err := p.Propagate(s, PropagateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		b, _ := Propagate(g, s, PropagateOptions{})
		if len(a.Scores) != len(b.Scores) || a.Undistributed != b.Undistributed {
			t.Fatalf("%v: reused %d scores %v, fresh %d %v", s, len(a.Scores), a.Undistributed, len(b.Scores), b.Undistributed)
		}
		for i := range a.Scores {
			if a.Scores[i] != b.Scores[i] {
				t.Fatalf("%v: %v != %v", s, a.Scores[i], b.Scores[i])
			}
		}
	}
}
