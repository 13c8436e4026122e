// Package ledgertools holds the operations on a REPUTATION.md counterparty
// ledger that the "passport ledger" commands and the ledger MCP server
// (package ledgermcp) share. Each tool takes a file's bytes, the day to read
// it as of and plain arguments, and returns a JSON-ready result; none reads
// a clock or a file, so the caller does the I/O and chooses the day.
//
// Errors that are the caller's fault wrap [ErrBadInput]: a command reports
// them as a usage error, the MCP server as an error result.
package ledgertools

import (
	"errors"
	"fmt"
	"strings"

	"github.com/remnant/passportkit/ledger"
)

// ErrBadInput marks an error in the input of a tool: a usage error on the
// command line, an error result over MCP.
var ErrBadInput = errors.New("bad input")

// BadInput returns an error wrapping [ErrBadInput] with the formatted message.
func BadInput(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrBadInput, fmt.Sprintf(format, args...))
}

// ParseText parses a ledger, turning a refusal into a bad-input error.
func ParseText(text []byte) (*ledger.File, error) {
	f, err := ledger.Parse(text)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrBadInput, err)
	}
	return f, nil
}

// CheckOut is the result of check_reputation.
type CheckOut struct {
	AsOf     ledger.Date      `json:"as_of"`
	Readable bool             `json:"readable"` // no error findings; says nothing about whether the records are true
	Errors   int              `json:"errors"`
	Warnings int              `json:"warnings"`
	Findings []ledger.Finding `json:"findings"`
}

// Check lists every finding in a ledger file as of asOf.
func Check(text []byte, asOf ledger.Date) (CheckOut, error) {
	f, err := ParseText(text)
	if err != nil {
		return CheckOut{}, err
	}
	out := CheckOut{AsOf: asOf, Findings: ledger.Check(f, asOf)}
	if out.Findings == nil {
		out.Findings = []ledger.Finding{}
	}
	out.Errors = ledger.Errors(out.Findings)
	out.Warnings = len(out.Findings) - out.Errors
	out.Readable = out.Errors == 0
	return out, nil
}

// EventIn is an event given directly to score_counterparty instead of a file.
type EventIn struct {
	Date   string   `json:"date" jsonschema:"the day the outcome became known, YYYY-MM-DD"`
	Type   string   `json:"type" jsonschema:"delivered, honored, resolved, late, refunded, disputed, failed or breached"`
	Amount *float64 `json:"amount,omitempty" jsonschema:"what was at stake, in the owner's unit; it does not weigh in the score"`
}

// Score scores one counterparty from a file's text, or from events
// under the rules of rulesText (a Rules section; empty for the defaults).
func Score(text []byte, events []EventIn, rulesText string, id string, asOf ledger.Date, amount *float64) (ledger.Score, error) {
	if err := ledger.CheckID(id); err != nil {
		return ledger.Score{}, fmt.Errorf("%w: counterparty: %v", ErrBadInput, err)
	}
	var s ledger.Score
	switch {
	case text != nil && events != nil:
		return ledger.Score{}, BadInput("give either the file's text or events, not both")
	case events != nil:
		rf, err := ParseText([]byte("## Rules\n" + rulesText))
		if err != nil {
			return ledger.Score{}, err
		}
		if errs := rulesErrors(rf); errs != "" {
			return ledger.Score{}, BadInput("rules: %s", errs)
		}
		evs := make([]ledger.Event, len(events))
		for i, e := range events {
			d, err := ledger.ParseDate(e.Date)
			if err != nil {
				return ledger.Score{}, BadInput("event %d: date %q is not a real day written as YYYY-MM-DD", i+1, e.Date)
			}
			t, err := ledger.ParseEventType(e.Type)
			if err != nil {
				return ledger.Score{}, BadInput("event %d: %v", i+1, err)
			}
			if e.Amount != nil && !(*e.Amount >= 0 && *e.Amount <= ledger.MaxAmount) {
				return ledger.Score{}, BadInput("event %d: amount must be 0 to %d", i+1, int64(ledger.MaxAmount))
			}
			evs[i] = ledger.Event{Date: d, Counterparty: id, Type: t, Amount: e.Amount}
		}
		s = ledger.ScoreEvents(id, evs, rf.Rules, asOf)
	default:
		f, err := ParseText(text)
		if err != nil {
			return ledger.Score{}, err
		}
		s = f.Score(id, asOf)
	}
	if amount != nil {
		if !(*amount >= 0 && *amount <= ledger.MaxAmount) {
			return ledger.Score{}, BadInput("amount must be 0 to %d", int64(ledger.MaxAmount))
		}
		t := s.Decide(*amount)
		s.Task = &t
	}
	return s, nil
}

