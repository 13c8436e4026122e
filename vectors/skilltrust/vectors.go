// Package skilltrust holds the conformance vectors of the contextual trust
// model (contextual-trust-v2 with skills-1): one JSON file per case, each an
// evidence file, a task, an assessment date and the expected assessment.
// README.md in this folder specifies the format for implementations in other
// languages; [Check] is the reference comparison.
//
// The cases are written by a generator, one small function per case, with a
// fixed clock; run the package's tests with -update to rewrite them.
package skilltrust

import (
	"embed"
	"encoding/json"
	"fmt"
	"io/fs"
	"sort"
	"strings"

	"github.com/remnant/passportkit/vectors/internal/vectorcase"
)

//go:embed cases/*.json
var files embed.FS

// FS returns the case files, in the folder "cases".
func FS() fs.FS { return files }

// Tolerance is the absolute difference allowed between an expected and a
// computed number.
const Tolerance = vectorcase.Tolerance

// Case is one conformance vector.
type Case struct {
	// Name is the file name without ".json"; negative cases end in "_fail".
	Name string `json:"name"`
	// Rule names the rule of the model the case exercises.
	Rule string `json:"rule"`
	// Description says, in a sentence, what is checked.
	Description string `json:"description"`
	// At is the assessment date.
	At string `json:"at"`
	// Task is the skill and context to assess.
	Task struct {
		Skill   string            `json:"skill"`
		Context map[string]string `json:"context,omitempty"`
	} `json:"task"`
	// Evidence is the evidence file, verbatim.
	Evidence json.RawMessage `json:"evidence"`
	// Expect holds the expected results; see README.md.
	Expect map[string]any `json:"expect"`
}

// Fail reports whether the case expects the evidence or task to be refused.
func (c Case) Fail() bool { return vectorcase.Fail(c.Name) }

// Cases reads every case, sorted by name.
func Cases() ([]Case, error) {
	return vectorcase.Load(files, func(c *Case) string { return c.Name }, func(c *Case) map[string]any { return c.Expect })
}

// CheckError compares the reason code of a refused case with the expected
// one.
func CheckError(expect map[string]any, code string) error {
	return vectorcase.CheckError(expect, code)
}

// Check compares an assessment, as JSON, with a case's expectations and
// returns every difference found.
func Check(expect map[string]any, assessment []byte) error {
	var out map[string]any
	if err := json.Unmarshal(assessment, &out); err != nil {
		return fmt.Errorf("assessment: %w", err)
	}
	var problems []string
	bad := func(format string, a ...any) { problems = append(problems, fmt.Sprintf(format, a...)) }
	sources := map[string]map[string]any{}
	var order []any
	for _, s := range list(out["sources"]) {
		m := object(s)
		sources[str(m["id"])] = m
		order = append(order, m["id"])
	}
	perSource := func(key string, want any, field func(map[string]any) any) {
		for id, w := range object(want) {
			s, ok := sources[id]
			if !ok {
				bad("%s: no source %s", key, id)
				continue
			}
			if got := field(s); !equal(w, got) {
				bad("%s[%s]: got %v, want %v", key, id, got, w)
			}
		}
	}
	keys := make([]string, 0, len(expect))
	for k := range expect {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		want := expect[k]
		switch k {
		case "skill", "knownSkill", "state", "contested", "stale", "assessment", "evidenceLevel", "visibility":
			if got := out[k]; !equal(want, got) {
				bad("%s: got %v, want %v", k, got, want)
			}
		case "calibration":
			c := object(out["calibration"])
			for ck, cw := range object(want) {
				if got := c[ck]; !equal(cw, got) {
					bad("calibration.%s: got %v, want %v", ck, got, cw)
				}
			}
		case "estimate":
			if got := out["estimate"]; !equal(want, got) {
				bad("estimate: got %v, want %v", got, want)
			}
		case "effective", "counts":
			got := object(out[k])
			for ek, ew := range object(want) {
				if !equal(ew, got[ek]) {
					bad("%s.%s: got %v, want %v", k, ek, got[ek], ew)
				}
			}
		case "weights":
			perSource(k, want, func(s map[string]any) any { return s["weight"] })
		case "initialWeights":
			perSource(k, want, func(s map[string]any) any { return s["initialWeight"] })
		case "applicability", "eligibility", "role", "quality":
			field := map[string]string{"applicability": "applicability", "eligibility": "eligibility", "role": "role", "quality": "quality"}[k]
			perSource(k, want, func(s map[string]any) any { return s[field] })
		case "contextMatch":
			perSource(k, want, func(s map[string]any) any { return object(s["contextMatch"])["value"] })
		case "sourceIds":
			if !equal(want, order) {
				bad("sourceIds: got %v, want %v", order, want)
			}
		case "limitations":
			if got := out["limitations"]; !equal(want, got) {
				bad("limitations: got %v, want %v", got, want)
			}
		case "heldBackBy":
			var names []any
			for _, t := range list(out["heldBackBy"]) {
				names = append(names, object(t)["name"])
			}
			if !equal(want, names) {
				bad("heldBackBy: got %v, want %v", names, want)
			}
		case "contradictions":
			got := map[string]any{}
			for _, c := range list(out["contradictions"]) {
				got[str(object(c)["id"])] = object(c)["status"]
			}
			if !equal(want, got) {
				bad("contradictions: got %v, want %v", got, want)
			}
		case "contradictionIds", "correctionIds":
			var ids []any
			for _, c := range list(out[strings.TrimSuffix(k, "Ids")+"s"]) {
				ids = append(ids, object(c)["id"])
			}
			if !equal(want, ids) {
				bad("%s: got %v, want %v", k, ids, want)
			}
		case "skillPassport":
			// Checked by CheckSkillPassport.
		case "corrections":
			got := map[string]any{}
			for _, c := range list(out["corrections"]) {
				got[str(object(c)["id"])] = object(c)["after"]
			}
			if !equal(want, got) {
				bad("corrections: got %v, want %v", got, want)
			}
		case "groups":
			got := map[string]any{}
			for _, g := range list(out["groups"]) {
				m := object(g)
				got[str(m["kind"])+"/"+str(m["key"])] = m["factor"]
			}
			for gk, gw := range object(want) {
				if !equal(gw, got[gk]) {
					bad("groups[%s]: got factor %v, want %v", gk, got[gk], gw)
				}
			}
		default:
			bad("unknown expectation %q", k)
		}
	}
	if len(problems) > 0 {
		return fmt.Errorf("%s", strings.Join(problems, "; "))
	}
	return nil
}

// CheckSkillPassport compares a skill passport, as JSON in the form of the
// trust model version the package writes (2.1), with the members of a
// case's "skillPassport" expectation; a member expected as null must be
// absent. Cases without the expectation pass.
func CheckSkillPassport(expect map[string]any, skillPassport []byte) error {
	want, ok := expect["skillPassport"]
	if !ok {
		return nil
	}
	var got map[string]any
	if err := json.Unmarshal(skillPassport, &got); err != nil {
		return fmt.Errorf("skill passport: %w", err)
	}
	var problems []string
	for k, w := range object(want) {
		if !equal(w, got[k]) {
			problems = append(problems, fmt.Sprintf("skillPassport.%s: got %v, want %v", k, got[k], w))
		}
	}
	sort.Strings(problems)
	if len(problems) > 0 {
		return fmt.Errorf("%s", strings.Join(problems, "; "))
	}
	return nil
}

var (
	equal  = vectorcase.Equal
	object = vectorcase.Object
	list   = vectorcase.List
	str    = vectorcase.Str
)
