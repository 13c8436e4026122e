package gen

import (
	e "github.com/remnant/passportkit/evidence"
)

// The cases below pin decisions SPEC.md writes down beyond trust model 2.0's
// first text (time, caps, order, case mapping, refusals) and the members
// trust model 2.1 adds to the skill passport.
var pinned = []func() spec{
	lineageLaterRecordDoesNotJoin, lineageIrrelevantRecordJoins, capToleranceTwentyTwentieths,
	contradictionsInDateOrder, correctionsInDateOrder,
	ontologyCaseSigma, ontologyCaseFinalSigmaDistinct, ontologyCaseDottedI,
	taskBlankContextLabelFail, parseEmptySkillFail, parseBlankContextLabelFail, parseEmptyContextLabelFail,
	parsePredictionBefore1970Fail,
	limitationFailedReuse, limitationFailedReuseOtherTier, skillPassportV21Members, skillPassportV21NoEvidence,
}

func init() { all = append(all, pinned...) }

func lineageLaterRecordDoesNotJoin() spec {
	return spec{name: "lineage_later_record_does_not_join", rule: "time.at",
		desc: "A publication dated after the assessment day, derived from two earlier memories, does not merge the reporter's earlier success and failure into one position.",
		records: []R{
			rec("ev_s", by("act_a", "op_a"), mem("mem_1"), domain("d1"), age(10)),
			rec("ev_f", by("act_a", "op_a"), failure(), mem("mem_2"), domain("d2"), age(5)),
			rec("ev_p", typ(e.TypePublication), lineage(e.Lineage{Memory: "mem_3", DerivedFrom: []string{"mem_1", "mem_2"}}), age(-1)),
		},
		expect: exp{"role": exp{"ev_s": "counted", "ev_f": "counted"}, "weights": exp{"ev_s": decay(10), "ev_f": decay(5)},
			"counts": exp{"positions": 2.0, "laterRecords": 1.0}, "sourceIds": []any{"ev_f", "ev_s"}}}
}

func lineageIrrelevantRecordJoins() spec {
	return spec{name: "lineage_irrelevant_record_joins", rule: "lineage.irrelevant",
		desc: "A record about an unrelated skill takes no part in the assessment but its lineage links still join clusters: the reporter keeps one, conservative, position.",
		records: []R{
			rec("ev_s", by("act_a", "op_a"), mem("mem_1"), age(10)),
			rec("ev_f", by("act_a", "op_a"), failure(), mem("mem_2"), age(5)),
			rec("ev_q", skill("SQLite"), lineage(e.Lineage{Memory: "mem_3", DerivedFrom: []string{"mem_1", "mem_2"}}), age(1)),
		},
		expect: exp{"role": exp{"ev_s": "merged", "ev_f": "counted"}, "weights": exp{"ev_s": 0.0, "ev_f": decay(5)},
			"counts": exp{"positions": 1.0}, "sourceIds": []any{"ev_f", "ev_s"}}}
}

func capToleranceTwentyTwentieths() spec {
	return spec{name: "cap_tolerance_twenty_twentieths", rule: "caps.tolerance",
		desc:    "Twenty unknown-ownership sibling reports of 0.05 each sum to 1.0000000000000002 in double arithmetic: within the 1e-9 tolerance of the unknown pool's cap of 1, so nothing is scaled and caps_applied is not set.",
		skill:   "PostgreSQL indexing",
		records: indep("u", 20, unknown(), skill("PostgreSQL replication")),
		expect: exp{"weights": exp{"ev_u1": 0.05, "ev_u20": 0.05}, "groups": exp{"unknown_operators/unknown": 1.0},
			"effective": exp{"observations": 1.0}, "limitations": []any{"unknown_ownership_discounted"}}}
}

func contradictionsInDateOrder() spec {
	return spec{name: "contradictions_in_date_order", rule: "order",
		desc: "Contradictions are listed latest first, then by id, not by id alone.",
		records: []R{
			contra("ev_c1", age(10)), contra("ev_c2", age(1)), contra("ev_c3", age(5)),
		},
		expect: exp{"contradictionIds": []any{"ev_c2", "ev_c3", "ev_c1"},
			"contradictions": exp{"ev_c1": "unresolved", "ev_c2": "unresolved", "ev_c3": "unresolved"}}}
}

func correctionsInDateOrder() spec {
	return spec{name: "corrections_in_date_order", rule: "contradictions.corrections",
		desc: "Corrections are listed latest first, then by id; each follows the earliest contrary record by another reporter in its lineage cluster dated on or before it (then the smallest id).",
		records: []R{
			rec("ev_f1", failure(), mem("mem_1"), age(20)),
			contra("ev_c", mem("mem_1"), age(10)),
			rec("ev_d1", typ(e.TypeRevision), mem("mem_1"), age(15)),
			rec("ev_v1", typ(e.TypeRevision), mem("mem_1"), age(5)),
			rec("ev_v2", typ(e.TypeDeprecation), mem("mem_1"), age(2)),
		},
		expect: exp{"correctionIds": []any{"ev_v2", "ev_v1", "ev_d1"},
			"corrections": exp{"ev_v2": "ev_f1", "ev_v1": "ev_f1", "ev_d1": "ev_f1"}}}
}

func ontologyCaseSigma() spec {
	return with(one("ontology_case_sigma", "ontology.case",
		"Lower-casing is the simple, context-free case mapping: a final capital sigma becomes σ, not ς.",
		"ΟΔΟΣ", "οδοσ", 1), "skill", "οδοσ")
}

