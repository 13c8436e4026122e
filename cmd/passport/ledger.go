package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/remnant/passportkit/internal/cli"
	"github.com/remnant/passportkit/ledger"
	"github.com/remnant/passportkit/ledger/ledgertools"
)

// ledgerCmd groups the commands that work on the owner's own counterparty
// ledger, REPUTATION.md. Every command reads its file from a path or from
// standard input ("-"), reads it as of --as-of (today by default), and
// writes JSON with --json. None of them touches the network.
//
// Exit codes: 0 when the command did its work; 1 when check finds an error
// in the file, or check-summary finds a summary that does not match its id
// (or a signature that does not verify); 2 for bad flags or unreadable
// input.
type ledgerCmd struct {
	Check        ledgerCheckCmd        `cmd:"" help:"List every finding in a REPUTATION.md file, each with its line (exit 1 when there is an error)."`
	Score        ledgerScoreCmd        `cmd:"" help:"Score one counterparty: the formula, the breakdown per type, the tier and its spend limit."`
	Rank         ledgerRankCmd         `cmd:"" help:"Score every counterparty, trusted first and blocked last."`
	Tier         ledgerTierCmd         `cmd:"" help:"The tier for a score and an event count."`
	DecayCurve   ledgerDecayCurveCmd   `cmd:"" name:"decay-curve" help:"Trace a score with no new events and the exact day it crosses each tier line."`
	PathToTier   ledgerPathToTierCmd   `cmd:"" name:"path-to-tier" help:"The fewest events that would lift a counterparty into a tier, and how long until its score decays."`
	Merge        ledgerMergeCmd        `cmd:"" help:"Merge two files of the same owner, reporting every conflict."`
	Template     ledgerTemplateCmd     `cmd:"" help:"Write a new REPUTATION.md with the default rules."`
	Starter      ledgerStarterCmd      `cmd:"" help:"Show a starter tuned for one kind of dealing, or list them."`
	Parse        ledgerParseCmd        `cmd:"" help:"Write the file as canonical JSON (RFC 8785), or as canonical text."`
	ShareSummary ledgerShareSummaryCmd `cmd:"" name:"share-summary" help:"Make a summary of one counterparty to send to another agent, with its id."`
	CheckSummary ledgerCheckSummaryCmd `cmd:"" name:"check-summary" help:"Check a received summary against its id (exit 1 when it does not match)."`
	MCP          ledgerMCPCmd          `cmd:"" name:"mcp" hidden:"" help:"Moved to the passport-ledger-mcp command."`
}

// ledgerFile is the positional file argument.
type ledgerFile struct {
	File string `arg:"" help:"The REPUTATION.md file, or - for standard input."`
}

// asOfFlag is the --as-of flag.
type asOfFlag struct {
	AsOf ledger.Date `name:"as-of" placeholder:"YYYY-MM-DD" help:"Read the file as of this day (default: today)."`
}

// day returns the --as-of day, or today in local time.
func (a asOfFlag) day() ledger.Date {
	if a.AsOf.IsZero() {
		return ledger.DateOf(time.Now())
	}
	return a.AsOf
}

// jsonFlag is the --json flag.
type jsonFlag struct {
	JSON bool `name:"json" help:"Write JSON."`
}

// read returns the file's bytes, bounded by the parser's limit.
func (l ledgerFile) read(e *env) ([]byte, error) {
	return readBounded(e, l.File, ledger.MaxBytes)
}

// toolError maps a tool's error to an exit code: bad input is a usage
// error, anything else a failure.
func toolError(err error) error {
	if errors.Is(err, ledgertools.ErrBadInput) {
		return cli.Usage(errors.New(strings.TrimPrefix(err.Error(), ledgertools.ErrBadInput.Error()+": ")))
	}
	return err
}

// writeJSON writes v as indented JSON.
func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}

type ledgerCheckCmd struct {
	ledgerFile
	asOfFlag
	jsonFlag
}

func (c *ledgerCheckCmd) Run(e *env) error {
	text, err := c.read(e)
	if err != nil {
		return err
	}
	out, err := ledgertools.Check(text, c.day())
	if err != nil {
		return toolError(err)
	}
	if c.JSON {
		err = writeJSON(e.stdout, out)
	} else {
		err = printCheck(e.stdout, c.File, out)
	}
	if err != nil {
		return err
	}
	if !out.Readable {
		return cli.Silent(cli.ExitFailed)
	}
	return nil
}

