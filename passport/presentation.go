package passport

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/go-jose/go-jose/v4"

	"github.com/remnant/passportkit/internal/cjson"
)

// Presentation format constants (SPEC.md §11.6).
const (
	// PresentationMediaType is the media type of a presentation.
	PresentationMediaType = "application/vnd.passportkit.presentation+json"
	// PresentationVersion is the version of the presentation format.
	PresentationVersion = "1.0"
	// KeyBindingType is the typ header of a key-binding JWS.
	KeyBindingType = "passport-kb+jwt"
	// MaxPresentationSize bounds a presentation before it is parsed: a
	// bundle of MaxBundleSize and 8 KiB for the rest.
	MaxPresentationSize = MaxBundleSize + 8<<10
	// MaxPresentationDepth bounds a presentation's nesting: one level more
	// than a bundle's, so that the bundle inside keeps its own bound.
	MaxPresentationDepth = cjson.DefaultMaxDepth + 1
	// MaxKeyBinding bounds a key-binding JWS, in bytes of its compact
	// serialization.
	MaxKeyBinding = 4096
)

// Presentation is a bundle presented by its holder: the bundle, and a
// key-binding JWS by one of the passport's holder keys over the audience,
// a nonce, the time and the passport's hash. Its encoding is canonical JSON,
// {"bundle":…,"keyBinding":"…","presentationVersion":"1.0"}.
type Presentation struct {
	// Bundle is the bundle's bytes, exactly as the presentation holds them.
	Bundle json.RawMessage `json:"bundle"`
	// KeyBinding is the key-binding JWS, in compact serialization.
	KeyBinding string `json:"keyBinding"`
	// PresentationVersion is the format version, of major version 1.
	PresentationVersion string `json:"presentationVersion"`
}

// KeyBindingClaims are what a key-binding JWS states: for whom the
// presentation is made (Audience), the verifier's challenge (Nonce), when
// (IssuedAt, Unix seconds) and which passport (PassportHash).
type KeyBindingClaims struct {
	Audience     string `json:"aud"`
	IssuedAt     int64  `json:"iat"`
	Nonce        string `json:"nonce"`
	PassportHash string `json:"passportHash"`
}

// Present makes a presentation of bundle for audience, answering nonce, as
// of at: the key-binding JWS is signed by key, which must be one of the
// holder keys the passport names in its cnf member. bundle must be a
// canonical bundle of at most MaxBundleSize bytes, as an issuer serves it;
// Present reads it without verifying it. A passport without cnf is refused
// with ReasonPassportNotBound, a key it does not name with
// ReasonKBKeyNotBound.
func Present(bundle []byte, key *PrivateKey, audience, nonce string, at time.Time) ([]byte, error) {
	if audience == "" || nonce == "" {
		return nil, errors.New("passport: a presentation needs an audience and a nonce")
	}
	if len(bundle) > MaxBundleSize {
		return nil, errorf(ReasonBundleTooLarge, "%d bytes; the limit is %d", len(bundle), MaxBundleSize)
	}
	if err := CheckCanonical(bundle); err != nil {
		return nil, fmt.Errorf("passport: the bundle is not canonical JSON: %w", err)
	}
	hash, err := boundHash(bundle, key.Public())
	if err != nil {
		return nil, err
	}
	kb, err := signKeyBinding(key, KeyBindingClaims{Audience: audience, IssuedAt: at.Unix(), Nonce: nonce, PassportHash: hash})
	if err != nil {
		return nil, err
	}
	out := make([]byte, 0, len(bundle)+len(kb)+64)
	out = append(out, `{"bundle":`...)
	out = append(out, bundle...)
	out = append(out, `,"keyBinding":"`...)
	out = append(out, kb...)
	out = append(out, `","presentationVersion":"`+PresentationVersion+`"}`...)
	return out, nil
}

