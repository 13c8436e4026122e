package mcpserver_test

import (
	"encoding/json"
	"io"
	"net/http"
	"testing"

	"github.com/remnant/passportkit/issuer"
	"github.com/remnant/passportkit/issuer/service"
	"github.com/remnant/passportkit/issuer/store"
	"github.com/remnant/passportkit/issuer/store/storetest"
)

// TestReputationToolCursorsAreSealed: get_agent_reputation continues a
// journal only with a cursor returned for that journal, domain and viewer,
// by either transport; any other is cursor_invalid, on both engines.
func TestReputationToolCursorsAreSealed(t *testing.T) {
	storetest.Run(t, func(t *testing.T, db *store.DB) {
		e := newEnv(t, db)
		viewerKey, _ := e.agent("viewer")
		otherKey, _ := e.agent("other viewer")
		_, author := e.agent("author")
		_, second := e.agent("second author")
		var evaluators []issuer.Principal
		for _, name := range []string{"e1", "e2", "e3"} {
			_, p := e.agent(name)
			evaluators = append(evaluators, p)
		}
		storetest.Journal(t, db, author, evaluators, "sql", "go")
		storetest.Journal(t, db, second, evaluators, "sql")
		viewer, other := e.session(viewerKey), e.session(otherKey)
		args := func(id issuer.AgentID, kv ...any) map[string]any {
			m := map[string]any{"publicId": string(id)}
			for i := 0; i < len(kv); i += 2 {
				m[kv[i].(string)] = kv[i+1]
			}
			return m
		}
		var all, first issuer.ReputationReport
		if te := call(t, viewer, "get_agent_reputation", args(author.AgentID, "limit", 50), &all); te != nil {
			t.Fatal(te)
		}
		if te := call(t, viewer, "get_agent_reputation", args(author.AgentID, "limit", 2), &first); te != nil || first.NextCursor == "" {
			t.Fatalf("%+v %+v", first, te)
		}
		cursor := first.NextCursor
		var next issuer.ReputationReport
		if te := call(t, viewer, "get_agent_reputation", args(author.AgentID, "limit", 2, "cursor", cursor), &next); te != nil ||
			len(next.Events) != 2 || next.Events[0] != all.Events[2] {
			t.Fatalf("the next page %+v %+v", next.Events, te)
		}
		// A cursor the HTTP route returned continues over MCP, and back.
		var overHTTP issuer.ReputationReport
		res, err := e.httpGet(viewerKey, "/api/agents/"+string(author.AgentID)+"/reputation?limit=2")
		if err != nil || json.Unmarshal(res, &overHTTP) != nil || overHTTP.NextCursor == "" {
			t.Fatalf("over HTTP: %s %v", res, err)
		}
		if te := call(t, viewer, "get_agent_reputation", args(author.AgentID, "limit", 2, "cursor", overHTTP.NextCursor), &next); te != nil ||
			next.Events[0] != all.Events[2] {
			t.Fatalf("an HTTP cursor over MCP: %+v %+v", next.Events, te)
		}

		var foreign issuer.ReputationReport
		if te := call(t, other, "get_agent_reputation", args(author.AgentID, "limit", 1), &foreign); te != nil {
			t.Fatal(te)
		}
		cases := map[string]map[string]any{
			"an internal row id":         args(author.AgentID, "cursor", "AAAAAAAAAAE"),
			"another agent's journal":    args(second.AgentID, "cursor", cursor),
			"an unknown agent's journal": args("agt_qqqqqqqqqqqqqqqqqqqqqqqqqq", "cursor", cursor),
			"another domain":             args(author.AgentID, "domain", "sql", "cursor", cursor),
			"another viewer's":           args(author.AgentID, "cursor", foreign.NextCursor),
			"empty":                      args(author.AgentID, "cursor", ""),
		}
		for name, forged := range storetest.ForgedCursors(t, db, service.JournalPurpose, cursor) {
			cases[name] = args(author.AgentID, "cursor", forged)
		}
		for name, a := range cases {
			t.Run(name, func(t *testing.T) {
				var rep issuer.ReputationReport
				if te := call(t, viewer, "get_agent_reputation", a, &rep); te == nil || te.Code != issuer.CodeCursorInvalid {
					t.Fatalf("%+v: %+v", rep, te)
				}
			})
		}
	})
}

// httpGet reads path from the environment's HTTP API with key.
func (e *env) httpGet(key issuer.APIKey, path string) ([]byte, error) {
	req, err := http.NewRequest("GET", e.srv.URL+path, nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Authorization", "Bearer "+string(key))
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, err
	}
	defer res.Body.Close()
	return io.ReadAll(res.Body)
}
