package service

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/remnant/passportkit/issuer"
	"github.com/remnant/passportkit/reputation"
)

// planner decides the writes of one validation from what was read. It
// keeps the figures current as several positions change in one
// submission, and writes each changed row once, with its final value.
type planner struct {
	s       *Service
	st      *ValidationState
	p       issuer.Principal
	f       issuer.Feedback
	via     issuer.Transport
	receipt int64 // the owning consultation, 0 for direct feedback
	now     time.Time
	plan    *ValidationPlan

	// Which rows changed, in first-change order.
	authors       []int64
	domains       []AuthorDomain
	positive      []int64
	negative      []int64
	domainCounts  []AuthorDomain
	globalCounts  []int64
	authorSeen    map[int64]bool
	domainSeen    map[AuthorDomain]bool
	positiveSeen  map[int64]bool
	negativeSeen  map[int64]bool
	dCountSeen    map[AuthorDomain]bool
	gCountSeen    map[int64]bool
	summaryByMemo map[int64]int
}

func (s *Service) newPlanner(st *ValidationState, p issuer.Principal, f issuer.Feedback, via issuer.Transport, receipt int64) *planner {
	now := s.timestamp()
	return &planner{
		s: s, st: st, p: p, f: f, via: via, receipt: receipt, now: now,
		plan:       &ValidationPlan{Evaluator: p.Key, Now: now},
		authorSeen: map[int64]bool{}, domainSeen: map[AuthorDomain]bool{},
		positiveSeen: map[int64]bool{}, negativeSeen: map[int64]bool{},
		dCountSeen: map[AuthorDomain]bool{}, gCountSeen: map[int64]bool{},
		summaryByMemo: map[int64]int{},
	}
}

// outcome is the resulting position and the memory's summary.
type outcome struct {
	ref     issuer.ValidationRef
	summary reputation.Summary
	change  string
}

// apply records the evaluator's validation of m: nothing for an exact
// repeat, a detail revision for the same type, or a change of position.
func (pl *planner) apply(m *Target) (outcome, error) {
	f := pl.f
	cur := m.Current
	if cur != nil && cur.Ref.Type == f.Type {
		if cur.Receipt == pl.receipt && cur.Reason == f.Reason && cur.Verdict == f.Verdict && cur.Evidence == f.Evidence {
			return outcome{ref: cur.Ref, summary: m.Summary}, nil
		}
		// Same type: a new revision of the details, without any reputation
		// effect, sample or evidence timestamp.
		ref := cur.Ref
		ref.Revision++
		pl.countDirect(cur)
		pl.plan.Positions = append(pl.plan.Positions, PositionWrite{
			Key: cur.Key, Ref: ref, Memory: m.Key, Author: m.Author, Domain: m.Domain, Change: ChangeDetail,
			Verdict: f.Verdict, Reason: f.Reason, Evidence: f.Evidence, EvidenceFactor: pl.s.evidence.Of(f.Evidence), Receipt: pl.receipt, Via: pl.via, Weight: cur.Position.EffectiveWeight,
		})
		pl.setCurrent(m, cur.Key, ref, nil)
		return outcome{ref: ref, summary: m.Summary, change: ChangeDetail}, nil
	}

	// A first position or a change of type.
	var prev *reputation.Position
	if cur != nil {
		p := cur.Position
		prev = &p
	}
	budgets := pl.drawBudget(m.Author, prev, f.Type)
	var ch reputation.Change
	if prev == nil {
		credit := pl.st.EvaluatorCredit[m.Domain]
		ch = reputation.First(f.Type, reputation.EvaluatorWeight(credit[0], credit[1]), budgets)
	} else {
		ch = prev.Replace(f.Type, budgets)
	}
	next := ch.Next

	var ref issuer.ValidationRef
	var key int64
	if cur == nil {
		vid, err := issuer.NewValidationID(pl.s.rand)
		if err != nil {
			return outcome{}, err
		}
		ref = issuer.ValidationRef{ID: vid, Type: f.Type, Revision: 1}
	} else {
		key, ref = cur.Key, cur.Ref
		ref.Type = f.Type
		ref.Revision++
	}
	var events []JournalEntry
	if ch.Compensation != 0 {
		events = append(events, entry(reputation.PhaseCompensation, prev, ch.Compensation))
	}
	events = append(events, entry(reputation.PhaseApply, &next, ch.Apply))
	pl.countDirect(cur)
	pl.plan.Positions = append(pl.plan.Positions, PositionWrite{
		Key: key, Ref: ref, Memory: m.Key, Author: m.Author, Domain: m.Domain, Change: ChangePosition,
		Verdict: f.Verdict, Reason: f.Reason, Evidence: f.Evidence, EvidenceFactor: pl.s.evidence.Of(f.Evidence), Receipt: pl.receipt, Via: pl.via, Weight: next.EffectiveWeight,
		Position: &next, Events: events,
	})
	pl.moveAggregates(m.Author, m.Domain, prev, &next)

	// The memory's knowledge summary follows the same change.
	sum := m.Summary
	if prev != nil {
		sum.Remove(prev.Vote())
	}
	sum.Add(next.Vote())
	m.Summary = sum
	evidence := next.Weighted() || prev != nil && prev.Weighted()
	w := SummaryWrite{Memory: m.Key, Summary: sum, Confidence: sum.Confidence(m.BaseConfidence), Evidence: evidence}
	if i, ok := pl.summaryByMemo[m.Key]; ok {
		w.Evidence = w.Evidence || pl.plan.Summaries[i].Evidence
		pl.plan.Summaries[i] = w
	} else {
		pl.summaryByMemo[m.Key] = len(pl.plan.Summaries)
		pl.plan.Summaries = append(pl.plan.Summaries, w)
	}
	pl.setCurrent(m, key, ref, &next)
	return outcome{ref: ref, summary: sum, change: ChangePosition}, nil
}

