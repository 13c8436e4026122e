package storetest

import (
	"crypto/ed25519"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"strings"
	"testing"

	"github.com/remnant/passportkit/issuer"
	"github.com/remnant/passportkit/passport"
)

// HolderKey is a holder key for tests: the private key, and the Ed25519
// seed it was made from (nil for P-256), with which a test signs bytes
// the profile forbids.
type HolderKey struct {
	*passport.PrivateKey
	seed []byte
}

// NewHolderKey draws a fresh holder key for alg.
func NewHolderKey(t testing.TB, alg passport.Algorithm) HolderKey {
	t.Helper()
	if alg == passport.EdDSA {
		seed := make([]byte, ed25519.SeedSize)
		rand.Read(seed)
		k, err := passport.NewPrivateKey(alg, seed)
		if err != nil {
			t.Fatalf("storetest: %v", err)
		}
		return HolderKey{PrivateKey: k, seed: seed}
	}
	k, err := passport.GenerateKey(alg, rand.Reader)
	if err != nil {
		t.Fatalf("storetest: %v", err)
	}
	return HolderKey{PrivateKey: k}
}

// JWK returns the key's public JWK.
func (k HolderKey) JWK(t testing.TB) json.RawMessage {
	t.Helper()
	b, err := k.Public().MarshalJSON()
	if err != nil {
		t.Fatalf("storetest: %v", err)
	}
	return b
}

// Proved returns the key's entry of a holder-keys request: its public
// JWK and its proof of possession over nonce for agent and [Issuer].
func (k HolderKey) Proved(t testing.TB, nonce string, agent issuer.AgentID) issuer.HolderKeyProof {
	t.Helper()
	return k.provedFor(t, passport.HolderProof{Audience: Issuer, Nonce: nonce, Subject: string(agent)})
}

func (k HolderKey) provedFor(t testing.TB, claims passport.HolderProof) issuer.HolderKeyProof {
	t.Helper()
	proof, err := passport.ProveHolderKey(k.PrivateKey, claims)
	if err != nil {
		t.Fatalf("storetest: %v", err)
	}
	return issuer.HolderKeyProof{JWK: k.JWK(t), Proof: proof}
}

// crafted returns a compact JWS of header and payload, signed by the
// Ed25519 key k with sign (nil: an empty signature).
func (k HolderKey) crafted(header, payload string, sign func(input []byte) []byte) string {
	enc := base64.RawURLEncoding
	input := enc.EncodeToString([]byte(header)) + "." + enc.EncodeToString([]byte(payload))
	var sig []byte
	if sign != nil {
		sig = sign([]byte(input))
	}
	return input + "." + enc.EncodeToString(sig)
}

// BadHolderKeys is a holder-keys request the service refuses, and the
// code it refuses it with.
type BadHolderKeys struct {
	Name string
	Keys []issuer.HolderKeyProof
	Code issuer.Code
}

