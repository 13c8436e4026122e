package verifier

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"time"

	"github.com/remnant/passportkit/internal/cjson"
	"github.com/remnant/passportkit/passport"
)

// DefaultMaxAge is how old a key binding may be when a PresentationPolicy
// sets no other maximum age.
const DefaultMaxAge = 5 * time.Minute

// MaxMaxAge bounds PresentationPolicy.WithMaxAge.
const MaxMaxAge = 24 * time.Hour

// PresentationPolicy is what a relying party requires of a presentation
// beyond its bundle: the audience it must be made for (the relying party's
// own identifier) and the nonce it handed the holder, both mandatory, and
// how old its key binding may be. Build one with ForPresentation;
// VerifyPresentation refuses the zero PresentationPolicy.
type PresentationPolicy struct {
	audience, nonce string
	maxAge          time.Duration
}

// ForPresentation returns a PresentationPolicy that requires a key binding
// for audience answering nonce, at most DefaultMaxAge old. An empty audience
// or nonce yields a policy VerifyPresentation refuses.
func ForPresentation(audience, nonce string) PresentationPolicy {
	return PresentationPolicy{audience: audience, nonce: nonce, maxAge: DefaultMaxAge}
}

// WithMaxAge returns a copy of p that accepts a key binding made up to d
// before the verification time (plus the verifier's skew). d must lie
// between zero and MaxMaxAge.
func (p PresentationPolicy) WithMaxAge(d time.Duration) PresentationPolicy {
	p.maxAge = d
	return p
}

// ErrPresentationPolicy is wrapped by VerifyPresentation's refusal of a
// PresentationPolicy without an audience or a nonce, or with a maximum age
// outside [0, MaxMaxAge].
var ErrPresentationPolicy = errors.New("verifier: invalid presentation policy")

func (p PresentationPolicy) validate() error {
	switch {
	case p.audience == "" || p.nonce == "":
		return fmt.Errorf("%w: name the audience (your own identifier) and the nonce you handed the holder; use ForPresentation(audience, nonce)", ErrPresentationPolicy)
	case p.maxAge < 0 || p.maxAge > MaxMaxAge:
		return fmt.Errorf("%w: maximum age %v outside [0, %v]", ErrPresentationPolicy, p.maxAge, MaxMaxAge)
	}
	return nil
}

// The checks VerifyPresentation adds to those of Verify: CheckPresentation
// before them, the key-binding checks after them, in this order.
const (
	CheckPresentation CheckName = "presentation"
	CheckKBJWS        CheckName = "kb_jws"
	CheckKBHeader     CheckName = "kb_header"
	CheckHolderKey    CheckName = "holder_key"
	CheckKBSignature  CheckName = "kb_signature"
	CheckKBPayload    CheckName = "kb_payload"
	CheckKBHash       CheckName = "kb_hash"
	CheckAudience     CheckName = "audience"
	CheckNonce        CheckName = "nonce"
	CheckKBTime       CheckName = "kb_time"
)

var keyBindingNames = [...]CheckName{
	CheckKBJWS, CheckKBHeader, CheckHolderKey, CheckKBSignature, CheckKBPayload, CheckKBHash, CheckAudience, CheckNonce, CheckKBTime,
}

// presentationNames are the checks of a presentation, in order.
var presentationNames = [1 + len(checkNames) + len(keyBindingNames)]CheckName(slices.Concat([]CheckName{CheckPresentation}, checkNames[:], keyBindingNames[:]))

// PresentationCheckNames returns the names of the checks VerifyPresentation
// reports, in order: CheckPresentation, those of CheckNames, then the
// key-binding checks.
func PresentationCheckNames() []CheckName {
	return append([]CheckName(nil), presentationNames[:]...)
}

// VerifyPresentation checks a presentation (SPEC.md §11.6): its shape, then
// every check Verify makes of the bundle it holds, under policy, then the
// key binding under pp: a signature by a holder key the passport names in
// cnf, over the passport's hash, pp's audience and nonce, and a time no
// older than pp's maximum age. The presentation is verified only when the
// bundle is and every key-binding check passed; the Result then also
// carries the holder key's thumbprint.
//
// It returns an error only when ctx is done, or before reading the
// presentation when pp or policy is invalid (ErrPresentationPolicy,
// ErrPolicy) or policy's status list was read by another Verifier
// (ErrStatusList).
func (v *Verifier) VerifyPresentation(ctx context.Context, presentation []byte, policy Policy, pp PresentationPolicy) (*Result, error) {
	if err := pp.validate(); err != nil {
		return nil, err
	}
	at, err := v.start(ctx, policy)
	if err != nil {
		return nil, err
	}
	bufs := v.buffers()
	defer v.release(bufs)
	r := &run{v: v, presented: presentation, presentationPolicy: pp, policy: policy, at: at, typ: passport.JWSType,
		lookup: v.trust.Lookup, parser: &bufs.bundle, bufs: bufs}
	alloc := new(struct {
		Result
		checks [len(presentationNames)]Check
	})
	res := &alloc.Result
	res.At, res.Checks = passport.NewTime(at).String(), alloc.checks[:0]
	bundle := r.bundleSteps()
	steps := slices.Concat([]func() *passport.Error{r.presentation}, bundle[:], []func() *passport.Error{
		r.kbJWS, r.kbHeader, r.holderKey, r.kbSignature, r.kbPayload, r.kbHash, r.audience, r.nonce, r.kbTime,
	})
	if r.execute(res, steps, presentationNames[:]) {
		r.verified(res)
		res.HolderKey = r.holder.KeyID()
	}
	return res, nil
}

