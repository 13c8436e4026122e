package ledger

import (
	"cmp"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strings"
)

// Neutral is the score of a counterparty with no evidence, and the score
// every counterparty drifts back to as its events age.
const Neutral = 50

// prior is the neutral prior in the score's denominator: a score needs
// evidence mass to move away from [Neutral].
const prior = 2

// Action is what the owner's agent may do with a counterparty in a tier.
type Action string

// The three actions.
const (
	Proceed Action = "proceed" // go ahead up to the spend limit; ask above it
	Ask     Action = "ask"     // ask the person before any dealing
	Hold    Action = "hold"    // hold off: no new dealing until the person lifts it
)

// Score is the reading of one counterparty's events as of a date. Its JSON
// form rounds the figures to the precision the format uses: the score to
// 0.1, confidence to 0.01, masses and contributions to 0.001.
type Score struct {
	Counterparty    string                  `json:"counterparty"`
	AsOf            Date                    `json:"as_of"`
	Score           float64                 `json:"score"`      // 50 + 50 × (positive_mass − negative_mass) / (evidence_mass + 2)
	Tier            Tier                    `json:"tier"`       // see [TierFor]; blocked also when the id is on the blocked list
	Confidence      float64                 `json:"confidence"` // effective_events / (effective_events + 2)
	Events          int                     `json:"events"`     // events counted: those dated on or before as_of
	EffectiveEvents float64                 `json:"effective_events"`
	PositiveMass    float64                 `json:"positive_mass"`
	NegativeMass    float64                 `json:"negative_mass"`
	EvidenceMass    float64                 `json:"evidence_mass"`
	ByType          map[EventType]TypeTotal `json:"by_type"`     // only the types that occur
	SpendLimit      float64                 `json:"spend_limit"` // what may be paid per task without asking; 0 unless trusted or standard
	Action          Action                  `json:"action"`
	Unrated         bool                    `json:"unrated"`              // fewer events than min_events
	BlockedBy       string                  `json:"blocked_by,omitempty"` // "list" or "score" when the tier is blocked
	Declared        bool                    `json:"declared"`             // declared in the Counterparties section
	NewestEvent     Date                    `json:"newest_event,omitzero"`
	Stale           bool                    `json:"stale"`       // the newest event is older than review_days
	AfterAsOf       int                     `json:"after_as_of"` // events dated after as_of, not counted
	Formula         string                  `json:"formula"`
	Task            *Task                   `json:"task,omitempty"` // set by the caller from [Score.Decide]

	net, mass float64 // exact positive − negative and evidence mass, for decay and paths
	rules     Rules
}

// TypeTotal is what the events of one type contributed to a score.
type TypeTotal struct {
	Events       int     `json:"events"`
	Weight       float64 `json:"weight"`       // points per event of this type
	Contribution float64 `json:"contribution"` // the sum of weight × decay
	Amount       float64 `json:"amount"`       // the sum of the recorded amounts, which do not weigh in the score
}

// MarshalJSON writes s with its figures rounded; see [Score].
func (s Score) MarshalJSON() ([]byte, error) {
	type plain Score
	p := plain(s)
	p.Score = round(p.Score, 1)
	p.Confidence = round(p.Confidence, 2)
	p.EffectiveEvents = round(p.EffectiveEvents, 3)
	p.PositiveMass = round(p.PositiveMass, 3)
	p.NegativeMass = round(p.NegativeMass, 3)
	p.EvidenceMass = round(p.EvidenceMass, 3)
	p.ByType = make(map[EventType]TypeTotal, len(s.ByType))
	for t, tt := range s.ByType {
		tt.Contribution = round(tt.Contribution, 3)
		tt.Amount = round(tt.Amount, 6)
		p.ByType[t] = tt
	}
	return json.Marshal(p)
}

