// Package gen writes the trustgraph conformance vectors: one small function
// per case, each stating its inputs and, worked out by hand from SPEC.md
// §15, its expected results.
package gen

import (
	"encoding/json"

	vectors "github.com/remnant/passportkit/vectors/trustgraph"
)

// Cases returns every case, in generator order.
func Cases() []vectors.Case {
	var out []vectors.Case
	for _, f := range all {
		out = append(out, f())
	}
	return out
}

type m = map[string]any

func f(x float64) *float64 { return &x }
func i(x int) *int         { return &x }

func raw(v any) json.RawMessage {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return b
}

func propagate(name, rule, desc, edges string, trust []string, expect m) vectors.Case {
	return vectors.Case{Name: name, Kind: vectors.KindPropagate, Rule: rule, Description: desc, Edges: edges, TrustSet: trust, Expect: expect}
}

func global(name, rule, desc, edges string, alpha float64, pre map[string]float64, expect m) vectors.Case {
	return vectors.Case{Name: name, Kind: vectors.KindGlobal, Rule: rule, Description: desc, Edges: edges, Alpha: f(alpha), PreTrust: pre, Expect: expect}
}

type arg struct {
	ID     string  `json:"id"`
	Author string  `json:"author"`
	Weight float64 `json:"weight"`
}
type att struct {
	From string `json:"from"`
	To   string `json:"to"`
}

// argGraph makes a graph rooted at p; each argument's author is "k" and its
// id, and weights are given in the order p, a, b, c, d, e.
func argGraph(weights []float64, attacks ...string) json.RawMessage {
	ids := []string{"p", "a", "b", "c", "d", "e"}
	g := struct {
		Root      string `json:"root"`
		Arguments []arg  `json:"arguments"`
		Attacks   []att  `json:"attacks"`
	}{Root: "p", Attacks: []att{}}
	for n, w := range weights {
		g.Arguments = append(g.Arguments, arg{ids[n], "k" + ids[n], w})
	}
	for _, a := range attacks { // "a>p" means a attacks p
		g.Attacks = append(g.Attacks, att{a[:1], a[2:]})
	}
	return raw(g)
}

func grounded(name, rule, desc string, g json.RawMessage, expect m) vectors.Case {
	return vectors.Case{Name: name, Kind: vectors.KindGrounded, Rule: rule, Description: desc, Graph: g, Expect: expect}
}

func signal(kind, name, rule, desc string, input any, expect m) vectors.Case {
	return vectors.Case{Name: name, Kind: kind, Rule: rule, Description: desc, Input: raw(input), Expect: expect}
}