func printCheck(w io.Writer, name string, out ledgertools.CheckOut) error {
	if name == "-" {
		name = "standard input"
	}
	if len(out.Findings) == 0 {
		_, err := fmt.Fprintf(w, "%s: no findings as of %s. The file is readable; that says nothing about whether its records are true.\n", name, out.AsOf)
		return err
	}
	fmt.Fprintf(w, "%s: %s, %s as of %s\n", name, plural(out.Errors, "error"), plural(out.Warnings, "warning"), out.AsOf)
	for _, f := range out.Findings {
		fmt.Fprintf(w, "  line %d: %s: %s [%s]\n", f.Line, f.Severity, f.Message, f.Code)
	}
	return nil
}

func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return fmt.Sprintf("%d %ss", n, word)
}

type ledgerScoreCmd struct {
	ledgerFile
	Counterparty string   `required:"" help:"The counterparty's id."`
	Amount       *float64 `help:"A task's amount, to compare with the tier's spend limit."`
	asOfFlag
	jsonFlag
}

func (c *ledgerScoreCmd) Run(e *env) error {
	text, err := c.read(e)
	if err != nil {
		return err
	}
	s, err := ledgertools.Score(text, nil, "", c.Counterparty, c.day(), c.Amount)
	if err != nil {
		return toolError(err)
	}
	if c.JSON {
		return writeJSON(e.stdout, s)
	}
	return printScore(e.stdout, s)
}

func printScore(w io.Writer, s ledger.Score) error {
	fmt.Fprintf(w, "%s: %.1f %s (confidence %.0f%%, %s", s.Counterparty, s.Score, s.Tier, 100*s.Confidence, plural(s.Events, "event"))
	if !s.NewestEvent.IsZero() {
		fmt.Fprintf(w, ", newest %s", s.NewestEvent)
	}
	fmt.Fprintf(w, ") as of %s\n", s.AsOf)
	if !s.Declared {
		fmt.Fprintln(w, "  not declared under Counterparties")
	}
	switch s.Tier {
	case ledger.Trusted, ledger.Standard:
		fmt.Fprintf(w, "  %s: go ahead up to %s per task; ask above it\n", s.Tier, num(s.SpendLimit))
	case ledger.Watch:
		fmt.Fprintln(w, "  watch: ask before any dealing")
	case ledger.Unrated:
		fmt.Fprintln(w, "  unrated (fewer events than min_events): ask before any dealing")
	case ledger.Blocked:
		if s.BlockedBy == "list" {
			fmt.Fprintln(w, "  blocked: on the blocked list; hold off until the person lifts it")
		} else {
			fmt.Fprintln(w, "  blocked: the score is below the watch minimum; hold off")
		}
	}
	if s.Task != nil {
		fmt.Fprintf(w, "  task of %s: %s (%s)\n", num(s.Task.Amount), s.Task.Action, s.Task.Why)
	}
	if s.Stale {
		fmt.Fprintln(w, "  stale: the newest event is older than review_days")
	}
	if s.AfterAsOf > 0 {
		fmt.Fprintf(w, "  %s dated after as_of not counted\n", plural(s.AfterAsOf, "event"))
	}
	fmt.Fprintf(w, "  positive mass %.3f, negative mass %.3f, evidence mass %.3f, effective events %.3f\n",
		s.PositiveMass, s.NegativeMass, s.EvidenceMass, s.EffectiveEvents)
	for _, t := range ledger.EventTypes {
		tt, ok := s.ByType[t]
		if !ok {
			continue
		}
		fmt.Fprintf(w, "  %-9s %3d × %-5s → %+.3f   amount %s\n", t, tt.Events, num(tt.Weight), tt.Contribution, num(tt.Amount))
	}
	_, err := fmt.Fprintf(w, "  score = %s\n  A reading of your own record as of %s, not a judgment of anyone.\n", s.Formula, s.AsOf)
	return err
}

// num writes a figure with no exponent and no trailing zeros.
func num(v float64) string {
	s := fmt.Sprintf("%.6f", v)
	s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	if s == "-0" {
		return "0"
	}
	return s
}

type ledgerRankCmd struct {
	ledgerFile
	asOfFlag
	jsonFlag
}