// countDirect counts a direct write to a position that no direct feedback
// had set before as feedback given.
func (pl *planner) countDirect(cur *CurrentPosition) {
	if pl.receipt == 0 && (cur == nil || !cur.Direct) {
		pl.plan.FeedbackGiven++
	}
}

// setCurrent keeps m's current position in step with the plan.
func (pl *planner) setCurrent(m *Target, key int64, ref issuer.ValidationRef, next *reputation.Position) {
	c := &CurrentPosition{Key: key, Ref: ref, Verdict: pl.f.Verdict, Reason: pl.f.Reason, Evidence: pl.f.Evidence, Receipt: pl.receipt, Direct: pl.receipt == 0}
	if m.Current != nil {
		c.Position = m.Current.Position
		c.Direct = c.Direct || m.Current.Direct
	}
	if next != nil {
		c.Position = *next
	}
	m.Current = c
}

// entry is the journal entry of p's contribution.
func entry(phase reputation.Phase, p *reputation.Position, delta reputation.Milli) JournalEntry {
	factor := p.NegativeFactor
	if p.Type.Polarity() == reputation.Positive {
		factor = p.PositiveFactor
	}
	return JournalEntry{Phase: phase, Type: p.Type, Points: p.Type.Points(), BaseWeight: p.BaseWeight,
		PairFactor: factor, Weight: p.EffectiveWeight, Delta: delta}
}

// drawBudget takes the next rank in the budget the new type's polarity
// draws on, when the position holds no rank there yet, and returns the
// budget sizes before the draw. Positive budgets belong to the unordered
// pair; negative budgets to the (author, evaluator) direction.
func (pl *planner) drawBudget(author int64, prev *reputation.Position, t reputation.Type) reputation.Budgets {
	var b reputation.Budgets
	switch {
	case t.Polarity() == reputation.Positive && (prev == nil || !prev.PositiveRanked):
		b.Positive = pl.st.PositivePairs[author]
		pl.st.PositivePairs[author] = b.Positive + 1
		mark(&pl.positive, pl.positiveSeen, author)
	case t.Polarity() == reputation.Negative && (prev == nil || !prev.NegativeRanked):
		b.Negative = pl.st.NegativePairs[author]
		pl.st.NegativePairs[author] = b.Negative + 1
		mark(&pl.negative, pl.negativeSeen, author)
	}
	return b
}

// moveAggregates applies one position change to the author's domain and
// global aggregates and to the evaluator's counts towards the author.
func (pl *planner) moveAggregates(author int64, domain string, prev, next *reputation.Position) {
	ad := AuthorDomain{author, domain}
	da, held := pl.st.Domains[ad].Move(prev, next, pl.st.DomainCounts[ad])
	pl.st.Domains[ad] = da
	mark(&pl.domains, pl.domainSeen, ad)
	if held != pl.st.DomainCounts[ad] {
		pl.st.DomainCounts[ad] = held
		mark(&pl.domainCounts, pl.dCountSeen, ad)
	}

	ga, held := pl.st.Authors[author].Move(prev, next, pl.st.GlobalCounts[author])
	pl.st.Authors[author] = ga
	mark(&pl.authors, pl.authorSeen, author)
	if held != pl.st.GlobalCounts[author] {
		pl.st.GlobalCounts[author] = held
		mark(&pl.globalCounts, pl.gCountSeen, author)
	}
}

func mark[K comparable](order *[]K, seen map[K]bool, k K) {
	if !seen[k] {
		seen[k] = true
		*order = append(*order, k)
	}
}

// finish completes the plan: the final figures of every changed row, and
// the idempotency record with res as the response.
func (pl *planner) finish(target string, res any) error {
	st, plan := pl.st, pl.plan
	for _, a := range pl.authors {
		plan.Authors = append(plan.Authors, AuthorWrite{Author: a, Aggregate: st.Authors[a]})
	}
	for _, d := range pl.domains {
		plan.Domains = append(plan.Domains, DomainWrite{AuthorDomain: d, Aggregate: st.Domains[d]})
	}
	for _, a := range pl.positive {
		plan.PositivePairs = append(plan.PositivePairs, CountWrite{Author: a, N: st.PositivePairs[a]})
	}
	for _, a := range pl.negative {
		plan.NegativePairs = append(plan.NegativePairs, CountWrite{Author: a, N: st.NegativePairs[a]})
	}
	for _, d := range pl.domainCounts {
		plan.DomainCounts = append(plan.DomainCounts, DomainCountWrite{AuthorDomain: d, N: st.DomainCounts[d]})
	}
	for _, a := range pl.globalCounts {
		plan.GlobalCounts = append(plan.GlobalCounts, CountWrite{Author: a, N: st.GlobalCounts[a]})
	}
	if pl.f.IdempotencyKey != "" {
		b, err := json.Marshal(res)
		if err != nil {
			return fmt.Errorf("service: encode response: %w", err)
		}
		plan.Idempotency = &IdempotencyWrite{Key: pl.f.IdempotencyKey, Fingerprint: pl.f.Fingerprint(target), Response: b}
	}
	return nil
}
