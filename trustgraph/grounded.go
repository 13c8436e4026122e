package trustgraph

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
)

// Bounds on an argument graph.
const (
	// MaxGraphBytes bounds an argument graph's JSON.
	MaxGraphBytes = 16 << 20
	// MaxArguments bounds its arguments.
	MaxArguments = 100_000
	// MaxAttacks bounds its attacks.
	MaxAttacks = 1_000_000
	// DefaultFactor is the attack weight factor.
	DefaultFactor = 1.0
)

// ErrBadGraph is wrapped for an argument graph that is malformed: a
// duplicate or unknown id, a missing root, a bad weight.
var ErrBadGraph = errors.New("trustgraph: bad argument graph")

// Argument is a post or a contradiction, with its author and the author's
// weight in the reader's view.
type Argument struct {
	ID     string  `json:"id"`
	Author string  `json:"author"`
	Weight float64 `json:"weight"`
}

// Attack says that argument From contradicts argument To.
type Attack struct {
	From string `json:"from"`
	To   string `json:"to"`
}

// ArgumentGraph is a post (Root) and the contradictions around it.
type ArgumentGraph struct {
	Root      string     `json:"root"`
	Arguments []Argument `json:"arguments"`
	Attacks   []Attack   `json:"attacks"`
}

// ParseArgumentGraph reads an argument graph's JSON strictly: unknown
// members, trailing data, more than MaxGraphBytes, MaxArguments or
// MaxAttacks, and anything [ArgumentGraph.Validate] refuses are errors.
func ParseArgumentGraph(b []byte) (ArgumentGraph, error) {
	if len(b) > MaxGraphBytes {
		return ArgumentGraph{}, fmt.Errorf("%w: %d bytes, the limit is %d", ErrTooLarge, len(b), MaxGraphBytes)
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	var g ArgumentGraph
	if err := dec.Decode(&g); err != nil {
		return ArgumentGraph{}, fmt.Errorf("%w: %v", ErrBadGraph, err)
	}
	if dec.More() {
		return ArgumentGraph{}, fmt.Errorf("%w: data after the object", ErrBadGraph)
	}
	return g, g.Validate()
}

// Validate checks the graph's bounds and references: ids are 1 to
// MaxIDBytes bytes and distinct, the root and both ends of every attack are
// arguments, weights are finite and ≥ 0.
func (g ArgumentGraph) Validate() error {
	if len(g.Arguments) > MaxArguments {
		return fmt.Errorf("%w: %d arguments, the limit is %d", ErrTooLarge, len(g.Arguments), MaxArguments)
	}
	if len(g.Attacks) > MaxAttacks {
		return fmt.Errorf("%w: %d attacks, the limit is %d", ErrTooLarge, len(g.Attacks), MaxAttacks)
	}
	seen := make(map[string]bool, len(g.Arguments))
	for i, a := range g.Arguments {
		if a.ID == "" || len(a.ID) > MaxIDBytes || len(a.Author) > MaxIDBytes {
			return fmt.Errorf("%w: argument %d: an id or author is 1 to %d bytes", ErrBadGraph, i, MaxIDBytes)
		}
		if seen[a.ID] {
			return fmt.Errorf("%w: argument id %q appears twice", ErrBadGraph, truncate(a.ID))
		}
		seen[a.ID] = true
		if math.IsNaN(a.Weight) || math.IsInf(a.Weight, 0) || a.Weight < 0 {
			return fmt.Errorf("%w: argument %q: weight %v is not a finite number ≥ 0", ErrBadGraph, truncate(a.ID), a.Weight)
		}
	}
	if !seen[g.Root] {
		return fmt.Errorf("%w: the root %q is not an argument", ErrBadGraph, truncate(g.Root))
	}
	for i, at := range g.Attacks {
		if !seen[at.From] || !seen[at.To] {
			return fmt.Errorf("%w: attack %d (%q → %q) names an unknown argument", ErrBadGraph, i, truncate(at.From), truncate(at.To))
		}
	}
	return nil
}

// Label is an argument's label in the grounded labelling.
type Label string

// The three labels.
const (
	In    Label = "IN"
	Out   Label = "OUT"
	Undec Label = "UNDEC"
)

// Why codes: why the root has its label (SPEC.md §15.5).
const (
	WhyNoContradiction = "no_contradiction" // IN: no counted attacker
	WhyRebutted        = "rebutted"         // IN: every counted attacker is OUT
	WhyContradicted    = "contradicted"     // OUT: an attacker is IN
	WhyCycle           = "cycle"            // UNDEC: a cycle of contradictions
	WhyDepthCap        = "depth_cap"        // UNDEC: contradictions go on past the depth cap
	WhyCycleAndCap     = "cycle_and_depth_cap"
)

// GroundedOptions are the parameters of [Grounded]. The zero value means
// depth 3 and factor 1.
type GroundedOptions struct {
	// Depth is D, 0 to MaxDepth; zero means DefaultDepth unless DepthSet.
	Depth int
	// Factor scales the target author's weight an attacker must reach;
	// zero means DefaultFactor unless FactorSet.
	Factor              float64
	DepthSet, FactorSet bool
}

// Labelled is one considered argument.
type Labelled struct {
	ID     string  `json:"id"`
	Author string  `json:"author"`
	Weight float64 `json:"weight"`
	Label  Label   `json:"label"`
	Depth  int     `json:"depth"`
	// Capped is set for an argument at depth D with a counted attacker
	// beyond it: it cannot be IN.
	Capped bool `json:"capped,omitempty"`
}

// Why explains the root's label.
type Why struct {
	Code string `json:"code"`
	Text string `json:"text"`
	// Standing, Rebutted and Undecided list the root's counted attackers by
	// label, sorted.
	Standing  []string `json:"standing"`
	Rebutted  []string `json:"rebutted"`
	Undecided []string `json:"undecided"`
	// IgnoredAttacks counts the attacks that did not count by weight.
	IgnoredAttacks int `json:"ignoredAttacks"`
}

// Labelling is the outcome of [Grounded].
type Labelling struct {
	Root      string `json:"root"`
	RootLabel Label  `json:"rootLabel"`
	// Contested is set when the root is not IN: a contradiction stands, or
	// the root is undecided.
	Contested bool `json:"contested"`
	Why       Why  `json:"why"`
	// Arguments lists the considered arguments by depth, then id.
	Arguments []Labelled `json:"arguments"`
}

// Grounded labels an argument graph (SPEC.md §15.5): attacks whose
// attacker weighs less than Factor × the target author's weight are
// removed; arguments are placed at their shortest counted-attack distance
// from the root and those deeper than Depth are dropped; an argument at
// Depth with a counted attacker beyond it cannot be IN; the rest is Dung's
// grounded labelling.
func Grounded(g ArgumentGraph, opts GroundedOptions) (Labelling, error) {
	depth, factor := opts.Depth, opts.Factor
	if depth == 0 && !opts.DepthSet {
		depth = DefaultDepth
	}
	if factor == 0 && !opts.FactorSet {
		factor = DefaultFactor
	}
	if depth < 0 || depth > MaxDepth {
		return Labelling{}, fmt.Errorf("%w: depth %d is not in 0..%d", ErrBadOption, depth, MaxDepth)
	}
	if math.IsNaN(factor) || math.IsInf(factor, 0) || factor < 0 {
		return Labelling{}, fmt.Errorf("%w: factor %v is not a finite number ≥ 0", ErrBadOption, factor)
	}
	if err := g.Validate(); err != nil {
		return Labelling{}, err
	}
	n := len(g.Arguments)
	idx := make(map[string]int, n)
	for i, a := range g.Arguments {
		idx[a.ID] = i
	}
	// Counted attacks, without duplicates.
	type pair struct{ f, t int }
	seen := map[pair]bool{}
	attackers := make([][]int, n)
	ignored := 0
	for _, at := range g.Attacks {
		f, t := idx[at.From], idx[at.To]
		if seen[pair{f, t}] {
			continue
		}
		seen[pair{f, t}] = true
		if g.Arguments[f].Weight < factor*g.Arguments[t].Weight {
			ignored++
			continue
		}
		attackers[t] = append(attackers[t], f)
	}
	// Depth: breadth first from the root along attacker links.
	dist := make([]int, n)
	for i := range dist {
		dist[i] = -1
	}
	root := idx[g.Root]
	dist[root] = 0
	queue := []int{root}
	for len(queue) > 0 {
		x := queue[0]
		queue = queue[1:]
		for _, a := range attackers[x] {
			if dist[a] < 0 {
				dist[a] = dist[x] + 1
				queue = append(queue, a)
			}
		}
	}
	considered := func(i int) bool { return dist[i] >= 0 && dist[i] <= depth }
	capped := make([]bool, n)
	pending := make([]int, n) // counted, considered attackers not yet OUT
	targets := make([][]int, n)
	for t := range n {
		if !considered(t) {
			continue
		}
		for _, f := range attackers[t] {
			if considered(f) {
				pending[t]++
				targets[f] = append(targets[f], t)
			} else {
				capped[t] = true
			}
		}
	}
	label := make([]Label, n)
	var work []int
	for i := range n {
		if considered(i) {
			label[i] = Undec
			if pending[i] == 0 && !capped[i] {
				label[i] = In
				work = append(work, i)
			}
		}
	}
	for len(work) > 0 {
		x := work[len(work)-1]
		work = work[:len(work)-1]
		switch label[x] {
		case In:
			for _, t := range targets[x] {
				if label[t] == Undec {
					label[t] = Out
					work = append(work, t)
				}
			}
		case Out:
			for _, t := range targets[x] {
				pending[t]--
				if pending[t] == 0 && !capped[t] && label[t] == Undec {
					label[t] = In
					work = append(work, t)
				}
			}
		}
	}
	res := Labelling{Root: g.Root, RootLabel: label[root], Contested: label[root] != In, Arguments: []Labelled{}}
	for i, a := range g.Arguments {
		if considered(i) {
			res.Arguments = append(res.Arguments, Labelled{ID: a.ID, Author: a.Author, Weight: a.Weight, Label: label[i], Depth: dist[i], Capped: capped[i]})
		}
	}
	slices.SortFunc(res.Arguments, func(a, b Labelled) int {
		if a.Depth != b.Depth {
			return a.Depth - b.Depth
		}
		return strings.Compare(a.ID, b.ID)
	})
	res.Why = explain(g, root, attackers, label, capped, considered, depth, ignored)
	return res, nil
}

// explain builds the root's why from its attackers and, for an undecided
// root, from the undecided region behind it.
func explain(g ArgumentGraph, root int, attackers [][]int, label []Label, capped []bool, considered func(int) bool, depth, ignored int) Why {
	w := Why{Standing: []string{}, Rebutted: []string{}, Undecided: []string{}, IgnoredAttacks: ignored}
	authors := map[string]bool{}
	for _, a := range attackers[root] {
		if !considered(a) {
			continue
		}
		switch label[a] {
		case In:
			w.Standing = append(w.Standing, g.Arguments[a].ID)
			authors[g.Arguments[a].Author] = true
		case Out:
			w.Rebutted = append(w.Rebutted, g.Arguments[a].ID)
		default:
			w.Undecided = append(w.Undecided, g.Arguments[a].ID)
		}
	}
	slices.Sort(w.Standing)
	slices.Sort(w.Rebutted)
	slices.Sort(w.Undecided)
	ign := ""
	if ignored > 0 {
		ign = fmt.Sprintf("; %s ignored (attacker lighter than the author)", plural(ignored, "contradiction"))
	}
	switch label[root] {
	case In:
		if len(w.Rebutted) == 0 {
			w.Code, w.Text = WhyNoContradiction, "stands: no counted contradiction"+ign
		} else {
			w.Code, w.Text = WhyRebutted, fmt.Sprintf("stands: %s rebutted", plural(len(w.Rebutted), "contradiction"))+ign
		}
		return w
	case Out:
		w.Code = WhyContradicted
		w.Text = fmt.Sprintf("contested: contradicted, %s standing from %s", plural(len(w.Standing), "argument"), plural(len(authors), "author"))
		if len(w.Rebutted) > 0 {
			w.Text += fmt.Sprintf("; %s rebutted", plural(len(w.Rebutted), "other"))
		}
		w.Text += ign
		return w
	}
	// Undecided: walk the undecided attackers behind the root. Every
	// undecided argument is capped or has an undecided attacker, so the walk
	// meets a capped argument, a cycle, or both.
	region := map[int]bool{root: true}
	stack := []int{root}
	cap := false
	for len(stack) > 0 {
		x := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if capped[x] {
			cap = true
		}
		for _, a := range attackers[x] {
			if considered(a) && label[a] == Undec && !region[a] {
				region[a] = true
				stack = append(stack, a)
			}
		}
	}
	cycle := hasCycle(region, attackers, considered, label)
	switch {
	case cycle && cap:
		w.Code, w.Text = WhyCycleAndCap, fmt.Sprintf("contested: undecided, by a cycle of contradictions and by contradictions beyond depth %d", depth)
	case cycle:
		w.Code, w.Text = WhyCycle, "contested: undecided, by a cycle of contradictions"
	default:
		w.Code, w.Text = WhyDepthCap, fmt.Sprintf("contested: undecided, contradictions go on beyond depth %d", depth)
	}
	w.Text += ign
	return w
}

// hasCycle reports whether the undecided region holds a cycle of attacks,
// by peeling off arguments without undecided attackers inside it.
func hasCycle(region map[int]bool, attackers [][]int, considered func(int) bool, label []Label) bool {
	indeg := map[int]int{}
	out := map[int][]int{}
	for x := range region {
		for _, a := range attackers[x] {
			if region[a] && considered(a) && label[a] == Undec {
				indeg[x]++
				out[a] = append(out[a], x)
			}
		}
	}
	var q []int
	for x := range region {
		if indeg[x] == 0 {
			q = append(q, x)
		}
	}
	removed := 0
	for len(q) > 0 {
		x := q[len(q)-1]
		q = q[:len(q)-1]
		removed++
		for _, y := range out[x] {
			indeg[y]--
			if indeg[y] == 0 {
				q = append(q, y)
			}
		}
	}
	return removed < len(region)
}

func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return fmt.Sprintf("%d %ss", n, word)
}
