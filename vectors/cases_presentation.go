package vectors

import (
	"crypto/ed25519"
	"crypto/elliptic"
	"encoding/json"
	"maps"
	"math/big"
	"slices"
	"strings"
	"time"

	"github.com/go-jose/go-jose/v4"

	"github.com/remnant/passportkit/passport"
	"github.com/remnant/passportkit/statuslist"
)

// The relying party of the presentation vectors: its identifier, the
// nonce it handed the holder, and when the holder signed (thirty seconds
// before the verification time).
const (
	verifierAudience = "https://verifier.example"
	vectorNonce      = "n-7Kq2xW9fLp"
)

var presentedAt = verifyAt.Add(-30 * time.Second)

// presentedPassport is the version 0.2 passport naming holder1, holder2
// and holderES in cnf, with a status reference when asked for.
func (f *fixture) presentedPassport(status bool) *passport.Passport {
	p := claimsPassport(false, status)
	jkts := []string{f.holder1.Public().KeyID(), f.holder2.Public().KeyID(), f.holderES.Public().KeyID()}
	slices.Sort(jkts)
	p.Cnf = &passport.Confirmation{JKTs: jkts}
	return p
}

// presentedBundle signs p as the vectors' bundles are signed.
func (f *fixture) presentedBundle(p *passport.Passport) []byte {
	b, err := f.signed(f.ed, p, baseRecords(), []int{1, 4, 6})
	if err != nil {
		panic(err)
	}
	return b
}

// kbDraft is a presentation under construction, valid by default: the
// presented passport's bundle, a key binding by holder1 for the vectors'
// audience and nonce made at presentedAt, and the default policy. A case
// changes what it breaks.
type kbDraft struct {
	f      *fixture
	bundle []byte
	// key signs the key binding; jwkOf is the key its header carries
	// (nil: key).
	key, jwkOf *passport.PrivateKey
	// header, when set, is the protected header's JSON; else alg (default:
	// the key's), jwk (default: jwkOf's bare public JWK) and typ.
	header, alg, jwk, typ string
	claims                map[string]any
	// payload, when set, replaces the payload's canonical JSON.
	payload []byte
	// sig, when set, replaces the signature.
	sig func(input []byte) []byte
	// compact and edit, when set, rewrite the key binding and the finished
	// presentation.
	compact func(string) string
	edit    func([]byte) []byte
	policy  PresentedTo
}

// newPresentation returns the default draft presenting bundle.
func (f *fixture) newPresentation(bundle []byte) *kbDraft {
	b, err := passport.ParseBundleUnverified(bundle)
	if err != nil {
		panic(err)
	}
	var snap passport.Snapshot
	if err := json.Unmarshal(b.Snapshot, &snap); err != nil {
		panic(err)
	}
	return &kbDraft{f: f, bundle: bundle, key: f.holder1, typ: passport.KeyBindingType,
		claims: map[string]any{"aud": verifierAudience, "iat": presentedAt.Unix(), "nonce": vectorNonce, "passportHash": snap.PassportHash},
		policy: PresentedTo{Audience: verifierAudience, Nonce: vectorNonce, MaxAge: 300}}
}

// present is newPresentation of the presented passport, without status.
func (f *fixture) present() *kbDraft {
	return f.newPresentation(f.presentedBundle(f.presentedPassport(false)))
}

// bareJWK returns k's public JWK with only the members of its thumbprint.
func bareJWK(k *passport.PrivateKey) string {
	b, err := (&jose.JSONWebKey{Key: k.Public().JWK().Key}).MarshalJSON()
	if err != nil {
		panic(err)
	}
	c, err := passport.Canonicalize(b)
	if err != nil {
		panic(err)
	}
	return string(c)
}

func (d *kbDraft) headerJSON() string {
	if d.header != "" {
		return d.header
	}
	of := d.jwkOf
	if of == nil {
		of = d.key
	}
	alg, jwk := d.alg, d.jwk
	if alg == "" {
		alg = string(of.Public().Algorithm())
	}
	if jwk == "" {
		jwk = bareJWK(of)
	}
	return `{"alg":"` + alg + `","jwk":` + jwk + `,"typ":"` + d.typ + `"}`
}

