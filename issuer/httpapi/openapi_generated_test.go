package httpapi_test

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/remnant/passportkit/internal/seal"
	"github.com/remnant/passportkit/issuer"
	"github.com/remnant/passportkit/issuer/httpapi"
	"github.com/remnant/passportkit/issuer/httpapi/openapi"
	"github.com/remnant/passportkit/issuer/httpapi/openapi/openapigen"
	"github.com/remnant/passportkit/issuer/httpapi/openapi/openapitest"
	"github.com/remnant/passportkit/issuer/keyring"
	"github.com/remnant/passportkit/issuer/mcpserver"
	"github.com/remnant/passportkit/issuer/metrics"
	"github.com/remnant/passportkit/issuer/service"
	"github.com/remnant/passportkit/issuer/store"
	"github.com/remnant/passportkit/issuer/store/storetest"
	"github.com/remnant/passportkit/issuer/web"
	"github.com/remnant/passportkit/passport"
)

var (
	openapiN    = flag.Int("openapi.n", 0, "requests of each kind generated per operation by TestOpenAPIGeneratedRequests (0: 10, or 3 with -short)")
	openapiSeed = flag.Uint64("openapi.seed", 26, "seed of TestOpenAPIGeneratedRequests")
)

// allowedRefusal is a refusal of a request the document's schemas accept
// that is nonetheless right: the rule depends on the server's state or on
// a secret, which no schema can state. Each is stated in the operation's
// description. Statuses other than 400 and 422 (401, 403, 404, 409, 429)
// are not schema refusals and are not listed.
type allowedRefusal struct {
	op     string // "METHOD path", or "" for every operation
	code   issuer.Code
	detail string // a fragment of the detail, or "" for any
	why    string
}

var allowedRefusals = []allowedRefusal{
	{"", issuer.CodeCursorInvalid, "", "a cursor is sealed by the server: only one it returned opens"},
	{"PUT /api/agents/me/holder-keys", issuer.CodeHolderKeyInvalid, "", "a JWK is checked as a key, which a schema cannot do"},
	{"PUT /api/agents/me/holder-keys", issuer.CodeHolderProofInvalid, "", "a proof is checked by its signature"},
	{"PUT /api/agents/me/holder-keys", issuer.CodeHolderNonceInvalid, "", "a proof's nonce must be one the server handed out"},
	{"GET /api/memories/search", issuer.CodeInvalid, "distinct words", "a 17th distinct word of q: words compared lower-cased, which a pattern cannot count"},
	{"POST /api/public/trust/assess", issuer.CodeInvalid, "name the same skill", "two skill terms naming one skill once normalised (skills-1)"},
	{"POST /api/memories", issuer.CodeInvalid, "is not a digest", "what a digest supersedes must be a digest, which depends on the memory named"},
	{"POST /api/memories/{id}/feedback", issuer.CodeInvalid, "text addressed to a reading model", "evidence text addressed to a reading model: a list of phrases, which a pattern cannot list case-blind"},
}