// boundHash returns the passportHash of bundle after checking that its
// passport names key in cnf.
func boundHash(bundle []byte, key *PublicKey) (string, error) {
	b, err := ParseBundleUnverified(bundle)
	if err != nil {
		return "", err
	}
	var snap struct {
		Passport struct {
			Cnf *Confirmation `json:"cnf"`
		} `json:"passport"`
		PassportHash string `json:"passportHash"`
	}
	if err := json.Unmarshal(b.Snapshot, &snap); err != nil {
		return "", &Error{Reason: ReasonPayloadMalformed, Detail: err.Error(), Err: err}
	}
	switch {
	case snap.Passport.Cnf == nil:
		return "", errorf(ReasonPassportNotBound, "the passport names no holder key (no cnf): it cannot be presented")
	case !slices.Contains(snap.Passport.Cnf.JKTs, key.KeyID()):
		return "", errorf(ReasonKBKeyNotBound, "the passport does not name the key %s in cnf", key.KeyID())
	}
	return snap.PassportHash, nil
}

// signKeyBinding returns the key-binding JWS of c signed by key: the
// protected header {"alg":…,"jwk":<the public key>,"typ":"passport-kb+jwt"}
// and the payload c, both canonical.
func signKeyBinding(key *PrivateKey, c KeyBindingClaims) (string, error) {
	jwk, err := bareJWK(key.Public())
	if err != nil {
		return "", err
	}
	header, err := Marshal(struct {
		Alg Algorithm       `json:"alg"`
		JWK json.RawMessage `json:"jwk"`
		Typ string          `json:"typ"`
	}{key.pub.alg, jwk, KeyBindingType})
	if err != nil {
		return "", err
	}
	payload, err := Marshal(c)
	if err != nil {
		return "", err
	}
	input := b64.EncodeToString(header) + "." + b64.EncodeToString(payload)
	sig, err := key.sign([]byte(input))
	if err != nil {
		return "", fmt.Errorf("passport: key binding: %w", err)
	}
	kb := input + "." + b64.EncodeToString(sig)
	if len(kb) > MaxKeyBinding {
		return "", fmt.Errorf("passport: the key binding is %d bytes, over %d: shorten the audience or the nonce", len(kb), MaxKeyBinding)
	}
	return kb, nil
}

// bareJWK returns k's public JWK with the members its RFC 7638 thumbprint
// is taken over and no others, canonical.
func bareJWK(k *PublicKey) ([]byte, error) {
	jwk := k.JWK()
	b, err := (&jose.JSONWebKey{Key: jwk.Key}).MarshalJSON()
	if err != nil {
		return nil, fmt.Errorf("passport: key binding: %w", err)
	}
	return Canonicalize(b)
}

// ParsePresentationUnverified decodes a presentation as the first check of
// SPEC.md §11.6 reads it, and verifies nothing else: not the bundle, not
// the key binding. It is for inspection; a third party verifies with
// verifier.VerifyPresentation.
func ParsePresentationUnverified(b []byte) (*Presentation, error) {
	if len(b) > MaxPresentationSize {
		return nil, errorf(ReasonPresentationTooLarge, "%d bytes; the limit is %d", len(b), MaxPresentationSize)
	}
	doc, err := cjson.Parse(b, cjson.Options{Canonical: true, DeferNumbers: true, MaxDepth: MaxPresentationDepth, IndexDepth: 1})
	if err != nil {
		return nil, JSONError(err)
	}
	bundle, kb, version, err := PresentationParts(doc.Root())
	if err != nil {
		return nil, err
	}
	return &Presentation{Bundle: bundle.Raw(), KeyBinding: string(kb), PresentationVersion: version}, nil
}

