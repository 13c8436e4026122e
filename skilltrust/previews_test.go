package skilltrust

import (
	"cmp"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/remnant/passportkit/evidence"
)

// TestPreviewsAsStableSort: the one-pass selection of previews equals the
// first sources of a stable sort by preview rank and weight, ties, NaN and
// short lists included.
func TestPreviewsAsStableSort(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	weights := []float64{0, 0.25, 0.5, 1, 0.5}
	for n := range 400 {
		sources := make([]Source, n%40)
		for i := range sources {
			s := &sources[i]
			s.ID = fmt.Sprint("ev_", i)
			s.Weight = weights[r.IntN(len(weights))]
			if r.IntN(50) == 0 {
				s.Weight = 0 * float64(i) / 0 // NaN
			}
			s.Role = []Role{RoleCounted, RoleMerged, RoleNotWeighted}[r.IntN(3)]
			s.Outcome = []evidence.Outcome{evidence.OutcomeSuccess, evidence.OutcomeFailure}[r.IntN(2)]
			if r.IntN(8) == 0 {
				s.Contradiction = "unresolved"
			}
		}
		idx := make([]int, len(sources))
		for i := range idx {
			idx[i] = i
		}
		slices.SortStableFunc(idx, func(i, j int) int {
			x, y := sources[i], sources[j]
			if c := cmp.Compare(previewRank(x), previewRank(y)); c != 0 {
				return c
			}
			return cmp.Compare(y.Weight, x.Weight)
		})
		want := idx[:min(len(idx), 3)]
		if got := previews(sources); !slices.Equal(got, want) {
			t.Fatalf("case %d: previews %v, stable sort %v", n, got, want)
		}
	}
}