func ontologyCaseFinalSigmaDistinct() spec {
	return spec{name: "ontology_case_final_sigma_distinct", rule: "ontology.case",
		desc:  "ς is its own lower case: a term written with ς is another unknown term than one with Σ, and does not apply.",
		skill: "ΟΔΟΣ", records: []R{rec("ev_1", skill("οδος"))},
		expect: exp{"skill": "οδοσ", "knownSkill": false, "sourceIds": []any{}, "assessment": "NEW"}}
}

func ontologyCaseDottedI() spec {
	return with(one("ontology_case_dotted_i", "ontology.case",
		"İ (U+0130) lower-cases to i by the simple mapping, not to i followed by U+0307: the term is the known skill.",
		"PostgreSQL İndexing", "PostgreSQL indexing", 1), "skill", "PostgreSQL indexing")
}

func taskBlankContextLabelFail() spec {
	return spec{name: "task_blank_context_label_fail", rule: "input.task", desc: "A task context label that is blank after normalisation is refused.",
		context: map[string]string{"workload": " \t "}, records: []R{rec("ev_1")}, expect: exp{"error": "invalid_task"}}
}

// rawRecord is one record of an evidence file written verbatim, with extra
// members spliced in before the date.
func rawRecord(skill, extra string) string {
	return `{"evidence":[{"id":"ev_1","type":"outcome","skill":"` + skill + `","outcome":"success","quality":"OBSERVED_REUSE","reporter":"act_1","operator":"op_1","ownership":"distinct",` + extra + `"date":"2026-01-01"}]}`
}

func parseEmptySkillFail() spec {
	return spec{name: "parse_empty_skill_fail", rule: "input.strict", desc: `"skill":"" is an invalid record: a skill is a non-blank term.`,
		raw: rawRecord("", ""), expect: exp{"error": "invalid_record"}}
}

func parseBlankContextLabelFail() spec {
	return spec{name: "parse_blank_context_label_fail", rule: "input.strict", desc: "A context label of white space only is an invalid record.",
		raw: rawRecord("PostgreSQL", `"context":{"domain":"  "},`), expect: exp{"error": "invalid_record"}}
}

func parseEmptyContextLabelFail() spec {
	return spec{name: "parse_empty_context_label_fail", rule: "input.strict", desc: "An empty context label is an empty member: the record does not re-encode to itself.",
		raw: rawRecord("PostgreSQL", `"context":{"domain":""},`), expect: exp{"error": "non_canonical_record"}}
}

func parsePredictionBefore1970Fail() spec {
	return spec{name: "parse_prediction_before_1970_fail", rule: "input.strict", desc: "A prediction dated before 1970-01-01 is an invalid record, like any date before it.",
		raw: rawRecord("PostgreSQL", `"prediction":{"date":"1969-12-31","probability":0.5},`), expect: exp{"error": "invalid_record"}}
}

func limitationFailedReuse() spec {
	return spec{name: "limitation_failed_reuse", rule: "limitations.failed_reuse",
		desc:    "An eligible failed reuse (an OBSERVED_REUSE failure) limits applicability (trust model 2.1); it is an outcome, not evidence of dishonesty.",
		records: []R{rec("ev_f", failure())},
		expect:  exp{"limitations": []any{"failed_reuse_limits_applicability"}, "effective": exp{"failures": 1.0}}}
}

func limitationFailedReuseOtherTier() spec {
	return spec{name: "limitation_failed_reuse_other_tier", rule: "limitations.failed_reuse",
		desc:    "A failure of another tier, or of zero eligibility, is no failed reuse.",
		records: []R{rec("ev_f", failure(), quality(e.QualityIndependentReproduction)), rec("ev_g", failure(), shared("op_s"))},
		expect:  exp{"limitations": []any{"shared_ownership_carries_no_weight"}}}
}

func skillPassportV21Members() spec {
	return spec{name: "skill_passport_v2_1_members", rule: "passport.v2_1",
		desc: "The trust model 2.1 members of the skill passport: independence axes (operators observed, the other axes zero), corrections, recency and coverage.",
		records: []R{
			rec("ev_1"), rec("ev_2", age(30)), rec("ev_f", failure(), mem("mem_x"), age(10)),
			rec("ev_v", typ(e.TypeRevision), mem("mem_x"), age(5)), rec("ev_u", unknown(), age(3)),
		},
		expect: exp{"skillPassport": exp{
			"independence": exp{"operator": 3.0, "builder": 0.0, "modelFamily": 0.0, "host": 0.0, "framework": 0.0, "project": 0.0, "dataset": 0.0},
			"corrections":  1.0,
			"recency":      exp{"latestEligible": "2026-01-01", "ageDays": 0.0},
			"coverage":     exp{"observations": 4.0, "positions": 4.0, "lineages": 4.0, "contexts": 1.0},
			"limitations":  []any{"failed_reuse_limits_applicability", "self_reports_carry_no_weight", "unknown_ownership_discounted"},
		}}}
}

func skillPassportV21NoEvidence() spec {
	return spec{name: "skill_passport_v2_1_no_evidence", rule: "passport.v2_1",
		desc:    "With only a declaration, independence is still written with every axis at zero; corrections, recency and coverage are absent.",
		records: []R{rec("ev_d", typ(e.TypeDeclaration))},
		expect: exp{"skillPassport": exp{
			"independence": exp{"operator": 0.0, "builder": 0.0, "modelFamily": 0.0, "host": 0.0, "framework": 0.0, "project": 0.0, "dataset": 0.0},
			"corrections":  nil, "recency": nil, "coverage": nil,
		}}}
}