// rulesErrors returns the error findings of a parsed rules block, joined.
func rulesErrors(f *ledger.File) string {
	var msgs []string
	for _, x := range f.Issues {
		if x.Severity == ledger.SeverityError {
			msgs = append(msgs, x.Message)
		}
	}
	return strings.Join(msgs, "; ")
}

// RankOut is the result of rank_counterparties.
type RankOut struct {
	AsOf           ledger.Date    `json:"as_of"`
	Counterparties []ledger.Score `json:"counterparties"`
}

// Rank scores every counterparty in a ledger file as of asOf, trusted
// first and blocked last.
func Rank(text []byte, asOf ledger.Date) (RankOut, error) {
	f, err := ParseText(text)
	if err != nil {
		return RankOut{}, err
	}
	out := RankOut{AsOf: asOf, Counterparties: f.Rank(asOf)}
	if out.Counterparties == nil {
		out.Counterparties = []ledger.Score{}
	}
	return out, nil
}

// TierIn is the input of tier_for; the thresholds default to the format's.
type TierIn struct {
	Score         float64  `json:"score" jsonschema:"the score, 0 to 100"`
	Events        int      `json:"events" jsonschema:"how many events the score counts"`
	Trusted       *float64 `json:"trusted,omitempty" jsonschema:"the trusted minimum (default 75)"`
	Standard      *float64 `json:"standard,omitempty" jsonschema:"the standard minimum (default 50)"`
	Watch         *float64 `json:"watch,omitempty" jsonschema:"the watch minimum (default 25); below it is blocked"`
	MinEvents     *int     `json:"min_events,omitempty" jsonschema:"events needed before a score counts (default 3)"`
	SpendTrusted  *float64 `json:"spend_trusted,omitempty" jsonschema:"trusted spend per task without asking (default 500)"`
	SpendStandard *float64 `json:"spend_standard,omitempty" jsonschema:"standard spend per task without asking (default 100)"`
}

// TierOut is the result of tier_for.
type TierOut struct {
	Score      float64       `json:"score"`
	Events     int           `json:"events"`
	Tier       ledger.Tier   `json:"tier"`
	Unrated    bool          `json:"unrated"`
	Action     ledger.Action `json:"action"`
	SpendLimit float64       `json:"spend_limit"`
	Rules      ledger.Rules  `json:"rules"` // the thresholds used
}

// Tier returns the tier for a score and an event count under the
// thresholds of in.
func Tier(in TierIn) (TierOut, error) {
	r := ledger.DefaultRules()
	set := func(dst *float64, v *float64) {
		if v != nil {
			*dst = *v
		}
	}
	set(&r.Tiers.Trusted, in.Trusted)
	set(&r.Tiers.Standard, in.Standard)
	set(&r.Tiers.Watch, in.Watch)
	set(&r.SpendPerTask.Trusted, in.SpendTrusted)
	set(&r.SpendPerTask.Standard, in.SpendStandard)
	if in.MinEvents != nil {
		r.MinEvents = *in.MinEvents
	}
	if err := r.Validate(); err != nil {
		return TierOut{}, fmt.Errorf("%w: %v", ErrBadInput, err)
	}
	if !(in.Score >= 0 && in.Score <= 100) || in.Events < 0 {
		return TierOut{}, BadInput("score must be 0 to 100 and events at least 0")
	}
	t := ledger.TierFor(in.Score, in.Events, r.Tiers, r.MinEvents)
	return TierOut{
		Score: in.Score, Events: in.Events, Tier: t, Unrated: in.Events < r.MinEvents,
		Action: ledger.ActionFor(t), SpendLimit: ledger.SpendLimit(t, r.SpendPerTask), Rules: r,
	}, nil
}

