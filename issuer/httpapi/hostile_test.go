package httpapi_test

import (
	"bytes"
	"cmp"
	"compress/gzip"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/remnant/passportkit/issuer"
	"github.com/remnant/passportkit/issuer/httpapi"
	"github.com/remnant/passportkit/issuer/store"
	"github.com/remnant/passportkit/issuer/store/storetest"
)

// send makes one request with raw body bytes and the given headers.
func (e *env) send(key issuer.APIKey, method, path string, body []byte, header map[string]string) response {
	e.t.Helper()
	req, err := http.NewRequest(method, e.srv.URL+path, bytes.NewReader(body))
	if err != nil {
		e.t.Fatal(err)
	}
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+string(key))
	}
	for k, v := range header {
		if v == "" {
			req.Header.Del(k)
		} else {
			req.Header.Set(k, v)
		}
	}
	res, err := e.client.Do(req)
	if err != nil {
		e.t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return response{status: res.StatusCode, header: res.Header, body: b}
}

func gzipped(b []byte) []byte {
	var buf bytes.Buffer
	w := gzip.NewWriter(&buf)
	w.Write(b)
	w.Close()
	return buf.Bytes()
}

var jsonHeader = map[string]string{"Content-Type": "application/json"}

// TestCaseVariantMembersAreRefused reproduces the probe: a member repeated
// in another case, or named in another case, was accepted (and the last
// one won). Both are refused and record nothing.
func TestCaseVariantMembersAreRefused(t *testing.T) {
	storetest.Run(t, func(t *testing.T, db *store.DB) {
		e := newEnv(t, db, httpapi.Config{})
		author, _ := e.agent("Author")
		reviewer, _ := e.agent("Reviewer")
		var m issuer.Memory
		must(t, e.do(author, "POST", "/api/memories", `{"category":"sql","title":"t","content":"c"}`), 201).json(t, &m)
		must(t, e.do(reviewer, "GET", "/api/memories/"+string(m.ID), ""), 200)
		fb := "/api/memories/" + string(m.ID) + "/feedback"

		wantProblem(t, e.do(reviewer, "POST", fb, `{"type":"useful","TYPE":"used_unsuccessfully"}`), 400, issuer.CodeJSONDuplicateKey)
		wantProblem(t, e.do(reviewer, "POST", fb, `{"tYpE":"corroborate"}`), 400, issuer.CodeJSONUnknownMember)
		wantProblem(t, e.do(reviewer, "POST", fb, `{"type":"useful","Reason":"x"}`), 400, issuer.CodeJSONUnknownMember)

		// Nothing was recorded: the first accepted validation is revision 1.
		var res struct {
			Validation struct {
				Type     string `json:"type"`
				Revision int    `json:"revision"`
			} `json:"validation"`
		}
		must(t, e.do(reviewer, "POST", fb, `{"type":"useful"}`), 200).json(t, &res)
		if res.Validation.Type != "useful" || res.Validation.Revision != 1 {
			t.Fatalf("validation after refusals: %+v", res.Validation)
		}
	})
}