func (c *ledgerRankCmd) Run(e *env) error {
	text, err := c.read(e)
	if err != nil {
		return err
	}
	out, err := ledgertools.Rank(text, c.day())
	if err != nil {
		return toolError(err)
	}
	if c.JSON {
		return writeJSON(e.stdout, out)
	}
	w := e.stdout
	fmt.Fprintf(w, "as of %s\n%-9s %6s %11s %7s %12s  %s\n", out.AsOf, "TIER", "SCORE", "CONFIDENCE", "EVENTS", "SPEND LIMIT", "COUNTERPARTY")
	for _, s := range out.Counterparties {
		fmt.Fprintf(w, "%-9s %6.1f %10.0f%% %7d %12s  %s\n", s.Tier, s.Score, 100*s.Confidence, s.Events, num(s.SpendLimit), s.Counterparty)
	}
	return nil
}

type ledgerTierCmd struct {
	Score         float64  `required:"" help:"The score, 0 to 100."`
	Events        int      `required:"" help:"How many events the score counts."`
	Trusted       *float64 `help:"The trusted minimum (default 75)."`
	Standard      *float64 `help:"The standard minimum (default 50)."`
	Watch         *float64 `help:"The watch minimum (default 25); below it is blocked."`
	MinEvents     *int     `name:"min-events" help:"Events needed before a score counts (default 3)."`
	SpendTrusted  *float64 `name:"spend-trusted" help:"Trusted spend per task without asking (default 500)."`
	SpendStandard *float64 `name:"spend-standard" help:"Standard spend per task without asking (default 100)."`
	jsonFlag
}

func (c *ledgerTierCmd) Run(e *env) error {
	out, err := ledgertools.Tier(ledgertools.TierIn{Score: c.Score, Events: c.Events, Trusted: c.Trusted, Standard: c.Standard, Watch: c.Watch,
		MinEvents: c.MinEvents, SpendTrusted: c.SpendTrusted, SpendStandard: c.SpendStandard})
	if err != nil {
		return toolError(err)
	}
	if c.JSON {
		return writeJSON(e.stdout, out)
	}
	_, err = fmt.Fprintf(e.stdout, "%s: score %s with %s (%s, spend limit %s per task)\n", out.Tier, num(out.Score), plural(out.Events, "event"), out.Action, num(out.SpendLimit))
	return err
}

type ledgerDecayCurveCmd struct {
	File            string   `arg:"" optional:"" help:"A REPUTATION.md file to take the figures from (with --counterparty), or - for standard input."`
	Counterparty    string   `help:"With a file: the counterparty to trace."`
	Score           *float64 `help:"The score now."`
	EvidenceMass    *float64 `name:"evidence-mass" help:"Positive plus negative mass now."`
	EffectiveEvents *float64 `name:"effective-events" help:"The sum of the event decays now."`
	HalfLifeDays    float64  `name:"half-life-days" help:"The half-life in days (default 90, or the file's)."`
	Days            int      `help:"How many days to trace (default 180)."`
	Step            int      `help:"Days between points (default: about 30 points)."`
	Trusted         *float64 `help:"The trusted minimum (default 75, or the file's)."`
	Standard        *float64 `help:"The standard minimum (default 50, or the file's)."`
	Watch           *float64 `help:"The watch minimum (default 25, or the file's)."`
	asOfFlag
	jsonFlag
}

func (c *ledgerDecayCurveCmd) Run(e *env) error {
	in := ledgertools.CurveIn{Score: c.Score, EvidenceMass: c.EvidenceMass, EffectiveEvents: c.EffectiveEvents, HalfLifeDays: c.HalfLifeDays,
		Days: c.Days, Step: c.Step, Trusted: c.Trusted, Standard: c.Standard, Watch: c.Watch, Counterparty: c.Counterparty}
	if c.File != "" {
		text, err := ledgerFile{c.File}.read(e)
		if err != nil {
			return err
		}
		in.Text = string(text)
		if in.Text == "" {
			return cli.Usage(errors.New("the file is empty"))
		}
	}
	out, err := ledgertools.Curve(in, c.day())
	if err != nil {
		return toolError(err)
	}
	if c.JSON {
		return writeJSON(e.stdout, out)
	}
	w := e.stdout
	fmt.Fprintf(w, "score %.1f with evidence mass %.3f and %.3f effective events, half-life %s days, no new events:\n",
		out.Score, out.EvidenceMass, out.EffectiveEvents, num(out.HalfLifeDays))
	if len(out.Crossings) == 0 {
		fmt.Fprintln(w, "  crosses no tier line")
	}
	for _, x := range out.Crossings {
		verb := "falls below"
		if x.Direction == "up" {
			verb = "rises to"
		}
		fmt.Fprintf(w, "  %s %s (the %s minimum) on day %.1f, into %s\n", verb, num(x.Line), x.Tier, x.Day, x.Into)
	}
	fmt.Fprintf(w, "  back to neutral (within %s of 50) on day %.1f\n", num(ledger.NeutralBand), out.DaysToNeutral)
	fmt.Fprintf(w, "%5s %6s %11s  %s\n", "DAY", "SCORE", "CONFIDENCE", "TIER")
	for _, p := range out.Points {
		fmt.Fprintf(w, "%5d %6.1f %10.0f%%  %s\n", p.Day, p.Score, 100*p.Confidence, p.Tier)
	}
	_, err = fmt.Fprintf(w, "%s\nRe-score before a task rather than trusting the curve.\n", out.Formula)
	return err
}

