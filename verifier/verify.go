// Package verifier checks passport bundles offline against a trust file.
//
// A Verifier is built once from a Trust and options, then checks bundles:
//
//	v, err := verifier.New(trust)
//	res, err := v.Verify(ctx, bundle, verifier.ForSubject("agt_…"))
//	if res.Verified { … res.Passport … }
//
// A service that reads its published trust file again for each request
// keeps a Cache, which builds a new Verifier only when the file changes.
//
// Verify never returns a bare bool. Its Result lists every check in the
// order SPEC.md §11 gives, each with a stable reason code; the first
// failure is the result's reason. The passport and its disclosed evidence
// appear in a Result only when every check passed or was skipped
// (Check.Skipped): a check the policy does not ask for, or the status
// check of a passport whose status list the caller did not supply:
//
//	list := v.ReadStatusList(token) // fetched earlier from the passport's status uri
//	res, err := v.Verify(ctx, bundle, verifier.ForSubject("agt_…").WithStatusList(list))
//
// A relying party that wants to know that the agent in front of it is the
// one the passport describes asks for a presentation instead, with a fresh
// nonce, and checks it with VerifyPresentation under a PresentationPolicy
// naming its own identifier and that nonce:
//
//	res, err := v.VerifyPresentation(ctx, presentation, verifier.ForSubject("agt_…"),
//		verifier.ForPresentation("https://me.example", nonce))
//
// The bundle is bounded before it is parsed, parsed once by a strict
// canonical JSON parser that records byte ranges, and every hash and
// signature is computed over slices of the input: nothing is re-serialised.
package verifier

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/remnant/passportkit/evidence"
	"github.com/remnant/passportkit/internal/cjson"
	"github.com/remnant/passportkit/passport"
)

// DefaultSkew is the clock skew tolerated on issuedAt and expiresAt when
// no WithSkew option is given.
const DefaultSkew = 5 * time.Minute

// MaxSkew bounds WithSkew.
const MaxSkew = 24 * time.Hour

// Verifier checks bundles against one Trust. It is safe for concurrent use.
type Verifier struct {
	trust *Trust
	clock func() time.Time
	skew  time.Duration
	// spare and parsers keep parse buffers between verifications: the
	// index of a bundle is sizeable, and fresh memory costs page faults.
	// spare holds one set for good, since a sync.Pool empties itself at
	// every other garbage collection, which a busy program runs often;
	// parsers serves the verifications that run at the same time.
	spare   atomic.Pointer[buffers]
	parsers sync.Pool // of *buffers
}

// buffers returns a set of buffers for one verification, to be handed
// back with release.
func (v *Verifier) buffers() *buffers {
	if b := v.spare.Swap(nil); b != nil {
		return b
	}
	if b, ok := v.parsers.Get().(*buffers); ok {
		return b
	}
	return new(buffers)
}

func (v *Verifier) release(b *buffers) {
	if !v.spare.CompareAndSwap(nil, b) {
		v.parsers.Put(b)
	}
}

// buffers are what one verification reuses from the last.
type buffers struct {
	bundle       cjson.Parser
	headerParser cjson.Parser
	header       [maxHeaderSize * 3 / 4]byte // the decoded protected header
	sig          [maxSigSize * 3 / 4]byte    // the decoded signature
	entries      []entry
	proofs       []evidence.Hash
	hashes       []evidence.Hash
	hasher       evidence.LeafHasher
}

// Option configures a Verifier.
type Option func(*Verifier) error

// WithClock sets the clock that supplies the verification time when a
// Policy gives none. The default is time.Now.
func WithClock(clock func() time.Time) Option {
	return func(v *Verifier) error {
		if clock == nil {
			return errors.New("verifier: nil clock")
		}
		v.clock = clock
		return nil
	}
}

