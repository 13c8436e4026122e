package ledger

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// RuleKey names one setting in the Rules section.
type RuleKey string

// The rule keys, in the order the canonical form writes them.
const (
	KeyHalfLifeDays RuleKey = "half_life_days"
	KeyMinEvents    RuleKey = "min_events"
	KeyReviewDays   RuleKey = "review_days"
	KeyWeights      RuleKey = "weights"
	KeyTiers        RuleKey = "tiers"
	KeySpendPerTask RuleKey = "spend_per_task"
	KeyBlocked      RuleKey = "blocked"
)

// RuleKeys lists every rule key in canonical order.
var RuleKeys = []RuleKey{KeyHalfLifeDays, KeyMinEvents, KeyReviewDays, KeyWeights, KeyTiers, KeySpendPerTask, KeyBlocked}

// Ranges of the rule values. A value outside its range is reported and the
// default is kept in its place.
const (
	MinHalfLifeDays = 1    // days
	MaxHalfLifeDays = 3650 // ten years
	MinMinEvents    = 1
	MaxMinEvents    = 1000
	MinReviewDays   = 1
	MaxReviewDays   = 3650
	MinWeight       = -10 // points per event, as the format defines
	MaxWeight       = 10
	MinTier         = 0 // tier minimums are scores
	MaxTier         = 100
	MaxAmount       = 999_999_999_999_999 // the largest amount or spend limit: fifteen digits
)

// maxNumberDigits bounds the digits in any number the format reads, so that
// every accepted number is exact in a float64.
const maxNumberDigits = 15

// Weights gives the points each event type is worth. Good types
// (delivered, honored, resolved) are positive and the rest negative.
type Weights struct {
	Delivered float64 `json:"delivered"`
	Honored   float64 `json:"honored"`
	Resolved  float64 `json:"resolved"`
	Late      float64 `json:"late"`
	Refunded  float64 `json:"refunded"`
	Disputed  float64 `json:"disputed"`
	Failed    float64 `json:"failed"`
	Breached  float64 `json:"breached"`
}

// Of returns the weight of t, or 0 for an unknown type.
func (w Weights) Of(t EventType) float64 {
	if p := w.field(t); p != nil {
		return *p
	}
	return 0
}

func (w *Weights) field(t EventType) *float64 {
	switch t {
	case Delivered:
		return &w.Delivered
	case Honored:
		return &w.Honored
	case Resolved:
		return &w.Resolved
	case Late:
		return &w.Late
	case Refunded:
		return &w.Refunded
	case Disputed:
		return &w.Disputed
	case Failed:
		return &w.Failed
	case Breached:
		return &w.Breached
	}
	return nil
}

// Tiers holds the score at which each tier starts. A score below Watch is
// blocked.
type Tiers struct {
	Trusted  float64 `json:"trusted"`
	Standard float64 `json:"standard"`
	Watch    float64 `json:"watch"`
}

// Validate reports tier minimums outside 0..100 or not in strictly
// descending order.
func (t Tiers) Validate() error {
	for _, v := range []float64{t.Trusted, t.Standard, t.Watch} {
		if !(v >= MinTier && v <= MaxTier) {
			return fmt.Errorf("ledger: tier minimum %s is outside %d to %d", num(v), MinTier, MaxTier)
		}
	}
	if !(t.Trusted > t.Standard && t.Standard > t.Watch) {
		return fmt.Errorf("ledger: tier minimums must descend: trusted %s > standard %s > watch %s", num(t.Trusted), num(t.Standard), num(t.Watch))
	}
	return nil
}

// line returns the minimum score of tier, and whether tier has one.
func (t Tiers) line(tier Tier) (float64, bool) {
	switch tier {
	case Trusted:
		return t.Trusted, true
	case Standard:
		return t.Standard, true
	case Watch:
		return t.Watch, true
	}
	return 0, false
}

// Spend is what a tier may be paid per task without asking, in the owner's
// unit. Watch and unrated always ask; blocked never deals.
type Spend struct {
	Trusted  float64 `json:"trusted"`
	Standard float64 `json:"standard"`
}

