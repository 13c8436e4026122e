package httpapi_test

import (
	"context"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/remnant/passportkit/issuer"
	"github.com/remnant/passportkit/issuer/store"
	"github.com/remnant/passportkit/issuer/store/storetest"
)

// TestEveryRouteReadsItsQueryStrictly: every route of the API, those that
// take no parameter included, refuses a field it does not take, a field
// that does not decode and a ; with problem details, before it reads
// anything else (SPEC.md §13.4). Only /mcp, /metrics and the pages are
// not the API's.
func TestEveryRouteReadsItsQueryStrictly(t *testing.T) {
	storetest.Run(t, func(t *testing.T, db *store.DB) {
		srv := fullServerOn(t, db)
		e := serve(t, db, srv)
		key, id := e.agent("agent")
		fill := strings.NewReplacer("{publicId}", string(id), "{id}", "mem_"+strings.Repeat("a", 26), "{encodedSkill}", "sqlite")
		n := 0
		for _, pattern := range srv.Routes() {
			method, path, ok := strings.Cut(pattern, " ")
			if !ok || !documented(path) || path == "/metrics" {
				continue
			}
			n++
			// Discovery and a skill's reads take the task context as their
			// query: what names no parameter is most likely a dimension.
			unknown := issuer.CodeInvalid
			if path == "/api/public/agents" || strings.HasPrefix(path, "/api/public/agents/{publicId}/skills/") {
				unknown = issuer.CodeUnknownDimension
			}
			for query, code := range map[string]issuer.Code{
				"zz=1":                                 unknown,
				"zz":                                   unknown,
				"Disclose=all":                         unknown, // names match exactly, case included
				"%zz=1":                                issuer.CodeInvalid,
				"zz=%zz":                               issuer.CodeInvalid,
				"zz=1;yy=2":                            issuer.CodeInvalid,
				"zz=%E2%82":                            unknown, // invalid UTF-8 once decoded: still a field
				strings.Repeat("a", issuer.MaxQuery+1): issuer.CodeInvalid,
			} {
				wantProblem(t, e.do(key, method, fill.Replace(path)+"?"+query, ""), 400, code)
			}
		}
		if ops, _ := operations(t); n != len(ops)-2 {
			t.Fatalf("%d routes checked; the document has %d operations besides /mcp and /metrics", n, len(ops)-2)
		}
	})
}

// TestQueryStringRules: each rule of SPEC.md §13.4, and the rules of the
// values that were silently dropped before, over a real server, for each
// family of routes, on both engines.
func TestQueryStringRules(t *testing.T) {
	storetest.Run(t, func(t *testing.T, db *store.DB) {
		e := serve(t, db, fullServerOn(t, db))
		key, id := e.agent("agent")
		p, err := db.Authenticate(context.Background(), key)
		if err != nil {
			t.Fatal(err)
		}
		storetest.Journal(t, db, p, nil, "sql")
		words := make([]string, issuer.MaxSearchTerms+1)
		for i := range words {
			words[i] = "w" + strconv.Itoa(i)
		}
		sixteen, seventeen := strings.Join(words[:issuer.MaxSearchTerms], "+"), strings.Join(words, "+")
		agent := "/api/public/agents/" + string(id)
		rep := "/api/agents/" + string(id) + "/reputation?"
		trust, evidence := agent+"/skills/sqlite/trust?", agent+"/skills/sqlite/evidence?"
		for _, c := range []struct {
			name, path string
			status     int
			code       issuer.Code
		}{
			{"search: sixteen words", "/api/memories/search?q=" + sixteen + "+W0", 200, ""},
			{"search: a 17th word", "/api/memories/search?q=" + seventeen, 400, issuer.CodeInvalid},
			{"search: a bad escape", "/api/memories/search?q=x&limit=%zz", 400, issuer.CodeInvalid},
			{"search: a repeat", "/api/memories/search?q=x&limit=1&limit=2", 400, issuer.CodeInvalid},
			{"search: a repeat of the same value", "/api/memories/search?q=x&q=x", 400, issuer.CodeInvalid},
			{"search: an unknown parameter", "/api/memories/search?q=x&sort=new", 400, issuer.CodeInvalid},
			{"search: a semicolon", "/api/memories/search?q=x;limit=2", 400, issuer.CodeInvalid},

			{"reputation: a domain", rep + "domain=SQL&limit=1", 200, ""},
			{"reputation: a blank domain", rep + "domain=", 400, issuer.CodeInvalid},
			{"reputation: a white-space domain", rep + "domain=+%09", 400, issuer.CodeInvalid},
			{"reputation: a bad escape", rep + "domain=%zz", 400, issuer.CodeInvalid},
			{"reputation: a repeat", rep + "limit=1&limit=2", 400, issuer.CodeInvalid},
			{"reputation: an unknown parameter", rep + "offset=1", 400, issuer.CodeInvalid},

			{"passport: an empty disclose names the default", agent + "/passport?disclose=", 503, issuer.CodeUnavailable},
			{"passport: a bad escape", agent + "/passport?disclose=%zz", 400, issuer.CodeInvalid},
			{"passport: a repeat", agent + "/passport?disclose=all&disclose=all", 400, issuer.CodeInvalid},
			{"passport: an unknown parameter", agent + "/passport?format=json", 400, issuer.CodeInvalid},
			{"evidence file: a bad escape", agent + "/passport/evidence?passportHash=%zz", 400, issuer.CodeInvalid},
			{"evidence file: a repeat", agent + "/passport/evidence?passportHash=" + strings.Repeat("a", 64) + "&passportHash=" + strings.Repeat("a", 64), 400, issuer.CodeInvalid},

			{"discovery: a skill", "/api/public/agents?skill=sqlite", 200, ""},
			{"discovery: a bad escape", "/api/public/agents?skill=%zz", 400, issuer.CodeInvalid},
			{"discovery: a repeat", "/api/public/agents?skill=x&skill=x", 400, issuer.CodeInvalid},
			{"discovery: an unknown parameter", "/api/public/agents?skill=x&colour=red", 400, issuer.CodeUnknownDimension},
			{"discovery: a blank label", "/api/public/agents?skill=x&workload=", 400, issuer.CodeInvalid},
			{"discovery: a blank skill", "/api/public/agents?skill=+", 400, issuer.CodeInvalid},

			{"trust: a blank label", trust + "workload=", 400, issuer.CodeInvalid},
			{"trust: a bad escape", trust + "workload=%zz", 400, issuer.CodeInvalid},
			{"trust: a repeat", trust + "workload=a&workload=a", 400, issuer.CodeInvalid},
			{"trust: an unknown parameter", trust + "colour=red", 400, issuer.CodeUnknownDimension},
			{"evidence: a blank label", evidence + "limit=5&domain=", 400, issuer.CodeInvalid},
			{"evidence: a repeat", evidence + "limit=5&limit=5", 400, issuer.CodeInvalid},
			{"evidence: a semicolon", evidence + "limit=5;offset=1", 400, issuer.CodeInvalid},
			{"skills: any parameter", agent + "/skills?workload=oltp", 400, issuer.CodeInvalid},
		} {
			t.Run(c.name, func(t *testing.T) {
				r := e.do(key, "GET", c.path, "")
				if c.status == http.StatusOK {
					must(t, r, 200)
					return
				}
				wantProblem(t, r, c.status, c.code)
			})
		}
	})
}
