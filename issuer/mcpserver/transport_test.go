package mcpserver_test

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/remnant/passportkit/internal/clitest"
	"github.com/remnant/passportkit/internal/mcpwire/mcpwiretest"
	"github.com/remnant/passportkit/issuer"
	"github.com/remnant/passportkit/issuer/httpapi"
	"github.com/remnant/passportkit/issuer/mcpserver"
	"github.com/remnant/passportkit/issuer/store"
	"github.com/remnant/passportkit/issuer/store/storetest"
)

// issuerRobustness describes /mcp to the robustness suite: stateless, with
// thirteen tools and the HTTP message bound.
var issuerRobustness = mcpwiretest.Options{MaxFrame: mcpserver.MaxMessage, HTTP: true, Stateless: true, Tools: 21}

// TestMCPRobustness runs the protocol robustness suite against /mcp while
// another client's session calls tools throughout: no frame disturbs it.
func TestMCPRobustness(t *testing.T) {
	db := storetest.Open(t, store.SQLite, store.Options{})
	e := newEnv(t, db)
	key, _ := e.agent("prober")
	otherKey, _ := e.agent("bystander")
	other := e.session(otherKey)

	stop := make(chan struct{})
	var wg sync.WaitGroup
	var calls int
	var failure error
	wg.Go(func() {
		for {
			select {
			case <-stop:
				return
			default:
			}
			res, err := other.CallTool(context.Background(), &mcp.CallToolParams{Name: "get_agent_profile", Arguments: map[string]any{}})
			if err != nil || res.IsError {
				failure = err
				if err == nil {
					failure = &issuer.Error{Code: issuer.CodeInternal, Message: "error result"}
				}
				return
			}
			calls++
		}
	})
	mcpwiretest.Run(t, &mcpwiretest.HTTP{URL: e.srv.URL + "/mcp", Bearer: string(key)}, issuerRobustness)
	close(stop)
	wg.Wait()
	if failure != nil || calls == 0 {
		t.Fatalf("the other session: %d calls, then %v", calls, failure)
	}
}

