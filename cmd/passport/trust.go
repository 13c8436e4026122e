package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/remnant/passportkit/internal/cli"
	"github.com/remnant/passportkit/ledger"
	"github.com/remnant/passportkit/trustgraph"
)

// trustCmd groups the reader-local trust commands (SPEC.md §15).
type trustCmd struct {
	Propagate trustPropagateCmd `cmd:"" help:"Propagate trust from your trust set over an edge file (or global EigenTrust with --global)."`
	Grounded  trustGroundedCmd  `cmd:"" help:"Label a post and its contradictions by weighted, depth-capped grounded semantics."`
	Signal    trustSignalCmd    `cmd:"" help:"Apply one signal rule (floor, decay, clock, groups, status) to a JSON query."`
}

// maxPreTrustBytes bounds a pre-trust file.
const maxPreTrustBytes = 16 << 20

type trustPropagateCmd struct {
	Edges        string      `required:"" placeholder:"FILE" help:"Edge file: CSV source,target,weight[,time]; a first line whose weight is not a number is a header (\"-\" for standard input)."`
	TrustSet     []string    `name:"trust-set" sep:"," placeholder:"ID,..." help:"The ids you trust directly."`
	TrustSetFrom string      `name:"trust-set-from" placeholder:"REPUTATION.md" help:"Add your ledger's counterparties of tier trusted to the trust set."`
	AsOf         ledger.Date `name:"as-of" placeholder:"YYYY-MM-DD" help:"Read the ledger's tiers as of this day (default: today)."`
	Damping      float64     `default:"0.85" help:"Damping d, in [0, 1)."`
	Depth        int         `default:"3" help:"Depth D, 0 to 64."`
	Global       bool        `help:"Compute global EigenTrust instead of reader-local trust."`
	Alpha        *float64    `help:"With --global: the pre-trust weight a, in (0, 1]."`
	PreTrust     string      `name:"pre-trust" placeholder:"FILE" help:"With --global: a JSON object from id to weight (default: uniform)."`
	JSON         bool        `name:"json" help:"Print the result as JSON."`
}

// propagateOutput is what --json prints.
type propagateOutput struct {
	Mode     string   `json:"mode"` // "reader-local" or "global"
	Damping  float64  `json:"damping,omitempty"`
	Depth    *int     `json:"depth,omitempty"`
	Alpha    float64  `json:"alpha,omitempty"`
	Nodes    int      `json:"nodes"`
	Edges    int      `json:"edges"`
	TrustSet []string `json:"trustSet,omitempty"`
	trustgraph.Result
}

func (c *trustPropagateCmd) Run(e *env) error {
	if c.Global {
		if len(c.TrustSet) > 0 || c.TrustSetFrom != "" {
			return cli.Usage(errors.New("trust propagate: --global takes --pre-trust, not a trust set"))
		}
		if c.Alpha == nil {
			return cli.Usage(errors.New("trust propagate: --global needs --alpha"))
		}
	} else if c.PreTrust != "" || c.Alpha != nil {
		return cli.Usage(errors.New("trust propagate: --alpha and --pre-trust go with --global"))
	}
	g, err := c.readGraph(e)
	if err != nil {
		return err
	}
	out := propagateOutput{Nodes: g.Len(), Edges: g.Edges()}
	if c.Global {
		var pre map[string]float64
		if c.PreTrust != "" {
			b, err := readBounded(e, c.PreTrust, maxPreTrustBytes)
			if err != nil {
				return err
			}
			if err := json.Unmarshal(b, &pre); err != nil {
				return cli.Usage(fmt.Errorf("trust propagate: %s: a pre-trust file is a JSON object from id to weight: %w", c.PreTrust, err))
			}
		}
		out.Mode, out.Alpha = "global", *c.Alpha
		out.Result, err = trustgraph.Global(g, trustgraph.GlobalOptions{Alpha: *c.Alpha, PreTrust: pre})
	} else {
		set, err := c.trustSet(e)
		if err != nil {
			return err
		}
		out.Mode, out.Damping, out.Depth, out.TrustSet = "reader-local", c.Damping, &c.Depth, set
		out.Result, err = trustgraph.Propagate(g, set, trustgraph.PropagateOptions{Damping: c.Damping, Depth: c.Depth, DampingSet: true, DepthSet: true})
		if err != nil {
			return trustError("trust propagate", err)
		}
	}
	if err != nil {
		return trustError("trust propagate", err)
	}
	if c.JSON {
		return writeTrustJSON(e.stdout, out)
	}
	fmt.Fprintf(e.stdout, "%s trust over %d nodes and %d positive edges\n", out.Mode, out.Nodes, out.Edges)
	for _, s := range out.Scores {
		fmt.Fprintf(e.stdout, "  %.9f  %s\n", s.Score, s.ID)
	}
	fmt.Fprintf(e.stdout, "undistributed: %.9f\n", out.Undistributed)
	if len(out.UnknownTrustSet) > 0 {
		fmt.Fprintf(e.stdout, "not in the graph: %s\n", strings.Join(out.UnknownTrustSet, ", "))
	}
	return nil
}

