package verifier

import (
	"crypto/sha256"
	"encoding/hex"
	"time"

	"github.com/remnant/passportkit/evidence"
	"github.com/remnant/passportkit/internal/cjson"
	"github.com/remnant/passportkit/passport"
)

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
	evidenceRoot, evidenceCount, skillPassports, domainReputation            cjson.Value
	cnf, status                                                              cjson.Value
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
		case "domainReputation":
			m.domainReputation = val
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
		// Each skill passport in order, in the form of the passport's
		// trustModelVersion (which the version step has checked), its
		// hash over the signed bytes (SPEC.md §4.14), read from the
		// bundle's index. The payload's numbers were checked at step 9.
		var version string
		if tv := m.trustModelVersion; tv.Kind() != cjson.Invalid {
			version, _ = tv.Text()
		}
		form, ferr := passport.SkillFormOf(version)
		if ferr != nil {
			return asError(ferr)
		}
		if err := passport.CheckIndexedSkillPassports(sp, form); err != nil {
			return asError(err)
		}
	}
	if err := domainTimes(m.domainReputation); err != nil {
		return err
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

// domainTimes checks the one time a passport holds beyond issuedAt and
// expiresAt: each domainReputation entry's updatedAt, when present, is a
// time of SPEC.md §1, which reaches every time a passport writes. The
// entries are the deepest values of the bundle's index, so each entry's
// member is found in its bytes, already checked as canonical JSON, by
// memberRaw, without parsing them again.
func domainTimes(v cjson.Value) *passport.Error {
	if v.Kind() == cjson.Invalid {
		return nil
	}
	if v.Kind() != cjson.Array {
		return fail(passport.ReasonFieldInvalid, "domainReputation must be an array")
	}
	i := 0
	for e := range v.Elements() {
		if e.Kind() != cjson.Object {
			return fail(passport.ReasonFieldInvalid, "domainReputation[%d] must be an object", i)
		}
		if t, ok := memberRaw(e.Raw(), "updatedAt"); ok {
			// Canonical JSON escapes no character a time holds, so the
			// bytes between the quotes are the text.
			if len(t) < 2 || t[0] != '"' || t[len(t)-1] != '"' {
				return fail(passport.ReasonFieldInvalid, "domainReputation[%d].updatedAt must be a time of the form %s", i, passport.TimeLayout)
			}
			if _, perr := passport.ParseTimeBytes(t[1 : len(t)-1]); perr != nil {
				return fail(passport.ReasonFieldInvalid, "domainReputation[%d].updatedAt must be a time of the form %s", i, passport.TimeLayout)
			}
		}
		i++
	}
	return nil
}

// memberRaw returns the bytes of the value of obj's member name, where obj
// is an object in canonical JSON that has already been checked (a bundle's
// bytes, after its parse): no whitespace, and names escaped only where
// RFC 8785 requires, so a name without such characters is compared as
// bytes. It steps over the values of the other members, nested ones
// included, without indexing them.
func memberRaw(obj []byte, name string) ([]byte, bool) {
	i := 1 // after '{'
	for i < len(obj) && obj[i] == '"' {
		end := skipValue(obj, i)
		key := obj[i+1 : end-1]
		vstart := end + 1 // after ':'
		vend := skipValue(obj, vstart)
		if string(key) == name {
			return obj[vstart:vend], true
		}
		i = vend + 1 // after ',' or at '}'
	}
	return nil, false
}

// skipValue returns the position after the value that starts at i in
// checked canonical JSON.
func skipValue(b []byte, i int) int {
	switch b[i] {
	case '"':
		for j := i + 1; j < len(b); j++ {
			switch b[j] {
			case '\\':
				j++
			case '"':
				return j + 1
			}
		}
		return len(b)
	case '{', '[':
		depth := 0
		for j := i; j < len(b); j++ {
			switch b[j] {
			case '"':
				j = skipValue(b, j) - 1
			case '{', '[':
				depth++
			case '}', ']':
				if depth--; depth == 0 {
					return j + 1
				}
			}
		}
		return len(b)
	}
	j := i
	for j < len(b) && b[j] != ',' && b[j] != '}' && b[j] != ']' {
		j++
	}
	return j
}
