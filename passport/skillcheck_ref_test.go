package passport

// The skill passport check as first written, an oracle for
// FuzzSkillCheckOracle.

import (
	"crypto/sha256"
	"encoding/hex"

	"github.com/remnant/passportkit/internal/cjson"
)

// refCheckSkillPassportJSON is the check as first written, kept whole as
// an oracle: it parses the skill passport again and looks members up by
// name.
func refCheckSkillPassportJSON(raw []byte) error {
	doc, err := cjson.Parse(raw, cjson.Options{Canonical: true, IndexDepth: 3})
	if err != nil {
		return errorf(ReasonFieldInvalid, "a skill passport is not canonical JSON: %v", err)
	}
	root := doc.Root()
	if root.Kind() != cjson.Object {
		return errorf(ReasonFieldInvalid, "a skill passport is a JSON object")
	}
	var c refSkillCheck
	var hash cjson.Value
	for k, v := range root.Members() {
		name, _ := k.RawText()
		if string(name) == "assessmentHash" {
			hash = v
			continue
		}
		if err := c.member(string(name), v); err != nil {
			return err
		}
	}
	if err := c.complete(); err != nil {
		return err
	}
	if hash.Kind() == cjson.Invalid {
		return errorf(ReasonFieldMissing, "assessmentHash is missing")
	}
	want, ok := hash.RawText()
	if !ok || !refIsHexHash(want) {
		return errorf(ReasonFieldInvalid, "assessmentHash must be 64 lower-case hex digits")
	}
	if got := refHashWithout(root, hash); string(got[:]) != string(want) {
		return errorf(ReasonFieldInvalid, "assessmentHash does not match the skill passport")
	}
	return nil
}

// refHashWithout returns the lower-case hex SHA-256 of the canonical refObject obj without
// its member whose value is v. Canonical form is compositional, so removing
// the member and one adjacent comma leaves the canonical form of the
// smaller refObject.
func refHashWithout(obj, v cjson.Value) [2 * sha256.Size]byte {
	raw, base := obj.Raw(), obj.Offset()
	var start int
	for k, val := range obj.Members() {
		if val.Offset() == v.Offset() {
			start = k.Offset() - base
			break
		}
	}
	end := v.Offset() - base + len(v.Raw())
	switch {
	case raw[end] == ',':
		end++
	case raw[start-1] == ',':
		start--
	}
	h := sha256.New()
	h.Write(raw[:start])
	h.Write(raw[end:])
	var sum [sha256.Size]byte
	var out [2 * sha256.Size]byte
	hex.Encode(out[:], h.Sum(sum[:0]))
	return out
}

// refSkillCheck accumulates what the members of one skill passport say.
type refSkillCheck struct {
	seen       [6]bool // skill, state, contested, stale, assessment, evidenceLevel
	contested  bool
	assessment string
}

var refRequiredSkillMembers = [...]string{"skill", "state", "contested", "stale", "assessment", "evidenceLevel"}

func (c *refSkillCheck) complete() error {
	for i, ok := range c.seen {
		if !ok {
			return errorf(ReasonFieldMissing, "%s is missing", refRequiredSkillMembers[i])
		}
	}
	if c.contested != (c.assessment == string(AssessmentContested)) {
		return errorf(ReasonFieldInvalid, "the contested flag and the assessment disagree")
	}
	return nil
}

