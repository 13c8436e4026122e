package ledger

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/remnant/passportkit/passport"
)

// MaxSummaryBytes bounds a received summary before it is read.
const MaxSummaryBytes = 16 << 10

// ErrNoCounterparty is returned by [File.Share] for an id the file does not
// name at all: there is nothing of the owner's to share about it.
var ErrNoCounterparty = errors.New("ledger: counterparty not in the file")

// Summary is the view of one counterparty that an owner may share with
// another agent: the figures, never the notes, amounts or owner. Its id,
// from [SummaryID], is the SHA-256 of its RFC 8785 canonical JSON.
type Summary struct {
	Counterparty string            `json:"counterparty"`
	AsOf         Date              `json:"as_of"`
	Score        float64           `json:"score"`      // rounded to 0.1
	Tier         Tier              `json:"tier"`       // as the sharer's rules put it
	Confidence   float64           `json:"confidence"` // rounded to 0.01
	Events       int               `json:"events"`
	EventsByType map[EventType]int `json:"events_by_type"` // every type, zero included
	NewestEvent  Date              `json:"newest_event,omitzero"`
	RulesSHA256  string            `json:"rules_sha256"` // of the rules in force written as a full rules block
}

// SHA256 returns the lower-case hex SHA-256 of r written as a full
// rules block (every key, canonical form), the text a starter gives as its
// rules block. Two owners with the same rules get the same hash.
func (r Rules) SHA256() string {
	sum := sha256.Sum256([]byte(r.Block(RuleKeys)))
	return hex.EncodeToString(sum[:])
}

// Share returns the summary of counterparty id as of asOf and its id.
func (f *File) Share(id string, asOf Date) (Summary, string, error) {
	sc := f.Score(id, asOf)
	if !sc.Declared && sc.Events == 0 && sc.AfterAsOf == 0 {
		return Summary{}, "", fmt.Errorf("%w: %s", ErrNoCounterparty, id)
	}
	s := Summary{
		Counterparty: id,
		AsOf:         asOf,
		Score:        round(sc.Score, 1),
		Tier:         sc.Tier,
		Confidence:   round(sc.Confidence, 2),
		Events:       sc.Events,
		EventsByType: make(map[EventType]int, len(EventTypes)),
		NewestEvent:  sc.NewestEvent,
		RulesSHA256:  f.Rules.SHA256(),
	}
	for _, t := range EventTypes {
		s.EventsByType[t] = sc.ByType[t].Events
	}
	sid, err := SummaryID(s)
	if err != nil {
		return Summary{}, "", err
	}
	return s, sid, nil
}

// SummaryID returns the id of s: the lower-case hex SHA-256 of its RFC 8785
// canonical JSON.
func SummaryID(s Summary) (string, error) {
	b, err := passport.Marshal(s)
	if err != nil {
		return "", fmt.Errorf("ledger: summary id: %w", err)
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:]), nil
}

// SummaryCheck is what [CheckSummary] found about a received summary.
type SummaryCheck struct {
	Matches  bool     `json:"matches"`  // the id is the SHA-256 of the summary as received
	ID       string   `json:"id"`       // the id as received
	Computed string   `json:"computed"` // the id of the summary as received; empty when it is not JSON
	Shared   *Summary `json:"shared,omitempty"`
	Problems []string `json:"problems"` // what does not fit the summary format; empty when it all does
}

// CheckSummary checks a received summary against its id. It hashes the
// summary's own bytes, canonicalised with RFC 8785, so a field this reader
// does not know still counts; Matches says only that nothing changed after
// the id was made. The id is a hash, not a signature: anyone can make a
// matching pair. Problems lists what does not fit the summary format.
func CheckSummary(shared []byte, id string) SummaryCheck {
	c := SummaryCheck{ID: id, Problems: []string{}}
	if len(shared) > MaxSummaryBytes {
		c.Problems = append(c.Problems, fmt.Sprintf("the summary is %d bytes; the limit is %d", len(shared), MaxSummaryBytes))
		return c
	}
	canon, err := passport.Canonicalize(shared)
	if err != nil {
		c.Problems = append(c.Problems, "the summary is not strict JSON: "+err.Error())
		return c
	}
	sum := sha256.Sum256(canon)
	c.Computed = hex.EncodeToString(sum[:])
	c.Matches = c.Computed == strings.ToLower(strings.TrimSpace(id))
	dec := json.NewDecoder(bytes.NewReader(shared))
	dec.DisallowUnknownFields()
	var s Summary
	if err := dec.Decode(&s); err != nil {
		c.Problems = append(c.Problems, "the summary does not fit the format: "+err.Error())
		return c
	}
	c.Shared = &s
	if err := CheckID(s.Counterparty); err != nil {
		c.Problems = append(c.Problems, err.Error())
	}
	if s.AsOf.IsZero() {
		c.Problems = append(c.Problems, "as_of is missing")
	}
	if s.Tier.Rank() < 0 {
		c.Problems = append(c.Problems, fmt.Sprintf("tier %q is not a tier", s.Tier))
	}
	if !(s.Score >= 0 && s.Score <= 100) {
		c.Problems = append(c.Problems, fmt.Sprintf("score %s is outside 0 to 100", num(s.Score)))
	}
	if !(s.Confidence >= 0 && s.Confidence < 1) {
		c.Problems = append(c.Problems, fmt.Sprintf("confidence %s is outside 0 to 1", num(s.Confidence)))
	}
	total := 0
	for _, t := range slices.Sorted(maps.Keys(s.EventsByType)) {
		if t.index() < 0 {
			c.Problems = append(c.Problems, fmt.Sprintf("events_by_type names %q, which is not an event type", t))
		}
		if s.EventsByType[t] < 0 {
			c.Problems = append(c.Problems, fmt.Sprintf("events_by_type gives %s a negative count", t))
		}
		total += s.EventsByType[t]
	}
	if total != s.Events {
		c.Problems = append(c.Problems, fmt.Sprintf("events is %d but events_by_type adds up to %d", s.Events, total))
	}
	if len(s.RulesSHA256) != 64 {
		c.Problems = append(c.Problems, "rules_sha256 is not a SHA-256 in hex")
	}
	return c
}