// readGraph reads and builds the edge file.
func (c *trustPropagateCmd) readGraph(e *env) (*trustgraph.Graph, error) {
	var r io.Reader = e.stdin
	if c.Edges != "-" {
		f, err := os.Open(c.Edges)
		if err != nil {
			return nil, cli.Usage(err)
		}
		defer f.Close()
		r = f
	}
	edges, err := trustgraph.ReadEdges(r)
	if err != nil {
		return nil, trustError("trust propagate: "+c.Edges, err)
	}
	g, err := trustgraph.NewGraph(edges)
	if err != nil {
		return nil, trustError("trust propagate: "+c.Edges, err)
	}
	return g, nil
}

// trustSet joins --trust-set and the trusted counterparties of
// --trust-set-from, sorted, without repeats.
func (c *trustPropagateCmd) trustSet(e *env) ([]string, error) {
	set := slices.Clone(c.TrustSet)
	if c.TrustSetFrom != "" {
		b, err := readBounded(e, c.TrustSetFrom, ledger.MaxBytes)
		if err != nil {
			return nil, err
		}
		f, err := ledger.Parse(b)
		if err != nil {
			return nil, cli.Usage(fmt.Errorf("trust propagate: %s: %w", c.TrustSetFrom, err))
		}
		day := c.AsOf
		if day == (ledger.Date{}) {
			day = ledger.DateOf(time.Now())
		}
		for _, s := range f.Rank(day) {
			if s.Tier == ledger.Trusted {
				set = append(set, s.Counterparty)
			}
		}
	}
	slices.Sort(set)
	return slices.Compact(set), nil
}

type trustGroundedCmd struct {
	Graph  string  `required:"" placeholder:"FILE" help:"Argument graph: JSON {\"root\":ID,\"arguments\":[{\"id\",\"author\",\"weight\"}],\"attacks\":[{\"from\",\"to\"}]} (\"-\" for standard input)."`
	Depth  int     `default:"3" help:"Depth cap D, 0 to 64."`
	Factor float64 `default:"1" help:"An attack counts when the attacker's weight is at least factor × the target author's."`
	JSON   bool    `name:"json" help:"Print the labelling as JSON."`
}

func (c *trustGroundedCmd) Run(e *env) error {
	b, err := readInput(e, c.Graph, trustgraph.MaxGraphBytes)
	if err != nil {
		return err
	}
	g, err := trustgraph.ParseArgumentGraph(b)
	if err != nil {
		return trustError("trust grounded: "+c.Graph, err)
	}
	l, err := trustgraph.Grounded(g, trustgraph.GroundedOptions{Depth: c.Depth, Factor: c.Factor, DepthSet: true, FactorSet: true})
	if err != nil {
		return trustError("trust grounded", err)
	}
	if c.JSON {
		return writeTrustJSON(e.stdout, l)
	}
	fmt.Fprintf(e.stdout, "%s %s: %s\n", l.Root, l.RootLabel, l.Why.Text)
	for _, a := range l.Arguments {
		capped := ""
		if a.Capped {
			capped = " (capped)"
		}
		fmt.Fprintf(e.stdout, "  depth %d  %-5s  %s by %s, weight %g%s\n", a.Depth, a.Label, a.ID, a.Author, a.Weight, capped)
	}
	return nil
}

type trustSignalCmd struct {
	Query string `arg:"" placeholder:"FILE" help:"Signal query: JSON {\"kind\":RULE,\"input\":{...}}, as a signal vector file carries it (\"-\" for standard input)."`
	JSON  bool   `name:"json" help:"Print the result as one JSON object."`
}

func (c *trustSignalCmd) Run(e *env) error {
	b, err := readInput(e, c.Query, trustgraph.MaxSignalQueryBytes)
	if err != nil {
		return err
	}
	q, err := trustgraph.ParseSignalQuery(b)
	if err != nil {
		return trustError("trust signal: "+c.Query, err)
	}
	r, err := q.Eval()
	if err != nil {
		return trustError("trust signal: "+c.Query, err)
	}
	if c.JSON {
		return writeTrustJSON(e.stdout, r)
	}
	switch r.Rule {
	case trustgraph.RuleFloor:
		fmt.Fprintf(e.stdout, "floor: %.9g\n", r.Floor)
	case trustgraph.RuleDecay:
		fmt.Fprintf(e.stdout, "decay: %.9g\n", r.Decay)
	case trustgraph.RuleClock:
		fmt.Fprintf(e.stdout, "clock: %.9g\n", r.Clock)
	case trustgraph.RuleGroups:
		fmt.Fprintf(e.stdout, "tally: weight %.9g over %d groups, %d self\n", r.Tally.Weight, r.Tally.Groups, r.Tally.Self)
		keys := slices.Sorted(maps.Keys(r.Groups))
		for _, k := range keys {
			fmt.Fprintf(e.stdout, "  %s in group %s\n", k, r.Groups[k])
		}
	case trustgraph.RuleStatus:
		fmt.Fprintf(e.stdout, "status: %s\n", r.Status)
	}
	return nil
}

// trustError turns a trustgraph error into a usage error carrying its
// reason code.
func trustError(what string, err error) error {
	if r := trustgraph.Reason(err); r != "" {
		return cli.Usage(fmt.Errorf("%s: %w (reason %s)", what, err, r))
	}
	return cli.Usage(fmt.Errorf("%s: %w", what, err))
}

// writeTrustJSON writes v indented, with a final newline.
func writeTrustJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}