// WithSkew sets the clock skew tolerated on issuedAt and expiresAt, between
// zero and MaxSkew.
func WithSkew(d time.Duration) Option {
	return func(v *Verifier) error {
		if d < 0 || d > MaxSkew {
			return fmt.Errorf("verifier: skew %v outside [0, %v]", d, MaxSkew)
		}
		v.skew = d
		return nil
	}
}

// New returns a Verifier that trusts exactly trust.
func New(trust *Trust, opts ...Option) (*Verifier, error) {
	if trust == nil {
		return nil, errors.New("verifier: nil trust")
	}
	if err := trust.validate(); err != nil {
		return nil, err
	}
	v := &Verifier{trust: trust, clock: time.Now, skew: DefaultSkew}
	for _, o := range opts {
		if err := o(v); err != nil {
			return nil, err
		}
	}
	return v, nil
}

// Policy is what a caller requires of one bundle beyond its validity. The
// subject choice is mandatory: build a Policy with ForSubject or
// AnySubject. Verify refuses the zero Policy, so that forgetting the
// subject is an error and never a silent pass. A status list is optional
// (WithStatusList): without one, the status check of a passport that names
// a list is skipped and reported as passport.ReasonNotChecked, which a
// caller that needs a fresh status treats as a refusal.
type Policy struct {
	subject    string
	anySubject bool
	at         time.Time
	statusList *StatusList
}

// ForSubject returns a Policy that requires the passport to describe the
// agent id subject. An empty id yields a Policy Verify refuses.
func ForSubject(subject string) Policy { return Policy{subject: subject} }

// AnySubject returns a Policy that accepts a passport about any agent. The
// subject check then reports passport.ReasonNotRequired, not ok: the caller has not
// learned whom the passport describes until it reads Result.Subject.
func AnySubject() Policy { return Policy{anySubject: true} }

// At returns a copy of p that verifies as of t instead of the verifier's
// clock. A zero t means the clock.
func (p Policy) At(t time.Time) Policy {
	p.at = t
	return p
}

// ErrPolicy is returned by Verify for a Policy made neither by ForSubject
// (with a non-empty id) nor by AnySubject.
var ErrPolicy = errors.New("verifier: the policy names no subject choice; use ForSubject(id) or AnySubject()")

func (p Policy) valid() bool { return p.anySubject != (p.subject != "") }

// Check is the outcome of one verification step. OK is true only for a
// check that ran and passed; a check that failed carries its reason, one
// that did not run because an earlier one failed carries
// passport.ReasonNotReached, and one that was skipped (see Skipped) carries
// passport.ReasonNotRequired or passport.ReasonNotChecked.
type Check struct {
	Name   CheckName       `json:"name"`
	OK     bool            `json:"ok"`
	Reason passport.Reason `json:"reason"`
	Detail string          `json:"detail"`
}

// Skipped reports whether the check did not run and that is no failure: a
// subject check under AnySubject, a claims check of a passport from before
// version 0.2 or a status check of a passport that names no list
// (passport.ReasonNotRequired), or a status check for which no list was
// supplied (passport.ReasonNotChecked). A skipped check is never OK.
func (c Check) Skipped() bool {
	return c.Reason == passport.ReasonNotRequired || c.Reason == passport.ReasonNotChecked
}

// Leaf is one disclosed evidence record of a verified bundle.
type Leaf struct {
	Index  int             `json:"index"`
	Record json.RawMessage `json:"record"` // canonical JSON
}

// Result is the outcome of Verify. Issuer, Subject, PassportHash,
// EvidenceRoot, Passport and Evidence are set only when Verified; KeyID is
// set once the bundle's kid names a trusted key.
type Result struct {
	Verified     bool            `json:"verified"`
	Reason       passport.Reason `json:"reason"`
	Checks       []Check         `json:"checks"`
	PassportHash string          `json:"passportHash"`
	EvidenceRoot string          `json:"evidenceRoot"`
	Issuer       string          `json:"issuer"`
	Subject      string          `json:"subject"`
	KeyID        string          `json:"kid"`
	// HolderKey is the RFC 7638 thumbprint of the holder key that signed a
	// verified presentation's key binding; empty otherwise.
	HolderKey string `json:"holderKey,omitempty"`
	At        string `json:"at"`
	// Passport is the verified passport document, in canonical JSON.
	Passport json.RawMessage `json:"passport,omitempty"`
	// Evidence holds the disclosed evidence records.
	Evidence []Leaf `json:"evidence,omitempty"`
}

