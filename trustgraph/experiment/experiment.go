// Package experiment runs the Sybil experiments of SPEC.md §15.2 on a real
// trust graph: a synthetic Sybil region attached through a few attack edges
// near a reader, the trust it captures against the analytic bound, and how
// well reader-local and global trust separate labelled fraudulent users from
// benign ones. It is pure: the graph, the labels and the seed are
// arguments.
package experiment

import (
	"cmp"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"

	"github.com/remnant/passportkit/trustgraph"
)

// Config sets up an experiment. The zero value of a field means its
// default.
type Config struct {
	// TrustSetSize is how many benign users form the fixed reader's trust
	// set: those with the most positive out-edges (default 10).
	TrustSetSize int
	// SybilKeys is the size of the Sybil region (default 1,000); each key
	// praises every other with weight 10.
	SybilKeys int
	// AttackEdges lists the numbers of attack edges to try (default 1, 10,
	// 100). Attack edge i goes from the i-th most trusted honest node
	// outside the trust set to Sybil key i mod SybilKeys, with weight 10.
	AttackEdges []int
	// Readers is how many readers the AUC is averaged over (default 20),
	// drawn from the benign users with a positive out-edge; each reader's
	// trust set is itself.
	Readers int
	// Alpha is global EigenTrust's pre-trust weight (default 0.15), with
	// uniform pre-trust.
	Alpha float64
	// Seed draws the readers.
	Seed uint64
}

func (c *Config) defaults() {
	if c.TrustSetSize == 0 {
		c.TrustSetSize = 10
	}
	if c.SybilKeys == 0 {
		c.SybilKeys = 1000
	}
	if c.AttackEdges == nil {
		c.AttackEdges = []int{1, 10, 100}
	}
	if c.Readers == 0 {
		c.Readers = 20
	}
	if c.Alpha == 0 {
		c.Alpha = 0.15
	}
}

// Attack is the outcome for one number of attack edges.
type Attack struct {
	Edges int `json:"edges"`
	// Captured is the reader-local trust the Sybil region holds.
	Captured float64 `json:"captured"`
	// Bound is d/(1−d) × Σ over attack edges of π(u)·P(u→sybil), in the
	// attacked graph.
	Bound float64 `json:"bound"`
	// GlobalCaptured is the global EigenTrust mass of the region (uniform
	// pre-trust), for comparison.
	GlobalCaptured float64 `json:"globalCaptured"`
}

// Report is what an experiment found.
type Report struct {
	Nodes    int      `json:"nodes"`
	Edges    int      `json:"edges"`
	TrustSet []string `json:"trustSet"`
	Attacks  []Attack `json:"attacks"`
	// LocalAUC is the mean over readers of the AUC of separating benign
	// from fraudulent labelled users by the reader's trust; GlobalAUC is
	// the same by global EigenTrust.
	LocalAUC  float64  `json:"localAUC"`
	GlobalAUC float64  `json:"globalAUC"`
	Readers   []string `json:"readers"`
	Benign    int      `json:"benign"`
	Fraud     int      `json:"fraudulent"`
}

