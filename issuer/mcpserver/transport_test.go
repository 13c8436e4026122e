package mcpserver_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/remnant/passportkit/internal/mcpwire/mcpwiretest"
	"github.com/remnant/passportkit/issuer"
	"github.com/remnant/passportkit/issuer/mcpserver"
	"github.com/remnant/passportkit/issuer/store"
	"github.com/remnant/passportkit/issuer/store/storetest"
)

// issuerRobustness describes /mcp to the robustness suite: stateless, with
// eight tools and the HTTP message bound.
var issuerRobustness = mcpwiretest.Options{MaxFrame: mcpserver.MaxMessage, HTTP: true, Stateless: true, Tools: 8}

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