// Check returns the check named name, and the zero Check for a name Verify
// does not report.
func (r *Result) Check(name CheckName) Check {
	for _, c := range r.Checks {
		if c.Name == name {
			return c
		}
	}
	return Check{}
}

// Indeterminate reports whether the bundle could not be judged because no
// trusted key has its kid.
func (r *Result) Indeterminate() bool { return r.Reason == passport.ReasonKeyUnknown }

// Decode decodes the verified passport. It fails for an unverified result.
func (r *Result) Decode() (*passport.Passport, error) {
	if !r.Verified {
		return nil, errors.New("verifier: the bundle did not verify")
	}
	var p passport.Passport
	if err := json.Unmarshal(r.Passport, &p); err != nil {
		return nil, fmt.Errorf("verifier: decode passport: %w", err)
	}
	return &p, nil
}

// CheckName names one verification step. The names are stable; SPEC.md
// §11.2 lists them in order.
type CheckName string

// The checks Verify reports, in the order it runs them.
const (
	CheckSize         CheckName = "size"
	CheckJSON         CheckName = "json"
	CheckBundle       CheckName = "bundle"
	CheckJWS          CheckName = "jws"
	CheckHeader       CheckName = "header"
	CheckKey          CheckName = "key"
	CheckAlgorithm    CheckName = "algorithm"
	CheckSignature    CheckName = "signature"
	CheckPayload      CheckName = "payload"
	CheckSnapshot     CheckName = "snapshot"
	CheckPassportHash CheckName = "passport_hash"
	CheckVersion      CheckName = "version"
	CheckFields       CheckName = "fields"
	CheckClaims       CheckName = "claims"
	CheckIssuer       CheckName = "issuer"
	CheckKeyWindow    CheckName = "key_window"
	CheckValidity     CheckName = "validity"
	CheckEvidence     CheckName = "evidence"
	CheckSubject      CheckName = "subject"
	CheckStatus       CheckName = "status"
)

var checkNames = [...]CheckName{
	CheckSize, CheckJSON, CheckBundle, CheckJWS, CheckHeader, CheckKey, CheckAlgorithm, CheckSignature,
	CheckPayload, CheckSnapshot, CheckPassportHash, CheckVersion, CheckFields, CheckClaims, CheckIssuer,
	CheckKeyWindow, CheckValidity, CheckEvidence, CheckSubject, CheckStatus,
}

// CheckNames returns the names of the checks Verify reports, in order.
func CheckNames() []CheckName { return append([]CheckName(nil), checkNames[:]...) }

// Verify checks bundle under policy. It returns an error only when ctx is
// done, policy is not a valid Policy (ErrPolicy) or its status list was
// read by another Verifier (ErrStatusList); an invalid bundle is a Result
// with Verified false.
func (v *Verifier) Verify(ctx context.Context, bundle []byte, policy Policy) (*Result, error) {
	at, err := v.start(ctx, policy)
	if err != nil {
		return nil, err
	}
	bufs := v.buffers()
	defer v.release(bufs)
	r := &run{v: v, src: bundle, policy: policy, at: at, typ: passport.JWSType, lookup: v.trust.Lookup, parser: &bufs.bundle, bufs: bufs}
	// The result and room for its checks, in one allocation.
	alloc := new(struct {
		Result
		checks [len(checkNames)]Check
	})
	res := &alloc.Result
	res.At, res.Checks = passport.NewTime(at).String(), alloc.checks[:0]
	steps := r.bundleSteps()
	if r.execute(res, steps[:], checkNames[:]) {
		r.verified(res)
	}
	return res, nil
}

