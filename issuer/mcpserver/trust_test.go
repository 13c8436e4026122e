package mcpserver_test

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/remnant/passportkit/evidence"
	"github.com/remnant/passportkit/internal/mcpwire/mcpwiretest"
	"github.com/remnant/passportkit/internal/seal"
	"github.com/remnant/passportkit/issuer"
	"github.com/remnant/passportkit/issuer/demoworld"
	"github.com/remnant/passportkit/issuer/httpapi"
	"github.com/remnant/passportkit/issuer/keyring"
	"github.com/remnant/passportkit/issuer/mcpserver"
	"github.com/remnant/passportkit/issuer/service"
	"github.com/remnant/passportkit/issuer/store"
	"github.com/remnant/passportkit/issuer/store/storetest"
	"github.com/remnant/passportkit/issuer/web"
	"github.com/remnant/passportkit/passport"
)

// newTrust returns the public trust API over passports, recording skill
// history in db, with cursors sealed by a random key.
func newTrust(t testing.TB, passports *service.Passports, db *store.DB) *service.Trust {
	key := make([]byte, seal.KeySize)
	rand.Read(key)
	return storetest.Trust(t, passports, db, key)
}

// trustWorld is the demo world on one store, served on loopback as serve
// serves it (the API's routes, the web pages and /mcp over one trust API),
// with a clock the test moves for issuing and an MCP session of an agent
// of its own, whose key is key.
type trustWorld struct {
	transports
	db        *store.DB
	w         *demoworld.World
	clock     *demoworld.Clock
	passports *service.Passports
	key       issuer.APIKey
}

func newTrustWorld(t testing.TB, engine store.Engine) *trustWorld {
	t.Helper()
	ctx := context.Background()
	now := time.Now().UTC().Truncate(time.Second)
	db, app, w := storetest.DemoWorld(t, engine, now)
	clock := &demoworld.Clock{}
	clock.Set(now)
	ring, err := keyring.New(db, keyring.Config{Issuer: "https://issuer.test", Dir: filepath.Join(t.TempDir(), "keys"), Now: clock.Now})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ring.EnsureActive(ctx, passport.EdDSA); err != nil {
		t.Fatal(err)
	}
	passports := service.NewPassports(db, ring, service.PassportOptions{Now: clock.Now})
	trust := newTrust(t, passports, db)
	log := storetest.Logger(t)
	if _, ok := t.(*testing.B); ok {
		log = slog.New(slog.DiscardHandler) // a benchmark measures the reads, not the test log
	}
	tools := mcpserver.Handler(app, log, "test", mcpserver.WithPassports(passports), mcpserver.WithTrust(ring), mcpserver.WithTrustAPI(trust))
	pages, err := web.New(web.Config{Profiles: app, Passports: passports, Trust: trust, Keys: ring, Now: clock.Now, Logger: log})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(httpapi.New(app, log, httpapi.Config{RatePerSecond: 1000, Burst: 1000, Keys: ring, Passports: passports,
		Trust: trust, Pages: pages, MCP: tools}))
	t.Cleanup(srv.Close)
	caller, err := storetest.Admin(db).CreateAgent(ctx, service.NewAgent{Name: "Caller"})
	if err != nil {
		t.Fatal(err)
	}
	return &trustWorld{transports: transports{t: t, srv: srv, cs: mcpwiretest.Session(t, srv.URL+"/mcp", string(caller.Key))},
		db: db, w: w, clock: clock, passports: passports, key: caller.Key}
}

// historyRows counts the skill history rows.
func (tw *trustWorld) historyRows() int {
	tw.t.Helper()
	var n int
	if err := tw.db.UnsafeSQL().GetContext(context.Background(), &n, `SELECT COUNT(*) FROM skill_trust_history`); err != nil {
		tw.t.Fatal(err)
	}
	return n
}

func trustPath(id issuer.AgentID, skill, route, query string) string {
	p := "/api/public/agents/" + string(id) + "/skills/" + url.PathEscape(skill) + "/" + route
	if query != "" {
		p += "?" + query
	}
	return p
}