// keyBinding returns the compact key-binding JWS.
func (d *kbDraft) keyBinding() string {
	payload := d.payload
	if payload == nil {
		var err error
		if payload, err = passport.Marshal(d.claims); err != nil {
			panic(err)
		}
	}
	input := b64([]byte(d.headerJSON())) + "." + b64(payload)
	sig := d.f.rawSign(d.key, []byte(input))
	if d.sig != nil {
		sig = d.sig([]byte(input))
	}
	kb := input + "." + b64(sig)
	if d.compact != nil {
		kb = d.compact(kb)
	}
	return kb
}

// bytes assembles the presentation as canonical JSON.
func (d *kbDraft) bytes() []byte {
	out := []byte(`{"bundle":` + string(d.bundle) + `,"keyBinding":"` + d.keyBinding() + `","presentationVersion":"` + passport.PresentationVersion + `"}`)
	if d.edit != nil {
		out = d.edit(out)
	}
	return out
}

// passes returns a positive case presenting d.
func (d *kbDraft) passes(desc string) (Case, error) {
	c, err := passes(desc, nil, nil)
	return d.with(c), err
}

// fails returns a negative case presenting d.
func (d *kbDraft) fails(desc, check string, reason passport.Reason) (Case, error) {
	c, err := fails(desc, check, reason, nil)
	return d.with(c), err
}

func (d *kbDraft) with(c Case) Case {
	policy := d.policy
	c.Presentation, c.PresentedTo = d.bytes(), &policy
	return c
}

// setIat sets the key binding's iat.
func (d *kbDraft) setIat(t time.Time) { d.claims["iat"] = t.Unix() }

// padded returns the canonical object doc with a last member "zz", a
// string of x, making it n bytes.
func padded(doc []byte, n int) []byte {
	head := string(doc[:len(doc)-1]) + `,"zz":"`
	return []byte(head + strings.Repeat("x", n-len(head)-2) + `"}`)
}

// skewed is the default clock skew of every vector.
const skewed = 5 * time.Minute

