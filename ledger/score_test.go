package ledger

import (
	"math"
	"testing"

	"github.com/remnant/passportkit/internal/calendar"
)

// TestWorkedExample reproduces the format's worked figures: shop.example as
// of 2026-10-22 has positive mass 1.674 and negative mass 0.809 from five
// events, a score of 59.6, confidence 61%, and counts as standard.
func TestWorkedExample(t *testing.T) {
	f := load(t, "example.md")
	if len(f.Issues) != 0 {
		t.Fatalf("example has issues: %v", f.Issues)
	}
	s := f.Score("shop.example", day(t, "2026-10-22"))
	checks := []struct {
		name      string
		got, want float64
		places    int
	}{
		{"positive_mass", s.PositiveMass, 1.674, 3},
		{"negative_mass", s.NegativeMass, 0.809, 3},
		{"net", s.PositiveMass - s.NegativeMass, 0.865, 3},
		{"evidence_mass + 2", s.EvidenceMass + 2, 4.484, 3},
		{"score", s.Score, 59.6, 1},
		{"confidence %", s.Confidence * 100, 61, 0},
	}
	for _, c := range checks {
		if got := round(c.got, c.places); got != c.want {
			t.Errorf("%s = %v (%.6f), want %v", c.name, got, c.got, c.want)
		}
	}
	if s.Events != 5 || s.Tier != Standard || s.Unrated || s.SpendLimit != 100 || s.Action != Proceed {
		t.Errorf("events %d tier %s unrated %v spend %v action %s; want 5 standard false 100 proceed", s.Events, s.Tier, s.Unrated, s.SpendLimit, s.Action)
	}
	if s.ByType[Delivered].Events != 2 || s.ByType[Delivered].Amount != 180 || s.ByType[Disputed].Amount != 200 {
		t.Errorf("by_type = %+v", s.ByType)
	}
	if got := s.Decide(150); got.Action != Ask {
		t.Errorf("Decide(150) with a standard limit of 100 = %+v, want ask", got)
	}
	if got := s.Decide(100); got.Action != Proceed {
		t.Errorf("Decide(100) = %+v, want proceed", got)
	}
}

// TestDecayCurveWorkedExample: a score of 82 with evidence mass 6 and 7
// effective events, half-life 90, falls below 75 on day 97.6.
func TestDecayCurveWorkedExample(t *testing.T) {
	c, err := DecayCurve(CurveInput{Score: 82, EvidenceMass: 6, EffectiveEvents: 7, HalfLifeDays: 90, Days: 180})
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Crossings) != 1 {
		t.Fatalf("crossings = %+v, want one", c.Crossings)
	}
	x := c.Crossings[0]
	if x.Line != 75 || x.Direction != "down" || x.Into != Standard || round(x.Day, 1) != 97.6 {
		t.Fatalf("crossing = %+v, want line 75 down into standard on day 97.6", x)
	}
	// The closed form agrees with the curve: just before the day the score
	// is at or above 75, just after it is below.
	st := state{net: 0.64 * 8, mass: 6}
	if s := st.score(factor(x.Day-1e-6, 90)); s < 75 {
		t.Errorf("score just before day %.4f is %.6f, below 75", x.Day, s)
	}
	if s := st.score(factor(x.Day+1e-6, 90)); s >= 75 {
		t.Errorf("score just after day %.4f is %.6f, not below 75", x.Day, s)
	}
	if first, last := c.Points[0], c.Points[len(c.Points)-1]; first.Day != 0 || first.Score != 82 || last.Day != 180 {
		t.Errorf("points run from %+v to %+v", first, last)
	}
	for i := 1; i < len(c.Points); i++ {
		if c.Points[i].Score >= c.Points[i-1].Score {
			t.Fatalf("the curve does not fall: %+v then %+v", c.Points[i-1], c.Points[i])
		}
	}
}

// TestPathToTierShortExample reproduces "shop.example at 67.1 needs 2 more
// delivered events to reach trusted, and with none it falls to 60 on day
// 119.8". The input is the example's last two shop.example events (late on
// 2026-09-21, delivered on 2026-10-03) and one more delivery on 2026-10-20,
// as of 2026-10-22.
func TestPathToTierShortExample(t *testing.T) {
	f := load(t, "short.md")
	sixty := 60.0
	p, err := f.PathToTier("shop.example", day(t, "2026-10-22"), Trusted, Delivered, &sixty)
	if err != nil {
		t.Fatal(err)
	}
	if round(p.Score, 1) != 67.1 || p.Tier != Standard {
		t.Errorf("score %.4f tier %s, want 67.1 standard", p.Score, p.Tier)
	}
	if !p.Reachable || p.Needed != 2 || p.TierAfter != Trusted {
		t.Errorf("reachable %v needed %d tier_after %s, want true 2 trusted", p.Reachable, p.Needed, p.TierAfter)
	}
	if p.Days == nil || round(*p.Days, 1) != 119.8 {
		t.Errorf("days to 60 = %v, want 119.8", p.Days)
	}
	// One delivered event is not enough.
	kw := 1.0
	sc := f.Score("shop.example", day(t, "2026-10-22"))
	if s := 50 + 50*(sc.net+kw)/(sc.mass+kw+2); s >= 75 {
		t.Errorf("one more delivered event already reaches %.2f", s)
	}
}

