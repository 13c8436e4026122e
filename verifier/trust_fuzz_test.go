package verifier_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/remnant/passportkit/vectors"
	"github.com/remnant/passportkit/verifier"
)

// FuzzParseTrust checks the trust-file parser on any input, seeded with the
// vectors' trust file, the trust-file vectors and edits of them: it never
// panics, it refuses a file over its bound, and a file it accepts writes
// out as one that reads back to the same issuer and keys.
func FuzzParseTrust(f *testing.F) {
	trust, _, err := vectors.Load(vectors.FS)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(trust)
	files, err := vectors.LoadTrustFiles(vectors.FS)
	if err != nil {
		f.Fatal(err)
	}
	for _, tf := range files {
		f.Add(tf.File)
	}
	for _, edit := range [][2]string{
		{`"trustVersion":"1.0"`, `"trustVersion":"2.0"`},
		{`"notBefore":"2025-01-01T00:00:00Z"`, `"notBefore":"2025-02-30T00:00:00Z"`},
		{`"alg":"EdDSA"`, `"alg":"ES256"`},
		{`"use":"sig"`, `"use":"enc"`},
		{`"keys":[`, `"keys":[{},`},
	} {
		f.Add(bytes.Replace(trust, []byte(edit[0]), []byte(edit[1]), 1))
	}
	f.Add([]byte(`{"issuer":"x","keys":[],"trustVersion":"1.0"}`))
	f.Fuzz(func(t *testing.T, in []byte) {
		tr, err := verifier.ParseTrust(in)
		if err != nil {
			return
		}
		if len(in) > verifier.MaxTrustFileSize {
			t.Fatalf("a trust file of %d bytes was accepted", len(in))
		}
		out, err := tr.MarshalJSON()
		if err != nil {
			t.Fatal(err)
		}
		again, err := verifier.ParseTrust(out)
		if err != nil {
			t.Fatalf("written out, the trust file is refused: %v\n%s", err, out)
		}
		if again.Issuer != tr.Issuer || len(again.Keys) != len(tr.Keys) {
			t.Fatalf("read back: issuer %q and %d keys, was %q and %d", again.Issuer, len(again.Keys), tr.Issuer, len(tr.Keys))
		}
		for i, k := range tr.Keys {
			k2 := again.Keys[i]
			if k2.Key.KeyID() != k.Key.KeyID() || !k2.NotBefore.Equal(k.NotBefore) || !k2.NotAfter.Equal(k.NotAfter) {
				t.Fatalf("key %d read back differently", i)
			}
		}
		if strings.Contains(tr.Issuer, "\x00") && !bytes.Contains(in, []byte(`\u0000`)) {
			t.Fatalf("an issuer with NUL from input without it")
		}
	})
}
