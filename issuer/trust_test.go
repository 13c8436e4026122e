package issuer_test

import (
	"net/url"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/remnant/passportkit/evidence"
	"github.com/remnant/passportkit/issuer"
	"github.com/remnant/passportkit/skilltrust"
)

const (
	agentA = "agt_aaaaaaaaaaaaaaaaaaaaaaaaaa"
	agentB = "agt_bbbbbbbbbbbbbbbbbbbbbbbbbb"
)

func TestParseTrustQuery(t *testing.T) {
	q, err := issuer.ParseTrustQuery(" Postgres indexing ", "workload=High-Write+Concurrency&version=17")
	if err != nil {
		t.Fatal(err)
	}
	want := evidence.Context{Workload: "High-Write Concurrency", Version: "17"}
	if q.Skill != "Postgres indexing" || q.Context != want {
		t.Fatalf("%+v", q)
	}
	for _, c := range []struct {
		skill, raw string
		code       issuer.Code
	}{
		{"x", "workload=a&Workload=b", issuer.CodeUnknownDimension},
		{"x", "limit=5", issuer.CodeUnknownDimension}, // the trust read takes no parameter
		{"x", "colour=red&workload=%zz", issuer.CodeUnknownDimension},
		{"x", "workload=%zz&colour=red", issuer.CodeInvalid}, // the first fault in order wins
		{"x", "workload=a&workload=b", issuer.CodeInvalid},
		{"x", "workload=a;version=b", issuer.CodeInvalid},
		{"x", "&&workload=a&&version=b&colour=", issuer.CodeUnknownDimension}, // empty fields are skipped
		{"x", "workload=" + strings.Repeat("a", 201), issuer.CodeInvalid},
		{"x", "workload=a%00b", issuer.CodeInvalid},
		{"x", "workload=%E2%80%8B", issuer.CodeInvalid}, // a zero-width space only
		{"x", "domain=", issuer.CodeInvalid},            // a blank label is refused, not read as absent
		{"x", "domain=+%09", issuer.CodeInvalid},
		{"x", strings.Repeat("a", issuer.MaxQuery+1), issuer.CodeInvalid},
		{"", "", issuer.CodeInvalid},
		{"  ", "", issuer.CodeInvalid},
		{strings.Repeat("é", 101), "", issuer.CodeInvalid},
		{"", "colour=red", issuer.CodeUnknownDimension}, // the query before the skill
	} {
		if _, err := issuer.ParseTrustQuery(c.skill, c.raw); issuer.ErrorCode(err) != c.code {
			t.Errorf("%q %q: %v, want %s", c.skill, truncated(c.raw), err, c.code)
		}
	}
}

func TestParseEvidenceQuery(t *testing.T) {
	q, err := issuer.ParseEvidenceQuery("SQLite", "")
	if err != nil || q.Limit != issuer.DefaultEvidenceLimit || q.Offset != 0 || q.Cursor != "" {
		t.Fatalf("defaults: %+v %v", q, err)
	}
	q, err = issuer.ParseEvidenceQuery("SQLite", "offset=1000&limit=1&protocol=postgres")
	if err != nil || q.Limit != 1 || q.Offset != issuer.MaxEvidenceOffset || q.Context.Protocol != "postgres" {
		t.Fatalf("%+v %v", q, err)
	}
	q, err = issuer.ParseEvidenceQuery("SQLite", "cursor=AbC-_9&limit=50")
	if err != nil || q.Cursor != "AbC-_9" || q.Limit != 50 {
		t.Fatalf("%+v %v", q, err)
	}
	for _, c := range []struct {
		raw  string
		code issuer.Code
	}{
		{"limit=0", issuer.CodeLimitOutOfRange},
		{"limit=51", issuer.CodeLimitOutOfRange},
		{"limit=", issuer.CodeLimitOutOfRange},
		{"limit=-1", issuer.CodeLimitOutOfRange},
		{"limit=+5", issuer.CodeLimitOutOfRange},
		{"limit=5.0", issuer.CodeLimitOutOfRange},
		{"limit=99999999999999999999", issuer.CodeLimitOutOfRange},
		{"offset=1001", issuer.CodeLimitOutOfRange},
		{"offset=-1", issuer.CodeLimitOutOfRange},
		{"cursor=", issuer.CodeCursorInvalid},
		{"cursor=a.b", issuer.CodeCursorInvalid},
		{"cursor=" + strings.Repeat("a", issuer.MaxCursor+1), issuer.CodeCursorInvalid},
		{"cursor=abc&offset=0", issuer.CodeInvalid},
		{"limit=5&limit=5", issuer.CodeInvalid},
		{"page=2", issuer.CodeUnknownDimension},
		{"limit=0&page=2", issuer.CodeLimitOutOfRange},
		{"page=2&limit=0", issuer.CodeUnknownDimension},
	} {
		if _, err := issuer.ParseEvidenceQuery("SQLite", c.raw); issuer.ErrorCode(err) != c.code {
			t.Errorf("%q: %v, want %s", truncated(c.raw), err, c.code)
		}
	}
}

