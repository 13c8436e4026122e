package issuer

import (
	"io"
	"regexp"
	"slices"
	"time"
)

// StatusListID identifies one of the issuer's status lists (SPEC.md
// §19.4): sl_…, the last segment of the list's URI.
type StatusListID string

const statusListPrefix = "sl"

// NewStatusListID returns a fresh status list ID read from rand.
func NewStatusListID(rand io.Reader) (StatusListID, error) {
	return newID[StatusListID](statusListPrefix, rand)
}

// ParseStatusListID checks that s is a status list ID.
func ParseStatusListID(s string) (StatusListID, error) {
	return parseID[StatusListID](statusListPrefix, s)
}

// PassportStatus is the status of an issued passport in its status list
// (SPEC.md §19.1): valid, revoked (for good) or suspended (until it is
// reinstated).
type PassportStatus string

// The passport statuses.
const (
	PassportValid     PassportStatus = "valid"
	PassportRevoked   PassportStatus = "revoked"
	PassportSuspended PassportStatus = "suspended"
)

// statusValues are the 2-bit values of the statuses, in the order of
// SPEC.md §19.1.
var statusValues = []PassportStatus{PassportValid, PassportRevoked, PassportSuspended}

// Value returns the status's value in a 2-bit status list.
func (s PassportStatus) Value() uint8 {
	for v, st := range statusValues {
		if st == s {
			return uint8(v)
		}
	}
	panic("issuer: unknown passport status " + string(s))
}

// PassportStatusOf returns the status of a 2-bit list value, and false for
// a value no issuer writes.
func PassportStatusOf(v uint8) (PassportStatus, bool) {
	if int(v) >= len(statusValues) {
		return "", false
	}
	return statusValues[v], true
}

// passportHashForm is the form of a passportHash (SPEC.md §7).
var passportHashForm = regexp.MustCompile(`^[0-9a-f]{64}$`)

// StatusChange is an operator's change of an issued passport's status:
// revoking, suspending or reinstating it, with the reason the audit log
// keeps. Build one with [NewStatusChange].
type StatusChange struct {
	PassportHash string
	To           PassportStatus
	Reason       string
}

// NewStatusChange checks a status change: the passport's hash, 64
// lower-case hex digits; a known status; and a reason of 1 to MaxReason
// characters of prose.
func NewStatusChange(hash string, to PassportStatus, reason string) (StatusChange, error) {
	if !passportHashForm.MatchString(hash) {
		return StatusChange{}, Errorf(CodeInvalid, "a passportHash is 64 lower-case hex digits, not %q", truncate(hash, 80))
	}
	if !slices.Contains(statusValues, to) {
		return StatusChange{}, Errorf(CodeInvalid, "unknown passport status %q (want valid, revoked or suspended)", truncate(string(to), 40))
	}
	reason, err := cleanText("reason", reason, 1, MaxReason, proseText)
	if err != nil {
		return StatusChange{}, err
	}
	return StatusChange{PassportHash: hash, To: to, Reason: reason}, nil
}

// StatusOutcome is what a status change found and did.
type StatusOutcome struct {
	// List and Index locate the passport's entry.
	List  StatusListID
	Index int
	// From is the status before the change, To the status after it.
	From, To PassportStatus
	// Changed is false when the passport already had the status asked
	// for: nothing was written.
	Changed bool
}

// StatusListToken is a signed status list token as it is served.
type StatusListToken struct {
	// Token is the compact JWS (SPEC.md §19.3).
	Token []byte
	// ETag is the quoted hex SHA-256 of Token.
	ETag string
	// MaxAge is how long a reader may keep the token from the moment it
	// is served, in whole seconds: the token's ttl less its age rounded
	// up, so that a reader's copy never outlives iat + ttl.
	MaxAge time.Duration
}