// TestTrustToolsThroughTheSDKClient drives the trust tools through the
// SDK's own client over the demo world on both engines: every answer is
// the HTTP route's, byte for byte, refusals included; an evidence walk
// passes cursors between the transports; and no tool writes skill
// history, which the trust route does.
func TestTrustToolsThroughTheSDKClient(t *testing.T) {
	t.Parallel()
	for _, engine := range storetest.Engines(t) {
		t.Run(string(engine), func(t *testing.T) {
			t.Parallel()
			tw := newTrustWorld(t, engine)
			main := tw.w.AgentID(tw.w.Main())
			for _, c := range []struct {
				name string
				f    func(*testing.T, *trustWorld, issuer.AgentID)
			}{
				{"schemas", testTrustSchemas},
				{"no history", testToolsWriteNoHistory},
				{"answers", testTrustAnswers},
				{"evidence walk", testEvidenceWalk},
				{"refusals", testTrustRefusals},
				{"not found", testTrustToolsNotFound},
			} {
				t.Run(c.name, func(t *testing.T) { tw.t = t; c.f(t, tw, main) })
			}
		})
	}
}

// testTrustSchemas: the input schemas state the bounds the parsers apply.
func testTrustSchemas(t *testing.T, tw *trustWorld, _ issuer.AgentID) {
	list, err := tw.cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	type prop struct {
		Type       any             `json:"type"`
		Minimum    *float64        `json:"minimum"`
		Maximum    *float64        `json:"maximum"`
		MinItems   *int            `json:"minItems"`
		MaxItems   *int            `json:"maxItems"`
		MaxLength  *int            `json:"maxLength"`
		Pattern    string          `json:"pattern"`
		Properties map[string]prop `json:"properties"`
		Items      *prop           `json:"items"`
		Additional *bool           `json:"additionalProperties"`
	}
	schemas := map[string]prop{}
	descriptions := map[string]string{}
	for _, tl := range list.Tools {
		b, _ := json.Marshal(tl.InputSchema)
		var p prop
		if err := json.Unmarshal(b, &p); err != nil {
			t.Fatal(err)
		}
		schemas[tl.Name], descriptions[tl.Name] = p, tl.Description
	}
	ev := schemas["get_skill_evidence"].Properties
	if *ev["limit"].Minimum != 1 || *ev["limit"].Maximum != issuer.MaxEvidenceLimit || *ev["offset"].Maximum != issuer.MaxEvidenceOffset ||
		*ev["cursor"].MaxLength != issuer.MaxCursor || *ev["skill"].MaxLength != issuer.MaxClaimBytes || ev["publicId"].Pattern == "" {
		t.Errorf("get_skill_evidence: %+v", ev)
	}
	as := schemas["assess_trust"]
	if *as.Properties["agents"].MaxItems != issuer.MaxAssessAgents || *as.Properties["skills"].MaxItems != issuer.MaxAssessSkills ||
		*as.Properties["agents"].MinItems != 1 || as.Properties["agents"].Items.Pattern == "" || *as.Additional {
		t.Errorf("assess_trust: %+v", as)
	}
	for _, name := range []string{"get_skill_trust", "get_skill_evidence", "assess_trust"} {
		c := schemas[name].Properties["context"]
		if len(c.Properties) != len(evidence.Dimensions) || *c.Additional || *c.Properties["workload"].MaxLength != issuer.MaxClaimBytes {
			t.Errorf("%s: context %+v", name, c)
		}
	}
	for _, name := range []string{"get_agent_skills", "get_skill_trust", "assess_trust"} {
		for _, says := range []string{"not an endorsement", "N/A", "contested", "stale", "not_found"} {
			if !strings.Contains(descriptions[name], says) {
				t.Errorf("%s's description does not say %q", name, says)
			}
		}
	}
}