// Rules are the settings a ledger is scored with.
type Rules struct {
	HalfLifeDays float64  `json:"half_life_days"` // an event's weight halves every this many days
	MinEvents    int      `json:"min_events"`     // events needed before a score counts
	ReviewDays   int      `json:"review_days"`    // review the whole file at least this often
	Weights      Weights  `json:"weights"`        // points per event type
	Tiers        Tiers    `json:"tiers"`          // the score each tier starts at
	SpendPerTask Spend    `json:"spend_per_task"` // what each tier may be paid per task without asking
	Blocked      []string `json:"blocked"`        // ids the person blocked outright, sorted
}

// DefaultRules returns the rules in force when a file sets none.
func DefaultRules() Rules {
	return Rules{
		HalfLifeDays: 90,
		MinEvents:    3,
		ReviewDays:   30,
		Weights: Weights{
			Delivered: 1, Honored: 1, Resolved: 0.5,
			Late: -0.5, Refunded: -0.5, Disputed: -1, Failed: -2, Breached: -3,
		},
		Tiers:        Tiers{Trusted: 75, Standard: 50, Watch: 25},
		SpendPerTask: Spend{Trusted: 500, Standard: 100},
		Blocked:      []string{},
	}
}

// Validate reports the first value outside its range, a weight with the
// wrong sign, tiers out of order or an unreadable blocked id.
func (r Rules) Validate() error {
	var errs []error
	if !(r.HalfLifeDays >= MinHalfLifeDays && r.HalfLifeDays <= MaxHalfLifeDays) {
		errs = append(errs, fmt.Errorf("half_life_days %s is outside %d to %d", num(r.HalfLifeDays), MinHalfLifeDays, MaxHalfLifeDays))
	}
	if r.MinEvents < MinMinEvents || r.MinEvents > MaxMinEvents {
		errs = append(errs, fmt.Errorf("min_events %d is outside %d to %d", r.MinEvents, MinMinEvents, MaxMinEvents))
	}
	if r.ReviewDays < MinReviewDays || r.ReviewDays > MaxReviewDays {
		errs = append(errs, fmt.Errorf("review_days %d is outside %d to %d", r.ReviewDays, MinReviewDays, MaxReviewDays))
	}
	for _, t := range EventTypes {
		if msg := checkWeight(t, r.Weights.Of(t)); msg != "" {
			errs = append(errs, errors.New(msg))
		}
	}
	if err := r.Tiers.Validate(); err != nil {
		errs = append(errs, err)
	}
	for _, v := range []float64{r.SpendPerTask.Trusted, r.SpendPerTask.Standard} {
		if !(v >= 0 && v <= MaxAmount) {
			errs = append(errs, fmt.Errorf("spend_per_task %s is outside 0 to %d", num(v), int64(MaxAmount)))
		}
	}
	for _, id := range r.Blocked {
		if err := CheckID(id); err != nil {
			errs = append(errs, err)
		}
	}
	if len(errs) > 0 {
		return fmt.Errorf("ledger: rules: %w", errors.Join(errs...))
	}
	return nil
}

// checkWeight returns why weight v cannot be the weight of t, or "".
func checkWeight(t EventType, v float64) string {
	switch {
	case !(v >= MinWeight && v <= MaxWeight):
		return fmt.Sprintf("weight %s for %s is outside %d to %d", num(v), t, MinWeight, MaxWeight)
	case t.Good() && v < 0:
		return fmt.Sprintf("weight %s for %s is negative; %s counts for a counterparty", num(v), t, t)
	case !t.Good() && v > 0:
		return fmt.Sprintf("weight %s for %s is positive; %s counts against a counterparty", num(v), t, t)
	}
	return ""
}

