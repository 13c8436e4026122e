package verifier

import (
	"bytes"
	"encoding/base64"
	"testing"
)

// TestEqualBase64 compares equalBase64 with encoding/base64 on every length
// up to a few words past its loop and on every one-character change.
func TestEqualBase64(t *testing.T) {
	raw := make([]byte, 100)
	for i := range raw {
		raw[i] = byte(i*151 + 7)
	}
	for n := range len(raw) {
		enc := []byte(base64.RawURLEncoding.EncodeToString(raw[:n]))
		if !equalBase64(enc, raw[:n]) {
			t.Fatalf("%d bytes: the encoding does not compare equal", n)
		}
		if n > 0 && equalBase64(enc[:len(enc)-1], raw[:n]) {
			t.Fatalf("%d bytes: a short encoding compares equal", n)
		}
		for i := range enc {
			changed := bytes.Clone(enc)
			changed[i] ^= 0x01
			if equalBase64(changed, raw[:n]) {
				t.Fatalf("%d bytes: a change at character %d compares equal", n, i)
			}
		}
	}
}

// FuzzEqualBase64 checks equalBase64 against encoding/base64 on any input.
func FuzzEqualBase64(f *testing.F) {
	f.Add([]byte("eyJhIjoxfQ"), []byte(`{"a":1}`))
	f.Add([]byte("AAAAAAAAAAAAAAAAAAAA"), make([]byte, 15))
	f.Add([]byte("_-_-_-_-_-_-_-_-"), bytes.Repeat([]byte{0xff, 0xef, 0xbe}, 4))
	f.Fuzz(func(t *testing.T, enc, raw []byte) {
		want := base64.RawURLEncoding.EncodeToString(raw) == string(enc)
		if got := equalBase64(enc, raw); got != want {
			t.Fatalf("equalBase64(%q, %x) = %v, want %v", enc, raw, got, want)
		}
		real := []byte(base64.RawURLEncoding.EncodeToString(raw))
		if !equalBase64(real, raw) {
			t.Fatalf("the encoding of %x does not compare equal", raw)
		}
	})
}