// testToolsWriteNoHistory: every tool is a pure read; the trust route,
// reading the same cached skill passports afterwards, still writes its row.
func testToolsWriteNoHistory(t *testing.T, tw *trustWorld, main issuer.AgentID) {
	if n := tw.historyRows(); n != 0 {
		t.Fatalf("%d history rows before any read", n)
	}
	var list issuer.SkillList
	tw.get("get_agent_skills", args("publicId", main), &list)
	readAll := func() {
		for _, s := range list.Skills {
			var st issuer.SkillTrust
			tw.get("get_skill_trust", args("publicId", main, "skill", s.Skill), &st)
			if !st.Listed || st.Context != (evidence.Context{}) {
				t.Fatalf("%s: %+v", s.Skill, st)
			}
			var page issuer.EvidencePage
			tw.get("get_skill_evidence", args("publicId", main, "skill", s.Skill, "limit", 1), &page)
		}
		var cmp issuer.TrustComparison
		tw.get("assess_trust", args("agents", []issuer.AgentID{main}, "skills", []string{demoworld.SkillEstimated}), &cmp)
	}
	readAll()
	if n := tw.historyRows(); n != 0 || len(list.Skills) < 4 {
		t.Fatalf("%d history rows after the tools read %d listed skills", n, len(list.Skills))
	}
	for _, s := range list.Skills {
		tw.same(s.Skill, tw.tool("get_skill_trust", args("publicId", main, "skill", s.Skill)), tw.http("GET", trustPath(main, s.Skill, "trust", ""), ""))
	}
	if n := tw.historyRows(); n != len(list.Skills) {
		t.Fatalf("%d history rows after the trust route read %d listed skills", n, len(list.Skills))
	}
	// The next hour: the tools read first again, and write nothing; the
	// route then writes its row for the hour.
	tw.clock.Set(tw.clock.Now().Add(time.Hour))
	rows := tw.historyRows()
	readAll()
	if n := tw.historyRows(); n != rows {
		t.Fatalf("the tools wrote %d history rows in a new hour", n-rows)
	}
	tw.http("GET", trustPath(main, demoworld.SkillEstimated, "trust", ""), "")
	if n := tw.historyRows(); n != rows+1 {
		t.Fatalf("the trust route wrote %d rows after the tools' reads in a new hour", n-rows)
	}
}