// round rounds x to places decimals, leaving x as it is where it is too
// large for the rounding to be exact.
func round(x float64, places int) float64 {
	p := math.Pow10(places)
	if math.Abs(x*p) >= 1<<52 {
		return x
	}
	r := math.Round(x*p) / p
	if r == 0 {
		return 0 // no negative zero
	}
	return r
}

// TierFor returns the tier for a score and a count of events under the
// given tier minimums: blocked below the watch minimum, else unrated with
// fewer than minEvents events, else trusted, standard or watch by the
// minimums. A block by the person's list is the caller's to apply.
func TierFor(score float64, events int, tiers Tiers, minEvents int) Tier {
	switch {
	case score < tiers.Watch:
		return Blocked
	case events < minEvents:
		return Unrated
	case score >= tiers.Trusted:
		return Trusted
	case score >= tiers.Standard:
		return Standard
	}
	return Watch
}

// SpendLimit returns what tier may be paid per task without asking under
// spend: the tier's limit for trusted and standard, 0 otherwise.
func SpendLimit(tier Tier, spend Spend) float64 {
	switch tier {
	case Trusted:
		return spend.Trusted
	case Standard:
		return spend.Standard
	}
	return 0
}

// ActionFor returns what a tier allows: proceed for trusted and standard,
// ask for watch and unrated, hold for blocked.
func ActionFor(tier Tier) Action {
	switch tier {
	case Trusted, Standard:
		return Proceed
	case Blocked:
		return Hold
	}
	return Ask
}

// Task is the decision for one task of a given amount.
type Task struct {
	Amount float64 `json:"amount"`
	Action Action  `json:"action"`
	Why    string  `json:"why"`
}

// Decide returns the action for a task of the given amount: proceed only
// when the tier allows it and the amount is within the tier's spend limit.
func (s Score) Decide(amount float64) Task {
	t := Task{Amount: amount, Action: s.Action}
	switch {
	case s.Tier == Blocked && s.BlockedBy == "list":
		t.Why = "the id is on the blocked list: hold off until the person lifts it"
	case s.Tier == Blocked:
		t.Why = fmt.Sprintf("the score is below the watch minimum %s: hold off", num(s.rules.Tiers.Watch))
	case s.Tier == Unrated:
		t.Why = fmt.Sprintf("%d events, fewer than min_events %d: ask the person first", s.Events, s.rules.MinEvents)
	case s.Tier == Watch:
		t.Why = "watch: ask the person first"
	case amount > s.SpendLimit:
		t.Action = Ask
		t.Why = fmt.Sprintf("%s is above the %s limit of %s per task: ask the person first", num(amount), s.Tier, num(s.SpendLimit))
	default:
		t.Why = fmt.Sprintf("%s is within the %s limit of %s per task: go ahead", num(amount), s.Tier, num(s.SpendLimit))
	}
	return t
}

// tally accumulates one counterparty's events.
type tally struct {
	pos, neg, eff float64
	n, after      int
	newest        Date
	byType        [8]TypeTotal
}

func (t *tally) add(e *Event, r *Rules, asOf Date) {
	age := asOf.Sub(e.Date)
	if age < 0 {
		t.after++
		return
	}
	i := e.Type.index()
	if i < 0 {
		return
	}
	w := r.Weights.Of(e.Type)
	d := math.Exp2(-float64(age) / r.HalfLifeDays)
	c := w * d
	if c > 0 {
		t.pos += c
	} else {
		t.neg -= c
	}
	t.eff += d
	t.n++
	if e.Date.After(t.newest) {
		t.newest = e.Date
	}
	tt := &t.byType[i]
	tt.Events++
	tt.Contribution += c
	if e.Amount != nil {
		tt.Amount += *e.Amount
	}
}

