package passport

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"
)

// holderKeys are fixed holder keys, one per algorithm.
func holderKeys(t testing.TB) []*PrivateKey {
	t.Helper()
	var out []*PrivateKey
	for _, alg := range []Algorithm{EdDSA, ES256} {
		k, err := NewPrivateKey(alg, bytes.Repeat([]byte{7}, 32))
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, k)
	}
	return out
}

var holderClaims = HolderProof{Audience: "https://issuer.example", Nonce: "bm9uY2U", Subject: "agt_aaaaaaaaaaaaaaaaaaaaaaaaaa"}

// crafted returns a compact JWS of header and payload signed by k.
func crafted(t testing.TB, k *PrivateKey, header, payload string) string {
	t.Helper()
	input := b64.EncodeToString([]byte(header)) + "." + b64.EncodeToString([]byte(payload))
	sig, err := k.sign([]byte(input))
	if err != nil {
		t.Fatal(err)
	}
	return input + "." + b64.EncodeToString(sig)
}

func TestHolderProofRoundTrip(t *testing.T) {
	for _, k := range holderKeys(t) {
		proof, err := ProveHolderKey(k, holderClaims)
		if err != nil {
			t.Fatal(err)
		}
		header, _ := b64.DecodeString(strings.Split(proof, ".")[0])
		if want := `{"alg":"` + string(k.Public().Algorithm()) + `","typ":"passport-pop+jwt"}`; string(header) != want {
			t.Fatalf("header %s, want %s", header, want)
		}
		got, err := VerifyHolderProof(proof, k.Public())
		if err != nil || got != holderClaims {
			t.Fatalf("%s: %+v, %v", k.Public().Algorithm(), got, err)
		}
		// The header need only be strict JSON: its members in any order.
		payload, _ := Marshal(holderClaims)
		reordered := crafted(t, k, `{ "typ":"passport-pop+jwt", "alg":"`+string(k.Public().Algorithm())+`" }`, string(payload))
		if _, err := VerifyHolderProof(reordered, k.Public()); err != nil {
			t.Fatalf("%s: a reordered header: %v", k.Public().Algorithm(), err)
		}
	}
}

func TestVerifyHolderProofRefuses(t *testing.T) {
	k := holderKeys(t)[0]
	payload, _ := Marshal(holderClaims)
	good, _ := ProveHolderKey(k, holderClaims)
	parts := strings.Split(good, ".")
	hdr := `{"alg":"EdDSA","typ":"passport-pop+jwt"}`
	for name, proof := range map[string]string{
		"too long":                 good + strings.Repeat("A", MaxHolderProof),
		"two parts":                parts[0] + "." + parts[1],
		"four parts":               good + ".AA",
		"padding":                  good + "==",
		"a line break":             parts[0] + ".\n" + parts[1] + "." + parts[2],
		"stray bits":               parts[0] + "." + parts[1] + "." + parts[2][:len(parts[2])-1] + "B",
		"header not JSON":          crafted(t, k, `{alg:EdDSA}`, string(payload)),
		"header an array":          crafted(t, k, `["alg","typ"]`, string(payload)),
		"header member twice":      crafted(t, k, `{"alg":"EdDSA","alg":"EdDSA","typ":"passport-pop+jwt"}`, string(payload)),
		"header with kid":          crafted(t, k, `{"alg":"EdDSA","kid":"x","typ":"passport-pop+jwt"}`, string(payload)),
		"header with jwk":          crafted(t, k, `{"alg":"EdDSA","jwk":{},"typ":"passport-pop+jwt"}`, string(payload)),
		"typ missing":              crafted(t, k, `{"alg":"EdDSA","cty":"passport-pop+jwt"}`, string(payload)),
		"typ JWT":                  crafted(t, k, `{"alg":"EdDSA","typ":"JWT"}`, string(payload)),
		"typ not a string":         crafted(t, k, `{"alg":"EdDSA","typ":1}`, string(payload)),
		"alg none":                 b64.EncodeToString([]byte(`{"alg":"none","typ":"passport-pop+jwt"}`)) + "." + parts[1] + ".",
		"alg ES256 for an Ed25519": crafted(t, k, `{"alg":"ES256","typ":"passport-pop+jwt"}`, string(payload)),
		"signature altered":        parts[0] + "." + parts[1] + "." + "A" + parts[2][1:],
		"payload altered":          parts[0] + "." + b64.EncodeToString(bytes.Replace(payload, []byte("issuer"), []byte("issues"), 1)) + "." + parts[2],
		"payload not canonical":    crafted(t, k, hdr, `{"nonce":"bm9uY2U","aud":"https://issuer.example","sub":"agt_aaaaaaaaaaaaaaaaaaaaaaaaaa"}`),
		"payload with iat":         crafted(t, k, hdr, `{"aud":"a","iat":1,"nonce":"n","sub":"s"}`),
		"payload without sub":      crafted(t, k, hdr, `{"aud":"a","nonce":"n"}`),
		"payload sub a number":     crafted(t, k, hdr, `{"aud":"a","nonce":"n","sub":1}`),
		"payload an array":         crafted(t, k, hdr, `["a","n","s"]`),
	} {
		if _, err := VerifyHolderProof(proof, k.Public()); !errors.Is(err, ErrHolderProof) {
			t.Errorf("%s: %v", name, err)
		}
	}
	if _, err := VerifyHolderProof(good, holderKeys(t)[1].Public()); !errors.Is(err, ErrHolderProof) {
		t.Errorf("verified under another key: %v", err)
	}
}