// testTrustAnswers: each tool answers what its route answers, byte for
// byte, for the same request.
func testTrustAnswers(t *testing.T, tw *trustWorld, main issuer.AgentID) {
	w := tw.w
	ring := w.AgentID(w.OfRole(demoworld.RoleRing)[0])
	declarer := w.AgentID(w.OfRole(demoworld.RoleDeclarer)[0])
	for _, id := range []issuer.AgentID{main, ring, declarer} {
		tw.same("skills of "+string(id), tw.tool("get_agent_skills", args("publicId", id)), tw.http("GET", "/api/public/agents/"+string(id)+"/skills", ""))
	}
	ctx := map[string]string{"workload": "High-Write Concurrency", "protocol": "postgres"}
	const query = "workload=High-Write%20Concurrency&protocol=postgres"
	for _, c := range []struct {
		what, tool, args, path string
	}{
		{"trust", "get_skill_trust", args("publicId", main, "skill", demoworld.SkillEstimated), trustPath(main, demoworld.SkillEstimated, "trust", "")},
		{"trust in context", "get_skill_trust", args("publicId", main, "skill", demoworld.SkillEstimated, "context", ctx),
			trustPath(main, demoworld.SkillEstimated, "trust", query)},
		{"an alias", "get_skill_trust", args("publicId", main, "skill", demoworld.SkillAlias), trustPath(main, demoworld.SkillAlias, "trust", "")},
		{"no evidence", "get_skill_trust", args("publicId", main, "skill", "  Haskell   Compilers "), trustPath(main, "  Haskell   Compilers ", "trust", "")},
		{"a slash", "get_skill_trust", args("publicId", main, "skill", "CI/CD"), "/api/public/agents/" + string(main) + "/skills/CI%2FCD/trust"},
		{"a contested skill", "get_skill_trust", args("publicId", main, "skill", demoworld.SkillContested), trustPath(main, demoworld.SkillContested, "trust", "")},
		{"a sibling's evidence", "get_skill_trust", args("publicId", main, "skill", "SQLite indexing"), trustPath(main, "SQLite indexing", "trust", "")},
		{"a ring's skill", "get_skill_trust", args("publicId", ring, "skill", demoworld.SkillRing), trustPath(ring, demoworld.SkillRing, "trust", "")},
		{"evidence", "get_skill_evidence", args("publicId", main, "skill", demoworld.SkillEstimated), trustPath(main, demoworld.SkillEstimated, "evidence", "")},
		{"evidence by offset in context", "get_skill_evidence", args("publicId", main, "skill", demoworld.SkillEstimated, "context", ctx, "limit", 2, "offset", 3),
			trustPath(main, demoworld.SkillEstimated, "evidence", query+"&limit=2&offset=3")},
		{"evidence past the end", "get_skill_evidence", args("publicId", main, "skill", demoworld.SkillContested, "offset", 1000),
			trustPath(main, demoworld.SkillContested, "evidence", "offset=1000")},
		{"a sibling's sources", "get_skill_evidence", args("publicId", main, "skill", "SQLite indexing", "limit", 50),
			trustPath(main, "SQLite indexing", "evidence", "limit=50")},
	} {
		a := tw.tool(c.tool, c.args)
		if !a.ok {
			t.Fatalf("%s: %+v", c.what, a.problem)
		}
		tw.same(c.what, a, tw.http("GET", c.path, ""))
	}
	body := fmt.Sprintf(`{"agents":["%s","%s","%s"],"skills":["%s","Haskell","%s"],"context":{"workload":"High-Write-Concurrency"}}`,
		declarer, main, ring, demoworld.SkillContested, demoworld.SkillAlias)
	a := tw.tool("assess_trust", body)
	var cmp issuer.TrustComparison
	if err := json.Unmarshal([]byte(a.body), &cmp); err != nil || len(cmp.Agents) != 3 || cmp.Agents[1].Skills[0].Assessment != passport.AssessmentContested {
		t.Fatalf("assess_trust: %+v %v", a, err)
	}
	tw.same("assess", a, tw.http("POST", "/api/public/trust/assess", body))
}

// testEvidenceWalk walks the sources of two skills by cursor, each page
// asked of both transports with the cursor the other gave.
func testEvidenceWalk(t *testing.T, tw *trustWorld, main issuer.AgentID) {
	for _, skill := range []string{demoworld.SkillEstimated, demoworld.SkillContested} {
		var all []issuer.EvidenceSource
		cursor := ""
		for i := 0; ; i++ {
			in := map[string]any{"publicId": main, "skill": skill, "limit": 2}
			query := "limit=2"
			if cursor != "" {
				in["cursor"], query = cursor, query+"&cursor="+cursor
			}
			viaTool, viaRoute := tw.tool("get_skill_evidence", args(flat(in)...)), tw.http("GET", trustPath(main, skill, "evidence", query), "")
			tw.same(fmt.Sprintf("%s page %d", skill, i), viaTool, viaRoute)
			from := viaTool
			if i%2 == 1 {
				from = viaRoute
			}
			var page issuer.EvidencePage
			if err := json.Unmarshal([]byte(from.body), &page); err != nil {
				t.Fatalf("%s page %d: %+v", skill, i, from)
			}
			if page.Offset != len(all) {
				t.Fatalf("%s page %d starts at %d, after %d sources", skill, i, page.Offset, len(all))
			}
			all = append(all, page.Sources...)
			if cursor = page.NextCursor; cursor == "" {
				if len(all) != page.SourceCount || i < 2 {
					t.Fatalf("%s: walked %d sources of %d in %d pages", skill, len(all), page.SourceCount, i+1)
				}
				break
			}
		}
		var whole issuer.EvidencePage
		tw.get("get_skill_evidence", args("publicId", main, "skill", skill), &whole)
		a, _ := json.Marshal(all)
		b, _ := json.Marshal(whole.Sources)
		if !bytes.Equal(a, b) {
			t.Errorf("%s: the walk differs from the whole listing", skill)
		}
	}
}

