package httpapi_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/remnant/passportkit/issuer"
	"github.com/remnant/passportkit/issuer/httpapi"
	"github.com/remnant/passportkit/issuer/httpapi/openapi/openapitest"
	"github.com/remnant/passportkit/issuer/mcpserver"
	"github.com/remnant/passportkit/issuer/service"
	"github.com/remnant/passportkit/issuer/store"
	"github.com/remnant/passportkit/issuer/store/storetest"
)

// env is a real server on loopback over a fresh store, and a client that
// checks every exchange against the OpenAPI document.
type env struct {
	t      testing.TB
	db     *store.DB
	srv    *httptest.Server
	client *http.Client
}

func newEnv(t testing.TB, db *store.DB, cfg httpapi.Config) *env {
	t.Helper()
	log := storetest.Logger(t)
	if cfg.RatePerSecond == 0 {
		cfg.RatePerSecond, cfg.Burst = 1000, 1000
	}
	cfg.MCP = mcpserver.Handler(storetest.Service(db), log, "test")
	return serve(t, db, httpapi.New(storetest.Service(db), log, cfg))
}

// serve runs h on loopback for t.
func serve(t testing.TB, db *store.DB, h http.Handler) *env {
	t.Helper()
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return &env{t: t, db: db, srv: srv, client: openapitest.Issuer(t).Client(t, srv.Client())}
}

// agent creates an agent and returns its key and ID.
func (e *env) agent(name string, scopes ...issuer.Scope) (issuer.APIKey, issuer.AgentID) {
	e.t.Helper()
	a, err := storetest.Admin(e.db).CreateAgent(context.Background(), service.NewAgent{Name: name, Scopes: scopes})
	if err != nil {
		e.t.Fatal(err)
	}
	return a.Key, a.ID
}

type response struct {
	status int
	header http.Header
	body   []byte
}

func (r response) json(t testing.TB, v any) {
	t.Helper()
	if err := json.Unmarshal(r.body, v); err != nil {
		t.Fatalf("decode %s: %v", r.body, err)
	}
}

func (e *env) do(key issuer.APIKey, method, path, body string) response {
	e.t.Helper()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequest(method, e.srv.URL+path, rd)
	if err != nil {
		e.t.Fatal(err)
	}
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+string(key))
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	res, err := e.client.Do(req)
	if err != nil {
		e.t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return response{status: res.StatusCode, header: res.Header, body: b}
}

// must checks the status of r.
func must(t testing.TB, r response, status int) response {
	t.Helper()
	if r.status != status {
		t.Fatalf("status %d, want %d: %s", r.status, status, r.body)
	}
	return r
}

// wantProblem checks that r is problem details with the given status and code.
func wantProblem(t testing.TB, r response, status int, code issuer.Code) httpapi.Problem {
	t.Helper()
	if ct := r.header.Get("Content-Type"); ct != "application/problem+json" {
		t.Fatalf("content type %q for %s", ct, r.body)
	}
	var p httpapi.Problem
	r.json(t, &p)
	if r.status != status || p.Status != status || p.Code != code || p.Type != "urn:passportkit:problem:"+string(code) || p.Title == "" {
		t.Fatalf("problem %+v (status %d), want %d %s", p, r.status, status, code)
	}
	return p
}

