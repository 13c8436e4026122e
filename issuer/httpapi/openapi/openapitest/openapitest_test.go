package openapitest_test

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/remnant/passportkit/issuer/httpapi/openapi/openapitest"
)

const (
	key      = "pk_aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
	memory   = "mem_aaaaaaaaaaaaaaaaaaaaaaaaaa"
	receipt  = `{"id":"rcp_aaaaaaaaaaaaaaaaaaaaaaaaaa","memoryIds":["` + memory + `"],"createdAt":"2026-11-30T12:00:00Z"}`
	notFound = `{"type":"urn:passportkit:problem:not_found","title":"Not found","status":404,"code":"not_found"}`
	invalid  = `{"type":"urn:passportkit:problem:json_unknown_member","title":"Unknown member","status":400,"code":"json_unknown_member"}`

	agent    = "agt_aaaaaaaaaaaaaaaaaaaaaaaaaa"
	evidence = "/api/public/agents/" + agent + "/skills/PostgreSQL%20indexing/evidence"
	hash     = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
	file     = "/api/public/agents/" + agent + "/passport/evidence?passportHash=" + hash
	page     = `{"agent":"` + agent + `","skill":{"requested":"PostgreSQL indexing","normalized":"postgresql indexing","inOntology":true},` +
		`"context":{"workload":"oltp"},"passportHash":"` + hash + `","evidenceFile":"` + file + `","sourceCount":2,"offset":0,` +
		`"sources":[{"evidence":"ev_x1","type":"outcome","outcome":"success","quality":"OBSERVED_REUSE","skill":"postgres indexing",` +
		`"date":"2026-11-30","weight":0.5,"applicability":1,"contextMatch":0.5,"role":"counted","contradiction":"none","leaf":3,` +
		`"inspect":"` + file + `#/evidence/3"}],"nextOffset":1,"nextCursor":"AQ-_"}`
	comparison = `{"skills":[{"requested":"x","normalized":"x","inOntology":false}],"context":{},"agents":[]}`
)

// answer is a canned answer of the server under test.
type answer struct {
	status      int
	contentType string
	body        string
}

// exchange sends one request to a server that gives a, and checks the
// exchange.
func exchange(t *testing.T, v *openapitest.Validator, method, path, body string, header map[string]string, a answer) error {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		if a.contentType != "" {
			w.Header().Set("Content-Type", a.contentType)
		}
		w.WriteHeader(a.status)
		io.WriteString(w, a.body)
	}))
	defer srv.Close()
	req, err := http.NewRequest(method, srv.URL+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	for k, val := range header {
		req.Header.Set(k, val)
	}
	res, err := srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	resBody, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	return v.Check(req, []byte(body), res, resBody)
}

var (
	bearer   = map[string]string{"Authorization": "Bearer " + key, "Content-Type": "application/json"}
	jsonType = "application/json"
	problem  = "application/problem+json"
)