// flat turns a map into key, value pairs for args.
func flat(m map[string]any) []any {
	var kv []any
	for k, v := range m {
		kv = append(kv, k, v)
	}
	return kv
}

// testTrustRefusals: a tool refuses what its route refuses, with the same
// problem details where the request reads the same; where only the form
// of the request differs (a member rather than a query field), the same
// code.
func testTrustRefusals(t *testing.T, tw *trustWorld, main issuer.AgentID) {
	skill := demoworld.SkillEstimated
	ev := func(kv ...any) string { return args(append([]any{"publicId", main, "skill", skill}, kv...)...) }
	var first issuer.EvidencePage
	tw.get("get_skill_evidence", ev("limit", 2), &first)
	cursor := first.NextCursor
	tampered := []byte(cursor)
	if mid := len(tampered) / 2; tampered[mid] == 'A' {
		tampered[mid] = 'B'
	} else {
		tampered[mid] = 'A'
	}
	evidencePath := func(q string) string { return trustPath(main, skill, "evidence", q) }
	for _, c := range []struct {
		what, args, path string
		code             issuer.Code
	}{
		{"limit 0", ev("limit", 0), evidencePath("limit=0"), issuer.CodeLimitOutOfRange},
		{"limit 51", ev("limit", 51), evidencePath("limit=51"), issuer.CodeLimitOutOfRange},
		{"offset 1001", ev("offset", 1001), evidencePath("offset=1001"), issuer.CodeLimitOutOfRange},
		{"offset -1", ev("offset", -1), evidencePath("offset=-1"), issuer.CodeLimitOutOfRange},
		{"cursor not base64url", ev("cursor", "!"), evidencePath("cursor=%21"), issuer.CodeCursorInvalid},
		{"cursor empty", ev("cursor", ""), evidencePath("cursor="), issuer.CodeCursorInvalid},
		{"cursor tampered", ev("cursor", string(tampered)), evidencePath("cursor=" + string(tampered)), issuer.CodeCursorInvalid},
		{"cursor of another listing", args("publicId", main, "skill", demoworld.SkillContested, "cursor", cursor),
			trustPath(main, demoworld.SkillContested, "evidence", "cursor="+cursor), issuer.CodeCursorInvalid},
		{"cursor of another context", ev("cursor", cursor, "context", map[string]string{"workload": "oltp"}),
			evidencePath("cursor=" + cursor + "&workload=oltp"), issuer.CodeCursorInvalid},
		{"offset and cursor", ev("cursor", cursor, "offset", 2), evidencePath("cursor=" + cursor + "&offset=2"), issuer.CodeInvalid},
		{"a blank skill", args("publicId", main, "skill", " "), trustPath(main, " ", "evidence", ""), issuer.CodeInvalid},
		{"a long skill", args("publicId", main, "skill", strings.Repeat("x", 201)), trustPath(main, strings.Repeat("x", 201), "evidence", ""), issuer.CodeInvalid},
	} {
		a := tw.tool("get_skill_evidence", c.args)
		if a.ok || a.problem.Code != c.code {
			t.Errorf("%s: %+v, want %s", c.what, a, c.code)
		}
		tw.same(c.what, a, tw.http("GET", c.path, ""))
	}
	if a := tw.tool("get_skill_evidence", ev("cursor", cursor)); !a.ok {
		t.Fatalf("the cursor itself: %+v", a.problem)
	}

	// Where the request is written differently, the same code.
	for _, c := range []struct {
		what, tool, args, path string
		code                   issuer.Code
	}{
		{"an unknown dimension", "get_skill_trust", args("publicId", main, "skill", skill, "context", map[string]string{"colour": "red"}),
			trustPath(main, skill, "trust", "colour=red"), issuer.CodeUnknownDimension},
		{"a dimension in another case", "get_skill_evidence", ev("context", map[string]string{"Workload": "oltp"}),
			evidencePath("Workload=oltp"), issuer.CodeUnknownDimension},
		{"a long label", "get_skill_trust", args("publicId", main, "skill", skill, "context", map[string]string{"workload": strings.Repeat("x", 201)}),
			trustPath(main, skill, "trust", "workload="+strings.Repeat("x", 201)), issuer.CodeInvalid},
		{"a label of invisible characters", "get_skill_evidence", ev("context", map[string]string{"version": "\u200b"}),
			evidencePath("version=%E2%80%8B"), issuer.CodeInvalid},
		{"a blank label", "get_skill_trust", args("publicId", main, "skill", skill, "context", map[string]string{"workload": " "}),
			trustPath(main, skill, "trust", "workload=+"), issuer.CodeInvalid},
	} {
		a, r := tw.tool(c.tool, c.args), tw.http("GET", c.path, "")
		if a.ok || a.problem.Code != c.code || r.problem.Code != c.code || a.problem.Status != r.problem.Status {
			t.Errorf("%s: tool %+v, route %+v, want %s", c.what, a, r, c.code)
		}
	}

	// What only a tool's arguments can get wrong.
	for _, c := range []struct {
		what, tool, args string
		code             issuer.Code
	}{
		{"a publicId that is no agent id", "get_skill_trust", args("publicId", "nonsense", "skill", skill), issuer.CodeInvalid},
		{"no publicId", "get_agent_skills", `{}`, issuer.CodeInvalid},
		{"a limit as text", "get_skill_evidence", ev("limit", "5"), issuer.CodeJSONWrongType},
		{"a fractional limit", "get_skill_evidence", `{"publicId":"` + string(main) + `","skill":"x","limit":2.5}`, issuer.CodeJSONWrongType},
		{"a limit beyond four digits", "get_skill_evidence", ev("limit", 100000), issuer.CodeLimitOutOfRange},
		{"a route's parameter on the trust read", "get_skill_trust", args("publicId", main, "skill", skill, "limit", 5), issuer.CodeJSONUnknownMember},
		{"a context that is no object", "get_skill_trust", args("publicId", main, "skill", skill, "context", "oltp"), issuer.CodeJSONWrongType},
		{"the query before the agent", "get_skill_evidence", args("publicId", "nonsense", "skill", skill, "limit", 0), issuer.CodeLimitOutOfRange},
		{"the skill before the agent", "get_skill_trust", args("publicId", "nonsense", "skill", ""), issuer.CodeInvalid},
	} {
		if a := tw.tool(c.tool, c.args); a.ok || a.problem.Code != c.code {
			t.Errorf("%s: %+v, want %s", c.what, a, c.code)
		}
	}

	// assess_trust reads its arguments with the route's parser: the same
	// problem details.
	ring := tw.w.AgentID(tw.w.OfRole(demoworld.RoleRing)[0])
	for _, c := range []struct {
		what, body string
		code       issuer.Code
	}{
		{"six agents", `{"agents":["` + strings.Repeat(string(main)+`","`, 5) + string(ring) + `"],"skills":["x"]}`, issuer.CodeTooManyItems},
		{"six skills", `{"agents":["` + string(main) + `"],"skills":["a","b","c","d","e","f"]}`, issuer.CodeTooManyItems},
		{"no agents", `{"agents":[],"skills":["x"]}`, issuer.CodeInvalid},
		{"an agent twice", `{"agents":["` + string(main) + `","` + string(main) + `"],"skills":["x"]}`, issuer.CodeInvalid},
		{"one skill twice", `{"agents":["` + string(main) + `"],"skills":["` + demoworld.SkillEstimated + `","` + demoworld.SkillAlias + `"]}`, issuer.CodeInvalid},
		{"an unknown dimension", `{"agents":["` + string(main) + `"],"skills":["x"],"context":{"colour":"red"}}`, issuer.CodeUnknownDimension},
		{"an unknown member", `{"agents":["` + string(main) + `"],"skills":["x"],"extra":1}`, issuer.CodeJSONUnknownMember},
		{"a duplicate up to case", `{"agents":["` + string(main) + `"],"skills":["x"],"Skills":["y"]}`, issuer.CodeJSONDuplicateKey},
		{"a label not a string", `{"agents":["` + string(main) + `"],"skills":["x"],"context":{"workload":5}}`, issuer.CodeJSONWrongType},
		{"a blank label", `{"agents":["` + string(main) + `"],"skills":["x"],"context":{"workload":"\u200b"}}`, issuer.CodeInvalid},
		{"too many agents before a bad skill", `{"agents":["` + strings.Repeat(string(main)+`","`, 5) + string(ring) + `"],"skills":[""]}`, issuer.CodeTooManyItems},
		{"the skills before the context", `{"agents":["` + string(main) + `"],"skills":[],"context":{"workload":"\u200b"}}`, issuer.CodeInvalid},
		{"no arguments", `{}`, issuer.CodeInvalid},
	} {
		a := tw.tool("assess_trust", c.body)
		if a.ok || a.problem.Code != c.code {
			t.Errorf("%s: %+v, want %s", c.what, a, c.code)
		}
		tw.same(c.what, a, tw.http("POST", "/api/public/trust/assess", c.body))
	}
	// Arguments over the route's body bound: refused as the body is.
	big := `{"agents":["` + string(main) + `"],"skills":["x"],"context":{"workload":"` + strings.Repeat(" ", issuer.MaxAssessBody) + `"}}`
	a, r := tw.tool("assess_trust", big), tw.http("POST", "/api/public/trust/assess", big)
	if a.ok || a.problem.Code != issuer.CodeTooLarge || r.problem.Code != issuer.CodeTooLarge || a.problem.Status != 413 {
		t.Errorf("over %d bytes: tool %+v, route %+v", issuer.MaxAssessBody, a, r)
	}
}

