package verifier

import (
	"bytes"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"fmt"
	"strconv"
	"sync"

	"github.com/remnant/passportkit/internal/cjson"
	"github.com/remnant/passportkit/passport"
)

func fail(r passport.Reason, format string, args ...any) *passport.Error {
	return &passport.Error{Reason: r, Detail: fmt.Sprintf(format, args...)}
}

func (r *run) size() *passport.Error {
	if len(r.src) > passport.MaxBundleSize {
		return fail(passport.ReasonBundleTooLarge, "%d bytes; the limit is %d", len(r.src), passport.MaxBundleSize)
	}
	r.detail = strconv.Itoa(len(r.src)) + " bytes"
	return nil
}

// indexDepth is how deep the bundle index reaches: bundle → snapshot →
// passport → subject → subject.id, and bundle → evidence → entry → proof →
// hash. The skill passports are indexed whole (skillPassportsPath), so that
// their check at the fields step reads this one parse.
const indexDepth = 4

var skillPassportsPath = []string{"snapshot", "passport", "skillPassports"}

func (r *run) json() *passport.Error {
	if r.doc != nil {
		// A presented bundle was parsed, under the same rules, with the
		// presentation that holds it.
		r.detail = "checked with the presentation"
		return nil
	}
	doc, err := r.parser.Parse(r.src, cjson.Options{Canonical: true, DeferNumbers: true, IndexDepth: indexDepth, IndexPath: skillPassportsPath})
	if err != nil {
		return asError(passport.JSONError(err))
	}
	r.doc, r.top = doc, doc.Root()
	return nil
}

func asError(err error) *passport.Error {
	var pe *passport.Error
	if errors.As(err, &pe) {
		return pe
	}
	return &passport.Error{Reason: passport.ReasonJSONMalformed, Detail: err.Error()}
}

func (r *run) bundle() *passport.Error {
	root := r.top
	if root.Kind() != cjson.Object {
		return fail(passport.ReasonBundleMalformed, "a bundle is a JSON object")
	}
	var version, credential cjson.Value
	for k, val := range root.Members() {
		switch string(name(k)) {
		case "bundleVersion":
			version = val
		case "credential":
			credential = val
		case "evidence":
			r.disclosed = val
		case "snapshot":
			r.snap = val
		default:
			return fail(passport.ReasonBundleMalformed, "unknown member %q", clip(string(name(k))))
		}
	}
	switch {
	case version.Kind() == cjson.Invalid || credential.Kind() == cjson.Invalid || r.disclosed.Kind() == cjson.Invalid || r.snap.Kind() == cjson.Invalid:
		return fail(passport.ReasonBundleMalformed, "bundleVersion, credential, evidence and snapshot are required")
	case version.Kind() != cjson.String:
		return fail(passport.ReasonBundleMalformed, "bundleVersion must be a string")
	case r.disclosed.Kind() != cjson.Array:
		return fail(passport.ReasonBundleMalformed, "evidence must be an array")
	case r.snap.Kind() != cjson.Object:
		return fail(passport.ReasonBundleMalformed, "snapshot must be an object")
	}
	vs, _ := version.Text()
	if err := passport.CheckVersion("bundleVersion", vs, passport.BundleVersion); err != nil {
		return fail(passport.ReasonBundleVersion, "%s", asError(err).Detail)
	}
	switch credential.Kind() {
	case cjson.String:
		raw := credential.Raw()
		r.credential = raw[1 : len(raw)-1]
	case cjson.Object:
		return jsonSerialization(credential)
	default:
		return fail(passport.ReasonJWSMalformed, "credential must be a compact JWS string")
	}
	return nil
}

// jsonSerialization explains why a JWS in JSON serialization is refused.
func jsonSerialization(cred cjson.Value) *passport.Error {
	if sigs, ok := cred.Get("signatures"); ok && sigs.Kind() == cjson.Array && sigs.Len() > 1 {
		return fail(passport.ReasonJWSMultipleSigs, "the credential carries %d signatures; exactly one is allowed", sigs.Len())
	}
	if _, ok := cred.Get("header"); ok {
		return fail(passport.ReasonJWSUnprotected, "the credential has an unprotected header")
	}
	if sigs, ok := cred.Get("signatures"); ok && sigs.Kind() == cjson.Array {
		for s := range sigs.Elements() {
			if _, ok := s.Get("header"); ok {
				return fail(passport.ReasonJWSUnprotected, "the credential has an unprotected header")
			}
		}
	}
	return fail(passport.ReasonJWSNotCompact, "the credential must use the JWS compact serialization")
}

