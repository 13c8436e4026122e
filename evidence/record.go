package evidence

import (
	"fmt"
	"iter"

	"github.com/remnant/passportkit/internal/calendar"
)

// Record is one piece of evidence about a passport's subject: something the
// subject declared or published, an outcome another actor reported after
// reusing the subject's work, an agreement or a contradiction, or the
// subject's own revision of its work. Its canonical JSON (RFC 8785) is one
// leaf of the passport's evidence tree.
//
// Every identifier in a record is an opaque pseudonym issued for one
// passport: the same actor carries different pseudonyms in different
// passports, and no internal identifier appears.
type Record struct {
	// ID names the record within its passport ("ev_..."), unique there.
	ID string `json:"id"`
	// Type says what the record is; see the Type constants.
	Type Type `json:"type"`
	// Skill is the skill term as recorded (normalised by the assessor, not
	// here).
	Skill string `json:"skill"`
	// Outcome is set on outcome records and only there.
	Outcome Outcome `json:"outcome,omitempty"`
	// Quality is the evidence tier, as the source stated it. It is never
	// raised by anything else in the record: a content hash, a signature or
	// a claim leaves it where it is.
	Quality Quality `json:"quality"`
	// Reporter is the actor who made the record ("act_...").
	Reporter string `json:"reporter"`
	// Operator is the reporter's operator ("op_...") as registered at the
	// time of the event, not as it is now; absent when ownership is unknown
	// or the record is the subject's own.
	Operator string `json:"operator,omitempty"`
	// Ownership relates the reporter to the subject's ownership; see the
	// Ownership constants.
	Ownership Ownership `json:"ownership"`
	// Lineage places the record in the history of the subject's work.
	Lineage *Lineage `json:"lineage,omitempty"`
	// Context holds the structured task labels the reporter attached. They
	// are the reporter's claims, not attested facts.
	Context Context `json:"context,omitzero"`
	// Date is the day of the event.
	Date Date `json:"date"`
	// MirrorOf names another record by the same reporter that describes the
	// same event in another form (a trial and its feedback, say); the two
	// count once.
	MirrorOf string `json:"mirrorOf,omitempty"`
	// Resolves names the contradiction a resolution record withdraws. Only
	// the contradiction's own reporter can resolve it.
	Resolves string `json:"resolves,omitempty"`
	// Prediction is a probability of success stated before the outcome, on
	// outcome records whose source recorded one.
	Prediction *Prediction `json:"prediction,omitempty"`
}

// Type says what a record is.
type Type string

// The record types.
const (
	// TypeDeclaration is a capability the subject declared. It carries no
	// evidentiary weight.
	TypeDeclaration Type = "declaration"
	// TypePublication is the subject publishing work about a skill. It is
	// not an outcome: publishing alone creates no success.
	TypePublication Type = "publication"
	// TypeOutcome is a reported attempt to apply the subject's work, with
	// its Outcome.
	TypeOutcome Type = "outcome"
	// TypeCorroboration is agreement with the subject's work without a
	// reported applied outcome.
	TypeCorroboration Type = "corroboration"
	// TypeContradiction is a contrary validation or a public memory that
	// contradicts the subject's work.
	TypeContradiction Type = "contradiction"
	// TypeResolution withdraws a contradiction; only its own reporter can
	// make one.
	TypeResolution Type = "resolution"
	// TypeRevision is the subject revising its work.
	TypeRevision Type = "revision"
	// TypeDeprecation is the subject deprecating its work.
	TypeDeprecation Type = "deprecation"
	// TypeWithdrawal is the subject withdrawing its work.
	TypeWithdrawal Type = "withdrawal"
)

var types = map[Type]bool{
	TypeDeclaration: true, TypePublication: true, TypeOutcome: true,
	TypeCorroboration: true, TypeContradiction: true, TypeResolution: true,
	TypeRevision: true, TypeDeprecation: true, TypeWithdrawal: true,
}

// Observation reports whether records of type t are observations of the
// subject's skill by someone: outcomes, corroborations and contradictions.
// Only observations carry weight.
func (t Type) Observation() bool {
	return t == TypeOutcome || t == TypeCorroboration || t == TypeContradiction
}

// Correction reports whether t is an act of the subject on its own work
// (revision, deprecation, withdrawal).
func (t Type) Correction() bool {
	return t == TypeRevision || t == TypeDeprecation || t == TypeWithdrawal
}

// Outcome is the result of a reported attempt.
type Outcome string

// The outcomes. Only success and failure are binary: partial and uncertain
// outcomes stay visible but never count as fractions of a success.
const (
	OutcomeSuccess   Outcome = "success"
	OutcomeFailure   Outcome = "failure"
	OutcomePartial   Outcome = "partial"
	OutcomeUncertain Outcome = "uncertain"
)

