package ledgertools

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/remnant/passportkit/ledger"
	"github.com/remnant/passportkit/passport"
	"github.com/remnant/passportkit/verifier"
)

// SummaryOut is the result of share_summary: a summary, its id and, when
// signed, a JWS over the id; when checking a received summary, whether it
// matches its id and whether the signature verifies.
type SummaryOut struct {
	Shared    json.RawMessage   `json:"shared"`
	ID        string            `json:"id"`
	JWS       string            `json:"jws,omitempty"`      // a JWS over the id by the sharer's key
	Matches   *bool             `json:"matches,omitempty"`  // when checking: the id is the hash of shared as received
	Computed  string            `json:"computed,omitempty"` // when checking: the id of shared as received
	Problems  []string          `json:"problems,omitempty"` // when checking: what does not fit the summary format
	Signature *SummarySignature `json:"signature,omitempty"`
	Note      string            `json:"note"`
}

// SummarySignature is what the signature check found: the check of
// [verifier.Verifier.VerifySummarySignature] in the tools' form.
type SummarySignature struct {
	Verified bool   `json:"verified"`
	Reason   string `json:"reason"` // "ok", a passport reason code, "not_signed", "summary_id_mismatch" or "not_checked"
	Detail   string `json:"detail,omitempty"`
	KeyID    string `json:"kid,omitempty"`
	Signer   string `json:"signer,omitempty"` // the trust file's issuer, when verified
}

const (
	shareNote       = "Send shared and id together. The id is a SHA-256, not a signature: it shows the summary was not changed after the id was made, not who made it."
	signedShareNote = "Send shared, id and jws together. The jws signs the id with your key; a receiver who trusts that key can check who made the summary."
	checkNote       = "A received summary is another agent's reading of its own record: report it next to your own score, never copy it into your events."
)

// Share makes the summary of counterparty id from a ledger file's text as
// of asOf, with its id and, when signer is not nil, a JWS over the id.
func Share(text []byte, id string, asOf ledger.Date, signer *passport.Signer) (SummaryOut, error) {
	f, err := ParseText(text)
	if err != nil {
		return SummaryOut{}, err
	}
	if err := ledger.CheckID(id); err != nil {
		return SummaryOut{}, fmt.Errorf("%w: counterparty: %v", ErrBadInput, err)
	}
	s, sid, err := f.Share(id, asOf)
	if err != nil {
		return SummaryOut{}, fmt.Errorf("%w: %v", ErrBadInput, err)
	}
	b, err := json.Marshal(s)
	if err != nil {
		return SummaryOut{}, err
	}
	out := SummaryOut{Shared: b, ID: sid, Note: shareNote}
	if signer != nil {
		if out.JWS, err = signer.SignCompact([]byte(sid), passport.SummaryJWSType); err != nil {
			return SummaryOut{}, err
		}
		out.Note = signedShareNote
	}
	return out, nil
}

// CheckSummary checks a received summary against its id and, with a
// trust file, its signature.
func CheckSummary(shared json.RawMessage, id, jws string, trust *verifier.Trust) SummaryOut {
	c := ledger.CheckSummary(shared, id)
	out := SummaryOut{Shared: shared, ID: id, JWS: jws, Matches: &c.Matches, Computed: c.Computed, Problems: c.Problems, Note: checkNote}
	switch {
	case trust == nil && jws == "":
	case trust == nil:
		out.Signature = &SummarySignature{Reason: string(passport.ReasonNotChecked), Detail: "no trust file was given to check the jws against"}
	case jws == "":
		out.Signature = &SummarySignature{Reason: string(passport.ReasonNotSigned), Detail: "the summary carries no jws"}
	default:
		out.Signature = verifySummarySignature(jws, id, c.Shared, trust)
	}
	return out
}

// verifySummarySignature checks jws with the verifier (see
// verifier.VerifySummarySignature) and reports it in the tool's form.
func verifySummarySignature(jws, id string, s *ledger.Summary, trust *verifier.Trust) *SummarySignature {
	v, err := verifier.New(trust)
	if err != nil {
		return &SummarySignature{Reason: string(passport.ReasonOf(err)), Detail: err.Error()}
	}
	var asOf time.Time
	if s != nil && !s.AsOf.IsZero() {
		asOf, _ = time.Parse(time.DateOnly, s.AsOf.String())
	}
	c := v.VerifySummarySignature([]byte(jws), id, asOf)
	sig := &SummarySignature{Verified: c.OK, Reason: string(c.Reason), KeyID: c.KeyID}
	if c.OK {
		sig.Signer = trust.Issuer
	} else {
		sig.Detail = c.Detail
	}
	return sig
}