// TestNewEvidenceQuery: a read given as arguments has the defaults,
// bounds and codes of the route's query, in one documented order.
func TestNewEvidenceQuery(t *testing.T) {
	n := func(v int) *int { return &v }
	s := func(v string) *string { return &v }
	ctx := &issuer.TaskContext{ContextRequest: issuer.ContextRequest{Workload: s(" OLTP ")}}
	q, err := issuer.NewEvidenceQuery(" SQLite ", ctx, nil, nil, nil)
	if err != nil || q.Skill != "SQLite" || q.Limit != issuer.DefaultEvidenceLimit || q.Offset != 0 || q.Cursor != "" ||
		q.Context != (evidence.Context{Workload: "OLTP"}) {
		t.Fatalf("defaults: %+v %v", q, err)
	}
	q, err = issuer.NewEvidenceQuery("SQLite", nil, n(1), n(issuer.MaxEvidenceOffset), nil)
	if err != nil || q.Limit != 1 || q.Offset != issuer.MaxEvidenceOffset {
		t.Fatalf("%+v %v", q, err)
	}
	q, err = issuer.NewEvidenceQuery("SQLite", nil, nil, nil, s("AbC-_9"))
	if err != nil || q.Cursor != "AbC-_9" {
		t.Fatalf("%+v %v", q, err)
	}
	blank := &issuer.TaskContext{ContextRequest: issuer.ContextRequest{Workload: s("\u200b")}}
	for _, c := range []struct {
		name          string
		skill         string
		ctx           *issuer.TaskContext
		limit, offset *int
		cursor        *string
		code          issuer.Code
	}{
		{"limit 0", "x", nil, n(0), nil, nil, issuer.CodeLimitOutOfRange},
		{"limit 51", "x", nil, n(51), nil, nil, issuer.CodeLimitOutOfRange},
		{"offset -1", "x", nil, nil, n(-1), nil, issuer.CodeLimitOutOfRange},
		{"offset 1001", "x", nil, nil, n(1001), nil, issuer.CodeLimitOutOfRange},
		{"cursor empty", "x", nil, nil, nil, s(""), issuer.CodeCursorInvalid},
		{"cursor padded", "x", nil, nil, nil, s("ab=="), issuer.CodeCursorInvalid},
		{"cursor too long", "x", nil, nil, nil, s(strings.Repeat("a", issuer.MaxCursor+1)), issuer.CodeCursorInvalid},
		{"offset 0 and cursor", "x", nil, nil, n(0), s("abc"), issuer.CodeInvalid},
		{"a blank label", "x", blank, nil, nil, nil, issuer.CodeInvalid},
		{"an empty label", "x", &issuer.TaskContext{ContextRequest: issuer.ContextRequest{Version: s("")}}, nil, nil, nil, issuer.CodeInvalid},
		{"no skill", "", nil, nil, nil, nil, issuer.CodeInvalid},
		// The first fault in order wins.
		{"limit before offset", "", nil, n(0), n(-1), nil, issuer.CodeLimitOutOfRange},
		{"offset before cursor", "", nil, nil, n(-1), s(""), issuer.CodeLimitOutOfRange},
		{"cursor before context", "", blank, nil, nil, s(""), issuer.CodeCursorInvalid},
		{"context before both", "", blank, nil, n(0), s("abc"), issuer.CodeInvalid},
		{"both before skill", "", nil, nil, n(0), s("abc"), issuer.CodeInvalid},
	} {
		if _, err := issuer.NewEvidenceQuery(c.skill, c.ctx, c.limit, c.offset, c.cursor); issuer.ErrorCode(err) != c.code {
			t.Errorf("%s: %v, want %s", c.name, err, c.code)
		}
	}
	if _, err := issuer.NewTrustQuery("", blank); err == nil || !strings.Contains(err.Error(), "context.workload") {
		t.Errorf("the context before the skill: %v", err)
	}
}

