package issuer

import (
	"encoding/json"
	"time"
)

// Bounds of holder keys (SPEC.md §20).
const (
	MaxHolderKeys     = 4               // holder keys of one agent
	MaxHolderKeysBody = 32 << 10        // bytes of PUT /api/agents/me/holder-keys
	HolderKeyNonceTTL = 5 * time.Minute // how long a nonce for proofs of possession is accepted
)

// HolderKeysRequest is the wire form of PUT /api/agents/me/holder-keys and
// of set_holder_keys: the agent's whole set of holder keys, each with its
// proof of possession. An empty list removes every key; an absent one is
// refused.
type HolderKeysRequest struct {
	Keys []HolderKeyProof `json:"keys"`
}

// HolderKeyProof is one holder key and its proof of possession.
type HolderKeyProof struct {
	// JWK is the key's public JWK, read by passport.ParseHolderKey.
	JWK json.RawMessage `json:"jwk"`
	// Proof is a compact JWS the key made over a nonce of this issuer
	// (passport.VerifyHolderProof).
	Proof string `json:"proof"`
}

// ParseHolderKeys decodes the body of PUT /api/agents/me/holder-keys. The
// rules are the service's; see SetHolderKeys in issuer/service.
func ParseHolderKeys(body []byte) (HolderKeysRequest, error) {
	var r HolderKeysRequest
	err := Decode(body, MaxHolderKeysBody, &r)
	return r, err
}

// HolderKeyNonce is a nonce for proofs of possession, handed to one agent:
// it is accepted in that agent's proofs until ExpiresAt.
type HolderKeyNonce struct {
	Nonce     string    `json:"nonce"`
	ExpiresAt time.Time `json:"expiresAt"`
}

// HolderKey is one registered holder key, as its agent sees it.
type HolderKey struct {
	// Thumbprint is the key's RFC 7638 SHA-256 thumbprint, base64url: what
	// the agent's passport names in cnf.
	Thumbprint string `json:"thumbprint"`
	// Algorithm is the one algorithm the key signs with: EdDSA or ES256.
	Algorithm string `json:"alg"`
	// JWK is the key's canonical public JWK, with alg, kid (the
	// thumbprint) and use "sig".
	JWK json.RawMessage `json:"jwk"`
	// CreatedAt is when the key was registered.
	CreatedAt time.Time `json:"createdAt"`
}

// HolderKeys is an agent's holder keys, in byte order of their
// thumbprints: the answer of GET and PUT /api/agents/me/holder-keys.
type HolderKeys struct {
	Keys []HolderKey `json:"keys"`
}
