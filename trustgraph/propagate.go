package trustgraph

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
)

// Defaults of reader-local propagation (ADR 0019 §2.2).
const (
	DefaultDamping = 0.85
	DefaultDepth   = 3
	// MaxDepth bounds the depth a caller may ask for.
	MaxDepth = 64
	// MaxTrustSet bounds the ids of one trust set.
	MaxTrustSet = 100_000
)

// ErrEmptyTrustSet is returned for a trust set with no ids.
var ErrEmptyTrustSet = errors.New("trustgraph: the trust set is empty: a trust set is the ids the reader trusts directly (its own keys, the keys it vouches for, the authors whose answers it accepted or used), and reader-local trust flows only from them")

// ErrBadOption is wrapped for a damping, depth, factor or alpha out of range.
var ErrBadOption = errors.New("trustgraph: bad option")

// PropagateOptions are the parameters of reader-local propagation. The zero
// value means the defaults: damping 0.85, depth 3.
type PropagateOptions struct {
	// Damping is d, in [0, 1); zero means DefaultDamping unless DampingSet.
	Damping float64
	// Depth is D, 0 to MaxDepth; zero means DefaultDepth unless DepthSet.
	Depth int
	// DampingSet and DepthSet make a zero Damping or Depth mean zero.
	DampingSet, DepthSet bool
}

func (o PropagateOptions) resolve() (float64, int, error) {
	d, depth := o.Damping, o.Depth
	if d == 0 && !o.DampingSet {
		d = DefaultDamping
	}
	if depth == 0 && !o.DepthSet {
		depth = DefaultDepth
	}
	if math.IsNaN(d) || d < 0 || d >= 1 {
		return 0, 0, fmt.Errorf("%w: damping %v is not in [0, 1)", ErrBadOption, d)
	}
	if depth < 0 || depth > MaxDepth {
		return 0, 0, fmt.Errorf("%w: depth %d is not in 0..%d", ErrBadOption, depth, MaxDepth)
	}
	return d, depth, nil
}

// Score is one node's trust.
type Score struct {
	ID    string  `json:"id"`
	Score float64 `json:"score"`
}

// Result is the outcome of a propagation.
type Result struct {
	// Scores lists every id with a positive score, highest first, then by id
	// in byte order.
	Scores []Score `json:"scores"`
	// Undistributed is 1 − Σ scores: the mass damping and the depth cap kept
	// back (reader-local), or 0 up to rounding (global).
	Undistributed float64 `json:"undistributed"`
	// UnknownTrustSet lists, sorted, the trust-set or pre-trust ids the
	// graph does not contain.
	UnknownTrustSet []string `json:"unknownTrustSet"`
	// Iterations is the number of steps taken: the depth for a reader-local
	// propagation, the power iterations for a global one.
	Iterations int `json:"iterations"`
}

// Of returns the score of id, 0 when it has none.
func (r Result) Of(id string) float64 {
	for _, s := range r.Scores {
		if s.ID == id {
			return s.Score
		}
	}
	return 0
}

// Propagate computes reader-local trust from trustSet (SPEC.md §15.2):
// π = Σ_{k=0..D} (1−d)·d^k·(Pᵀ)^k·s, with s spreading mass 1 evenly over the
// distinct ids of the trust set. An id absent from the graph keeps its
// share at k = 0, passes nothing on and is listed in UnknownTrustSet. For
// many queries on one graph, a [Propagator] reuses its buffers.
func Propagate(g *Graph, trustSet []string, opts PropagateOptions) (Result, error) {
	return NewPropagator(g).Propagate(trustSet, opts)
}

// Propagator answers reader-local queries on one graph, reusing buffers
// sized to the graph between queries, so that a query costs in proportion
// to the neighbourhood it reaches. It is not safe for concurrent use: give
// each goroutine its own.
type Propagator struct {
	g                 *Graph
	cur, nxt, pi      []float64
	queued, reached   []bool
	front, next, seen []int32
}

