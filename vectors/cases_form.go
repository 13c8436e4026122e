package vectors

import (
	"strings"

	"github.com/remnant/passportkit/passport"
)

// formGenerators pin which of two reasons SPEC.md gives where a reader of
// the text alone could hesitate.
var formGenerators = []generator{
	{"header_not_base64url_fail", func(f *fixture) (Case, error) {
		d := f.newDraft(nil, baseRecords())
		header, rest, _ := strings.Cut(d.compact(), ".")
		d.credential = []byte(`"+` + header[1:] + "." + rest + `"`)
		return fails("a protected header segment with a character outside base64url: the header step's jws_header_malformed, not the jws step's jws_malformed",
			"header", passport.ReasonJWSHeader, d.bytes())
	}},
	{"non_utf8_token_start_fail", func(f *fixture) (Case, error) {
		d := f.newDraft(nil, baseRecords())
		d.edit = func(b []byte) []byte { return replaceOnce(b, `"bundleVersion":"`, "\"bundleVersion\":\xff\"") }
		return fails("a byte that is not UTF-8 where a value must begin: a fault of the JSON grammar (json_malformed), not json_invalid_utf8, which is for bytes inside strings",
			"json", passport.ReasonJSONMalformed, d.bytes())
	}},
	{"time_domain_reputation_impossible_fail", func(f *fixture) (Case, error) {
		d := f.newDraft(nil, baseRecords())
		d.setBody(basePassport(), func(m map[string]any) {
			m["domainReputation"].([]any)[0].(map[string]any)["updatedAt"] = "2026-02-30T00:00:00Z"
		})
		return fails("domainReputation[0].updatedAt on 30 February: §1's time rule reaches every time a passport writes", "fields", passport.ReasonFieldInvalid, d.bytes())
	}},
}
