package passport

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"

	"github.com/remnant/passportkit/internal/cjson"
)

// effectiveMembers are the members of a skill passport's effective object.
// SPEC.md §4.1: when effective is present, every one of them is written,
// zeros included.
var effectiveMembers = [...]string{
	"binary", "contexts", "contradictions", "corroborations", "failures", "observations",
	"operators", "partial", "successes", "uncertain", "validators",
}

// independenceMembers are the axes of a 2.1 skill passport's independence
// object, all written, zeros included.
var independenceMembers = [...]string{"builder", "dataset", "framework", "host", "modelFamily", "operator", "project"}

// CheckSkillPassportJSON checks one skill passport as it is signed: raw is
// its canonical JSON, a byte range of the canonical passport. It checks the
// members of SPEC.md §4.1 that a reader relies on (types, vocabulary, the
// complete effective object) and that assessmentHash is the SHA-256 of
// exactly these bytes without the assessmentHash member (§4.14): the hash
// is computed over what is signed, never over a re-encoding. Members it
// does not know (a later minor version's) are accepted and hashed. A
// refusal is an *Error with ReasonFieldMissing or ReasonFieldInvalid.
func CheckSkillPassportJSON(raw []byte) error {
	doc, err := cjson.Parse(raw, cjson.Options{Canonical: true, IndexDepth: 3})
	if err != nil {
		return errorf(ReasonFieldInvalid, "a skill passport is not canonical JSON: %v", err)
	}
	root := doc.Root()
	if root.Kind() != cjson.Object {
		return errorf(ReasonFieldInvalid, "a skill passport is a JSON object")
	}
	hashV, ok := root.Get("assessmentHash")
	if !ok {
		return errorf(ReasonFieldMissing, "assessmentHash is missing")
	}
	want, ok := hashV.Text()
	if !ok || !isHexHash(want) {
		return errorf(ReasonFieldInvalid, "assessmentHash must be 64 lower-case hex digits")
	}
	if eff, ok := root.Get("effective"); ok {
		if eff.Kind() != cjson.Object {
			return errorf(ReasonFieldInvalid, "effective must be an object")
		}
		for _, m := range effectiveMembers {
			v, ok := eff.Get(m)
			if !ok {
				return errorf(ReasonFieldInvalid, "effective.%s is missing: every member of effective is written, zeros included", m)
			}
			if v.Kind() != cjson.Number {
				return errorf(ReasonFieldInvalid, "effective.%s must be a number", m)
			}
		}
	}
	for _, o := range []struct {
		name    string
		members []string
	}{
		{"independence", independenceMembers[:]},
		{"recency", []string{"ageDays", "latestEligible"}},
		{"coverage", []string{"contexts", "lineages", "observations", "positions"}},
		{"estimate", []string{"lower", "midpoint", "upper"}},
	} {
		v, ok := root.Get(o.name)
		if !ok {
			continue
		}
		if v.Kind() != cjson.Object {
			return errorf(ReasonFieldInvalid, "%s must be an object", o.name)
		}
		for _, m := range o.members {
			if _, ok := v.Get(m); !ok {
				return errorf(ReasonFieldInvalid, "%s.%s is missing: every member of %s is written, zeros included", o.name, m, o.name)
			}
		}
	}
	if srcs, ok := root.Get("sources"); ok && srcs.Kind() == cjson.Array {
		i := 0
		for e := range srcs.Elements() {
			if err := checkPreview(e); err != nil {
				return errorf(ReasonFieldInvalid, "sources[%d]: %s", i, err.(*Error).Detail)
			}
			i++
		}
	}
	var sp SkillPassport
	if err := json.Unmarshal(raw, &sp); err != nil {
		return errorf(ReasonFieldInvalid, "a skill passport member has the wrong type")
	}
	sp.AssessmentHash = ""
	if err := sp.validate(); err != nil {
		return err
	}
	for _, m := range sp.zeroMembers() {
		if _, ok := root.Get(m); ok {
			return errorf(ReasonFieldInvalid, "%s is written with its zero value; it must be omitted", m)
		}
	}
	sum := sha256.Sum256(withoutMember(root, "assessmentHash"))
	if hex.EncodeToString(sum[:]) != want {
		return errorf(ReasonFieldInvalid, "assessmentHash does not match the skill passport")
	}
	return nil
}

// withoutMember returns the canonical bytes of object obj without its
// member name. Canonical form is compositional, so removing the member and
// one adjacent comma leaves the canonical form of the smaller object.
func withoutMember(obj cjson.Value, name string) []byte {
	raw := obj.Raw()
	base := obj.Offset()
	for k, v := range obj.Members() {
		if s, _ := k.Text(); s != name {
			continue
		}
		start, end := k.Offset()-base, v.Offset()-base+len(v.Raw())
		switch {
		case raw[end] == ',':
			end++
		case raw[start-1] == ',':
			start--
		}
		return bytes.Join([][]byte{raw[:start], raw[end:]}, nil)
	}
	return raw
}

func isHexHash(s string) bool {
	if len(s) != 64 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if !(s[i] >= '0' && s[i] <= '9' || s[i] >= 'a' && s[i] <= 'f') {
			return false
		}
	}
	return true
}

// zeroMembers names the optional members of sp (those after evidenceLevel)
// that hold their zero value and so must be absent (SPEC.md §4.1).
func (sp *SkillPassport) zeroMembers() []string {
	var out []string
	add := func(zero bool, name string) {
		if zero {
			out = append(out, name)
		}
	}
	add(sp.Visibility == "", "visibility")
	add(sp.Calibration == "", "calibration")
	add(sp.Estimate == nil, "estimate")
	add(sp.Effective == (SkillCounts{}), "effective")
	add(sp.Corrections == 0, "corrections")
	add(sp.Recency == nil, "recency")
	add(sp.Coverage == (SkillCoverage{}), "coverage")
	add(len(sp.Sources) == 0, "sources")
	add(sp.SourceCount == 0, "sourceCount")
	add(len(sp.Limitations) == 0, "limitations")
	add(len(sp.Policies) == 0, "policies")
	add(sp.AssessedAt == "", "assessedAt")
	return out
}

// previewMembers are the members every source preview writes.
var previewMembers = [...]string{"applicability", "contradiction", "date", "evidence", "quality", "type", "weight"}

// checkPreview checks that a source preview is written whole: every member,
// and outcome exactly on outcome records (SPEC.md §4.1, §4.12).
func checkPreview(e cjson.Value) error {
	if e.Kind() != cjson.Object {
		return errorf(ReasonFieldInvalid, "a source preview is an object")
	}
	for _, m := range previewMembers {
		if _, ok := e.Get(m); !ok {
			return errorf(ReasonFieldInvalid, "%s is missing", m)
		}
	}
	typ, _ := e.Get("type")
	_, hasOutcome := e.Get("outcome")
	if isOutcome := typ.Kind() == cjson.String && string(typ.Raw()) == `"outcome"`; hasOutcome != isOutcome {
		return errorf(ReasonFieldInvalid, "outcome is written on outcome records and only there")
	}
	if o, ok := e.Get("outcome"); ok && string(o.Raw()) == `""` {
		return errorf(ReasonFieldInvalid, "outcome is empty")
	}
	return nil
}