// b64 is the unpadded base64url encoding JWS uses, refusing stray bits.
var b64 = base64.RawURLEncoding.Strict()

// maxHeaderSize bounds the encoded protected header, and maxSigSize the
// encoded signature.
const (
	maxHeaderSize = 1024
	maxSigSize    = 128
)

func (r *run) jws() *passport.Error {
	c := r.credential
	d1 := bytes.IndexByte(c, '.')
	if d1 < 0 {
		return fail(passport.ReasonJWSMalformed, "a compact JWS has three parts")
	}
	d2 := bytes.IndexByte(c[d1+1:], '.')
	if d2 < 0 {
		return fail(passport.ReasonJWSMalformed, "a compact JWS has three parts")
	}
	d2 += d1 + 1
	if bytes.IndexByte(c[d2+1:], '.') >= 0 {
		return fail(passport.ReasonJWSMalformed, "a compact JWS has three parts")
	}
	header, payload, sig := c[:d1], c[d1+1:d2], c[d2+1:]
	if len(header) == 0 || len(header) > maxHeaderSize {
		return fail(passport.ReasonJWSMalformed, "the protected header must be 1 to %d characters", maxHeaderSize)
	}
	if len(payload) == 0 {
		return fail(passport.ReasonJWSMalformed, "the payload is empty (detached payloads are not allowed)")
	}
	if len(sig) > maxSigSize {
		return fail(passport.ReasonJWSMalformed, "the signature is too long")
	}
	n, err := b64.Decode(r.bufs.sig[:], sig)
	if err != nil {
		return fail(passport.ReasonJWSMalformed, "the signature is not base64url")
	}
	r.sig = r.bufs.sig[:n]
	r.signed = c[:d2]
	r.payloadB64 = payload
	return nil
}

func (r *run) header() *passport.Error {
	enc := r.signed[:bytes.IndexByte(r.signed, '.')]
	n, err := b64.Decode(r.bufs.header[:], enc)
	if err != nil {
		return fail(passport.ReasonJWSHeader, "the protected header is not base64url")
	}
	doc, err := r.bufs.headerParser.Parse(r.bufs.header[:n], cjson.Options{MaxDepth: 4})
	if err != nil {
		return fail(passport.ReasonJWSHeader, "the protected header is not strict JSON: %s", asError(passport.JSONError(err)).Reason)
	}
	h := doc.Root()
	if h.Kind() != cjson.Object {
		return fail(passport.ReasonJWSHeader, "the protected header is not a JSON object")
	}
	var typ string
	var haveAlg, haveKid, haveTyp bool
	for k, val := range h.Members() {
		key := name(k)
		switch string(key) {
		case "alg", "kid", "typ":
			s, ok := val.Text()
			if !ok {
				return fail(passport.ReasonJWSHeader, "header %q must be a string", string(key))
			}
			switch string(key) {
			case "alg":
				r.alg, haveAlg = s, true
			case "kid":
				r.kid, haveKid = s, true
			case "typ":
				typ, haveTyp = s, true
			}
		case "jwk", "x5c":
			return fail(passport.ReasonJWSEmbeddedKey, "header %q embeds a key; keys come only from the trust file", string(key))
		case "jku", "x5u":
			return fail(passport.ReasonJWSKeyURL, "header %q points to a key; keys come only from the trust file", string(key))
		case "crit":
			return fail(passport.ReasonJWSCrit, "header \"crit\" names extensions this verifier does not implement")
		default:
			return fail(passport.ReasonJWSHeader, "header %q is not part of the passport profile", clip(string(key)))
		}
	}
	switch {
	case !haveAlg:
		return fail(passport.ReasonJWSHeader, "header \"alg\" is required")
	case !haveKid:
		return fail(passport.ReasonJWSHeader, "header \"kid\" is required")
	case r.typ != "" && (!haveTyp || typ != r.typ):
		return fail(passport.ReasonJWSType, "header \"typ\" must be %q", r.typ)
	}
	return nil
}

