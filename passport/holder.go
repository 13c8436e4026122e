package passport

import (
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/remnant/passportkit/internal/cjson"
)

// HolderProofType is the typ of a holder key's proof of possession
// (SPEC.md §20.2).
const HolderProofType = "passport-pop+jwt"

// MaxHolderProof bounds a proof of possession, in bytes of its compact
// serialization; VerifyHolderProof refuses a longer one before decoding it.
const MaxHolderProof = 4096

// ErrHolderKey is wrapped by every refusal of [ParseHolderKey], and
// ErrHolderProof by every refusal of [VerifyHolderProof].
var (
	ErrHolderKey   = errors.New("not a holder key")
	ErrHolderProof = errors.New("not a valid proof of possession")
)

// holderKeyMembers are the members a holder key's JWK may have; every other
// is refused. privateMembers name a private key's parameters (RFC 7518
// §6.2.2, §6.3.2, §6.4.1).
var (
	holderKeyMembers = []string{"alg", "crv", "key_ops", "kid", "kty", "use", "x", "y"}
	privateMembers   = []string{"d", "dp", "dq", "k", "oth", "p", "q", "qi"}
)

// ParseHolderKey parses the public JWK of a holder key (SPEC.md §20.1): an
// Ed25519 (kty OKP) or P-256 (kty EC) public key whose members are only
// kty, crv, x, y (EC) and, optionally, alg, kid, use and key_ops, which
// must agree with the key as [ParsePublicKey] checks them. A private
// member ("d", and the other private parameters of RFC 7518) and any other
// member are refused. Every refusal wraps [ErrHolderKey].
func ParseHolderKey(b []byte) (*PublicKey, error) {
	if k, ok := bareHolderKey(b); ok {
		return k, nil
	}
	return parseHolderJWK(b)
}

// The forms of a bare holder key: the members of its RFC 7638 thumbprint
// and no others, canonical, around the base64url coordinates.
const (
	bareEdPrefix = `{"crv":"Ed25519","kty":"OKP","x":"`
	bareECPrefix = `{"crv":"P-256","kty":"EC","x":"`
	bareECMiddle = `","y":"`
	bareSuffix   = `"}`
	coordLen     = 43 // base64url of 32 bytes
)

// bareHolderKey reads a holder key written as exactly the members of its
// RFC 7638 thumbprint, canonical: {"crv":"Ed25519","kty":"OKP","x":X} or
// {"crv":"P-256","kty":"EC","x":X,"y":Y}, as a key binding carries it.
// Those bytes are the thumbprint's input, so the key needs no JWK decoder.
// It reports false for any other text, and for a P-256 point off the
// curve, which parseHolderJWK then refuses; for what it accepts,
// parseHolderJWK gives the same key (FuzzBareHolderKey).
func bareHolderKey(b []byte) (*PublicKey, bool) {
	s := string(b)
	var x, y [32]byte
	coord := func(dst *[32]byte, enc string) bool {
		n, err := b64.Decode(dst[:], []byte(enc))
		return err == nil && n == 32
	}
	k := &PublicKey{}
	switch {
	case len(s) == len(bareEdPrefix)+coordLen+len(bareSuffix) && strings.HasPrefix(s, bareEdPrefix) && strings.HasSuffix(s, bareSuffix):
		if !coord(&x, s[len(bareEdPrefix):len(bareEdPrefix)+coordLen]) {
			return nil, false
		}
		k.alg, k.ed = EdDSA, newEdKey(ed25519.PublicKey(x[:]))
	case len(s) == len(bareECPrefix)+2*coordLen+len(bareECMiddle)+len(bareSuffix) && strings.HasPrefix(s, bareECPrefix) &&
		s[len(bareECPrefix)+coordLen:][:len(bareECMiddle)] == bareECMiddle && strings.HasSuffix(s, bareSuffix):
		yAt := len(bareECPrefix) + coordLen + len(bareECMiddle)
		if !coord(&x, s[len(bareECPrefix):len(bareECPrefix)+coordLen]) || !coord(&y, s[yAt:yAt+coordLen]) {
			return nil, false
		}
		point := append(append([]byte{4}, x[:]...), y[:]...)
		ec, err := ecdsa.ParseUncompressedPublicKey(elliptic.P256(), point)
		if err != nil {
			return nil, false
		}
		k.alg, k.ec = ES256, ec
	default:
		return nil, false
	}
	sum := sha256.Sum256(b)
	k.kid = b64.EncodeToString(sum[:])
	return k, true
}

