package ledger

import (
	"fmt"
	"strings"
)

// Kind is what sort of party a counterparty is.
type Kind string

// The four kinds a counterparty can be.
const (
	KindAgent   Kind = "agent"
	KindService Kind = "service"
	KindStore   Kind = "store"
	KindFirm    Kind = "firm"
)

// Kinds lists every kind in the order the format documents them.
var Kinds = []Kind{KindAgent, KindService, KindStore, KindFirm}

// ParseKind reads a kind, which must be one of [Kinds] in lower case.
func ParseKind(s string) (Kind, error) {
	switch k := Kind(s); k {
	case KindAgent, KindService, KindStore, KindFirm:
		return k, nil
	}
	return "", fmt.Errorf("ledger: kind %q is not one of agent, service, store, firm", s)
}

// EventType is the outcome an event records. Each type has a weight in the
// rules; the first three count for a counterparty, the rest against.
type EventType string

// The eight event types.
const (
	Delivered EventType = "delivered" // what was promised arrived or was done
	Honored   EventType = "honored"   // a quote, return, warranty or term was kept
	Resolved  EventType = "resolved"  // a dispute was settled to the owner's satisfaction
	Late      EventType = "late"      // delivered after the agreed time
	Refunded  EventType = "refunded"  // money came back instead of the thing
	Disputed  EventType = "disputed"  // the owner had to open a dispute
	Failed    EventType = "failed"    // not delivered and not made right
	Breached  EventType = "breached"  // a term was broken or a commitment denied
)

// EventTypes lists every event type in the order the format documents them.
var EventTypes = []EventType{Delivered, Honored, Resolved, Late, Refunded, Disputed, Failed, Breached}

// ParseEventType reads an event type, which must be one of [EventTypes] in
// lower case.
func ParseEventType(s string) (EventType, error) {
	switch t := EventType(s); t {
	case Delivered, Honored, Resolved, Late, Refunded, Disputed, Failed, Breached:
		return t, nil
	}
	return "", fmt.Errorf("ledger: event type %q is not one of delivered, honored, resolved, late, refunded, disputed, failed, breached", s)
}

// Good reports whether events of type t count for a counterparty (their
// weight must be positive) rather than against it (negative).
func (t EventType) Good() bool { return t == Delivered || t == Honored || t == Resolved }

// index returns t's position in [EventTypes], or -1.
func (t EventType) index() int {
	switch t {
	case Delivered:
		return 0
	case Honored:
		return 1
	case Resolved:
		return 2
	case Late:
		return 3
	case Refunded:
		return 4
	case Disputed:
		return 5
	case Failed:
		return 6
	case Breached:
		return 7
	}
	return -1
}

// Tier is how far an owner's agent may go with a counterparty before asking
// the person it works for.
type Tier string

// The tiers, from most to least trusted.
const (
	Trusted  Tier = "trusted"  // go ahead up to the trusted spend per task
	Standard Tier = "standard" // go ahead up to the standard spend per task
	Watch    Tier = "watch"    // ask before any dealing
	Unrated  Tier = "unrated"  // too few events for the score to count: treated as watch
	Blocked  Tier = "blocked"  // hold off: no new dealing until the person lifts it
)

// Rank orders tiers: Trusted 4, Standard 3, Watch 2, Unrated 1, Blocked 0,
// and -1 for anything else.
func (t Tier) Rank() int {
	switch t {
	case Trusted:
		return 4
	case Standard:
		return 3
	case Watch:
		return 2
	case Unrated:
		return 1
	case Blocked:
		return 0
	}
	return -1
}

// ParseTier reads a tier name.
func ParseTier(s string) (Tier, error) {
	if t := Tier(s); t.Rank() >= 0 {
		return t, nil
	}
	return "", fmt.Errorf("ledger: tier %q is not one of trusted, standard, watch, unrated, blocked", s)
}

// Counterparty is a party the owner deals with, declared once in the
// Counterparties section.
type Counterparty struct {
	ID         string   `json:"id"`
	Kind       Kind     `json:"kind"`
	Categories []string `json:"categories"` // sorted, without repeats; empty for none
	Note       string   `json:"note,omitempty"`
	Line       int      `json:"-"` // 1-based line in the source, 0 when not read from a file
}