// Binary reports whether o is a success or a failure.
func (o Outcome) Binary() bool { return o == OutcomeSuccess || o == OutcomeFailure }

var outcomes = map[Outcome]bool{
	OutcomeSuccess: true, OutcomeFailure: true, OutcomePartial: true, OutcomeUncertain: true,
}

// Quality is an evidence tier, weakest first.
type Quality string

// The quality tiers.
const (
	QualityDeclared                     Quality = "DECLARED"
	QualitySelfReported                 Quality = "SELF_REPORTED"
	QualityObservedReuse                Quality = "OBSERVED_REUSE"
	QualityIndependentReproduction      Quality = "INDEPENDENT_REPRODUCTION"
	QualityMachineVerified              Quality = "MACHINE_VERIFIED"
	QualityMultiIndependentVerification Quality = "MULTI_INDEPENDENT_VERIFICATION"
)

// qualities lists the tiers, weakest first.
var qualities = [...]Quality{
	QualityDeclared, QualitySelfReported, QualityObservedReuse,
	QualityIndependentReproduction, QualityMachineVerified, QualityMultiIndependentVerification,
}

func (q Quality) known() bool {
	for _, k := range qualities {
		if q == k {
			return true
		}
	}
	return false
}

// Ownership relates a record's reporter to the subject's ownership, from the
// registered ownership history at the time of the event.
type Ownership string

// The ownership relations.
const (
	// OwnershipSelf: the subject reported about itself.
	OwnershipSelf Ownership = "self"
	// OwnershipShared: the reporter's operator owned the subject at the
	// time of the event, or owns it now.
	OwnershipShared Ownership = "shared"
	// OwnershipDistinct: the reporter's operator is known and distinct from
	// the subject's, then and now. Distinct registered owners do not prove
	// distinct people.
	OwnershipDistinct Ownership = "distinct"
	// OwnershipUnknown: the reporter's ownership is not known.
	OwnershipUnknown Ownership = "unknown"
)

var ownerships = map[Ownership]bool{
	OwnershipSelf: true, OwnershipShared: true, OwnershipDistinct: true, OwnershipUnknown: true,
}

// Lineage places a record in the history of the subject's work. Records
// whose lineage nodes connect, directly or through links, form one lineage
// cluster.
type Lineage struct {
	// Memory is the canonical memory the record is about ("mem_...").
	Memory string `json:"memory,omitempty"`
	// VersionRoot is the first version of that memory ("mem_...").
	VersionRoot string `json:"versionRoot,omitempty"`
	// ContentHash is the memory content's SHA-256 ("sha256:" and 64
	// lower-case hex digits).
	ContentHash string `json:"contentHash,omitempty"`
	// DerivedFrom, Extends and Supersedes link the memory to others.
	DerivedFrom []string `json:"derivedFrom,omitempty"`
	Extends     []string `json:"extends,omitempty"`
	Supersedes  []string `json:"supersedes,omitempty"`
}

// nodes yields every lineage node the record names, without allocating.
func (l *Lineage) nodes() iter.Seq[string] {
	return func(yield func(string) bool) {
		if l == nil {
			return
		}
		for _, s := range [...]string{l.Memory, l.VersionRoot, l.ContentHash} {
			if s != "" && !yield(s) {
				return
			}
		}
		for _, links := range [...][]string{l.DerivedFrom, l.Extends, l.Supersedes} {
			for _, s := range links {
				if !yield(s) {
					return
				}
			}
		}
	}
}

func (l *Lineage) links() int {
	if l == nil {
		return 0
	}
	return len(l.DerivedFrom) + len(l.Extends) + len(l.Supersedes)
}

// Prediction is a probability of success recorded before the outcome.
type Prediction struct {
	// Probability of success, in [0, 1].
	Probability float64 `json:"probability"`
	// Date the prediction was recorded; strictly before the outcome's date.
	Date Date `json:"date"`
}

// Date is a calendar day in UTC, written YYYY-MM-DD.
type Date = calendar.Date

// minDate is the earliest day of evidence.
var minDate = calendar.MustParse("1970-01-01")

// ParseDate parses a YYYY-MM-DD date between 1970-01-01 and 9999-12-31.
func ParseDate(s string) (Date, error) {
	d, err := calendar.Parse(s)
	if err != nil || d.Before(minDate) {
		return Date{}, fmt.Errorf("evidence: date %q is not a valid day from 1970-01-01", s)
	}
	return d, nil
}

// MustDate is ParseDate for constants in tests and generators; it panics on
// a malformed date.
func MustDate(s string) Date {
	d, err := ParseDate(s)
	if err != nil {
		panic(err)
	}
	return d
}
