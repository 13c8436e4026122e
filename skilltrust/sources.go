package skilltrust

import (
	"cmp"
	"slices"
	"strings"

	"github.com/remnant/passportkit/evidence"
)

// SourceKey is a source's place in the order of [SourceOrder]: its preview
// rank (SPEC.md §4.12: 0 an unresolved contradiction, 1 a failure holding a
// position, 2 any other record holding a position, 3 the rest), its final
// weight, its date and its record id. Ids are unique in a set, so no two
// sources of one assessment have equal keys.
type SourceKey struct {
	Rank   int
	Weight float64
	Date   evidence.Date
	ID     string
}

// Key returns the place of s in [SourceOrder].
func (s *Source) Key() SourceKey {
	return SourceKey{Rank: previewRank(*s), Weight: s.Weight, Date: s.Date, ID: s.ID}
}

// Compare orders keys as [SourceOrder] does: by rank, heavier first, then
// the order of SPEC.md §5.5 (latest date first, then id in byte order). It
// returns a negative number when k comes first.
func (k SourceKey) Compare(o SourceKey) int {
	if c := cmp.Compare(k.Rank, o.Rank); c != 0 {
		return c
	}
	if c := cmp.Compare(o.Weight, k.Weight); c != 0 {
		return c
	}
	if c := o.Date.Compare(k.Date); c != 0 {
		return c
	}
	return strings.Compare(k.ID, o.ID)
}

// SourceOrder returns the indices of an assessment's sources in the order of
// the source previews (SPEC.md §4.12) extended to every source: unresolved
// contradictions, failures holding a position, other records holding a
// position, then the rest; within each rank heavier first, then latest
// first, then by id. An assessment lists its sources latest first, then by
// id, so the first [passport.MaxSourcePreviews] of this order are exactly
// the sources its skill passport previews.
func SourceOrder(sources []Source) []int {
	idx := make([]int, len(sources))
	keys := make([]SourceKey, len(sources))
	for i := range sources {
		idx[i], keys[i] = i, sources[i].Key()
	}
	slices.SortFunc(idx, func(a, b int) int { return keys[a].Compare(keys[b]) })
	return idx
}
