package mcpserver_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/remnant/passportkit/internal/mcpwire/mcpwiretest"
	"github.com/remnant/passportkit/issuer"
	"github.com/remnant/passportkit/issuer/demoworld"
	"github.com/remnant/passportkit/issuer/httpapi"
	"github.com/remnant/passportkit/issuer/issuing"
	"github.com/remnant/passportkit/issuer/keyring"
	"github.com/remnant/passportkit/issuer/mcpserver"
	"github.com/remnant/passportkit/issuer/service"
	"github.com/remnant/passportkit/issuer/store"
	"github.com/remnant/passportkit/issuer/store/storetest"
	"github.com/remnant/passportkit/passport"
)

// publicTools are the tools anyone may call without an API key: the
// tools of the public HTTP routes.
var publicTools = []string{"assess_trust", "find_agents", "get_agent_passport", "get_agent_skills", "get_skill_evidence",
	"get_skill_trust", "verify_passport"}

// readOnlyTools are the tools that change nothing; the others write.
var readOnlyTools = append([]string{"get_agent_profile", "get_agent_reputation", "get_memory_validations", "search_memories",
	"wait_for_memories", "browse_memories"},
	publicTools...)

// schemaWorld is the demo world served on loopback with every tool, a
// caller's key and its memory: one the caller retrieved and may validate.
type schemaWorld struct {
	db     *store.DB
	srv    *httptest.Server
	w      *demoworld.World
	key    issuer.APIKey
	memory issuer.MemoryID
	// receipt is the caller's consultation of memory.
	receipt issuer.ReceiptID
	bundle  string
}

func newSchemaWorld(t *testing.T, engine store.Engine) *schemaWorld {
	t.Helper()
	ctx := context.Background()
	now := time.Now().UTC().Truncate(time.Second)
	db, app, w := storetest.DemoWorld(t, engine, now)
	ring, err := keyring.New(db, keyring.Config{Issuer: "https://issuer.test", Dir: filepath.Join(t.TempDir(), "keys")})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ring.EnsureActive(ctx, passport.EdDSA); err != nil {
		t.Fatal(err)
	}
	passports := service.NewPassports(db, ring, service.PassportOptions{})
	trust := newTrust(t, passports, db)
	discovery := service.NewDiscovery(db, passports, storetest.Sealer(t, db), service.DiscoveryOptions{})
	if _, err := discovery.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	log := storetest.Logger(t)
	tools := mcpserver.Handler(app, log, "test", mcpserver.WithPassports(passports), mcpserver.WithTrust(ring),
		mcpserver.WithTrustAPI(trust), mcpserver.WithDiscovery(discovery))
	srv := httptest.NewServer(httpapi.New(app, log, httpapi.Config{RatePerSecond: 1000, Burst: 1000, Keys: ring, Passports: passports,
		Trust: trust, Agents: discovery, MCP: tools}))
	t.Cleanup(srv.Close)
	caller, err := storetest.Admin(db).CreateAgent(ctx, service.NewAgent{Name: "Caller"})
	if err != nil {
		t.Fatal(err)
	}
	sw := &schemaWorld{db: db, srv: srv, w: w, key: caller.Key}
	for i := 0; sw.memory == ""; i++ {
		id := w.MemoryID(i)
		req, _ := http.NewRequest("GET", srv.URL+"/api/memories/"+string(id), nil)
		req.Header.Set("Authorization", "Bearer "+string(caller.Key))
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		if res.StatusCode == http.StatusOK {
			sw.memory = id
		}
	}
	p, err := db.Authenticate(ctx, caller.Key)
	if err != nil {
		t.Fatal(err)
	}
	rc, err := app.Consult(ctx, p, []issuer.MemoryID{sw.memory})
	if err != nil {
		t.Fatal(err)
	}
	sw.receipt = rc.ID
	is, err := passports.Issue(ctx, w.AgentID(w.Main()), issuing.DisclosePreviews)
	if err != nil {
		t.Fatal(err)
	}
	sw.bundle = string(is.Bundle)
	return sw
}

