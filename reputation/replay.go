package reputation

// Phase is the kind of a journal entry.
type Phase string

// The journal phases.
const (
	// PhaseApply records the contribution of a newly recorded position.
	PhaseApply Phase = "apply"
	// PhaseCompensation withdraws the previous contribution of a position
	// that was replaced.
	PhaseCompensation Phase = "compensation"
	// PhaseBaseline carries a score brought over from before this policy,
	// attributed to no validation.
	PhaseBaseline Phase = "baseline"
)

// Entry is one reputation journal entry about an author, as a rebuild reads
// it. Memory and Evaluator are opaque keys; Weight is the effective weight
// the entry was recorded with.
type Entry struct {
	Phase     Phase
	Memory    int64
	Evaluator int64
	Domain    string
	Type      Type
	Weight    Milli
	Delta     Milli
}

// Replay rebuilds an author's aggregates from its journal, in journal order.
// Raw scores are the sums of the recorded deltas; the evaluator samples and
// evidence counts come from the position each apply entry leaves current.
// Nothing is re-weighted: every entry keeps the weight it was recorded with.
type Replay struct {
	raw     Milli
	domains map[string]Milli
	current map[[2]int64]Entry
	entries int
}

// Add replays one entry.
func (r *Replay) Add(e Entry) {
	if r.domains == nil {
		r.domains = map[string]Milli{}
		r.current = map[[2]int64]Entry{}
	}
	r.entries++
	r.raw += e.Delta
	if e.Phase == PhaseBaseline {
		return
	}
	r.domains[e.Domain] += e.Delta
	if e.Phase == PhaseApply {
		r.current[[2]int64{e.Memory, e.Evaluator}] = e
	}
}

// Entries returns the number of entries replayed.
func (r *Replay) Entries() int { return r.entries }

// Rebuilt is the outcome of a replay.
type Rebuilt struct {
	Global  Aggregate
	Domains map[string]Aggregate
	// DomainEvaluators counts each evaluator's weighted current positions
	// per domain; GlobalEvaluators across all domains.
	DomainEvaluators map[string]map[int64]int
	GlobalEvaluators map[int64]int
}

// Result returns the aggregates and evaluator counters the replayed journal
// implies.
func (r *Replay) Result() Rebuilt {
	out := Rebuilt{
		Global:           Aggregate{Raw: r.raw},
		Domains:          map[string]Aggregate{},
		DomainEvaluators: map[string]map[int64]int{},
		GlobalEvaluators: map[int64]int{},
	}
	for d, raw := range r.domains {
		out.Domains[d] = Aggregate{Raw: raw}
		out.DomainEvaluators[d] = map[int64]int{}
	}
	for _, e := range r.current {
		if e.Weight <= 0 {
			continue
		}
		// Contribution is left zero: raw sums come from the deltas above.
		p := &Position{Type: e.Type, EffectiveWeight: e.Weight}
		d := out.Domains[e.Domain]
		d, out.DomainEvaluators[e.Domain][e.Evaluator] = d.Move(nil, p, out.DomainEvaluators[e.Domain][e.Evaluator])
		out.Domains[e.Domain] = d
		out.Global, out.GlobalEvaluators[e.Evaluator] = out.Global.Move(nil, p, out.GlobalEvaluators[e.Evaluator])
	}
	return out
}