// member checks one member of a skill passport. Members after evidenceLevel
// hold a non-zero value (SPEC.md §4.1).
func (c *refSkillCheck) member(name string, v cjson.Value) error {
	bad := func(format string, a ...any) error { return errorf(ReasonFieldInvalid, name+": "+format, a...) }
	zero := func() error { return bad("written with its zero value; it must be omitted") }
	word := func(set func(string) bool) (string, error) {
		s, ok := v.RawText()
		if !ok || !set(string(s)) {
			return "", bad("not a known value")
		}
		return string(s), nil
	}
	switch name {
	case "skill":
		c.seen[0] = true
		if s, ok := v.RawText(); !ok || len(s) == 0 {
			return bad("must be a non-empty string")
		}
	case "state":
		c.seen[1] = true
		_, err := word(knownState)
		return err
	case "contested", "stale":
		b, ok := v.Bool()
		if !ok {
			return bad("must be a boolean")
		}
		if name == "contested" {
			c.seen[2], c.contested = true, b
		} else {
			c.seen[3] = true
		}
	case "assessment":
		c.seen[4] = true
		s, err := word(knownAssessment)
		c.assessment = s
		return err
	case "evidenceLevel":
		c.seen[5] = true
		_, err := word(knownLevel)
		return err
	case "visibility":
		_, err := word(knownVisibility)
		return err
	case "calibration":
		_, err := word(knownCalibration)
		return err
	case "assessedAt":
		if s, ok := v.RawText(); !ok || len(s) == 0 {
			return bad("must be a non-empty string")
		}
	case "corrections", "sourceCount":
		n, ok := v.Int()
		switch {
		case !ok || n < 0:
			return bad("must be a non-negative integer")
		case n == 0:
			return zero()
		}
	case "estimate":
		return refObject(name, v, []string{"lower", "midpoint", "upper"}, false, false)
	case "effective":
		return refObject(name, v, []string{"binary", "contexts", "contradictions", "corroborations", "failures",
			"observations", "operators", "partial", "successes", "uncertain", "validators"}, false, true)
	case "independence":
		return refObject(name, v, []string{"builder", "dataset", "framework", "host", "modelFamily", "operator", "project"}, true, false)
	case "coverage":
		return refObject(name, v, []string{"contexts", "lineages", "observations", "positions"}, true, true)
	case "recency":
		if v.Kind() != cjson.Object {
			return bad("must be an object of latestEligible and ageDays")
		}
		if s, ok := refMustGet(v, "latestEligible").RawText(); !ok || len(s) != len("2006-01-02") {
			return bad("latestEligible must be a day")
		}
		if n, ok := refMustGet(v, "ageDays").Int(); !ok || n < 0 {
			return bad("ageDays must be a non-negative integer")
		}
	case "limitations", "policies":
		if v.Kind() != cjson.Array {
			return bad("must be an array of strings")
		}
		if v.Len() == 0 {
			return zero()
		}
		for e := range v.Elements() {
			if e.Kind() != cjson.String {
				return bad("must be an array of strings")
			}
		}
	case "sources":
		if v.Kind() != cjson.Array {
			return bad("must be an array")
		}
		switch n := v.Len(); {
		case n == 0:
			return zero()
		case n > MaxSourcePreviews:
			return bad("%d source previews; at most %d", n, MaxSourcePreviews)
		}
		i := 0
		for e := range v.Elements() {
			if err := refCheckPreview(e); err != nil {
				return bad("[%d]: %s", i, err.(*Error).Detail)
			}
			i++
		}
	}
	return nil
}

// refObject checks that v, the member name, is an object with every numeric
// member of names (integers when ints), refusing an all-zero refObject when
// omittable. Other members, of a later minor version, are accepted.
func refObject(name string, v cjson.Value, names []string, ints, omittable bool) error {
	bad := func(format string, a ...any) error { return errorf(ReasonFieldInvalid, format, a...) }
	if v.Kind() != cjson.Object {
		return bad("%s must be an object", name)
	}
	allZero := true
	for _, n := range names {
		m, ok := v.Get(n)
		if !ok {
			return bad("%s.%s is missing: every member of %s is written, zeros included", name, n, name)
		}
		if m.Kind() != cjson.Number {
			return bad("%s.%s must be a number", name, n)
		}
		if ints {
			if i, ok := m.Int(); !ok || i < 0 {
				return bad("%s.%s must be a non-negative integer", name, n)
			}
		}
		if string(m.Raw()) != "0" {
			allZero = false
		}
	}
	if omittable && allZero {
		return bad("%s is written with its zero value; it must be omitted", name)
	}
	return nil
}

func refMustGet(v cjson.Value, name string) cjson.Value {
	m, _ := v.Get(name)
	return m
}

// refPreviewMembers are the members every source preview writes, and their
// kinds.
var refPreviewMembers = [...]struct {
	name string
	kind cjson.Kind
}{
	{"applicability", cjson.Number}, {"contradiction", cjson.String}, {"date", cjson.String}, {"evidence", cjson.String},
	{"quality", cjson.String}, {"type", cjson.String}, {"weight", cjson.Number},
}

// refCheckPreview checks that a source preview is written whole: every member,
// and outcome exactly on outcome records (SPEC.md §4.1, §4.12).
func refCheckPreview(e cjson.Value) error {
	if e.Kind() != cjson.Object {
		return errorf(ReasonFieldInvalid, "a source preview is an object")
	}
	for _, m := range refPreviewMembers {
		v, ok := e.Get(m.name)
		if !ok {
			return errorf(ReasonFieldInvalid, "%s is missing", m.name)
		}
		if v.Kind() != m.kind {
			return errorf(ReasonFieldInvalid, "%s has the wrong type", m.name)
		}
	}
	typ, _ := e.Get("type")
	o, hasOutcome := e.Get("outcome")
	if hasOutcome != (string(typ.Raw()) == `"outcome"`) {
		return errorf(ReasonFieldInvalid, "outcome is written on outcome records and only there")
	}
	if hasOutcome && (o.Kind() != cjson.String || string(o.Raw()) == `""`) {
		return errorf(ReasonFieldInvalid, "outcome must be a non-empty string")
	}
	return nil
}

func refIsHexHash(s []byte) bool {
	if len(s) != 64 {
		return false
	}
	for _, c := range s {
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return false
		}
	}
	return true
}