func TestValidationFlowOverHTTP(t *testing.T) {
	storetest.Run(t, func(t *testing.T, db *store.DB) {
		e := newEnv(t, db, httpapi.Config{})
		authorKey, authorID := e.agent("Author")
		evalKey, _ := e.agent("Evaluator")

		pub := must(t, e.do(authorKey, "POST", "/api/memories", `{"category":"Power BI / Performance","title":"Slow visuals",
			"content":"Aggregation tables fix slow visuals.","appliesTo":{"skill":"Power BI"},"confidence":0.6}`), 201)
		var mem issuer.Memory
		pub.json(t, &mem)
		if mem.Domain != "power bi / performance" || pub.header.Get("Location") != "/api/memories/"+string(mem.ID) {
			t.Fatalf("published %+v at %q", mem, pub.header.Get("Location"))
		}

		fbPath := "/api/memories/" + string(mem.ID) + "/feedback"
		body := `{"type":"corroborate","reason":"An independent reproduction supports this result.","idempotencyKey":"reproduction-001"}`
		wantProblem(t, e.do(evalKey, "POST", fbPath, body), 403, issuer.CodeConsumptionRequired)

		var got map[string]any
		must(t, e.do(evalKey, "GET", "/api/memories/"+string(mem.ID), ""), 200).json(t, &got)
		for _, k := range []string{"confidenceState", "validationSummary", "content", "confidence"} {
			if _, ok := got[k]; !ok {
				t.Fatalf("retrieval lacks %s: %v", k, got)
			}
		}

		res := must(t, e.do(evalKey, "POST", fbPath, body), 200)
		var fb struct {
			OK         bool `json:"ok"`
			Validation struct {
				ID       string `json:"id"`
				Type     string `json:"type"`
				Revision int    `json:"revision"`
			} `json:"validation"`
			Confidence map[string]any `json:"confidence"`
		}
		res.json(t, &fb)
		if !fb.OK || !strings.HasPrefix(fb.Validation.ID, "fb_") || fb.Validation.Type != "corroborate" || fb.Validation.Revision != 1 || fb.Confidence["state"] != "observed" {
			t.Fatalf("feedback response %s", res.body)
		}
		again := must(t, e.do(evalKey, "POST", fbPath, body), 200)
		if again.header.Get("Idempotent-Replayed") != "true" || !bytes.Equal(again.body, res.body) {
			t.Fatalf("retry: %s %q", again.body, again.header.Get("Idempotent-Replayed"))
		}
		legacy := must(t, e.do(evalKey, "POST", fbPath, `{"verdict":"outdated","note":"Fixed in the 2024 release."}`), 200)
		legacy.json(t, &fb)
		if fb.Validation.Type != "not_useful" || fb.Validation.Revision != 2 {
			t.Fatalf("legacy feedback %s", legacy.body)
		}

		var sum map[string]any
		must(t, e.do(evalKey, "GET", "/api/memories/"+string(mem.ID)+"/validations", ""), 200).json(t, &sum)
		if sum["state"] != "observed" || sum["negativeValidators"] != 1.0 || sum["counts"].(map[string]any)["not_useful"] != 1.0 {
			t.Fatalf("summary %v", sum)
		}

		var profile map[string]any
		must(t, e.do("", "GET", "/api/agents/"+string(authorID), ""), 200).json(t, &profile)
		if profile["reputationScore"] != -0.25 || profile["trustLevel"] != "new" || len(profile) != 7 {
			t.Fatalf("public profile %v", profile)
		}
		var me map[string]any
		must(t, e.do(authorKey, "GET", "/api/agents/me", ""), 200).json(t, &me)
		if me["publicId"] != string(authorID) || me["status"] != "active" {
			t.Fatalf("me %v", me)
		}
		var rep issuer.ReputationReport
		must(t, e.do(evalKey, "GET", "/api/agents/"+string(authorID)+"/reputation?domain=power%20bi%20%2F%20performance&limit=2", ""), 200).json(t, &rep)
		if rep.PolicyVersion != "independent-validation-v2" || len(rep.Events) != 2 || !rep.HasMore || rep.Events[0].Phase != "apply" {
			t.Fatalf("report %+v", rep)
		}
		wantProblem(t, e.do(evalKey, "GET", "/api/agents/"+string(authorID)+"/reputation?limit=51", ""), 400, issuer.CodeInvalid)
		var next issuer.ReputationReport
		must(t, e.do(evalKey, "GET", "/api/agents/"+string(authorID)+"/reputation?domain=power%20bi%20%2F%20performance&limit=2&cursor="+rep.NextCursor, ""), 200).json(t, &next)
		if len(next.Events) == 0 || next.Events[0] == rep.Events[1] {
			t.Fatalf("second page %+v", next)
		}
		wantProblem(t, e.do(evalKey, "GET", "/api/agents/"+string(authorID)+"/reputation?offset=2", ""), 400, issuer.CodeInvalid)
		wantProblem(t, e.do(evalKey, "GET", "/api/agents/"+string(authorID)+"/reputation?cursor=AAAAAAAAAAA", ""), 400, issuer.CodeCursorInvalid)
	})
}