// Run runs the experiment on edges with labels (id → +1 benign, −1
// fraudulent).
func Run(edges []trustgraph.Edge, labels map[string]int, cfg Config) (Report, error) {
	cfg.defaults()
	g, err := trustgraph.NewGraph(edges)
	if err != nil {
		return Report{}, err
	}
	rep := Report{Nodes: g.Len(), Edges: g.Edges()}
	inGraph := map[string]int{}
	for id, l := range labels {
		if _, ok := g.Lookup(id); ok {
			inGraph[id] = l
		}
	}
	labels = inGraph
	outDeg := map[string]int{}
	for _, e := range edges {
		if e.Weight > 0 && e.Source != e.Target {
			outDeg[e.Source]++
		}
	}
	var benign []string
	for id, l := range labels {
		switch l {
		case 1:
			rep.Benign++
			if outDeg[id] > 0 {
				benign = append(benign, id)
			}
		case -1:
			rep.Fraud++
		}
	}
	if len(benign) == 0 || rep.Fraud == 0 {
		return Report{}, errors.New("experiment: the labels need benign users with out-edges and fraudulent users in the graph")
	}
	slices.SortFunc(benign, func(a, b string) int {
		return cmp.Or(cmp.Compare(outDeg[b], outDeg[a]), cmp.Compare(a, b))
	})
	rep.TrustSet = slices.Clone(benign[:min(cfg.TrustSetSize, len(benign))])
	base, err := trustgraph.Propagate(g, rep.TrustSet, trustgraph.PropagateOptions{})
	if err != nil {
		return Report{}, err
	}
	inSet := map[string]bool{}
	for _, id := range rep.TrustSet {
		inSet[id] = true
	}
	var near []string
	for _, s := range base.Scores {
		if !inSet[s.ID] {
			near = append(near, s.ID)
		}
	}
	sybil := make([]trustgraph.Edge, 0, cfg.SybilKeys*(cfg.SybilKeys-1))
	for i := range cfg.SybilKeys {
		for j := range cfg.SybilKeys {
			if i != j {
				sybil = append(sybil, trustgraph.Edge{Source: sybilID(i), Target: sybilID(j), Weight: 10})
			}
		}
	}
	for _, k := range cfg.AttackEdges {
		if k > len(near) {
			return Report{}, fmt.Errorf("experiment: %d attack edges, but only %d honest nodes are reached", k, len(near))
		}
		all := slices.Concat(edges, sybil)
		for i := range k {
			all = append(all, trustgraph.Edge{Source: near[i], Target: sybilID(i % cfg.SybilKeys), Weight: 10})
		}
		a, err := attack(all, rep.TrustSet, near[:k], cfg)
		if err != nil {
			return Report{}, err
		}
		a.Edges = k
		rep.Attacks = append(rep.Attacks, a)
	}
	// AUC: readers drawn from benign users, without replacement.
	r := rand.New(rand.NewPCG(cfg.Seed, 0x7275737467726170))
	pool := slices.Clone(benign)
	slices.Sort(pool)
	r.Shuffle(len(pool), func(i, j int) { pool[i], pool[j] = pool[j], pool[i] })
	rep.Readers = pool[:min(cfg.Readers, len(pool))]
	p := trustgraph.NewPropagator(g)
	sum := 0.0
	for _, reader := range rep.Readers {
		res, err := p.Propagate([]string{reader}, trustgraph.PropagateOptions{})
		if err != nil {
			return Report{}, err
		}
		sum += auc(res, labels, reader)
	}
	rep.LocalAUC = sum / float64(len(rep.Readers))
	gl, err := trustgraph.Global(g, trustgraph.GlobalOptions{Alpha: cfg.Alpha})
	if err != nil {
		return Report{}, err
	}
	rep.GlobalAUC = auc(gl, labels, "")
	return rep, nil
}

func sybilID(i int) string { return fmt.Sprintf("sybil-%04d", i) }

// attack measures one attacked graph.
func attack(edges []trustgraph.Edge, trustSet, sources []string, cfg Config) (Attack, error) {
	g, err := trustgraph.NewGraph(edges)
	if err != nil {
		return Attack{}, err
	}
	res, err := trustgraph.Propagate(g, trustSet, trustgraph.PropagateOptions{})
	if err != nil {
		return Attack{}, err
	}
	gl, err := trustgraph.Global(g, trustgraph.GlobalOptions{Alpha: cfg.Alpha})
	if err != nil {
		return Attack{}, err
	}
	isSybil := func(id string) bool { return len(id) == 10 && id[:6] == "sybil-" }
	var a Attack
	for _, s := range res.Scores {
		if isSybil(s.ID) {
			a.Captured += s.Score
		}
	}
	for _, s := range gl.Scores {
		if isSybil(s.ID) {
			a.GlobalCaptured += s.Score
		}
	}
	const d = trustgraph.DefaultDamping
	seen := map[string]bool{}
	for _, u := range sources {
		if seen[u] {
			continue
		}
		seen[u] = true
		i, _ := g.Lookup(u)
		toSybil := 0.0
		g.Out(i, func(v int, p float64) {
			if isSybil(g.ID(v)) {
				toSybil += p
			}
		})
		a.Bound += d / (1 - d) * res.Of(u) * toSybil
	}
	return a, nil
}

// auc is the probability that a benign labelled user scores above a
// fraudulent one (ties count half), the reader excluded.
func auc(res trustgraph.Result, labels map[string]int, reader string) float64 {
	score := map[string]float64{}
	for _, s := range res.Scores {
		score[s.ID] = s.Score
	}
	type item struct {
		s float64
		l int
	}
	var items []item
	for id, l := range labels {
		if id != reader && (l == 1 || l == -1) {
			items = append(items, item{score[id], l})
		}
	}
	slices.SortFunc(items, func(a, b item) int { return cmp.Compare(a.s, b.s) })
	// Mann–Whitney U with mid-ranks for ties.
	var pos, neg, rankSum float64
	for i := 0; i < len(items); {
		j := i
		for j < len(items) && items[j].s == items[i].s {
			j++
		}
		mid := float64(i+j+1) / 2 // ranks i+1..j
		for k := i; k < j; k++ {
			if items[k].l == 1 {
				pos++
				rankSum += mid
			} else {
				neg++
			}
		}
		i = j
	}
	if pos == 0 || neg == 0 {
		return 0.5
	}
	return (rankSum - pos*(pos+1)/2) / (pos * neg)
}