func TestParseHolderKey(t *testing.T) {
	for _, k := range holderKeys(t) {
		b, _ := k.Public().MarshalJSON()
		pub, err := ParseHolderKey(b)
		if err != nil || pub.KeyID() != k.Public().KeyID() {
			t.Fatalf("%s: %v", b, err)
		}
	}
	ed, _ := holderKeys(t)[0].Public().MarshalJSON()
	private, _ := holderKeys(t)[0].MarshalJSON()
	var m map[string]any
	json.Unmarshal(ed, &m)
	minimal := fmt.Sprintf(`{"crv":"Ed25519","kty":"OKP","x":%q}`, m["x"])
	if _, err := ParseHolderKey([]byte(minimal)); err != nil {
		t.Fatalf("the RFC 7638 members alone: %v", err)
	}
	for name, jwk := range map[string]string{
		"private":           string(private),
		"private RSA":       strings.Replace(minimal, `{`, `{"p":"AQAB",`, 1),
		"unknown member":    strings.Replace(minimal, `{`, `{"x5c":["MIIB"],`, 1),
		"alg of another":    strings.Replace(minimal, `{`, `{"alg":"ES256",`, 1),
		"kid of another":    strings.Replace(minimal, `{`, `{"kid":"x",`, 1),
		"use enc":           strings.Replace(minimal, `{`, `{"use":"enc",`, 1),
		"key_ops encrypt":   strings.Replace(minimal, `{`, `{"key_ops":["encrypt"],`, 1),
		"X25519":            strings.Replace(minimal, `Ed25519`, `X25519`, 1),
		"oct":               `{"kty":"oct","k":"c2VjcmV0"}`,
		"P-384":             `{"kty":"EC","crv":"P-384","x":"AAAA","y":"AAAA"}`,
		"not an object":     `"key"`,
		"member twice":      strings.Replace(minimal, `{`, `{"kty":"OKP",`, 1),
		"over the bound":    strings.Replace(minimal, `{`, `{"kid":"`+strings.Repeat("k", MaxKeySize)+`",`, 1),
		"x not base64url":   strings.Replace(minimal, `"x":"`, `"x":"*`, 1),
		"x of 31 bytes":     fmt.Sprintf(`{"crv":"Ed25519","kty":"OKP","x":%q}`, b64.EncodeToString(make([]byte, 31))),
		"null":              `null`,
		"x padded":          strings.Replace(minimal, `"}`, `="}`, 1),
		"x with stray bits": fmt.Sprintf(`{"crv":"Ed25519","kty":"OKP","x":%q}`, m["x"].(string)[:42]+"x"),
		"P-256 x short":     `{"kty":"EC","crv":"P-256","x":"83OJ3D2xF1Bg8vub9tLe1gHMzV76e8Tus9uPHvRVEU","y":"x_FEzRu9m36HLN_tue659LNpXW6pCyStikYjKIWI5a0"}`,
	} {
		if _, err := ParseHolderKey([]byte(jwk)); !errors.Is(err, ErrHolderKey) {
			t.Errorf("%s: %v", name, err)
		}
	}
}

