package passport

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/remnant/passportkit/internal/extdata"
)

// TestRFC8037 checks the RFC 8037 appendix A example byte for byte: the
// private JWK parses, its thumbprint is A.3, signing the A.4 input gives the
// A.4 signature, and the public JWK verifies the A.4 JWS.
func TestRFC8037(t *testing.T) {
	var doc struct {
		A map[string]json.RawMessage `json:"rfc8037_appendix_A"`
	}
	if err := json.Unmarshal(readFile(t, extdata.Path(t, "jose", "rfc8037_rfc8032.json")), &doc); err != nil {
		t.Fatal(err)
	}
	str := func(k string) string {
		var s string
		if err := json.Unmarshal(doc.A[k], &s); err != nil {
			t.Fatalf("%s: %v", k, err)
		}
		return s
	}
	priv, err := ParsePrivateKey(doc.A["A.1_private_jwk"])
	if err != nil {
		t.Fatal(err)
	}
	if got := priv.Public().KeyID(); got != str("A.3_jwk_thumbprint_sha256") {
		t.Errorf("thumbprint %s, want %s", got, str("A.3_jwk_thumbprint_sha256"))
	}
	pub, err := ParsePublicKey(doc.A["A.2_public_jwk"])
	if err != nil {
		t.Fatal(err)
	}
	if pub.KeyID() != priv.Public().KeyID() || pub.Algorithm() != EdDSA {
		t.Errorf("public key %s %s", pub.KeyID(), pub.Algorithm())
	}
	if got := base64.RawURLEncoding.EncodeToString([]byte(str("A.4_protected_header_json"))); got != str("A.4_protected_b64") {
		t.Errorf("protected b64 %s", got)
	}
	if got := base64.RawURLEncoding.EncodeToString([]byte(str("A.4_payload_utf8"))); got != str("A.4_payload_b64") {
		t.Errorf("payload b64 %s", got)
	}
	input := str("A.4_signing_input")
	sig, err := priv.sign([]byte(input))
	if err != nil {
		t.Fatal(err)
	}
	compact := input + "." + base64.RawURLEncoding.EncodeToString(sig)
	if compact != str("A.4_jws_compact") {
		t.Errorf("JWS\n%s\nwant\n%s", compact, str("A.4_jws_compact"))
	}
	if !pub.Verify([]byte(input), sig) {
		t.Errorf("the A.4 signature does not verify")
	}
	if pub.Verify([]byte(input+"x"), sig) {
		t.Errorf("a changed input verifies")
	}
}

// TestRFC8032 checks the RFC 8032 §7.1 test vectors.
func TestRFC8032(t *testing.T) {
	var doc struct {
		Tests []struct{ Name, Secret, Public, Message, Signature string } `json:"rfc8032_7.1"`
	}
	if err := json.Unmarshal(readFile(t, extdata.Path(t, "jose", "rfc8037_rfc8032.json")), &doc); err != nil {
		t.Fatal(err)
	}
	if len(doc.Tests) < 3 {
		t.Fatalf("%d tests", len(doc.Tests))
	}
	for _, tc := range doc.Tests {
		checkEd25519(t, tc.Name, unhex(t, tc.Secret), unhex(t, tc.Public), unhex(t, tc.Message), unhex(t, tc.Signature))
	}
}

