package httpapi_test

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/remnant/passportkit/internal/problem"
	"github.com/remnant/passportkit/issuer/httpapi"
	"github.com/remnant/passportkit/issuer/httpapi/openapi"
	"github.com/remnant/passportkit/issuer/keyring"
	"github.com/remnant/passportkit/issuer/mcpserver"
	"github.com/remnant/passportkit/issuer/metrics"
	"github.com/remnant/passportkit/issuer/service"
	"github.com/remnant/passportkit/issuer/store"
	"github.com/remnant/passportkit/issuer/store/storetest"
	"github.com/remnant/passportkit/issuer/web"
)

// documentedPrefixes are the paths the OpenAPI document covers; the pages
// under / are out of its scope.
var documentedPrefixes = []string{"/api/", "/.well-known/", "/status/", "/healthz", "/metrics", "/openapi.json", "/mcp"}

func documented(path string) bool {
	for _, p := range documentedPrefixes {
		if strings.HasPrefix(path, p) {
			return true
		}
	}
	return false
}

// fullServer returns a server with every optional Config field set, so
// that every route it can register is registered.
func fullServer(t *testing.T) *httpapi.Server {
	t.Helper()
	return fullServerOn(t, storetest.Open(t, store.SQLite, store.Options{}))
}

// fullServerOn is fullServer over db.
func fullServerOn(t *testing.T, db *store.DB) *httpapi.Server {
	t.Helper()
	ring, err := keyring.New(db, keyring.Config{Issuer: "https://issuer.test", Dir: filepath.Join(t.TempDir(), "keys")})
	if err != nil {
		t.Fatal(err)
	}
	log := storetest.Logger(t)
	met := metrics.New(log)
	passports := service.NewPassports(db, ring, service.PassportOptions{})
	trust := newTrust(t, db)
	pages, err := web.New(web.Config{Profiles: storetest.Service(db), Passports: passports, Trust: trust, Keys: ring, Logger: log})
	if err != nil {
		t.Fatal(err)
	}
	cfg := httpapi.Config{
		RatePerSecond: 1000, Burst: 1000, BodyTimeout: time.Second, Now: time.Now,
		MCP:       mcpserver.Handler(storetest.Service(db), log, "test"),
		Keys:      ring,
		Passports: passports,
		Observer:  met,
		Metrics:   met.Handler(),
		Trust:     trust,
		Pages:     pages,
		Agents:    service.NewDiscovery(db, passports, storetest.Sealer(t, db), service.DiscoveryOptions{}),

		StatusLists: service.NewStatusLists(db, ring, service.StatusListOptions{}),
	}
	// A Config field that adds routes must be set here, or its routes
	// escape the comparison below.
	v := reflect.ValueOf(cfg)
	for i := range v.NumField() {
		switch f := v.Field(i); f.Kind() {
		case reflect.Interface, reflect.Func, reflect.Pointer, reflect.Map, reflect.Slice:
			if f.IsNil() {
				t.Fatalf("Config.%s is not set in fullServer: set it, so that the routes it adds are compared with the OpenAPI document", v.Type().Field(i).Name)
			}
		}
	}
	return httpapi.New(storetest.Service(db), log, cfg)
}

// operations returns the document's operations as "METHOD path", and its
// paths.
func operations(t *testing.T) (ops, paths []string) {
	t.Helper()
	var doc struct {
		Paths map[string]map[string]json.RawMessage `json:"paths"`
	}
	if err := json.Unmarshal(openapi.Document(), &doc); err != nil {
		t.Fatal(err)
	}
	for path, item := range doc.Paths {
		paths = append(paths, path)
		for k := range item {
			switch k {
			case "get", "put", "post", "delete", "options", "head", "patch", "trace":
				ops = append(ops, strings.ToUpper(k)+" "+path)
			}
		}
	}
	return ops, paths
}

// TestOpenAPIDescribesEveryRoute: every route registered under the
// documented prefixes has its operation in the OpenAPI document, and every
// operation of the document is a registered route. A route registered
// without a method (/mcp) must have at least one operation.
func TestOpenAPIDescribesEveryRoute(t *testing.T) {
	ops, paths := operations(t)
	srv := fullServer(t)
	registered := map[string]bool{}
	for _, pattern := range srv.Routes() {
		method, path, ok := strings.Cut(pattern, " ")
		if !ok {
			method, path = "", pattern
		}
		path = strings.TrimSuffix(strings.ReplaceAll(path, "...}", "}"), "{$}")
		if !documented(path) {
			continue
		}
		if !slices.Contains(paths, path) {
			t.Errorf("route %q has no path item in openapi.json", pattern)
			continue
		}
		if method == "" {
			found := false
			for _, op := range ops {
				found = found || strings.HasSuffix(op, " "+path)
				registered[op] = registered[op] || strings.HasSuffix(op, " "+path)
			}
			if !found {
				t.Errorf("route %q has no operation in openapi.json", pattern)
			}
			continue
		}
		if !slices.Contains(ops, method+" "+path) {
			t.Errorf("route %q has no %s operation in openapi.json", pattern, strings.ToLower(method))
		}
		registered[method+" "+path] = true
	}
	for _, op := range ops {
		if _, path, _ := strings.Cut(op, " "); !documented(path) {
			t.Errorf("openapi.json documents %s, outside the documented prefixes %v", op, documentedPrefixes)
		} else if !registered[op] {
			t.Errorf("openapi.json documents %s, which no route serves", op)
		}
	}
}

