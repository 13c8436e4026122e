package gen

import "strings"

// The cases below pin which reason of SPEC.md §5.7 a record gets when a
// member is missing, empty, named in another case or a day that is not
// one.
var refusals = []func() spec{
	parseMissingIDFail, parseMissingDateFail, parseEmptyIDFail, parseEmptyTypeFail, parseEmptyDateFail,
	parseNullOutcomeFail, parseImpossibleDateFail, parseMonth13DateFail, parsePredictionImpossibleDateFail,
	parsePredictionMissingProbabilityFail, parseMemberCaseFail, parseEmptyOverMissingFail,
}

func init() { all = append(all, refusals...) }

// okWith returns okRecord with old replaced by new, once.
func okWith(old, new string) string {
	if !strings.Contains(okRecord, old) {
		panic("gen: " + old + " is not in okRecord")
	}
	return `{"evidence":[` + strings.Replace(okRecord, old, new, 1) + `]}`
}

func parseMissingIDFail() spec {
	return spec{name: "parse_missing_id_fail", rule: "input.strict", desc: "A record without its required id breaks a rule of §5.2: invalid_record.",
		raw: okWith(`"id":"ev_1",`, ``), expect: exp{"error": "invalid_record"}}
}

func parseMissingDateFail() spec {
	return spec{name: "parse_missing_date_fail", rule: "input.strict", desc: "A record without its required date: invalid_record.",
		raw: okWith(`,"date":"2026-01-01"`, ``), expect: exp{"error": "invalid_record"}}
}

func parseEmptyIDFail() spec {
	return spec{name: "parse_empty_id_fail", rule: "input.strict", desc: "\"id\":\"\" is an empty member, which a record never writes: non_canonical_record.",
		raw: okWith(`"id":"ev_1"`, `"id":""`), expect: exp{"error": "non_canonical_record"}}
}

func parseEmptyTypeFail() spec {
	return spec{name: "parse_empty_type_fail", rule: "input.strict", desc: "\"type\":\"\" is an empty member: non_canonical_record.",
		raw: okWith(`"type":"outcome"`, `"type":""`), expect: exp{"error": "non_canonical_record"}}
}

func parseEmptyDateFail() spec {
	return spec{name: "parse_empty_date_fail", rule: "input.strict", desc: "\"date\":\"\" is an empty member: non_canonical_record.",
		raw: okWith(`"date":"2026-01-01"`, `"date":""`), expect: exp{"error": "non_canonical_record"}}
}

func parseNullOutcomeFail() spec {
	return spec{name: "parse_null_outcome_fail", rule: "input.strict", desc: "\"outcome\":null is a null member: non_canonical_record.",
		raw: okWith(`"outcome":"success"`, `"outcome":null`), expect: exp{"error": "non_canonical_record"}}
}

func parseImpossibleDateFail() spec {
	return spec{name: "parse_impossible_date_fail", rule: "input.strict", desc: "A date of 30 February is not a day: invalid_record.",
		raw: okWith(`"date":"2026-01-01"`, `"date":"2026-02-30"`), expect: exp{"error": "invalid_record"}}
}

func parseMonth13DateFail() spec {
	return spec{name: "parse_month_13_date_fail", rule: "input.strict", desc: "A date in month 13 is not a day: invalid_record.",
		raw: okWith(`"date":"2026-01-01"`, `"date":"2026-13-01"`), expect: exp{"error": "invalid_record"}}
}

func parsePredictionImpossibleDateFail() spec {
	return spec{name: "parse_prediction_impossible_date_fail", rule: "input.strict", desc: "A prediction dated 30 February: invalid_record, before the retrospective check.",
		raw: okWith(`"date":"2026-01-01"`, `"date":"2026-01-01","prediction":{"date":"2025-02-30","probability":0.5}`), expect: exp{"error": "invalid_record"}}
}

func parsePredictionMissingProbabilityFail() spec {
	return spec{name: "parse_prediction_missing_probability_fail", rule: "input.strict", desc: "A prediction without its probability: invalid_record.",
		raw: okWith(`"date":"2026-01-01"`, `"date":"2026-01-01","prediction":{"date":"2025-12-01"}`), expect: exp{"error": "invalid_record"}}
}

func parseMemberCaseFail() spec {
	return spec{name: "parse_member_case_fail", rule: "input.strict", desc: "\"ID\" is not the member \"id\": an unknown member, malformed_record.",
		raw: okWith(`"id":"ev_1"`, `"ID":"ev_1"`), expect: exp{"error": "malformed_record"}}
}

func parseEmptyOverMissingFail() spec {
	return spec{name: "parse_empty_over_missing_fail", rule: "input.strict", desc: "A record without id and with \"context\":{}: the empty member (non_canonical_record) is checked before the missing one (invalid_record).",
		raw: okWith(`"id":"ev_1",`, `"context":{},`), expect: exp{"error": "non_canonical_record"}}
}