// TestMCPTransportProblems: refusals before a message is read are problem
// details carrying a JSON-RPC error too; an unknown notification is
// accepted and ignored.
func TestMCPTransportProblems(t *testing.T) {
	db := storetest.Open(t, store.SQLite, store.Options{})
	e := newEnv(t, db)
	key, _ := e.agent("prober")
	c := &mcpwiretest.HTTP{URL: e.srv.URL + "/mcp", Bearer: string(key)}
	ping := []byte(`{"jsonrpc":"2.0","id":7,"method":"ping"}`)
	for _, tc := range []struct {
		name, method, contentType string
		body                      []byte
		status                    int
		code                      issuer.Code
		rpc                       int64
		id                        any
	}{
		{"GET", "GET", "", nil, 405, issuer.CodeMethodNotAllowed, jsonrpc.CodeInvalidRequest, nil},
		{"PUT", "PUT", "application/json", ping, 405, issuer.CodeMethodNotAllowed, jsonrpc.CodeInvalidRequest, nil},
		{"DELETE", "DELETE", "", nil, 405, issuer.CodeMethodNotAllowed, jsonrpc.CodeInvalidRequest, nil},
		{"text/plain", "POST", "text/plain", ping, 415, issuer.CodeUnsupportedMedia, jsonrpc.CodeInvalidRequest, nil},
		{"no Content-Type", "POST", "", ping, 415, issuer.CodeUnsupportedMedia, jsonrpc.CodeInvalidRequest, nil},
		{"latin-1", "POST", "application/json; charset=iso-8859-1", ping, 415, issuer.CodeUnsupportedMedia, jsonrpc.CodeInvalidRequest, nil},
		{"empty body", "POST", "application/json", nil, 400, issuer.CodeInvalid, jsonrpc.CodeParseError, nil},
		{"request without an id", "POST", "application/json", []byte(`{"jsonrpc":"2.0","method":"tools/list"}`), 400, issuer.CodeInvalid, jsonrpc.CodeInvalidRequest, nil},
		// The SDK's own refusal, rewritten: tools/call needs params.
		{"tools/call without params", "POST", "application/json", []byte(`{"jsonrpc":"2.0","id":"p","method":"tools/call"}`), 400, issuer.CodeInvalid, jsonrpc.CodeInvalidRequest, "p"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := c.Post(t, tc.method, tc.contentType, tc.body)
			var p struct {
				Type   string         `json:"type"`
				Status int            `json:"status"`
				Code   issuer.Code    `json:"code"`
				RPC    string         `json:"jsonrpc"`
				ID     any            `json:"id"`
				Error  *jsonrpc.Error `json:"error"`
			}
			if err := json.Unmarshal(a.Body, &p); err != nil {
				t.Fatalf("%d %q: %v", a.Status, a.Body, err)
			}
			if a.Status != tc.status || a.ContentType != "application/problem+json" || p.Status != tc.status || p.Code != tc.code ||
				p.RPC != "2.0" || p.ID != tc.id || p.Error == nil || p.Error.Code != tc.rpc {
				t.Fatalf("%d %s: %s", a.Status, a.ContentType, a.Body)
			}
		})
	}
	t.Run("Allow", func(t *testing.T) {
		req, _ := http.NewRequest("GET", c.URL, nil)
		req.Header.Set("Authorization", "Bearer "+string(key))
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		if res.Header.Get("Allow") != "POST" {
			t.Fatalf("Allow: %q", res.Header.Get("Allow"))
		}
	})
	t.Run("missing Accept", func(t *testing.T) {
		req, _ := http.NewRequest("POST", c.URL, nil)
		req.Body = http.NoBody
		req.Header.Set("Authorization", "Bearer "+string(key))
		req.Header.Set("Content-Type", "application/json")
		req.Body = nopBody(ping)
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		var p struct {
			Status int            `json:"status"`
			ID     any            `json:"id"`
			Error  *jsonrpc.Error `json:"error"`
			Detail string         `json:"detail"`
		}
		json.NewDecoder(res.Body).Decode(&p)
		if res.StatusCode != 400 || res.Header.Get("Content-Type") != "application/problem+json" || p.ID != 7.0 || p.Error == nil || p.Detail == "" {
			t.Fatalf("%d %s %+v", res.StatusCode, res.Header.Get("Content-Type"), p)
		}
	})
	t.Run("JSON-RPC error from the SDK", func(t *testing.T) {
		// A 2026-07-28 request without the headers that revision requires:
		// the SDK answers with a bare JSON-RPC error, rewritten with its code.
		req, _ := http.NewRequest("POST", c.URL, nopBody(ping))
		req.Header.Set("Authorization", "Bearer "+string(key))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("MCP-Protocol-Version", "2026-07-28")
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		var p struct {
			Status int            `json:"status"`
			Code   issuer.Code    `json:"code"`
			ID     any            `json:"id"`
			Error  *jsonrpc.Error `json:"error"`
			Detail string         `json:"detail"`
		}
		json.NewDecoder(res.Body).Decode(&p)
		if res.StatusCode != 400 || res.Header.Get("Content-Type") != "application/problem+json" || p.Status != 400 || p.Code != issuer.CodeInvalid ||
			p.ID != 7.0 || p.Error == nil || p.Error.Code == jsonrpc.CodeInvalidRequest || p.Detail != p.Error.Message {
			t.Fatalf("%d %s %+v %+v", res.StatusCode, res.Header.Get("Content-Type"), p, p.Error)
		}
	})
	t.Run("unknown notification", func(t *testing.T) {
		c.Notify(t, []byte(`{"jsonrpc":"2.0","method":"notifications/no_such_thing"}`))
	})
}

func nopBody(b []byte) io.ReadCloser { return io.NopCloser(bytes.NewReader(b)) }