// start refuses a verification whose ctx is done or whose policy is not
// valid or holds another Verifier's status list, and returns its time.
func (v *Verifier) start(ctx context.Context, policy Policy) (time.Time, error) {
	if err := ctx.Err(); err != nil {
		return time.Time{}, err
	}
	if !policy.valid() {
		return time.Time{}, ErrPolicy
	}
	if policy.statusList != nil && policy.statusList.v != v {
		return time.Time{}, ErrStatusList
	}
	if policy.at.IsZero() {
		return v.clock(), nil
	}
	return policy.at, nil
}

// bundleSteps returns the checks of a bundle, in the order of checkNames.
func (r *run) bundleSteps() [len(checkNames)]func() *passport.Error {
	return [...]func() *passport.Error{
		r.size, r.json, r.bundle, r.jws, r.header, r.key, r.algorithm, r.signature,
		r.payload, r.snapshot, r.passportHash, r.version, r.fields, r.claims, r.issuer,
		r.keyWindow, r.validity, r.evidence, r.subject, r.status,
	}
}

// execute runs steps, named names, and appends each one's outcome to
// res.Checks. At the first failure it sets res.Reason and reports every
// later check as not reached. It reports whether every step passed or was
// skipped.
func (r *run) execute(res *Result, steps []func() *passport.Error, names []CheckName) bool {
	for i, step := range steps {
		if err := step(); err != nil {
			res.Reason = err.Reason
			res.Checks = append(res.Checks, Check{Name: names[i], Reason: err.Reason, Detail: err.Detail})
			for _, name := range names[i+1:] {
				res.Checks = append(res.Checks, Check{Name: name, Reason: passport.ReasonNotReached, Detail: "an earlier check failed"})
			}
			if r.trusted != nil {
				res.KeyID = r.trusted.Key.KeyID()
			}
			return false
		}
		if r.skipped != "" {
			res.Checks = append(res.Checks, Check{Name: names[i], Reason: r.skipped, Detail: r.detail})
		} else {
			res.Checks = append(res.Checks, Check{Name: names[i], OK: true, Reason: passport.ReasonOK, Detail: r.detail})
		}
		r.detail, r.skipped = "", ""
	}
	return true
}

// verified fills in res for a bundle whose every check passed or was
// skipped.
func (r *run) verified(res *Result) {
	res.Verified = true
	res.Reason = passport.ReasonOK
	res.KeyID = r.trusted.Key.KeyID()
	res.Issuer = r.issuerID
	res.Subject = r.subjectID
	res.PassportHash = r.hash
	res.EvidenceRoot = r.root.String()
	res.Passport = json.RawMessage(r.body.Raw())
	res.Evidence = r.leaves
}

// VerifyJWS checks a compact JWS, outside any bundle, under the passport
// JWS profile: exactly alg, kid and typ in the protected header, typ equal
// to typ, kid naming a key of the trust file, alg pinned by that key, and a
// valid signature. It returns the payload and the key's kid. A refusal is a
// *passport.Error whose Reason is ReasonKeyUnknown when no trusted key has
// the kid.
func (v *Verifier) VerifyJWS(compact []byte, typ string) (payload []byte, kid string, err error) {
	if typ == "" {
		return nil, "", errors.New("verifier: VerifyJWS needs the typ to require")
	}
	bufs := v.buffers()
	defer v.release(bufs)
	r := &run{v: v, credential: compact, typ: typ, lookup: v.trust.Lookup, parser: &bufs.bundle, bufs: bufs}
	return r.compactJWS()
}

// compactJWS runs the JWS checks on r.credential and decodes the payload.
func (r *run) compactJWS() ([]byte, string, error) {
	for _, step := range []func() *passport.Error{r.jws, r.header, r.key, r.algorithm, r.signature} {
		if err := step(); err != nil {
			return nil, "", err
		}
	}
	payload, err := b64.DecodeString(string(r.payloadB64))
	if err != nil {
		return nil, "", fail(passport.ReasonJWSMalformed, "the payload is not base64url")
	}
	return payload, r.trusted.Key.KeyID(), nil
}