// FuzzTrustArguments: a read given as arguments (NewTrustQuery,
// NewEvidenceQuery) is the read its route's query string gives
// (ParseTrustQuery, ParseEvidenceQuery) when that string is written limit,
// offset, cursor, then the context in dimension order: the same query, or
// a refusal with the same code.
func FuzzTrustArguments(f *testing.F) {
	f.Add("PostgreSQL indexing", int64(10), int64(0), "", uint8(0b11001), "oltp", "17")
	f.Add("x", int64(0), int64(-1), "", uint8(0b00011), "", "")
	f.Add("", int64(51), int64(1001), "a=b", uint8(0b11111), "\u200b", "\x00")
	f.Add(" SQLite ", int64(50), int64(1000), "AbC-_9", uint8(0b00110), " High-Write Concurrency ", "a&b=c")
	f.Add("x", int64(5), int64(0), "abc", uint8(0b10100), strings.Repeat("x", 201), "é")
	f.Fuzz(func(t *testing.T, skill string, limit, offset int64, cursor string, given uint8, workload, version string) {
		for _, s := range []string{skill, cursor, workload, version} {
			if !utf8.ValidString(s) { // arguments are JSON text
				return
			}
		}
		var fields []string
		var lim, off *int
		var cur *string
		if given&1 != 0 {
			n := int(limit)
			lim = &n
			fields = append(fields, "limit="+strconv.FormatInt(limit, 10))
		}
		if given&2 != 0 {
			n := int(offset)
			off = &n
			fields = append(fields, "offset="+strconv.FormatInt(offset, 10))
		}
		if given&4 != 0 {
			cur = &cursor
			fields = append(fields, "cursor="+url.QueryEscape(cursor))
		}
		var ctx issuer.TaskContext
		var labels []string
		if given&16 != 0 {
			ctx.Version = &version
			labels = append(labels, "version="+url.QueryEscape(version))
		}
		if given&8 != 0 {
			ctx.Workload = &workload
			labels = append(labels, "workload="+url.QueryEscape(workload))
		}
		raw := strings.Join(append(fields, labels...), "&")
		if len(raw) > issuer.MaxQuery {
			return
		}
		same := func(what string, argErr, routeErr error, argQ, routeQ any) {
			t.Helper()
			switch {
			case argErr != nil || routeErr != nil:
				if issuer.ErrorCode(argErr) != issuer.ErrorCode(routeErr) {
					t.Fatalf("%s %q: arguments %v, route %v", what, raw, argErr, routeErr)
				}
				checkTrustError(t, argErr)
			case argQ != routeQ:
				t.Fatalf("%s %q: arguments %+v, route %+v", what, raw, argQ, routeQ)
			}
		}
		aq, aerr := issuer.NewEvidenceQuery(skill, &ctx, lim, off, cur)
		rq, rerr := issuer.ParseEvidenceQuery(skill, raw)
		same("evidence", aerr, rerr, aq, rq)
		tq, terr := issuer.NewTrustQuery(skill, &ctx)
		pq, perr := issuer.ParseTrustQuery(skill, strings.Join(labels, "&"))
		same("trust", terr, perr, tq, pq)
	})
}

