package mcpserver_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/remnant/passportkit/internal/mcpwire/mcpwiretest"
	"github.com/remnant/passportkit/issuer"
	"github.com/remnant/passportkit/issuer/httpapi"
	"github.com/remnant/passportkit/issuer/keyring"
	"github.com/remnant/passportkit/issuer/mcpserver"
	"github.com/remnant/passportkit/issuer/service"
	"github.com/remnant/passportkit/issuer/store"
	"github.com/remnant/passportkit/issuer/store/storetest"
	"github.com/remnant/passportkit/passport"
	"github.com/remnant/passportkit/reputation"
)

type env struct {
	t    *testing.T
	db   *store.DB
	srv  *httptest.Server
	ring *keyring.Keyring
}

var (
	_ mcpserver.PassportIssuer = (*service.Passports)(nil)
	_ mcpserver.TrustPublisher = (*keyring.Keyring)(nil)
	_ mcpserver.TrustReader    = (*service.Trust)(nil)
	_ mcpserver.AgentFinder    = (*service.Discovery)(nil)
	_ httpapi.MCPEndpoint      = (*mcpserver.Transport)(nil)
)

// newEnv serves the HTTP API with /mcp on loopback as serve builds it: the
// service, passports signed by a keyring with an active key, the key
// documents, discovery, and every MCP tool.
func newEnv(t *testing.T, db *store.DB) *env {
	log := storetest.Logger(t)
	ring, err := keyring.New(db, keyring.Config{Issuer: "https://issuer.test", Dir: filepath.Join(t.TempDir(), "keys")})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ring.EnsureActive(context.Background(), passport.EdDSA); err != nil {
		t.Fatal(err)
	}
	app := storetest.Service(db)
	passports := service.NewPassports(db, ring, service.PassportOptions{})
	trust := newTrust(t, passports, db)
	discovery := service.NewDiscovery(db, passports, storetest.Sealer(t, db), service.DiscoveryOptions{})
	tools := mcpserver.Handler(app, log, "test", mcpserver.WithPassports(passports), mcpserver.WithTrust(ring),
		mcpserver.WithTrustAPI(trust), mcpserver.WithDiscovery(discovery), mcpserver.WithBodyTimeout(10*time.Second))
	srv := httptest.NewServer(httpapi.New(app, log, httpapi.Config{RatePerSecond: 1000, Burst: 1000, Keys: ring, Passports: passports,
		Trust: trust, Agents: discovery, MCP: tools}))
	t.Cleanup(srv.Close)
	return &env{t: t, db: db, srv: srv, ring: ring}
}

func (e *env) agent(name string) (issuer.APIKey, issuer.Principal) {
	e.t.Helper()
	a, err := storetest.Admin(e.db).CreateAgent(context.Background(), service.NewAgent{Name: name})
	if err != nil {
		e.t.Fatal(err)
	}
	p, err := e.db.Authenticate(context.Background(), a.Key)
	if err != nil {
		e.t.Fatal(err)
	}
	return a.Key, p
}

func (e *env) session(key issuer.APIKey) *mcp.ClientSession {
	e.t.Helper()
	return mcpwiretest.Session(e.t, e.srv.URL+"/mcp", string(key))
}

// call invokes a tool and decodes its structured result into out, or
// returns the tool error.
func call(t *testing.T, cs *mcp.ClientSession, name string, args map[string]any, out any) *toolError {
	t.Helper()
	res := mcpwiretest.CallTool(t, cs, name, args)
	text := mcpwiretest.Text(t, res)
	if res.IsError {
		var te toolError
		if err := json.Unmarshal([]byte(text), &te); err != nil {
			t.Fatalf("%s: tool error %q", name, text)
		}
		return &te
	}
	if err := json.Unmarshal([]byte(text), out); err != nil {
		t.Fatalf("%s: %q: %v", name, text, err)
	}
	b, _ := json.Marshal(res.StructuredContent)
	if !json.Valid(b) || string(b) == "null" {
		t.Fatalf("%s: no structured content", name)
	}
	return nil
}

type toolError struct {
	Code   issuer.Code `json:"code"`
	Detail string      `json:"detail"`
}

