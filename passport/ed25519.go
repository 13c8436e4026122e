package passport

import (
	"crypto/ed25519"
	"crypto/fips140"
	"crypto/sha512"

	"filippo.io/edwards25519"
)

// edKey is an Ed25519 public key with its point decoded once. The standard
// library's ed25519.Verify decodes the point (a square root in the field)
// on every call; a verifier checks many signatures under the few keys of
// its trust file, so the key keeps −A, as ed25519-dalek's VerifyingKey
// does. The check is otherwise the standard library's, step for step
// (cofactorless, S canonical, R compared by its encoding), so both give the
// same verdict on every input: FuzzEd25519Verify holds them together, and
// the RFC 8032, ed25519.cr.yp.to and Wycheproof vectors run through it.
type edKey struct {
	pub    ed25519.PublicKey
	minusA *edwards25519.Point // nil when pub is not a point: nothing verifies
}

func newEdKey(pub ed25519.PublicKey) edKey {
	k := edKey{pub: pub}
	if a, err := new(edwards25519.Point).SetBytes(pub); err == nil {
		k.minusA = new(edwards25519.Point).Negate(a)
	}
	return k
}

// verify reports whether sig is an Ed25519 signature of msg under k. In
// FIPS 140-3 mode it leaves the check to the standard library's module.
func (k *edKey) verify(msg, sig []byte) bool {
	if fips140.Enabled() {
		return ed25519.Verify(k.pub, msg, sig)
	}
	if len(sig) != ed25519.SignatureSize || sig[63]&224 != 0 || k.minusA == nil {
		return false
	}
	h := sha512.New()
	h.Write(sig[:32])
	h.Write(k.pub)
	h.Write(msg)
	var digest [sha512.Size]byte
	kh, err := new(edwards25519.Scalar).SetUniformBytes(h.Sum(digest[:0]))
	if err != nil {
		return false
	}
	s, err := new(edwards25519.Scalar).SetCanonicalBytes(sig[32:])
	if err != nil {
		return false
	}
	// [S]B = R + [k]A, so R = [k](−A) + [S]B.
	var r edwards25519.Point
	r.VarTimeDoubleScalarBaseMult(kh, k.minusA, s)
	return string(r.Bytes()) == string(sig[:32])
}
