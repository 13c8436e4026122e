package cjson

import (
	"bufio"
	"math"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/gowebpki/jcs"

	"github.com/remnant/passportkit/internal/extdata"
)

// TestES6Numbers checks number formatting against all 10,000 lines of the
// RFC 8785 reference number file: AppendNumber, which both the checker and
// Canonicalize use, and the jcs formatter as a second opinion.
func TestES6Numbers(t *testing.T) {
	f, err := os.Open(extdata.Path(t, "jcs", "es6numbers", "es6testfile10k.txt"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	lines := 0
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		lines++
		bits, want, ok := strings.Cut(sc.Text(), ",")
		if !ok {
			t.Fatalf("line %d: malformed", lines)
		}
		u, err := strconv.ParseUint(bits, 16, 64)
		if err != nil {
			t.Fatalf("line %d: %v", lines, err)
		}
		v := math.Float64frombits(u)
		if got := string(AppendNumber(nil, v)); got != want {
			t.Errorf("line %d: AppendNumber(%s) = %s, want %s", lines, bits, got, want)
		}
		if got, err := jcs.NumberToJSON(v); err != nil || got != want {
			t.Errorf("line %d: jcs.NumberToJSON(%s) = %s, %v; want %s", lines, bits, got, err, want)
		}
		// The canonical checker accepts exactly the reference text, except
		// integers beyond ±(2^53−1), which the guard refuses.
		_, err = Parse([]byte("["+want+"]"), Options{Canonical: true})
		bigInt := !strings.ContainsAny(want, ".e") && math.Abs(v) > maxSafeInteger
		switch {
		case bigInt && code(err) != CodeNumberRange:
			t.Errorf("line %d: %s: got %v, want integer range refusal", lines, want, err)
		case !bigInt && err != nil:
			t.Errorf("line %d: %s: %v", lines, want, err)
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if lines != 10000 {
		t.Fatalf("read %d lines, want 10000", lines)
	}
}
