package verifier

import (
	"bytes"
	"time"

	"github.com/remnant/passportkit/internal/cjson"
	"github.com/remnant/passportkit/passport"
)

// snapshotClaims are the JWT claims of a snapshot, found by the
// passport_hash check; a claim that is absent is the zero Value.
type snapshotClaims struct {
	exp, iat, iss, nbf, status, sub cjson.Value
}

// binding checks the members passportVersion 0.2 added, cnf then status,
// at the end of the fields check (SPEC.md §11.2 step 13). Both are small
// and lie below the bundle's index, so each is parsed again on its own.
func (r *run) binding() *passport.Error {
	m := &r.members
	if !r.hasClaims {
		if m.cnf.Kind() != cjson.Invalid || m.status.Kind() != cjson.Invalid {
			return fail(passport.ReasonFieldInvalid, "cnf and status need passportVersion 0.2 or later")
		}
		return nil
	}
	if m.cnf.Kind() != cjson.Invalid {
		c, err := r.confirmation(m.cnf.Raw())
		if err != nil {
			return err
		}
		r.holderKeys = c
	}
	if m.status.Kind() != cjson.Invalid {
		s, err := r.statusReference(m.status.Raw())
		if err != nil {
			return err
		}
		r.statusRef = s
	}
	return nil
}

// only returns the members of the object raw when they are exactly names,
// in order, else nil. raw is a value of the bundle, already checked.
func (r *run) only(raw []byte, names ...string) []cjson.Value {
	doc, err := r.bufs.headerParser.Parse(raw, cjson.Options{})
	if err != nil || doc.Root().Kind() != cjson.Object {
		return nil
	}
	vals := make([]cjson.Value, 0, len(names))
	for k, v := range doc.Root().Members() {
		if len(vals) == len(names) || string(name(k)) != names[len(vals)] {
			return nil
		}
		vals = append(vals, v)
	}
	if len(vals) != len(names) {
		return nil
	}
	return vals
}

func (r *run) confirmation(raw []byte) (*passport.Confirmation, *passport.Error) {
	m := r.only(raw, "jkts")
	if m == nil || m[0].Kind() != cjson.Array {
		return nil, fail(passport.ReasonFieldInvalid, "cnf must be an object holding exactly jkts, an array")
	}
	c := &passport.Confirmation{JKTs: []string{}}
	for e := range m[0].Elements() {
		s, ok := e.Text()
		if !ok {
			return nil, fail(passport.ReasonFieldInvalid, "cnf.jkts must hold strings")
		}
		c.JKTs = append(c.JKTs, s)
	}
	if err := c.Validate(); err != nil {
		return nil, asError(err)
	}
	return c, nil
}

func (r *run) statusReference(raw []byte) (*passport.StatusRef, *passport.Error) {
	m := r.only(raw, "status_list")
	if m == nil {
		return nil, fail(passport.ReasonFieldInvalid, "status must be an object holding exactly status_list")
	}
	list := r.only(m[0].Raw(), "idx", "uri")
	if list == nil {
		return nil, fail(passport.ReasonFieldInvalid, "status.status_list must be an object holding exactly idx and uri")
	}
	idx, ok := list[0].Int()
	if !ok {
		return nil, fail(passport.ReasonFieldInvalid, "status.status_list.idx must be an integer")
	}
	uri, ok := list[1].Text()
	if !ok {
		return nil, fail(passport.ReasonFieldInvalid, "status.status_list.uri must be a string")
	}
	s := &passport.StatusRef{StatusList: passport.StatusListRef{Idx: int(idx), URI: uri}}
	if err := s.Validate(); err != nil {
		return nil, asError(err)
	}
	return s, nil
}

// claims checks the JWT claims of the snapshot against the passport's own
// fields (SPEC.md §11.2 step 14): each of iss, sub, iat, nbf, exp and
// status in turn is present with its type (claims_malformed) and equal to
// the field it mirrors (claims_mismatch). A passport from before version
// 0.2 carries none, and the check is then not_required.
func (r *run) claims() *passport.Error {
	c := &r.claimed
	if !r.hasClaims {
		for _, v := range [...]cjson.Value{c.exp, c.iat, c.iss, c.nbf, c.status, c.sub} {
			if v.Kind() != cjson.Invalid {
				return fail(passport.ReasonClaimsMalformed, "the payload of a passport before version 0.2 carries no JWT claims")
			}
		}
		r.skipped, r.detail = passport.ReasonNotRequired, "passports before version 0.2 carry no JWT claims"
		return nil
	}
	if err := sameString(c.iss, "iss", r.members.issuer, "issuer"); err != nil {
		return err
	}
	if err := sameString(c.sub, "sub", r.members.subjectID, "subject.id"); err != nil {
		return err
	}
	for _, t := range [...]struct {
		v      cjson.Value
		claim  string
		at     time.Time
		member string
	}{{c.iat, "iat", r.issuedAt, "issuedAt"}, {c.nbf, "nbf", r.issuedAt, "issuedAt"}, {c.exp, "exp", r.expiresAt, "expiresAt"}} {
		if t.v.Kind() == cjson.Invalid {
			return fail(passport.ReasonClaimsMalformed, "claim %s is missing", t.claim)
		}
		n, ok := t.v.Int()
		if !ok {
			return fail(passport.ReasonClaimsMalformed, "claim %s must be an integer", t.claim)
		}
		if n != t.at.Unix() {
			return fail(passport.ReasonClaimsMismatch, "claim %s is not %s in Unix seconds", t.claim, t.member)
		}
	}
	r.detail = "iss, sub, iat, nbf and exp mirror the passport"
	switch {
	case r.statusRef == nil && c.status.Kind() != cjson.Invalid:
		return fail(passport.ReasonClaimsMismatch, "claim status is present but the passport has no status")
	case r.statusRef == nil:
	case c.status.Kind() == cjson.Invalid:
		return fail(passport.ReasonClaimsMalformed, "claim status is missing")
	case c.status.Kind() != cjson.Object:
		return fail(passport.ReasonClaimsMalformed, "claim status must be an object")
	case !bytes.Equal(c.status.Raw(), r.members.status.Raw()):
		return fail(passport.ReasonClaimsMismatch, "claim status is not the passport's status")
	default:
		r.detail = "iss, sub, iat, nbf, exp and status mirror the passport"
	}
	return nil
}

// sameString checks that the string claim v equals want, the passport's
// member, a string. Both are canonical JSON, which writes a string one way
// only, so their bytes are compared as they stand.
func sameString(v cjson.Value, claim string, want cjson.Value, member string) *passport.Error {
	if v.Kind() == cjson.Invalid {
		return fail(passport.ReasonClaimsMalformed, "claim %s is missing", claim)
	}
	if v.Kind() != cjson.String {
		return fail(passport.ReasonClaimsMalformed, "claim %s must be a string", claim)
	}
	if !bytes.Equal(v.Raw(), want.Raw()) {
		return fail(passport.ReasonClaimsMismatch, "claim %s is not the passport's %s", claim, member)
	}
	return nil
}
