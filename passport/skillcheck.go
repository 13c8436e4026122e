package passport

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"

	"github.com/remnant/passportkit/internal/cjson"
)

// CheckSkillPassportJSON checks one skill passport as it is signed: raw is
// its canonical JSON, a byte range of the canonical passport. It checks the
// members of SPEC.md §4.1 that this package knows (types, vocabulary, zero
// values left out, objects written whole) and that assessmentHash is the
// SHA-256 of exactly these bytes without the assessmentHash member (§4.14):
// the hash is computed over what is signed, never over a re-encoding.
// Members it does not know (a later minor version's) are accepted and
// hashed. A refusal is an *Error with ReasonFieldMissing or
// ReasonFieldInvalid.
func CheckSkillPassportJSON(raw []byte) error {
	doc, err := cjson.Parse(raw, cjson.Options{Canonical: true})
	if err != nil {
		return errorf(ReasonFieldInvalid, "a skill passport is not canonical JSON: %v", err)
	}
	return CheckIndexedSkillPassport(doc.Root())
}

// CheckIndexedSkillPassport is CheckSkillPassportJSON for a skill passport
// already parsed as part of a larger canonical document, such as a bundle:
// v must be indexed whole (cjson.Options.IndexPath names the array that
// holds it), so that the check reads the parser's index and hashes a
// byte range of the input, and never parses the skill passport again.
func CheckIndexedSkillPassport(v cjson.Value) error {
	if v.Kind() != cjson.Object {
		return errorf(ReasonFieldInvalid, "a skill passport is a JSON object")
	}
	var c skillCheck
	var hashKey, hash cjson.Value
	for k, m := range v.Members() {
		name, _ := k.RawText()
		if string(name) == "assessmentHash" {
			hashKey, hash = k, m
			continue
		}
		if err := c.member(name, m); err != nil {
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
	if !ok {
		return errorf(ReasonFieldInvalid, "assessmentHash must be 64 lower-case hex digits")
	}
	// A match is 64 lower-case hex digits; only a mismatch needs the
	// form checked, to say which rule it breaks.
	if got := hashWithout(v, hashKey, hash); string(got[:]) != string(want) {
		if !isHexHash(want) {
			return errorf(ReasonFieldInvalid, "assessmentHash must be 64 lower-case hex digits")
		}
		return errorf(ReasonFieldInvalid, "assessmentHash does not match the skill passport")
	}
	return nil
}

// hashWithout returns the lower-case hex SHA-256 of the canonical object
// obj without its member named by key, whose value is val. Canonical form
// is compositional, so removing the member and one adjacent comma leaves
// the canonical form of the smaller object.
func hashWithout(obj, key, val cjson.Value) [2 * sha256.Size]byte {
	raw, base := obj.Raw(), obj.Offset()
	start := key.Offset() - base
	end := val.Offset() - base + len(val.Raw())
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

// skillCheck accumulates what the members of one skill passport say.
type skillCheck struct {
	seen      [6]bool // skill, state, contested, stale, assessment, evidenceLevel
	contested bool    // the contested flag
	labelled  bool    // the assessment is AssessmentContested
}

var requiredSkillMembers = [...]string{"skill", "state", "contested", "stale", "assessment", "evidenceLevel"}

func (c *skillCheck) complete() error {
	for i, ok := range c.seen {
		if !ok {
			return errorf(ReasonFieldMissing, "%s is missing", requiredSkillMembers[i])
		}
	}
	if c.contested != c.labelled {
		return errorf(ReasonFieldInvalid, "the contested flag and the assessment disagree")
	}
	return nil
}

// The members of the objects a skill passport writes whole, each list in
// canonical (sorted) order.
var (
	estimateMembers     = []string{"lower", "midpoint", "upper"}
	effectiveMembers    = []string{"binary", "contexts", "contradictions", "corroborations", "failures", "observations", "operators", "partial", "successes", "uncertain", "validators"}
	independenceMembers = []string{"builder", "dataset", "framework", "host", "modelFamily", "operator", "project"}
	coverageMembers     = []string{"contexts", "lineages", "observations", "positions"}
)

// member checks one member of a skill passport, named by the raw text of
// its name. Members after evidenceLevel hold a non-zero value (SPEC.md
// §4.1).
func (c *skillCheck) member(name []byte, v cjson.Value) error {
	bad := func(format string, a ...any) error { return errorf(ReasonFieldInvalid, string(name)+": "+format, a...) }
	zero := func() error { return bad("written with its zero value; it must be omitted") }
	word := func(known func(string) bool) error {
		if s, ok := v.RawText(); !ok || !known(string(s)) {
			return bad("not a known value")
		}
		return nil
	}
	switch string(name) {
	case "skill":
		c.seen[0] = true
		if s, ok := v.RawText(); !ok || len(s) == 0 {
			return bad("must be a non-empty string")
		}
	case "state":
		c.seen[1] = true
		return word(knownState)
	case "contested", "stale":
		b, ok := v.Bool()
		if !ok {
			return bad("must be a boolean")
		}
		if string(name) == "contested" {
			c.seen[2], c.contested = true, b
		} else {
			c.seen[3] = true
		}
	case "assessment":
		c.seen[4] = true
		if err := word(knownAssessment); err != nil {
			return err
		}
		s, _ := v.RawText()
		c.labelled = string(s) == string(AssessmentContested)
	case "evidenceLevel":
		c.seen[5] = true
		return word(knownLevel)
	case "visibility":
		return word(knownVisibility)
	case "calibration":
		return word(knownCalibration)
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
		return object("estimate", v, estimateMembers, false, false)
	case "effective":
		return object("effective", v, effectiveMembers, false, true)
	case "independence":
		return object("independence", v, independenceMembers, true, false)
	case "coverage":
		return object("coverage", v, coverageMembers, true, true)
	case "recency":
		if v.Kind() != cjson.Object {
			return bad("must be an object of latestEligible and ageDays")
		}
		var latest, age cjson.Value
		for k, m := range v.Members() {
			switch n, _ := k.RawText(); string(n) {
			case "latestEligible":
				latest = m
			case "ageDays":
				age = m
			}
		}
		if s, ok := latest.RawText(); !ok || len(s) != len("2006-01-02") {
			return bad("latestEligible must be a day")
		}
		if n, ok := age.Int(); !ok || n < 0 {
			return bad("ageDays must be a non-negative integer")
		}
	case "limitations", "policies":
		if v.Kind() != cjson.Array {
			return bad("must be an array of strings")
		}
		n := 0
		for e := range v.Elements() {
			if e.Kind() != cjson.String {
				return bad("must be an array of strings")
			}
			n++
		}
		if n == 0 {
			return zero()
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
			if err := checkPreview(e); err != nil {
				return bad("[%d]: %s", i, err.(*Error).Detail)
			}
			i++
		}
	}
	return nil
}

// object checks that v, the member name, is an object with every numeric
// member of names (integers when ints), refusing an all-zero object when
// omittable. Other members, of a later minor version, are accepted. The
// first of names, in order, that is missing or mistyped is the one
// reported.
func object(name string, v cjson.Value, names []string, ints, omittable bool) error {
	bad := func(format string, a ...any) error { return errorf(ReasonFieldInvalid, format, a...) }
	if v.Kind() != cjson.Object {
		return bad("%s must be an object", name)
	}
	allZero := true
	i := 0
	missing := func() error {
		return bad("%s.%s is missing: every member of %s is written, zeros included", name, names[i], name)
	}
	for k, m := range v.Members() {
		if i == len(names) {
			break
		}
		key, _ := k.RawText()
		if names[i] != string(key) {
			// Both run in canonical order: a name of names sorted before
			// key is not in the object. An escaped name is none of names,
			// and its raw text says nothing about the order.
			if names[i] < string(key) && plainName(key) {
				return missing()
			}
			continue
		}
		if m.Kind() != cjson.Number {
			return bad("%s.%s must be a number", name, names[i])
		}
		if ints {
			if n, ok := m.Int(); !ok || n < 0 {
				return bad("%s.%s must be a non-negative integer", name, names[i])
			}
		}
		if raw := m.Raw(); len(raw) != 1 || raw[0] != '0' {
			allZero = false
		}
		i++
	}
	if i < len(names) {
		return missing()
	}
	if omittable && allZero {
		return bad("%s is written with its zero value; it must be omitted", name)
	}
	return nil
}

// plainName reports whether a raw member name has no escape, so that it is
// its own decoded text. The object walks above compare such names with the
// ASCII names of the format: in byte order, which for an ASCII name agrees
// with the UTF-16 order canonical JSON sorts members by.
func plainName(raw []byte) bool { return bytes.IndexByte(raw, '\\') < 0 }

// previewMembers are the members every source preview writes, and their
// kinds, in canonical order; outcome, written on outcome records only,
// sorts between evidence and quality.
var previewMembers = [...]struct {
	name string
	kind cjson.Kind
}{
	{"applicability", cjson.Number}, {"contradiction", cjson.String}, {"date", cjson.String}, {"evidence", cjson.String},
	{"quality", cjson.String}, {"type", cjson.String}, {"weight", cjson.Number},
}

// checkPreview checks that a source preview is written whole: every member,
// and outcome exactly on outcome records (SPEC.md §4.1, §4.12).
func checkPreview(e cjson.Value) error {
	if e.Kind() != cjson.Object {
		return errorf(ReasonFieldInvalid, "a source preview is an object")
	}
	var typ, outcome cjson.Value
	i := 0
	for k, m := range e.Members() {
		key, _ := k.RawText()
		if string(key) == "outcome" {
			outcome = m
			continue
		}
		if i == len(previewMembers) {
			continue
		}
		want := &previewMembers[i]
		if want.name != string(key) {
			if want.name < string(key) && plainName(key) {
				return errorf(ReasonFieldInvalid, "%s is missing", want.name)
			}
			continue
		}
		if m.Kind() != want.kind {
			return errorf(ReasonFieldInvalid, "%s has the wrong type", want.name)
		}
		if want.name == "type" {
			typ = m
		}
		i++
	}
	if i < len(previewMembers) {
		return errorf(ReasonFieldInvalid, "%s is missing", previewMembers[i].name)
	}
	hasOutcome := outcome.Kind() != cjson.Invalid
	if hasOutcome != (string(typ.Raw()) == `"outcome"`) {
		return errorf(ReasonFieldInvalid, "outcome is written on outcome records and only there")
	}
	if hasOutcome && (outcome.Kind() != cjson.String || string(outcome.Raw()) == `""`) {
		return errorf(ReasonFieldInvalid, "outcome must be a non-empty string")
	}
	return nil
}

func isHexHash(s []byte) bool {
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