// parseHolderJWK is ParseHolderKey for a JWK in any form.
func parseHolderJWK(b []byte) (*PublicKey, error) {
	if len(b) > MaxKeySize {
		return nil, fmt.Errorf("%w: the JWK is larger than %d bytes", ErrHolderKey, MaxKeySize)
	}
	doc, err := cjson.Parse(b, cjson.Options{IndexDepth: 1})
	if err != nil {
		return nil, fmt.Errorf("%w: the JWK is not strict JSON: %w", ErrHolderKey, JSONError(err))
	}
	if doc.Root().Kind() != cjson.Object {
		return nil, fmt.Errorf("%w: the JWK is not a JSON object", ErrHolderKey)
	}
	for k := range doc.Root().Members() {
		name, _ := k.Text()
		switch {
		case slices.Contains(privateMembers, name):
			return nil, fmt.Errorf("%w: the JWK holds the private member %q; send the public key only", ErrHolderKey, name)
		case !slices.Contains(holderKeyMembers, name):
			return nil, fmt.Errorf("%w: the JWK member %q is not one of %s", ErrHolderKey, clipText(name), strings.Join(holderKeyMembers, ", "))
		}
	}
	k, err := ParsePublicKey(b)
	if err != nil {
		return nil, fmt.Errorf("%w: %s", ErrHolderKey, strings.TrimPrefix(err.Error(), "passport: "))
	}
	// The JWK parser reads a padded coordinate, or one with stray bits,
	// as the same key: one key has one text here.
	jwk := k.JWK()
	canonical, err := jwk.MarshalJSON()
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrHolderKey, err)
	}
	want, _ := cjson.Parse(canonical, cjson.Options{IndexDepth: 1})
	for _, name := range []string{"x", "y"} {
		got, _ := memberText(doc.Root(), name)
		if exp, _ := memberText(want.Root(), name); got != exp {
			return nil, fmt.Errorf("%w: %s is not the unpadded base64url of the key's 32 bytes", ErrHolderKey, name)
		}
	}
	return k, nil
}

// HolderProof is what a proof of possession states: the issuer it is
// made for, the nonce that issuer handed out, and the agent registering
// the key.
type HolderProof struct {
	Audience string `json:"aud"`
	Nonce    string `json:"nonce"`
	Subject  string `json:"sub"`
}

// ProveHolderKey returns the proof of possession of key for p: a compact
// JWS whose protected header is {"alg":<the key's algorithm>,"typ":
// [HolderProofType]} and whose payload is p's canonical JSON.
func ProveHolderKey(key *PrivateKey, p HolderProof) (string, error) {
	payload, err := Marshal(p)
	if err != nil {
		return "", err
	}
	header := `{"alg":"` + string(key.pub.alg) + `","typ":"` + HolderProofType + `"}`
	input := b64.EncodeToString([]byte(header)) + "." + b64.EncodeToString(payload)
	sig, err := key.sign([]byte(input))
	if err != nil {
		return "", fmt.Errorf("passport: holder proof: %w", err)
	}
	return input + "." + b64.EncodeToString(sig), nil
}