// Line returns the rule key's line as the canonical form writes it,
// "- key: value", without a newline.
func (r Rules) Line(key RuleKey) string {
	var v string
	switch key {
	case KeyHalfLifeDays:
		v = num(r.HalfLifeDays)
	case KeyMinEvents:
		v = strconv.Itoa(r.MinEvents)
	case KeyReviewDays:
		v = strconv.Itoa(r.ReviewDays)
	case KeyWeights:
		parts := make([]string, len(EventTypes))
		for i, t := range EventTypes {
			parts[i] = string(t) + " " + num(r.Weights.Of(t))
		}
		v = strings.Join(parts, ", ")
	case KeyTiers:
		v = fmt.Sprintf("trusted %s, standard %s, watch %s", num(r.Tiers.Trusted), num(r.Tiers.Standard), num(r.Tiers.Watch))
	case KeySpendPerTask:
		v = fmt.Sprintf("trusted %s, standard %s", num(r.SpendPerTask.Trusted), num(r.SpendPerTask.Standard))
	case KeyBlocked:
		v = "none"
		if len(r.Blocked) > 0 {
			v = strings.Join(r.Blocked, ", ")
		}
	default:
		return ""
	}
	return "- " + string(key) + ": " + v
}

// Block returns the lines of a Rules section for keys, in canonical order,
// each ending in a newline. Block(RuleKeys) writes every rule. A long
// blocked list is written over several blocked lines, each under
// [MaxLineBytes].
func (r Rules) Block(keys []RuleKey) string {
	var b strings.Builder
	for _, k := range RuleKeys {
		if !slices.Contains(keys, k) {
			continue
		}
		if k == KeyBlocked && len(r.Blocked) > 0 {
			const prefix, width = "- blocked: ", MaxLineBytes / 2
			n := 0
			for i, id := range r.Blocked {
				switch {
				case i == 0:
					b.WriteString(prefix)
				case n+2+len(id) > width:
					b.WriteString("\n" + prefix)
					n = 0
				default:
					b.WriteString(", ")
					n += 2
				}
				b.WriteString(id)
				n += len(id)
			}
			b.WriteByte('\n')
			continue
		}
		b.WriteString(r.Line(k))
		b.WriteByte('\n')
	}
	return b.String()
}

// num writes a number as the canonical form does: no exponent, no trailing
// zeros.
func num(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }

// parseNumber reads a plain decimal number: digits, at most one decimal
// point with digits on both sides, a leading minus only when signed is
// true, and at most fifteen digits in all.
func parseNumber(s string, signed bool) (float64, bool) {
	body := s
	if signed && strings.HasPrefix(body, "-") {
		body = body[1:]
	}
	n, dots := 0, 0
	for i := 0; i < len(body); i++ {
		switch c := body[i]; {
		case c >= '0' && c <= '9':
			n++
		case c == '.' && i > 0 && i < len(body)-1 && dots == 0:
			dots++
		default:
			return 0, false
		}
	}
	if n == 0 || n > maxNumberDigits {
		return 0, false
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return 0, false
	}
	if v == 0 {
		v = 0 // no negative zero
	}
	return v, true
}

// ruleReader applies Rules lines to rules in force, reporting problems.
type ruleReader struct {
	rules  Rules
	seen   map[RuleKey]int // key -> first line that set it
	set    map[RuleKey]bool
	report func(line int, sev Severity, code Code, format string, args ...any)
}

func newRuleReader(report func(int, Severity, Code, string, ...any)) *ruleReader {
	return &ruleReader{rules: DefaultRules(), seen: map[RuleKey]int{}, set: map[RuleKey]bool{}, report: report}
}

