package ledger_test

import (
	"fmt"

	"github.com/remnant/passportkit/ledger"
)

func Example() {
	f, err := ledger.Parse([]byte(`---
reputation: 1
owner: agent:buyer-7
updated: 2026-10-22
---

## Counterparties

- shop.example · store · parts, tools

## Events

- 2026-06-30 · shop.example · disputed · 200 · order 402 short by two items
- 2026-07-14 · shop.example · resolved · 200 · missing items sent
- 2026-08-12 · shop.example · delivered · 60
- 2026-09-21 · shop.example · late · 80 · order 437, two days late
- 2026-10-03 · shop.example · delivered · 120 · order 441 on time
`))
	if err != nil {
		panic(err)
	}
	asOf, _ := ledger.ParseDate("2026-10-22")
	s := f.Score("shop.example", asOf)
	fmt.Printf("%s: %.1f, %s, confidence %.0f%%, up to %v per task without asking\n",
		s.Counterparty, s.Score, s.Tier, 100*s.Confidence, s.SpendLimit)
	fmt.Println("a task of 150:", s.Decide(150).Why)
	// Output:
	// shop.example: 59.6, standard, confidence 61%, up to 100 per task without asking
	// a task of 150: 150 is above the standard limit of 100 per task: ask the person first
}

func ExampleDecayCurve() {
	c, err := ledger.DecayCurve(ledger.CurveInput{Score: 82, EvidenceMass: 6, EffectiveEvents: 7, HalfLifeDays: 90, Days: 180})
	if err != nil {
		panic(err)
	}
	for _, x := range c.Crossings {
		fmt.Printf("below %v (leaving %s) on day %.1f\n", x.Line, x.Tier, x.Day)
	}
	// Output:
	// below 75 (leaving trusted) on day 97.6
}