// TestOpenAPIProblemVocabulary: the document's code enum is the whole
// vocabulary of internal/problem, each response component for an error
// status lists exactly the codes of that status, and each schema narrowing
// problem details to one operation's codes lists codes of its status.
func TestOpenAPIProblemVocabulary(t *testing.T) {
	type codes struct {
		Properties struct {
			Status struct {
				Const int `json:"const"`
			} `json:"status"`
			Code struct {
				Enum []string `json:"enum"`
			} `json:"code"`
		} `json:"properties"`
	}
	var doc struct {
		Components struct {
			Schemas struct {
				Problem codes `json:"Problem"`
			} `json:"schemas"`
			Responses map[string]struct {
				Content map[string]struct {
					Schema struct {
						AllOf []codes `json:"allOf"`
					} `json:"schema"`
				} `json:"content"`
			} `json:"responses"`
		} `json:"components"`
	}
	if err := json.Unmarshal(openapi.Document(), &doc); err != nil {
		t.Fatal(err)
	}
	byStatus := map[int][]string{}
	var all []string
	for _, c := range problem.Codes() {
		_, e := problem.Lookup(c)
		byStatus[e.Status] = append(byStatus[e.Status], string(c))
		all = append(all, string(c))
	}
	sameSet := func(a, b []string) bool {
		a, b = slices.Sorted(slices.Values(a)), slices.Sorted(slices.Values(b))
		return slices.Equal(a, b)
	}
	if got := doc.Components.Schemas.Problem.Properties.Code.Enum; !sameSet(got, all) {
		t.Errorf("Problem.code enum %v; the vocabulary is %v", got, all)
	}
	seen := map[int]bool{}
	for name, r := range doc.Components.Responses {
		c, ok := r.Content["application/problem+json"]
		if !ok || len(c.Schema.AllOf) != 2 {
			t.Errorf("response %s is not problem details narrowed to one status", name)
			continue
		}
		narrowed := c.Schema.AllOf[1].Properties
		status := narrowed.Status.Const
		if !sameSet(narrowed.Code.Enum, byStatus[status]) {
			t.Errorf("response %s (status %d) lists codes %v; the vocabulary gives %v", name, status, narrowed.Code.Enum, byStatus[status])
		}
		seen[status] = true
	}
	for status := range byStatus {
		if !seen[status] {
			t.Errorf("no response component for status %d (%v)", status, byStatus[status])
		}
	}

	// A schema that narrows problem details to the codes one operation
	// answers lists codes of its status only.
	var narrowed struct {
		Components struct {
			Schemas map[string]struct {
				AllOf []struct {
					Ref string `json:"$ref"`
					codes
				} `json:"allOf"`
			} `json:"schemas"`
		} `json:"components"`
	}
	if err := json.Unmarshal(openapi.Document(), &narrowed); err != nil {
		t.Fatal(err)
	}
	n := 0
	for name, s := range narrowed.Components.Schemas {
		if len(s.AllOf) != 2 || s.AllOf[0].Ref != "#/components/schemas/Problem" {
			continue
		}
		n++
		status, got := s.AllOf[1].Properties.Status.Const, s.AllOf[1].Properties.Code.Enum
		if len(got) == 0 {
			t.Errorf("schema %s narrows problem details to no code", name)
		}
		for _, c := range got {
			if !slices.Contains(byStatus[status], c) {
				t.Errorf("schema %s (status %d) lists %s, a code of another status or none", name, status, c)
			}
		}
	}
	if n == 0 {
		t.Error("no schema narrows problem details to an operation's codes")
	}
}

// TestOpenAPIServed: GET /openapi.json serves the embedded document with a
// strong ETag, answers a matching If-None-Match with 304, and needs no key.
func TestOpenAPIServed(t *testing.T) {
	db := storetest.Open(t, store.SQLite, store.Options{})
	e := newEnv(t, db, httpapi.Config{})
	r := must(t, e.do("", "GET", "/openapi.json", ""), 200)
	if string(r.body) != string(openapi.Document()) || r.header.Get("Content-Type") != "application/json" {
		t.Fatalf("served %d bytes as %q", len(r.body), r.header.Get("Content-Type"))
	}
	sum := sha256.Sum256(openapi.Document())
	etag := `"` + hex.EncodeToString(sum[:]) + `"`
	if r.header.Get("ETag") != etag || r.header.Get("Cache-Control") == "" {
		t.Fatalf("ETag %q, Cache-Control %q", r.header.Get("ETag"), r.header.Get("Cache-Control"))
	}
	req := map[string]string{"If-None-Match": etag}
	if r := e.send("", "GET", "/openapi.json", nil, req); r.status != 304 || len(r.body) != 0 {
		t.Fatalf("If-None-Match: %d, %d bytes", r.status, len(r.body))
	}
}