// calls are real calls of every tool on the demo world, each answered
// with a result (not an error).
func (sw *schemaWorld) calls() []toolCall {
	main := string(sw.w.AgentID(sw.w.Main()))
	ctx := map[string]any{"workload": "OLTP"}
	tampered := strings.Replace(sw.bundle, `"credential":"`, `"credential":"x`, 1)
	return []toolCall{
		{"feedback_memory", map[string]any{"memoryId": string(sw.memory), "type": "useful", "reason": "it held"}},
		{"feedback_memory", map[string]any{"memoryId": string(sw.memory), "verdict": "confirm"}},
		{"report_outcome", map[string]any{"memoryId": string(sw.memory), "outcome": "success", "context": map[string]any{"domain": "databases"}}},
		{"report_outcome", map[string]any{"memoryId": string(sw.memory), "outcome": "uncertain"}},
		{"get_memory_validations", map[string]any{"memoryId": string(sw.memory)}},
		{"get_memory", map[string]any{"memoryId": string(sw.memory)}},
		{"get_agent_profile", map[string]any{}},
		{"get_agent_reputation", map[string]any{"publicId": main, "limit": 5}},
		{"search_memories", map[string]any{"query": "PostgreSQL", "includeLow": true}},
		{"search_memories", map[string]any{"query": "nothing matches this"}},
		{"wait_for_memories", map[string]any{"wait": 0}},
		{"wait_for_memories", map[string]any{"wait": 0, "minStatus": "confirmed", "category": "Databases", "limit": 5}},
		{"browse_memories", map[string]any{}},
		{"holder_key_nonce", map[string]any{}},
		{"upload_artifact", map[string]any{"content": "41 passed"}},
		{"upload_artifact", map[string]any{"content": "41 passed"}},
		{"accept_memory", map[string]any{"receiptId": string(sw.receipt), "memoryId": string(sw.memory)}},
		{"publish_digest", map[string]any{"category": "databases", "title": "What the demo world knows", "content": "A summary.", "refs": []string{string(sw.memory)}}},
		{"publish_digest", map[string]any{"category": "databases", "title": "Nothing cited", "content": "A digest without refs is valid."}},
		{"set_holder_keys", map[string]any{"keys": []any{}}},
		{"get_agent_passport", map[string]any{"publicId": main}},
		{"get_agent_passport", map[string]any{"publicId": main, "disclose": "none"}},
		{"get_agent_passport", map[string]any{"publicId": main, "disclose": "all"}},
		{"verify_passport", map[string]any{"bundle": sw.bundle, "subject": main}},
		{"verify_passport", map[string]any{"bundle": tampered, "anySubject": true}},
		{"get_agent_skills", map[string]any{"publicId": main}},
		{"get_skill_trust", map[string]any{"publicId": main, "skill": demoworld.SkillEstimated, "context": ctx}},
		{"get_skill_trust", map[string]any{"publicId": main, "skill": demoworld.SkillDeclared}},
		{"get_skill_trust", map[string]any{"publicId": main, "skill": demoworld.SkillContested}},
		{"get_skill_evidence", map[string]any{"publicId": main, "skill": demoworld.SkillEstimated, "limit": 3}},
		{"get_skill_evidence", map[string]any{"publicId": main, "skill": demoworld.SkillContested}},
		{"assess_trust", map[string]any{"agents": []string{main, string(sw.w.AgentID(sw.w.OfRole(demoworld.RoleEvaluator)[0]))},
			"skills": []string{demoworld.SkillEstimated, demoworld.SkillStale}, "context": ctx}},
		{"find_agents", map[string]any{"skill": demoworld.SkillEstimated, "limit": 3}},
		{"find_agents", map[string]any{"skill": demoworld.SkillContested, "workload": "OLTP"}},
		{"find_agents", map[string]any{}},
	}
}

type toolCall struct {
	name string
	args map[string]any
}

