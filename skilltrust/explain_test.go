package skilltrust

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/remnant/passportkit/evidence"
)

// TestEveryLimitationIsExplained: each code of SPEC.md §4.13 has its own
// sentence, and an unknown code is still explained.
func TestEveryLimitationIsExplained(t *testing.T) {
	codes := []Limitation{LimitCapsApplied, LimitContextMismatch, LimitContextMissing, LimitDeclarations,
		LimitFailedReuse, LimitLaterRecords, LimitNonBinary, LimitMerged, LimitSelfReports,
		LimitSharedOwnership, LimitTruncated, LimitUnknownOwnership, LimitUnknownSkill}
	if got := Limitations(); fmt.Sprint(got) != fmt.Sprint(sortedCopy(codes)) {
		t.Fatalf("Limitations() = %v, want %v", got, sortedCopy(codes))
	}
	seen := map[string]Limitation{}
	for _, c := range codes {
		s := c.Explain()
		if s == "" || strings.Contains(s, string(c)) || !strings.HasSuffix(s, ".") {
			t.Errorf("%s: %q is no sentence in plain words", c, s)
		}
		if other, dup := seen[s]; dup {
			t.Errorf("%s and %s share a sentence", c, other)
		}
		seen[s] = c
	}
	if s := Limitation("made_up").Explain(); !strings.Contains(s, "made_up") {
		t.Errorf("an unknown code is explained as %q", s)
	}
}

func sortedCopy(ls []Limitation) []Limitation {
	out := slices.Clone(ls)
	slices.Sort(out)
	return out
}

func TestThresholdExplain(t *testing.T) {
	for _, c := range []struct {
		t    Threshold
		want string
	}{
		{Threshold{Name: "estimate.binary_outcomes", Required: 5, Actual: 3.1}, "An estimate needs 5 effective successes and failures; there are 3.10."},
		{Threshold{Name: "estimate.independent_operators", Required: 2, Actual: 1}, "An estimate needs 2 independent operators holding successes or failures; there are 1."},
		{Threshold{Name: "moderate.contexts", Required: 2, Actual: 1}, "The moderate evidence level needs 2 distinct task contexts; there are 1."},
		{Threshold{Name: "strong.independent_validators", Required: 5, Actual: 3}, "The strong evidence level needs 5 independent validators; there are 3."},
		{Threshold{Name: "estimate.complete_collection", Required: 1}, "An estimate needs the complete evidence; it was cut at the collection limits."},
	} {
		if got := c.t.Explain(); got != c.want {
			t.Errorf("%s: %q, want %q", c.t.Name, got, c.want)
		}
	}
}

// TestRankedSourcesStartWithThePreviews: the ranked order of every source
// begins with the skill passport's previews.
func TestRankedSourcesStartWithThePreviews(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for n := range 300 {
		a := &Assessment{Sources: make([]Source, n%30)}
		for i := range a.Sources {
			s := &a.Sources[i]
			s.ID = fmt.Sprint("ev_", i)
			s.Weight = []float64{0, 0.25, 0.5, 1}[r.IntN(4)]
			s.Role = []Role{RoleCounted, RoleMerged, RoleNotWeighted}[r.IntN(3)]
			s.Outcome = []evidence.Outcome{evidence.OutcomeSuccess, evidence.OutcomeFailure}[r.IntN(2)]
			if r.IntN(6) == 0 {
				s.Contradiction = "unresolved"
			}
		}
		ranked := a.RankedSources()
		if len(ranked) != len(a.Sources) {
			t.Fatalf("case %d: %d ranked of %d", n, len(ranked), len(a.Sources))
		}
		for k, i := range previews(a.Sources) {
			if ranked[k].ID != a.Sources[i].ID {
				t.Fatalf("case %d: ranked[%d] is %s, preview %d is %s", n, k, ranked[k].ID, k, a.Sources[i].ID)
			}
		}
	}
}