var presentationGenerators = []generator{
	// Valid presentations.
	{"valid_presentation_eddsa", func(f *fixture) (Case, error) {
		return f.present().passes("a presentation signed by an Ed25519 holder key the passport names in cnf")
	}},
	{"valid_presentation_es256", func(f *fixture) (Case, error) {
		d := f.present()
		d.key = f.holderES
		return d.passes("a presentation signed by a P-256 holder key (ES256, deterministic RFC 6979 signature)")
	}},
	{"valid_presentation_max_age_boundary", func(f *fixture) (Case, error) {
		d := f.present()
		d.setIat(verifyAt.Add(-5*time.Minute - skewed))
		return d.passes("a key binding made exactly the maximum age (300 s) plus the skew before the verification time")
	}},
	{"valid_presentation_future_within_skew", func(f *fixture) (Case, error) {
		d := f.present()
		d.setIat(verifyAt.Add(skewed))
		return d.passes("a key binding made exactly the skew after the verification time")
	}},
	{"valid_presentation_max_age_60", func(f *fixture) (Case, error) {
		d := f.present()
		d.policy.MaxAge = 60
		d.setIat(verifyAt.Add(-60*time.Second - skewed))
		return d.passes("a maximum age of 60 s, with a key binding made 60 s plus the skew before the verification time")
	}},
	{"valid_presentation_status_list", func(f *fixture) (Case, error) {
		d := f.newPresentation(f.presentedBundle(f.presentedPassport(true)))
		c, err := d.passes("a presentation of a passport with a status reference, checked with a status list that says valid")
		c.StatusList = f.newList(2, statuslist.Valid).token()
		return c, err
	}},
	{"valid_presentation_header_not_canonical", func(f *fixture) (Case, error) {
		d := f.present()
		jwk := strings.Replace(bareJWK(f.holder1), `{`, `{"kid":"`+f.holder1.Public().KeyID()+`", "use":"sig", "alg":"EdDSA",`, 1)
		d.header = `{"typ":"passport-kb+jwt", "jwk":` + jwk + `, "alg":"EdDSA"}`
		return d.passes("a key-binding header out of order, spaced, its jwk carrying alg, kid and use: it need only be strict JSON")
	}},

	// The presentation's shape.
	{"presentation_too_large_fail", func(f *fixture) (Case, error) {
		d := f.present()
		d.edit = func(b []byte) []byte { return padded(b, passport.MaxPresentationSize+1) }
		return d.fails("a presentation one byte over 520 KiB (a padding member, refused only later)", "presentation", passport.ReasonPresentationTooLarge)
	}},
	{"presentation_not_canonical_fail", func(f *fixture) (Case, error) {
		d := f.present()
		d.edit = func(b []byte) []byte { return replaceOnce(b, `,"presentationVersion":`, `, "presentationVersion":`) }
		return d.fails("a space between the presentation's members", "presentation", passport.ReasonJSONNotCanonical)
	}},
	{"presentation_extra_member_fail", func(f *fixture) (Case, error) {
		d := f.present()
		d.edit = func(b []byte) []byte {
			return replaceOnce(b, `,"presentationVersion":`, `,"nonce":"`+vectorNonce+`","presentationVersion":`)
		}
		return d.fails("a presentation with a member outside bundle, keyBinding and presentationVersion", "presentation", passport.ReasonPresentationMalformed)
	}},
	{"presentation_missing_key_binding_fail", func(f *fixture) (Case, error) {
		d := f.present()
		d.edit = func(b []byte) []byte {
			i, j := strings.Index(string(b), `,"keyBinding":`), strings.Index(string(b), `,"presentationVersion":`)
			return append(b[:i:i], b[j:]...)
		}
		return d.fails("a bundle without its key binding: a bare bundle is not a presentation", "presentation", passport.ReasonPresentationMalformed)
	}},
	{"presentation_version_fail", func(f *fixture) (Case, error) {
		d := f.present()
		d.edit = func(b []byte) []byte {
			return replaceOnce(b, `"presentationVersion":"1.0"`, `"presentationVersion":"2.0"`)
		}
		return d.fails("presentationVersion 2.0, an unknown major version", "presentation", passport.ReasonPresentationVersion)
	}},

	// The bundle's checks come first.
	{"presentation_bundle_too_large_fail", func(f *fixture) (Case, error) {
		d := f.present()
		d.bundle = padded(d.bundle, passport.MaxBundleSize+1)
		return d.fails("a bundle one byte over 512 KiB in a presentation within its bound", "size", passport.ReasonBundleTooLarge)
	}},
	{"presentation_bundle_expired_fail", func(f *fixture) (Case, error) {
		p := f.presentedPassport(false)
		p.ExpiresAt = passport.NewTime(verifyAt.Add(-6 * time.Minute))
		d := f.newPresentation(f.presentedBundle(p))
		d.claims["aud"] = "https://other-verifier.example"
		return d.fails("an expired passport presented to another audience: the bundle's reason wins", "validity", passport.ReasonExpired)
	}},
	{"presentation_bundle_revoked_fail", func(f *fixture) (Case, error) {
		d := f.newPresentation(f.presentedBundle(f.presentedPassport(true)))
		c, err := d.fails("a presentation of a revoked passport", "status", passport.ReasonRevoked)
		c.StatusList = f.newList(2, statuslist.Invalid).token()
		return c, err
	}},

	// The key binding's JWS and header.
	{"presentation_kb_two_parts_fail", func(f *fixture) (Case, error) {
		d := f.present()
		d.compact = func(kb string) string { return kb[:strings.LastIndexByte(kb, '.')] }
		return d.fails("a key binding without its signature part", "kb_jws", passport.ReasonKBMalformed)
	}},
	{"presentation_kb_alg_none_unsigned_fail", func(f *fixture) (Case, error) {
		d := f.present()
		d.alg = "none"
		d.compact = func(kb string) string { return kb[:strings.LastIndexByte(kb, '.')+1] }
		return d.fails("alg none with an empty signature: the JWS has an empty part", "kb_jws", passport.ReasonKBMalformed)
	}},
	{"presentation_kb_too_long_fail", func(f *fixture) (Case, error) {
		d := f.present()
		d.policy.Nonce = strings.Repeat("n", 2900)
		d.claims["nonce"] = d.policy.Nonce
		return d.fails("a key binding over 4,096 bytes, for a long nonce the policy asks for", "kb_jws", passport.ReasonKBMalformed)
	}},
	{"presentation_kb_header_kid_fail", func(f *fixture) (Case, error) {
		d := f.present()
		d.header = `{"alg":"EdDSA","jwk":` + bareJWK(f.holder1) + `,"kid":"` + f.holder1.Public().KeyID() + `","typ":"passport-kb+jwt"}`
		return d.fails("a key-binding header with a kid beside the jwk", "kb_header", passport.ReasonKBHeader)
	}},
	{"presentation_kb_no_jwk_fail", func(f *fixture) (Case, error) {
		d := f.present()
		d.header = `{"alg":"EdDSA","typ":"passport-kb+jwt"}`
		return d.fails("a key-binding header without jwk", "kb_header", passport.ReasonKBHeader)
	}},
	{"presentation_kb_wrong_typ_fail", func(f *fixture) (Case, error) {
		d := f.present()
		d.typ = "kb+jwt"
		return d.fails("typ kb+jwt, SD-JWT's, instead of passport-kb+jwt", "kb_header", passport.ReasonKBType)
	}},
	{"presentation_kb_pop_typ_fail", func(f *fixture) (Case, error) {
		d := f.present()
		d.typ = passport.HolderProofType
		return d.fails("typ passport-pop+jwt: a proof of possession is not a key binding", "kb_header", passport.ReasonKBType)
	}},
	{"presentation_kb_alg_none_fail", func(f *fixture) (Case, error) {
		d := f.present()
		d.alg = "none"
		return d.fails("alg none (with a signature part)", "kb_header", passport.ReasonKBAlgNotAllowed)
	}},
	{"presentation_kb_hs256_fail", func(f *fixture) (Case, error) {
		d := f.present()
		d.alg = "HS256"
		pub := f.raw[f.holder1].(ed25519.PrivateKey).Public().(ed25519.PublicKey)
		d.sig = func(input []byte) []byte { return hmacSHA256(pub, input) }
		return d.fails("HS256 keyed with the holder key's public bytes", "kb_header", passport.ReasonKBAlgNotAllowed)
	}},
	{"presentation_kb_jwk_private_fail", func(f *fixture) (Case, error) {
		d := f.present()
		seed := f.raw[f.holder1].(ed25519.PrivateKey).Seed()
		d.jwk = strings.Replace(bareJWK(f.holder1), `{`, `{"d":"`+b64(seed)+`",`, 1)
		return d.fails("a jwk carrying the private key (d)", "kb_header", passport.ReasonKBKeyInvalid)
	}},
	{"presentation_kb_jwk_p384_fail", func(f *fixture) (Case, error) {
		d := f.present()
		c := elliptic.P384().Params()
		coord := func(v *big.Int) string { return b64(v.FillBytes(make([]byte, 48))) }
		d.alg = "ES256"
		d.jwk = `{"crv":"P-384","kty":"EC","x":"` + coord(c.Gx) + `","y":"` + coord(c.Gy) + `"}`
		return d.fails("alg ES256 with a P-384 jwk (the curve's base point): only Ed25519 and P-256 are holder keys", "kb_header", passport.ReasonKBKeyInvalid)
	}},
	{"presentation_kb_alg_key_mismatch_fail", func(f *fixture) (Case, error) {
		d := f.present()
		d.alg = "ES256"
		return d.fails("alg ES256 with an Ed25519 jwk", "kb_header", passport.ReasonKBAlgKeyMismatch)
	}},

	// The binding to the passport.
	{"presentation_key_not_bound_fail", func(f *fixture) (Case, error) {
		d := f.present()
		d.key = f.holder3
		return d.fails("a key binding by a holder key the passport does not name in cnf", "holder_key", passport.ReasonKBKeyNotBound)
	}},
	{"presentation_passport_not_bound_fail", func(f *fixture) (Case, error) {
		d := f.newPresentation(f.presentedBundle(claimsPassport(false, false)))
		return d.fails("a passport of version 0.2 without cnf: a bearer passport cannot be presented", "holder_key", passport.ReasonPassportNotBound)
	}},
	{"presentation_v01_passport_fail", func(f *fixture) (Case, error) {
		d := f.newPresentation(f.presentedBundle(basePassport()))
		return d.fails("a passport of version 0.1, which has no cnf", "holder_key", passport.ReasonPassportNotBound)
	}},
	{"presentation_kb_other_key_fail", func(f *fixture) (Case, error) {
		d := f.present()
		d.key, d.jwkOf = f.holder3, f.holder1
		return d.fails("a header naming holder key 1, the signature by holder key 3", "kb_signature", passport.ReasonKBSignature)
	}},

	// The key binding's payload.
	{"presentation_kb_payload_not_canonical_fail", func(f *fixture) (Case, error) {
		d := f.present()
		b, err := passport.Marshal(d.claims)
		if err != nil {
			return Case{}, err
		}
		d.payload = replaceOnce(b, `,"nonce":`, `, "nonce":`)
		return d.fails("a key-binding payload with a space", "kb_payload", passport.ReasonKBPayload)
	}},
	{"presentation_kb_payload_extra_fail", func(f *fixture) (Case, error) {
		d := f.present()
		d.claims["exp"] = presentedAt.Add(time.Minute).Unix()
		return d.fails("a key-binding payload with an exp member", "kb_payload", passport.ReasonKBPayload)
	}},
	{"presentation_kb_iat_string_fail", func(f *fixture) (Case, error) {
		d := f.present()
		d.claims["iat"] = passport.NewTime(presentedAt).String()
		return d.fails("iat written as a time string", "kb_payload", passport.ReasonKBPayload)
	}},
	{"presentation_kb_iat_fraction_fail", func(f *fixture) (Case, error) {
		d := f.present()
		d.claims["iat"] = float64(presentedAt.Unix()) + 0.5
		return d.fails("iat with a fraction", "kb_payload", passport.ReasonKBPayload)
	}},
	{"presentation_other_passport_fail", func(f *fixture) (Case, error) {
		d := f.present()
		other := f.newPresentation(f.presentedBundle(f.presentedPassport(true)))
		d.claims["passportHash"] = other.claims["passportHash"]
		return d.fails("a key binding over the hash of another passport of the same subject", "kb_hash", passport.ReasonKBHashMismatch)
	}},
	{"presentation_wrong_audience_fail", func(f *fixture) (Case, error) {
		d := f.present()
		d.claims["aud"] = "https://other-verifier.example"
		return d.fails("a presentation made for another relying party", "audience", passport.ReasonKBAudienceMismatch)
	}},
	{"presentation_audience_trailing_slash_fail", func(f *fixture) (Case, error) {
		d := f.present()
		d.claims["aud"] = verifierAudience + "/"
		return d.fails("aud with a trailing slash: audiences compare byte for byte", "audience", passport.ReasonKBAudienceMismatch)
	}},
	{"presentation_nonce_replayed_fail", func(f *fixture) (Case, error) {
		d := f.present()
		d.claims["nonce"] = "n-earlierNonce"
		return d.fails("a presentation answering an earlier nonce, replayed", "nonce", passport.ReasonKBNonceMismatch)
	}},
	{"presentation_stale_fail", func(f *fixture) (Case, error) {
		d := f.present()
		d.setIat(verifyAt.Add(-5*time.Minute - skewed - time.Second))
		return d.fails("a key binding one second older than the maximum age plus the skew", "kb_time", passport.ReasonKBStale)
	}},
	{"presentation_future_fail", func(f *fixture) (Case, error) {
		d := f.present()
		d.setIat(verifyAt.Add(skewed + time.Second))
		return d.fails("a key binding made one second beyond the skew after the verification time", "kb_time", passport.ReasonKBNotYetValid)
	}},
	{"precedence_presentation_audience_stale_fail", func(f *fixture) (Case, error) {
		d := f.present()
		d.claims["aud"] = "https://other-verifier.example"
		d.setIat(verifyAt.Add(-time.Hour))
		return d.fails("a stale key binding for another audience: the audience is checked before the time", "audience", passport.ReasonKBAudienceMismatch)
	}},
	{"precedence_presentation_hash_audience_fail", func(f *fixture) (Case, error) {
		d := f.present()
		d.claims = maps.Clone(d.claims)
		d.claims["aud"] = "https://other-verifier.example"
		d.claims["passportHash"] = strings.Repeat("0", 64)
		return d.fails("a key binding for another passport and another audience: the hash is checked first", "kb_hash", passport.ReasonKBHashMismatch)
	}},
	{"presentation_max_age_60_stale_fail", func(f *fixture) (Case, error) {
		d := f.present()
		d.policy.MaxAge = 60
		d.setIat(verifyAt.Add(-60*time.Second - skewed - time.Second))
		return d.fails("a maximum age of 60 s, and a key binding one second older than that plus the skew", "kb_time", passport.ReasonKBStale)
	}},
}