// TestToolsAnswerTheirOutputSchemas lists the tools as a client without a
// key sees them, checks that each has a title, annotations that say what
// it does and an output schema, and then calls every tool on the demo
// world through the SDK's client over loopback HTTP: each answer's
// structured content validates against the tool's output schema, and its
// text is the same JSON. The public tools answer a caller without a key
// exactly as one with a key; the others refuse it with how to get a key.
func TestToolsAnswerTheirOutputSchemas(t *testing.T) {
	t.Parallel()
	for _, engine := range storetest.Engines(t) {
		t.Run(string(engine), func(t *testing.T) {
			t.Parallel()
			sw := newSchemaWorld(t, engine)
			keyed := mcpwiretest.Session(t, sw.srv.URL+"/mcp", string(sw.key))
			anonymous := mcpwiretest.Session(t, sw.srv.URL+"/mcp", "")
			schemas := map[string]*jsonschema.Resolved{}
			listed, err := anonymous.ListTools(context.Background(), nil)
			if err != nil {
				t.Fatal(err)
			}
			for _, tool := range listed.Tools {
				checkAnnotations(t, tool)
				schemas[tool.Name] = resolveOutputSchema(t, tool)
			}
			called := map[string]bool{}
			for _, c := range sw.calls() {
				res := mcpwiretest.CallTool(t, keyed, c.name, c.args)
				if res.IsError {
					t.Errorf("%s %v: %s", c.name, c.args, mcpwiretest.Text(t, res))
					continue
				}
				called[c.name] = true
				validate(t, c.name, schemas[c.name], res)
				public := slices.Contains(publicTools, c.name)
				anon := mcpwiretest.CallTool(t, anonymous, c.name, c.args)
				switch {
				case public && (anon.IsError || withoutWork(t, mcpwiretest.Text(t, anon)) != withoutWork(t, mcpwiretest.Text(t, res))):
					t.Errorf("%s without a key: unlike the answer with one: %s", c.name, difference(mcpwiretest.Text(t, anon), mcpwiretest.Text(t, res)))
				case !public:
					wantNeedsKey(t, c.name, anon)
				}
			}
			for name := range schemas {
				if !called[name] {
					t.Errorf("%s: never answered", name)
				}
			}
			if len(schemas) != 21 {
				t.Errorf("%d tools listed, want 21", len(schemas))
			}
		})
	}
}

// checkAnnotations checks a tool's title and that its annotations say
// whether it reads or writes, as readOnlyTools has it.
func checkAnnotations(t *testing.T, tool *mcp.Tool) {
	t.Helper()
	a := tool.Annotations
	if tool.Title == "" || a == nil || a.DestructiveHint == nil || a.OpenWorldHint == nil {
		t.Errorf("%s: title %q, annotations %+v", tool.Name, tool.Title, a)
		return
	}
	readOnly := slices.Contains(readOnlyTools, tool.Name)
	if a.ReadOnlyHint != readOnly || *a.OpenWorldHint || (readOnly && (*a.DestructiveHint || !a.IdempotentHint)) {
		t.Errorf("%s: readOnly %v idempotent %v destructive %v openWorld %v", tool.Name, a.ReadOnlyHint, a.IdempotentHint, *a.DestructiveHint, *a.OpenWorldHint)
	}
	switch tool.Name {
	case "holder_key_nonce", "publish_digest", "get_memory":
		if a.IdempotentHint || *a.DestructiveHint {
			t.Errorf("%s: each call makes a new record and replaces nothing", tool.Name)
		}
	case "upload_artifact":
		if !a.IdempotentHint || *a.DestructiveHint {
			t.Errorf("%s: stores content by its digest: a repeat writes nothing and nothing is replaced", tool.Name)
		}
	case "feedback_memory", "report_outcome", "set_holder_keys", "accept_memory":
		if !a.IdempotentHint || !*a.DestructiveHint {
			t.Errorf("%s: replaces the caller's earlier record; an exact repeat writes nothing", tool.Name)
		}
	}
}

// resolveOutputSchema resolves the output schema of a tool as a client
// receives it.
func resolveOutputSchema(t *testing.T, tool *mcp.Tool) *jsonschema.Resolved {
	t.Helper()
	if tool.OutputSchema == nil {
		t.Fatalf("%s: no output schema", tool.Name)
	}
	b, err := json.Marshal(tool.OutputSchema)
	if err != nil {
		t.Fatal(err)
	}
	var s jsonschema.Schema
	if err := json.Unmarshal(b, &s); err != nil {
		t.Fatalf("%s: output schema: %v", tool.Name, err)
	}
	if s.Type != "object" {
		t.Errorf("%s: output schema of type %q %v", tool.Name, s.Type, s.Types)
	}
	rs, err := s.Resolve(nil)
	if err != nil {
		t.Fatalf("%s: output schema: %v", tool.Name, err)
	}
	return rs
}