// presentedPath is skillPassportsPath from a presentation's root.
var presentedPath = append([]string{"bundle"}, skillPassportsPath...)

// presentation checks the presentation's size, its JSON, which is the
// bundle's too, and its members, and points the bundle checks at the
// bundle it holds.
func (r *run) presentation() *passport.Error {
	if len(r.presented) > passport.MaxPresentationSize {
		return fail(passport.ReasonPresentationTooLarge, "%d bytes; the limit is %d", len(r.presented), passport.MaxPresentationSize)
	}
	doc, err := r.parser.Parse(r.presented, cjson.Options{Canonical: true, DeferNumbers: true,
		MaxDepth: passport.MaxPresentationDepth, IndexDepth: indexDepth + 1, IndexPath: presentedPath})
	if err != nil {
		return asError(passport.JSONError(err))
	}
	bundle, kb, _, err := passport.PresentationParts(doc.Root())
	if err != nil {
		return asError(err)
	}
	r.doc, r.top, r.src, r.kbText = doc, bundle, bundle.Raw(), kb
	r.detail = strconv.Itoa(len(r.presented)) + " bytes"
	return nil
}

func (r *run) kbJWS() *passport.Error {
	kb, err := passport.SplitKeyBinding(r.kbText)
	if err != nil {
		return asError(err)
	}
	r.kb = kb
	return nil
}

func (r *run) kbHeader() *passport.Error {
	key, err := r.kb.HolderKey()
	if err != nil {
		return asError(err)
	}
	r.holder = key
	r.detail = string(key.Algorithm())
	return nil
}

func (r *run) holderKey() *passport.Error {
	switch {
	case r.holderKeys == nil:
		return fail(passport.ReasonPassportNotBound, "the passport names no holder key (no cnf): it cannot be presented")
	case !slices.Contains(r.holderKeys.JKTs, r.holder.KeyID()):
		return fail(passport.ReasonKBKeyNotBound, "the key binding's key is not one the passport names in cnf")
	}
	r.detail = "jkt " + r.holder.KeyID()
	return nil
}

func (r *run) kbSignature() *passport.Error {
	return asErrorOrNil(r.kb.Verify(r.holder))
}

func (r *run) kbPayload() *passport.Error {
	c, err := r.kb.Claims()
	if err != nil {
		return asError(err)
	}
	r.kbClaims = c
	return nil
}

func (r *run) kbHash() *passport.Error {
	if r.kbClaims.PassportHash != r.hash {
		return fail(passport.ReasonKBHashMismatch, "the key binding names another passport than the bundle's")
	}
	return nil
}

func (r *run) audience() *passport.Error {
	if r.kbClaims.Audience != r.presentationPolicy.audience {
		return fail(passport.ReasonKBAudienceMismatch, "the presentation is made for another audience than the policy names")
	}
	r.detail = r.kbClaims.Audience
	return nil
}

func (r *run) nonce() *passport.Error {
	if r.kbClaims.Nonce != r.presentationPolicy.nonce {
		return fail(passport.ReasonKBNonceMismatch, "the presentation answers another nonce than the policy names")
	}
	return nil
}

func (r *run) kbTime() *passport.Error {
	skew, maxAge := r.v.skew, r.presentationPolicy.maxAge
	iat := time.Unix(r.kbClaims.IssuedAt, 0)
	switch {
	case iat.After(r.at.Add(skew)):
		return fail(passport.ReasonKBNotYetValid, "the key binding was made after the verification time (skew %v)", skew)
	case iat.Before(r.at.Add(-maxAge - skew)):
		return fail(passport.ReasonKBStale, "the key binding is older than %v (skew %v)", maxAge, skew)
	}
	r.detail = "made " + passport.NewTime(iat).String() + ", at most " + maxAge.String() + " old"
	return nil
}

// asErrorOrNil is asError for an error that may be nil.
func asErrorOrNil(err error) *passport.Error {
	if err == nil {
		return nil
	}
	return asError(err)
}
