package mcpserver_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/remnant/passportkit/issuer"
	"github.com/remnant/passportkit/issuer/demoworld"
	"github.com/remnant/passportkit/issuer/httpapi"
	"github.com/remnant/passportkit/issuer/issuing"
	"github.com/remnant/passportkit/issuer/service"
	"github.com/remnant/passportkit/issuer/store"
	"github.com/remnant/passportkit/issuer/store/storetest"
)

// A private agent validates over MCP and publishes; no HTTP answer or MCP
// tool result given to another agent, or to an anonymous reader, carries
// its public id. The same answers given to the private agent itself do.
func TestPrivateAgentUnnamedOverHTTPAndMCP(t *testing.T) {
	storetest.Run(t, func(t *testing.T, db *store.DB) {
		e := newEnv(t, db)
		ctx := context.Background()
		authorKey, author := e.agent("author")
		viewerKey, _ := e.agent("viewer")
		created, err := storetest.Admin(db).CreateAgent(ctx, service.NewAgent{Name: "private", Visibility: issuer.VisibilityPrivate})
		if err != nil {
			t.Fatal(err)
		}
		hiddenKey, hidden := created.Key, created.ID
		hp, err := db.Authenticate(ctx, hiddenKey)
		if err != nil {
			t.Fatal(err)
		}
		pub := func(p issuer.Principal) issuer.MemoryID {
			m, err := storetest.Service(db).Publish(ctx, p, issuer.Publication{Category: "sql", Domain: "sql", Title: "t", Content: "c", Confidence: 500})
			if err != nil {
				t.Fatal(err)
			}
			return m.ID
		}
		authorMem, hiddenMem := pub(author), pub(hp)
		// The private agent validates the author's memory over MCP.
		get := func(key issuer.APIKey, path string) string {
			req, _ := http.NewRequest("GET", e.srv.URL+path, nil)
			if key != "" {
				req.Header.Set("Authorization", "Bearer "+string(key))
			}
			res, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer res.Body.Close()
			b, _ := io.ReadAll(res.Body)
			return res.Status + " " + string(b)
		}
		get(hiddenKey, "/api/memories/"+string(authorMem))
		hcs := e.session(hiddenKey)
		var fb map[string]any
		if te := call(t, hcs, "feedback_memory", map[string]any{"memoryId": string(authorMem), "type": "corroborate"}, &fb); te != nil {
			t.Fatalf("feedback: %+v", te)
		}
		// The viewer validates the private agent's memory.
		get(viewerKey, "/api/memories/"+string(hiddenMem))
		vcs := e.session(viewerKey)
		if te := call(t, vcs, "feedback_memory", map[string]any{"memoryId": string(hiddenMem), "type": "useful"}, &fb); te != nil {
			t.Fatalf("feedback: %+v", te)
		}

		others := map[string]string{
			"GET reputation":           get(viewerKey, "/api/agents/"+string(author.AgentID)+"/reputation"),
			"GET public profile":       get("", "/api/agents/"+string(author.AgentID)),
			"GET hidden's memory":      get(viewerKey, "/api/memories/"+string(hiddenMem)),
			"GET validations":          get(viewerKey, "/api/memories/"+string(authorMem)+"/validations"),
			"GET validations (hidden)": get(viewerKey, "/api/memories/"+string(hiddenMem)+"/validations"),
			"GET me (author)":          get(authorKey, "/api/agents/me"),
		}
		for _, tc := range []struct {
			tool string
			args map[string]any
		}{
			{"get_agent_reputation", map[string]any{"publicId": string(author.AgentID)}},
			{"get_memory_validations", map[string]any{"memoryId": string(authorMem)}},
			{"get_agent_profile", map[string]any{}},
			{"feedback_memory", map[string]any{"memoryId": string(hiddenMem), "type": "corroborate"}},
		} {
			var out any
			te := call(t, vcs, tc.tool, tc.args, &out)
			others["MCP "+tc.tool+" "+toString(tc.args)] = toString(out) + toString(te)
		}
		for what, body := range others {
			if strings.Contains(body, string(hidden)) {
				t.Errorf("%s names the private agent: %s", what, body)
			}
		}
		// Asked by id, it answers as an unknown id does:
		// TestHiddenAgentsAnswerAsUnknown. The private agent sees itself.
		if body := get(hiddenKey, "/api/agents/"+string(author.AgentID)+"/reputation"); !strings.Contains(body, string(hidden)) {
			t.Errorf("the private agent does not see itself as validator: %s", body)
		}
		if body := get(hiddenKey, "/api/memories/"+string(hiddenMem)); !strings.Contains(body, `"author":"`+string(hidden)) {
			t.Errorf("the private agent's own memory does not name it: %s", body)
		}
		var me map[string]any
		if te := call(t, hcs, "get_agent_profile", map[string]any{}, &me); te != nil || me["publicId"] != string(hidden) {
			t.Errorf("own profile over MCP: %v %+v", me, te)
		}
	})
}