// TestMCPMessageBounds: a message may take MaxMessage bytes after
// decompression, and a call of verify_passport MaxVerifyMessage; anything
// over its bound is 413 with -32600 and a null id, whatever else is wrong
// with it. Bodies may be gzip-encoded.
func TestMCPMessageBounds(t *testing.T) {
	db := storetest.Open(t, store.SQLite, store.Options{})
	e := newEnv(t, db)
	key, _ := e.agent("prober")
	subject := e.subject("Subject", 0)
	bundle := get(t, e.srv.URL+"/api/public/agents/"+string(subject)+"/passport")
	c := &mcpwiretest.HTTP{URL: e.srv.URL + "/mcp", Bearer: string(key)}

	// call is a tools/call frame of name whose bundle argument is the
	// bundle padded with spaces inside its string to n bytes in all, or
	// not padded when n is 0.
	call := func(id, name string, n int) []byte {
		head := `{"jsonrpc":"2.0"` + id + `,"method":"tools/call","params":{"name":"` + name + `","arguments":{"anySubject":true,"bundle":`
		b, _ := json.Marshal(string(bundle))
		tail := `}}}`
		pad := n - len(head) - len(b) - len(tail)
		if n == 0 {
			pad = 0
		} else if pad < 0 {
			t.Fatalf("%d bytes is too short", n)
		}
		return []byte(head + string(b[:len(b)-1]) + strings.Repeat(" ", pad) + `"` + tail)
	}
	gz := func(b []byte) []byte {
		var buf bytes.Buffer
		w := gzip.NewWriter(&buf)
		w.Write(b)
		w.Close()
		return buf.Bytes()
	}
	post := func(body []byte, encoding string) mcpwiretest.Answer {
		t.Helper()
		h := *c
		if encoding != "" {
			h.Header = http.Header{"Content-Encoding": {encoding}}
		}
		return h.Send(t, body)
	}
	type answer struct {
		Status int            `json:"status"`
		Code   issuer.Code    `json:"code"`
		Detail string         `json:"detail"`
		ID     any            `json:"id"`
		Error  *jsonrpc.Error `json:"error"`
		Result *struct {
			IsError bool `json:"isError"`
			Content []struct {
				Text string `json:"text"`
			} `json:"content"`
		} `json:"result"`
	}
	read := func(a mcpwiretest.Answer) answer {
		t.Helper()
		var x answer
		if err := json.Unmarshal(a.Body, &x); err != nil {
			t.Fatalf("%d %.300s: %v", a.Status, a.Body, err)
		}
		return x
	}
	tooLarge := func(name string, a mcpwiretest.Answer) {
		t.Helper()
		x := read(a)
		if a.Status != 413 || a.ContentType != "application/problem+json" || x.Code != issuer.CodeTooLarge || x.ID != nil ||
			x.Error == nil || x.Error.Code != jsonrpc.CodeInvalidRequest ||
			!strings.Contains(x.Detail, fmt.Sprint(mcpserver.MaxMessage)) || !strings.Contains(x.Detail, fmt.Sprint(mcpserver.MaxVerifyMessage)) {
			t.Fatalf("%s: %d %s %.400s", name, a.Status, a.ContentType, a.Body)
		}
	}
	verdict := func(name string, a mcpwiretest.Answer) string {
		t.Helper()
		x := read(a)
		if a.Status != 200 || x.Result == nil || len(x.Result.Content) == 0 {
			t.Fatalf("%s: %d %.400s", name, a.Status, a.Body)
		}
		var v struct {
			Verified bool   `json:"verified"`
			Code     string `json:"code"`
		}
		json.Unmarshal([]byte(x.Result.Content[0].Text), &v)
		if x.Result.IsError {
			return v.Code
		}
		return fmt.Sprint("verified ", v.Verified)
	}

	// verify_passport takes a message far over MaxMessage, up to its own bound.
	if got := verdict("a padded bundle", post(call(`,"id":1`, "verify_passport", 3*mcpserver.MaxMessage), "")); got != "verified false" {
		t.Fatalf("a bundle padded inside its string: %s", got)
	}
	if got := verdict("at the bound", post(call(`,"id":2`, "verify_passport", mcpserver.MaxVerifyMessage), "")); got != string(issuer.CodeTooLarge) {
		t.Fatalf("a message at the bound, its bundle over 512 KiB: %s", got)
	}
	tooLarge("over the bound", post(call(`,"id":3`, "verify_passport", mcpserver.MaxVerifyMessage+1), ""))
	// Every other message keeps MaxMessage.
	tooLarge("another tool", post(call(`,"id":4`, "get_agent_profile", mcpserver.MaxMessage+1), ""))
	tooLarge("the name in another case", post(call(`,"id":5`, "Verify_passport", mcpserver.MaxMessage+1), ""))
	tooLarge("a notification", post(call(``, "verify_passport", mcpserver.MaxMessage+1), ""))
	big := call(`,"id":6`, "verify_passport", mcpserver.MaxMessage+1)
	tooLarge("not JSON", post(append(big[:len(big)-1:len(big)-1], ','), ""))
	tooLarge("a duplicate member", post(bytes.Replace(big, []byte(`"anySubject":true`), []byte(`"anySubject":true,"anySubject":true`), 1), ""))

	// gzip: bounded after decompression.
	if got := verdict("gzip", post(gz(call(`,"id":7`, "verify_passport", 0)), "gzip")); got != "verified true" {
		t.Fatalf("a gzip-encoded call: %s", got)
	}
	tooLarge("gzip over the bound", post(gz(call(`,"id":8`, "verify_passport", mcpserver.MaxVerifyMessage+1)), "gzip"))
	tooLarge("gzip of another message", post(gz(call(`,"id":9`, "get_agent_profile", mcpserver.MaxMessage+1)), "gzip"))
	for _, c := range []struct {
		name, encoding string
		body           []byte
		status         int
		code           issuer.Code
	}{
		{"not gzip", "gzip", []byte(`{"jsonrpc":"2.0","id":1,"method":"ping"}`), 400, issuer.CodeInvalid},
		{"brotli", "br", []byte(`{"jsonrpc":"2.0","id":1,"method":"ping"}`), 415, issuer.CodeUnsupportedMedia},
	} {
		a := post(c.body, c.encoding)
		if x := read(a); a.Status != c.status || x.Code != c.code || x.Error == nil || x.Error.Code != jsonrpc.CodeInvalidRequest {
			t.Fatalf("%s: %d %s", c.name, a.Status, a.Body)
		}
	}
}

