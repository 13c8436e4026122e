package trustgraph_test

import (
	"flag"
	"testing"

	"github.com/remnant/passportkit/vectors/internal/vectorcase"
	vectors "github.com/remnant/passportkit/vectors/trustgraph"
	"github.com/remnant/passportkit/vectors/trustgraph/internal/gen"
)

var update = flag.Bool("update", false, "rewrite the case files from the generator")

// TestGenerated checks that the case files are exactly what the generator
// writes; with -update it rewrites them.
func TestGenerated(t *testing.T) {
	vectorcase.CheckGenerated(t, ".", gen.Cases(), func(c vectors.Case) string { return c.Name }, *update)
}

// TestCases checks that every file reads as a case, that every kind is
// present, and that there are enough of them.
func TestCases(t *testing.T) {
	cases, err := vectors.Cases()
	if err != nil {
		t.Fatal(err)
	}
	kinds := map[string]int{}
	for _, c := range cases {
		kinds[c.Kind]++
	}
	for _, k := range []string{vectors.KindPropagate, vectors.KindGlobal, vectors.KindGrounded, vectors.KindFloor,
		vectors.KindDecay, vectors.KindClock, vectors.KindGroups, vectors.KindStatus} {
		if kinds[k] == 0 {
			t.Errorf("no %s case", k)
		}
	}
	if len(cases) < 50 {
		t.Errorf("%d cases; at least 50 are expected", len(cases))
	}
}
