package ledger

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
)

// NeutralBand is how close to [Neutral] a score must come to count as back
// to neutral: within half a point, so that it reads 50 when rounded to a
// whole number. A score never reaches 50 exactly by decay alone.
const NeutralBand = 0.5

// MaxCurveDays bounds the days a decay curve traces.
const MaxCurveDays = 3650

// MaxNeeded bounds the events [File.PathToTier] will count; a tier further
// away than this is reported unreachable.
const MaxNeeded = 100_000

// ErrBadCurve is wrapped by [DecayCurve] for inputs no score could have.
var ErrBadCurve = errors.New("ledger: bad decay curve input")

// ErrBadPath is wrapped by [File.PathToTier] for a target or event type it
// cannot plan for.
var ErrBadPath = errors.New("ledger: bad path-to-tier input")

// state is a score's evidence: net = positive − negative mass, mass =
// positive + negative mass, eff = effective events. With no new events,
// all three scale by the same decay factor.
type state struct{ net, mass, eff float64 }

func (s state) score(f float64) float64 { return Neutral + Neutral*s.net*f/(s.mass*f+prior) }

// factor is the decay after t days with half-life h.
func factor(t, h float64) float64 { return math.Exp2(-t / h) }

// daysTo returns the days until the score, decaying with no new events,
// reaches line, and false when it never does. A score above neutral falls
// toward it and a score below rises: the line must lie between the score
// (inclusive) and neutral (exclusive).
func (s state) daysTo(line, h float64) (float64, bool) {
	s0 := s.score(1)
	k := (line - Neutral) / Neutral
	if !((line > Neutral && s0 >= line) || (line < Neutral && s0 <= line)) {
		return 0, false
	}
	// Solve 50 + 50·net·f/(mass·f + 2) = line for f = 0.5^(t/h).
	t := h * math.Log2((s.net-k*s.mass)/(prior*k))
	if t < 0 || math.IsNaN(t) {
		t = 0
	}
	return t, true
}

// daysToNeutral returns the days until the score is within [NeutralBand]
// of neutral.
func (s state) daysToNeutral(h float64) float64 {
	s0 := s.score(1)
	line := Neutral + NeutralBand
	if s0 < Neutral {
		line = Neutral - NeutralBand
	}
	t, ok := s.daysTo(line, h)
	if !ok {
		return 0
	}
	return t
}

// CurveInput describes a score to trace forward with no new events.
type CurveInput struct {
	Score           float64 // the score now, 0 to 100
	EvidenceMass    float64 // positive plus negative mass now
	EffectiveEvents float64 // the sum of the decays now
	HalfLifeDays    float64 // 0 means the default, 90
	Days            int     // how far to trace; 0 means 180
	Step            int     // days between points; 0 picks about 30 points
	Tiers           Tiers   // the zero value means the default tiers
}

// Curve is a score traced forward with no new events.
type Curve struct {
	Score           float64      `json:"score"`
	EvidenceMass    float64      `json:"evidence_mass"`
	EffectiveEvents float64      `json:"effective_events"`
	HalfLifeDays    float64      `json:"half_life_days"`
	Days            int          `json:"days"`
	Points          []CurvePoint `json:"points"`
	Crossings       []Crossing   `json:"crossings"` // every tier line the score will cross, even after Days
	DaysToNeutral   float64      `json:"days_to_neutral"`
	Formula         string       `json:"formula"`
}

// CurvePoint is the score on one day of a [Curve]. Its tier is read from
// the score alone, as though the counterparty had enough events to be rated.
type CurvePoint struct {
	Day        int     `json:"day"`
	Score      float64 `json:"score"`
	Confidence float64 `json:"confidence"`
	Tier       Tier    `json:"tier"`
}

// Crossing is the day a decaying score crosses a tier line.
type Crossing struct {
	Line      float64 `json:"line"`      // the tier minimum crossed
	Tier      Tier    `json:"tier"`      // the tier whose minimum it is
	Direction string  `json:"direction"` // "down" (leaving the tier) or "up" (entering it)
	Day       float64 `json:"day"`       // days from now, fractional
	Into      Tier    `json:"into"`      // the tier by score after the crossing
}