// TestOpenAPIGeneratedRequests holds the server to its document in both
// directions, for every operation: requests generated from the schemas
// (package openapigen) that the document accepts are not refused for a
// rule it does not state (400 or 422 with a code outside allowedRefusals
// fails), and requests that break one rule of the document are refused
// with 400 or 422 and problem details (413 where the rule broken makes
// the body exceed its bound, such as a fifth holder key). No request is answered 5xx, and
// every answer is checked against the document (package openapitest).
func TestOpenAPIGeneratedRequests(t *testing.T) {
	n := *openapiN
	if n == 0 {
		n = 10
		if testing.Short() {
			n = 3
		}
	}
	ctx := context.Background()
	db := storetest.Open(t, store.SQLite, store.Options{})
	srv := httptest.NewServer(signingServer(t, db))
	t.Cleanup(srv.Close)
	v := openapitest.Issuer(t)
	client := v.Client(t, srv.Client())

	admin := storetest.Admin(db)
	var agents []service.CreatedAgent
	for _, name := range []string{"Caller", "Author"} {
		a, err := admin.CreateAgent(ctx, service.NewAgent{Name: name, Scopes: issuer.AllScopes})
		if err != nil {
			t.Fatal(err)
		}
		agents = append(agents, a)
	}
	caller, author := agents[0], agents[1]
	send := func(key issuer.APIKey, method, url string, body []byte, h http.Header) (*http.Response, []byte) {
		t.Helper()
		var rd io.Reader
		if body != nil {
			rd = bytes.NewReader(body)
		}
		req, err := http.NewRequest(method, srv.URL+url, rd)
		if err != nil {
			t.Fatal(err)
		}
		for k, vs := range h {
			req.Header[k] = vs
		}
		if key != "" {
			req.Header.Set("Authorization", "Bearer "+string(key))
		}
		res, err := client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		return res, b
	}
	jsonHeader := http.Header{"Content-Type": {"application/json"}}
	var memories []string
	for i, key := range []issuer.APIKey{author.Key, author.Key, caller.Key} {
		body := fmt.Sprintf(`{"category":"databases","title":"Index %d","content":"Use a partial index.","appliesTo":{"skill":"PostgreSQL indexing","domain":"databases"}}`, i)
		res, b := send(key, "POST", "/api/memories", []byte(body), jsonHeader)
		var m struct {
			ID string `json:"id"`
		}
		if res.StatusCode != http.StatusCreated || json.Unmarshal(b, &m) != nil {
			t.Fatalf("publish: %d %s", res.StatusCode, b)
		}
		memories = append(memories, m.ID)
	}
	res, b := send(caller.Key, "POST", "/api/receipts", []byte(`{"memoryIds":["`+memories[0]+`","`+memories[1]+`"]}`), jsonHeader)
	var receipt struct {
		ID string `json:"id"`
	}
	if res.StatusCode >= 300 || json.Unmarshal(b, &receipt) != nil || receipt.ID == "" {
		t.Fatalf("consult: %d %s", res.StatusCode, b)
	}
	ids := []string{string(caller.ID), string(author.ID)}
	pools := map[string][]string{
		"^mem_[a-z2-7]{26}$":                     memories,
		"^agt_[a-z2-7]{26}$":                     ids,
		"^rcp_[a-z2-7]{26}$":                     {receipt.ID},
		"^agt_[a-z2-7]{26}(,agt_[a-z2-7]{26})*$": {ids[0], ids[1], ids[0] + "," + ids[1]},
	}
	gen, err := openapigen.New(openapi.Document(), *openapiSeed, pools)
	if err != nil {
		t.Fatal(err)
	}
	for _, op := range gen.Operations() {
		t.Run(op.String(), func(t *testing.T) {
			key := issuer.APIKey("")
			if op.Secured {
				key = caller.Key
			}
			exchange := func(r openapigen.Request) (*http.Response, []byte) {
				h := r.Header.Clone()
				if op.Path == "/mcp" {
					h.Set("Accept", "application/json, text/event-stream")
				}
				return send(key, r.Method, r.URL(), r.Body, h)
			}
			refused := func(r openapigen.Request) error {
				req, err := http.NewRequest(r.Method, "http://issuer.test"+r.URL(), bytes.NewReader(r.Body))
				if err != nil {
					return err
				}
				req.Header = r.Header.Clone()
				if key != "" {
					req.Header.Set("Authorization", "Bearer "+string(key))
				}
				return v.Refuses(req, r.Body)
			}
			valid, invalid, unbroken, codes := map[int]int{}, map[int]int{}, 0, map[issuer.Code]int{}
			defer func() {
				t.Logf("%s: valid requests answered %v (refusals allowed: %v); invalid ones %v; %d mutations the document still admitted, not sent", op, valid, codes, invalid, unbroken)
			}()
			for range n {
				var r openapigen.Request
				var why error
				for range 64 {
					r = gen.Valid(op)
					if why = refused(r); why == nil {
						break
					}
				}
				if why != nil {
					t.Fatalf("no valid request drawn in 64 tries; the last, %s %s, is refused by the document: %v", r.Method, r.URL(), why)
				}
				res, body := exchange(r)
				valid[res.StatusCode]++
				switch {
				case res.StatusCode >= 500:
					t.Errorf("%s %s %s: %d %s", r.Method, r.URL(), r.Body, res.StatusCode, body)
				case res.StatusCode == http.StatusBadRequest || res.StatusCode == http.StatusUnprocessableEntity:
					var p struct {
						Code   issuer.Code `json:"code"`
						Detail string      `json:"detail"`
					}
					_ = json.Unmarshal(body, &p)
					codes[p.Code]++
					if !allowed(op.String(), p.Code, p.Detail) {
						t.Errorf("a request the document accepts is refused for a rule it does not state:\n%s %s\n%s\n→ %d %s", r.Method, r.URL(), r.Body, res.StatusCode, body)
					}
				}
			}
			for range n {
				r, ok := gen.Invalid(op)
				if !ok {
					return
				}
				if !r.Dependency && refused(r) == nil {
					unbroken++ // the mutation did not break the rule (a union admits the value)
					continue
				}
				res, body := exchange(r)
				invalid[res.StatusCode]++
				if (res.StatusCode != http.StatusBadRequest && res.StatusCode != http.StatusUnprocessableEntity && res.StatusCode != http.StatusRequestEntityTooLarge) || res.Header.Get("Content-Type") != "application/problem+json" {
					t.Errorf("a request that breaks a rule of the document (%s) is not refused:\n%s %s\n%s\n→ %d %s", r.Broken, r.Method, r.URL(), r.Body, res.StatusCode, body)
				}
			}
		})
	}
}