// testTrustToolsNotFound: an unknown agent and one that is private,
// unlisted or suspended are alike, as on the routes; a comparison names
// the first in input order.
func testTrustToolsNotFound(t *testing.T, tw *trustWorld, main issuer.AgentID) {
	if a := tw.tool("get_agent_skills", args("publicId", tw.w.AgentID(tw.w.OfRole(demoworld.RoleRing)[1]))); !a.ok {
		t.Fatalf("before its suspension: %+v", a.problem)
	}
	hidden := storetest.HiddenAgents(t, tw.db, tw.w)
	var details []string
	for _, id := range hidden {
		for _, c := range []struct{ tool, args, path string }{
			{"get_agent_skills", args("publicId", id), "/api/public/agents/" + string(id) + "/skills"},
			{"get_skill_trust", args("publicId", id, "skill", demoworld.SkillRing), trustPath(id, demoworld.SkillRing, "trust", "")},
			{"get_skill_evidence", args("publicId", id, "skill", demoworld.SkillRing, "limit", 1), trustPath(id, demoworld.SkillRing, "evidence", "limit=1")},
		} {
			a := tw.tool(c.tool, c.args)
			if a.ok || a.problem.Code != issuer.CodeNotFound || a.problem.Status != 404 {
				t.Fatalf("%s of %s: %+v", c.tool, id, a)
			}
			tw.same(c.tool+" of a hidden agent", a, tw.http("GET", c.path, ""))
			details = append(details, strings.ReplaceAll(a.problem.Detail, string(id), "ID"))
		}
		body := fmt.Sprintf(`{"agents":["%s","%s"],"skills":["x"]}`, main, id)
		a := tw.tool("assess_trust", body)
		if a.ok || a.problem.Code != issuer.CodeNotFound || !strings.Contains(a.problem.Detail, string(id)) {
			t.Fatalf("assess_trust with %s: %+v", id, a)
		}
		tw.same("assess_trust with a hidden agent", a, tw.http("POST", "/api/public/trust/assess", body))
	}
	for _, d := range details[1:] {
		if d != details[0] {
			t.Fatalf("the refusals tell agents apart: %q", details)
		}
	}
	body := fmt.Sprintf(`{"agents":["%s","%s","%s"],"skills":["x"]}`, main, hidden[2], hidden[1])
	if a := tw.tool("assess_trust", body); a.ok || !strings.Contains(a.problem.Detail, string(hidden[2])) {
		t.Errorf("assess_trust names %+v, not the first hidden agent %s", a.problem, hidden[2])
	}
}
