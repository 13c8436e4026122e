package passport

import (
	"crypto/sha256"
	"encoding/hex"
	"strconv"
	"strings"

	"github.com/remnant/passportkit/internal/calendar"
	"github.com/remnant/passportkit/internal/cjson"
)

// SkillForm is the form a skill passport is written in: that of the trust
// model version its passport names (SPEC.md §4.1). A 2.0 skill passport has
// none of the members 2.1 added; a skill passport of a later minor version
// than this package knows may carry members and limitation codes it does
// not know.
type SkillForm struct {
	minor int // the minor version of trust model 2 named; 0 when absent
}

// SkillFormOf returns the form of the skill passports of a passport whose
// trustModelVersion is version; "" (the member absent) is the form of 2.0.
// Another major version than TrustModelVersion's is refused, as
// CheckVersion refuses it.
func SkillFormOf(version string) (SkillForm, error) {
	if version == "" {
		return SkillForm{}, nil
	}
	if err := CheckVersion("trustModelVersion", version, TrustModelVersion); err != nil {
		return SkillForm{}, err
	}
	_, minor, _ := strings.Cut(version, ".")
	m, _ := strconv.Atoi(minor) // CheckVersion bounds it to nine digits
	return SkillForm{minor: m}, nil
}

// latestTrustModelMinor is the minor version of TrustModelVersion.
const latestTrustModelMinor = 1

// has21 reports whether the form has the members trust model 2.1 added.
func (f SkillForm) has21() bool { return f.minor >= 1 }

// Later reports whether the form is of a later minor version than this
// package knows: its unknown members are accepted, and a recomputation
// compares only the members this package knows (SPEC.md §4.15).
func (f SkillForm) Later() bool { return f.minor > latestTrustModelMinor }

// String returns the version the form is of.
func (f SkillForm) String() string { return "2." + strconv.Itoa(f.minor) }

// CheckSkillPassportJSON checks one skill passport as it is signed: raw is
// its canonical JSON, a byte range of the canonical passport, and form
// that of the passport's trustModelVersion. It checks the members of
// SPEC.md §4.1 (types, vocabulary, zero values left out, objects written
// whole, the members of form and no other) and that assessmentHash is the
// SHA-256 of exactly these bytes without the assessmentHash member (§4.14):
// the hash is computed over what is signed, never over a re-encoding.
// Members of a later minor version than this package knows are accepted
// and hashed. A refusal is an *Error with ReasonFieldMissing or
// ReasonFieldInvalid.
func CheckSkillPassportJSON(raw []byte, form SkillForm) error {
	doc, err := cjson.Parse(raw, cjson.Options{Canonical: true})
	if err != nil {
		return errorf(ReasonFieldInvalid, "a skill passport is not canonical JSON: %v", err)
	}
	return CheckIndexedSkillPassport(doc.Root(), form)
}