func (r *run) key() *passport.Error {
	k, ok := r.lookup(r.kid)
	if !ok {
		return fail(passport.ReasonKeyUnknown, "no key of issuer %q in the trust file has this kid", clip(r.v.trust.Issuer))
	}
	r.trusted = k
	r.detail = "kid " + k.Key.KeyID()
	return nil
}

func (r *run) algorithm() *passport.Error {
	alg, err := passport.ParseAlgorithm(r.alg)
	if err != nil {
		return fail(passport.ReasonAlgNotAllowed, "algorithm %q is not allowed; only EdDSA and ES256 are", clip(r.alg))
	}
	if alg != r.trusted.Key.Algorithm() {
		return fail(passport.ReasonAlgKeyMismatch, "the header says %s but the trusted key is pinned to %s", alg, r.trusted.Key.Algorithm())
	}
	r.detail = string(alg)
	return nil
}

func (r *run) signature() *passport.Error {
	if !r.trusted.Key.Verify(r.signed, r.sig) {
		return fail(passport.ReasonSignatureInvalid, "the signature does not verify under the trusted key")
	}
	return nil
}

// payload checks that the signed payload is canonical JSON. When it equals
// the snapshot, which the bundle parse already checked, only the deferred
// number forms inside the snapshot remain to be checked.
func (r *run) payload() *passport.Error {
	if equalBase64(r.payloadB64, r.snap.Raw()) {
		if err := r.doc.CheckNumbers(r.snap); err != nil {
			return asError(passport.JSONError(err))
		}
		return nil
	}
	p, err := b64.DecodeString(string(r.payloadB64))
	if err != nil {
		return fail(passport.ReasonJWSMalformed, "the payload is not base64url")
	}
	if _, err := cjson.Parse(p, cjson.Options{Canonical: true, IndexDepth: 1}); err != nil {
		return asError(passport.JSONError(err))
	}
	r.payloadB64 = nil // canonical, but not the snapshot: the next check fails
	return nil
}

// equalBase64 reports whether enc is the unpadded base64url encoding of raw,
// encoding raw as it compares, without a copy: six bytes of raw, the top of
// a big-endian word, are eight characters of enc, each pair of characters
// taken from b64pairs.
func equalBase64(enc, raw []byte) bool {
	if len(enc) != base64.RawURLEncoding.EncodedLen(len(raw)) {
		return false
	}
	pairs := b64pairs()
	// diff is zero when the six bytes at r encode as the eight characters
	// at e.
	diff := func(r, e []byte) uint64 {
		v := binary.BigEndian.Uint64(r)
		return (uint64(pairs[v>>52]) | uint64(pairs[v>>40&0xfff])<<16 | uint64(pairs[v>>28&0xfff])<<32 | uint64(pairs[v>>16&0xfff])<<48) ^
			binary.LittleEndian.Uint64(e)
	}
	// Twenty-four bytes a round, their differences joined: one branch for
	// thirty-two characters.
	for len(raw) >= 26 {
		r, e := raw[:26:26], enc[:32:32]
		if diff(r, e)|diff(r[6:], e[8:])|diff(r[12:], e[16:])|diff(r[18:], e[24:]) != 0 {
			return false
		}
		raw, enc = raw[24:], enc[32:]
	}
	for len(raw) >= 14 {
		r, e := raw[:14:14], enc[:16:16]
		if diff(r, e)|diff(r[6:], e[8:]) != 0 {
			return false
		}
		raw, enc = raw[12:], enc[16:]
	}
	var buf [24]byte
	m := base64.RawURLEncoding.EncodedLen(len(raw))
	base64.RawURLEncoding.Encode(buf[:m], raw)
	return bytes.Equal(buf[:m], enc)
}

// b64pairs returns the table that maps twelve bits to the two base64url
// characters that encode them, the first in the low byte. It is built on
// first use, so that a process that verifies nothing does not pay for it.
var b64pairs = sync.OnceValue(func() *[1 << 12]uint16 {
	const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
	t := new([1 << 12]uint16)
	for i := range t {
		t[i] = uint16(alphabet[i>>6]) | uint16(alphabet[i&63])<<8
	}
	return t
})

func (r *run) snapshot() *passport.Error {
	if r.payloadB64 == nil {
		return fail(passport.ReasonSnapshotMismatch, "the snapshot differs from the signed payload")
	}
	return nil
}
