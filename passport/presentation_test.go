package passport

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"slices"
	"strings"
	"testing"
	"time"
)

var presentAt = time.Date(2026, 5, 2, 12, 0, 0, 0, time.UTC)

// boundBundle signs a passport whose cnf names keys, with an issuer key of
// its own.
func boundBundle(t testing.TB, keys ...*PrivateKey) []byte {
	t.Helper()
	issuerKey, err := NewPrivateKey(EdDSA, bytes.Repeat([]byte{9}, 32))
	if err != nil {
		t.Fatal(err)
	}
	p := claimsPassport()
	if len(keys) > 0 {
		p.Cnf = &Confirmation{}
		for _, k := range keys {
			p.Cnf.JKTs = append(p.Cnf.JKTs, k.Public().KeyID())
		}
		slices.Sort(p.Cnf.JKTs)
	}
	b, err := NewSigner(issuerKey).Sign(p, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestPresentRoundTrip presents a bundle with each algorithm of holder key
// and reads the presentation back step by step.
func TestPresentRoundTrip(t *testing.T) {
	keys := holderKeys(t)
	bundle := boundBundle(t, keys...)
	b, _ := ParseBundleUnverified(bundle)
	var snap Snapshot
	if err := json.Unmarshal(b.Snapshot, &snap); err != nil {
		t.Fatal(err)
	}
	for _, k := range keys {
		out, err := Present(bundle, k, "https://rp.example", "n0nce", presentAt)
		if err != nil {
			t.Fatal(err)
		}
		if err := CheckCanonical(out); err != nil {
			t.Fatalf("%s: not canonical: %v", k.Public().Algorithm(), err)
		}
		p, err := ParsePresentationUnverified(out)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(p.Bundle, bundle) || p.PresentationVersion != PresentationVersion {
			t.Fatalf("the presentation does not hold the bundle as given")
		}
		kb, err := SplitKeyBinding([]byte(p.KeyBinding))
		if err != nil {
			t.Fatal(err)
		}
		wantHeader := `{"alg":"` + string(k.Public().Algorithm()) + `","jwk":`
		if !strings.HasPrefix(string(kb.header), wantHeader) || !strings.HasSuffix(string(kb.header), `},"typ":"passport-kb+jwt"}`) {
			t.Errorf("header %s", kb.header)
		}
		key, err := kb.HolderKey()
		if err != nil || key.KeyID() != k.Public().KeyID() {
			t.Fatalf("holder key %v, %v", key, err)
		}
		if _, err := kb.Claims(); !errors.Is(err, errKBUnverified) {
			t.Fatalf("the claims were readable before the signature was verified: %v", err)
		}
		if err := kb.Verify(key); err != nil {
			t.Fatal(err)
		}
		c, err := kb.Claims()
		want := KeyBindingClaims{Audience: "https://rp.example", IssuedAt: presentAt.Unix(), Nonce: "n0nce", PassportHash: snap.PassportHash}
		if err != nil || c != want {
			t.Fatalf("claims %+v, %v; want %+v", c, err, want)
		}
	}
}

func TestPresentRefuses(t *testing.T) {
	keys := holderKeys(t)
	bound := boundBundle(t, keys[0])
	indented := bytes.Replace(bound, []byte(`{"bundleVersion"`), []byte(`{ "bundleVersion"`), 1)
	for _, tt := range []struct {
		name       string
		bundle     []byte
		key        *PrivateKey
		aud, nonce string
		reason     Reason
	}{
		{"no cnf", boundBundle(t), keys[0], "a", "n", ReasonPassportNotBound},
		{"another key", bound, keys[1], "a", "n", ReasonKBKeyNotBound},
		{"not canonical", indented, keys[0], "a", "n", ReasonJSONNotCanonical},
		{"too large", make([]byte, MaxBundleSize+1), keys[0], "a", "n", ReasonBundleTooLarge},
		{"no audience", bound, keys[0], "", "n", ""},
		{"no nonce", bound, keys[0], "a", "", ""},
		{"a nonce too long", bound, keys[0], "a", strings.Repeat("n", MaxKeyBinding), ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			out, err := Present(tt.bundle, tt.key, tt.aud, tt.nonce, presentAt)
			if err == nil || ReasonOf(err) != tt.reason {
				t.Fatalf("got %v (%s), want reason %q", err, out, tt.reason)
			}
		})
	}
}

func TestParsePresentationRefuses(t *testing.T) {
	k := holderKeys(t)[0]
	good, err := Present(boundBundle(t, k), k, "a", "n", presentAt)
	if err != nil {
		t.Fatal(err)
	}
	swap := func(old, new string) []byte { return bytes.Replace(good, []byte(old), []byte(new), 1) }
	for name, tt := range map[string]struct {
		in     []byte
		reason Reason
	}{
		"too large":         {append(good, make([]byte, MaxPresentationSize)...), ReasonPresentationTooLarge},
		"trailing newline":  {append(bytes.Clone(good), '\n'), ReasonJSONTrailingData},
		"an array":          {[]byte(`[1]`), ReasonPresentationMalformed},
		"extra member":      {swap(`"1.0"}`, `"1.0","zz":1}`), ReasonPresentationMalformed},
		"no key binding":    {swap(`"keyBinding"`, `"keyBindin"`), ReasonPresentationMalformed},
		"bundle a string":   {[]byte(`{"bundle":"x","keyBinding":"a.b.c","presentationVersion":"1.0"}`), ReasonPresentationMalformed},
		"kb an object":      {[]byte(`{"bundle":{},"keyBinding":{},"presentationVersion":"1.0"}`), ReasonPresentationMalformed},
		"version a number":  {[]byte(`{"bundle":{},"keyBinding":"","presentationVersion":1}`), ReasonPresentationMalformed},
		"version 2.0":       {swap(`"1.0"}`, `"2.0"}`), ReasonPresentationVersion},
		"version not M.m":   {swap(`"1.0"}`, `"1"}`), ReasonPresentationVersion},
		"duplicate members": {[]byte(`{"bundle":{},"bundle":{}}`), ReasonJSONDuplicateKey},
	} {
		t.Run(name, func(t *testing.T) {
			if _, err := ParsePresentationUnverified(tt.in); ReasonOf(err) != tt.reason {
				t.Fatalf("got %v, want %s", err, tt.reason)
			}
		})
	}
	// A later minor version parses.
	if _, err := ParsePresentationUnverified(swap(`"1.0"}`, `"1.7"}`)); err != nil {
		t.Fatalf("version 1.7: %v", err)
	}
}

// TestKeyBindingRefuses pins each refusal of the key-binding checks and
// the check that makes it.
func TestKeyBindingRefuses(t *testing.T) {
	keys := holderKeys(t)
	k := keys[0]
	jwk, _ := bareJWK(k.Public())
	payload, _ := Marshal(KeyBindingClaims{Audience: "a", IssuedAt: 1, Nonce: "n", PassportHash: "h"})
	hdr := func(alg, jwk, typ string) string {
		return `{"alg":"` + alg + `","jwk":` + jwk + `,"typ":"` + typ + `"}`
	}
	good := crafted(t, k, hdr("EdDSA", string(jwk), KeyBindingType), string(payload))
	parts := strings.Split(good, ".")
	for name, tt := range map[string]struct {
		kb     string
		reason Reason
	}{
		"too long":        {good + strings.Repeat("A", MaxKeyBinding), ReasonKBMalformed},
		"two parts":       {parts[0] + "." + parts[1], ReasonKBMalformed},
		"empty signature": {parts[0] + "." + parts[1] + ".", ReasonKBMalformed},
		"padding":         {good + "==", ReasonKBMalformed},
		"stray bits":      {parts[0] + "." + parts[1] + "." + parts[2][:len(parts[2])-1] + "B", ReasonKBMalformed},
		"header not JSON": {crafted(t, k, `{alg:1}`, string(payload)), ReasonKBHeader},
		"header too deep": {crafted(t, k, hdr("EdDSA", `{"key_ops":[[["verify"]]]}`, KeyBindingType), string(payload)), ReasonKBHeader},
		"header with kid": {crafted(t, k, `{"alg":"EdDSA","jwk":`+string(jwk)+`,"kid":"x","typ":"passport-kb+jwt"}`, string(payload)), ReasonKBHeader},
		"jwk a string":    {crafted(t, k, hdr("EdDSA", `"x"`, KeyBindingType), string(payload)), ReasonKBHeader},
		"no typ":          {crafted(t, k, `{"alg":"EdDSA","jwk":`+string(jwk)+`}`, string(payload)), ReasonKBHeader},
		"typ JWT":         {crafted(t, k, hdr("EdDSA", string(jwk), "JWT"), string(payload)), ReasonKBType},
		"alg none":        {crafted(t, k, hdr("none", string(jwk), KeyBindingType), string(payload)), ReasonKBAlgNotAllowed},
		"alg RS256":       {crafted(t, k, hdr("RS256", string(jwk), KeyBindingType), string(payload)), ReasonKBAlgNotAllowed},
		"private jwk":     {crafted(t, k, hdr("EdDSA", `{"crv":"Ed25519","d":"AA","kty":"OKP","x":"AA"}`, KeyBindingType), string(payload)), ReasonKBKeyInvalid},
		"symmetric jwk":   {crafted(t, k, hdr("EdDSA", `{"k":"AA","kty":"oct"}`, KeyBindingType), string(payload)), ReasonKBKeyInvalid},
		"alg of the P-256 key for an Ed25519 key": {crafted(t, k, hdr("ES256", string(jwk), KeyBindingType), string(payload)), ReasonKBAlgKeyMismatch},
		"signature by another key":                {crafted(t, keys[1], hdr("EdDSA", string(jwk), KeyBindingType), string(payload)), ReasonKBSignature},
		"payload not canonical":                   {crafted(t, k, hdr("EdDSA", string(jwk), KeyBindingType), ` `+string(payload)), ReasonKBPayload},
		"payload an array":                        {crafted(t, k, hdr("EdDSA", string(jwk), KeyBindingType), `["aud"]`), ReasonKBPayload},
		"payload with exp":                        {crafted(t, k, hdr("EdDSA", string(jwk), KeyBindingType), `{"aud":"a","exp":2,"iat":1,"nonce":"n","passportHash":"h"}`), ReasonKBPayload},
		"payload without nonce":                   {crafted(t, k, hdr("EdDSA", string(jwk), KeyBindingType), `{"aud":"a","iat":1,"passportHash":"h","x":"n"}`), ReasonKBPayload},
		"empty audience":                          {crafted(t, k, hdr("EdDSA", string(jwk), KeyBindingType), `{"aud":"","iat":1,"nonce":"n","passportHash":"h"}`), ReasonKBPayload},
		"negative iat":                            {crafted(t, k, hdr("EdDSA", string(jwk), KeyBindingType), `{"aud":"a","iat":-1,"nonce":"n","passportHash":"h"}`), ReasonKBPayload},
		"iat with a fraction":                     {crafted(t, k, hdr("EdDSA", string(jwk), KeyBindingType), `{"aud":"a","iat":1.5,"nonce":"n","passportHash":"h"}`), ReasonKBPayload},
		"passportHash a number":                   {crafted(t, k, hdr("EdDSA", string(jwk), KeyBindingType), `{"aud":"a","iat":1,"nonce":"n","passportHash":1}`), ReasonKBPayload},
	} {
		t.Run(name, func(t *testing.T) {
			if got := readKeyBinding([]byte(tt.kb)); got != tt.reason {
				t.Fatalf("reason %q, want %q", got, tt.reason)
			}
		})
	}
	if got := readKeyBinding([]byte(good)); got != ReasonOK {
		t.Fatalf("the good key binding: %s", got)
	}
}

// readKeyBinding runs the key-binding checks of this package in order and
// returns the first refusal's reason, or ReasonOK.
func readKeyBinding(compact []byte) Reason {
	kb, err := SplitKeyBinding(compact)
	if err != nil {
		return ReasonOf(err)
	}
	key, err := kb.HolderKey()
	if err != nil {
		return ReasonOf(err)
	}
	if err := kb.Verify(key); err != nil {
		return ReasonOf(err)
	}
	if _, err := kb.Claims(); err != nil {
		return ReasonOf(err)
	}
	return ReasonOK
}

// FuzzParsePresentation checks the presentation parser: every refusal has
// a reason, and whatever it accepts is made of its parts exactly, so that
// one presentation has one text.
func FuzzParsePresentation(f *testing.F) {
	k := holderKeys(f)[0]
	good, err := Present(boundBundle(f, k), k, "https://rp.example", "n0nce", presentAt)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(good)
	f.Add([]byte(`{"bundle":{},"keyBinding":"a.b.c","presentationVersion":"1.0"}`))
	f.Add([]byte(`{"bundle":{"a":[1.5e3]},"keyBinding":"","presentationVersion":"1.9"}`))
	f.Fuzz(func(t *testing.T, in []byte) {
		p, err := ParsePresentationUnverified(in)
		if err != nil {
			if ReasonOf(err) == "" {
				t.Fatalf("refusal without a reason: %v", err)
			}
			return
		}
		again := `{"bundle":` + string(p.Bundle) + `,"keyBinding":"` + p.KeyBinding + `","presentationVersion":"` + p.PresentationVersion + `"}`
		if again != string(in) {
			t.Fatalf("accepted %q, which its parts do not make", in)
		}
	})
}

// FuzzKeyBinding checks the key-binding checks: they never panic, every
// refusal has a reason, and a key binding they accept carries a holder key
// whose signature verifies.
func FuzzKeyBinding(f *testing.F) {
	for _, k := range holderKeys(f) {
		good, err := Present(boundBundle(f, k), k, "https://rp.example", "n0nce", presentAt)
		if err != nil {
			f.Fatal(err)
		}
		p, _ := ParsePresentationUnverified(good)
		f.Add([]byte(p.KeyBinding))
	}
	f.Add([]byte("e30.e30.AA"))
	f.Fuzz(func(t *testing.T, in []byte) {
		if r := readKeyBinding(in); r == "" {
			t.Fatalf("refusal without a reason")
		}
	})
}

// TestSpecKeyBindingExample checks the worked example of SPEC.md §11.6: the
// key binding of the example holder key of §20.2, as written there.
func TestSpecKeyBindingExample(t *testing.T) {
	spec, err := os.ReadFile("../SPEC.md")
	if err != nil {
		t.Fatal(err)
	}
	kb, err := signKeyBinding(holderKeys(t)[0], specKeyBindingClaims)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(spec), "    "+kb+"\n") {
		t.Errorf("SPEC.md §11.6 does not hold the key binding\n%s", kb)
	}
}

var specKeyBindingClaims = KeyBindingClaims{Audience: "https://verifier.example", IssuedAt: 1780272000,
	Nonce: "n-7Kq2xW9fLp", PassportHash: "5d0bd9d1cb0c4fd5e1e82b0c2b5f8e0b4dcfd9e8e2a5d6a3f1b2c9e7d4a6b8c0"}