// CurveIn is the input of decay_curve: either the figures, or a file and a
// counterparty to take them from.
type CurveIn struct {
	Score           *float64 `json:"score,omitempty" jsonschema:"the score now, 0 to 100"`
	EvidenceMass    *float64 `json:"evidence_mass,omitempty" jsonschema:"positive plus negative mass now"`
	EffectiveEvents *float64 `json:"effective_events,omitempty" jsonschema:"the sum of the event decays now"`
	HalfLifeDays    float64  `json:"half_life_days,omitempty" jsonschema:"the half-life in days (default 90, or the file's)"`
	Days            int      `json:"days,omitempty" jsonschema:"how many days to trace (default 180)"`
	Step            int      `json:"step,omitempty" jsonschema:"days between points (default: about 30 points)"`
	Trusted         *float64 `json:"trusted,omitempty" jsonschema:"the trusted minimum (default 75)"`
	Standard        *float64 `json:"standard,omitempty" jsonschema:"the standard minimum (default 50)"`
	Watch           *float64 `json:"watch,omitempty" jsonschema:"the watch minimum (default 25)"`
	Text            string   `json:"text,omitempty" jsonschema:"a REPUTATION.md file to take the figures and rules from, with counterparty"`
	Counterparty    string   `json:"counterparty,omitempty" jsonschema:"the counterparty to trace, with text"`
	AsOf            string   `json:"as_of,omitempty" jsonschema:"with text: the day to read the file as of, YYYY-MM-DD (default today)"`
}

// Curve traces a score forward with no new events, from the figures in in
// or from a file's text and a counterparty read as of asOf (in.AsOf is the
// MCP server's to parse; Curve does not read it).
func Curve(in CurveIn, asOf ledger.Date) (ledger.Curve, error) {
	ci := ledger.CurveInput{HalfLifeDays: in.HalfLifeDays, Days: in.Days, Step: in.Step, Tiers: ledger.DefaultRules().Tiers}
	switch {
	case in.Text != "" || in.Counterparty != "":
		if in.Text == "" || in.Counterparty == "" || in.Score != nil || in.EvidenceMass != nil || in.EffectiveEvents != nil {
			return ledger.Curve{}, BadInput("give either score, evidence_mass and effective_events, or a file's text and a counterparty")
		}
		f, err := ParseText([]byte(in.Text))
		if err != nil {
			return ledger.Curve{}, err
		}
		s := f.Score(in.Counterparty, asOf)
		ci.Score, ci.EvidenceMass, ci.EffectiveEvents, ci.Tiers = s.Score, s.EvidenceMass, s.EffectiveEvents, f.Rules.Tiers
		if ci.HalfLifeDays == 0 {
			ci.HalfLifeDays = f.Rules.HalfLifeDays
		}
	case in.Score == nil || in.EvidenceMass == nil:
		return ledger.Curve{}, BadInput("score and evidence_mass are required (or a file's text and a counterparty)")
	default:
		ci.Score, ci.EvidenceMass = *in.Score, *in.EvidenceMass
		if in.EffectiveEvents != nil {
			ci.EffectiveEvents = *in.EffectiveEvents
		}
	}
	for _, o := range []struct {
		dst *float64
		v   *float64
	}{{&ci.Tiers.Trusted, in.Trusted}, {&ci.Tiers.Standard, in.Standard}, {&ci.Tiers.Watch, in.Watch}} {
		if o.v != nil {
			*o.dst = *o.v
		}
	}
	c, err := ledger.DecayCurve(ci)
	if err != nil {
		return ledger.Curve{}, fmt.Errorf("%w: %v", ErrBadInput, err)
	}
	return c, nil
}