// read applies one "- key: value" record body (without the list marker).
func (rr *ruleReader) read(line int, body string) {
	k, v, ok := strings.Cut(body, ":")
	if !ok {
		rr.report(line, SeverityError, CodeRuleValue, "rule line has no \"key: value\"; skipped")
		return
	}
	key, value := RuleKey(strings.TrimSpace(k)), strings.TrimSpace(v)
	if !slices.Contains(RuleKeys, key) {
		rr.report(line, SeverityWarning, CodeUnknownRule, "unknown rule key %q; skipped (known keys: %s)", string(key), joinKeys())
		return
	}
	if key != KeyBlocked {
		if first, dup := rr.seen[key]; dup {
			rr.report(line, SeverityError, CodeRepeatedRule, "rule %s is already set on line %d; this line is ignored", key, first)
			return
		}
		rr.seen[key] = line
	}
	if value == "" {
		rr.report(line, SeverityError, CodeRuleValue, "rule %s has no value; the default is kept", key)
		return
	}
	switch key {
	case KeyHalfLifeDays:
		x, ok := parseNumber(value, false)
		switch {
		case !ok:
			rr.report(line, SeverityError, CodeRuleValue, "half_life_days %q is not a plain number; the default %s is kept", value, num(rr.rules.HalfLifeDays))
		case x < MinHalfLifeDays || x > MaxHalfLifeDays:
			rr.report(line, SeverityError, CodeRuleRange, "half_life_days %s is outside %d to %d; the default %s is kept", value, MinHalfLifeDays, MaxHalfLifeDays, num(rr.rules.HalfLifeDays))
		default:
			rr.rules.HalfLifeDays, rr.set[key] = x, true
		}
	case KeyMinEvents, KeyReviewDays:
		lo, hi, dst := MinMinEvents, MaxMinEvents, &rr.rules.MinEvents
		if key == KeyReviewDays {
			lo, hi, dst = MinReviewDays, MaxReviewDays, &rr.rules.ReviewDays
		}
		x, ok := parseNumber(value, false)
		switch {
		case !ok || x != float64(int64(x)) || strings.Contains(value, "."):
			rr.report(line, SeverityError, CodeRuleValue, "%s %q is not a whole number; the default %d is kept", key, value, *dst)
		case x < float64(lo) || x > float64(hi):
			rr.report(line, SeverityError, CodeRuleRange, "%s %s is outside %d to %d; the default %d is kept", key, value, lo, hi, *dst)
		default:
			*dst, rr.set[key] = int(x), true
		}
	case KeyWeights:
		rr.weights(line, value)
	case KeyTiers:
		rr.tiers(line, value)
	case KeySpendPerTask:
		rr.spend(line, value)
	case KeyBlocked:
		rr.blocked(line, value)
	}
}

// pairs reads "name number, name number" into parts, reporting any part
// that is not a name and a number.
func (rr *ruleReader) pairs(line int, key RuleKey, value string, signed bool, each func(name string, v float64, raw string)) {
	for part := range strings.SplitSeq(value, ",") {
		f := strings.Fields(part)
		if len(f) != 2 {
			rr.report(line, SeverityError, CodeRuleValue, "%s: %q is not \"name number\"; skipped", key, strings.TrimSpace(part))
			continue
		}
		v, ok := parseNumber(f[1], signed)
		if !ok {
			rr.report(line, SeverityError, CodeRuleValue, "%s: %q is not a plain number; skipped", key, f[1])
			continue
		}
		each(f[0], v, f[1])
	}
}

func (rr *ruleReader) weights(line int, value string) {
	w := rr.rules.Weights
	done := map[EventType]bool{}
	applied := false
	rr.pairs(line, KeyWeights, value, true, func(name string, v float64, raw string) {
		t, err := ParseEventType(name)
		switch {
		case err != nil:
			rr.report(line, SeverityError, CodeRuleValue, "weights: %q is not an event type; skipped", name)
		case done[t]:
			rr.report(line, SeverityError, CodeRepeatedRule, "weights: %s is given twice; the first is kept", t)
		case v < MinWeight || v > MaxWeight:
			done[t] = true
			rr.report(line, SeverityError, CodeRuleRange, "weights: %s %s is outside %d to %d; the default %s is kept", t, raw, MinWeight, MaxWeight, num(w.Of(t)))
		case checkWeight(t, v) != "":
			done[t] = true
			rr.report(line, SeverityError, CodeWeightSign, "weights: %s; the default %s is kept", checkWeight(t, v), num(w.Of(t)))
		default:
			done[t] = true
			*w.field(t) = v
			applied = true
		}
	})
	if applied {
		rr.rules.Weights, rr.set[KeyWeights] = w, true
	}
}

