package trustgraph_test

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"testing"

	vectors "github.com/remnant/passportkit/vectors/trustgraph"
	"github.com/remnant/passportkit/vectors/trustgraph/internal/gen"
)

var update = flag.Bool("update", false, "rewrite the case files from the generator")

// TestGenerated checks that the case files are exactly what the generator
// writes; with -update it rewrites them.
func TestGenerated(t *testing.T) {
	want := map[string][]byte{}
	for _, c := range gen.Cases() {
		b, err := json.MarshalIndent(c, "", "  ")
		if err != nil {
			t.Fatal(err)
		}
		if _, dup := want[c.Name+".json"]; dup {
			t.Fatalf("case %s is generated twice", c.Name)
		}
		want[c.Name+".json"] = append(b, '\n')
	}
	if *update {
		old, _ := filepath.Glob("cases/*.json")
		for _, f := range old {
			if err := os.Remove(f); err != nil {
				t.Fatal(err)
			}
		}
		for name, b := range want {
			if err := os.WriteFile(filepath.Join("cases", name), b, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	have, _ := filepath.Glob("cases/*.json")
	if len(have) != len(want) {
		t.Errorf("%d case files, the generator writes %d (run go test -update)", len(have), len(want))
	}
	for name, b := range want {
		got, err := os.ReadFile(filepath.Join("cases", name))
		if err != nil || !bytes.Equal(got, b) {
			t.Errorf("cases/%s differs from the generator (run go test -update)", name)
		}
	}
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