// rpcProblem is the body of an /mcp error: problem details with the
// JSON-RPC error response members.
type rpcProblem struct {
	Status int            `json:"status"`
	Code   issuer.Code    `json:"code"`
	RPC    *string        `json:"jsonrpc"`
	ID     any            `json:"id"`
	Error  *jsonrpc.Error `json:"error"`
}

// wantRPCProblem checks an /mcp error answer: its status and code, the
// JSON-RPC members with the id and error code given.
func wantRPCProblem(t *testing.T, status int, contentType string, body []byte, wantStatus int, code issuer.Code, id any, rpc int64) {
	t.Helper()
	var p rpcProblem
	if err := json.Unmarshal(body, &p); err != nil {
		t.Fatalf("%d %q: %v", status, body, err)
	}
	if status != wantStatus || contentType != "application/problem+json" || p.Status != wantStatus || p.Code != code ||
		p.RPC == nil || *p.RPC != "2.0" || p.ID != id || p.Error == nil || p.Error.Code != rpc || p.Error.Message == "" {
		t.Fatalf("%d %s %s, want %d %s with id %v and JSON-RPC error %d", status, contentType, body, wantStatus, code, id, rpc)
	}
}

// TestMCPRefusalsBeforeTheEndpointAreJSONRPC: a request the HTTP layer
// refuses before /mcp reads it (no key, a key that is not one, an unknown
// key, then too many of them) is answered like the endpoint's own transport
// errors, with the JSON-RPC members and the message's id when it can be
// read, keeping its status and headers; over raw TCP, with the MCP test
// client, and with the SDK's own client.
func TestMCPRefusalsBeforeTheEndpointAreJSONRPC(t *testing.T) {
	db := storetest.Open(t, store.SQLite, store.Options{})
	app := storetest.Service(db)
	log := storetest.Logger(t)
	serve := func(burst int) *httptest.Server {
		srv := httptest.NewServer(httpapi.New(app, log, httpapi.Config{RatePerSecond: 1e-6, Burst: burst,
			MCP: mcpserver.Handler(app, log, "test", mcpserver.WithBodyTimeout(5*time.Second))}))
		t.Cleanup(srv.Close)
		return srv
	}
	srv := serve(1000)
	addr := strings.TrimPrefix(srv.URL, "http://")
	ping := `{"jsonrpc":"2.0","id":7,"method":"ping"}`
	unknownKey := "pk_" + strings.Repeat("a", 52)
	raw := func(auth, body string) string {
		return "POST /mcp HTTP/1.1\r\nHost: x\r\n" + auth + "Content-Type: application/json\r\nAccept: application/json, text/event-stream\r\n" +
			fmt.Sprintf("Content-Length: %d\r\n\r\n%s", len(body), body)
	}
	wantUnauthorized := func(res *http.Response, body []byte, id any) {
		t.Helper()
		wantRPCProblem(t, res.StatusCode, res.Header.Get("Content-Type"), body, 401, issuer.CodeUnauthorized, id, jsonrpc.CodeInvalidRequest)
		if !strings.HasPrefix(res.Header.Get("WWW-Authenticate"), "Bearer ") {
			t.Fatalf("401 without a bearer challenge: %v", res.Header)
		}
	}

	t.Run("raw TCP", func(t *testing.T) {
		for _, c := range []struct {
			name, raw string
			id        any
		}{
			{"an empty key", raw("Authorization: Bearer\r\n", ping), 7.0},
			{"not a key", raw("Authorization: Bearer nope\r\n", `{"jsonrpc":"2.0","id":"p","method":"tools/list"}`), "p"},
			{"an unknown key", raw("Authorization: Bearer "+unknownKey+"\r\n", ping), 7.0},
			{"not a message", raw("Authorization: Bearer nope\r\n", `{"jsonrpc":"2.0","id":9}`), 9.0},
			{"not JSON", raw("Authorization: Bearer nope\r\n", `{"jsonrpc":`), nil},
			// The body is not asked for: the answer comes before any
			// 100 Continue.
			{"over the bound, waiting to send it", "POST /mcp HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer nope\r\nContent-Type: application/json\r\n" +
				fmt.Sprintf("Content-Length: %d\r\nExpect: 100-continue\r\n\r\n", mcpserver.MaxMessage+1), nil},
		} {
			t.Run(c.name, func(t *testing.T) {
				res, body := clitest.Exchange(t, addr, c.raw)
				wantUnauthorized(res, body, c.id)
			})
		}
	})
	t.Run("test client", func(t *testing.T) {
		a := (&mcpwiretest.HTTP{URL: srv.URL + "/mcp", Bearer: "nope"}).Send(t, []byte(ping))
		wantRPCProblem(t, a.Status, a.ContentType, a.Body, 401, issuer.CodeUnauthorized, 7.0, jsonrpc.CodeInvalidRequest)
	})
	t.Run("SDK client", func(t *testing.T) {
		// Without a key a client is anonymous: it connects.
		client := mcp.NewClient(&mcp.Implementation{Name: "c", Version: "1"}, nil)
		cs, err := client.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: srv.URL + "/mcp", DisableStandaloneSSE: true, MaxRetries: -1}, nil)
		if err != nil {
			t.Fatalf("connecting without a key: %v", err)
		}
		cs.Close()
	})
	t.Run("too many", func(t *testing.T) {
		addr := strings.TrimPrefix(serve(1).URL, "http://")
		res, body := clitest.Exchange(t, addr, raw("Authorization: Bearer nope\r\n", ping))
		wantUnauthorized(res, body, 7.0)
		res, body = clitest.Exchange(t, addr, raw("", ping)) // the address's burst is spent, for anonymous requests too
		wantRPCProblem(t, res.StatusCode, res.Header.Get("Content-Type"), body, 429, issuer.CodeRateLimited, 7.0, jsonrpc.CodeInvalidRequest)
		if res.Header.Get("Retry-After") == "" {
			t.Fatal("429 without Retry-After")
		}
	})
}