// TestHostileBodies sends every body route malformed, oversized, wrongly
// typed and wrongly encoded bodies over loopback and checks each status
// together with its problem type.
func TestHostileBodies(t *testing.T) {
	storetest.Run(t, func(t *testing.T, db *store.DB) {
		e := newEnv(t, db, httpapi.Config{Trust: newTrust(t, db)})
		author, _ := e.agent("Author")
		reviewer, _ := e.agent("Reviewer")
		admin, _ := e.agent("Admin", issuer.ScopeAdmin)
		var m issuer.Memory
		must(t, e.do(author, "POST", "/api/memories", `{"category":"sql","title":"t","content":"c"}`), 201).json(t, &m)
		var rc issuer.Receipt
		must(t, e.do(reviewer, "POST", "/api/receipts", `{"memoryIds":["`+string(m.ID)+`"]}`), 201).json(t, &rc)

		routes := []struct {
			name  string
			key   issuer.APIKey
			path  string
			limit int
			// valid is a body the route accepts, with the status it
			// answers; wrongType has a member of the wrong JSON type.
			valid     string
			status    int
			wrongType string
			method    string // POST when empty
		}{
			{"publish", author, "/api/memories", issuer.MaxPublishBody,
				`{"category":"sql","title":"another","content":"c"}`, 201, `{"category":"sql","title":"t","content":"c","appliesTo":"x"}`, ""},
			{"memory feedback", reviewer, "/api/memories/" + string(m.ID) + "/feedback", issuer.MaxFeedbackBody,
				`{"type":"useful"}`, 200, `{"type":["useful"]}`, ""},
			{"moderation", admin, "/api/memories/" + string(m.ID) + "/moderation", issuer.MaxModerationBody,
				`{"status":"active"}`, 200, `{"status":1}`, ""},
			{"consultation", reviewer, "/api/receipts", issuer.MaxConsultationBody,
				`{"memoryIds":["` + string(m.ID) + `"]}`, 201, `{"memoryIds":"` + string(m.ID) + `"}`, ""},
			{"receipt feedback", reviewer, "/api/receipts/" + string(rc.ID) + "/feedback", issuer.MaxFeedbackBody,
				`{"type":"used_successfully"}`, 200, `{"type":"useful","receiptId":7}`, ""},
			{"outcome report", reviewer, "/api/memories/" + string(m.ID) + "/outcomes", issuer.MaxOutcomeBody,
				`{"outcome":"partial","context":{"environment":"prod"}}`, 200, `{"outcome":"partial","context":["prod"]}`, ""},
			{"capabilities", author, "/api/agents/me/capabilities", issuer.MaxCapabilitiesBody,
				`{"capabilities":["sql tuning"]}`, 200, `{"capabilities":"sql tuning"}`, "PUT"},
			{"holder keys", author, "/api/agents/me/holder-keys", issuer.MaxHolderKeysBody,
				`{"keys":[]}`, 200, `{"keys":{}}`, "PUT"},
			// Anonymous; the valid body names an agent that does not exist.
			{"trust comparison", "", "/api/public/trust/assess", issuer.MaxAssessBody,
				`{"agents":["agt_` + strings.Repeat("a", 26) + `"],"skills":["sql"]}`, 404, `{"agents":["agt_x"],"skills":"sql"}`, ""},
		}
		for _, rt := range routes {
			method := cmp.Or(rt.method, "POST")
			t.Run(rt.name, func(t *testing.T) {
				oversized := []byte(`{"x":"` + strings.Repeat("a", rt.limit) + `"}`)
				cases := []struct {
					name   string
					body   []byte
					header map[string]string
					status int
					code   issuer.Code
				}{
					{"empty", nil, jsonHeader, 400, issuer.CodeJSONMalformed},
					{"malformed", []byte(`{"type":`), jsonHeader, 400, issuer.CodeJSONMalformed},
					{"not an object", []byte(`["x"]`), jsonHeader, 400, issuer.CodeJSONWrongType},
					{"trailing data", []byte(rt.valid + ` {}`), jsonHeader, 400, issuer.CodeJSONTrailingData},
					{"invalid UTF-8", []byte(rt.valid[:len(rt.valid)-1] + ",\"\xff\":1}"), jsonHeader, 400, issuer.CodeJSONInvalidUTF8},
					{"lone surrogate", []byte(rt.valid[:len(rt.valid)-1] + `,"x":"\ud800"}`), jsonHeader, 400, issuer.CodeJSONLoneSurrogate},
					{"case-variant duplicate", []byte(rt.valid[:len(rt.valid)-1] + "," + strings.ToUpper(rt.valid[1:])), jsonHeader, 400, issuer.CodeJSONDuplicateKey},
					{"unknown member", []byte(rt.valid[:len(rt.valid)-1] + `,"score":1}`), jsonHeader, 400, issuer.CodeJSONUnknownMember},
					{"wrong type", []byte(rt.wrongType), jsonHeader, 400, issuer.CodeJSONWrongType},
					{"huge integer", []byte(rt.valid[:len(rt.valid)-1] + `,"x":99999999999999999999}`), jsonHeader, 400, issuer.CodeJSONNumberRange},
					{"too deep", []byte(`{"x":[[[[[[[[[[1]]]]]]]]]]}`), jsonHeader, 400, issuer.CodeJSONTooDeep},
					{"oversized", oversized, jsonHeader, 413, issuer.CodeTooLarge},
					{"oversized after decompression", gzipped(oversized), map[string]string{"Content-Type": "application/json", "Content-Encoding": "gzip"}, 413, issuer.CodeTooLarge},
					{"gzip bomb", gzipped(bytes.Repeat([]byte(" "), 4<<20)), map[string]string{"Content-Type": "application/json", "Content-Encoding": "gzip"}, 413, issuer.CodeTooLarge},
					{"not gzip", []byte(rt.valid), map[string]string{"Content-Type": "application/json", "Content-Encoding": "gzip"}, 400, issuer.CodeInvalid},
					{"unknown encoding", []byte(rt.valid), map[string]string{"Content-Type": "application/json", "Content-Encoding": "br"}, 415, issuer.CodeUnsupportedMedia},
					{"text/plain", []byte(rt.valid), map[string]string{"Content-Type": "text/plain"}, 415, issuer.CodeUnsupportedMedia},
					{"form", []byte(rt.valid), map[string]string{"Content-Type": "application/x-www-form-urlencoded"}, 415, issuer.CodeUnsupportedMedia},
					{"no content type", []byte(rt.valid), map[string]string{"Content-Type": ""}, 415, issuer.CodeUnsupportedMedia},
					{"latin-1 charset", []byte(rt.valid), map[string]string{"Content-Type": "application/json; charset=iso-8859-1"}, 415, issuer.CodeUnsupportedMedia},
					{"unknown parameter", []byte(rt.valid), map[string]string{"Content-Type": "application/json; profile=x"}, 415, issuer.CodeUnsupportedMedia},
					{"json suffix type", []byte(rt.valid), map[string]string{"Content-Type": "application/problem+json"}, 415, issuer.CodeUnsupportedMedia},
				}
				for _, c := range cases {
					t.Run(c.name, func(t *testing.T) {
						wantProblem(t, e.send(rt.key, method, rt.path, c.body, c.header), c.status, c.code)
					})
				}
				// The same valid body is accepted plain, with a charset in
				// any case, and gzip-encoded.
				must(t, e.send(rt.key, method, rt.path, []byte(rt.valid), map[string]string{"Content-Type": "Application/JSON; Charset=UTF-8"}), rt.status)
				must(t, e.send(rt.key, method, rt.path, gzipped([]byte(rt.valid)), map[string]string{"Content-Type": "application/json", "Content-Encoding": "gzip"}), rt.status)
			})
		}
	})
}