func toString(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// hiddenAgent is an agent of the demo world that the test hides, with what
// a reader learnt of it while it was listed: a skill to ask about, and its
// passport's hash, to ask for the passport's evidence file and to
// revalidate the passport.
type hiddenAgent struct {
	how   string
	id    issuer.AgentID
	skill string
	hash  string
}

// question asks one route, page or tool about the agent id (a hidden agent
// a, or an unknown id in its place) and returns the whole answer.
type question struct {
	name string
	// pure marks a question whose answer reads no store: it is the same
	// for a listed agent as for an unknown id.
	pure bool
	ask  func(id issuer.AgentID, a *hiddenAgent) string
}

// TestHiddenAgentsAnswerAsUnknown asks every route, page and tool that
// takes an agent id about an unlisted, a private and a suspended agent of
// the demo world, and about an unknown id of the same form, on both
// engines: with the ids swapped, every answer is the same, status, headers
// and body, byte for byte. Asked before the agents are hidden, the same
// questions tell each from the unknown id, and fill every cache with its
// answers.
func TestHiddenAgentsAnswerAsUnknown(t *testing.T) {
	t.Parallel()
	for _, engine := range storetest.Engines(t) {
		t.Run(string(engine), func(t *testing.T) {
			t.Parallel()
			tw := newTrustWorld(t, engine)
			ctx := context.Background()
			w := tw.w
			main := w.AgentID(w.Main())
			ev := w.OfRole(demoworld.RoleEvaluator)
			hidden := []*hiddenAgent{
				{how: "unlisted", id: w.AgentID(ev[0])},
				{how: "private", id: w.AgentID(ev[1])},
				{how: "suspended", id: w.AgentID(w.OfRole(demoworld.RoleRing)[1])},
			}
			for _, a := range hidden {
				is, err := tw.passports.Issue(ctx, a.id, issuing.DisclosePreviews)
				if err != nil {
					t.Fatal(err)
				}
				a.hash, a.skill = is.PassportHash, demoworld.SkillRing
				if sps := is.Passport.SkillPassports; len(sps) > 0 {
					a.skill = sps[0].Skill
				}
			}
			mainBundle, err := tw.passports.Issue(ctx, main, issuing.DisclosePreviews)
			if err != nil {
				t.Fatal(err)
			}
			questions := hiddenQuestions(tw, main, string(mainBundle.Bundle))
			const unknown = issuer.AgentID("agt_qqqqqqqqqqqqqqqqqqqqqqqqqq")
			for _, a := range hidden {
				for _, q := range questions {
					if got, want := q.ask(a.id, a), q.ask(unknown, a); (got == strings.ReplaceAll(want, string(unknown), string(a.id))) != q.pure {
						t.Errorf("%s: a listed agent and an unknown id are answered alike, or a pure question is not: %.300s", q.name, got)
					}
				}
			}
			if err := storetest.Admin(tw.db).SetAgentVisibility(ctx, hidden[0].id, issuer.VisibilityUnlisted); err != nil {
				t.Fatal(err)
			}
			if err := storetest.Admin(tw.db).SetAgentVisibility(ctx, hidden[1].id, issuer.VisibilityPrivate); err != nil {
				t.Fatal(err)
			}
			if err := storetest.Admin(tw.db).SetAgentStatus(ctx, hidden[2].id, issuer.AgentSuspended); err != nil {
				t.Fatal(err)
			}
			for _, a := range hidden {
				for _, q := range questions {
					got := strings.ReplaceAll(q.ask(a.id, a), string(a.id), string(unknown))
					if want := q.ask(unknown, a); got != want {
						t.Errorf("%s, %s agent: unlike an unknown id's answer%s", q.name, a.how, difference(got, want))
					}
				}
			}
			// An agent still sees itself.
			for _, a := range hidden[:2] {
				key, err := storetest.Admin(tw.db).RotateKey(ctx, a.id, nil)
				if err != nil {
					t.Fatal(err)
				}
				if got := tw.exchange(key, "GET", "/api/agents/"+string(a.id)+"/reputation", ""); !strings.HasPrefix(got, "200 ") {
					t.Errorf("%s agent's own report: %.300s", a.how, got)
				}
			}
		})
	}
}

// hiddenQuestions are the questions of TestHiddenAgentsAnswerAsUnknown:
// every route, page and tool that takes an agent id, each asked as a
// reader who knows the listed agent main and holds its passport bundle.
func hiddenQuestions(tw *trustWorld, main issuer.AgentID, bundle string) []question {
	anon := func(method, path, body string, header ...string) string {
		return tw.exchange("", method, path, body, header...)
	}
	skills := func(id issuer.AgentID, a *hiddenAgent, route, query string) string {
		return anon("GET", trustPath(id, a.skill, route, query), "")
	}
	assess := func(ids ...issuer.AgentID) func(id issuer.AgentID, a *hiddenAgent) string {
		return func(id issuer.AgentID, a *hiddenAgent) string {
			return anon("POST", "/api/public/trust/assess", args("agents", append(ids, id), "skills", []string{a.skill}))
		}
	}
	search := func(ids ...issuer.AgentID) func(id issuer.AgentID, a *hiddenAgent) string {
		return func(id issuer.AgentID, a *hiddenAgent) string {
			trust := make([]string, 0, len(ids)+1)
			for _, t := range append(ids, id) {
				trust = append(trust, string(t))
			}
			return tw.exchange(tw.key, "GET", "/api/memories/search?q=index&trust="+strings.Join(trust, ","), "")
		}
	}
	tool := func(name string, kv func(id issuer.AgentID, a *hiddenAgent) []any) func(id issuer.AgentID, a *hiddenAgent) string {
		return func(id issuer.AgentID, a *hiddenAgent) string { return tw.rawTool(name, args(kv(id, a)...)) }
	}
	return []question{
		{name: "GET /api/agents/{id}", ask: func(id issuer.AgentID, _ *hiddenAgent) string { return anon("GET", "/api/agents/"+string(id), "") }},
		{name: "GET /api/agents/{id}/reputation", ask: func(id issuer.AgentID, _ *hiddenAgent) string {
			return tw.exchange(tw.key, "GET", "/api/agents/"+string(id)+"/reputation", "")
		}},
		{name: "GET /api/agents/{id}/reputation?domain&limit", ask: func(id issuer.AgentID, _ *hiddenAgent) string {
			return tw.exchange(tw.key, "GET", "/api/agents/"+string(id)+"/reputation?domain=postgresql&limit=1", "")
		}},
		{name: "GET passport", ask: func(id issuer.AgentID, _ *hiddenAgent) string {
			return anon("GET", "/api/public/agents/"+string(id)+"/passport", "")
		}},
		{name: "GET passport, revalidated", ask: func(id issuer.AgentID, a *hiddenAgent) string {
			return anon("GET", "/api/public/agents/"+string(id)+"/passport?disclose=all", "", "If-None-Match", `"`+a.hash+`"`)
		}},
		{name: "GET passport evidence", ask: func(id issuer.AgentID, a *hiddenAgent) string {
			return anon("GET", "/api/public/agents/"+string(id)+"/passport/evidence?passportHash="+a.hash, "")
		}},
		{name: "GET skills", ask: func(id issuer.AgentID, _ *hiddenAgent) string {
			return anon("GET", "/api/public/agents/"+string(id)+"/skills", "")
		}},
		{name: "GET skill trust", ask: func(id issuer.AgentID, a *hiddenAgent) string { return skills(id, a, "trust", "") }},
		{name: "GET skill trust in context", ask: func(id issuer.AgentID, a *hiddenAgent) string { return skills(id, a, "trust", "workload=oltp") }},
		{name: "GET skill evidence", ask: func(id issuer.AgentID, a *hiddenAgent) string { return skills(id, a, "evidence", "limit=1") }},
		{name: "POST assess, alone", ask: assess()},
		{name: "POST assess, after a listed agent", ask: assess(main)},
		{name: "GET search, trust set of one", ask: search()},
		{name: "GET search, trust set with a listed agent", ask: search(main)},
		{name: "page /agents/{id}", ask: func(id issuer.AgentID, _ *hiddenAgent) string { return anon("GET", "/agents/"+string(id), "") }},
		{name: "page skill", ask: func(id issuer.AgentID, a *hiddenAgent) string {
			return anon("GET", "/agents/"+string(id)+"/skills/"+url.PathEscape(a.skill)+"?workload=oltp", "")
		}},
		{name: "page compare", ask: func(id issuer.AgentID, a *hiddenAgent) string {
			return anon("GET", "/trust/assess?agent="+string(main)+"&agent="+string(id)+"&skill="+url.QueryEscape(a.skill), "")
		}},
		{name: "page home, opening a profile", pure: true, ask: func(id issuer.AgentID, _ *hiddenAgent) string { return anon("GET", "/?agent="+string(id), "") }},
		{name: "get_agent_reputation", ask: tool("get_agent_reputation", func(id issuer.AgentID, _ *hiddenAgent) []any { return []any{"publicId", id} })},
		{name: "get_agent_passport", ask: tool("get_agent_passport", func(id issuer.AgentID, _ *hiddenAgent) []any { return []any{"publicId", id} })},
		{name: "get_agent_skills", ask: tool("get_agent_skills", func(id issuer.AgentID, _ *hiddenAgent) []any { return []any{"publicId", id} })},
		{name: "get_skill_trust", ask: tool("get_skill_trust", func(id issuer.AgentID, a *hiddenAgent) []any {
			return []any{"publicId", id, "skill", a.skill, "context", map[string]string{"workload": "oltp"}}
		})},
		{name: "get_skill_evidence", ask: tool("get_skill_evidence", func(id issuer.AgentID, a *hiddenAgent) []any {
			return []any{"publicId", id, "skill", a.skill, "limit", 1}
		})},
		{name: "assess_trust", ask: tool("assess_trust", func(id issuer.AgentID, a *hiddenAgent) []any {
			return []any{"agents", []issuer.AgentID{main, id}, "skills", []string{a.skill}}
		})},
		{name: "search_memories, trust set of one", ask: tool("search_memories", func(id issuer.AgentID, _ *hiddenAgent) []any {
			return []any{"query", "index", "trust", []issuer.AgentID{id}}
		})},
		{name: "search_memories, trust set with a listed agent", ask: tool("search_memories", func(id issuer.AgentID, _ *hiddenAgent) []any {
			return []any{"query", "index", "trust", []issuer.AgentID{main, id}}
		})},
		{name: "verify_passport, expecting the agent", pure: true, ask: tool("verify_passport", func(id issuer.AgentID, _ *hiddenAgent) []any {
			return []any{"bundle", bundle, "subject", id, "at", "2030-01-01T00:00:00Z"}
		})},
	}
}

// difference shows where two answers part: their first lines and what
// follows the first byte that differs.
func difference(got, want string) string {
	i := 0
	for i < len(got) && i < len(want) && got[i] == want[i] {
		i++
	}
	first := func(s string) string { l, _, _ := strings.Cut(s, "\n"); return l }
	from := max(0, i-40)
	return fmt.Sprintf("\n got %s … %.160q\nwant %s … %.160q", first(got), got[from:], first(want), want[from:])
}

// exchange sends one request, with key as its bearer token when not "",
// body as JSON when not "", the header pairs given and a fixed request id,
// and returns the whole answer: status, headers but Date, and body.
func (tw *trustWorld) exchange(key issuer.APIKey, method, path, body string, header ...string) string {
	tw.t.Helper()
	req, err := http.NewRequest(method, tw.srv.URL+path, strings.NewReader(body))
	if err != nil {
		tw.t.Fatal(err)
	}
	req.Header.Set(httpapi.RequestIDHeader, "fixed")
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+string(key))
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	res, err := http.DefaultTransport.RoundTrip(req) // a redirect is an answer
	if err != nil {
		tw.t.Fatal(err)
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		tw.t.Fatal(err)
	}
	res.Header.Del("Date")
	var hs strings.Builder
	res.Header.Write(&hs)
	return fmt.Sprintf("%d %s\n%s\n%s", res.StatusCode, res.Header.Get("Content-Type"), hs.String(), b)
}

// rawTool posts one tools/call of name with args (a JSON object) to /mcp
// as the test's own agent and returns the whole answer, as exchange does.
func (tw *trustWorld) rawTool(name, args string) string {
	body := `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"` + name + `","arguments":` + args + `}}`
	return tw.exchange(tw.key, "POST", "/mcp", body, "Accept", "application/json, text/event-stream")
}