func (t *tally) score(id string, declared bool, r *Rules, asOf Date) Score {
	mass := t.pos + t.neg
	s := Score{
		Counterparty:    id,
		AsOf:            asOf,
		Score:           Neutral + Neutral*(t.pos-t.neg)/(mass+prior),
		Confidence:      t.eff / (t.eff + prior),
		Events:          t.n,
		EffectiveEvents: t.eff,
		PositiveMass:    t.pos,
		NegativeMass:    t.neg,
		EvidenceMass:    mass,
		ByType:          map[EventType]TypeTotal{},
		Declared:        declared,
		NewestEvent:     t.newest,
		AfterAsOf:       t.after,
		net:             t.pos - t.neg,
		mass:            mass,
		rules:           *r,
	}
	for i, tt := range t.byType {
		if tt.Events > 0 {
			tt.Weight = r.Weights.Of(EventTypes[i])
			s.ByType[EventTypes[i]] = tt
		}
	}
	s.Stale = t.n > 0 && asOf.Sub(t.newest) > r.ReviewDays
	s.Unrated = t.n < r.MinEvents
	s.Tier = TierFor(s.Score, t.n, r.Tiers, r.MinEvents)
	switch {
	case slices.Contains(r.Blocked, id):
		s.Tier, s.BlockedBy = Blocked, "list"
	case s.Tier == Blocked:
		s.BlockedBy = "score"
	}
	s.SpendLimit = SpendLimit(s.Tier, r.SpendPerTask)
	s.Action = ActionFor(s.Tier)
	s.Formula = fmt.Sprintf("50 + 50 × (%.3f − %.3f) / (%.3f + 2) = %.1f", t.pos, t.neg, mass, s.Score)
	return s
}

// declares reports whether id is declared in the Counterparties section.
func (f *File) declares(id string) bool {
	return slices.ContainsFunc(f.Counterparties, func(c Counterparty) bool { return c.ID == id })
}

// declaredIDs returns the set of declared ids.
func (f *File) declaredIDs() map[string]bool {
	m := make(map[string]bool, len(f.Counterparties))
	for _, c := range f.Counterparties {
		m[c.ID] = true
	}
	return m
}

// Score reads the events of counterparty id as of asOf under the file's
// rules. Events dated after asOf are not counted. An id with no events,
// declared or not, scores 50 and is unrated.
func (f *File) Score(id string, asOf Date) Score {
	var t tally
	for i := range f.Events {
		if f.Events[i].Counterparty == id {
			t.add(&f.Events[i], &f.Rules, asOf)
		}
	}
	return t.score(id, f.declares(id), &f.Rules, asOf)
}

// ScoreEvents scores events as the events of counterparty id, whatever
// their own Counterparty field says, under rules, as of asOf.
func ScoreEvents(id string, events []Event, rules Rules, asOf Date) Score {
	var t tally
	for i := range events {
		t.add(&events[i], &rules, asOf)
	}
	return t.score(id, false, &rules, asOf)
}

// Rank scores every counterparty the file names, declared or only seen in
// events, and orders them by tier (trusted first, blocked last), then by
// score, highest first, then by id.
func (f *File) Rank(asOf Date) []Score {
	declared := f.declaredIDs()
	index := make(map[string]int, len(f.Counterparties))
	var ids []string
	tallies := make([]tally, 0, len(f.Counterparties))
	at := func(id string) *tally {
		i, ok := index[id]
		if !ok {
			i = len(tallies)
			index[id] = i
			ids = append(ids, id)
			tallies = append(tallies, tally{})
		}
		return &tallies[i]
	}
	for _, c := range f.Counterparties {
		at(c.ID)
	}
	for i := range f.Events {
		at(f.Events[i].Counterparty).add(&f.Events[i], &f.Rules, asOf)
	}
	out := make([]Score, len(ids))
	for i, id := range ids {
		out[i] = tallies[i].score(id, declared[id], &f.Rules, asOf)
	}
	slices.SortFunc(out, func(a, b Score) int {
		if c := cmp.Compare(b.Tier.Rank(), a.Tier.Rank()); c != 0 {
			return c
		}
		if c := cmp.Compare(b.Score, a.Score); c != 0 {
			return c
		}
		return strings.Compare(a.Counterparty, b.Counterparty)
	})
	return out
}
