package httpapi_test

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"

	"github.com/remnant/passportkit/internal/seal"
	"github.com/remnant/passportkit/issuer"
	"github.com/remnant/passportkit/issuer/demoworld"
	"github.com/remnant/passportkit/issuer/httpapi"
	"github.com/remnant/passportkit/issuer/issuing"
	"github.com/remnant/passportkit/issuer/keyring"
	"github.com/remnant/passportkit/issuer/service"
	"github.com/remnant/passportkit/issuer/store"
	"github.com/remnant/passportkit/issuer/store/storetest"
	"github.com/remnant/passportkit/passport"
)

// publicEnv is the demo world on SQLite, served on loopback with every
// public route: key documents, passports, the trust API, find_agents and
// the status lists.
type publicEnv struct {
	*env
	w         *demoworld.World
	main      issuer.AgentID
	passports *service.Passports
}

func newPublicEnv(t *testing.T, observer ...httpapi.RequestObserver) *publicEnv {
	t.Helper()
	ctx := context.Background()
	now := time.Now().UTC().Truncate(time.Second)
	db, _, w := storetest.DemoWorld(t, store.SQLite, now)
	ring, err := keyring.New(db, keyring.Config{Issuer: "https://issuer.test", Dir: filepath.Join(t.TempDir(), "keys")})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ring.EnsureActive(ctx, passport.EdDSA); err != nil {
		t.Fatal(err)
	}
	passports := service.NewPassports(db, ring, service.PassportOptions{})
	key := make([]byte, seal.KeySize)
	rand.Read(key)
	d := service.NewDiscovery(db, passports, storetest.Sealer(t, db), service.DiscoveryOptions{})
	if _, err := d.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	cfg := httpapi.Config{Keys: ring, Passports: passports, Trust: storetest.Trust(t, passports, db, key),
		Agents: d, StatusLists: service.NewStatusLists(db, ring, service.StatusListOptions{})}
	if len(observer) > 0 {
		cfg.Observer = observer[0]
	}
	e := newEnv(t, db, cfg)
	return &publicEnv{env: e, w: w, main: w.AgentID(w.Main()), passports: passports}
}

// paths returns a path of every cross-origin route, by pattern, each
// answered 200.
func (pe *publicEnv) paths() map[string]string {
	pe.t.Helper()
	is, err := pe.passports.Issue(context.Background(), pe.main, issuing.DisclosePreviews)
	if err != nil {
		pe.t.Fatal(err)
	}
	if is.Passport.Status == nil {
		pe.t.Fatal("the passport names no status list")
	}
	u, err := url.Parse(is.Passport.Status.StatusList.URI)
	if err != nil {
		pe.t.Fatal(err)
	}
	agent := "/api/public/agents/" + string(pe.main)
	skill := url.PathEscape(is.Passport.SkillPassports[0].Skill)
	return map[string]string{
		"GET /api/agents/{publicId}":                                       "/api/agents/" + string(pe.main),
		"GET /api/public/agents":                                           "/api/public/agents?skill=" + skill,
		"GET /api/public/agents/{publicId}/passport":                       agent + "/passport",
		"GET /api/public/agents/{publicId}/passport/evidence":              agent + "/passport/evidence?passportHash=" + is.PassportHash,
		"GET /api/public/agents/{publicId}/skills":                         agent + "/skills",
		"GET /api/public/agents/{publicId}/skills/{encodedSkill}/trust":    agent + "/skills/" + skill + "/trust",
		"GET /api/public/agents/{publicId}/skills/{encodedSkill}/evidence": agent + "/skills/" + skill + "/evidence",
		"POST /api/public/trust/assess":                                    "/api/public/trust/assess",
		"GET /.well-known/jwks.json":                                       "/.well-known/jwks.json",
		"GET /.well-known/passport-trust.json":                             "/.well-known/passport-trust.json",
		"GET /status/{list}":                                               u.Path,
		"GET /openapi.json":                                                "/openapi.json",
	}
}

// rawClient sees the bytes on the wire: it neither asks for nor decodes a
// content coding of its own, and checks nothing against the document.
var rawClient = &http.Client{Transport: &http.Transport{DisableCompression: true}}

