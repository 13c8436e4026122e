package passport

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/sha256"
	"encoding/asn1"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/big"
	"slices"

	"github.com/go-jose/go-jose/v4"
)

// Algorithm is a JWS signature algorithm that passports may use.
type Algorithm string

// The supported algorithms. EdDSA (Ed25519) is the default.
const (
	EdDSA Algorithm = "EdDSA"
	ES256 Algorithm = "ES256"
)

// ParseAlgorithm returns the Algorithm named s, or an error for any other
// name (including "none" and the HMAC algorithms).
func ParseAlgorithm(s string) (Algorithm, error) {
	switch a := Algorithm(s); a {
	case EdDSA, ES256:
		return a, nil
	}
	return "", fmt.Errorf("passport: algorithm %q is not supported (use EdDSA or ES256)", s)
}

// MaxKeySize bounds a key file or JWK document: the key parsers refuse a
// larger one, and a command need read no more.
const MaxKeySize = 16 << 10

// PublicKey is a verification key pinned to exactly one algorithm. Its KeyID
// is the RFC 7638 thumbprint of the key, base64url-encoded. An Ed25519 key
// keeps its point decoded, so that checking a signature does not decode it
// again (SPEC.md §8 states the rules of the check).
type PublicKey struct {
	alg Algorithm
	kid string
	ed  edKey
	ec  *ecdsa.PublicKey
}

// Algorithm returns the one algorithm the key verifies.
func (k *PublicKey) Algorithm() Algorithm { return k.alg }

// KeyID returns the key's RFC 7638 SHA-256 thumbprint, base64url-encoded.
func (k *PublicKey) KeyID() string { return k.kid }

// Verify reports whether sig is a valid JWS signature of signingInput under
// the key's algorithm. For ES256, sig is the 64-byte R‖S form of RFC 7518.
func (k *PublicKey) Verify(signingInput, sig []byte) bool {
	switch k.alg {
	case EdDSA:
		return k.ed.verify(signingInput, sig)
	case ES256:
		if len(sig) != 64 {
			return false
		}
		h := sha256.Sum256(signingInput)
		r := new(big.Int).SetBytes(sig[:32])
		s := new(big.Int).SetBytes(sig[32:])
		return ecdsa.Verify(k.ec, h[:], r, s)
	}
	return false
}

// JWK returns the public key as a JSON Web Key with its alg and kid set.
func (k *PublicKey) JWK() jose.JSONWebKey {
	var key crypto.PublicKey = k.ed.pub
	if k.alg == ES256 {
		key = k.ec
	}
	return jose.JSONWebKey{Key: key, KeyID: k.kid, Algorithm: string(k.alg), Use: "sig"}
}

// MarshalJSON encodes the key as a public JWK.
func (k *PublicKey) MarshalJSON() ([]byte, error) {
	jwk := k.JWK()
	return jwk.MarshalJSON()
}

// ParsePublicKey parses a public JWK. The algorithm follows from the key
// type (OKP/Ed25519 → EdDSA, EC/P-256 → ES256); an "alg" member, when
// present, must agree, and a "kid" member, when present, must equal the
// thumbprint. Private members are refused: a public key file must not carry
// the private key.
func ParsePublicKey(b []byte) (*PublicKey, error) {
	jwk, err := parseJWK(b, "verify")
	if err != nil {
		return nil, err
	}
	if !jwk.IsPublic() {
		return nil, errors.New("passport: public key file holds a private key")
	}
	return publicFromJWK(jwk)
}

// parseJWK parses a JWK whose key_ops, when present, must include op.
func parseJWK(b []byte, op string) (*jose.JSONWebKey, error) {
	if len(b) > MaxKeySize {
		return nil, fmt.Errorf("passport: key document larger than %d bytes", MaxKeySize)
	}
	if err := CheckStrict(b); err != nil {
		return nil, fmt.Errorf("passport: key: %w", err)
	}
	var ops struct {
		KeyOps []string `json:"key_ops"`
	}
	if err := json.Unmarshal(b, &ops); err != nil {
		return nil, fmt.Errorf("passport: key: %w", err)
	}
	if ops.KeyOps != nil && !slices.Contains(ops.KeyOps, op) {
		return nil, fmt.Errorf("passport: key: key_ops does not allow %q", op)
	}
	var jwk jose.JSONWebKey
	if err := jwk.UnmarshalJSON(b); err != nil {
		return nil, fmt.Errorf("passport: key: %w", err)
	}
	return &jwk, nil
}

func publicFromJWK(jwk *jose.JSONWebKey) (*PublicKey, error) {
	pub := &PublicKey{}
	switch key := jwk.Public().Key.(type) {
	case ed25519.PublicKey:
		pub.alg, pub.ed = EdDSA, newEdKey(key)
	case *ecdsa.PublicKey:
		if key.Curve != elliptic.P256() {
			return nil, errors.New("passport: key: only the P-256 curve is supported for ECDSA")
		}
		pub.alg, pub.ec = ES256, key
	default:
		return nil, fmt.Errorf("passport: key: type %T is not supported (use Ed25519 or P-256)", key)
	}
	if jwk.Algorithm != "" && jwk.Algorithm != string(pub.alg) {
		return nil, fmt.Errorf("passport: key: alg %q does not fit a %s key", jwk.Algorithm, pub.alg)
	}
	if jwk.Use != "" && jwk.Use != "sig" {
		return nil, fmt.Errorf("passport: key: use %q is not \"sig\"", jwk.Use)
	}
	public := jwk.Public()
	tp, err := public.Thumbprint(crypto.SHA256)
	if err != nil {
		return nil, fmt.Errorf("passport: key: thumbprint: %w", err)
	}
	pub.kid = base64.RawURLEncoding.EncodeToString(tp)
	if jwk.KeyID != "" && jwk.KeyID != pub.kid {
		return nil, fmt.Errorf("passport: key: kid %q is not the key's RFC 7638 thumbprint", jwk.KeyID)
	}
	return pub, nil
}