// TestCheck: exchanges that follow the document pass, refusals of what it
// refuses included; and the harness is not vacuous: each exchange that
// contradicts the document is reported, with why.
func TestCheck(t *testing.T) {
	v := openapitest.Issuer(t)
	cases := []struct {
		name         string
		method, path string
		body         string
		header       map[string]string
		answer       answer
		want         string // what the error says; "" when the exchange matches
	}{
		{"health", "GET", "/healthz", "", nil, answer{200, jsonType, `{"ok":true}`}, ""},
		{"consultation", "POST", "/api/receipts", `{"memoryIds":["` + memory + `"]}`, bearer, answer{201, jsonType, receipt}, ""},
		{"an unknown member refused", "POST", "/api/receipts", `{"memoryIds":["` + memory + `"],"extra":1}`, bearer, answer{400, problem, invalid}, ""},
		{"no key refused", "GET", "/api/agents/me", "", nil, answer{401, problem, `{"type":"urn:passportkit:problem:unauthorized","title":"Authentication required","status":401,"code":"unauthorized"}`}, ""},
		{"an unknown path", "GET", "/api/nowhere", "", nil, answer{404, problem, notFound}, ""},
		{"HEAD, as the GET it mirrors", "HEAD", "/.well-known/jwks.json", "", nil, answer{200, "application/jwk-set+json", ""}, ""},
		{"HEAD, with an undocumented status", "HEAD", "/healthz", "", nil, answer{201, jsonType, ""}, "does not match"},
		{"a semantic refusal of a valid request", "POST", "/api/memories/" + memory + "/feedback", `{"type":"useful"}`, bearer,
			answer{403, problem, `{"type":"urn:passportkit:problem:self_feedback","title":"Self-validation refused","status":403,"code":"self_feedback"}`}, ""},

		{"a member of the wrong type", "GET", "/healthz", "", nil, answer{200, jsonType, `{"ok":"yes"}`}, "does not match"},
		{"an undocumented member", "POST", "/api/receipts", `{"memoryIds":["` + memory + `"]}`, bearer,
			answer{201, jsonType, strings.Replace(receipt, `{`, `{"score":1,`, 1)}, "does not match"},
		{"a missing member", "POST", "/api/receipts", `{"memoryIds":["` + memory + `"]}`, bearer,
			answer{201, jsonType, `{"id":"rcp_aaaaaaaaaaaaaaaaaaaaaaaaaa","memoryIds":["` + memory + `"]}`}, "does not match"},
		{"an undocumented status", "GET", "/healthz", "", nil, answer{201, jsonType, `{"ok":true}`}, "does not match"},
		{"an undocumented media type", "GET", "/healthz", "", nil, answer{200, "text/html", `<p>ok</p>`}, "does not match"},
		{"a problem whose code belongs to another status", "GET", "/api/agents/agt_aaaaaaaaaaaaaaaaaaaaaaaaaa", "", nil,
			answer{404, problem, strings.ReplaceAll(notFound, "not_found", "invalid_request")}, "does not match"},
		{"an error that is not problem details", "GET", "/api/agents/agt_aaaaaaaaaaaaaaaaaaaaaaaaaa", "", nil,
			answer{404, "text/plain", "404 page not found"}, "does not match"},
		{"a request the document refuses, accepted", "POST", "/api/receipts", `{"memoryIds":["` + memory + `"],"extra":1}`, bearer,
			answer{201, jsonType, receipt}, "a request the document refuses"},
		{"a query out of bounds, accepted", "GET", "/api/memories/search?q=x&limit=51", "", bearer,
			answer{200, jsonType, `{"results":[],"trustSet":"own","hiddenLowTrust":0,"windowFull":false}`}, "a request the document refuses"},
		{"no key, accepted", "GET", "/api/agents/me", "", nil, answer{200, jsonType, `{}`}, "a request the document refuses"},
		{"an unknown path, answered", "GET", "/api/nowhere", "", nil, answer{200, jsonType, `{}`}, "describes no such operation"},
		{"an unknown path, answered in plain text", "GET", "/api/nowhere", "", nil, answer{404, "text/plain", "404 page not found"}, "not problem details"},
		{"an unknown method, answered", "DELETE", "/healthz", "", nil, answer{204, "", ""}, "describes no such operation"},

		{"a page of sources", "GET", evidence + "?workload=oltp&limit=1", "", nil, answer{200, jsonType, page}, ""},
		{"a page of sources with an undocumented member", "GET", evidence, "", nil,
			answer{200, jsonType, strings.Replace(page, `"leaf":3`, `"leaf":3,"reporter":"act_1"`, 1)}, "does not match"},
		{"a next offset without a next cursor", "GET", evidence, "", nil,
			answer{200, jsonType, strings.Replace(page, `,"nextCursor":"AQ-_"`, "", 1)}, "does not match"},
		{"a cursor outside base64url, accepted", "GET", evidence + "?cursor=a.b", "", nil, answer{200, jsonType, page}, "a request the document refuses"},
		{"an offset past 1,000, accepted", "GET", evidence + "?offset=1001", "", nil, answer{200, jsonType, page}, "a request the document refuses"},
		{"a code the route does not answer", "GET", strings.Replace(evidence, "/evidence", "/trust", 1), "", nil,
			answer{400, problem, `{"type":"urn:passportkit:problem:limit_out_of_range","title":"Limit out of range","status":400,"code":"limit_out_of_range"}`}, "does not match"},
		{"a comparison of six agents, accepted", "POST", "/api/public/trust/assess",
			`{"agents":["` + agent[:29] + `b","` + agent[:29] + `c","` + agent[:29] + `d","` + agent[:29] + `e","` + agent[:29] + `f","` + agent + `"],"skills":["x"]}`,
			map[string]string{"Content-Type": jsonType},
			answer{200, jsonType, comparison}, "a request the document refuses"},
		{"a comparison with no rows", "POST", "/api/public/trust/assess", `{"agents":["` + agent + `"],"skills":["x"],"context":null}`,
			map[string]string{"Content-Type": jsonType}, answer{200, jsonType, comparison}, "does not match"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := exchange(t, v, c.method, c.path, c.body, c.header, c.answer)
			switch {
			case c.want == "" && err != nil:
				t.Fatal(err)
			case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
				t.Fatalf("got %v, want an error saying %q", err, c.want)
			}
		})
	}
}

