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
	"context"
	"encoding/json"
	"errors"
	"fmt"
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
	proofText    [][]byte
	tree         evidence.Tree
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
