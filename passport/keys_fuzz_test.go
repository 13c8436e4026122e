package passport

import (
	"bytes"
	"strings"
	"testing"
)

// jwkSeeds are public and private JWKs, valid and broken, for the key
// parsers' fuzzers.
func jwkSeeds(tb testing.TB) [][]byte {
	ed, err := NewPrivateKey(EdDSA, bytes.Repeat([]byte{7}, 32))
	if err != nil {
		tb.Fatal(err)
	}
	es, err := NewPrivateKey(ES256, bytes.Repeat([]byte{9}, 32))
	if err != nil {
		tb.Fatal(err)
	}
	var seeds [][]byte
	for _, k := range []*PrivateKey{ed, es} {
		priv, err := k.MarshalJSON()
		if err != nil {
			tb.Fatal(err)
		}
		pub, err := k.Public().MarshalJSON()
		if err != nil {
			tb.Fatal(err)
		}
		seeds = append(seeds, priv, pub,
			bytes.Replace(pub, []byte(`"kid":"`), []byte(`"kid":"x`), 1),
			bytes.Replace(pub, []byte(`"use":"sig"`), []byte(`"use":"enc"`), 1),
			bytes.Replace(pub, []byte(`{`), []byte(`{"key_ops":["sign"],`), 1))
	}
	small := `{"crv":"Ed25519","kty":"OKP","x":"AQAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"}`
	seeds = append(seeds, []byte(small), []byte(strings.Replace(small, "AQAA", "AgAA", 1)),
		[]byte(`{"kty":"RSA","n":"AQAB","e":"AQAB"}`), []byte(`{"kty":"oct","k":"c2VjcmV0"}`),
		[]byte(`{"crv":"P-384","kty":"EC","x":"AA","y":"AA"}`), []byte(`{"kty":"OKP","kty":"EC"}`), []byte(`[]`), []byte(``))
	return seeds
}

// FuzzParsePublicKey checks the public JWK parser on any input: it never
// panics, refuses a private key, and what it accepts re-encodes to a key
// that parses to the same key id and algorithm.
func FuzzParsePublicKey(f *testing.F) {
	for _, s := range jwkSeeds(f) {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		k, err := ParsePublicKey(in)
		if err != nil {
			return
		}
		if bytes.Contains(in, []byte(`"d"`)) && !bytes.Contains(in, []byte(`\`)) {
			if _, perr := ParsePrivateKey(in); perr == nil {
				t.Fatalf("a private key was accepted as a public one: %s", in)
			}
		}
		again, err := k.MarshalJSON()
		if err != nil {
			t.Fatal(err)
		}
		k2, err := ParsePublicKey(again)
		if err != nil {
			t.Fatalf("re-encoded key %s refused: %v", again, err)
		}
		if k2.KeyID() != k.KeyID() || k2.Algorithm() != k.Algorithm() {
			t.Fatalf("re-encoded key is %s %s, was %s %s", k2.Algorithm(), k2.KeyID(), k.Algorithm(), k.KeyID())
		}
	})
}

// FuzzParsePrivateKey checks the private JWK parser on any input: it never
// panics, and a key it accepts signs what its public half verifies.
func FuzzParsePrivateKey(f *testing.F) {
	for _, s := range jwkSeeds(f) {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		k, err := ParsePrivateKey(in)
		if err != nil {
			return
		}
		sig, err := k.sign([]byte("h.p"))
		if err != nil {
			t.Fatal(err)
		}
		if !k.Public().Verify([]byte("h.p"), sig) {
			t.Fatalf("key %s: its signature does not verify under its public half", k.Public().KeyID())
		}
	})
}
