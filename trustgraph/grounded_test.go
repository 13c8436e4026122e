package trustgraph

import (
	"errors"
	"strings"
	"testing"
)

func args(ws map[string]float64) []Argument {
	var out []Argument
	for _, id := range []string{"p", "a", "b", "c", "d", "e"} {
		if w, ok := ws[id]; ok {
			out = append(out, Argument{ID: id, Author: "k" + id, Weight: w})
		}
	}
	return out
}

func labels(l Labelling) string {
	var b strings.Builder
	for _, a := range l.Arguments {
		b.WriteString(a.ID + "=" + string(a.Label) + " ")
	}
	return strings.TrimSpace(b.String())
}

func TestGrounded(t *testing.T) {
	w1 := map[string]float64{"p": 1, "a": 1, "b": 1, "c": 1, "d": 1, "e": 1}
	tests := []struct {
		name    string
		weights map[string]float64
		attacks []Attack
		opts    GroundedOptions
		labels  string
		code    string
	}{
		{"none", w1, nil, GroundedOptions{}, "p=IN", WhyNoContradiction},
		{"one", w1, []Attack{{"a", "p"}}, GroundedOptions{}, "p=OUT a=IN", WhyContradicted},
		{"rebutted", w1, []Attack{{"a", "p"}, {"b", "a"}}, GroundedOptions{}, "p=IN a=OUT b=IN", WhyRebutted},
		{"cycle", w1, []Attack{{"a", "p"}, {"b", "a"}, {"a", "b"}}, GroundedOptions{}, "p=UNDEC a=UNDEC b=UNDEC", WhyCycle},
		{"self-attack", w1, []Attack{{"a", "p"}, {"a", "a"}}, GroundedOptions{}, "p=UNDEC a=UNDEC", WhyCycle},
		{"cap", w1, []Attack{{"a", "p"}, {"b", "a"}, {"c", "b"}, {"d", "c"}}, GroundedOptions{}, "p=UNDEC a=UNDEC b=UNDEC c=UNDEC", WhyDepthCap},
		{"cap-out", w1, []Attack{{"a", "p"}, {"b", "a"}, {"c", "b"}, {"d", "c"}, {"e", "c"}, {"e", "a"}}, GroundedOptions{}, "p=IN a=OUT b=IN e=IN c=OUT", WhyRebutted},
		{"depth0", w1, []Attack{{"a", "p"}}, GroundedOptions{DepthSet: true}, "p=UNDEC", WhyDepthCap},
		{"lighter-ignored", map[string]float64{"p": 2, "a": 1}, []Attack{{"a", "p"}}, GroundedOptions{}, "p=IN", WhyNoContradiction},
		{"tie-counts", map[string]float64{"p": 2, "a": 1}, []Attack{{"a", "p"}}, GroundedOptions{Factor: .5}, "p=OUT a=IN", WhyContradicted},
		{"factor-zero", map[string]float64{"p": 2, "a": 0}, []Attack{{"a", "p"}}, GroundedOptions{FactorSet: true}, "p=OUT a=IN", WhyContradicted},
		{"ignored-removed-first", map[string]float64{"p": 1, "a": 1, "b": .5}, []Attack{{"a", "p"}, {"b", "a"}}, GroundedOptions{}, "p=OUT a=IN", WhyContradicted},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			l, err := Grounded(ArgumentGraph{Root: "p", Arguments: args(tc.weights), Attacks: tc.attacks}, tc.opts)
			if err != nil {
				t.Fatal(err)
			}
			if got := labels(l); got != tc.labels {
				t.Errorf("labels %q, want %q", got, tc.labels)
			}
			if l.Why.Code != tc.code {
				t.Errorf("why %q (%s), want %q", l.Why.Code, l.Why.Text, tc.code)
			}
			if l.Contested != (l.RootLabel != In) {
				t.Error("contested disagrees with the root label")
			}
		})
	}
}

func TestParseArgumentGraph(t *testing.T) {
	ok := `{"root":"p","arguments":[{"id":"p","author":"x","weight":1}],"attacks":[]}`
	if _, err := ParseArgumentGraph([]byte(ok)); err != nil {
		t.Fatal(err)
	}
	for _, bad := range []string{
		`{"root":"q","arguments":[{"id":"p","author":"x","weight":1}],"attacks":[]}`,
		`{"root":"p","arguments":[{"id":"p","author":"x","weight":1},{"id":"p","author":"y","weight":1}]}`,
		`{"root":"p","arguments":[{"id":"p","author":"x","weight":-1}]}`,
		`{"root":"p","arguments":[{"id":"p","author":"x","weight":1}],"attacks":[{"from":"z","to":"p"}]}`,
		`{"root":"p","arguments":[{"id":"p","author":"x","weight":1}],"extra":1}`,
		`{"root":"p","arguments":[{"id":"p","author":"x","weight":1e999}]}`,
		ok + ` {}`,
	} {
		if _, err := ParseArgumentGraph([]byte(bad)); !errors.Is(err, ErrBadGraph) {
			t.Errorf("%s: %v", bad, err)
		}
	}
}

func FuzzParseArgumentGraph(f *testing.F) {
	f.Add([]byte(`{"root":"p","arguments":[{"id":"p","author":"x","weight":1},{"id":"a","author":"y","weight":2}],"attacks":[{"from":"a","to":"p"},{"from":"p","to":"a"}]}`))
	f.Add([]byte(`{"root":"p","arguments":[{"id":"p","author":"x","weight":0}],"attacks":[{"from":"p","to":"p"}]}`))
	f.Add([]byte(`{}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		g, err := ParseArgumentGraph(b)
		if err != nil {
			return
		}
		for _, d := range []int{0, 1, 3} {
			l, err := Grounded(g, GroundedOptions{Depth: d, DepthSet: true})
			if err != nil {
				t.Fatal(err)
			}
			if l.Contested != (l.RootLabel != In) || l.Why.Code == "" {
				t.Fatalf("inconsistent result %+v", l)
			}
			// Grounded labelling: an IN argument has no IN attacker.
			lab := map[string]Label{}
			for _, a := range l.Arguments {
				lab[a.ID] = a.Label
				if a.Depth > d {
					t.Fatalf("%s at depth %d > %d", a.ID, a.Depth, d)
				}
			}
			for _, at := range g.Attacks {
				if lab[at.From] == In && lab[at.To] == In {
					t.Fatalf("IN %s attacks IN %s", at.From, at.To)
				}
			}
		}
	})
}