// NewPropagator returns a Propagator over g.
func NewPropagator(g *Graph) *Propagator {
	n := g.Len()
	return &Propagator{g: g, cur: make([]float64, n), nxt: make([]float64, n), pi: make([]float64, n),
		queued: make([]bool, n), reached: make([]bool, n)}
}

// Propagate is [Propagate] on the Propagator's graph.
func (p *Propagator) Propagate(trustSet []string, opts PropagateOptions) (Result, error) {
	g := p.g
	d, depth, err := opts.resolve()
	if err != nil {
		return Result{}, err
	}
	seeds, unknown, share, err := seed(g, trustSet)
	if err != nil {
		return Result{}, err
	}
	cur, nxt, pi, queued := p.cur, p.nxt, p.pi, p.queued
	front, next, seen := p.front[:0], p.next[:0], p.seen[:0]
	for _, u := range seeds {
		cur[u] = share
		front = append(front, u)
	}
	coef := 1 - d
	for k := 0; ; k++ {
		for _, u := range front {
			if !p.reached[u] {
				p.reached[u] = true
				seen = append(seen, u)
			}
			pi[u] += coef * cur[u]
		}
		if k == depth {
			break
		}
		next = next[:0]
		for _, u := range front {
			m := cur[u]
			cur[u] = 0
			for q := g.start[u]; q < g.start[u+1]; q++ {
				v := g.col[q]
				if !queued[v] {
					queued[v] = true
					next = append(next, v)
				}
				nxt[v] += m * g.prob[q]
			}
		}
		for _, v := range next {
			queued[v] = false
		}
		cur, nxt = nxt, cur
		front, next = next, front
		coef *= d
	}
	r := Result{Iterations: depth, UnknownTrustSet: unknown, Scores: make([]Score, 0, len(seen)+len(unknown))}
	total := 0.0
	for _, u := range seen {
		if x := pi[u]; x > 0 {
			r.Scores = append(r.Scores, Score{g.ids[u], x})
			total += x
		}
		pi[u], p.reached[u] = 0, false
	}
	for _, u := range front {
		cur[u] = 0
	}
	for _, id := range unknown {
		if x := (1 - d) * share; x > 0 {
			r.Scores = append(r.Scores, Score{id, x})
			total += x
		}
	}
	p.cur, p.nxt, p.front, p.next, p.seen = cur, nxt, front, next, seen
	sortScores(r.Scores)
	r.Undistributed = 1 - total
	return r, nil
}

// seed resolves a trust set: the distinct known nodes, the sorted unknown
// ids, and each distinct id's share.
func seed(g *Graph, trustSet []string) ([]int32, []string, float64, error) {
	if len(trustSet) == 0 {
		return nil, nil, 0, ErrEmptyTrustSet
	}
	if len(trustSet) > MaxTrustSet {
		return nil, nil, 0, fmt.Errorf("%w: %d trust-set ids, the limit is %d", ErrTooLarge, len(trustSet), MaxTrustSet)
	}
	seen := make(map[string]bool, len(trustSet))
	var seeds []int32
	unknown := []string{}
	for _, id := range trustSet {
		if id == "" || len(id) > MaxIDBytes {
			return nil, nil, 0, fmt.Errorf("%w: trust-set id %q (an id is 1 to %d bytes)", ErrBadID, truncate(id), MaxIDBytes)
		}
		if seen[id] {
			continue
		}
		seen[id] = true
		if i, ok := g.Lookup(id); ok {
			seeds = append(seeds, int32(i))
		} else {
			unknown = append(unknown, id)
		}
	}
	slices.Sort(unknown)
	return seeds, unknown, 1 / float64(len(seen)), nil
}

func sortScores(s []Score) {
	slices.SortFunc(s, func(a, b Score) int {
		switch {
		case a.Score > b.Score:
			return -1
		case a.Score < b.Score:
			return 1
		}
		return strings.Compare(a.ID, b.ID)
	})
}