// raw sends a request with the given headers (name, value, …) and returns
// the answer with its body as sent.
func (e *env) raw(method, path, body string, header ...string) response {
	e.t.Helper()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequest(method, e.srv.URL+path, rd)
	if err != nil {
		e.t.Fatal(err)
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	res, err := rawClient.Do(req)
	if err != nil {
		e.t.Fatal(err)
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		e.t.Fatal(err)
	}
	return response{status: res.StatusCode, header: res.Header, body: b}
}

const assessBody = `{"agents":["%s"],"skills":["go"]}`

// TestCrossOriginHeaders: the routes of httpapi.CrossOrigin allow any
// origin, refusals included, and answer a preflight; every other route is
// same-origin and refuses one (SPEC.md §13.6).
func TestCrossOriginHeaders(t *testing.T) {
	t.Parallel()
	pe := newPublicEnv(t)
	paths := pe.paths()
	routes := pe.srv.Config.Handler.(*httpapi.Server).Routes()
	for _, p := range httpapi.CrossOrigin {
		if !slices.Contains(routes, p) {
			t.Errorf("%s is not a route", p)
		}
		if _, ok := paths[p]; !ok {
			t.Errorf("no test path for %s", p)
		}
	}
	origin := "http://page.test:8080"
	anyOrigin := func(what string, r response) {
		t.Helper()
		h := r.header
		if h.Get("Access-Control-Allow-Origin") != "*" || h.Get("Access-Control-Expose-Headers") != "ETag, Link, Retry-After, X-Request-Id" ||
			h.Get("Access-Control-Allow-Credentials") != "" || slices.Contains(h.Values("Vary"), "Origin") {
			t.Errorf("%s: CORS headers %v", what, h)
		}
	}
	sameOrigin := func(what string, r response) {
		t.Helper()
		for name := range r.header {
			if strings.HasPrefix(name, "Access-Control-") {
				t.Errorf("%s: %s on a same-origin route", what, name)
			}
		}
	}
	for pattern, path := range paths {
		method, _, _ := strings.Cut(pattern, " ")
		body := ""
		if method == http.MethodPost {
			body = strings.Replace(assessBody, "%s", string(pe.main), 1)
		}
		r := pe.raw(method, path, body, "Origin", origin, "Content-Type", "application/json")
		if r.status != http.StatusOK {
			t.Errorf("%s: %d %s", path, r.status, r.body)
		}
		anyOrigin(pattern, r)

		pf := pe.raw(http.MethodOptions, path, "", "Origin", origin, "Access-Control-Request-Method", method,
			"Access-Control-Request-Headers", "content-type,if-none-match")
		want := "GET, HEAD"
		if method == http.MethodPost {
			want = "POST"
		}
		h := pf.header
		if pf.status != http.StatusNoContent || len(pf.body) != 0 || h.Get("Access-Control-Allow-Origin") != "*" ||
			h.Get("Access-Control-Allow-Methods") != want || h.Get("Allow") != want+", OPTIONS" ||
			h.Get("Access-Control-Allow-Headers") != "Content-Type, Content-Encoding, If-None-Match, X-Request-Id" ||
			h.Get("Access-Control-Max-Age") != "7200" || h.Get("Access-Control-Allow-Credentials") != "" || h.Get(httpapi.RequestIDHeader) == "" {
			t.Errorf("preflight of %s: %d %v %q", path, pf.status, h, pf.body)
		}
	}

	// Refusals of a cross-origin route are readable too.
	unknown := "/api/public/agents/agt_" + strings.Repeat("a", 26) + "/passport"
	r := pe.raw(http.MethodGet, unknown, "", "Origin", origin)
	wantProblem(t, r, 404, issuer.CodeNotFound)
	anyOrigin("404", r)
	r = pe.raw(http.MethodGet, paths["GET /.well-known/jwks.json"]+"?x=1", "", "Origin", origin)
	wantProblem(t, r, 400, issuer.CodeInvalid)
	anyOrigin("400", r)

	// Another method on a cross-origin path is 405, allowing OPTIONS too.
	r = pe.raw(http.MethodDelete, paths["GET /api/public/agents/{publicId}/passport"], "", "Origin", origin)
	wantProblem(t, r, 405, issuer.CodeMethodNotAllowed)
	if r.header.Get("Allow") != "GET, HEAD, OPTIONS" {
		t.Errorf("Allow %q", r.header.Get("Allow"))
	}
	anyOrigin("405", r)

	// Routes that take a key, and what no route serves, are same-origin.
	key, _ := pe.agent("Writer", issuer.ScopePublish)
	for _, c := range []struct{ method, path string }{
		{"POST", "/api/memories"},
		{"PUT", "/api/agents/me/capabilities"},
		{"GET", "/api/agents/me"},
		{"POST", "/api/memories/mem_x/feedback"},
		{"GET", "/healthz"},
		{"POST", "/mcp"},
	} {
		pf := pe.raw(http.MethodOptions, c.path, "", "Origin", origin, "Access-Control-Request-Method", c.method,
			"Access-Control-Request-Headers", "authorization,content-type")
		wantProblem(t, pf, 405, issuer.CodeMethodNotAllowed)
		sameOrigin("preflight of "+c.path, pf)
		sameOrigin(c.method+" "+c.path, pe.raw(c.method, c.path, "{}", "Origin", origin, "Authorization", "Bearer "+string(key), "Content-Type", "application/json"))
	}
	pf := pe.raw(http.MethodOptions, "/nowhere", "", "Origin", origin, "Access-Control-Request-Method", "GET")
	wantProblem(t, pf, 404, issuer.CodeNotFound)
	sameOrigin("preflight of /nowhere", pf)
}

// decoded undoes the content coding of r's body.
func decoded(t *testing.T, r response) []byte {
	t.Helper()
	var rd io.Reader
	switch c := r.header.Get("Content-Encoding"); c {
	case "":
		return r.body
	case "gzip":
		zr, err := gzip.NewReader(bytes.NewReader(r.body))
		if err != nil {
			t.Fatal(err)
		}
		rd = zr
	case "zstd":
		zr, err := zstd.NewReader(bytes.NewReader(r.body))
		if err != nil {
			t.Fatal(err)
		}
		defer zr.Close()
		rd = zr
	default:
		t.Fatalf("coding %q", c)
	}
	b, err := io.ReadAll(rd)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestCachingAndCompression reads the public routes over loopback as sent:
// long text answers are coded as the client asks, with one ETag in every
// coding and Vary: Accept-Encoding; a matching If-None-Match is 304
// whatever the coding (SPEC.md §13.6).
func TestCachingAndCompression(t *testing.T) {
	t.Parallel()
	pe := newPublicEnv(t)
	paths := pe.paths()

	// The OpenAPI document: the same bytes and ETag in each coding.
	doc := paths["GET /openapi.json"]
	plain := pe.raw("GET", doc, "")
	if plain.status != 200 || plain.header.Get("Content-Encoding") != "" || plain.header.Get("Vary") != "Accept-Encoding" {
		t.Fatalf("identity: %d %v", plain.status, plain.header)
	}
	etag := plain.header.Get("ETag")
	for _, coding := range []string{"gzip", "zstd"} {
		r := pe.raw("GET", doc, "", "Accept-Encoding", coding)
		if r.header.Get("Content-Encoding") != coding || r.header.Get("Vary") != "Accept-Encoding" || r.header.Get("ETag") != etag ||
			r.header.Get("Cache-Control") != "public, max-age=300" {
			t.Fatalf("%s: %v", coding, r.header)
		}
		if !bytes.Equal(decoded(t, r), plain.body) {
			t.Fatalf("%s: the decoded document differs", coding)
		}
		t.Logf("openapi.json: %d bytes, %d in %s", len(plain.body), len(r.body), coding)
		// A 304 for a client holding either coding.
		for _, inm := range []string{etag, "W/" + etag, `"other", ` + etag, "*"} {
			nm := pe.raw("GET", doc, "", "Accept-Encoding", coding, "If-None-Match", inm)
			if nm.status != 304 || len(nm.body) != 0 || nm.header.Get("ETag") != etag || nm.header.Get("Content-Encoding") != "" {
				t.Fatalf("If-None-Match %s (%s): %d %v", inm, coding, nm.status, nm.header)
			}
		}
	}

	// The evidence file: a strong ETag, 304 on a match, 200 otherwise.
	ev := paths["GET /api/public/agents/{publicId}/passport/evidence"]
	r := pe.raw("GET", ev, "", "Accept-Encoding", "gzip")
	evTag := r.header.Get("ETag")
	if r.status != 200 || r.header.Get("Content-Encoding") != "gzip" || !strings.HasPrefix(evTag, `"`) ||
		r.header.Get("Cache-Control") != "public, max-age=86400, immutable" {
		t.Fatalf("evidence file: %d %v", r.status, r.header)
	}
	for inm, want := range map[string]int{
		evTag: 304, "W/" + evTag: 304, `"a", ` + evTag + `, "b"`: 304, "*": 304,
		`"` + strings.Repeat("0", 64) + `"`: 200, strings.Trim(evTag, `"`): 200, "": 200,
	} {
		for _, coding := range []string{"", "gzip", "zstd"} {
			got := pe.raw("GET", ev, "", "Accept-Encoding", coding, "If-None-Match", inm)
			if got.status != want || got.header.Get("ETag") != evTag {
				t.Errorf("evidence file, If-None-Match %q (%s): %d %v", inm, coding, got.status, got.header)
			}
		}
	}
	wantProblem(t, pe.raw("GET", strings.Replace(ev, string(pe.main), "agt_"+strings.Repeat("a", 26), 1), "", "If-None-Match", "*"), 404, issuer.CodeNotFound)
	// The document describes the evidence file's 304.
	req, _ := http.NewRequest("GET", pe.srv.URL+ev, nil)
	req.Header.Set("If-None-Match", evTag)
	if res, err := pe.client.Do(req); err != nil || res.StatusCode != 304 {
		t.Fatalf("evidence file through the checked client: %v %v", res, err)
	} else {
		res.Body.Close()
	}

	// The trust API: cached as the passport is, 304 on its ETag, and the
	// same answer again within the hour.
	for _, p := range []string{"GET /api/public/agents/{publicId}/passport", "GET /api/public/agents/{publicId}/skills",
		"GET /api/public/agents/{publicId}/skills/{encodedSkill}/trust", "GET /api/public/agents/{publicId}/skills/{encodedSkill}/evidence"} {
		first := pe.raw("GET", paths[p], "", "Accept-Encoding", "zstd")
		tag := first.header.Get("ETag")
		if first.status != 200 || tag == "" || first.header.Get("Cache-Control") != "public, no-cache" {
			t.Fatalf("%s: %d %v", p, first.status, first.header)
		}
		again := pe.raw("GET", paths[p], "")
		if again.header.Get("ETag") != tag || !bytes.Equal(decoded(t, first), again.body) {
			t.Fatalf("%s: another answer within the hour", p)
		}
		if nm := pe.raw("GET", paths[p], "", "If-None-Match", tag, "Accept-Encoding", "gzip"); nm.status != 304 || len(nm.body) != 0 {
			t.Fatalf("%s: If-None-Match: %d", p, nm.status)
		}
		// The document describes the 304 and the headers.
		req, _ := http.NewRequest("GET", pe.srv.URL+paths[p], nil)
		req.Header.Set("If-None-Match", tag)
		res, err := pe.client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		if res.StatusCode != 304 {
			t.Fatalf("%s: %d through the checked client", p, res.StatusCode)
		}
	}

	// Short answers and status list tokens are sent as they are.
	for _, p := range []string{"/healthz", paths["GET /status/{list}"], paths["GET /.well-known/jwks.json"]} {
		r := pe.raw("GET", p, "", "Accept-Encoding", "gzip, zstd")
		if r.status != 200 || r.header.Get("Content-Encoding") != "" || r.header.Get("Vary") != "" {
			t.Errorf("%s: %d %v (%d bytes)", p, r.status, r.header, len(r.body))
		}
	}
	// A long problem detail is coded like any long answer.
	long := pe.raw("GET", "/api/public/agents/"+string(pe.main)+"/skills/x/trust?domain="+strings.Repeat("a", 2000), "", "Accept-Encoding", "gzip")
	var p httpapi.Problem
	if err := json.Unmarshal(decoded(t, long), &p); err != nil || p.Status != long.status {
		t.Errorf("long refusal: %d %v %v", long.status, long.header, err)
	}
}

// BenchmarkOpenAPIDocument serves the OpenAPI document (the longest answer
// the API gives) in each coding, in process, and reports the bytes sent.
func BenchmarkOpenAPIDocument(b *testing.B) {
	h := httpapi.New(nil, nil, httpapi.Config{RatePerSecond: 1e9, Burst: 1e9})
	for _, coding := range []string{"identity", "gzip", "zstd"} {
		b.Run(coding, func(b *testing.B) {
			var sent int
			for b.Loop() {
				req := httptest.NewRequest("GET", "/openapi.json", nil)
				req.Header.Set("Accept-Encoding", coding)
				w := httptest.NewRecorder()
				h.ServeHTTP(w, req)
				if w.Code != 200 {
					b.Fatal(w.Code)
				}
				sent = w.Body.Len()
			}
			b.ReportMetric(float64(sent), "bytes-sent")
		})
	}
}