// PrivateKey is a signing key pinned to one algorithm.
type PrivateKey struct {
	pub PublicKey
	ed  ed25519.PrivateKey
	ec  *ecdsa.PrivateKey
}

// NewPrivateKey derives a key from 32 bytes of secret material: the seed of
// an Ed25519 key, or the big-endian scalar of a P-256 key. It is
// deterministic, for fixed test keys; GenerateKey draws fresh material.
func NewPrivateKey(alg Algorithm, secret []byte) (*PrivateKey, error) {
	if len(secret) != 32 {
		return nil, fmt.Errorf("passport: key secret must be 32 bytes, got %d", len(secret))
	}
	var jwk jose.JSONWebKey
	switch alg {
	case EdDSA:
		jwk.Key = ed25519.NewKeyFromSeed(secret)
	case ES256:
		k, err := ecdsa.ParseRawPrivateKey(elliptic.P256(), secret)
		if err != nil {
			return nil, fmt.Errorf("passport: key: %w", err)
		}
		jwk.Key = k
	default:
		return nil, fmt.Errorf("passport: algorithm %q is not supported", alg)
	}
	return privateFromJWK(&jwk)
}

// GenerateKey creates a new key for alg from the random source r, which
// should be crypto/rand.Reader outside tests.
func GenerateKey(alg Algorithm, r io.Reader) (*PrivateKey, error) {
	for range 16 {
		secret := make([]byte, 32)
		if _, err := io.ReadFull(r, secret); err != nil {
			return nil, fmt.Errorf("passport: generate key: %w", err)
		}
		k, err := NewPrivateKey(alg, secret)
		if err == nil || alg != ES256 {
			return k, err
		}
		// A P-256 scalar of zero or beyond the order: draw again.
	}
	return nil, errors.New("passport: generate key: no valid scalar drawn")
}

// ParsePrivateKey parses a private JWK, as written by PrivateKey.MarshalJSON.
func ParsePrivateKey(b []byte) (*PrivateKey, error) {
	jwk, err := parseJWK(b, "sign")
	if err != nil {
		return nil, err
	}
	if jwk.IsPublic() {
		return nil, errors.New("passport: key file holds a public key, not a private key")
	}
	return privateFromJWK(jwk)
}

func privateFromJWK(jwk *jose.JSONWebKey) (*PrivateKey, error) {
	pub, err := publicFromJWK(jwk)
	if err != nil {
		return nil, err
	}
	k := &PrivateKey{pub: *pub}
	switch key := jwk.Key.(type) {
	case ed25519.PrivateKey:
		k.ed = key
	case *ecdsa.PrivateKey:
		k.ec = key
	default:
		return nil, fmt.Errorf("passport: key: type %T is not a supported private key", key)
	}
	return k, nil
}

// Public returns the key's public half.
func (k *PrivateKey) Public() *PublicKey { p := k.pub; return &p }

// MarshalJSON encodes the key as a private JWK with its alg and kid set.
func (k *PrivateKey) MarshalJSON() ([]byte, error) {
	var key crypto.PrivateKey = k.ed
	if k.pub.alg == ES256 {
		key = k.ec
	}
	jwk := jose.JSONWebKey{Key: key, KeyID: k.pub.kid, Algorithm: string(k.pub.alg), Use: "sig"}
	b, err := jwk.MarshalJSON()
	if err != nil {
		return nil, err
	}
	return Canonicalize(b)
}

// sign returns the JWS signature of signingInput. ES256 signatures are
// deterministic (RFC 6979) and returned in R‖S form.
func (k *PrivateKey) sign(signingInput []byte) ([]byte, error) {
	switch k.pub.alg {
	case EdDSA:
		return ed25519.Sign(k.ed, signingInput), nil
	case ES256:
		h := sha256.Sum256(signingInput)
		der, err := k.ec.Sign(nil, h[:], crypto.SHA256)
		if err != nil {
			return nil, err
		}
		return derToRS(der)
	}
	return nil, fmt.Errorf("passport: algorithm %q is not supported", k.pub.alg)
}

// derToRS converts an ASN.1 ECDSA signature into the fixed 64-byte R‖S form.
func derToRS(der []byte) ([]byte, error) {
	var sig struct{ R, S *big.Int }
	if _, err := asn1.Unmarshal(der, &sig); err != nil {
		return nil, err
	}
	out := make([]byte, 64)
	sig.R.FillBytes(out[:32])
	sig.S.FillBytes(out[32:])
	return out, nil
}

// The go-jose signer calls back into the key through this adapter, so that
// go-jose writes the JWS while the signature itself is deterministic.
type opaqueKey struct{ k *PrivateKey }

var _ jose.OpaqueSigner = opaqueKey{}

func (o opaqueKey) Public() *jose.JSONWebKey {
	jwk := o.k.pub.JWK()
	return &jwk
}

func (o opaqueKey) Algs() []jose.SignatureAlgorithm {
	return []jose.SignatureAlgorithm{jose.SignatureAlgorithm(o.k.pub.alg)}
}

func (o opaqueKey) SignPayload(payload []byte, alg jose.SignatureAlgorithm) ([]byte, error) {
	if string(alg) != string(o.k.pub.alg) {
		return nil, fmt.Errorf("passport: key signs %s, not %s", o.k.pub.alg, alg)
	}
	return o.k.sign(payload)
}