func TestConsultationFeedbackOverHTTP(t *testing.T) {
	storetest.Run(t, func(t *testing.T, db *store.DB) {
		e := newEnv(t, db, httpapi.Config{})
		authorKey, _ := e.agent("Author")
		evalKey, _ := e.agent("Evaluator")
		var ids []string
		for range 2 {
			var m issuer.Memory
			must(t, e.do(authorKey, "POST", "/api/memories", `{"category":"sql","title":"t","content":"c"}`), 201).json(t, &m)
			ids = append(ids, `"`+string(m.ID)+`"`)
		}
		var rc issuer.Receipt
		must(t, e.do(evalKey, "POST", "/api/receipts", `{"memoryIds":[`+strings.Join(ids, ",")+`]}`), 201).json(t, &rc)
		var res issuer.ReceiptFeedbackResult
		must(t, e.do(evalKey, "POST", "/api/receipts/"+string(rc.ID)+"/feedback", `{"receiptId":"`+string(rc.ID)+`","verdict":"confirm","note":"helped"}`), 200).json(t, &res)
		if !res.OK || len(res.Validations) != 2 || res.Validations[0].Validation.Type != "corroborate" {
			t.Fatalf("receipt feedback %+v", res)
		}
		otherKey, _ := e.agent("Other")
		wantProblem(t, e.do(otherKey, "POST", "/api/receipts/"+string(rc.ID)+"/feedback", `{"type":"useful"}`), 404, issuer.CodeNotFound)
	})
}

func TestProblemDetailsForEveryError(t *testing.T) {
	storetest.Run(t, func(t *testing.T, db *store.DB) {
		e := newEnv(t, db, httpapi.Config{})
		key, _ := e.agent("Agent")
		readOnly, _ := e.agent("Reader", issuer.ScopeSearch)
		var m issuer.Memory
		must(t, e.do(key, "POST", "/api/memories", `{"category":"sql","title":"t","content":"c"}`), 201).json(t, &m)
		fbPath := "/api/memories/" + string(m.ID) + "/feedback"

		wantProblem(t, e.do(key, "GET", "/api/nothing", ""), 404, issuer.CodeNotFound)
		r := e.do(key, "DELETE", "/api/memories/"+string(m.ID), "")
		wantProblem(t, r, 405, issuer.CodeMethodNotAllowed)
		if r.header.Get("Allow") == "" {
			t.Fatal("405 without Allow")
		}
		wantProblem(t, e.do("", "GET", "/api/agents/me", ""), 401, issuer.CodeUnauthorized)
		r = e.do("pk_notakey", "GET", "/api/agents/me", "")
		wantProblem(t, r, 401, issuer.CodeUnauthorized)
		if !strings.HasPrefix(r.header.Get("WWW-Authenticate"), "Bearer") {
			t.Fatal("401 without WWW-Authenticate")
		}
		// /mcp refuses a key that is not valid as it answers its own
		// errors, with the JSON-RPC members, which the document requires
		// of it; without a key a request is anonymous.
		r = e.do("pk_notakey", "POST", "/mcp", `{"jsonrpc":"2.0","id":3,"method":"ping"}`)
		wantProblem(t, r, 401, issuer.CodeUnauthorized)
		if !strings.Contains(string(r.body), `"jsonrpc":"2.0","id":3,"error":{"code":-32600,`) || r.header.Get("WWW-Authenticate") == "" {
			t.Fatalf("/mcp with a key that is not valid: %v %s", r.header, r.body)
		}
		wantProblem(t, e.do(readOnly, "POST", fbPath, `{"type":"useful"}`), 403, issuer.CodeInsufficientScope)
		wantProblem(t, e.do(key, "POST", fbPath, `{"type":"useful"}`), 403, issuer.CodeSelfFeedback)
		wantProblem(t, e.do(key, "POST", fbPath, `{"type":"agree"}`), 400, issuer.CodeInvalid)
		wantProblem(t, e.do(key, "POST", fbPath, `{"type":"useful","reason":"`+strings.Repeat("a", 20<<10)+`"}`), 413, issuer.CodeTooLarge)
		wantProblem(t, e.do(key, "GET", "/api/memories/mem_unknown", ""), 404, issuer.CodeNotFound)
		wantProblem(t, e.do("", "GET", "/api/agents/agt_aaaaaaaaaaaaaaaaaaaaaaaaaa", ""), 404, issuer.CodeNotFound)
		wantProblem(t, e.do(key, "POST", "/api/memories/"+string(m.ID)+"/moderation", `{"status":"removed"}`), 403, issuer.CodeInsufficientScope)

		req, _ := http.NewRequest("POST", e.srv.URL+fbPath, strings.NewReader(`type=useful`))
		req.Header.Set("Authorization", "Bearer "+string(key))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		res, err := e.client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(res.Body)
		res.Body.Close()
		wantProblem(t, response{status: res.StatusCode, header: res.Header, body: b}, 415, issuer.CodeUnsupportedMedia)
	})
}