func TestParseAssessRequest(t *testing.T) {
	r, err := issuer.ParseAssessRequest([]byte(`{"agents":["` + agentA + `","` + agentB + `"],"skills":["PostgreSQL indexing"," sqlite "],` +
		`"context":{"workload":"high-write-concurrency","version":null}}`))
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(r.Agents, []issuer.AgentID{agentA, agentB}) || !slices.Equal(r.Skills, []string{"PostgreSQL indexing", "sqlite"}) ||
		r.Context != (evidence.Context{Workload: "high-write-concurrency"}) {
		t.Fatalf("%+v", r)
	}
	six := `"` + strings.Repeat(agentA+`","`, 5) + agentB + `"`
	for _, c := range []struct {
		name, body string
		code       issuer.Code
	}{
		{"no agents", `{"agents":[],"skills":["x"]}`, issuer.CodeInvalid},
		{"agents absent", `{"skills":["x"]}`, issuer.CodeInvalid},
		{"six agents", `{"agents":[` + six + `],"skills":["x"]}`, issuer.CodeTooManyItems},
		{"six skills", `{"agents":["` + agentA + `"],"skills":["a","b","c","d","e","f"]}`, issuer.CodeTooManyItems},
		{"no skills", `{"agents":["` + agentA + `"],"skills":[]}`, issuer.CodeInvalid},
		{"a bad agent", `{"agents":["agt_x"],"skills":["x"]}`, issuer.CodeInvalid},
		{"an agent twice", `{"agents":["` + agentA + `","` + agentA + `"],"skills":["x"]}`, issuer.CodeInvalid},
		{"one skill twice", `{"agents":["` + agentA + `"],"skills":["Postgres indexing","postgresql  INDEXING"]}`, issuer.CodeInvalid},
		{"a blank skill", `{"agents":["` + agentA + `"],"skills":[" "]}`, issuer.CodeInvalid},
		{"an unknown dimension", `{"agents":["` + agentA + `"],"skills":["x"],"context":{"colour":"red"}}`, issuer.CodeUnknownDimension},
		{"a dimension in capitals", `{"agents":["` + agentA + `"],"skills":["x"],"context":{"Workload":"a"}}`, issuer.CodeUnknownDimension},
		{"a dimension twice up to case", `{"agents":["` + agentA + `"],"skills":["x"],"context":{"workload":"a","WORKLOAD":"b"}}`, issuer.CodeJSONDuplicateKey},
		{"a label of another type", `{"agents":["` + agentA + `"],"skills":["x"],"context":{"workload":1}}`, issuer.CodeJSONWrongType},
		{"a long label", `{"agents":["` + agentA + `"],"skills":["x"],"context":{"workload":"` + strings.Repeat("a", 201) + `"}}`, issuer.CodeInvalid},
		{"an unknown member", `{"agents":["` + agentA + `"],"skills":["x"],"ctx":{}}`, issuer.CodeJSONUnknownMember},
		{"names before rules", `{"agents":[` + six + `],"skills":["x"],"context":{"colour":"red"}}`, issuer.CodeUnknownDimension},
		{"agents before skills", `{"agents":[` + six + `],"skills":[]}`, issuer.CodeTooManyItems},
		{"too many before a bad id", `{"agents":["agt_x",` + six + `],"skills":["x"]}`, issuer.CodeTooManyItems},
		{"skills before context", `{"agents":["` + agentA + `"],"skills":[],"context":{"workload":" "}}`, issuer.CodeInvalid},
		{"too large", `{"agents":["` + agentA + `"],"skills":["` + strings.Repeat("a", issuer.MaxAssessBody) + `"]}`, issuer.CodeTooLarge},
	} {
		if _, err := issuer.ParseAssessRequest([]byte(c.body)); issuer.ErrorCode(err) != c.code {
			t.Errorf("%s: %v, want %s", c.name, err, c.code)
		}
	}
}

// TestMemoryPseudonymsAreNoMemoryIDs: the evidence route names a record's
// memory only when it is a public id; a hidden memory's per-passport
// pseudonym never reads as one (SPEC.md §16.3).
func TestMemoryPseudonymsAreNoMemoryIDs(t *testing.T) {
	ps := evidence.NewPseudonyms(make([]byte, 32))
	for i := range 100 {
		m := ps.Memory(strings.Repeat("m", i))
		if _, err := issuer.ParseMemoryID(m); err == nil || !strings.HasPrefix(m, "mem_") {
			t.Fatalf("the pseudonym %s reads as a memory id", m)
		}
	}
}

func TestTrustLinks(t *testing.T) {
	l := issuer.NewSkillLinks(agentA, "a/b c", evidence.Context{Workload: "x&y", Domain: "d"})
	want := "/api/public/agents/" + agentA + "/skills/a%2Fb%20c/trust?domain=d&workload=x%26y"
	if l.Trust != want || l.Evidence != strings.Replace(want, "/trust", "/evidence", 1) {
		t.Fatalf("%+v", l)
	}
	q, err := issuer.ParseTrustQuery("a/b c", "domain=d&workload=x%26y")
	if err != nil || q.Context != (evidence.Context{Workload: "x&y", Domain: "d"}) {
		t.Fatalf("a link's query does not read back: %+v %v", q, err)
	}
	if got := issuer.EvidenceFilePath(agentA, "ab"); got != "/api/public/agents/"+agentA+"/passport/evidence?passportHash=ab" {
		t.Fatal(got)
	}
}

