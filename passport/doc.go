// Package passport implements the passport document, its canonical JSON
// form, its hash, its signature and the bundle a holder presents. It is the
// reference implementation of SPEC.md; this overview is enough to port the
// format, and the specification settles every detail.
//
// # The document
//
// A [Passport] says what an issuer computed about one agent (its
// [Subject]): skill passports ([SkillPassport], one per skill, each with an
// estimate, its evidence level and the "why"), reputation figures, an
// issuance and expiry time ([Time], always UTC to the second), and the
// evidenceRoot and evidenceCount that commit it to every evidence record it
// was computed from (package evidence). passportVersion is [Version];
// trustModelVersion is [TrustModelVersion]; [CheckVersion] refuses an
// unknown major version.
//
// # Canonical JSON
//
// Every signed or hashed byte is RFC 8785 canonical JSON under extra
// guards: no duplicate member names, valid UTF-8, no lone surrogates,
// integers within ±(2^53−1), nesting at most 32 deep, nothing trailing.
// [Canonicalize] is the one canonicaliser of the project; [CheckCanonical]
// checks that bytes already are canonical, and [Marshal] encodes a Go value
// canonically. A refusal is an [*Error] whose [Reason] is one of the json_*
// codes. Because canonical JSON is compositional, a member's canonical value
// is a byte range of its canonical parent, so hashes are taken over slices
// of the signed bytes and nothing is re-serialised.
//
// # Hash, signature and bundle
//
// The passportHash ([PassportHash]) is the hex SHA-256 of the canonical
// passport. The signed payload is the snapshot
// {"passport":…,"passportHash":…} ([Snapshot], [MarshalSnapshot]), signed
// by a [Signer] as a compact JWS with exactly alg ([EdDSA] or [ES256]),
// kid (the RFC 7638 thumbprint of the key) and typ [JWSType] in the
// protected header. A [Bundle] holds that credential, the snapshot again
// and some evidence leaves with their inclusion proofs ([Disclosure]); it is
// at most [MaxBundleSize] bytes.
//
// # Presenting a bundle
//
// A bundle shows what the issuer said; a [Presentation] shows that the
// agent itself presents it. [Present] wraps a bundle whose passport names
// the holder's key in its cnf member ([Confirmation]) with a key-binding
// JWS: the protected header {"alg":…,"jwk":<the holder's public key>,
// "typ":[KeyBindingType]} and the payload [KeyBindingClaims] (the
// relying party's audience, its nonce, the time and the passportHash),
// signed by that key. [ParsePresentationUnverified] reads the document's
// shape, and [SplitKeyBinding], [KeyBinding.HolderKey],
// [KeyBinding.Verify] and [KeyBinding.Claims] read the key binding check
// by check; verifier.VerifyPresentation makes every check in order.
//
// # Reading a bundle
//
// Verification lives in package verifier: it returns the passport only
// when every check passed. [ParseBundleUnverified] decodes a bundle without
// checking anything but its JSON, for inspection; nothing it returns may be
// trusted.
//
// # Refusals
//
// Every refusal carries a stable [Reason]; SPEC.md §11.3 lists them all.
// Compare reasons with [ReasonOf], never error strings.
package passport
