package passport

import (
	"encoding/json"
	"fmt"

	"github.com/remnant/passportkit/evidence"
)

// Format constants.
const (
	// MediaType is the media type of a bundle.
	MediaType = "application/vnd.passportkit.bundle+json"
	// JWSType is the typ header of a passport credential.
	JWSType = "passport+jws"
	// SummaryJWSType is the typ header of a JWS, under the same profile,
	// that signs the id of a shared REPUTATION.md summary: its payload is
	// the id itself, 64 lower-case hex digits (package ledger).
	SummaryJWSType = "reputation-summary+jws"
	// MaxBundleSize bounds a bundle, before any parsing and after any
	// decompression: 512 KiB.
	MaxBundleSize = 512 << 10
)

// Bundle is the unit a holder presents and a verifier checks: the signed
// credential, the snapshot it signs (again, readable), and some evidence
// leaves with their inclusion proofs. Its encoding is canonical JSON.
type Bundle struct {
	BundleVersion string `json:"bundleVersion"`
	// Credential is a JWS in compact serialization whose payload is the
	// snapshot.
	Credential string `json:"credential"`
	// Evidence discloses leaves of the passport's evidence tree, in
	// increasing index order.
	Evidence []Disclosure `json:"evidence"`
	// Snapshot is the signed payload: {"passport":…,"passportHash":…} and,
	// from passportVersion 0.2 on, the JWT claims.
	Snapshot json.RawMessage `json:"snapshot"`
}

// Disclosure is one evidence leaf and its RFC 9162 inclusion proof.
type Disclosure struct {
	Index int             `json:"index"`
	Leaf  json.RawMessage `json:"leaf"`
	Proof []evidence.Hash `json:"proof"`
}

// Snapshot is the signed payload of a credential. A passport of version
// 0.2 or later also carries its Claims there; Claims is nil for 0.1.
type Snapshot struct {
	Passport     json.RawMessage `json:"passport"`
	PassportHash string          `json:"passportHash"`
	*Claims
}

// ParseBundleUnverified decodes a bundle without verifying anything but
// its JSON: no signature, hash, key or time is checked, so nothing it
// returns may be trusted. It is for inspection and for the issuer reading
// back what it just signed; a third party verifies with verifier.Verify,
// which hands out the passport only when every check passed. The bundle
// must be at most MaxBundleSize bytes of strict JSON.
func ParseBundleUnverified(b []byte) (*Bundle, error) {
	if len(b) > MaxBundleSize {
		return nil, errorf(ReasonBundleTooLarge, "%d bytes; the limit is %d", len(b), MaxBundleSize)
	}
	if err := CheckStrict(b); err != nil {
		return nil, err
	}
	var bundle Bundle
	if err := json.Unmarshal(b, &bundle); err != nil {
		return nil, &Error{Reason: ReasonBundleMalformed, Detail: err.Error(), Err: err}
	}
	if bundle.Credential == "" || len(bundle.Snapshot) == 0 {
		return nil, errorf(ReasonBundleMalformed, "credential and snapshot are required")
	}
	return &bundle, nil
}

// SnapshotUnverified decodes the bundle's readable snapshot and the
// passport it holds without verifying them: like [ParseBundleUnverified],
// nothing it returns may be trusted. It is for inspection and tests.
func (b *Bundle) SnapshotUnverified() (Snapshot, Passport, error) {
	var snap Snapshot
	if err := json.Unmarshal(b.Snapshot, &snap); err != nil {
		return Snapshot{}, Passport{}, &Error{Reason: ReasonPayloadMalformed, Detail: err.Error(), Err: err}
	}
	var p Passport
	if err := json.Unmarshal(snap.Passport, &p); err != nil {
		return Snapshot{}, Passport{}, &Error{Reason: ReasonPayloadMalformed, Detail: err.Error(), Err: err}
	}
	return snap, p, nil
}

// Encode returns the bundle's canonical JSON.
func (b *Bundle) Encode() ([]byte, error) {
	out, err := Marshal(b)
	if err != nil {
		return nil, fmt.Errorf("passport: encode bundle: %w", err)
	}
	return out, nil
}