// FuzzParseTrustQuery: whatever parses is within the bounds and can be
// assessed, and every refusal is a caller's fault with its code.
func FuzzParseTrustQuery(f *testing.F) {
	for _, s := range []string{"", "workload=oltp&version=17", "limit=10&offset=20", "cursor=abc", "colour=red",
		"workload=%zz", "a;b", "workload=+", "limit=0", "offset=1001&cursor=x", "constraints=%E2%80%AE"} {
		f.Add("PostgreSQL indexing", s)
	}
	f.Add(" ", "")
	f.Add("a\x00b", "")
	empty, err := evidence.NewSet(nil, false)
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, skill, raw string) {
		q, err := issuer.ParseTrustQuery(skill, raw)
		if err != nil {
			checkTrustError(t, err)
		} else {
			assessable(t, empty, q.Skill, q.Context)
		}
		e, err := issuer.ParseEvidenceQuery(skill, raw)
		if err != nil {
			checkTrustError(t, err)
			return
		}
		assessable(t, empty, e.Skill, e.Context)
		if e.Limit < 1 || e.Limit > issuer.MaxEvidenceLimit || e.Offset < 0 || e.Offset > issuer.MaxEvidenceOffset ||
			len(e.Cursor) > issuer.MaxCursor || e.Cursor != "" && e.Offset != 0 {
			t.Fatalf("out of bounds: %+v", e)
		}
	})
}

// FuzzParseAssessRequest: whatever parses is within the bounds, distinct
// and assessable.
func FuzzParseAssessRequest(f *testing.F) {
	f.Add([]byte(`{"agents":["` + agentA + `"],"skills":["PostgreSQL indexing"],"context":{"workload":"high-write-concurrency"}}`))
	f.Add([]byte(`{"agents":["` + agentA + `","` + agentB + `"],"skills":["a","b"],"context":{"colour":"x"}}`))
	f.Add([]byte(`{"agents":[],"skills":[],"context":null}`))
	f.Add([]byte(`{"agents":["` + agentA + `"],"skills":["pg"],"context":{"version":"\u00a0"}}`))
	empty, err := evidence.NewSet(nil, false)
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		r, err := issuer.ParseAssessRequest(body)
		if err != nil {
			checkTrustError(t, err)
			return
		}
		if len(r.Agents) == 0 || len(r.Agents) > issuer.MaxAssessAgents || len(r.Skills) == 0 || len(r.Skills) > issuer.MaxAssessSkills {
			t.Fatalf("accepted %d agents and %d skills", len(r.Agents), len(r.Skills))
		}
		seen := map[string]bool{}
		for _, s := range r.Skills {
			assessable(t, empty, s, r.Context)
			n := skilltrust.Skills1().Normalize(s).Name
			if seen[n] {
				t.Fatalf("accepted %s twice", n)
			}
			seen[n] = true
		}
		for i, a := range r.Agents {
			if _, err := issuer.ParseAgentID(string(a)); err != nil || slices.Contains(r.Agents[:i], a) {
				t.Fatalf("accepted agent %q", a)
			}
		}
	})
}

// assessable fails t unless the trust model accepts the task.
func assessable(t *testing.T, set *evidence.Set, skill string, ctx evidence.Context) {
	t.Helper()
	if _, err := skilltrust.Assess(set, skilltrust.Task{Skill: skill, Context: ctx}, evidence.MustDate("2026-01-01")); err != nil {
		t.Fatalf("accepted %q %+v, which the trust model refuses: %v", skill, ctx, err)
	}
}

func checkTrustError(t *testing.T, err error) {
	t.Helper()
	if _, ok := err.(*issuer.Error); !ok {
		t.Fatalf("%T is not an *issuer.Error", err)
	}
	switch code := issuer.ErrorCode(err); code {
	case issuer.CodeInvalid, issuer.CodeTooLarge, issuer.CodeJSONMalformed, issuer.CodeJSONInvalidUTF8,
		issuer.CodeJSONLoneSurrogate, issuer.CodeJSONDuplicateKey, issuer.CodeJSONUnknownMember,
		issuer.CodeJSONWrongType, issuer.CodeJSONNumberRange, issuer.CodeJSONTooDeep, issuer.CodeJSONTrailingData,
		issuer.CodeCursorInvalid, issuer.CodeLimitOutOfRange, issuer.CodeUnknownDimension, issuer.CodeTooManyItems:
	default:
		t.Fatalf("refusal %v has code %s", err, code)
	}
}

func truncated(s string) string {
	if len(s) > 60 {
		return s[:60] + "…"
	}
	return s
}
