package verifier

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/remnant/passportkit/passport"
)

// Check is the outcome of one verification step. OK is true only for a
// check that ran and passed; a check that failed carries its reason, one
// that did not run because an earlier one failed carries
// passport.ReasonNotReached, and one that was skipped (see Skipped) carries
// passport.ReasonNotRequired or passport.ReasonNotChecked.
type Check struct {
	Name   CheckName       `json:"name"`
	OK     bool            `json:"ok"`
	Reason passport.Reason `json:"reason"`
	Detail string          `json:"detail"`
}

// Skipped reports whether the check did not run and that is no failure: a
// subject check under AnySubject, a claims check of a passport from before
// version 0.2 or a status check of a passport that names no list
// (passport.ReasonNotRequired), or a status check for which no list was
// supplied (passport.ReasonNotChecked). A skipped check is never OK.
func (c Check) Skipped() bool {
	return c.Reason == passport.ReasonNotRequired || c.Reason == passport.ReasonNotChecked
}

// Leaf is one disclosed evidence record of a verified bundle.
type Leaf struct {
	Index  int             `json:"index"`
	Record json.RawMessage `json:"record"` // canonical JSON
}

// Result is the outcome of Verify. Issuer, Subject, PassportHash,
// EvidenceRoot, Passport and Evidence are set only when Verified; KeyID is
// set once the bundle's kid names a trusted key.
type Result struct {
	Verified     bool            `json:"verified"`
	Reason       passport.Reason `json:"reason"`
	Checks       []Check         `json:"checks"`
	PassportHash string          `json:"passportHash"`
	EvidenceRoot string          `json:"evidenceRoot"`
	Issuer       string          `json:"issuer"`
	Subject      string          `json:"subject"`
	KeyID        string          `json:"kid"`
	// HolderKey is the RFC 7638 thumbprint of the holder key that signed a
	// verified presentation's key binding; empty otherwise.
	HolderKey string `json:"holderKey,omitempty"`
	At        string `json:"at"`
	// Passport is the verified passport document, in canonical JSON.
	Passport json.RawMessage `json:"passport,omitempty"`
	// Evidence holds the disclosed evidence records.
	Evidence []Leaf `json:"evidence,omitempty"`
}

// Check returns the check named name, and the zero Check for a name Verify
// does not report.
func (r *Result) Check(name CheckName) Check {
	for _, c := range r.Checks {
		if c.Name == name {
			return c
		}
	}
	return Check{}
}

// Indeterminate reports whether the bundle could not be judged because no
// trusted key has its kid.
func (r *Result) Indeterminate() bool { return r.Reason == passport.ReasonKeyUnknown }

// Decode decodes the verified passport. It fails for an unverified result.
func (r *Result) Decode() (*passport.Passport, error) {
	if !r.Verified {
		return nil, errors.New("verifier: the bundle did not verify")
	}
	var p passport.Passport
	if err := json.Unmarshal(r.Passport, &p); err != nil {
		return nil, fmt.Errorf("verifier: decode passport: %w", err)
	}
	return &p, nil
}

// CheckName names one verification step. The names are stable; SPEC.md
// §11.2 lists them in order.
type CheckName string

// The checks Verify reports, in the order it runs them.
const (
	CheckSize         CheckName = "size"
	CheckJSON         CheckName = "json"
	CheckBundle       CheckName = "bundle"
	CheckJWS          CheckName = "jws"
	CheckHeader       CheckName = "header"
	CheckKey          CheckName = "key"
	CheckAlgorithm    CheckName = "algorithm"
	CheckSignature    CheckName = "signature"
	CheckPayload      CheckName = "payload"
	CheckSnapshot     CheckName = "snapshot"
	CheckPassportHash CheckName = "passport_hash"
	CheckVersion      CheckName = "version"
	CheckFields       CheckName = "fields"
	CheckClaims       CheckName = "claims"
	CheckIssuer       CheckName = "issuer"
	CheckKeyWindow    CheckName = "key_window"
	CheckValidity     CheckName = "validity"
	CheckEvidence     CheckName = "evidence"
	CheckSubject      CheckName = "subject"
	CheckStatus       CheckName = "status"
)

var checkNames = [...]CheckName{
	CheckSize, CheckJSON, CheckBundle, CheckJWS, CheckHeader, CheckKey, CheckAlgorithm, CheckSignature,
	CheckPayload, CheckSnapshot, CheckPassportHash, CheckVersion, CheckFields, CheckClaims, CheckIssuer,
	CheckKeyWindow, CheckValidity, CheckEvidence, CheckSubject, CheckStatus,
}

// CheckNames returns the names of the checks Verify reports, in order.
func CheckNames() []CheckName { return append([]CheckName(nil), checkNames[:]...) }
