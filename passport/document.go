package passport

import (
	"fmt"
	"strings"
	"time"
)

// Versions this package writes. A verifier accepts any minor version of a
// major version it knows: minor versions only add members.
const (
	// Version is the passportVersion of the outer document. Version 0.2
	// added the cnf and status members and the JWT claims of the signed
	// payload (see [HasClaims]); 0.1 passports remain valid without them.
	Version = "0.2"
	// TrustModelVersion is the version of the skill passports' trust model.
	TrustModelVersion = "2.1"
	// BundleVersion is the version of the bundle format.
	BundleVersion = "1.0"
)

// Policy identifiers a passport names in its policies member.
const (
	OntologyPolicy   = "skills-1"
	TrustModelPolicy = "contextual-trust-v2"
	ReputationPolicy = "independent-validation-v2"
)

// MaxSkillPassports is the most skill passports one passport lists.
const MaxSkillPassports = 50

// Passport is the signed document: who the subject is, who issued it and
// when, what the subject declares, what it has done in public, its domain
// reputation, and its skill passports under the trust model. Every figure
// is backed by the evidence records that EvidenceRoot commits to.
type Passport struct {
	PassportVersion   string `json:"passportVersion"`
	TrustModelVersion string `json:"trustModelVersion,omitempty"`

	Issuer    string  `json:"issuer"`
	Subject   Subject `json:"subject"`
	IssuedAt  Time    `json:"issuedAt"`
	ExpiresAt Time    `json:"expiresAt"`

	// DeclaredCapabilities are the subject's own claims. They carry no
	// evidentiary weight.
	DeclaredCapabilities []string `json:"declaredCapabilities"`
	// PublicActivity counts what the subject did in public.
	PublicActivity Activity `json:"publicActivity"`
	// DomainReputation is the subject's reputation per domain, as the
	// validation policy computes it.
	DomainReputation []DomainReputation `json:"domainReputation"`
	// ReputationScore is the global reputation score, in [-100, 100].
	ReputationScore float64 `json:"reputationScore"`
	// TrustLevel is new, observed, trusted or high_trust.
	TrustLevel string `json:"trustLevel"`

	// SkillPassports is the decision surface: per skill, how well evidenced
	// the subject is. At most MaxSkillPassports.
	SkillPassports []SkillPassport `json:"skillPassports"`
	// Policies names the policy versions every figure was computed under.
	Policies Policies `json:"policies"`

	// EvidenceRoot is the RFC 9162 tree head over all EvidenceCount
	// evidence leaves, as 64 lower-case hex digits.
	EvidenceRoot  string `json:"evidenceRoot"`
	EvidenceCount int    `json:"evidenceCount"`

	// Cnf names the holder keys that may present the passport; nil when
	// the subject registered none.
	Cnf *Confirmation `json:"cnf,omitempty"`
	// Status points at the passport's entry in its issuer's status list;
	// nil when the issuer keeps none.
	Status *StatusRef `json:"status,omitempty"`
}

// Confirmation names the holder keys of a passport (RFC 7800's cnf): the
// RFC 7638 SHA-256 thumbprints, base64url, of one to four public keys,
// distinct and in byte order.
type Confirmation struct {
	JKTs []string `json:"jkts"`
}

// StatusRef is a passport's reference into a status list: the status
// claim of the Token Status List draft.
type StatusRef struct {
	StatusList StatusListRef `json:"status_list"`
}

// StatusListRef names one entry of one status list: its index and the
// list's URI.
type StatusListRef struct {
	Idx int    `json:"idx"`
	URI string `json:"uri"`
}

// Subject identifies the agent a passport describes.
type Subject struct {
	ID          string `json:"id"` // public agent id, "agt_…"
	Name        string `json:"name,omitempty"`
	Description string `json:"description,omitempty"`
}

// Activity counts a subject's public activity.
type Activity struct {
	MemoriesPublished int `json:"memoriesPublished"`
	MemoriesConsumed  int `json:"memoriesConsumed"`
	FeedbackGiven     int `json:"feedbackGiven"`
}

// DomainReputation is the subject's reputation in one domain.
type DomainReputation struct {
	Domain         string  `json:"domain"`
	Score          float64 `json:"score"`
	Confidence     float64 `json:"confidence"`
	SampleSize     int     `json:"sampleSize"`
	PositiveEvents int     `json:"positiveEvents"`
	NegativeEvents int     `json:"negativeEvents"`
	UpdatedAt      Time    `json:"updatedAt"`
}

// Policies names the policies a passport's figures follow.
type Policies struct {
	Ontology   string `json:"ontology"`
	TrustModel string `json:"trustModel"`
	Reputation string `json:"reputation"`
}

// DefaultPolicies returns the policies this package implements.
func DefaultPolicies() Policies {
	return Policies{Ontology: OntologyPolicy, TrustModel: TrustModelPolicy, Reputation: ReputationPolicy}
}

// normalize writes absent lists as empty lists, so that a document has one
// encoding whether a list was nil or empty.
func (p *Passport) normalize() {
	if p.DeclaredCapabilities == nil {
		p.DeclaredCapabilities = []string{}
	}
	if p.DomainReputation == nil {
		p.DomainReputation = []DomainReputation{}
	}
	if p.SkillPassports == nil {
		p.SkillPassports = []SkillPassport{}
	}
}