// PathToTier returns the fewest events of type typ that would lift
// counterparty id into the target tier, and the decay days to threshold.
func PathToTier(text []byte, id string, asOf ledger.Date, target, typ string, threshold *float64) (ledger.Path, error) {
	if err := ledger.CheckID(id); err != nil {
		return ledger.Path{}, fmt.Errorf("%w: counterparty: %v", ErrBadInput, err)
	}
	tier, err := ledger.ParseTier(target)
	if err != nil {
		return ledger.Path{}, fmt.Errorf("%w: target: %v", ErrBadInput, err)
	}
	if typ == "" {
		typ = string(ledger.Delivered)
	}
	et, err := ledger.ParseEventType(typ)
	if err != nil {
		return ledger.Path{}, fmt.Errorf("%w: type: %v", ErrBadInput, err)
	}
	f, err := ParseText(text)
	if err != nil {
		return ledger.Path{}, err
	}
	p, err := f.PathToTier(id, asOf, tier, et, threshold)
	if err != nil {
		return ledger.Path{}, fmt.Errorf("%w: %v", ErrBadInput, err)
	}
	return p, nil
}

// MergeOut is the result of merge_records.
type MergeOut struct {
	Text      string            `json:"text"` // the merged file
	Conflicts []ledger.Conflict `json:"conflicts"`
	RulesFrom ledger.Side       `json:"rules_from,omitempty"`
	IssuesA   []ledger.Finding  `json:"issues_a"` // lines of a that could not be read and are not in the merge
	IssuesB   []ledger.Finding  `json:"issues_b"`
}

// Merge merges two ledger files of the same owner; prefer ("a" or "b")
// names the file that wins a conflict.
func Merge(a, b []byte, prefer string) (MergeOut, error) {
	fa, err := ParseText(a)
	if err != nil {
		return MergeOut{}, fmt.Errorf("a: %w", err)
	}
	fb, err := ParseText(b)
	if err != nil {
		return MergeOut{}, fmt.Errorf("b: %w", err)
	}
	m, err := ledger.Merge(fa, fb, ledger.Side(prefer))
	if err != nil {
		return MergeOut{}, fmt.Errorf("%w: %v", ErrBadInput, err)
	}
	nonNil := func(fs []ledger.Finding) []ledger.Finding {
		if fs == nil {
			return []ledger.Finding{}
		}
		return fs
	}
	return MergeOut{Text: m.Text, Conflicts: m.Conflicts, RulesFrom: m.RulesFrom, IssuesA: nonNil(fa.Issues), IssuesB: nonNil(fb.Issues)}, nil
}

// TextOut is the result of reputation_template.
type TextOut struct {
	Text string `json:"text"`
}

// Template returns a new ledger file with the default rules.
func Template(owner, counterparty, kind string, categories []string, asOf ledger.Date) (TextOut, error) {
	for i := range categories {
		categories[i] = strings.TrimSpace(categories[i])
	}
	text, err := ledger.Template(ledger.TemplateInput{Owner: owner, Counterparty: counterparty, Kind: ledger.Kind(kind), Categories: categories, AsOf: asOf})
	if err != nil {
		return TextOut{}, fmt.Errorf("%w: %v", ErrBadInput, err)
	}
	return TextOut{Text: text}, nil
}

// Starter returns the starter called name, written for owner as of asOf.
func Starter(name, owner string, asOf ledger.Date) (ledger.Starter, error) {
	s, err := ledger.StarterFor(name, owner, asOf)
	if err != nil {
		return ledger.Starter{}, fmt.Errorf("%w: %v", ErrBadInput, err)
	}
	return s, nil
}

// Parse returns a ledger file's canonical document.
func Parse(text []byte) (ledger.Document, error) {
	f, err := ParseText(text)
	if err != nil {
		return ledger.Document{}, err
	}
	return f.Document(), nil
}
