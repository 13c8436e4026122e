package trustgraph

import (
	"math/rand/v2"
	"os"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/remnant/passportkit/internal/extdata"
)

// Scale of the global benchmark (issue 12: 1M nodes, 10M edges).
const (
	benchNodes = 1_000_000
	benchEdges = 10_000_000
	benchAlpha = 0.15
	benchEps   = 1e-6
)

var bigGraph struct {
	once     sync.Once
	g        *Graph
	src, dst []int32
	w        []float64
}

// big builds the synthetic graph once: each edge's source is uniform, its
// target drawn from a skewed (squared-uniform) distribution so that some
// nodes are popular, weights uniform in (0, 1]; a fixed seed.
func big(b *testing.B) *Graph {
	bigGraph.once.Do(func() {
		r := rand.New(rand.NewPCG(12, 12))
		src := make([]int32, benchEdges)
		dst := make([]int32, benchEdges)
		w := make([]float64, benchEdges)
		for i := range src {
			src[i] = int32(r.IntN(benchNodes))
			u := r.Float64()
			dst[i] = int32(u * u * benchNodes)
			w[i] = 1 - r.Float64()
		}
		g, err := NewGraphIndexed(benchNodes, src, dst, w)
		if err != nil {
			panic(err)
		}
		bigGraph.g, bigGraph.src, bigGraph.dst, bigGraph.w = g, src, dst, w
	})
	return bigGraph.g
}

// BenchmarkGlobal1M runs global EigenTrust to an L1 change below 1e-6 on
// the synthetic graph. Its baseline, BenchmarkGlobal1MEdgeList, runs the
// same iteration over the unsorted edge list (normalised by out-weight
// sums), the obvious form without CSR; the ratio of the two is the figure
// to compare across machines.
func BenchmarkGlobal1M(b *testing.B) {
	g := big(b)
	b.ReportAllocs()
	b.ResetTimer()
	var r Result
	cpu0 := cpuTime()
	for b.Loop() {
		var err error
		r, err = Global(g, GlobalOptions{Alpha: benchAlpha, Epsilon: benchEps})
		if err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64((cpuTime()-cpu0).Nanoseconds())/float64(b.N), "cpu-ns/op")
	b.ReportMetric(float64(r.Iterations), "iterations")
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(r.Iterations)/float64(g.Edges()), "ns/edge-step")
}

// BenchmarkGlobal1MEdgeList is the baseline of BenchmarkGlobal1M: the same
// fixed point over the raw edge list, with the same iteration count.
func BenchmarkGlobal1MEdgeList(b *testing.B) {
	g := big(b)
	ref, err := Global(g, GlobalOptions{Alpha: benchAlpha, Epsilon: benchEps})
	if err != nil {
		b.Fatal(err)
	}
	src, dst, w := bigGraph.src, bigGraph.dst, bigGraph.w
	b.ReportAllocs()
	b.ResetTimer()
	cpu0 := cpuTime()
	for b.Loop() {
		edgeListGlobal(benchNodes, src, dst, w, benchAlpha, ref.Iterations)
	}
	b.ReportMetric(float64((cpuTime()-cpu0).Nanoseconds())/float64(b.N), "cpu-ns/op")
	b.ReportMetric(float64(ref.Iterations), "iterations")
}

// edgeListGlobal is the baseline: uniform pre-trust, self-loops and
// non-positive edges skipped on every pass.
func edgeListGlobal(n int, src, dst []int32, w []float64, a float64, iters int) []float64 {
	out := make([]float64, n)
	for i := range src {
		if src[i] != dst[i] && w[i] > 0 {
			out[src[i]] += w[i]
		}
	}
	t := make([]float64, n)
	for i := range t {
		t[i] = 1 / float64(n)
	}
	next := make([]float64, n)
	for range iters {
		dm := 0.0
		for u := range n {
			if out[u] == 0 {
				dm += t[u]
			}
		}
		for i := range next {
			next[i] = 0
		}
		for i := range src {
			if src[i] != dst[i] && w[i] > 0 {
				next[dst[i]] += t[src[i]] * w[i] / out[src[i]]
			}
		}
		for i := range next {
			next[i] = (1-a)*(next[i]+dm/float64(n)) + a/float64(n)
		}
		t, next = next, t
	}
	return t
}

var otc struct {
	once  sync.Once
	g     *Graph
	err   error
	reads []string
}

func otcGraph(b testing.TB) *Graph {
	path := extdata.Graph(b, "soc-sign-bitcoinotc.csv")
	otc.once.Do(func() {
		f, err := os.Open(path)
		if err != nil {
			otc.err = err
			return
		}
		defer f.Close()
		edges, err := ReadEdges(f)
		if err != nil {
			otc.err = err
			return
		}
		otc.g, otc.err = NewGraph(edges)
	})
	if otc.err != nil {
		b.Fatal(otc.err)
	}
	return otc.g
}

// BenchmarkReaderLocalOTC answers a depth-3 query from a five-member trust
// set on Bitcoin OTC, cycling over 64 readers drawn with a fixed seed.
// Its baseline is BenchmarkGlobalOTC, global EigenTrust on the same graph.
func BenchmarkReaderLocalOTC(b *testing.B) {
	g := otcGraph(b)
	r := rand.New(rand.NewPCG(7, 7))
	sets := make([][]string, 64)
	for i := range sets {
		for range 5 {
			sets[i] = append(sets[i], g.ID(r.IntN(g.Len())))
		}
	}
	p := NewPropagator(g)
	b.ReportAllocs()
	times := make([]time.Duration, 0, 1024)
	i := 0
	for b.Loop() {
		t0 := time.Now()
		if _, err := p.Propagate(sets[i%len(sets)], PropagateOptions{}); err != nil {
			b.Fatal(err)
		}
		times = append(times, time.Since(t0))
		i++
	}
	slices.Sort(times)
	b.ReportMetric(float64(times[len(times)/2].Nanoseconds()), "median-ns")
}

// BenchmarkGlobalOTC is the baseline of BenchmarkReaderLocalOTC.
func BenchmarkGlobalOTC(b *testing.B) {
	g := otcGraph(b)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Global(g, GlobalOptions{Alpha: benchAlpha, Epsilon: benchEps}); err != nil {
			b.Fatal(err)
		}
	}
}
