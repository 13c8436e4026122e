package httpapi_test

import (
	"encoding/json"
	"log/slog"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/remnant/passportkit/internal/clitest"
	"github.com/remnant/passportkit/issuer"
	"github.com/remnant/passportkit/issuer/httpapi"
	"github.com/remnant/passportkit/issuer/store"
	"github.com/remnant/passportkit/issuer/store/storetest"
)

var generatedID = regexp.MustCompile(`^[a-z2-7]{26}$`)

// TestRequestLogs captures the server's log at debug level while agents
// publish, validate, search and get refused, and checks that each request
// has exactly one "request" line with its identifier, method, route
// pattern, status, duration and size, and that no API key, body or query
// string ever reaches the log.
func TestRequestLogs(t *testing.T) {
	storetest.Run(t, func(t *testing.T, db *store.DB) {
		var sink clitest.Buffer
		log := slog.New(slog.NewJSONHandler(&sink, &slog.HandlerOptions{Level: slog.LevelDebug}))
		e := serve(t, db, httpapi.New(storetest.Service(db), log, httpapi.Config{RatePerSecond: 1000, Burst: 1000}))
		author, _ := e.agent("Author")
		reader, _ := e.agent("Reader")
		const (
			bodySecret  = "body-secret-7f3a"
			querySecret = "query-secret-91c2"
		)

		var m issuer.Memory
		must(t, e.do(author, "POST", "/api/memories", `{"category":"sql","title":"`+bodySecret+`","content":"`+bodySecret+`"}`), 201).json(t, &m)
		must(t, e.do(reader, "GET", "/api/memories/"+string(m.ID), ""), 200)
		must(t, e.do(reader, "POST", "/api/memories/"+string(m.ID)+"/feedback", `{"type":"useful","reason":"`+bodySecret+`"}`), 200)
		wantProblem(t, e.do(reader, "POST", "/api/memories/"+string(m.ID)+"/feedback", `{"type":"`+bodySecret+`"}`), 400, issuer.CodeInvalid)
		wantProblem(t, e.do(reader, "POST", "/api/memories/"+string(m.ID)+"/feedback", `{"`+bodySecret+`":1}`), 400, issuer.CodeJSONUnknownMember)
		must(t, e.do(reader, "GET", "/api/memories/search?q="+url.QueryEscape(querySecret), ""), 200)
		wantProblem(t, e.do(reader, "GET", "/api/memories/search?"+querySecret+"=1", ""), 400, issuer.CodeInvalid)
		wantProblem(t, e.do(reader, "GET", "/api/nothing", ""), 404, issuer.CodeNotFound)
		wantProblem(t, e.do("pk_"+issuer.APIKey(strings.Repeat("a", 52)), "GET", "/api/agents/me", ""), 401, issuer.CodeUnauthorized)
		sane := must(t, e.send(reader, "GET", "/api/agents/me", nil, map[string]string{"X-Request-Id": "trace-1234:abc.DEF_x"}), 200)
		insane := must(t, e.send(reader, "GET", "/api/agents/me", nil, map[string]string{"X-Request-Id": "bad id\twith spaces"}), 200)
		long := must(t, e.send(reader, "GET", "/api/agents/me", nil, map[string]string{"X-Request-Id": strings.Repeat("a", httpapi.MaxRequestID+1)}), 200)
		const requests = 12

		if got := sane.header.Get("X-Request-Id"); got != "trace-1234:abc.DEF_x" {
			t.Errorf("a sane X-Request-Id came back as %q", got)
		}
		for _, r := range []response{insane, long} {
			if got := r.header.Get("X-Request-Id"); !generatedID.MatchString(got) {
				t.Errorf("an unusable X-Request-Id was answered with %q, not a new identifier", got)
			}
		}

		logged := sink.String()
		for _, secret := range []string{string(author), string(reader), bodySecret, querySecret, strings.Repeat("a", 52), "bad id"} {
			if strings.Contains(logged, secret) {
				t.Errorf("the log holds %q:\n%s", secret, logged)
			}
		}
		var lines []map[string]any
		for _, l := range strings.Split(strings.TrimSpace(logged), "\n") {
			var rec map[string]any
			if err := json.Unmarshal([]byte(l), &rec); err != nil {
				t.Fatalf("log line %q: %v", l, err)
			}
			if rec["msg"] == "request" {
				lines = append(lines, rec)
			}
		}
		if len(lines) != requests {
			t.Fatalf("%d request lines for %d requests:\n%s", len(lines), requests, logged)
		}
		ids := map[string]bool{}
		for _, l := range lines {
			for _, k := range []string{"request_id", "method", "route", "status", "duration", "bytes"} {
				if _, ok := l[k]; !ok {
					t.Errorf("request line without %s: %v", k, l)
				}
			}
			if len(l) != 9 { // time, level, msg and the six above
				t.Errorf("request line with other members: %v", l)
			}
			ids[l["request_id"].(string)] = true
		}
		if len(ids) != requests || !ids["trace-1234:abc.DEF_x"] || !ids[insane.header.Get("X-Request-Id")] {
			t.Errorf("request identifiers %v", ids)
		}
		want := []struct {
			route  string
			status float64
		}{
			{"/api/memories", 201}, {"/api/memories/{id}", 200}, {"/api/memories/{id}/feedback", 200},
			{"/api/memories/{id}/feedback", 400}, {"/api/memories/{id}/feedback", 400}, {"/api/memories/search", 200},
			{"/api/memories/search", 400}, {"unmatched", 404}, {"/api/agents/me", 401},
		}
		for i, w := range want {
			if lines[i]["route"] != w.route || lines[i]["status"] != w.status {
				t.Errorf("line %d: route %v status %v, want %s %v", i, lines[i]["route"], lines[i]["status"], w.route, w.status)
			}
		}
	})
}

// FuzzRequestIDFrom: whatever a client sends, the identifier is 1 to
// MaxRequestID characters of the safe set; a sane header is kept as it is,
// and anything else replaced.
func FuzzRequestIDFrom(f *testing.F) {
	for _, s := range []string{"", "abc", "trace-1:2.3_x", "bad id", "a\nb", "é", strings.Repeat("x", 64), strings.Repeat("x", 65), "\x00", `"quoted"`} {
		f.Add(s)
	}
	safe := regexp.MustCompile(`^[A-Za-z0-9._:-]{1,64}$`)
	f.Fuzz(func(t *testing.T, header string) {
		id := httpapi.RequestIDFrom(header)
		if !safe.MatchString(id) {
			t.Fatalf("RequestIDFrom(%q) = %q", header, id)
		}
		if safe.MatchString(header) != (id == header) {
			t.Fatalf("RequestIDFrom(%q) = %q: a sane header must be kept, any other replaced", header, id)
		}
	})
}