// Validate checks what the signer relies on: versions, ids, times, limits.
func (p *Passport) Validate() error {
	switch {
	case p.PassportVersion == "":
		return errorf(ReasonFieldMissing, "passportVersion is missing")
	case p.Issuer == "":
		return errorf(ReasonFieldMissing, "issuer is missing")
	case p.Subject.ID == "":
		return errorf(ReasonFieldMissing, "subject.id is missing")
	case p.IssuedAt.IsZero() || p.ExpiresAt.IsZero():
		return errorf(ReasonFieldMissing, "issuedAt and expiresAt are required")
	case !p.ExpiresAt.After(p.IssuedAt.Time):
		return errorf(ReasonFieldInvalid, "expiresAt must be after issuedAt")
	case len(p.SkillPassports) > MaxSkillPassports:
		return errorf(ReasonFieldInvalid, "%d skill passports; at most %d", len(p.SkillPassports), MaxSkillPassports)
	}
	if err := CheckVersion("passportVersion", p.PassportVersion, Version); err != nil {
		return err
	}
	if p.TrustModelVersion != "" {
		if err := CheckVersion("trustModelVersion", p.TrustModelVersion, TrustModelVersion); err != nil {
			return err
		}
	}
	for i := range p.SkillPassports {
		if err := p.SkillPassports[i].validate(); err != nil {
			return fmt.Errorf("skillPassports[%d]: %w", i, err)
		}
	}
	return p.validateBinding()
}

// CheckVersion checks that got, a "MAJOR.MINOR" version of the named field,
// has the same major version as known.
func CheckVersion(field, got, known string) error {
	gMajor, gMinor, ok := strings.Cut(got, ".")
	if !ok || !isDigits(gMajor) || !isDigits(gMinor) {
		return errorf(ReasonVersion, "%s is not a MAJOR.MINOR version", field)
	}
	kMajor, _, _ := strings.Cut(known, ".")
	if gMajor != kMajor {
		return errorf(ReasonVersion, "%s major version %s is not supported (this verifier knows %s.x)", field, gMajor, kMajor)
	}
	return nil
}

func isDigits(s string) bool {
	if s == "" || len(s) > 9 || (len(s) > 1 && s[0] == '0') {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// Time is an instant in a passport: RFC 3339 in UTC, to the second, such as
// "2026-11-29T18:00:00Z". No other form is accepted.
type Time struct{ time.Time }

// TimeLayout is the one layout of a Time.
const TimeLayout = "2006-01-02T15:04:05Z"

// NewTime returns t in UTC, truncated to the second.
func NewTime(t time.Time) Time { return Time{t.UTC().Truncate(time.Second)} }

// ParseTime parses the one layout of a Time: a valid date and a time of
// day to the second, each field of fixed width, which is exactly what
// time.Parse accepts of TimeLayout in 20 characters (FuzzParseTime holds
// them together), read without it, which is several times slower.
func ParseTime(s string) (Time, error) { return parseTime(s) }

// ParseTimeBytes is ParseTime for text held in a byte slice. It allocates
// only to say why it failed.
func ParseTimeBytes(b []byte) (Time, error) { return parseTime(b) }

func parseTime[T string | []byte](s T) (Time, error) {
	num := func(i, n int) int { // the n digits at s[i:], or -1
		v := 0
		for _, c := range []byte(s[i : i+n]) {
			if c < '0' || c > '9' {
				return -1
			}
			v = v*10 + int(c-'0')
		}
		return v
	}
	if len(s) != len(TimeLayout) || s[4] != '-' || s[7] != '-' || s[10] != 'T' || s[13] != ':' || s[16] != ':' || s[19] != 'Z' {
		return Time{}, fmt.Errorf("time %q is not of the form %s", string(s), TimeLayout)
	}
	year, month, day := num(0, 4), num(5, 2), num(8, 2)
	hour, minute, second := num(11, 2), num(14, 2), num(17, 2)
	if year < 0 || month < 1 || month > 12 || day < 1 || day > daysIn(time.Month(month), year) ||
		hour < 0 || hour > 23 || minute < 0 || minute > 59 || second < 0 || second > 59 {
		return Time{}, fmt.Errorf("time %q is not of the form %s", string(s), TimeLayout)
	}
	return Time{time.Date(year, time.Month(month), day, hour, minute, second, 0, time.UTC)}, nil
}

// daysIn returns the number of days of month in year.
func daysIn(month time.Month, year int) int {
	return time.Date(year, month+1, 0, 0, 0, 0, 0, time.UTC).Day()
}

// String returns the text form of t.
func (t Time) String() string { return t.UTC().Format(TimeLayout) }

// MarshalText implements encoding.TextMarshaler.
func (t Time) MarshalText() ([]byte, error) {
	if t.Nanosecond() != 0 {
		return nil, fmt.Errorf("passport: time %v has a fraction of a second", t.Time)
	}
	return []byte(t.String()), nil
}

// UnmarshalText implements encoding.TextUnmarshaler.
func (t *Time) UnmarshalText(b []byte) error {
	v, err := ParseTime(string(b))
	if err != nil {
		return err
	}
	*t = v
	return nil
}

// MarshalJSON writes t as a JSON string of its one layout. It is defined so
// that the embedded time.Time's RFC 3339 methods, which write and accept
// offsets and fractions, are never used.
func (t Time) MarshalJSON() ([]byte, error) {
	b, err := t.MarshalText()
	if err != nil {
		return nil, err
	}
	return append(append([]byte{'"'}, b...), '"'), nil
}

// UnmarshalJSON reads a JSON string of the one layout of a Time (SPEC.md
// §1): an offset, a fraction of a second, a leap second or an impossible
// date is refused.
func (t *Time) UnmarshalJSON(b []byte) error {
	if len(b) < 2 || b[0] != '"' || b[len(b)-1] != '"' {
		return fmt.Errorf("time %s is not a JSON string", b)
	}
	return t.UnmarshalText(b[1 : len(b)-1])
}