// FuzzVerifyHolderProof runs the proof parser on a header and payload of
// the fuzzer's choosing, signed by the key when signed is set, so that
// every check after the signature is reached. Whatever it accepts has a
// header of exactly alg and typ, and a payload that is the canonical
// encoding of what it returns, byte for byte.
func FuzzVerifyHolderProof(f *testing.F) {
	keys := holderKeys(f)
	payload, _ := Marshal(holderClaims)
	f.Add([]byte(`{"alg":"EdDSA","typ":"passport-pop+jwt"}`), payload, true, false)
	f.Add([]byte(`{"alg":"ES256","typ":"passport-pop+jwt"}`), payload, true, true)
	f.Add([]byte(`{"typ":"passport-pop+jwt","alg":"EdDSA"}`), []byte(`{"aud":"a","nonce":"n","sub":"s"}`), true, false)
	f.Add([]byte(`{"alg":"none","typ":"passport-pop+jwt"}`), payload, false, false)
	f.Add([]byte(`{"alg":"EdDSA","typ":"passport-pop+jwt","kid":"k"}`), []byte(`{"aud":"a","nonce":"\u00e9","sub":"s"}`), true, false)
	f.Fuzz(func(t *testing.T, header, payload []byte, signed, p256 bool) {
		k := keys[0]
		if p256 {
			k = keys[1]
		}
		proof := b64.EncodeToString(header) + "." + b64.EncodeToString(payload) + "."
		if signed {
			proof = crafted(t, k, string(header), string(payload))
		}
		claims, err := VerifyHolderProof(proof, k.Public())
		if err != nil {
			if !errors.Is(err, ErrHolderProof) {
				t.Fatalf("a refusal without ErrHolderProof: %v", err)
			}
			return
		}
		var h map[string]any
		if json.Unmarshal(header, &h) != nil || len(h) != 2 || h["alg"] != string(k.Public().Algorithm()) || h["typ"] != HolderProofType {
			t.Fatalf("accepted the header %q", header)
		}
		again, err := Marshal(claims)
		if err != nil || !bytes.Equal(again, payload) {
			t.Fatalf("accepted the payload %q, which re-encodes as %q", payload, again)
		}
	})
}

// FuzzParseHolderKey checks that a holder key parsed from any JWK
// has no private member, and that its canonical public JWK parses back to
// the same key.
func FuzzParseHolderKey(f *testing.F) {
	for _, k := range holderKeys(f) {
		b, _ := k.Public().MarshalJSON()
		f.Add(b)
		p, _ := k.MarshalJSON()
		f.Add(p)
	}
	f.Add([]byte(`{"kty":"OKP","crv":"Ed25519","x":"11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo"}`))
	f.Add([]byte(`{"kty":"EC","crv":"P-256","x":"f83OJ3D2xF1Bg8vub9tLe1gHMzV76e8Tus9uPHvRVEU","y":"x_FEzRu9m36HLN_tue659LNpXW6pCyStikYjKIWI5a0"}`))
	f.Fuzz(func(t *testing.T, jwk []byte) {
		k, err := ParseHolderKey(jwk)
		if err != nil {
			if !errors.Is(err, ErrHolderKey) {
				t.Fatalf("a refusal without ErrHolderKey: %v", err)
			}
			return
		}
		var m map[string]json.RawMessage
		if json.Unmarshal(jwk, &m) != nil || m["d"] != nil {
			t.Fatalf("accepted %q", jwk)
		}
		b, err := k.MarshalJSON()
		if err != nil {
			t.Fatal(err)
		}
		back, err := ParseHolderKey(b)
		if err != nil || back.KeyID() != k.KeyID() || back.Algorithm() != k.Algorithm() {
			t.Fatalf("%q parsed as %s, whose JWK %s parses as %v (%v)", jwk, k.KeyID(), b, back, err)
		}
	})
}

