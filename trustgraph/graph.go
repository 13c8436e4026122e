package trustgraph

import (
	"errors"
	"fmt"
	"math"
	"slices"
)

// Bounds on a graph. [NewGraph] and the parsers refuse anything larger, before
// building it.
const (
	// MaxNodes is the most distinct ids a graph may hold.
	MaxNodes = 2_000_000
	// MaxEdges is the most edges a graph may be built from, self-loops and
	// non-positive edges included.
	MaxEdges = 20_000_000
	// MaxIDBytes is the longest id, in bytes.
	MaxIDBytes = 256
)

// Errors wrapped by the constructors and parsers; compare with errors.Is.
var (
	// ErrTooLarge is wrapped when a graph, file or argument set passes a bound.
	ErrTooLarge = errors.New("trustgraph: input too large")
	// ErrBadWeight is wrapped for a weight that is NaN or infinite.
	ErrBadWeight = errors.New("trustgraph: weight is not a finite number")
	// ErrBadID is wrapped for an empty or over-long id.
	ErrBadID = errors.New("trustgraph: bad id")
)

// Edge is one statement of trust: Source trusts Target with Weight. Only a
// positive weight carries trust; see [NewGraph].
type Edge struct {
	Source string
	Target string
	Weight float64
}

// Graph is an immutable trust graph: every id named by an edge, and the
// row-normalised matrix P of positive out-weights in compressed sparse row
// form. Build one with [NewGraph] or [NewGraphIndexed]; a Graph is safe for
// concurrent use.
type Graph struct {
	ids   []string
	index map[string]int32
	// Row u of P is col[start[u]:start[u+1]] with probabilities prob[...].
	start []int64
	col   []int32
	prob  []float64
}

// NewGraph builds a graph from edges under SPEC.md §15.1: every id an edge
// names is a node; self-loops and edges of weight ≤ 0 carry no trust;
// parallel positive edges add; each node's positive out-weights are
// normalised to sum to 1. Node order is the order of first appearance. A NaN
// or infinite weight is refused with the edge's index.
func NewGraph(edges []Edge) (*Graph, error) {
	if len(edges) > MaxEdges {
		return nil, fmt.Errorf("%w: %d edges, the limit is %d", ErrTooLarge, len(edges), MaxEdges)
	}
	b := newBuilder(len(edges))
	for i, e := range edges {
		if err := b.add(e.Source, e.Target, e.Weight); err != nil {
			return nil, fmt.Errorf("edge %d: %w", i, err)
		}
	}
	return b.build(), nil
}

// NewGraphIndexed builds a graph of n nodes named "0" … "n−1" from parallel
// slices of source, target and weight, under the same rules as [NewGraph].
// It is for large synthetic graphs, where naming ids would dominate.
func NewGraphIndexed(n int, src, dst []int32, w []float64) (*Graph, error) {
	if n < 0 || n > MaxNodes {
		return nil, fmt.Errorf("%w: %d nodes, the limit is %d", ErrTooLarge, n, MaxNodes)
	}
	if len(src) != len(dst) || len(src) != len(w) {
		return nil, errors.New("trustgraph: source, target and weight slices differ in length")
	}
	if len(src) > MaxEdges {
		return nil, fmt.Errorf("%w: %d edges, the limit is %d", ErrTooLarge, len(src), MaxEdges)
	}
	raw := make([]rawEdge, 0, len(src))
	for i := range src {
		if src[i] < 0 || int(src[i]) >= n || dst[i] < 0 || int(dst[i]) >= n {
			return nil, fmt.Errorf("edge %d: node index out of range", i)
		}
		if math.IsNaN(w[i]) || math.IsInf(w[i], 0) {
			return nil, fmt.Errorf("edge %d: %w", i, ErrBadWeight)
		}
		if src[i] != dst[i] && w[i] > 0 {
			raw = append(raw, rawEdge{src[i], dst[i], w[i]})
		}
	}
	ids := make([]string, n)
	for i := range ids {
		ids[i] = fmt.Sprint(i)
	}
	g := compress(ids, raw)
	g.buildIndex()
	return g, nil
}

type rawEdge struct {
	u, v int32
	w    float64
}

// builder interns ids and collects positive edges.
type builder struct {
	ids   []string
	index map[string]int32
	raw   []rawEdge
	n     int
}