type ledgerPathToTierCmd struct {
	ledgerFile
	Counterparty string   `required:"" help:"The counterparty's id."`
	Target       string   `required:"" enum:"trusted,standard,watch" help:"The tier to reach: trusted, standard or watch."`
	Type         string   `default:"delivered" help:"The event type to count (one that counts for a counterparty)."`
	Threshold    *float64 `help:"A score to count the decay days to (default: the next tier line on the way to 50, if any)."`
	asOfFlag
	jsonFlag
}

func (c *ledgerPathToTierCmd) Run(e *env) error {
	text, err := c.read(e)
	if err != nil {
		return err
	}
	p, err := ledgertools.PathToTier(text, c.Counterparty, c.day(), c.Target, c.Type, c.Threshold)
	if err != nil {
		return toolError(err)
	}
	if c.JSON {
		return writeJSON(e.stdout, p)
	}
	w := e.stdout
	fmt.Fprintf(w, "%s: %.1f %s (%s) as of %s\n", p.Counterparty, p.Score, p.Tier, plural(p.Events, "event"), p.AsOf)
	switch {
	case !p.Reachable:
		fmt.Fprintf(w, "  %s cannot be reached by new events: %s\n", p.Target, p.Reason)
	case p.Needed == 0:
		fmt.Fprintf(w, "  already at or above %s\n", p.Target)
	default:
		fmt.Fprintf(w, "  to reach %s: %d more %s event%s (score %.1f, %s)\n", p.Target, p.Needed, p.Type, map[bool]string{true: "", false: "s"}[p.Needed == 1], p.ScoreAfter, p.TierAfter)
	}
	switch {
	case p.Threshold == nil:
	case p.Days == nil:
		fmt.Fprintf(w, "  with no new events it never reaches %s\n", num(*p.Threshold))
	default:
		fmt.Fprintf(w, "  with no new events it reaches %s on day %.1f\n", num(*p.Threshold), *p.Days)
	}
	_, err = fmt.Fprintf(w, "  back to neutral (within %s of 50) on day %.1f\n  %s\n  A distance, not a plan: record only events that happen.\n", num(ledger.NeutralBand), p.DaysToNeutral, p.Formula)
	return err
}

type ledgerMergeCmd struct {
	A      string `arg:"" help:"The first file (a), or - for standard input."`
	B      string `arg:"" help:"The second file (b)."`
	Prefer string `required:"" enum:"a,b" help:"The file whose owner, kinds, notes, amounts and rules win a conflict: a or b."`
	Output string `short:"o" help:"Write the merged file here instead of standard output."`
	jsonFlag
}

func (c *ledgerMergeCmd) Run(e *env) error {
	if c.A == "-" && c.B == "-" {
		return cli.Usage(errors.New("only one of the two files can be standard input"))
	}
	a, err := readBounded(e, c.A, ledger.MaxBytes)
	if err != nil {
		return err
	}
	b, err := readBounded(e, c.B, ledger.MaxBytes)
	if err != nil {
		return err
	}
	out, err := ledgertools.Merge(a, b, c.Prefer)
	if err != nil {
		return toolError(err)
	}
	if c.JSON {
		return writeJSON(e.stdout, out)
	}
	for _, x := range out.IssuesA {
		fmt.Fprintf(e.stderr, "a: line %d: %s: %s; not merged\n", x.Line, x.Severity, x.Message)
	}
	for _, x := range out.IssuesB {
		fmt.Fprintf(e.stderr, "b: line %d: %s: %s; not merged\n", x.Line, x.Severity, x.Message)
	}
	for _, x := range out.Conflicts {
		fmt.Fprintf(e.stderr, "conflict: %s\n", x)
	}
	if c.Output != "" {
		if err := os.WriteFile(c.Output, []byte(out.Text), 0o600); err != nil {
			return err
		}
		_, err = fmt.Fprintf(e.stderr, "merged into %s: %s; read them before saving over either file\n", c.Output, plural(len(out.Conflicts), "conflict"))
		return err
	}
	_, err = io.WriteString(e.stdout, out.Text)
	return err
}

