package issuer

import (
	"errors"
	"net/url"
	"strconv"
	"strings"
	"testing"

	"github.com/remnant/passportkit/evidence"
)

func TestParseFindAgentsQuery(t *testing.T) {
	q, err := ParseFindAgentsQuery("skill=++Postgres%20indexing+&workload=OLTP&version=17&limit=100&cursor=abc")
	want := FindAgentsQuery{Skill: "Postgres indexing", Context: evidence.Context{Workload: "OLTP", Version: "17"}, Limit: 100, Cursor: "abc"}
	if err != nil || q != want {
		t.Fatalf("%+v %v", q, err)
	}
	if q, err := ParseFindAgentsQuery(""); err != nil || q != (FindAgentsQuery{Limit: DefaultFindAgentsLimit}) {
		t.Fatalf("defaults: %+v %v", q, err)
	}
	for name, c := range map[string]struct {
		query string
		code  Code
	}{
		"limit 0":                   {"limit=0", CodeLimitOutOfRange},
		"limit 101":                 {"limit=101", CodeLimitOutOfRange},
		"limit of many digits":      {"limit=1000000000000", CodeLimitOutOfRange},
		"limit not a number":        {"limit=1e2", CodeInvalid},
		"limit negative":            {"limit=-1", CodeInvalid},
		"limit empty":               {"limit=", CodeInvalid},
		"unknown field":             {"skill=x&colour=red", CodeUnknownDimension},
		"unknown before repeated":   {"skill=x&skill=y&zzz=1", CodeUnknownDimension},
		"repeated":                  {"skill=x&skill=y", CodeInvalid},
		"repeated before limit":     {"limit=0&limit=0", CodeInvalid},
		"context without skill":     {"workload=oltp", CodeInvalid},
		"blank skill":               {"skill=%20%20", CodeInvalid},
		"blank label":               {"skill=x&domain=", CodeInvalid},
		"control character":         {"skill=a%00b", CodeInvalid},
		"long skill":                {"skill=" + strings.Repeat("a", 201), CodeInvalid},
		"long label":                {"skill=x&protocol=" + strings.Repeat("p", 201), CodeInvalid},
		"empty cursor":              {"skill=x&cursor=", CodeCursorInvalid},
		"long cursor":               {"cursor=" + strings.Repeat("c", MaxFindAgentsCursor+1), CodeCursorInvalid},
		"skill fault before limit":  {"skill=&limit=0", CodeInvalid},
		"limit fault before cursor": {"limit=0&cursor=", CodeLimitOutOfRange},
		"not percent-encoded":       {"skill=%zz", CodeInvalid},
		"decoding before unknown":   {"colour=red&skill=%zz", CodeInvalid},
		"semicolon":                 {"skill=x;limit=5", CodeInvalid},
		"over the query bound":      {"skill=x&cursor=" + strings.Repeat("c", MaxQuery), CodeInvalid},
	} {
		_, err := ParseFindAgentsQuery(c.query)
		if got := ErrorCode(err); got != c.code {
			t.Errorf("%s: %v (code %q), want %s", name, err, got, c.code)
		}
	}
}

func TestFindAgentsRequest(t *testing.T) {
	var r FindAgentsRequest
	if err := Decode([]byte(`{"skill":"MCP","workload":"batch","limit":5}`), 4096, &r); err != nil {
		t.Fatal(err)
	}
	q, err := r.Query()
	if err != nil || q.Skill != "MCP" || q.Context.Workload != "batch" || q.Limit != 5 {
		t.Fatalf("%+v %v", q, err)
	}
	// Unknown members are refused as the query string's unknown parameters
	// are, the first in byte order named, after the members' JSON types.
	for _, c := range []struct {
		args, query string
	}{
		{`{"skill":"MCP","colour":"red"}`, "skill=MCP&colour=red"},
		{`{"zeta":1,"skill":"x","limit":0,"beta":[{}],"Alpha":null}`, "zeta=1&skill=x&limit=0&beta=&Alpha="},
		{`{"Skill":"x"}`, "Skill=x"},
	} {
		var r FindAgentsRequest
		if err := Decode([]byte(c.args), 4096, &r); err != nil {
			t.Fatalf("%s: %v", c.args, err)
		}
		_, err := r.Query()
		_, want := ParseFindAgentsQuery(c.query)
		if ErrorCode(err) != CodeUnknownDimension || err.Error() != want.Error() {
			t.Errorf("%s: %v, the query string's %v", c.args, err, want)
		}
	}
	for args, code := range map[string]Code{
		`{"colour":"red","limit":"5"}`:   CodeJSONWrongType,
		`{"colour":"red","Colour":"x"}`:  CodeJSONDuplicateKey,
		`{"colour":"red","skill":"MCP"}`: CodeUnknownDimension,
	} {
		var r FindAgentsRequest
		err := Decode([]byte(args), 4096, &r)
		if err == nil {
			_, err = r.Query()
		}
		if ErrorCode(err) != code {
			t.Errorf("%s: %v, want %s", args, err, code)
		}
	}
}

// FuzzParseFindAgentsQuery checks that whatever parses is within the
// bounds, that every refusal is an *Error with a code of the query's
// vocabulary, and that a parsed query written back parses to itself.
func FuzzParseFindAgentsQuery(f *testing.F) {
	for _, s := range []string{
		"skill=PostgreSQL+indexing", "skill=pg&workload=oltp&version=16&limit=5&cursor=AAAA", "limit=100", "", "skill=%00",
		"skill=x&skill=y", "colour=red", "workload=x", "limit=999999999999", "skill=%E2%80%AEx", "cursor=", "skill=a&constraints=+b+",
	} {
		f.Add(s)
	}
	codes := map[Code]bool{CodeInvalid: true, CodeUnknownDimension: true, CodeLimitOutOfRange: true, CodeCursorInvalid: true}
	f.Fuzz(func(t *testing.T, raw string) {
		q, err := ParseFindAgentsQuery(raw)
		if err != nil {
			var e *Error
			if !errors.As(err, &e) || !codes[e.Code] {
				t.Fatalf("refusal %v (%T) outside the vocabulary", err, err)
			}
			return
		}
		if q.Limit < 1 || q.Limit > MaxFindAgentsLimit || len(q.Skill) > MaxClaimBytes || len(q.Cursor) > MaxFindAgentsCursor ||
			(q.Skill == "" && q.Context != (evidence.Context{})) || (q.Skill != "" && evidence.NormalizeLabel(q.Skill) == "") {
			t.Fatalf("out of bounds: %+v", q)
		}
		back := url.Values{"limit": {strconv.Itoa(q.Limit)}}
		if q.Skill != "" {
			back.Set("skill", q.Skill)
		}
		if q.Cursor != "" {
			back.Set("cursor", q.Cursor)
		}
		for i, l := range q.Context.Values() {
			if len(l) > MaxClaimBytes {
				t.Fatalf("label of %d bytes", len(l))
			}
			if l != "" {
				back.Set(evidence.Dimensions[i], l)
			}
		}
		again, err := ParseFindAgentsQuery(back.Encode())
		if err != nil || again != q {
			t.Fatalf("%+v written back parses to %+v, %v", q, again, err)
		}
	})
}