func newBuilder(hint int) *builder {
	return &builder{index: make(map[string]int32, min(hint, 1<<16)), raw: make([]rawEdge, 0, min(hint, 1<<20))}
}

func (b *builder) node(id string) (int32, error) {
	if id == "" || len(id) > MaxIDBytes {
		return 0, fmt.Errorf("%w: %q (an id is 1 to %d bytes)", ErrBadID, truncate(id), MaxIDBytes)
	}
	if i, ok := b.index[id]; ok {
		return i, nil
	}
	if len(b.ids) >= MaxNodes {
		return 0, fmt.Errorf("%w: more than %d nodes", ErrTooLarge, MaxNodes)
	}
	i := int32(len(b.ids))
	b.ids = append(b.ids, id)
	b.index[id] = i
	return i, nil
}

func (b *builder) add(src, dst string, w float64) error {
	if math.IsNaN(w) || math.IsInf(w, 0) {
		return fmt.Errorf("%w: %v", ErrBadWeight, w)
	}
	b.n++
	if b.n > MaxEdges {
		return fmt.Errorf("%w: more than %d edges", ErrTooLarge, MaxEdges)
	}
	u, err := b.node(src)
	if err != nil {
		return err
	}
	v, err := b.node(dst)
	if err != nil {
		return err
	}
	if u != v && w > 0 {
		b.raw = append(b.raw, rawEdge{u, v, w})
	}
	return nil
}

func (b *builder) build() *Graph {
	g := compress(b.ids, b.raw)
	g.index = b.index
	return g
}

// compress sorts positive edges by source then target, merges parallel
// edges by adding their weights, and normalises each row.
func compress(ids []string, raw []rawEdge) *Graph {
	n := len(ids)
	// Counting sort by source keeps this linear for large graphs.
	start := make([]int64, n+1)
	for _, e := range raw {
		start[e.u+1]++
	}
	for i := 1; i <= n; i++ {
		start[i] += start[i-1]
	}
	col := make([]int32, len(raw))
	w := make([]float64, len(raw))
	next := slices.Clone(start[:n])
	for _, e := range raw {
		p := next[e.u]
		col[p], w[p] = e.v, e.w
		next[e.u]++
	}
	// Within each row: sort by target, merge duplicates, normalise.
	out := int64(0)
	newStart := make([]int64, n+1)
	type cw struct {
		c int32
		w float64
	}
	var row []cw
	for u := range n {
		a, z := start[u], start[u+1]
		newStart[u] = out
		if a == z {
			continue
		}
		row = row[:0]
		for p := a; p < z; p++ {
			row = append(row, cw{col[p], w[p]})
		}
		slices.SortFunc(row, func(x, y cw) int { return int(x.c) - int(y.c) })
		first := out
		sum := 0.0
		for i, e := range row {
			if i > 0 && row[i-1].c == e.c {
				w[out-1] += e.w
			} else {
				col[out], w[out] = e.c, e.w
				out++
			}
			sum += e.w
		}
		for p := first; p < out; p++ {
			w[p] /= sum
		}
	}
	newStart[n] = out
	return &Graph{ids: ids, start: newStart, col: col[:out:out], prob: w[:out:out]}
}

// Len returns the number of nodes.
func (g *Graph) Len() int { return len(g.ids) }

// Edges returns the number of distinct positive edges left after the rules
// of [NewGraph].
func (g *Graph) Edges() int { return len(g.col) }

// ID returns the id of node i.
func (g *Graph) ID(i int) string { return g.ids[i] }

// Lookup returns the node index of id.
func (g *Graph) Lookup(id string) (int, bool) {
	i, ok := g.index[id]
	return int(i), ok
}

// Out calls f for each positive out-edge of node u, with P(u→v).
func (g *Graph) Out(u int, f func(v int, p float64)) {
	for q := g.start[u]; q < g.start[u+1]; q++ {
		f(int(g.col[q]), g.prob[q])
	}
}

func (g *Graph) buildIndex() {
	idx := make(map[string]int32, len(g.ids))
	for i, id := range g.ids {
		idx[id] = int32(i)
	}
	g.index = idx
}

func truncate(s string) string {
	if len(s) > 40 {
		return s[:40] + "…"
	}
	return s
}