type ledgerTemplateCmd struct {
	Owner        string   `help:"Who keeps the file, like agent:buyer-7."`
	Counterparty string   `help:"A first counterparty to declare."`
	Kind         string   `help:"Its kind: agent, service, store or firm."`
	Categories   []string `help:"What you deal with it about, comma-separated."`
	asOfFlag
	jsonFlag
}

func (c *ledgerTemplateCmd) Run(e *env) error {
	out, err := ledgertools.Template(c.Owner, c.Counterparty, c.Kind, c.Categories, c.day())
	if err != nil {
		return toolError(err)
	}
	if c.JSON {
		return writeJSON(e.stdout, out)
	}
	_, err = io.WriteString(e.stdout, out.Text)
	return err
}

type ledgerStarterCmd struct {
	Kind  string `arg:"" optional:"" help:"The starter: buying-from-stores, hiring-agent-services, data-and-api-providers or contractors. Leave out to list them."`
	Owner string `help:"Who keeps the file, written into it."`
	Print string `enum:",text,empty-file,rules-block" default:"" help:"Write only one part, as it is: text (the file with made-up records), empty-file or rules-block."`
	asOfFlag
	jsonFlag
}

func (c *ledgerStarterCmd) Run(e *env) error {
	w := e.stdout
	if c.Kind == "" {
		var all []ledger.Starter
		for _, name := range ledger.StarterNames {
			s, err := ledgertools.Starter(name, c.Owner, c.day())
			if err != nil {
				return toolError(err)
			}
			all = append(all, s)
		}
		if c.JSON {
			return writeJSON(w, all)
		}
		for _, s := range all {
			fmt.Fprintf(w, "%-24s %s\n", s.Name, s.Summary)
		}
		return nil
	}
	s, err := ledgertools.Starter(c.Kind, c.Owner, c.day())
	if err != nil {
		return toolError(err)
	}
	switch {
	case c.JSON:
		return writeJSON(w, s)
	case c.Print == "text":
		_, err = io.WriteString(w, s.Text)
	case c.Print == "empty-file":
		_, err = io.WriteString(w, s.EmptyFile)
	case c.Print == "rules-block":
		_, err = io.WriteString(w, s.RulesBlock)
	default:
		fmt.Fprintf(w, "%s: %s\n\nRules, and why:\n", s.Name, s.Summary)
		for _, r := range s.Reasons {
			fmt.Fprintf(w, "  %s: %s\n      %s\n", r.Key, r.Value, r.Why)
		}
		fmt.Fprintln(w, "\nDifferent from the defaults:")
		for _, d := range s.Differs {
			fmt.Fprintf(w, "  %s: %s (default %s)\n", d.Key, d.Value, d.Default)
		}
		_, err = fmt.Fprintf(w, "\nRules block:\n\n%s\nThe person approves these rules before they count. --print text shows a file with made-up records;\n--print empty-file the same rules with none. Never keep the made-up records as your own.\n", s.RulesBlock)
	}
	return err
}

type ledgerParseCmd struct {
	ledgerFile
	Text bool `help:"Write the canonical text instead of the canonical JSON."`
}

func (c *ledgerParseCmd) Run(e *env) error {
	text, err := c.read(e)
	if err != nil {
		return err
	}
	f, err := ledgertools.ParseText(text)
	if err != nil {
		return toolError(err)
	}
	if c.Text {
		for _, x := range f.Issues {
			fmt.Fprintf(e.stderr, "line %d: %s: %s\n", x.Line, x.Severity, x.Message)
		}
		_, err = io.WriteString(e.stdout, f.Canonical())
		return err
	}
	b, err := canonicalJSON(f.Document())
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(e.stdout, "%s\n", b)
	return err
}
