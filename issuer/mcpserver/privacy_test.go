package mcpserver_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/remnant/passportkit/issuer"
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
		created, err := db.CreateAgent(ctx, store.NewAgent{Name: "private", Visibility: issuer.VisibilityPrivate})
		if err != nil {
			t.Fatal(err)
		}
		hiddenKey, hidden := created.Key, created.ID
		hp, err := db.Authenticate(ctx, hiddenKey)
		if err != nil {
			t.Fatal(err)
		}
		pub := func(p issuer.Principal) issuer.MemoryID {
			m, err := db.Publish(ctx, p, issuer.Publication{Category: "sql", Domain: "sql", Title: "t", Content: "c", Confidence: 500})
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
		// Asked by id, the private agent answers exactly as an agent that
		// does not exist (the answer repeats only the id asked for).
		const nobody = "agt_aaaaaaaaaaaaaaaaaaaaaaaaaa"
		for _, path := range []string{"/api/agents/%s", "/api/agents/%s/reputation"} {
			got := strings.ReplaceAll(get(viewerKey, strings.ReplaceAll(path, "%s", string(hidden))), string(hidden), nobody)
			if want := get(viewerKey, strings.ReplaceAll(path, "%s", nobody)); got != want {
				t.Errorf("%s: %s, unlike an unknown agent's %s", path, got, want)
			}
		}
		var out any
		got := toString(call(t, vcs, "get_agent_reputation", map[string]any{"publicId": string(hidden)}, &out))
		want := toString(call(t, vcs, "get_agent_reputation", map[string]any{"publicId": nobody}, &out))
		if strings.ReplaceAll(got, string(hidden), nobody) != want {
			t.Errorf("get_agent_reputation: %s, unlike an unknown agent's %s", got, want)
		}
		// The private agent sees itself.
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