// validate checks a result's structured content against the tool's
// output schema, and that its text is the same JSON value.
func validate(t *testing.T, name string, rs *jsonschema.Resolved, res *mcp.CallToolResult) {
	t.Helper()
	b, err := json.Marshal(res.StructuredContent)
	if err != nil {
		t.Fatal(err)
	}
	var structured, text any
	if err := json.Unmarshal(b, &structured); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal([]byte(mcpwiretest.Text(t, res)), &text); err != nil {
		t.Fatalf("%s: text: %v", name, err)
	}
	if !sameValue(mustMarshal(t, structured), mustMarshal(t, text)) {
		t.Errorf("%s: the structured content is not the text's JSON", name)
	}
	if err := rs.Validate(structured); err != nil {
		t.Errorf("%s: the answer does not validate against the output schema: %v\n%.600s", name, err, b)
	}
}

func mustMarshal(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// wantNeedsKey checks the refusal of a tool that needs a key, called
// without one: unauthorized, saying how to get a key.
func wantNeedsKey(t *testing.T, name string, res *mcp.CallToolResult) {
	t.Helper()
	var p struct {
		Status int         `json:"status"`
		Code   issuer.Code `json:"code"`
		Detail string      `json:"detail"`
	}
	if err := json.Unmarshal([]byte(mcpwiretest.Text(t, res)), &p); err != nil || !res.IsError {
		t.Fatalf("%s without a key: %v %s", name, err, mcpwiretest.Text(t, res))
	}
	if p.Status != http.StatusUnauthorized || p.Code != issuer.CodeUnauthorized || p.Detail != mcpserver.NeedsKey ||
		!strings.Contains(p.Detail, "passport-issuer agents create") {
		t.Errorf("%s without a key: %+v", name, p)
	}
}

// withoutWork is an answer without what depends on the call rather than
// the caller: find_agents' work member, which says how many candidates
// this call assessed rather than found cached, and a verification's at,
// the instant it was made (the keyed and the anonymous call may fall in
// two seconds).
func withoutWork(t *testing.T, text string) string {
	t.Helper()
	var m map[string]json.RawMessage
	if err := json.Unmarshal([]byte(text), &m); err != nil {
		t.Fatal(err)
	}
	delete(m, "work")
	delete(m, "at")
	return string(mustMarshal(t, m))
}

// TestAnonymousToolsShowWhatAnonymousRoutesShow: called without a key, the
// public tools answer about agents that are not listed (suspended, private,
// unlisted) exactly as the anonymous HTTP routes do, as about an id no
// agent has: not_found, the same problem details but for the route's
// instance.
func TestAnonymousToolsShowWhatAnonymousRoutesShow(t *testing.T) {
	sw := newSchemaWorld(t, store.SQLite)
	tr := &transports{t: t, srv: sw.srv, cs: mcpwiretest.Session(t, sw.srv.URL+"/mcp", "")}
	main := sw.w.AgentID(sw.w.Main())
	for _, id := range append(storetest.HiddenAgents(t, sw.db, sw.w), main) {
		skill := demoworld.SkillEstimated
		for _, q := range []struct {
			tool, args, method, path, body string
		}{
			{"get_agent_passport", args("publicId", id), "GET", "/api/public/agents/" + string(id) + "/passport", ""},
			{"get_agent_skills", args("publicId", id), "GET", "/api/public/agents/" + string(id) + "/skills", ""},
			{"get_skill_trust", args("publicId", id, "skill", skill), "GET", trustPath(id, skill, "trust", ""), ""},
			{"get_skill_evidence", args("publicId", id, "skill", skill), "GET", trustPath(id, skill, "evidence", ""), ""},
			{"assess_trust", args("agents", []issuer.AgentID{id}, "skills", []string{skill}), "POST", "/api/public/trust/assess",
				args("agents", []issuer.AgentID{id}, "skills", []string{skill})},
		} {
			tool, route := tr.tool(q.tool, q.args), tr.http(q.method, q.path, q.body)
			if id == main {
				if !tool.ok || !route.ok {
					t.Errorf("%s of a listed agent: %+v %+v", q.tool, tool.problem, route.problem)
				}
				continue
			}
			if tool.ok || tool.problem.Code != issuer.CodeNotFound {
				t.Errorf("%s of %s without a key: %+v", q.tool, id, tool)
			}
			tr.same(q.tool+" of "+string(id)+" without a key", tool, route)
		}
	}
}
