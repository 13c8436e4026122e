package verifier

import (
	"errors"
	"strconv"
	"time"

	"github.com/remnant/passportkit/passport"
	"github.com/remnant/passportkit/statuslist"
)

// MaxStatusListSize bounds a status list token before it is parsed:
// 1 MiB (SPEC.md §12).
const MaxStatusListSize = 1 << 20

// StatusList is a status list token as a Verifier read it: verified once,
// against the Verifier's trust file, and then consulted by the status
// check of every verification whose Policy names it (Policy.WithStatusList).
// A token that does not verify is kept with its reason, which each such
// status check reports as passport.ReasonStatusListInvalid. It is safe for
// concurrent use.
type StatusList struct {
	v   *Verifier
	err *passport.Error // why the token does not verify; nil when it does

	sub      string
	iat, exp time.Time
	ttl      time.Duration
	list     *statuslist.List
}

// ReadStatusList verifies a status list token, the compact JWS an issuer
// serves at its list's URI, as SPEC.md §11.2 step 20 says: at most
// MaxStatusListSize bytes; the JWS profile of §8 with typ statuslist+jwt
// and a key of v's trust file; a payload of §19.3 naming the trust file's
// issuer and issued within the key's window; and an lst that decodes
// (§19.2). What does not hold is reported by Err and by the status check
// of each verification that uses the list; the checks that depend on the
// passport or the verification time are left to those.
func (v *Verifier) ReadStatusList(token []byte) *StatusList {
	l := &StatusList{v: v}
	if err := l.read(token); err != nil {
		l.err = err
	}
	return l
}

// UnobtainedStatusList returns a status list that could not be obtained
// (a failed fetch, say), for the Policy of a caller that was to supply
// one: the status check of each verification that uses it reports
// passport.ReasonStatusListInvalid with err's text as its detail, as for
// a token that does not verify.
func (v *Verifier) UnobtainedStatusList(err error) *StatusList {
	return &StatusList{v: v, err: fail(passport.ReasonStatusListInvalid, "the status list could not be obtained: %v", err)}
}

// RefreshAt returns when a reader should fetch the list again: its iat
// plus its ttl. It is the zero time for a token that did not verify.
func (l *StatusList) RefreshAt() time.Time {
	if l.err != nil {
		return time.Time{}
	}
	return l.iat.Add(l.ttl)
}

// Err returns nil when the token verified, else a *passport.Error whose
// detail says why; its Reason is passport.ReasonStatusListInvalid.
func (l *StatusList) Err() error {
	if l.err == nil {
		return nil
	}
	return l.err
}

func (l *StatusList) read(token []byte) *passport.Error {
	if len(token) > MaxStatusListSize {
		return fail(passport.ReasonStatusListInvalid, "the token is %d bytes; the limit is %d", len(token), MaxStatusListSize)
	}
	payload, kid, err := l.v.VerifyJWS(token, statuslist.Typ)
	if err != nil {
		pe := asError(err)
		return fail(passport.ReasonStatusListInvalid, "%s: %s", pe.Reason, pe.Detail)
	}
	p, err := statuslist.ParsePayload(payload)
	if err != nil {
		return fail(passport.ReasonStatusListInvalid, "%v", err)
	}
	if p.Iss != l.v.trust.Issuer {
		return fail(passport.ReasonStatusListInvalid, "the list names another issuer than the trust file")
	}
	iat := time.Unix(p.Iat, 0).UTC()
	if key, _ := l.v.trust.Lookup(kid); !key.ValidAt(iat) {
		return fail(passport.ReasonStatusListInvalid, "the list was issued outside the signing key's validity window")
	}
	list, err := statuslist.Decode(p.StatusList.Bits, p.StatusList.Lst, statuslist.MaxBytes)
	if err != nil {
		return fail(passport.ReasonStatusListInvalid, "%v", err)
	}
	l.sub, l.iat, l.exp, l.ttl, l.list = p.Sub, iat, time.Unix(p.Exp, 0).UTC(), time.Duration(p.TTL)*time.Second, list
	return nil
}

// ErrStatusList is returned by Verify for a Policy whose status list was
// read by another Verifier: a list is verified against one trust file.
var ErrStatusList = errors.New("verifier: the policy's status list was read by another Verifier")

// WithStatusList returns a copy of p whose status check consults list. A
// nil list is the default: the status check of a passport that names a
// list then reports passport.ReasonNotChecked.
func (p Policy) WithStatusList(list *StatusList) Policy {
	p.statusList = list
	return p
}

// status checks the passport's entry in its status list (SPEC.md §11.2
// step 20).
func (r *run) status() *passport.Error {
	ref := r.statusRef
	l := r.policy.statusList
	switch {
	case ref == nil:
		r.skipped, r.detail = passport.ReasonNotRequired, "the passport names no status list"
		return nil
	case l == nil:
		r.skipped, r.detail = passport.ReasonNotChecked, "the passport names a status list and none was supplied"
		return nil
	case l.err != nil:
		return l.err
	case l.sub != ref.StatusList.URI:
		return fail(passport.ReasonStatusListMismatch, "the status list is another list than the one the passport names")
	}
	idx := ref.StatusList.Idx
	if n := l.list.Len(); idx >= n {
		return fail(passport.ReasonStatusListInvalid, "index %d is beyond the list's %d entries", idx, n)
	}
	skew := r.v.skew
	switch {
	case l.iat.After(r.at.Add(skew)):
		return fail(passport.ReasonStatusStale, "the list was issued after the verification time (skew %v)", skew)
	case r.at.After(l.exp.Add(skew)):
		return fail(passport.ReasonStatusStale, "the list expired before the verification time (skew %v)", skew)
	case r.at.After(l.iat.Add(l.ttl + skew)):
		return fail(passport.ReasonStatusStale, "the list outlived its ttl of %v before the verification time (skew %v)", l.ttl, skew)
	}
	value, _ := l.list.Get(idx) // in range: checked above
	switch value {
	case statuslist.Valid:
		r.detail = "valid at index " + strconv.Itoa(idx) + " of a list issued " + passport.NewTime(l.iat).String()
		return nil
	case statuslist.Invalid:
		return fail(passport.ReasonRevoked, "the list says the passport is revoked")
	case statuslist.Suspended:
		return fail(passport.ReasonSuspended, "the list says the passport is suspended")
	}
	return fail(passport.ReasonStatusUnknown, "the list holds the value %d, which has no meaning here", value)
}