// DecayCurve traces a score with no new events: each day every event's
// decay shrinks by the same factor, so the evidence mass and the effective
// events shrink with it and the score drifts back toward 50. It returns
// points every Step days, and the exact day the score crosses each tier
// line.
func DecayCurve(in CurveInput) (Curve, error) {
	d := DefaultRules()
	if in.HalfLifeDays == 0 {
		in.HalfLifeDays = d.HalfLifeDays
	}
	if in.Days == 0 {
		in.Days = 180
	}
	if in.Tiers == (Tiers{}) {
		in.Tiers = d.Tiers
	}
	if in.Step == 0 {
		in.Step = max(1, (in.Days+29)/30)
	}
	switch {
	case !(in.Score >= 0 && in.Score <= 100):
		return Curve{}, fmt.Errorf("%w: score %s is outside 0 to 100", ErrBadCurve, num(in.Score))
	case !(in.EvidenceMass >= 0 && in.EvidenceMass < 1e9):
		return Curve{}, fmt.Errorf("%w: evidence_mass %s must be at least 0", ErrBadCurve, num(in.EvidenceMass))
	case !(in.EffectiveEvents >= 0 && in.EffectiveEvents < 1e9):
		return Curve{}, fmt.Errorf("%w: effective_events %s must be at least 0", ErrBadCurve, num(in.EffectiveEvents))
	case !(in.HalfLifeDays >= MinHalfLifeDays && in.HalfLifeDays <= MaxHalfLifeDays):
		return Curve{}, fmt.Errorf("%w: half_life_days %s is outside %d to %d", ErrBadCurve, num(in.HalfLifeDays), MinHalfLifeDays, MaxHalfLifeDays)
	case in.Days < 0 || in.Days > MaxCurveDays:
		return Curve{}, fmt.Errorf("%w: days %d is outside 0 to %d", ErrBadCurve, in.Days, MaxCurveDays)
	case in.Step < 1:
		return Curve{}, fmt.Errorf("%w: step %d must be at least 1", ErrBadCurve, in.Step)
	}
	if err := in.Tiers.Validate(); err != nil {
		return Curve{}, fmt.Errorf("%w: %v", ErrBadCurve, err)
	}
	st := state{net: (in.Score - Neutral) / Neutral * (in.EvidenceMass + prior), mass: in.EvidenceMass, eff: in.EffectiveEvents}
	// |net| can be at most mass: a score needs that much mass to be that far from 50.
	if math.Abs(st.net) > st.mass*(1+1e-9)+1e-9 {
		need := math.Abs(in.Score-Neutral) * prior / (Neutral - math.Abs(in.Score-Neutral))
		return Curve{}, fmt.Errorf("%w: a score of %s needs an evidence mass of at least %.3f, not %s", ErrBadCurve, num(in.Score), need, num(in.EvidenceMass))
	}
	c := Curve{
		Score: in.Score, EvidenceMass: in.EvidenceMass, EffectiveEvents: in.EffectiveEvents,
		HalfLifeDays: in.HalfLifeDays, Days: in.Days,
		Crossings:     st.crossings(in.HalfLifeDays, in.Tiers),
		DaysToNeutral: st.daysToNeutral(in.HalfLifeDays),
		Formula: fmt.Sprintf("score(t) = 50 + 50 × %.3f × f / (%.3f × f + 2), f = 0.5^(t / %s)",
			st.net, st.mass, num(in.HalfLifeDays)),
	}
	for day := 0; ; day += in.Step {
		if day > in.Days {
			day = in.Days
		}
		f := factor(float64(day), in.HalfLifeDays)
		s := st.score(f)
		c.Points = append(c.Points, CurvePoint{
			Day: day, Score: s, Confidence: st.eff * f / (st.eff*f + prior),
			Tier: TierFor(s, math.MaxInt, in.Tiers, 0),
		})
		if day == in.Days {
			break
		}
	}
	return c, nil
}

// crossings returns the tier lines the decaying score crosses, in order.
func (s state) crossings(h float64, tiers Tiers) []Crossing {
	out := []Crossing{}
	for _, tier := range []Tier{Trusted, Standard, Watch} {
		line, _ := tiers.line(tier)
		t, ok := s.daysTo(line, h)
		if !ok {
			continue
		}
		c := Crossing{Line: line, Tier: tier, Day: t}
		if line > Neutral {
			c.Direction = "down"
			c.Into = TierFor(math.Nextafter(line, 0), math.MaxInt, tiers, 0)
		} else {
			c.Direction = "up"
			c.Into = tier
		}
		out = append(out, c)
	}
	return out
}

// Path is how far one counterparty is from a tier: the fewest events of
// one type, dated as_of, that would lift it into the target tier, and the
// days without new events until its score decays to a threshold and back
// to neutral. It is a distance, not a plan.
type Path struct {
	Counterparty  string    `json:"counterparty"`
	AsOf          Date      `json:"as_of"`
	Score         float64   `json:"score"`
	Tier          Tier      `json:"tier"`
	Events        int       `json:"events"`
	Target        Tier      `json:"target"`
	Type          EventType `json:"type"`
	Reachable     bool      `json:"reachable"`
	Reason        string    `json:"reason,omitempty"` // why not, when not reachable
	Needed        int       `json:"needed"`           // events of Type; 0 when already there
	ScoreAfter    float64   `json:"score_after"`      // the score with Needed more events
	TierAfter     Tier      `json:"tier_after"`
	Threshold     *float64  `json:"threshold"`       // the score Days counts down (or up) to; null when none applies
	Days          *float64  `json:"days"`            // days until the score reaches Threshold; null when it never does
	DaysToNeutral float64   `json:"days_to_neutral"` // days until the score is within 0.5 of 50
	Formula       string    `json:"formula"`
}