// run is the state of one verification.
type run struct {
	v      *Verifier
	src    []byte
	policy Policy
	at     time.Time
	detail string // detail of the check that just passed
	// skipped, when set, says why the check that just returned did not
	// run: passport.ReasonNotRequired or passport.ReasonNotChecked.
	skipped passport.Reason

	// typ is the required typ header; "" accepts any or none (tests only).
	typ string
	// lookup finds the trusted key for a kid.
	lookup func(kid string) (*TrustedKey, bool)
	parser *cjson.Parser
	bufs   *buffers // reused between verifications

	doc        *cjson.Doc
	top        cjson.Value // the bundle, the root of doc unless presented
	credential []byte      // the compact JWS, a slice of src
	signed     []byte      // header.payload, the signing input
	payloadB64 []byte
	sig        []byte
	alg        string
	kid        string
	trusted    *TrustedKey
	snap       cjson.Value // the snapshot member
	disclosed  cjson.Value // the evidence member
	body       cjson.Value
	members    bodyMembers
	claimed    snapshotClaims
	hash       string
	// hasClaims says the passport's version carries cnf, status and the
	// JWT claims (passport.HasClaims).
	hasClaims bool
	// holderKeys and statusRef are the passport's cnf and status members,
	// nil when it has none.
	holderKeys *passport.Confirmation
	statusRef  *passport.StatusRef

	// presented is the presentation being verified, nil for a bundle;
	// the key-binding checks read the fields after it.
	presented          []byte
	presentationPolicy PresentationPolicy
	kbText             []byte // the keyBinding member's text
	kb                 *passport.KeyBinding
	holder             *passport.PublicKey // the key in the key binding's header
	kbClaims           passport.KeyBindingClaims

	issuerID  string
	subjectID string
	issuedAt  time.Time
	expiresAt time.Time
	root      evidence.Hash
	count     int
	leaves    []Leaf

	// issuedText and expiresText are the instants as the passport writes
	// them.
	issuedText, expiresText string
}

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

func (r *run) passportHash() *passport.Error {
	var hash cjson.Value
	c := &r.claimed
	for k, val := range r.snap.Members() {
		switch string(name(k)) {
		case "passport":
			r.body = val
		case "passportHash":
			hash = val
		case "exp":
			c.exp = val
		case "iat":
			c.iat = val
		case "iss":
			c.iss = val
		case "nbf":
			c.nbf = val
		case "status":
			c.status = val
		case "sub":
			c.sub = val
		default:
			return fail(passport.ReasonPayloadMalformed, "the payload holds a member outside passport, passportHash and the JWT claims")
		}
	}
	if r.body.Kind() != cjson.Object || hash.Kind() != cjson.String {
		return fail(passport.ReasonPayloadMalformed, "the payload must hold a passport object and a passportHash string")
	}
	// A hash is hex digits, which canonical JSON never escapes: the raw
	// text is the one to compare.
	want, _ := hash.RawText()
	sum := sha256.Sum256(r.body.Raw())
	var got [64]byte
	hex.Encode(got[:], sum[:])
	if string(want) != string(got[:]) {
		return fail(passport.ReasonHashMismatch, "passportHash is not the SHA-256 of the passport")
	}
	r.detail = "sha256 " + string(got[:])
	r.hash = r.detail[len("sha256 "):]
	return nil
}

// bodyMembers are the members of the passport that the version and fields
// checks read, found in one walk of the passport. A member that is absent
// is the zero Value.
type bodyMembers struct {
	passportVersion, trustModelVersion, issuer, subject, issuedAt, expiresAt cjson.Value
	evidenceRoot, evidenceCount, skillPassports, cnf, status                 cjson.Value
	subjectID                                                                cjson.Value // found by the fields check
}