func TestToolsShareValidationsWithHTTP(t *testing.T) {
	storetest.Run(t, func(t *testing.T, db *store.DB) {
		e := newEnv(t, db)
		ctx := context.Background()
		_, author := e.agent("author")
		evalKey, evaluator := e.agent("evaluator")
		mem, err := storetest.Service(db).Publish(ctx, author, issuer.Publication{Category: "sql", Domain: "sql", Title: "t", Content: "c", Confidence: 500})
		if err != nil {
			t.Fatal(err)
		}
		cs := e.session(evalKey)
		tools, err := cs.ListTools(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, tool := range tools.Tools {
			names = append(names, tool.Name)
		}
		slices.Sort(names)
		if want := []string{"accept_memory", "assess_trust", "browse_memories", "feedback_memory", "find_agents", "get_agent_passport", "get_agent_profile",
			"get_agent_reputation", "get_agent_skills", "get_memory", "get_memory_validations", "get_skill_evidence", "get_skill_trust", "holder_key_nonce",
			"publish_digest", "report_outcome", "search_memories", "set_holder_keys", "upload_artifact", "verify_passport", "wait_for_memories"}; !slices.Equal(names, want) {
			t.Fatalf("tools %v, want %v", names, want)
		}

		var fb issuer.FeedbackResult
		if te := call(t, cs, "feedback_memory", map[string]any{"memoryId": mem.ID, "type": "corroborate"}, &fb); te == nil || te.Code != issuer.CodeConsumptionRequired {
			t.Fatalf("unconsumed memory: %+v", te)
		}
		if _, err := storetest.Service(db).Retrieve(ctx, evaluator, mem.ID); err != nil {
			t.Fatal(err)
		}
		if te := call(t, cs, "feedback_memory", map[string]any{"memoryId": mem.ID, "type": "corroborate", "reason": "reproduced"}, &fb); te != nil {
			t.Fatalf("feedback_memory: %+v", te)
		}
		if !fb.OK || fb.Validation.Revision != 1 || fb.Confidence.State != reputation.StateObserved {
			t.Fatalf("result %+v", fb)
		}
		// The same position over HTTP.
		res, _, err := storetest.Service(db).SubmitFeedback(ctx, evaluator, mem.ID, issuer.Feedback{Type: reputation.Contradict}, issuer.TransportHTTP)
		if err != nil || res.Validation.ID != fb.Validation.ID || res.Validation.Revision != 2 {
			t.Fatalf("HTTP after MCP: %+v, %v", res, err)
		}
		var legacy issuer.FeedbackResult
		if te := call(t, cs, "feedback_memory", map[string]any{"memoryId": mem.ID, "verdict": "confirm", "note": "on reflection"}, &legacy); te != nil {
			t.Fatal(te)
		}
		if legacy.Validation.ID != fb.Validation.ID || legacy.Validation.Type != reputation.Corroborate || legacy.Validation.Revision != 3 {
			t.Fatalf("legacy over MCP: %+v", legacy.Validation)
		}

		var sum reputation.Summary
		if te := call(t, cs, "get_memory_validations", map[string]any{"memoryId": mem.ID}, &sum); te != nil {
			t.Fatal(te)
		}
		if sum != legacy.Confidence {
			t.Fatalf("summary %+v, want %+v", sum, legacy.Confidence)
		}
		var prof issuer.Profile
		if te := call(t, cs, "get_agent_profile", map[string]any{}, &prof); te != nil {
			t.Fatal(te)
		}
		if prof.PublicID != evaluator.AgentID || prof.Stats.FeedbackGiven != 1 {
			t.Fatalf("profile %+v", prof)
		}
		var rep issuer.ReputationReport
		if te := call(t, cs, "get_agent_reputation", map[string]any{"publicId": author.AgentID, "limit": 2}, &rep); te != nil {
			t.Fatal(te)
		}
		if len(rep.Events) != 2 || !rep.HasMore || rep.ReputationScore != 500 {
			t.Fatalf("report %+v", rep)
		}
		if te := call(t, cs, "get_agent_reputation", map[string]any{"publicId": author.AgentID, "limit": 51}, &rep); te == nil || te.Code != issuer.CodeInvalid {
			t.Fatalf("limit 51: %+v", te)
		}
		// Clients cannot smuggle server-resolved fields.
		res2, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "feedback_memory", Arguments: map[string]any{"memoryId": mem.ID, "type": "useful", "weight": 1}})
		if err == nil && !res2.IsError {
			t.Fatal("an unknown argument was accepted")
		}
	})
}

func TestMCPKeyOptionalAndBoundsMessages(t *testing.T) {
	db := storetest.Open(t, store.SQLite, store.Options{})
	e := newEnv(t, db)
	key, _ := e.agent("agent")
	post := func(key issuer.APIKey, body string) (int, string) {
		req, _ := http.NewRequest("POST", e.srv.URL+"/mcp", strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		if key != "" {
			req.Header.Set("Authorization", "Bearer "+string(key))
		}
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		io.Copy(io.Discard, res.Body)
		return res.StatusCode, res.Header.Get("Content-Type")
	}
	init := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}`
	if status, ct := post("pk_notakey", init); status != 401 || ct != "application/problem+json" {
		t.Fatalf("with a key that is not valid: %d %s", status, ct)
	}
	if status, _ := post("", init); status != 200 {
		t.Fatalf("initialize without a key: %d", status)
	}
	if status, _ := post(key, init); status != 200 {
		t.Fatalf("initialize: %d", status)
	}
	for _, tool := range []string{"feedback_memory", "find_agents"} {
		big := `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"` + tool + `","arguments":{"reason":"` + strings.Repeat("a", mcpserver.MaxMessage) + `"}}}`
		if status, ct := post(key, big); status != 413 || ct != "application/problem+json" {
			t.Fatalf("oversized message to %s: %d %s", tool, status, ct)
		}
	}
}
