package verifier

import (
	"fmt"
	"strings"
	"time"

	"github.com/remnant/passportkit/passport"
)

// CheckSummarySignature names the check VerifySummarySignature reports.
const CheckSummarySignature CheckName = "summary_signature"

// SummarySignature is the outcome of VerifySummarySignature: a Check, and
// the signing key's kid once the JWS names a trusted key.
type SummarySignature struct {
	Check
	KeyID string `json:"kid,omitempty"`
}

// VerifySummarySignature checks jws, a signature over the id of a shared
// REPUTATION.md summary (SPEC.md and passport.SummaryJWSType), under the
// passport JWS profile against the verifier's trust file; then that it
// signs id (compared in lower case, without surrounding space), and that
// the key's validity window, if it has one, covers the summary's asOf day.
// A zero asOf fails against a key with a window. The check's reason is
// ok, a JWS or key reason code, passport.ReasonSummaryIDMismatch or
// passport.ReasonKeyWindow.
func (v *Verifier) VerifySummarySignature(jws []byte, id string, asOf time.Time) SummarySignature {
	res := SummarySignature{Check: Check{Name: CheckSummarySignature}}
	payload, kid, err := v.VerifyJWS(jws, passport.SummaryJWSType)
	if err != nil {
		pe := asError(err)
		res.Reason, res.Detail = pe.Reason, pe.Detail
		return res
	}
	res.KeyID = kid
	if string(payload) != strings.ToLower(strings.TrimSpace(id)) {
		res.Reason, res.Detail = passport.ReasonSummaryIDMismatch, "the signature is valid but signs another summary id"
		return res
	}
	if k, ok := v.trust.Lookup(kid); ok && (!k.NotBefore.IsZero() || !k.NotAfter.IsZero()) {
		if asOf.IsZero() {
			res.Reason, res.Detail = passport.ReasonKeyWindow, "the key has a validity window and the summary gives no as_of day"
			return res
		}
		start := time.Date(asOf.Year(), asOf.Month(), asOf.Day(), 0, 0, 0, 0, time.UTC)
		end := start.Add(24 * time.Hour)
		if (!k.NotBefore.IsZero() && !k.NotBefore.Before(end)) || (!k.NotAfter.IsZero() && k.NotAfter.Before(start)) {
			res.Reason, res.Detail = passport.ReasonKeyWindow, fmt.Sprintf("the key is not valid on the summary's as_of day %s", start.Format(time.DateOnly))
			return res
		}
	}
	res.OK, res.Reason, res.Detail = true, passport.ReasonOK, "signed by "+v.trust.Issuer
	return res
}