// Event is one outcome of one dealing, dated the day it became known.
type Event struct {
	Date         Date      `json:"date"`
	Counterparty string    `json:"counterparty"`
	Type         EventType `json:"type"`
	Amount       *float64  `json:"amount,omitempty"` // in the owner's own unit; nil when not recorded
	Note         string    `json:"note,omitempty"`
	Line         int       `json:"-"` // 1-based line in the source, 0 when not read from a file
}

// Severity says whether a finding must be fixed (error) or read (warning).
type Severity string

// The two severities.
const (
	SeverityError   Severity = "error"
	SeverityWarning Severity = "warning"
)

// Finding is one thing [Parse] or [Check] noticed about a file, tied to the
// line it concerns (line 1 for the file as a whole).
type Finding struct {
	Line     int      `json:"line"`
	Severity Severity `json:"severity"`
	Code     Code     `json:"code"`
	Message  string   `json:"message"`
}

// String writes the finding as "line N: severity: message (code)".
func (f Finding) String() string {
	return fmt.Sprintf("line %d: %s: %s (%s)", f.Line, f.Severity, f.Message, f.Code)
}

// Code is a stable reason code for a [Finding]. Programs match on codes;
// messages may change. Codes are written in snake_case, as every reason
// code of the project is; findings written before, whose codes were
// spelled with hyphens ("bad-date"), read back as the same codes (see
// [Code.UnmarshalText]).
type Code string

// UnmarshalText reads a code in its snake_case spelling or in the
// hyphenated one written before, so that findings kept from an earlier
// version decode to the constants below.
func (c *Code) UnmarshalText(b []byte) error {
	*c = Code(strings.ReplaceAll(string(b), "-", "_"))
	return nil
}

// Reason codes. Those marked "check" come only from [Check]; the others
// come from [Parse] as well.
const (
	CodeFrontmatter          Code = "frontmatter"           // frontmatter missing, unclosed or with a bad or unknown field
	CodeUnset                Code = "unset"                 // the frontmatter has no owner or no updated field
	CodeVersion              Code = "version"               // reputation: is missing or not 1
	CodeNotARecord           Code = "not_a_record"          // a line in a record section that is not a "- " record
	CodeBadLine              Code = "bad_line"              // a line that is too long, not UTF-8 or holds control characters
	CodeMissingField         Code = "missing_field"         // a record with too few fields
	CodeBadID                Code = "bad_id"                // an id with spaces, capitals or commas, empty, or over 120 characters
	CodeBadKind              Code = "bad_kind"              // a kind outside agent, service, store, firm
	CodeBadCategory          Code = "bad_category"          // an empty category in a list
	CodeBadDate              Code = "bad_date"              // a date that is not a real YYYY-MM-DD day
	CodeBadType              Code = "bad_type"              // an event type outside the eight
	CodeBadAmount            Code = "bad_amount"            // an amount with a sign, currency, separator or too many digits
	CodeRepeatedCounterparty Code = "repeated_counterparty" // an id declared twice; the first declaration is kept
	CodeUnknownRule          Code = "unknown_rule"          // a rule key the format does not define
	CodeRepeatedRule         Code = "repeated_rule"         // a rule key written twice; the first is kept
	CodeRuleValue            Code = "rule_value"            // a rule value that cannot be read
	CodeRuleRange            Code = "rule_range"            // a rule value outside its range; the default is kept
	CodeBadBlockedID         Code = "bad_blocked_id"        // an id under blocked that cannot be read
	CodeTierOrder            Code = "tier_order"            // tier minimums not in descending order; the defaults are kept
	CodeWeightSign           Code = "weight_sign"           // a weight whose sign contradicts its type; the default is kept
	CodeUndeclared           Code = "undeclared"            // check: events for a counterparty not declared
	CodeNoEvents             Code = "no_events"             // check: a declared counterparty with no events
	CodeDuplicateEvent       Code = "duplicate_event"       // check: two events with the same counterparty, date and type
	CodeAfterAsOf            Code = "after_as_of"           // check: an event or update dated after as_of
	CodeInstruction          Code = "instruction"           // check: text that reads like an instruction to the reader
	CodeReviewDue            Code = "review_due"            // check: updated is older than review_days
)
