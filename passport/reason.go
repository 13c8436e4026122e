package passport

import (
	"errors"
	"fmt"

	"github.com/remnant/passportkit/internal/cjson"
)

// Reason is a stable code saying why a document, key or bundle was refused.
// Codes never change meaning; SPEC.md §11 lists them all.
type Reason string

// Reasons. The JSON reasons apply to any strict or canonical JSON input;
// the others to bundles, credentials and passports.
const (
	ReasonOK Reason = "ok"
	// ReasonNotReached marks a check that did not run because an earlier
	// one failed.
	ReasonNotReached Reason = "not_reached"
	// ReasonNotRequired marks a check the caller's policy did not ask for.
	ReasonNotRequired Reason = "not_required"

	ReasonJSONMalformed     Reason = "json_malformed"
	ReasonJSONInvalidUTF8   Reason = "json_invalid_utf8"
	ReasonJSONLoneSurrogate Reason = "json_lone_surrogate"
	ReasonJSONDuplicateKey  Reason = "json_duplicate_key"
	ReasonJSONNumberRange   Reason = "json_number_range"
	ReasonJSONTooDeep       Reason = "json_too_deep"
	ReasonJSONTrailingData  Reason = "json_trailing_data"
	ReasonJSONNotCanonical  Reason = "json_not_canonical"

	ReasonBundleTooLarge   Reason = "bundle_too_large"
	ReasonBundleMalformed  Reason = "bundle_malformed"
	ReasonBundleVersion    Reason = "bundle_version_unsupported"
	ReasonJWSMalformed     Reason = "jws_malformed"
	ReasonJWSNotCompact    Reason = "jws_not_compact"
	ReasonJWSMultipleSigs  Reason = "jws_multiple_signatures"
	ReasonJWSUnprotected   Reason = "jws_unprotected_header"
	ReasonJWSHeader        Reason = "jws_header_malformed"
	ReasonJWSEmbeddedKey   Reason = "jws_embedded_key"
	ReasonJWSKeyURL        Reason = "jws_key_url"
	ReasonJWSCrit          Reason = "jws_crit_unsupported"
	ReasonJWSType          Reason = "jws_type_invalid"
	ReasonKeyUnknown       Reason = "key_unknown"
	ReasonAlgNotAllowed    Reason = "alg_not_allowed"
	ReasonAlgKeyMismatch   Reason = "alg_key_mismatch"
	ReasonSignatureInvalid Reason = "signature_invalid"

	ReasonPayloadMalformed Reason = "payload_malformed"
	ReasonSnapshotMismatch Reason = "snapshot_mismatch"
	ReasonHashMismatch     Reason = "passport_hash_mismatch"
	ReasonVersion          Reason = "version_unsupported"
	ReasonFieldMissing     Reason = "passport_field_missing"
	ReasonFieldInvalid     Reason = "passport_field_invalid"
	ReasonIssuerMismatch   Reason = "issuer_mismatch"
	ReasonKeyWindow        Reason = "key_outside_validity"
	ReasonNotYetValid      Reason = "not_yet_valid"
	ReasonExpired          Reason = "expired"
	ReasonEvidence         Reason = "evidence_malformed"
	ReasonEvidenceProof    Reason = "evidence_proof_invalid"
	ReasonEvidenceRoot     Reason = "evidence_root_mismatch"
	ReasonSubjectMismatch  Reason = "subject_mismatch"

	// ReasonClaimsMalformed: a JWT claim of the signed payload is missing
	// or mistyped, or a 0.1 passport's payload carries one.
	ReasonClaimsMalformed Reason = "claims_malformed"
	// ReasonClaimsMismatch: a JWT claim differs from the passport's field.
	ReasonClaimsMismatch Reason = "claims_mismatch"

	// Reasons of the status check (SPEC.md §11.2, step 20).

	// ReasonRevoked: the status list says the passport is revoked.
	ReasonRevoked Reason = "revoked"
	// ReasonSuspended: the status list says the passport is suspended.
	ReasonSuspended Reason = "suspended"
	// ReasonStatusStale: the status list has expired or outlived its ttl.
	ReasonStatusStale Reason = "status_stale"
	// ReasonStatusUnknown: the status list holds a value this
	// specification gives no meaning.
	ReasonStatusUnknown Reason = "status_unknown"
	// ReasonStatusListInvalid: the status list token does not verify, or
	// does not cover the passport's index.
	ReasonStatusListInvalid Reason = "status_list_invalid"
	// ReasonStatusListMismatch: the status list is another list than the
	// one the passport names.
	ReasonStatusListMismatch Reason = "status_list_mismatch"

	// Reasons of a presentation (SPEC.md §11.6), by check.

	// ReasonPresentationTooLarge: the presentation is over
	// MaxPresentationSize bytes (check presentation).
	ReasonPresentationTooLarge Reason = "presentation_too_large"
	// ReasonPresentationMalformed: missing, extra or mistyped members of
	// the presentation (check presentation).
	ReasonPresentationMalformed Reason = "presentation_malformed"
	// ReasonPresentationVersion: an unknown major presentationVersion
	// (check presentation).
	ReasonPresentationVersion Reason = "presentation_version_unsupported"
	// ReasonKBMalformed: the key binding is not a compact JWS of at most
	// MaxKeyBinding bytes (check kb_jws).
	ReasonKBMalformed Reason = "kb_malformed"
	// ReasonKBHeader: the key binding's protected header is not a strict
	// JSON object with exactly alg, jwk and typ (check kb_header).
	ReasonKBHeader Reason = "kb_header_malformed"
	// ReasonKBType: typ is not passport-kb+jwt (check kb_header).
	ReasonKBType Reason = "kb_type_invalid"
	// ReasonKBAlgNotAllowed: alg is not EdDSA or ES256 (check kb_header).
	ReasonKBAlgNotAllowed Reason = "kb_alg_not_allowed"
	// ReasonKBKeyInvalid: jwk is not an Ed25519 or P-256 public holder key
	// (check kb_header).
	ReasonKBKeyInvalid Reason = "kb_key_invalid"
	// ReasonKBAlgKeyMismatch: alg is not the holder key's algorithm
	// (check kb_header).
	ReasonKBAlgKeyMismatch Reason = "kb_alg_key_mismatch"
	// ReasonPassportNotBound: the passport names no holder key, so it
	// cannot be presented (check holder_key).
	ReasonPassportNotBound Reason = "passport_not_bound"
	// ReasonKBKeyNotBound: the key binding's key is not one the passport
	// names in cnf (check holder_key).
	ReasonKBKeyNotBound Reason = "kb_key_not_bound"
	// ReasonKBSignature: the key binding's signature does not verify
	// under its key (check kb_signature).
	ReasonKBSignature Reason = "kb_signature_invalid"
	// ReasonKBPayload: the key binding's payload is not canonical JSON
	// with exactly aud, iat, nonce and passportHash (check kb_payload).
	ReasonKBPayload Reason = "kb_payload_malformed"
	// ReasonKBHashMismatch: the key binding names another passport
	// (check kb_hash).
	ReasonKBHashMismatch Reason = "kb_hash_mismatch"
	// ReasonKBAudienceMismatch: the presentation is for another audience
	// (check audience).
	ReasonKBAudienceMismatch Reason = "kb_audience_mismatch"
	// ReasonKBNonceMismatch: the presentation answers another nonce, such
	// as one replayed from an earlier exchange (check nonce).
	ReasonKBNonceMismatch Reason = "kb_nonce_mismatch"
	// ReasonKBNotYetValid: the key binding was made after the
	// verification time, beyond the skew (check kb_time).
	ReasonKBNotYetValid Reason = "kb_not_yet_valid"
	// ReasonKBStale: the key binding is older than the maximum age, beyond
	// the skew (check kb_time).
	ReasonKBStale Reason = "kb_stale"

	// Reasons of a REPUTATION.md summary signature check.

	// ReasonSummaryIDMismatch: the JWS verifies but signs another summary id.
	ReasonSummaryIDMismatch Reason = "summary_id_mismatch"
	// ReasonNotSigned: a trust file was given but the summary carries no JWS.
	ReasonNotSigned Reason = "not_signed"
	// ReasonNotChecked: a JWS came without a trust file to check it
	// against, or a passport names a status list and none was supplied.
	ReasonNotChecked Reason = "not_checked"
)

// Error is a refusal: a stable Reason and a detail for people. Details never
// quote content that failed verification.
type Error struct {
	Reason Reason
	Detail string
	Err    error // the underlying cause, if any
}

func (e *Error) Error() string {
	if e.Detail == "" {
		return string(e.Reason)
	}
	return string(e.Reason) + ": " + e.Detail
}

func (e *Error) Unwrap() error { return e.Err }

// errorf returns an *Error with a formatted detail.
func errorf(r Reason, format string, args ...any) *Error {
	return &Error{Reason: r, Detail: fmt.Sprintf(format, args...)}
}

// ReasonOf returns the Reason carried by err, or "" when err is nil or has
// no reason.
func ReasonOf(err error) Reason {
	var e *Error
	if errors.As(err, &e) {
		return e.Reason
	}
	return ""
}

// JSONError converts a refusal from the strict JSON parser into an *Error
// whose Reason is one of the json_* codes.
func JSONError(err error) error {
	var ce *cjson.Error
	if errors.As(err, &ce) {
		return &Error{Reason: Reason(ce.Code.String()), Detail: fmt.Sprintf("%s at byte %d", ce.Msg, ce.Offset), Err: err}
	}
	return err
}