// VerifyHolderProof checks that proof is a proof of possession made with
// key (SPEC.md §20.2) and returns what it states, in this order: a compact
// JWS of at most [MaxHolderProof] bytes, its three parts in strict unpadded
// base64url (no other character, no padding, no stray bits);
// the protected header strict JSON with exactly the members alg, which
// must be the key's algorithm, and typ, which must be [HolderProofType];
// the signature valid under key; the payload canonical JSON with exactly
// the string members aud, nonce and sub. The caller compares the three
// with what it expects. Every refusal wraps [ErrHolderProof].
func VerifyHolderProof(proof string, key *PublicKey) (HolderProof, error) {
	var out HolderProof
	if len(proof) > MaxHolderProof {
		return out, proofErr("it is longer than %d bytes", MaxHolderProof)
	}
	if i := strings.IndexFunc(proof, notCompactJWS); i >= 0 {
		return out, proofErr("the character at byte %d is neither base64url nor a dot", i)
	}
	parts := strings.Split(proof, ".")
	if len(parts) != 3 {
		return out, proofErr("a compact JWS has three parts separated by dots")
	}
	header, err := b64.DecodeString(parts[0])
	if err != nil {
		return out, proofErr("the protected header is not unpadded base64url")
	}
	if err := checkProofHeader(header, key.Algorithm()); err != nil {
		return out, err
	}
	sig, err := b64.DecodeString(parts[2])
	if err != nil {
		return out, proofErr("the signature is not unpadded base64url")
	}
	if !key.Verify([]byte(parts[0]+"."+parts[1]), sig) {
		return out, proofErr("the signature does not verify under the key")
	}
	payload, err := b64.DecodeString(parts[1])
	if err != nil {
		return out, proofErr("the payload is not unpadded base64url")
	}
	return parseProofPayload(payload)
}

// checkProofHeader checks a proof's protected header: exactly alg, the
// key's algorithm alg, and typ.
func checkProofHeader(b []byte, alg Algorithm) error {
	doc, err := cjson.Parse(b, cjson.Options{MaxDepth: 2})
	if err != nil || doc.Root().Kind() != cjson.Object {
		return proofErr("the protected header is not a strict JSON object")
	}
	h := doc.Root()
	if h.Len() != 2 {
		return proofErr("the protected header must have exactly the members alg and typ")
	}
	a, okA := memberText(h, "alg")
	t, okT := memberText(h, "typ")
	switch {
	case !okA || !okT:
		return proofErr("the protected header must have exactly the members alg and typ, both strings")
	case a != string(alg):
		return proofErr("alg %q is not allowed: this key signs with %s only", clipText(a), alg)
	case t != HolderProofType:
		return proofErr("typ %q is not %q", clipText(t), HolderProofType)
	}
	return nil
}

// parseProofPayload reads a proof's payload: canonical JSON with exactly
// the string members aud, nonce and sub.
func parseProofPayload(b []byte) (HolderProof, error) {
	var out HolderProof
	doc, err := cjson.Parse(b, cjson.Options{Canonical: true, MaxDepth: 2})
	if err != nil {
		return out, proofErr("the payload is not canonical JSON: %s", ReasonOf(JSONError(err)))
	}
	p := doc.Root()
	var okA, okN, okS bool
	if p.Kind() == cjson.Object && p.Len() == 3 {
		out.Audience, okA = memberText(p, "aud")
		out.Nonce, okN = memberText(p, "nonce")
		out.Subject, okS = memberText(p, "sub")
	}
	if !okA || !okN || !okS {
		return HolderProof{}, proofErr("the payload must be an object with exactly the string members aud, nonce and sub")
	}
	return out, nil
}

// memberText returns the string member name of object v.
func memberText(v cjson.Value, name string) (string, bool) {
	m, ok := v.Get(name)
	if !ok {
		return "", false
	}
	return m.Text()
}

func proofErr(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrHolderProof, fmt.Sprintf(format, args...))
}

// clipText shortens s, taken from input, to 40 characters for a message.
func clipText(s string) string {
	if r := []rune(s); len(r) > 40 {
		return string(r[:40]) + "…"
	}
	return s
}

// notCompactJWS reports whether r may not appear in a compact JWS: the
// base64url decoder would skip a line break, so that one proof would have
// several texts.
func notCompactJWS(r rune) bool {
	return !(r >= 'A' && r <= 'Z' || r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '-' || r == '_' || r == '.')
}

// b64 is the unpadded base64url encoding JWS uses, refusing stray bits.
var b64 = base64.RawURLEncoding.Strict()