func (rr *ruleReader) tiers(line int, value string) {
	t := rr.rules.Tiers
	done := map[Tier]bool{}
	applied := false
	rr.pairs(line, KeyTiers, value, false, func(name string, v float64, raw string) {
		tier := Tier(name)
		p := map[Tier]*float64{Trusted: &t.Trusted, Standard: &t.Standard, Watch: &t.Watch}[tier]
		switch {
		case p == nil:
			rr.report(line, SeverityError, CodeRuleValue, "tiers: %q is not trusted, standard or watch; skipped", name)
		case done[tier]:
			rr.report(line, SeverityError, CodeRepeatedRule, "tiers: %s is given twice; the first is kept", tier)
		case v > MaxTier:
			done[tier] = true
			rr.report(line, SeverityError, CodeRuleRange, "tiers: %s %s is outside %d to %d; the default is kept", tier, raw, MinTier, MaxTier)
		default:
			done[tier] = true
			*p = v
			applied = true
		}
	})
	if !applied {
		return
	}
	if err := t.Validate(); err != nil {
		d := DefaultRules().Tiers
		rr.report(line, SeverityError, CodeTierOrder, "tiers: trusted %s, standard %s, watch %s are not in descending order; the defaults trusted %s, standard %s, watch %s are kept",
			num(t.Trusted), num(t.Standard), num(t.Watch), num(d.Trusted), num(d.Standard), num(d.Watch))
		return
	}
	rr.rules.Tiers, rr.set[KeyTiers] = t, true
}

func (rr *ruleReader) spend(line int, value string) {
	s := rr.rules.SpendPerTask
	done := map[Tier]bool{}
	applied := false
	rr.pairs(line, KeySpendPerTask, value, false, func(name string, v float64, raw string) {
		tier := Tier(name)
		p := map[Tier]*float64{Trusted: &s.Trusted, Standard: &s.Standard}[tier]
		switch {
		case p == nil && (tier == Watch || tier == Unrated || tier == Blocked):
			rr.report(line, SeverityError, CodeRuleValue, "spend_per_task: %s has no spend limit (watch and unrated always ask, blocked never deals); skipped", name)
		case p == nil:
			rr.report(line, SeverityError, CodeRuleValue, "spend_per_task: %q is not trusted or standard; skipped", name)
		case done[tier]:
			rr.report(line, SeverityError, CodeRepeatedRule, "spend_per_task: %s is given twice; the first is kept", tier)
		default:
			done[tier] = true
			*p = v
			applied = true
		}
	})
	if applied {
		rr.rules.SpendPerTask, rr.set[KeySpendPerTask] = s, true
	}
}

func (rr *ruleReader) blocked(line int, value string) {
	if value == "none" {
		rr.set[KeyBlocked] = true
		return
	}
	for part := range strings.SplitSeq(value, ",") {
		id := strings.TrimSpace(part)
		if id == "none" {
			rr.set[KeyBlocked] = true
			continue
		}
		if why := idProblem(id); why != "" {
			rr.report(line, SeverityError, CodeBadBlockedID, "blocked: %q cannot be read as an id (%s); it is not blocked", id, why)
			continue
		}
		if !slices.Contains(rr.rules.Blocked, id) {
			rr.rules.Blocked = append(rr.rules.Blocked, id)
		}
		rr.set[KeyBlocked] = true
	}
}

// keys returns the rule keys the file set, in canonical order.
func (rr *ruleReader) keys() []RuleKey {
	var out []RuleKey
	for _, k := range RuleKeys {
		if rr.set[k] {
			out = append(out, k)
		}
	}
	return out
}

func joinKeys() string {
	s := make([]string, len(RuleKeys))
	for i, k := range RuleKeys {
		s[i] = string(k)
	}
	return strings.Join(s, ", ")
}
