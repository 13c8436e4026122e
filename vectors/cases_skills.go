package vectors

import (
	"github.com/remnant/passportkit/passport"
)

// skillFails returns a negative case of the fields step: skill passport i
// of p (basePassport when nil) edited by edit and hashed again over the
// members it then has, so that only the rule edit breaks is at fault.
func skillFails(desc string, reason passport.Reason, p *passport.Passport, i int, edit func(m, sp map[string]any)) func(f *fixture) (Case, error) {
	return func(f *fixture) (Case, error) {
		base := p
		if base == nil {
			base = basePassport()
		}
		d := f.newDraft(nil, baseRecords())
		d.setBody(base, func(m map[string]any) {
			sp := skillOf(m, i)
			edit(m, sp)
			if _, ok := sp["assessmentHash"]; ok {
				rehashSkill(sp)
			}
		})
		return fails(desc, "fields", reason, d.bytes())
	}
}

// The form of a skill passport (SPEC.md §4.1, §4.14): members, versions,
// types and vocabulary, checked by the verifier at the fields step.
var skillGenerators = []generator{
	{"skill_v21_without_independence_fail", skillFails("a 2.1 skill passport without independence, which 2.1 never omits",
		passport.ReasonFieldInvalid, nil, 1, func(_, sp map[string]any) { delete(sp, "independence") })},
	{"skill_estimate_all_zero_fail", skillFails("an estimate whose three members are 0: an object whose members are all zero is not written",
		passport.ReasonFieldInvalid, nil, 1, func(_, sp map[string]any) {
			sp["estimate"] = map[string]any{"lower": 0, "midpoint": 0, "upper": 0}
		})},
	{"skill_v20_with_v21_member_fail", skillFails("a 2.0 skill passport carrying corrections, a member 2.1 added",
		passport.ReasonFieldInvalid, passportAs(baseEvidence(), "2.0"), 1, func(_, sp map[string]any) { sp["corrections"] = 1 })},
	{"skill_v20_with_v21_limitation_fail", skillFails("a 2.0 skill passport listing failed_reuse_limits_applicability, the limitation 2.1 added",
		passport.ReasonFieldInvalid, passportAs(baseEvidence(), "2.0"), 1, func(_, sp map[string]any) {
			sp["limitations"] = []any{"failed_reuse_limits_applicability"}
		})},
	{"skill_without_trust_model_v21_member_fail", skillFails("a passport without trustModelVersion is of the 2.0 form: its skill passport may not carry independence",
		passport.ReasonFieldInvalid, nil, 1, func(m, _ map[string]any) { delete(m, "trustModelVersion") })},
	{"skill_v21_unknown_member_fail", skillFails("a skill passport of a passport naming 2.1 with a member 2.1 does not define: only a later minor version may add members",
		passport.ReasonFieldInvalid, nil, 1, func(_, sp map[string]any) { sp["aLaterMember"] = 1 })},
	{"skill_v21_unknown_nested_member_fail", skillFails("coverage with a member 2.1 does not define, in a passport naming 2.1",
		passport.ReasonFieldInvalid, nil, 1, func(_, sp map[string]any) { sp["coverage"].(map[string]any)["extra"] = 1 })},
	{"skill_limitations_unsorted_fail", skillFails("limitations not in byte order",
		passport.ReasonFieldInvalid, nil, 0, func(_, sp map[string]any) {
			l := sp["limitations"].([]any)
			l[0], l[1] = l[1], l[0]
		})},
	{"skill_limitation_repeated_fail", skillFails("a limitation code listed twice",
		passport.ReasonFieldInvalid, nil, 0, func(_, sp map[string]any) {
			l := sp["limitations"].([]any)
			sp["limitations"] = append([]any{l[0]}, l...)
		})},
	{"skill_limitation_unknown_fail", skillFails("a limitation code §4.13 does not define, in a passport naming 2.1",
		passport.ReasonFieldInvalid, nil, 0, func(_, sp map[string]any) {
			sp["limitations"] = append(sp["limitations"].([]any), "zz_unknown")
		})},
	{"skill_policies_other_fail", skillFails("policies other than [\"contextual-trust-v2\",\"skills-1\"]",
		passport.ReasonFieldInvalid, nil, 1, func(_, sp map[string]any) { sp["policies"] = []any{"contextual-trust-v2", "skills-2"} })},
	{"skill_assessed_at_time_fail", skillFails("assessedAt written as a time: it is a day",
		passport.ReasonFieldInvalid, nil, 1, func(_, sp map[string]any) { sp["assessedAt"] = "2026-05-01T00:00:00Z" })},
	{"skill_assessed_at_impossible_fail", skillFails("assessedAt on 30 February",
		passport.ReasonFieldInvalid, nil, 1, func(_, sp map[string]any) { sp["assessedAt"] = "2026-02-30" })},
	{"skill_source_date_impossible_fail", skillFails("a source preview dated in month 13",
		passport.ReasonFieldInvalid, nil, 1, func(_, sp map[string]any) {
			sp["sources"].([]any)[0].(map[string]any)["date"] = "2026-13-01"
		})},
	{"skill_recency_impossible_fail", skillFails("recency.latestEligible on 30 February",
		passport.ReasonFieldInvalid, nil, 1, func(_, sp map[string]any) {
			sp["recency"].(map[string]any)["latestEligible"] = "2026-02-30"
		})},
	{"skill_source_unknown_type_fail", skillFails("a source preview whose type is not a record type",
		passport.ReasonFieldInvalid, nil, 1, func(_, sp map[string]any) {
			sp["sources"].([]any)[0].(map[string]any)["type"] = "rumour"
		})},
	{"skill_effective_fractional_count_fail", skillFails("effective.operators written as 1.5: a distinct count is an integer",
		passport.ReasonFieldInvalid, nil, 1, func(_, sp map[string]any) { sp["effective"].(map[string]any)["operators"] = 1.5 })},
	{"skill_missing_skill_fail", skillFails("a skill passport without skill",
		passport.ReasonFieldMissing, nil, 1, func(_, sp map[string]any) { delete(sp, "skill") })},
	{"skill_missing_state_fail", skillFails("a skill passport without state",
		passport.ReasonFieldMissing, nil, 1, func(_, sp map[string]any) { delete(sp, "state") })},
	{"skill_passports_unsorted_fail", skillFails("two skill passports out of byte order of skill",
		passport.ReasonFieldInvalid, nil, 0, func(m, _ map[string]any) {
			sps := m["skillPassports"].([]any)
			sps[0], sps[1] = sps[1], sps[0]
		})},
	{"skill_passports_repeated_fail", skillFails("two skill passports for one skill",
		passport.ReasonFieldInvalid, nil, 0, func(m, _ map[string]any) {
			sps := m["skillPassports"].([]any)
			m["skillPassports"] = []any{sps[0], sps[0], sps[1]}
		})},
	{"valid_recompute_later_minor_member", func(f *fixture) (Case, error) {
		d := f.newDraft(nil, baseRecords())
		d.disclose = allIndices(len(baseRecords()))
		d.setBody(basePassport(), func(m map[string]any) {
			m["trustModelVersion"] = "2.9"
			sp := skillOf(m, 0)
			sp["aLaterMember"] = 1
			rehashSkill(sp)
		})
		return passes("every leaf disclosed, and a skill passport of trust model 2.9 with a member unknown here: "+
			"it recomputes to match on the members known here, the assessmentHash (which covers the unknown member) excepted", d.bytes(), nil)
	}},
	{"valid_skill_without_trust_model", func(f *fixture) (Case, error) {
		p := passportAs(baseEvidence(), "2.0")
		d := f.newDraft(nil, baseRecords())
		d.setBody(p, func(m map[string]any) { delete(m, "trustModelVersion") })
		return passes("skill passports of the 2.0 form in a passport without trustModelVersion, which is read as 2.0", d.bytes(), nil)
	}},
}
