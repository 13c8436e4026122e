package reputation_test

import (
	"fmt"

	"github.com/remnant/passportkit/reputation"
)

// A novice evaluator's first corroboration of an author is worth 0.5; its
// corroboration of a second memory by the same author 0.25, because praise
// between one pair of agents is damped; its first contradiction draws on a
// separate budget and is worth −0.5.
func ExampleFirst() {
	var b reputation.Budgets
	first := reputation.First(reputation.Corroborate, reputation.NoviceWeight, b)
	b.Positive++
	second := reputation.First(reputation.Corroborate, reputation.NoviceWeight, b)
	contra := reputation.First(reputation.Contradict, reputation.NoviceWeight, b)
	fmt.Println(first.Apply, second.Apply, contra.Apply)
	// Output: 0.5 0.25 -0.5
}

// Changing a position withdraws the old contribution and applies the new
// one; the evaluator's weight stays what it was at the first position.
func ExamplePosition_Replace() {
	p := reputation.First(reputation.Corroborate, reputation.NoviceWeight, reputation.Budgets{}).Next
	ch := p.Replace(reputation.UsedSuccessfully, reputation.Budgets{Positive: 1})
	fmt.Println(ch.Compensation, ch.Apply, ch.Next.BaseWeight)
	// Output: -0.5 1 0.5
}

func ExampleNormalizeDomain() {
	fmt.Printf("%q\n", reputation.NormalizeDomain("  Power BI /\tPerformance "))
	// Output: "power bi / performance"
}

func ExampleSummarize() {
	s := reputation.Summarize(
		reputation.Vote{Type: reputation.Corroborate, EffectiveWeight: 500},
		reputation.Vote{Type: reputation.UsedSuccessfully, EffectiveWeight: 1000, Credible: true},
	)
	fmt.Println(s.State, s.PositiveWeight, s.Confidence(500))
	// Output: corroborated 1.5 0.545
}

func ExampleTrust() {
	fmt.Println(reputation.Trust(12_500, 6), reputation.Trust(12_500, 4))
	// Output: trusted observed
}
