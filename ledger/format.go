package ledger

import (
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"slices"
	"strings"
)

// Canonical returns the file's canonical text: frontmatter, then the three
// sections with counterparties sorted by id, events sorted by date (then
// counterparty, type, amount and note), and the rules the file set, each
// written one way. Lines that could not be read are not in it. Two files
// with the same canonical text hold the same records and settings.
func (f *File) Canonical() string {
	var b strings.Builder
	b.WriteString("---\nreputation: 1\n")
	if f.Owner != "" {
		owner := f.Owner
		if unquote(owner) != owner {
			owner = `"` + owner + `"` // keep quotes that are part of the id
		}
		b.WriteString("owner: " + owner + "\n")
	}
	if !f.Updated.IsZero() {
		b.WriteString("updated: " + f.Updated.String() + "\n")
	}
	b.WriteString("---\n\n# REPUTATION.md\n\n## Counterparties\n\n")
	for _, c := range sortedCounterparties(f.Counterparties) {
		b.WriteString(counterpartyLine(c))
		b.WriteByte('\n')
	}
	b.WriteString("\n## Events\n\n")
	for _, e := range sortedEvents(f.Events) {
		b.WriteString(eventLine(e))
		b.WriteByte('\n')
	}
	b.WriteString("\n## Rules\n\n")
	b.WriteString(f.Rules.Block(f.RulesSet))
	return b.String()
}

// SHA256 returns the lower-case hex SHA-256 of the canonical text.
func (f *File) SHA256() string {
	sum := sha256.Sum256([]byte(f.Canonical()))
	return hex.EncodeToString(sum[:])
}

// Document is the parser's canonical JSON view of a file.
type Document struct {
	Reputation     int            `json:"reputation"`
	Owner          string         `json:"owner,omitempty"`
	Updated        Date           `json:"updated,omitzero"`
	Counterparties []Counterparty `json:"counterparties"`
	Events         []Event        `json:"events"`
	Rules          Rules          `json:"rules"`
	RulesSet       []RuleKey      `json:"rules_set"`
	Issues         []Finding      `json:"issues"`
	SHA256         string         `json:"sha256"` // of the canonical text
}

// Document returns the canonical JSON view of f: records sorted as in the
// canonical text, the rules in force, the keys the file set, the issues
// met while parsing and the SHA-256 of the canonical text.
func (f *File) Document() Document {
	d := Document{
		Reputation:     1,
		Owner:          f.Owner,
		Updated:        f.Updated,
		Counterparties: sortedCounterparties(f.Counterparties),
		Events:         sortedEvents(f.Events),
		Rules:          f.Rules,
		RulesSet:       append([]RuleKey{}, f.RulesSet...),
		Issues:         append([]Finding{}, f.Issues...),
		SHA256:         f.SHA256(),
	}
	if d.Rules.Blocked == nil {
		d.Rules.Blocked = []string{}
	}
	return d
}

func counterpartyLine(c Counterparty) string {
	cats := "-"
	if len(c.Categories) > 0 {
		cats = strings.Join(c.Categories, ", ")
	}
	s := "- " + c.ID + sepDot + string(c.Kind) + sepDot + cats
	if c.Note != "" {
		s += sepDot + c.Note
	}
	return s
}

func eventLine(e Event) string {
	s := "- " + e.Date.String() + sepDot + e.Counterparty + sepDot + string(e.Type)
	switch {
	case e.Amount != nil:
		s += sepDot + num(*e.Amount)
		if e.Note != "" {
			s += sepDot + e.Note
		}
	case e.Note != "":
		// A note whose first field would read as an amount, as the empty
		// amount or as a bad amount needs the "-" placeholder in front of it.
		first, _, _ := nextField(e.Note)
		if _, isNum := parseNumber(first, false); isNum || first == "-" || first == "" || looksLikeAmount(first) {
			s += sepDot + "-"
		}
		s += sepDot + e.Note
	}
	return s
}

func sortedCounterparties(cs []Counterparty) []Counterparty {
	out := slices.Clone(cs)
	if out == nil {
		out = []Counterparty{}
	}
	slices.SortStableFunc(out, func(a, b Counterparty) int { return strings.Compare(a.ID, b.ID) })
	return out
}

func sortedEvents(es []Event) []Event {
	out := slices.Clone(es)
	if out == nil {
		out = []Event{}
	}
	slices.SortStableFunc(out, compareEvents)
	return out
}

// compareEvents orders events by date, counterparty, type (in the order of
// [EventTypes]), amount (none first) and note.
func compareEvents(a, b Event) int {
	if c := a.Date.Compare(b.Date); c != 0 {
		return c
	}
	if c := strings.Compare(a.Counterparty, b.Counterparty); c != 0 {
		return c
	}
	if c := cmp.Compare(a.Type.index(), b.Type.index()); c != 0 {
		return c
	}
	switch {
	case a.Amount == nil && b.Amount != nil:
		return -1
	case a.Amount != nil && b.Amount == nil:
		return 1
	case a.Amount != nil:
		if c := cmp.Compare(*a.Amount, *b.Amount); c != 0 {
			return c
		}
	}
	return strings.Compare(a.Note, b.Note)
}
