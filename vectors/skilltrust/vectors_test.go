package skilltrust_test

import (
	"flag"
	"testing"

	"github.com/remnant/passportkit/vectors/internal/vectorcase"
	vectors "github.com/remnant/passportkit/vectors/skilltrust"
	"github.com/remnant/passportkit/vectors/skilltrust/internal/gen"
)

var update = flag.Bool("update", false, "rewrite the case files from the generator")

// TestGenerated checks that the case files are exactly what the generator
// writes; with -update it rewrites them.
func TestGenerated(t *testing.T) {
	vectorcase.CheckGenerated(t, ".", gen.Cases(), func(c vectors.Case) string { return c.Name }, *update)
}

// TestCases checks that every file reads as a case, and that there are
// enough of them.
func TestCases(t *testing.T) {
	cases, err := vectors.Cases()
	if err != nil {
		t.Fatal(err)
	}
	if len(cases) < 60 {
		t.Errorf("%d cases; at least 60 are expected", len(cases))
	}
}