// TestSignInput checks the 128-line selection of the ed25519.cr.yp.to
// vectors: sk‖pk : pk : msg : sig‖msg.
func TestSignInput(t *testing.T) {
	f, err := os.Open(extdata.Path(t, "jose", "sign.input.gz"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(zr)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	n := 0
	for sc.Scan() {
		n++
		parts := strings.Split(sc.Text(), ":")
		if len(parts) != 5 {
			t.Fatalf("line %d: %d fields", n, len(parts))
		}
		skpk, pk, msg, sigmsg := unhex(t, parts[0]), unhex(t, parts[1]), unhex(t, parts[2]), unhex(t, parts[3])
		checkEd25519(t, fmt.Sprintf("line %d", n), skpk[:32], pk, msg, sigmsg[:64])
	}
	if n != 128 {
		t.Fatalf("%d lines, want 128", n)
	}
}

func checkEd25519(t *testing.T, name string, seed, pub, msg, sig []byte) {
	t.Helper()
	k, err := NewPrivateKey(EdDSA, seed)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	if !bytes.Equal(k.Public().ed.pub, pub) {
		t.Errorf("%s: public key %x, want %x", name, k.Public().ed.pub, pub)
	}
	got, err := k.sign(msg)
	if err != nil || !bytes.Equal(got, sig) {
		t.Errorf("%s: signature %x, want %x (%v)", name, got, sig, err)
	}
	if !k.Public().Verify(msg, sig) {
		t.Errorf("%s: does not verify", name)
	}
	bad := bytes.Clone(sig)
	bad[63] ^= 0x10 // S no longer canonical or no longer valid
	if k.Public().Verify(msg, bad) {
		t.Errorf("%s: a modified signature verifies", name)
	}
}

func unhex(t *testing.T, s string) []byte {
	t.Helper()
	b, err := hex.DecodeString(s)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

type wycheproofFile struct {
	TestGroups []struct {
		PublicKey struct {
			Uncompressed string `json:"uncompressed"`
		} `json:"publicKey"`
		PublicKeyJWK json.RawMessage `json:"publicKeyJwk"`
		Tests        []struct {
			TCID    int      `json:"tcId"`
			Comment string   `json:"comment"`
			Msg     string   `json:"msg"`
			Sig     string   `json:"sig"`
			Result  string   `json:"result"`
			Flags   []string `json:"flags"`
		} `json:"tests"`
	} `json:"testGroups"`
}

// jwkWithoutKid drops the placeholder kid ("none") Wycheproof gives its keys:
// a passportkit key's kid must be its thumbprint.
func jwkWithoutKid(t *testing.T, raw json.RawMessage) []byte {
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatal(err)
	}
	delete(m, "kid")
	b, _ := json.Marshal(m)
	return b
}

// p256JWK writes an uncompressed P-256 point as a JWK, for the few groups
// that give no JWK.
func p256JWK(t *testing.T, uncompressed string) json.RawMessage {
	b := unhex(t, uncompressed)
	if len(b) != 65 || b[0] != 4 {
		t.Fatalf("not an uncompressed point: %s", uncompressed)
	}
	enc := base64.RawURLEncoding.EncodeToString
	j, _ := json.Marshal(map[string]string{"kty": "EC", "crv": "P-256", "x": enc(b[1:33]), "y": enc(b[33:])})
	return j
}

// TestWycheproof checks Ed25519 and ECDSA P-256 (IEEE P1363, the R‖S form
// JWS uses) verification against every Wycheproof case. No case is
// "acceptable" in these files, so each verdict must match exactly.
func TestWycheproof(t *testing.T) {
	for _, file := range []string{"ed25519_test.json", "ecdsa_secp256r1_sha256_p1363_test.json"} {
		t.Run(file, func(t *testing.T) {
			var wf wycheproofFile
			if err := json.Unmarshal(readFile(t, extdata.Path(t, "wycheproof", file)), &wf); err != nil {
				t.Fatal(err)
			}
			n := 0
			for _, g := range wf.TestGroups {
				jwk := g.PublicKeyJWK
				if len(jwk) == 0 {
					jwk = p256JWK(t, g.PublicKey.Uncompressed)
				}
				key, err := ParsePublicKey(jwkWithoutKid(t, jwk))
				if err != nil {
					t.Fatalf("key: %v", err)
				}
				for _, tc := range g.Tests {
					n++
					if tc.Result == "acceptable" {
						t.Fatalf("tc %d: an acceptable case needs a written decision", tc.TCID)
					}
					got := key.Verify(unhex(t, tc.Msg), unhex(t, tc.Sig))
					if got != (tc.Result == "valid") {
						t.Errorf("tc %d (%s %v): verified %v, want %s", tc.TCID, tc.Comment, tc.Flags, got, tc.Result)
					}
				}
			}
			if n < 150 {
				t.Errorf("only %d cases", n)
			}
		})
	}
}