// PresentationParts reads the members of a presentation already parsed as
// canonical JSON (SPEC.md §11.6, check presentation): exactly bundle (an
// object), keyBinding (a string) and presentationVersion (a string of major
// version 1). It returns the bundle, the key binding's text and the version.
// A refusal is an *Error with ReasonPresentationMalformed or
// ReasonPresentationVersion.
func PresentationParts(root cjson.Value) (bundle cjson.Value, keyBinding []byte, version string, err error) {
	if root.Kind() != cjson.Object {
		return bundle, nil, "", errorf(ReasonPresentationMalformed, "a presentation is a JSON object")
	}
	var kb, ver cjson.Value
	for k, v := range root.Members() {
		switch name, _ := k.Text(); name {
		case "bundle":
			bundle = v
		case "keyBinding":
			kb = v
		case "presentationVersion":
			ver = v
		default:
			return bundle, nil, "", errorf(ReasonPresentationMalformed, "unknown member %q", clipText(name))
		}
	}
	switch {
	case bundle.Kind() == cjson.Invalid || kb.Kind() == cjson.Invalid || ver.Kind() == cjson.Invalid:
		return bundle, nil, "", errorf(ReasonPresentationMalformed, "bundle, keyBinding and presentationVersion are required")
	case bundle.Kind() != cjson.Object:
		return bundle, nil, "", errorf(ReasonPresentationMalformed, "bundle must be an object")
	case kb.Kind() != cjson.String:
		return bundle, nil, "", errorf(ReasonPresentationMalformed, "keyBinding must be a string")
	case ver.Kind() != cjson.String:
		return bundle, nil, "", errorf(ReasonPresentationMalformed, "presentationVersion must be a string")
	}
	version, _ = ver.Text()
	if err := CheckVersion("presentationVersion", version, PresentationVersion); err != nil {
		return bundle, nil, "", errorf(ReasonPresentationVersion, "%s", err.(*Error).Detail)
	}
	// Canonical JSON escapes no character of a compact JWS, so the raw
	// text is the string wherever it can be one.
	keyBinding, _ = kb.RawText()
	return bundle, keyBinding, version, nil
}

// KeyBinding is a key-binding JWS split into its decoded parts. Nothing in
// it is verified: read the holder key with HolderKey, check the signature
// with Verify, and only then read what it states with Claims.
type KeyBinding struct {
	signingInput      []byte
	header, payload   []byte
	signature         []byte
	signatureVerified bool
}

// SplitKeyBinding splits a compact key-binding JWS (SPEC.md §11.6, check
// kb_jws): at most MaxKeyBinding bytes of base64url characters and exactly
// two dots, three non-empty parts, each strict unpadded base64url. A
// refusal is an *Error with ReasonKBMalformed.
func SplitKeyBinding(compact []byte) (*KeyBinding, error) {
	if len(compact) > MaxKeyBinding {
		return nil, errorf(ReasonKBMalformed, "%d bytes; the limit is %d", len(compact), MaxKeyBinding)
	}
	dots := 0
	for i, c := range compact {
		if c == '.' {
			dots++
		} else if notCompactJWS(rune(c)) {
			return nil, errorf(ReasonKBMalformed, "the byte at %d is neither base64url nor a dot", i)
		}
	}
	if dots != 2 {
		return nil, errorf(ReasonKBMalformed, "a compact JWS has three parts separated by dots")
	}
	d1 := bytes.IndexByte(compact, '.')
	d2 := d1 + 1 + bytes.IndexByte(compact[d1+1:], '.')
	kb := &KeyBinding{signingInput: compact[:d2]}
	for i, part := range [][]byte{compact[:d1], compact[d1+1 : d2], compact[d2+1:]} {
		if len(part) == 0 {
			return nil, errorf(ReasonKBMalformed, "part %d of the JWS is empty", i+1)
		}
		dec := make([]byte, b64.DecodedLen(len(part)))
		n, err := b64.Decode(dec, part)
		if err != nil {
			return nil, errorf(ReasonKBMalformed, "part %d of the JWS is not unpadded base64url", i+1)
		}
		switch i {
		case 0:
			kb.header = dec[:n]
		case 1:
			kb.payload = dec[:n]
		default:
			kb.signature = dec[:n]
		}
	}
	return kb, nil
}