// signingServer is fullServerOn with every component sharing one key
// ring that holds an active signing key, so that the passport and trust
// routes answer rather than 503.
func signingServer(t *testing.T, db *store.DB) *httpapi.Server {
	t.Helper()
	ring, err := keyring.New(db, keyring.Config{Issuer: "https://issuer.test", Dir: filepath.Join(t.TempDir(), "keys")})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ring.EnsureActive(context.Background(), passport.EdDSA); err != nil {
		t.Fatal(err)
	}
	log := storetest.QuietLogger(t)
	met := metrics.New(log)
	passports := service.NewPassports(db, ring, service.PassportOptions{})
	trust := storetest.Trust(t, passports, db, make([]byte, seal.KeySize))
	pages, err := web.New(web.Config{Profiles: storetest.Service(db), Passports: passports, Trust: trust, Keys: ring, Logger: log})
	if err != nil {
		t.Fatal(err)
	}
	// A feed read waits at most 50 ms here: generated reads may ask for 30 s.
	app := service.New(db, service.Options{Cursors: storetest.Sealer(t, db), Issuer: storetest.Issuer, FeedWaitCap: 50 * time.Millisecond})
	return httpapi.New(app, log, httpapi.Config{
		RatePerSecond: 1000, Burst: 1000, BodyTimeout: time.Second, Now: time.Now,
		MCP:         mcpserver.Handler(storetest.Service(db), log, "test"),
		Keys:        ring,
		Passports:   passports,
		Observer:    met,
		Metrics:     met.Handler(),
		Trust:       trust,
		Pages:       pages,
		Agents:      service.NewDiscovery(db, passports, storetest.Sealer(t, db), service.DiscoveryOptions{}),
		StatusLists: service.NewStatusLists(db, ring, service.StatusListOptions{}),
	})
}

func allowed(op string, code issuer.Code, detail string) bool {
	for _, a := range allowedRefusals {
		if (a.op == "" || a.op == op) && a.code == code && strings.Contains(detail, a.detail) {
			return true
		}
	}
	return false
}