func (r *run) version() *passport.Error {
	m := &r.members
	for k, val := range r.body.Members() {
		switch string(name(k)) {
		case "passportVersion":
			m.passportVersion = val
		case "trustModelVersion":
			m.trustModelVersion = val
		case "issuer":
			m.issuer = val
		case "subject":
			m.subject = val
		case "issuedAt":
			m.issuedAt = val
		case "expiresAt":
			m.expiresAt = val
		case "evidenceRoot":
			m.evidenceRoot = val
		case "evidenceCount":
			m.evidenceCount = val
		case "skillPassports":
			m.skillPassports = val
		case "cnf":
			m.cnf = val
		case "status":
			m.status = val
		}
	}
	pv := m.passportVersion
	if pv.Kind() == cjson.Invalid {
		return fail(passport.ReasonFieldMissing, "passportVersion is missing")
	}
	s, ok := pv.Text()
	if !ok {
		return fail(passport.ReasonFieldInvalid, "passportVersion must be a string")
	}
	if err := passport.CheckVersion("passportVersion", s, passport.Version); err != nil {
		return asError(err)
	}
	r.hasClaims = passport.HasClaims(s)
	if tv := m.trustModelVersion; tv.Kind() != cjson.Invalid {
		s, ok := tv.Text()
		if !ok {
			return fail(passport.ReasonFieldInvalid, "trustModelVersion must be a string")
		}
		if err := passport.CheckVersion("trustModelVersion", s, passport.TrustModelVersion); err != nil {
			return asError(err)
		}
	}
	return nil
}

func (r *run) fields() *passport.Error {
	m := &r.members
	// str reads the member v named name, the zero Value when it is absent.
	str := func(v cjson.Value, name string) (string, *passport.Error) {
		if v.Kind() == cjson.Invalid {
			return "", fail(passport.ReasonFieldMissing, "%s is missing", name)
		}
		s, ok := v.Text()
		if !ok || s == "" {
			return "", fail(passport.ReasonFieldInvalid, "%s must be a non-empty string", name)
		}
		return s, nil
	}
	// instant also returns the text, which is the one form ParseTime
	// accepts for the instant, as Time.String writes it.
	instant := func(v cjson.Value, name string) (time.Time, string, *passport.Error) {
		s, err := str(v, name)
		if err != nil {
			return time.Time{}, "", err
		}
		t, perr := passport.ParseTime(s)
		if perr != nil {
			return time.Time{}, "", fail(passport.ReasonFieldInvalid, "%s must be a time of the form %s", name, passport.TimeLayout)
		}
		return t.Time, s, nil
	}
	var err *passport.Error
	if r.issuerID, err = str(m.issuer, "issuer"); err != nil {
		return err
	}
	subject := m.subject
	if subject.Kind() == cjson.Invalid {
		return fail(passport.ReasonFieldMissing, "subject is missing")
	}
	if subject.Kind() != cjson.Object {
		return fail(passport.ReasonFieldInvalid, "subject must be an object")
	}
	id, _ := subject.Get("id")
	m.subjectID = id
	if r.subjectID, err = str(id, "id"); err != nil {
		err.Detail = "subject." + err.Detail
		return err
	}
	if r.issuedAt, r.issuedText, err = instant(m.issuedAt, "issuedAt"); err != nil {
		return err
	}
	if r.expiresAt, r.expiresText, err = instant(m.expiresAt, "expiresAt"); err != nil {
		return err
	}
	if !r.expiresAt.After(r.issuedAt) {
		return fail(passport.ReasonFieldInvalid, "expiresAt must be after issuedAt")
	}
	rootText, err := str(m.evidenceRoot, "evidenceRoot")
	if err != nil {
		return err
	}
	root, perr := evidence.ParseHash(rootText)
	if perr != nil {
		return fail(passport.ReasonFieldInvalid, "evidenceRoot must be 64 lower-case hex digits")
	}
	r.root = root
	countV := m.evidenceCount
	if countV.Kind() == cjson.Invalid {
		return fail(passport.ReasonFieldMissing, "evidenceCount is missing")
	}
	count, ok := countV.Int()
	if !ok || count < 0 {
		return fail(passport.ReasonFieldInvalid, "evidenceCount must be a non-negative integer")
	}
	r.count = int(count)
	if sp := m.skillPassports; sp.Kind() != cjson.Invalid {
		if sp.Kind() != cjson.Array {
			return fail(passport.ReasonFieldInvalid, "skillPassports must be an array")
		}
		if n := sp.Len(); n > passport.MaxSkillPassports {
			return fail(passport.ReasonFieldInvalid, "%d skill passports; at most %d", n, passport.MaxSkillPassports)
		}
		// Each skill passport in order, its hash over the signed bytes
		// (SPEC.md §4.14), read from the bundle's index. The payload's
		// numbers were checked at step 9.
		i := 0
		for e := range sp.Elements() {
			if err := passport.CheckIndexedSkillPassport(e); err != nil {
				pe := asError(err)
				return fail(pe.Reason, "skillPassports[%d]: %s", i, pe.Detail)
			}
			i++
		}
	}
	return r.binding()
}