func TestTierFor(t *testing.T) {
	d := DefaultRules()
	for _, c := range []struct {
		score  float64
		events int
		want   Tier
	}{
		{68, 5, Standard},
		{75, 3, Trusted},
		{74.99, 3, Standard},
		{50, 3, Standard},
		{49.99, 3, Watch},
		{25, 3, Watch},
		{24.99, 3, Blocked},
		{24.99, 0, Blocked}, // below watch is blocked even when unrated
		{90, 2, Unrated},
		{25, 2, Unrated},
	} {
		if got := TierFor(c.score, c.events, d.Tiers, d.MinEvents); got != c.want {
			t.Errorf("TierFor(%v, %d) = %s, want %s", c.score, c.events, got, c.want)
		}
	}
}

func TestBlockedByListAndUnknown(t *testing.T) {
	f := mustParse(t, `## Counterparties

- a.example · store · -
- b.example · store · -

## Events

- 2026-10-01 · a.example · delivered
- 2026-10-02 · a.example · delivered
- 2026-10-03 · a.example · delivered
- 2026-10-03 · c.example · breached · 10

## Rules

- blocked: a.example
`)
	asOf := day(t, "2026-10-10")
	if s := f.Score("a.example", asOf); s.Tier != Blocked || s.BlockedBy != "list" || s.Action != Hold || s.SpendLimit != 0 {
		t.Errorf("a.example: %+v", s)
	}
	if s := f.Score("nobody.example", asOf); s.Tier != Unrated || s.Score != 50 || s.Events != 0 || s.Declared {
		t.Errorf("unknown id: %+v", s)
	}
	if s := f.Score("c.example", asOf); s.Tier != Blocked || s.BlockedBy != "score" {
		t.Errorf("c.example (one breach, score %.1f): tier %s by %q", s.Score, s.Tier, s.BlockedBy)
	}
	rank := f.Rank(asOf)
	var ids []string
	for _, s := range rank {
		ids = append(ids, s.Counterparty+":"+string(s.Tier))
	}
	want := []string{"b.example:unrated", "a.example:blocked", "c.example:blocked"}
	if len(ids) != len(want) {
		t.Fatalf("rank = %v, want %v", ids, want)
	}
	for i := range want {
		if ids[i] != want[i] {
			t.Fatalf("rank = %v, want %v", ids, want)
		}
	}
}

func TestEventsAfterAsOfNotCounted(t *testing.T) {
	f := load(t, "example.md")
	s := f.Score("shop.example", day(t, "2026-09-01"))
	if s.Events != 3 || s.AfterAsOf != 2 {
		t.Fatalf("as of 2026-09-01: events %d, after %d; want 3 and 2", s.Events, s.AfterAsOf)
	}
}

// TestScoreProperties checks the formula's bounds on many random-looking
// event mixes: the score stays in [0, 100], confidence in [0, 1), and with
// no new events the score drifts toward 50.
func TestScoreProperties(t *testing.T) {
	r := DefaultRules()
	asOf := calendar.MustParse("2190-04-10")
	seed := uint64(1)
	next := func(n int) int {
		seed = seed*6364136223846793005 + 1442695040888963407
		return int(seed>>33) % n
	}
	for range 500 {
		var evs []Event
		for range next(20) {
			evs = append(evs, Event{Date: asOf.AddDays(-next(400)), Type: EventTypes[next(len(EventTypes))]})
		}
		s := ScoreEvents("x", evs, r, asOf)
		if !(s.Score >= 0 && s.Score <= 100) || !(s.Confidence >= 0 && s.Confidence < 1) {
			t.Fatalf("score %v confidence %v out of range", s.Score, s.Confidence)
		}
		later := ScoreEvents("x", evs, r, asOf.AddDays(30))
		if math.Abs(later.Score-50) > math.Abs(s.Score-50)+1e-12 {
			t.Fatalf("score moved away from 50 with no new events: %v then %v", s.Score, later.Score)
		}
	}
}