// ExampleProveHolderKey proves to an issuer that the holder of a key is
// the agent registering it: the proof signs the issuer's nonce.
func ExampleProveHolderKey() {
	key, _ := NewPrivateKey(EdDSA, bytes.Repeat([]byte{7}, 32))
	proof, _ := ProveHolderKey(key, HolderProof{
		Audience: "https://issuer.example",
		Nonce:    "bm9uY2U",
		Subject:  "agt_aaaaaaaaaaaaaaaaaaaaaaaaaa",
	})
	claims, err := VerifyHolderProof(proof, key.Public())
	fmt.Println(claims.Subject, err)
	header, payload, _ := strings.Cut(proof, ".")
	h, _ := b64.DecodeString(header)
	p, _ := b64.DecodeString(payload[:strings.IndexByte(payload, '.')])
	fmt.Printf("%s\n%s\n", h, p)
	// Output:
	// agt_aaaaaaaaaaaaaaaaaaaaaaaaaa <nil>
	// {"alg":"EdDSA","typ":"passport-pop+jwt"}
	// {"aud":"https://issuer.example","nonce":"bm9uY2U","sub":"agt_aaaaaaaaaaaaaaaaaaaaaaaaaa"}
}

// TestSpecHolderProofExample checks the worked example of §20.2 (in
// docs/issuer-api.md): its key's public JWK, thumbprint and proof, as
// written there.
func TestSpecHolderProofExample(t *testing.T) {
	spec, err := os.ReadFile("../docs/issuer-api.md")
	if err != nil {
		t.Fatal(err)
	}
	k := holderKeys(t)[0]
	jwk, _ := k.Public().MarshalJSON()
	jwk, _ = Canonicalize(jwk)
	proof, err := ProveHolderKey(k, holderClaims)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"`" + string(jwk) + "`", "`" + k.Public().KeyID() + "`", "\n" + proof + "\n"} {
		if !strings.Contains(string(spec), want) {
			t.Errorf("§20.2 (docs/issuer-api.md) does not hold %s", want)
		}
	}
}

// BenchmarkVerifyHolderProof measures the check of one proof of
// possession, per algorithm.
func BenchmarkVerifyHolderProof(b *testing.B) {
	for _, k := range holderKeys(b) {
		proof, err := ProveHolderKey(k, holderClaims)
		if err != nil {
			b.Fatal(err)
		}
		b.Run(string(k.Public().Algorithm()), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := VerifyHolderProof(proof, k.Public()); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// FuzzBareHolderKey holds the reading of a bare holder key (the members of
// its thumbprint, canonical) to the general JWK reading: both accept the
// same keys, with the same algorithm, thumbprint and public key.
func FuzzBareHolderKey(f *testing.F) {
	for _, k := range holderKeys(f) {
		jwk, _ := bareJWK(k.Public())
		f.Add(jwk)
	}
	f.Add([]byte(bareECPrefix + strings.Repeat("A", coordLen) + bareECMiddle + strings.Repeat("A", coordLen) + bareSuffix))
	f.Add([]byte(bareEdPrefix + strings.Repeat("_", coordLen) + bareSuffix))
	f.Fuzz(func(t *testing.T, in []byte) {
		fast, ok := bareHolderKey(in)
		slow, err := parseHolderJWK(in)
		if !ok {
			if err == nil && (strings.HasPrefix(string(in), bareECPrefix) || strings.HasPrefix(string(in), bareEdPrefix)) {
				if canonical, _ := bareJWK(slow); bytes.Equal(canonical, in) {
					t.Fatalf("the general reading accepts the bare key %s, the bare reading does not", in)
				}
			}
			return
		}
		if err != nil {
			t.Fatalf("the bare reading accepts %s, the general one refuses it: %v", in, err)
		}
		a, _ := fast.MarshalJSON()
		b, _ := slow.MarshalJSON()
		if fast.KeyID() != slow.KeyID() || fast.Algorithm() != slow.Algorithm() || !bytes.Equal(a, b) {
			t.Fatalf("%s: bare %s %s, general %s %s", in, fast.Algorithm(), fast.KeyID(), slow.Algorithm(), slow.KeyID())
		}
	})
}