func (r *run) issuer() *passport.Error {
	if r.issuerID != r.v.trust.Issuer {
		return fail(passport.ReasonIssuerMismatch, "the passport names another issuer than the trust file")
	}
	r.detail = r.issuerID
	return nil
}

func (r *run) keyWindow() *passport.Error {
	if !r.trusted.ValidAt(r.issuedAt) {
		return fail(passport.ReasonKeyWindow, "the passport was issued outside the signing key's validity window")
	}
	return nil
}

func (r *run) validity() *passport.Error {
	skew := r.v.skew
	switch {
	case r.issuedAt.After(r.at.Add(skew)):
		return fail(passport.ReasonNotYetValid, "issued after the verification time (skew %v)", skew)
	case r.at.After(r.expiresAt.Add(skew)):
		return fail(passport.ReasonExpired, "expired before the verification time (skew %v)", skew)
	}
	r.detail = "valid from " + r.issuedText + " to " + r.expiresText
	return nil
}

// evidence checks the disclosed evidence in three passes, so that a bundle
// with several faults gets one reason (SPEC.md §11.2 step 18): first the
// shape of every entry in order (evidence_malformed), then the root
// (evidence_root_mismatch), then each entry in order, its proof
// (evidence_proof_invalid) and then its numbers (json_not_canonical).
func (r *run) evidence() *passport.Error {
	entries := r.bufs.entries[:0]
	proofs := r.bufs.proofs[:0]
	defer func() { r.bufs.entries, r.bufs.proofs = entries[:0], proofs[:0] }()
	last := -1
	for e := range r.disclosed.Elements() {
		var index, leaf, proof cjson.Value
		n := 0
		for k, val := range e.Members() {
			n++
			switch string(name(k)) {
			case "index":
				index = val
			case "leaf":
				leaf = val
			case "proof":
				proof = val
			}
		}
		i, ok := index.Int()
		switch {
		case e.Kind() != cjson.Object || n != 3 || leaf.Kind() != cjson.Object || proof.Kind() != cjson.Array:
			return fail(passport.ReasonEvidence, "entry %d must hold exactly index, leaf (an object) and proof (an array)", len(entries))
		case !ok || i < 0 || i >= int64(r.count):
			return fail(passport.ReasonEvidence, "entry %d: index must be an integer below evidenceCount %d", len(entries), r.count)
		case int(i) <= last:
			return fail(passport.ReasonEvidence, "entry %d: indices must increase", len(entries))
		case proof.Len() > evidence.MaxProofLen:
			return fail(passport.ReasonEvidence, "entry %d: a proof holds at most %d hashes", len(entries), evidence.MaxProofLen)
		}
		start := len(proofs)
		for h := range proof.Elements() {
			s, ok := h.RawText()
			if !ok {
				return fail(passport.ReasonEvidence, "entry %d: proof hashes must be strings", len(entries))
			}
			ph, err := evidence.ParseHashBytes(s)
			if err != nil {
				return fail(passport.ReasonEvidence, "entry %d: a proof hash must be 64 lower-case hex digits", len(entries))
			}
			proofs = append(proofs, ph)
		}
		last = int(i)
		entries = append(entries, entry{index: int(i), leaf: leaf, proof: [2]int{start, len(proofs)}})
	}
	if r.count == 0 && r.root != evidence.EmptyRoot {
		return fail(passport.ReasonEvidenceRoot, "evidenceRoot is not the root of an empty tree")
	}
	hasher := &r.bufs.hasher
	// tree is the whole tree when every leaf is disclosed: its head must
	// be the root, and each proof must then be its leaf's audit path in
	// it, which a comparison settles without hashing (evidence.IsProof).
	var tree *evidence.Tree
	if len(entries) == r.count && r.count > 0 {
		hashes := r.bufs.hashes[:0]
		for i := range entries {
			entries[i].hash = hasher.Sum(entries[i].leaf.Raw())
			hashes = append(hashes, entries[i].hash)
		}
		r.bufs.hashes = hashes[:0]
		tree = evidence.NewTree(hashes)
		if tree.Root() != r.root {
			return fail(passport.ReasonEvidenceRoot, "the disclosed leaves do not form a tree with root evidenceRoot")
		}
	}
	// batch checks the proofs by hashing: all of them when some leaf is
	// not disclosed; otherwise, from the first proof that is not its
	// leaf's audit path on, after the earlier ones, so that its outcome
	// and its error are what checking every proof by hashing gives.
	var batch *evidence.Batch
	r.leaves = make([]Leaf, 0, len(entries))
	for k, e := range entries {
		proof := proofs[e.proof[0]:e.proof[1]]
		if tree == nil {
			e.hash = hasher.Sum(e.leaf.Raw())
		}
		if tree == nil || batch != nil || !tree.IsProof(e.index, proof) {
			if batch == nil {
				batch = evidence.NewBatch(uint64(r.count), r.root)
				for _, d := range entries[:k] {
					if err := batch.Verify(uint64(d.index), d.hash, proofs[d.proof[0]:d.proof[1]]); err != nil {
						return fail(passport.ReasonEvidenceProof, "leaf %d: %v", d.index, err)
					}
				}
			}
			if err := batch.Verify(uint64(e.index), e.hash, proof); err != nil {
				return fail(passport.ReasonEvidenceProof, "leaf %d: %v", e.index, err)
			}
		}
		if err := r.doc.CheckNumbers(e.leaf); err != nil {
			return asError(passport.JSONError(err))
		}
		r.leaves = append(r.leaves, Leaf{Index: e.index, Record: json.RawMessage(e.leaf.Raw())})
	}
	r.detail = strconv.Itoa(len(entries)) + " of " + strconv.Itoa(r.count) + " leaves disclosed"
	return nil
}

// entry is one disclosed evidence leaf as the evidence check reads it.
type entry struct {
	index int
	leaf  cjson.Value
	proof [2]int // its hashes, a range of buffers.proofs
	hash  evidence.Hash
}

func (r *run) subject() *passport.Error {
	if r.policy.anySubject {
		r.skipped = passport.ReasonNotRequired
		r.detail = "the policy accepts any subject"
		return nil
	}
	if r.policy.subject != r.subjectID {
		return fail(passport.ReasonSubjectMismatch, "the passport describes another subject than the policy requires")
	}
	r.detail = r.subjectID
	return nil
}

// name returns the raw text of a member name. Names with escapes never
// match the ASCII names of the format, so the raw form is enough.
func name(k cjson.Value) []byte {
	b, _ := k.RawText()
	return b
}

// clip bounds untrusted text quoted in a detail.
func clip(s string) string {
	if len(s) > 64 {
		return s[:64] + "…"
	}
	return s
}