// MarshalJSON writes p with scores and days rounded to 0.1.
func (p Path) MarshalJSON() ([]byte, error) {
	type plain Path
	q := plain(p)
	q.Score, q.ScoreAfter, q.DaysToNeutral = round(q.Score, 1), round(q.ScoreAfter, 1), round(q.DaysToNeutral, 1)
	if q.Days != nil {
		d := round(*q.Days, 1)
		q.Days = &d
	}
	return json.Marshal(q)
}

// MarshalJSON writes c with scores and days rounded to 0.1, masses to
// 0.001 and confidence to 0.01.
func (c Curve) MarshalJSON() ([]byte, error) {
	type plain Curve
	q := plain(c)
	q.DaysToNeutral = round(q.DaysToNeutral, 1)
	q.Points = make([]CurvePoint, len(c.Points))
	for i, p := range c.Points {
		p.Score, p.Confidence = round(p.Score, 1), round(p.Confidence, 2)
		q.Points[i] = p
	}
	q.Crossings = make([]Crossing, len(c.Crossings))
	for i, x := range c.Crossings {
		x.Day = round(x.Day, 1)
		q.Crossings[i] = x
	}
	return json.Marshal(q)
}

// PathToTier finds the fewest events of type typ, dated asOf, that would
// lift counterparty id into target (trusted, standard or watch), and the
// days with no new events until its score reaches threshold (nil picks the
// tier line the score will cross first, if any) and neutral.
func (f *File) PathToTier(id string, asOf Date, target Tier, typ EventType, threshold *float64) (Path, error) {
	if target != Trusted && target != Standard && target != Watch {
		return Path{}, fmt.Errorf("%w: target %q must be trusted, standard or watch", ErrBadPath, target)
	}
	if typ.index() < 0 {
		return Path{}, fmt.Errorf("%w: %q is not an event type", ErrBadPath, typ)
	}
	w := f.Rules.Weights.Of(typ)
	if w <= 0 {
		return Path{}, fmt.Errorf("%w: %s has weight %s; only a type that counts for a counterparty can lift it", ErrBadPath, typ, num(w))
	}
	if threshold != nil && !(*threshold >= 0 && *threshold <= 100) {
		return Path{}, fmt.Errorf("%w: threshold %s is outside 0 to 100", ErrBadPath, num(*threshold))
	}
	sc := f.Score(id, asOf)
	r := f.Rules
	st := state{net: sc.net, mass: sc.mass, eff: sc.EffectiveEvents}
	p := Path{
		Counterparty: id, AsOf: asOf, Score: sc.Score, Tier: sc.Tier, Events: sc.Events,
		Target: target, Type: typ, ScoreAfter: sc.Score, TierAfter: sc.Tier,
		DaysToNeutral: st.daysToNeutral(r.HalfLifeDays),
	}
	line, _ := r.Tiers.line(target)
	K := (line - Neutral) / Neutral
	p.Formula = fmt.Sprintf("needed = the least k ≥ max(0, min_events − events) with 50 + 50 × (%.3f + k × %s) / (%.3f + k × %s + 2) ≥ %s",
		st.net, num(w), st.mass, num(w), num(line))
	// after returns the score and tier with k more events of weight w dated asOf.
	after := func(k int) (float64, Tier) {
		kw := float64(k) * w
		s := Neutral + Neutral*(st.net+kw)/(st.mass+kw+prior)
		return s, TierFor(s, sc.Events+k, r.Tiers, r.MinEvents)
	}
	reached := func(k int) bool { _, t := after(k); return t.Rank() >= target.Rank() }
	switch {
	case sc.BlockedBy == "list":
		p.Reason = "the id is on the blocked list; only the person can lift that"
	case line >= 100:
		p.Reason = fmt.Sprintf("the %s minimum is %s and a score stays below 100", target, num(line))
	default:
		k := max(0, r.MinEvents-sc.Events)
		if n := math.Ceil((K*(st.mass+prior) - st.net) / (w * (1 - K))); n > float64(k) {
			k = int(min(n, MaxNeeded+1))
		}
		for k > 0 && reached(k-1) {
			k--
		}
		for k <= MaxNeeded && !reached(k) {
			k++
		}
		if k > MaxNeeded {
			p.Reason = fmt.Sprintf("more than %d events would be needed", MaxNeeded)
			break
		}
		p.Reachable, p.Needed = true, k
		p.ScoreAfter, p.TierAfter = after(k)
	}
	if threshold == nil {
		if cs := st.crossings(r.HalfLifeDays, r.Tiers); len(cs) > 0 {
			threshold = &cs[0].Line
		}
	}
	if threshold != nil {
		v := *threshold
		p.Threshold = &v
		if t, ok := st.daysTo(v, r.HalfLifeDays); ok {
			p.Days = &t
		}
	}
	return p, nil
}