func TestInternalErrorsAreNotReturned(t *testing.T) {
	db := storetest.Open(t, store.SQLite, store.Options{})
	e := newEnv(t, db, httpapi.Config{})
	key, _ := e.agent("Agent")
	db.Close()
	p := wantProblem(t, e.do(key, "GET", "/api/agents/me", ""), 500, issuer.CodeInternal)
	if strings.Contains(p.Detail, "closed") || strings.Contains(p.Detail, "sql") {
		t.Fatalf("internal detail leaked: %q", p.Detail)
	}
}

func TestRateLimitPerKey(t *testing.T) {
	db := storetest.Open(t, store.SQLite, store.Options{})
	now := time.Unix(1_700_000_000, 0)
	var mu sync.Mutex
	clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	e := newEnv(t, db, httpapi.Config{RatePerSecond: 1, Burst: 2, Now: clock})
	a, _ := e.agent("A")
	b, _ := e.agent("B")
	must(t, e.do(a, "GET", "/api/agents/me", ""), 200)
	must(t, e.do(a, "GET", "/api/agents/me", ""), 200)
	r := e.do(a, "GET", "/api/agents/me", "")
	wantProblem(t, r, 429, issuer.CodeRateLimited)
	if r.header.Get("Retry-After") != "1" {
		t.Fatalf("Retry-After %q", r.header.Get("Retry-After"))
	}
	must(t, e.do(b, "GET", "/api/agents/me", ""), 200) // another key has its own budget
	mu.Lock()
	now = now.Add(time.Second)
	mu.Unlock()
	must(t, e.do(a, "GET", "/api/agents/me", ""), 200)
}

func TestConcurrentIdempotentRequestsOverHTTP(t *testing.T) {
	storetest.Run(t, func(t *testing.T, db *store.DB) {
		e := newEnv(t, db, httpapi.Config{})
		authorKey, _ := e.agent("Author")
		evalKey, _ := e.agent("Evaluator")
		var m issuer.Memory
		must(t, e.do(authorKey, "POST", "/api/memories", `{"category":"sql","title":"t","content":"c"}`), 201).json(t, &m)
		must(t, e.do(evalKey, "GET", "/api/memories/"+string(m.ID), ""), 200)
		const n = 50
		out := make([]response, n)
		var wg sync.WaitGroup
		for i := range n {
			wg.Add(1)
			go func() {
				defer wg.Done()
				out[i] = e.do(evalKey, "POST", "/api/memories/"+string(m.ID)+"/feedback", `{"type":"used_successfully","idempotencyKey":"storm"}`)
			}()
		}
		wg.Wait()
		fresh := 0
		for i, r := range out {
			must(t, r, 200)
			if !bytes.Equal(r.body, out[0].body) {
				t.Fatalf("response %d differs: %s vs %s", i, r.body, out[0].body)
			}
			if r.header.Get("Idempotent-Replayed") == "" {
				fresh++
			}
		}
		var events int
		if err := db.UnsafeSQL().Get(&events, `SELECT COUNT(*) FROM reputation_events`); err != nil || events != 1 || fresh != 1 {
			t.Fatalf("%d journal entries, %d fresh responses (%v); want 1 and 1", events, fresh, err)
		}
	})
}
