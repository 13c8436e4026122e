package trustgraph

import (
	"fmt"
	"math"
	"slices"
)

// Defaults of global EigenTrust.
const (
	// DefaultEpsilon is the L1 change between two iterates below which the
	// power method stops.
	DefaultEpsilon = 1e-12
	// DefaultMaxIterations bounds the power method.
	DefaultMaxIterations = 10_000
)

// GlobalOptions are the parameters of [Global].
type GlobalOptions struct {
	// Alpha is the weight a of the pre-trust vector, in (0, 1].
	Alpha float64
	// PreTrust maps ids to non-negative weights, normalised to sum 1; ids
	// absent from the graph become nodes without edges. Empty means uniform
	// over the graph's nodes.
	PreTrust map[string]float64
	// Epsilon is the stopping L1 change; zero means DefaultEpsilon.
	Epsilon float64
	// MaxIterations bounds the iterations; zero means DefaultMaxIterations.
	MaxIterations int
}

// Global computes the EigenTrust fixed point t = (1−a)·Cᵀ·t + a·p (SPEC.md
// §15.3), where C is the graph's P with every row that has no positive
// out-weight replaced by p, starting from t₀ = p, by the power method until
// the L1 change is below Epsilon. Undistributed is 1 − Σt, zero up to
// rounding.
func Global(g *Graph, opts GlobalOptions) (Result, error) {
	a := opts.Alpha
	if math.IsNaN(a) || a <= 0 || a > 1 {
		return Result{}, fmt.Errorf("%w: alpha %v is not in (0, 1]", ErrBadOption, a)
	}
	eps := opts.Epsilon
	if eps == 0 {
		eps = DefaultEpsilon
	}
	if math.IsNaN(eps) || eps < 0 {
		return Result{}, fmt.Errorf("%w: epsilon %v", ErrBadOption, eps)
	}
	maxIter := opts.MaxIterations
	if maxIter == 0 {
		maxIter = DefaultMaxIterations
	}
	if maxIter < 0 {
		return Result{}, fmt.Errorf("%w: max iterations %d", ErrBadOption, maxIter)
	}
	ids := g.ids
	var unknown []string
	extra := 0
	if len(opts.PreTrust) > MaxTrustSet {
		return Result{}, fmt.Errorf("%w: %d pre-trust ids, the limit is %d", ErrTooLarge, len(opts.PreTrust), MaxTrustSet)
	}
	for id, w := range opts.PreTrust {
		if id == "" || len(id) > MaxIDBytes {
			return Result{}, fmt.Errorf("%w: pre-trust id %q", ErrBadID, truncate(id))
		}
		if math.IsNaN(w) || math.IsInf(w, 0) || w < 0 {
			return Result{}, fmt.Errorf("%w: pre-trust weight of %q is %v, not a finite number ≥ 0", ErrBadWeight, id, w)
		}
		if _, ok := g.Lookup(id); !ok {
			unknown = append(unknown, id)
		}
	}
	slices.Sort(unknown)
	if len(unknown) > 0 {
		ids = append(slices.Clip(ids), unknown...)
		extra = len(unknown)
	}
	n := g.Len() + extra
	if n == 0 {
		return Result{UnknownTrustSet: []string{}}, nil
	}
	p := make([]float64, n)
	if len(opts.PreTrust) == 0 {
		for i := range p {
			p[i] = 1 / float64(n)
		}
	} else {
		sum := 0.0
		for id, w := range opts.PreTrust {
			sum += w
			if i, ok := g.Lookup(id); ok {
				p[i] = w
			}
		}
		for i, id := range unknown {
			p[g.Len()+i] = opts.PreTrust[id]
		}
		if sum <= 0 {
			return Result{}, fmt.Errorf("%w: the pre-trust weights sum to 0", ErrBadWeight)
		}
		for i := range p {
			p[i] /= sum
		}
	}
	dangling := make([]int32, 0)
	for u := range n {
		if u >= g.Len() || g.start[u] == g.start[u+1] {
			dangling = append(dangling, int32(u))
		}
	}
	t := slices.Clone(p)
	next := make([]float64, n)
	iter := 0
	for iter < maxIter {
		iter++
		dm := 0.0
		for _, u := range dangling {
			dm += t[u]
		}
		clear(next)
		spmvT(g, t, next)
		diff := 0.0
		b := 1 - a
		for i := range next {
			x := b*(next[i]+dm*p[i]) + a*p[i]
			diff += math.Abs(x - t[i])
			next[i] = x
		}
		t, next = next, t
		if diff < eps {
			break
		}
	}
	r := Result{Iterations: iter, UnknownTrustSet: unknown}
	if r.UnknownTrustSet == nil {
		r.UnknownTrustSet = []string{}
	}
	total := 0.0
	for i, x := range t {
		if x > 0 {
			r.Scores = append(r.Scores, Score{ids[i], x})
			total += x
		}
	}
	sortScores(r.Scores)
	r.Undistributed = 1 - total
	return r, nil
}

// spmvT adds Pᵀ·t to out, pushing each node's mass along its out-edges.
func spmvT(g *Graph, t, out []float64) {
	start, col, prob := g.start, g.col, g.prob
	for u := 0; u < len(start)-1; u++ {
		m := t[u]
		if m == 0 {
			continue
		}
		for q := start[u]; q < start[u+1]; q++ {
			out[col[q]] += m * prob[q]
		}
	}
}