// RefusedHolderKeys returns requests by agent that every transport must
// refuse, each with its code, given nonce, a fresh nonce of agent, and
// othersNonce, a fresh nonce of another agent. Keys are drawn anew.
func RefusedHolderKeys(t testing.TB, agent issuer.AgentID, nonce, othersNonce string) []BadHolderKeys {
	t.Helper()
	ed := NewHolderKey(t, passport.EdDSA)
	es := NewHolderKey(t, passport.ES256)
	claims := passport.HolderProof{Audience: Issuer, Nonce: nonce, Subject: string(agent)}
	payload, err := passport.Marshal(claims)
	if err != nil {
		t.Fatalf("storetest: %v", err)
	}
	edSign := func(input []byte) []byte { return ed25519.Sign(ed25519.NewKeyFromSeed(ed.seed), input) }
	withProof := func(k HolderKey, proof string) []issuer.HolderKeyProof {
		return []issuer.HolderKeyProof{{JWK: k.JWK(t), Proof: proof}}
	}
	good := ed.provedFor(t, claims)
	other := NewHolderKey(t, passport.EdDSA).provedFor(t, claims)
	private, err := ed.MarshalJSON()
	if err != nil {
		t.Fatalf("storetest: %v", err)
	}
	altered := []byte(nonce)
	if altered[len(altered)/2] = 'A'; nonce[len(nonce)/2] == 'A' {
		altered[len(altered)/2] = 'B'
	}
	five := make([]issuer.HolderKeyProof, issuer.MaxHolderKeys+1)
	for i := range five {
		five[i] = NewHolderKey(t, passport.EdDSA).provedFor(t, claims)
	}
	typ := `,"typ":"` + passport.HolderProofType + `"}`
	return []BadHolderKeys{
		{"keys absent", nil, issuer.CodeInvalid},
		{"five keys", five, issuer.CodeTooManyItems},
		{"one key twice", []issuer.HolderKeyProof{good, ed.provedFor(t, claims)}, issuer.CodeInvalid},
		{"no jwk", []issuer.HolderKeyProof{{Proof: good.Proof}}, issuer.CodeHolderKeyInvalid},
		{"a private jwk", []issuer.HolderKeyProof{{JWK: private, Proof: good.Proof}}, issuer.CodeHolderKeyInvalid},
		{"an RSA jwk", []issuer.HolderKeyProof{{JWK: json.RawMessage(`{"kty":"RSA","n":"0vx7agoebGcQSuu","e":"AQAB"}`), Proof: good.Proof}}, issuer.CodeHolderKeyInvalid},
		{"a P-384 jwk", []issuer.HolderKeyProof{{JWK: json.RawMessage(`{"kty":"EC","crv":"P-384","x":"AAAA","y":"AAAA"}`), Proof: good.Proof}}, issuer.CodeHolderKeyInvalid},
		{"a jwk with an unknown member", []issuer.HolderKeyProof{{JWK: json.RawMessage(strings.Replace(string(ed.JWK(t)), `{`, `{"x5u":"https://keys.example/k",`, 1)), Proof: good.Proof}}, issuer.CodeHolderKeyInvalid},
		{"a jwk whose alg does not fit", []issuer.HolderKeyProof{{JWK: json.RawMessage(strings.Replace(string(ed.JWK(t)), `"EdDSA"`, `"ES256"`, 1)), Proof: good.Proof}}, issuer.CodeHolderKeyInvalid},
		{"no proof", withProof(ed, ""), issuer.CodeHolderProofInvalid},
		{"a proof by another key", withProof(ed, other.Proof), issuer.CodeHolderProofInvalid},
		{"a P-256 key with an Ed25519 proof", withProof(es, good.Proof), issuer.CodeHolderProofInvalid},
		{"a proof that is not a JWS", withProof(ed, "not a proof"), issuer.CodeHolderProofInvalid},
		{"a proof with a line break", withProof(ed, strings.Replace(good.Proof, ".", ".\n", 1)), issuer.CodeHolderProofInvalid},
		{"alg none", withProof(ed, ed.crafted(`{"alg":"none"`+typ, string(payload), nil)), issuer.CodeHolderProofInvalid},
		{"HS256 keyed by the public key", withProof(ed, ed.crafted(`{"alg":"HS256"`+typ, string(payload), func(in []byte) []byte {
			m := hmac.New(sha256.New, ed.Public().JWK().Key.(ed25519.PublicKey))
			m.Write(in)
			return m.Sum(nil)
		})), issuer.CodeHolderProofInvalid},
		{"typ JWT", withProof(ed, ed.crafted(`{"alg":"EdDSA","typ":"JWT"}`, string(payload), edSign)), issuer.CodeHolderProofInvalid},
		{"no typ", withProof(ed, ed.crafted(`{"alg":"EdDSA"}`, string(payload), edSign)), issuer.CodeHolderProofInvalid},
		{"a kid header", withProof(ed, ed.crafted(`{"alg":"EdDSA","kid":"`+ed.Public().KeyID()+`"`+typ, string(payload), edSign)), issuer.CodeHolderProofInvalid},
		{"a payload not canonical", withProof(ed, ed.crafted(`{"alg":"EdDSA"`+typ, `{"sub":"`+string(agent)+`","aud":"`+Issuer+`","nonce":"`+nonce+`"}`, edSign)), issuer.CodeHolderProofInvalid},
		{"a payload with exp", withProof(ed, ed.crafted(`{"alg":"EdDSA"`+typ, `{"aud":"`+Issuer+`","exp":1,"nonce":"`+nonce+`","sub":"`+string(agent)+`"}`, edSign)), issuer.CodeHolderProofInvalid},
		{"aud another issuer", []issuer.HolderKeyProof{ed.provedFor(t, passport.HolderProof{Audience: "https://other.example", Nonce: nonce, Subject: string(agent)})}, issuer.CodeHolderProofInvalid},
		{"sub another agent", []issuer.HolderKeyProof{ed.provedFor(t, passport.HolderProof{Audience: Issuer, Nonce: nonce, Subject: "agt_" + strings.Repeat("a", 26)})}, issuer.CodeHolderProofInvalid},
		{"a nonce not handed out", []issuer.HolderKeyProof{ed.provedFor(t, passport.HolderProof{Audience: Issuer, Nonce: "bm90IGEgbm9uY2U", Subject: string(agent)})}, issuer.CodeHolderNonceInvalid},
		{"an altered nonce", []issuer.HolderKeyProof{ed.provedFor(t, passport.HolderProof{Audience: Issuer, Nonce: string(altered), Subject: string(agent)})}, issuer.CodeHolderNonceInvalid},
		{"another agent's nonce", []issuer.HolderKeyProof{ed.provedFor(t, passport.HolderProof{Audience: Issuer, Nonce: othersNonce, Subject: string(agent)})}, issuer.CodeHolderNonceInvalid},
		{"a good key, then a bad one", []issuer.HolderKeyProof{good, withProof(es, "")[0]}, issuer.CodeHolderProofInvalid},
	}
}