// TestMarkupIsDataEverywhere publishes a title and registers a name that
// look like HTML and checks that every answer returns them as JSON data:
// escaped, with a JSON content type and nosniff, and neutralised in the
// public profile.
func TestMarkupIsDataEverywhere(t *testing.T) {
	storetest.Run(t, func(t *testing.T, db *store.DB) {
		e := newEnv(t, db, httpapi.Config{})
		const script = `<script>alert(1)</script>`
		author, authorID := e.agent(script)
		reviewer, _ := e.agent("Reviewer")
		check := func(r response, contentType string) {
			t.Helper()
			if ct := r.header.Get("Content-Type"); ct != contentType {
				t.Fatalf("Content-Type %q, want %q", ct, contentType)
			}
			if r.header.Get("X-Content-Type-Options") != "nosniff" {
				t.Fatal("no X-Content-Type-Options: nosniff")
			}
			if bytes.Contains(r.body, []byte("<script")) || bytes.Contains(r.body, []byte("<SCRIPT")) {
				t.Fatalf("markup returned unescaped: %s", r.body)
			}
		}
		published := must(t, e.do(author, "POST", "/api/memories", `{"category":"sql","title":"`+script+`","content":"`+script+`","appliesTo":{"skill":"`+script+`"}}`), 201)
		check(published, "application/json")
		var m issuer.Memory
		published.json(t, &m)
		if m.Title != script {
			t.Fatalf("title %q, want it stored as sent", m.Title)
		}
		retrieved := must(t, e.do(reviewer, "GET", "/api/memories/"+string(m.ID), ""), 200)
		check(retrieved, "application/json")
		if !bytes.Contains(retrieved.body, []byte(`\u003cscript\u003e`)) {
			t.Fatalf("title not JSON-escaped: %s", retrieved.body)
		}
		me := must(t, e.do(author, "GET", "/api/agents/me", ""), 200)
		check(me, "application/json")
		public := must(t, e.do("", "GET", "/api/agents/"+string(authorID), ""), 200)
		check(public, "application/json")
		var pp struct {
			Name string `json:"name"`
		}
		public.json(t, &pp)
		if pp.Name != issuer.FallbackName {
			t.Fatalf("public name %q, want the neutral fallback", pp.Name)
		}
		// A refusal that quotes the caller's input escapes it too.
		refused := e.do(reviewer, "POST", "/api/memories/"+string(m.ID)+"/feedback", `{"`+script+`":1}`)
		wantProblem(t, refused, 400, issuer.CodeJSONUnknownMember)
		check(refused, "application/problem+json")

		// Invisible format characters are refused where text is written.
		for _, title := range []string{"Safe\u202etxt.exe", "zero\u200bwidth", "mark\u200f"} {
			b, _ := json.Marshal(map[string]string{"category": "sql", "title": title, "content": "c"})
			wantProblem(t, e.do(author, "POST", "/api/memories", string(b)), 400, issuer.CodeInvalid)
		}
		b, _ := json.Marshal(map[string]string{"category": "sql", "title": "t", "content": "\u202eevil"})
		wantProblem(t, e.do(author, "POST", "/api/memories", string(b)), 400, issuer.CodeInvalid)
		// Running text keeps the joiners scripts need.
		b, _ = json.Marshal(map[string]string{"category": "sql", "title": "t", "content": "می\u200cخواهم"})
		must(t, e.do(author, "POST", "/api/memories", string(b)), 201)
	})
}