// HolderKey reads the protected header (SPEC.md §11.6, check kb_header)
// and returns the holder key it carries: a strict JSON object, nesting at
// most 4, with exactly the members alg, jwk and typ (ReasonKBHeader); typ
// KeyBindingType (ReasonKBType); alg EdDSA or ES256 (ReasonKBAlgNotAllowed);
// jwk a holder key as ParseHolderKey reads it (ReasonKBKeyInvalid); and alg
// the key's own algorithm (ReasonKBAlgKeyMismatch).
func (kb *KeyBinding) HolderKey() (*PublicKey, error) {
	doc, err := cjson.Parse(kb.header, cjson.Options{MaxDepth: 4})
	if err != nil || doc.Root().Kind() != cjson.Object {
		return nil, errorf(ReasonKBHeader, "the protected header is not a strict JSON object")
	}
	var alg, jwk, typ cjson.Value
	for k, v := range doc.Root().Members() {
		switch name, _ := k.Text(); name {
		case "alg":
			alg = v
		case "jwk":
			jwk = v
		case "typ":
			typ = v
		default:
			return nil, errorf(ReasonKBHeader, "header %q is not part of the key-binding profile", clipText(name))
		}
	}
	a, okA := alg.Text()
	t, okT := typ.Text()
	switch {
	case !okA || !okT || jwk.Kind() != cjson.Object:
		return nil, errorf(ReasonKBHeader, "the protected header must have exactly alg (a string), jwk (an object) and typ (a string)")
	case t != KeyBindingType:
		return nil, errorf(ReasonKBType, "typ must be %q", KeyBindingType)
	}
	algorithm, err := ParseAlgorithm(a)
	if err != nil {
		return nil, errorf(ReasonKBAlgNotAllowed, "algorithm %q is not allowed; only EdDSA and ES256 are", clipText(a))
	}
	key, err := ParseHolderKey(jwk.Raw())
	if err != nil {
		return nil, &Error{Reason: ReasonKBKeyInvalid, Detail: strings.TrimPrefix(err.Error(), ErrHolderKey.Error()+": "), Err: err}
	}
	if key.Algorithm() != algorithm {
		return nil, errorf(ReasonKBAlgKeyMismatch, "the header says %s but the key is pinned to %s", algorithm, key.Algorithm())
	}
	return key, nil
}

// Verify checks the signature under key, which must be the holder key the
// header carries (SPEC.md §11.6, check kb_signature). A refusal is an
// *Error with ReasonKBSignature.
func (kb *KeyBinding) Verify(key *PublicKey) error {
	if !key.Verify(kb.signingInput, kb.signature) {
		return errorf(ReasonKBSignature, "the signature does not verify under the holder key")
	}
	kb.signatureVerified = true
	return nil
}

// errKBUnverified is returned by Claims before Verify succeeded.
var errKBUnverified = errors.New("passport: the key binding's signature has not been verified")

// Claims returns what the key binding states (SPEC.md §11.6, check
// kb_payload), once Verify has succeeded: the payload is canonical JSON,
// an object with exactly aud and nonce (non-empty strings), iat (an
// integer from 0 to 2^53−1) and passportHash (a string). A refusal is an
// *Error with ReasonKBPayload.
func (kb *KeyBinding) Claims() (KeyBindingClaims, error) {
	var c KeyBindingClaims
	if !kb.signatureVerified {
		return c, errKBUnverified
	}
	doc, err := cjson.Parse(kb.payload, cjson.Options{Canonical: true, MaxDepth: 2})
	if err != nil {
		return c, errorf(ReasonKBPayload, "the payload is not canonical JSON: %s", ReasonOf(JSONError(err)))
	}
	p := doc.Root()
	var okA, okI, okN, okH bool
	if p.Kind() == cjson.Object && p.Len() == 4 {
		c.Audience, okA = memberText(p, "aud")
		c.Nonce, okN = memberText(p, "nonce")
		c.PassportHash, okH = memberText(p, "passportHash")
		if iat, ok := p.Get("iat"); ok {
			c.IssuedAt, okI = iat.Int()
		}
	}
	if !okA || !okI || !okN || !okH || c.Audience == "" || c.Nonce == "" || c.IssuedAt < 0 {
		return KeyBindingClaims{}, errorf(ReasonKBPayload, "the payload must be an object with exactly aud and nonce (non-empty strings), iat (an integer of at least 0) and passportHash (a string)")
	}
	return c, nil
}