// TestGzipBodiesAreCheckedDecompressed: a gzip body is checked as the
// server reads it.
func TestGzipBodiesAreCheckedDecompressed(t *testing.T) {
	v := openapitest.Issuer(t)
	gz := func(s string) string {
		var b bytes.Buffer
		w := gzip.NewWriter(&b)
		io.WriteString(w, s)
		w.Close()
		return b.String()
	}
	h := map[string]string{"Authorization": bearer["Authorization"], "Content-Type": jsonType, "Content-Encoding": "gzip"}
	if err := exchange(t, v, "POST", "/api/receipts", gz(`{"memoryIds":["`+memory+`"]}`), h, answer{201, jsonType, receipt}); err != nil {
		t.Fatal(err)
	}
	if err := exchange(t, v, "POST", "/api/receipts", gz(`{"memoryIds":"x"}`), h, answer{201, jsonType, receipt}); err == nil {
		t.Fatal("a wrongly typed gzip body was accepted unnoticed")
	}
	if err := exchange(t, v, "POST", "/api/receipts", `{"memoryIds":["`+memory+`"]}`, h, answer{201, jsonType, receipt}); err == nil {
		t.Fatal("a body that is not gzip, as claimed, was accepted unnoticed")
	}
}

// recordingTB records the failures a transport reports.
type recordingTB struct {
	testing.TB
	mu     sync.Mutex
	errors []string
}

func (r *recordingTB) Errorf(format string, args ...any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.errors = append(r.errors, fmt.Sprintf(format, args...))
}

// TestTransportFailsTheTest: the transport reports a mismatch as a test
// failure and still returns the response untouched.
func TestTransportFailsTheTest(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", jsonType)
		io.WriteString(w, `{"ok":"yes"}`)
	}))
	defer srv.Close()
	rec := &recordingTB{TB: t}
	c := openapitest.Issuer(t).Client(rec, srv.Client())
	res, err := c.Get(srv.URL + "/healthz")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if string(b) != `{"ok":"yes"}` {
		t.Fatalf("body %q", b)
	}
	if len(rec.errors) != 1 || !strings.Contains(rec.errors[0], "GET /healthz") {
		t.Fatalf("reported %q", rec.errors)
	}
}

// TestNewCompilesEverySchema: a component schema the JSON Schema engine
// cannot compile is found when the validator is built, though no exchange
// uses it.
func TestNewCompilesEverySchema(t *testing.T) {
	doc := func(pattern string) []byte {
		return []byte(`{"openapi":"3.1.0","info":{"title":"t","version":"1"},"paths":{},"components":{"schemas":{` +
			`"Problem":{"type":"object"},"Cursor":{"type":"string","pattern":"` + pattern + `"}}}}`)
	}
	if _, err := openapitest.New(doc(`^[a-z]{1,1000}$`)); err != nil {
		t.Fatal(err)
	}
	_, err := openapitest.New(doc(`^[a-z]{1,1024}$`))
	if err == nil || !strings.Contains(err.Error(), "components.schemas.Cursor") {
		t.Fatalf("got %v, want an error naming components.schemas.Cursor", err)
	}
}