// CheckIndexedSkillPassport is CheckSkillPassportJSON for a skill passport
// already parsed as part of a larger canonical document, such as a bundle:
// v must be indexed whole (cjson.Options.IndexPath names the array that
// holds it), so that the check reads the parser's index and hashes a
// byte range of the input, and never parses the skill passport again.
func CheckIndexedSkillPassport(v cjson.Value, form SkillForm) error {
	if v.Kind() != cjson.Object {
		return errorf(ReasonFieldInvalid, "a skill passport is a JSON object")
	}
	c := skillCheck{form: form}
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

// CheckIndexedSkillPassports checks a passport's skillPassports array,
// indexed as CheckIndexedSkillPassport requires: each skill passport in
// order, and that they are one per skill, in byte order of skill (SPEC.md
// §4.16). A refusal's detail names the skill passport at fault.
func CheckIndexedSkillPassports(sps cjson.Value, form SkillForm) error {
	i := 0
	var prev string
	for e := range sps.Elements() {
		if err := CheckIndexedSkillPassport(e, form); err != nil {
			pe := err.(*Error)
			return errorf(pe.Reason, "skillPassports[%d]: %s", i, pe.Detail)
		}
		sv, _ := e.Get("skill")
		skill, _ := sv.Text()
		if i > 0 && skill <= prev {
			return errorf(ReasonFieldInvalid, "skillPassports[%d]: skill passports are written one per skill, in byte order of skill", i)
		}
		prev = skill
		i++
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
	form         SkillForm
	seen         [6]bool // skill, state, contested, stale, assessment, evidenceLevel
	independence bool    // independence is present
	contested    bool    // the contested flag
	labelled     bool    // the assessment is AssessmentContested
}

var requiredSkillMembers = [...]string{"skill", "state", "contested", "stale", "assessment", "evidenceLevel"}

// complete checks, once every member has been read, the members that must
// be present: the six required ones in order, then, from 2.1 on,
// independence; and that the contested flag agrees with the assessment.
func (c *skillCheck) complete() error {
	for i, ok := range c.seen {
		if !ok {
			return errorf(ReasonFieldMissing, "%s is missing", requiredSkillMembers[i])
		}
	}
	if c.form.has21() && !c.independence {
		return errorf(ReasonFieldInvalid, "independence is missing: a trust model %s skill passport always writes it", c.form)
	}
	if c.contested != c.labelled {
		return errorf(ReasonFieldInvalid, "the contested flag and the assessment disagree")
	}
	return nil
}

// numeric is a number member of an object a skill passport writes whole.
type numeric struct {
	name string
	kind numKind
}

// numKind is what a numeric member may hold.
type numKind int

const (
	numWeight numKind = iota // a non-negative number
	numCount                 // a non-negative integer
	numUnit                  // a number in [0, 1]
)

// The members of the objects a skill passport writes whole, each list in
// canonical (sorted) order.
var (
	estimateMembers  = []numeric{{"lower", numUnit}, {"midpoint", numUnit}, {"upper", numUnit}}
	effectiveMembers = []numeric{
		{"binary", numWeight}, {"contexts", numCount}, {"contradictions", numWeight}, {"corroborations", numWeight},
		{"failures", numWeight}, {"observations", numWeight}, {"operators", numCount}, {"partial", numWeight},
		{"successes", numWeight}, {"uncertain", numWeight}, {"validators", numCount},
	}
	independenceMembers = []numeric{
		{"builder", numCount}, {"dataset", numCount}, {"framework", numCount}, {"host", numCount},
		{"modelFamily", numCount}, {"operator", numCount}, {"project", numCount},
	}
	coverageMembers = []numeric{{"contexts", numCount}, {"lineages", numCount}, {"observations", numCount}, {"positions", numCount}}
)

// skillPoliciesJSON is the one policies member of a skill passport of
// trust model 2, in canonical form.
const skillPoliciesJSON = `["contextual-trust-v2","skills-1"]`

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
	case "independence", "corrections", "recency", "coverage":
		if !c.form.has21() {
			return bad("a member of trust model 2.1 in a skill passport of trust model %s", c.form)
		}
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
		if !isDay(v) {
			return bad("must be a day, YYYY-MM-DD")
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
		return c.object("estimate", v, estimateMembers, true)
	case "effective":
		return c.object("effective", v, effectiveMembers, true)
	case "independence":
		c.independence = true
		return c.object("independence", v, independenceMembers, false)
	case "coverage":
		return c.object("coverage", v, coverageMembers, true)
	case "recency":
		return c.recency(v)
	case "limitations":
		return c.limitations(v)
	case "policies":
		if string(v.Raw()) != skillPoliciesJSON {
			return bad("must be %s", skillPoliciesJSON)
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
			if err := c.preview(e); err != nil {
				return bad("[%d]: %s", i, err.(*Error).Detail)
			}
			i++
		}
	default:
		if !c.form.Later() {
			return bad("not a member of a trust model %s skill passport", c.form)
		}
	}
	return nil
}

// unknown refuses a member of an object of a skill passport that the
// form does not define, unless the form is of a later minor version.
func (c *skillCheck) unknown(object string, key []byte) error {
	if c.form.Later() {
		return nil
	}
	return errorf(ReasonFieldInvalid, "%s: %q is not a member of a trust model %s skill passport", object, key, c.form)
}

// object checks that v, the member name, is an object of exactly the
// numeric members of names (SPEC.md §4.1), refusing an all-zero object
// when omittable. Members are checked in document order, then the first
// of names missing is reported.
func (c *skillCheck) object(name string, v cjson.Value, names []numeric, omittable bool) error {
	bad := func(format string, a ...any) error { return errorf(ReasonFieldInvalid, name+format, a...) }
	if v.Kind() != cjson.Object {
		return bad(" must be an object")
	}
	allZero := true
	var seen [16]bool
	for k, m := range v.Members() {
		key, _ := k.RawText()
		i := indexOf(names, key)
		if i < 0 {
			if err := c.unknown(name, key); err != nil {
				return err
			}
			continue
		}
		seen[i] = true
		f, ok := number(m)
		switch names[i].kind {
		case numWeight:
			ok = ok && f >= 0
		case numUnit:
			ok = ok && f >= 0 && f <= 1
		case numCount:
			n, isInt := m.Int()
			ok = isInt && n >= 0
		}
		if !ok {
			return bad(".%s must be %s", names[i].name, names[i].kind)
		}
		if f != 0 {
			allZero = false
		}
	}
	for i, n := range names {
		if !seen[i] {
			return bad(".%s is missing: every member of %s is written, zeros included", n.name, name)
		}
	}
	if omittable && allZero {
		return bad(" is written with its zero value; it must be omitted")
	}
	return nil
}

func (k numKind) String() string {
	switch k {
	case numCount:
		return "a non-negative integer"
	case numUnit:
		return "a number from 0 to 1"
	}
	return "a non-negative number"
}

func indexOf(names []numeric, key []byte) int {
	for i, n := range names {
		if n.name == string(key) {
			return i
		}
	}
	return -1
}

// recency checks {"ageDays":N,"latestEligible":"YYYY-MM-DD"}.
func (c *skillCheck) recency(v cjson.Value) error {
	bad := func(detail string) error { return errorf(ReasonFieldInvalid, "recency%s", detail) }
	if v.Kind() != cjson.Object {
		return bad(" must be an object of latestEligible and ageDays")
	}
	var latest, age bool
	for k, m := range v.Members() {
		switch key, _ := k.RawText(); string(key) {
		case "latestEligible":
			if latest = true; !isDay(m) {
				return bad(".latestEligible must be a day, YYYY-MM-DD")
			}
		case "ageDays":
			if n, ok := m.Int(); !ok || n < 0 {
				return bad(".ageDays must be a non-negative integer")
			}
			age = true
		default:
			if err := c.unknown("recency", key); err != nil {
				return err
			}
		}
	}
	switch {
	case !age:
		return bad(".ageDays is missing")
	case !latest:
		return bad(".latestEligible is missing")
	}
	return nil
}

// limitations checks a non-empty array of limitation codes of the form,
// each once, in byte order (SPEC.md §4.13).
func (c *skillCheck) limitations(v cjson.Value) error {
	bad := func(format string, a ...any) error { return errorf(ReasonFieldInvalid, "limitations: "+format, a...) }
	if v.Kind() != cjson.Array {
		return bad("must be an array of strings")
	}
	var prev []byte
	i := 0
	for e := range v.Elements() {
		s, ok := e.RawText()
		if e.Kind() != cjson.String || !ok {
			return bad("must be an array of limitation codes")
		}
		if !KnownLimitation(string(s), c.form) && !c.form.Later() {
			return bad("[%d] is not a limitation code of trust model %s", i, c.form)
		}
		if i > 0 && string(s) <= string(prev) {
			return bad("[%d]: the codes are written once each, in byte order", i)
		}
		prev = s
		i++
	}
	if i == 0 {
		return bad("written with its zero value; it must be omitted")
	}
	return nil
}

// The limitation codes of SPEC.md §4.13; the last was added by trust model
// 2.1.
var limitationCodes = [...]string{
	"caps_applied", "context_mismatch", "context_missing", "declarations_carry_no_weight",
	"later_records_ignored", "non_binary_outcomes_not_estimated", "representations_merged",
	"self_reports_carry_no_weight", "shared_ownership_carries_no_weight", "truncated_collection",
	"unknown_ownership_discounted", "unknown_skill",
	"failed_reuse_limits_applicability",
}

// KnownLimitation reports whether code is a limitation code of form's
// trust model version (SPEC.md §4.13).
func KnownLimitation(code string, form SkillForm) bool {
	n := len(limitationCodes) - 1
	if form.has21() {
		n++
	}
	for _, k := range limitationCodes[:n] {
		if k == code {
			return true
		}
	}
	return false
}

// isDay reports whether v is a string holding a day of the calendar,
// YYYY-MM-DD (SPEC.md §1).
func isDay(v cjson.Value) bool {
	s, ok := v.RawText()
	if !ok || v.Kind() != cjson.String {
		return false
	}
	_, err := calendar.Parse(string(s))
	return err == nil
}

// The vocabularies of a source preview (SPEC.md §4.12, §5.2).
var (
	previewTypes = []string{"declaration", "publication", "outcome", "corroboration", "contradiction",
		"resolution", "revision", "deprecation", "withdrawal"}
	previewOutcomes  = []string{"success", "failure", "partial", "uncertain"}
	previewQualities = []string{"DECLARED", "SELF_REPORTED", "OBSERVED_REUSE", "INDEPENDENT_REPRODUCTION",
		"MACHINE_VERIFIED", "MULTI_INDEPENDENT_VERIFICATION"}
)

// preview checks that a source preview is written whole, with the types
// and vocabulary of SPEC.md §4.12: every member, outcome exactly on
// outcome records, contradiction "none" exactly off contradiction records.
// Members are checked in document order, then presence.
func (c *skillCheck) preview(e cjson.Value) error {
	bad := func(format string, a ...any) error { return errorf(ReasonFieldInvalid, format, a...) }
	if e.Kind() != cjson.Object {
		return bad("a source preview is an object")
	}
	word := func(m cjson.Value, vocab []string) bool {
		s, ok := m.RawText()
		return ok && m.Kind() == cjson.String && oneOf(string(s), vocab...)
	}
	unit := func(m cjson.Value) bool { f, ok := number(m); return ok && f >= 0 && f <= 1 }
	var typ, contradiction string
	var hasOutcome bool
	seen := map[string]bool{}
	for k, m := range e.Members() {
		key, _ := k.RawText()
		ok := true
		switch string(key) {
		case "applicability", "weight":
			ok = unit(m)
		case "contradiction":
			ok = word(m, []string{"unresolved", "resolved", "none"})
			s, _ := m.RawText()
			contradiction = string(s)
		case "date":
			ok = isDay(m)
		case "evidence":
			s, isText := m.RawText()
			ok = isText && m.Kind() == cjson.String && recordID(string(s))
		case "outcome":
			ok, hasOutcome = word(m, previewOutcomes), true
		case "quality":
			ok = word(m, previewQualities)
		case "type":
			ok = word(m, previewTypes)
			s, _ := m.RawText()
			typ = string(s)
		default:
			if err := c.unknown("source preview", key); err != nil {
				return err
			}
			continue
		}
		if !ok {
			return bad("%s is not of the type or vocabulary of a source preview", key)
		}
		seen[string(key)] = true
	}
	for _, name := range [...]string{"applicability", "contradiction", "date", "evidence", "quality", "type", "weight"} {
		if !seen[name] {
			return bad("%s is missing", name)
		}
	}
	if hasOutcome != (typ == "outcome") {
		return bad("outcome is written on outcome records and only there")
	}
	if (contradiction == "none") != (typ != "contradiction") {
		return bad("contradiction is unresolved or resolved on contradiction records, none on the others")
	}
	return nil
}

// recordID reports whether s is an evidence record id: "ev_" and 1 to 64
// of [A-Za-z0-9_-] (SPEC.md §5.2).
func recordID(s string) bool {
	rest, ok := strings.CutPrefix(s, "ev_")
	if !ok || rest == "" || len(rest) > 64 {
		return false
	}
	for i := range len(rest) {
		c := rest[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_' || c == '-') {
			return false
		}
	}
	return true
}

// number returns the value of a JSON number.
func number(v cjson.Value) (float64, bool) {
	if v.Kind() != cjson.Number {
		return 0, false
	}
	f, err := strconv.ParseFloat(string(v.Raw()), 64)
	return f, err == nil
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
