package skilltrust_test

import (
	"encoding/json"
	"math"
	"os"
	"testing"

	"github.com/remnant/passportkit/internal/extdata"
	"github.com/remnant/passportkit/skilltrust"
)

// TestWilsonReference checks Wilson against the external reference values
// (R's binom.confint through statsmodels), and against the fractional
// effective counts computed beside them, each at the tolerance it states.
func TestWilsonReference(t *testing.T) {
	b, err := os.ReadFile(extdata.Path(t, "stats", "wilson.json"))
	if err != nil {
		t.Fatal(err)
	}
	type row struct {
		K, N, Lo, Hi float64
		Tol          *float64
	}
	var ref struct {
		Z          float64
		Cases      []row
		Fractional []row `json:"fractional_n_behaviour_computed_here"`
	}
	if err := json.Unmarshal(b, &ref); err != nil {
		t.Fatal(err)
	}
	if ref.Z != skilltrust.Z {
		t.Fatalf("z %v, reference %v", skilltrust.Z, ref.Z)
	}
	if len(ref.Cases) == 0 || len(ref.Fractional) == 0 {
		t.Fatal("no reference cases")
	}
	check := func(r row, tol float64) {
		got := skilltrust.Wilson(r.K, r.N)
		if math.Abs(got.Lower-r.Lo) > tol || math.Abs(got.Upper-r.Hi) > tol {
			t.Errorf("k=%v n=%v: [%v, %v], reference [%v, %v] ±%g", r.K, r.N, got.Lower, got.Upper, r.Lo, r.Hi, tol)
		}
		if got.Lower > got.Midpoint || got.Midpoint > got.Upper {
			t.Errorf("k=%v n=%v: midpoint %v outside [%v, %v]", r.K, r.N, got.Midpoint, got.Lower, got.Upper)
		}
	}
	for _, r := range ref.Cases {
		tol := 1e-9 // the reference's full-precision values
		if r.Tol != nil {
			tol = *r.Tol
		}
		check(r, tol)
	}
	for _, r := range ref.Fractional {
		check(r, 5e-5) // given to four decimal places
	}
}

// TestWilsonClipped checks the bounds stay in [0, 1] at the extremes.
func TestWilsonClipped(t *testing.T) {
	for _, c := range [][2]float64{{0, 0.25}, {0.25, 0.25}, {0, 5}, {5, 5}, {1e-12, 1e-12}} {
		e := skilltrust.Wilson(c[0], c[1])
		for _, v := range []float64{e.Lower, e.Midpoint, e.Upper} {
			if v < 0 || v > 1 || math.IsNaN(v) {
				t.Errorf("Wilson(%v, %v) = %+v", c[0], c[1], e)
			}
		}
	}
}
