package metrics_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/remnant/passportkit/issuer"
	"github.com/remnant/passportkit/issuer/httpapi"
	"github.com/remnant/passportkit/issuer/httpapi/openapi/openapitest"
	"github.com/remnant/passportkit/issuer/keyring"
	"github.com/remnant/passportkit/issuer/mcpserver"
	"github.com/remnant/passportkit/issuer/metrics"
	"github.com/remnant/passportkit/issuer/service"
	"github.com/remnant/passportkit/issuer/store"
	"github.com/remnant/passportkit/issuer/store/storetest"
	"github.com/remnant/passportkit/passport"
)

// world is an issuer on loopback wired as `passport-issuer serve` wires
// it, with metrics, and a client that checks every exchange against the
// OpenAPI document.
type world struct {
	t         *testing.T
	db        *store.DB
	srv       *httptest.Server
	client    *http.Client
	passports *service.Passports
}

func newWorld(t *testing.T, db *store.DB) *world {
	t.Helper()
	ctx := context.Background()
	log := storetest.Logger(t)
	met := metrics.New(log)
	met.WatchPool(string(db.Engine()), db)
	met.WatchNetwork(db, nil)
	ring, err := keyring.New(db, keyring.Config{Issuer: "https://issuer.test", Dir: filepath.Join(t.TempDir(), "keys")})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ring.EnsureActive(ctx, passport.EdDSA); err != nil {
		t.Fatal(err)
	}
	app := service.New(db, service.Options{Observer: met})
	passports := service.NewPassports(db, ring, service.PassportOptions{Observer: met})
	srv := httptest.NewServer(httpapi.New(app, log, httpapi.Config{
		RatePerSecond: 1000, Burst: 1000,
		Keys: ring, Passports: passports,
		MCP:      mcpserver.Handler(app, log, "test"),
		Observer: met, Metrics: met.Handler(),
	}))
	t.Cleanup(srv.Close)
	return &world{t: t, db: db, srv: srv, client: openapitest.Issuer(t).Client(t, srv.Client()), passports: passports}
}

func (w *world) agent(name string) (issuer.APIKey, issuer.AgentID) {
	w.t.Helper()
	a, err := storetest.Admin(w.db).CreateAgent(context.Background(), service.NewAgent{Name: name})
	if err != nil {
		w.t.Fatal(err)
	}
	return a.Key, a.ID
}

// do sends one request and checks its status.
func (w *world) do(key issuer.APIKey, method, path, body string, status int) []byte {
	w.t.Helper()
	req, err := http.NewRequest(method, w.srv.URL+path, strings.NewReader(body))
	if err != nil {
		w.t.Fatal(err)
	}
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+string(key))
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	res, err := w.client.Do(req)
	if err != nil {
		w.t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	if res.StatusCode != status {
		w.t.Fatalf("%s %s: %d, want %d: %s", method, path, res.StatusCode, status, b)
	}
	return b
}

// mcpFeedback validates mem over MCP as the agent of key and returns
// whether the tool refused.
func (w *world) mcpFeedback(key issuer.APIKey, mem issuer.MemoryID) bool {
	w.t.Helper()
	client := mcp.NewClient(&mcp.Implementation{Name: "metrics-test", Version: "1"}, nil)
	cs, err := client.Connect(context.Background(), &mcp.StreamableClientTransport{
		Endpoint:             w.srv.URL + "/mcp",
		HTTPClient:           &http.Client{Transport: openapitest.Bearer(string(key), w.client.Transport)},
		DisableStandaloneSSE: true,
		MaxRetries:           -1,
	}, nil)
	if err != nil {
		w.t.Fatalf("connect: %v", err)
	}
	defer cs.Close()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "feedback_memory", Arguments: map[string]any{"memoryId": string(mem), "type": "useful"}})
	if err != nil {
		w.t.Fatal(err)
	}
	return res.IsError
}

// scrape reads /metrics.
func (w *world) scrape() map[string]*dto.MetricFamily {
	w.t.Helper()
	b := w.do("", "GET", "/metrics", "", 200)
	p := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := p.TextToMetricFamilies(strings.NewReader(string(b)))
	if err != nil {
		w.t.Fatalf("parse the scrape: %v", err)
	}
	return fams
}

// value returns the value of the series of family name whose labels
// include want, and whether there is one.
func value(fams map[string]*dto.MetricFamily, name string, want map[string]string) (float64, bool) {
	f, ok := fams[name]
	if !ok {
		return 0, false
	}
next:
	for _, m := range f.GetMetric() {
		have := map[string]string{}
		for _, l := range m.GetLabel() {
			have[l.GetName()] = l.GetValue()
		}
		for k, v := range want {
			if have[k] != v {
				continue next
			}
		}
		switch {
		case m.Counter != nil:
			return m.GetCounter().GetValue(), true
		case m.Gauge != nil:
			return m.GetGauge().GetValue(), true
		case m.Histogram != nil:
			return float64(m.GetHistogram().GetSampleCount()), true
		}
	}
	return 0, false
}

// TestMetricsAfterTraffic drives the issuer over HTTP and MCP, then scrapes
// /metrics and checks that each figure moved for the right route pattern,
// status, outcome and cache entry, that the pool's statistics and the
// day's network counters are there, and that no label holds a raw path.
func TestMetricsAfterTraffic(t *testing.T) {
	storetest.Run(t, func(t *testing.T, db *store.DB) {
		w := newWorld(t, db)
		ctx := context.Background()
		authorKey, author := w.agent("Author")
		evalKey, _ := w.agent("Evaluator")
		otherKey, _ := w.agent("Other")

		var mem issuer.Memory
		json.Unmarshal(w.do(authorKey, "POST", "/api/memories", `{"category":"sql","title":"Vacuum","content":"Tune autovacuum.","appliesTo":{"skill":"postgresql tuning"}}`, 201), &mem)
		path := "/api/memories/" + string(mem.ID)
		w.do(evalKey, "GET", path, "", 200)
		w.do(otherKey, "GET", path, "", 200)
		w.do(evalKey, "POST", path+"/feedback", `{"type":"corroborate","idempotencyKey":"k1"}`, 200)
		w.do(evalKey, "POST", path+"/feedback", `{"type":"corroborate","idempotencyKey":"k1"}`, 200)
		w.do(authorKey, "POST", path+"/feedback", `{"type":"useful"}`, 403)
		w.do(evalKey, "GET", "/api/nothing/"+string(mem.ID), "", 404)
		if w.mcpFeedback(otherKey, mem.ID) {
			t.Fatal("feedback_memory over MCP refused")
		}
		if !w.mcpFeedback(authorKey, mem.ID) {
			t.Fatal("self-validation over MCP accepted")
		}

		passportPath := "/api/public/agents/" + string(author) + "/passport"
		w.do("", "GET", passportPath, "", 200)
		w.do("", "GET", passportPath, "", 200)
		w.do("", "GET", passportPath+"?disclose=none", "", 200)
		if _, err := w.passports.InspectSkill(ctx, db, author, "postgresql tuning"); err != nil {
			t.Fatal(err)
		}

		fams := w.scrape()
		want := []struct {
			name   string
			labels map[string]string
			value  float64
		}{
			{"passportkit_http_requests_total", map[string]string{"method": "POST", "route": "/api/memories", "status": "201"}, 1},
			{"passportkit_http_requests_total", map[string]string{"method": "GET", "route": "/api/memories/{id}", "status": "200"}, 2},
			{"passportkit_http_requests_total", map[string]string{"method": "POST", "route": "/api/memories/{id}/feedback", "status": "200"}, 2},
			{"passportkit_http_requests_total", map[string]string{"method": "POST", "route": "/api/memories/{id}/feedback", "status": "403"}, 1},
			{"passportkit_http_requests_total", map[string]string{"method": "GET", "route": "unmatched", "status": "404"}, 1},
			{"passportkit_http_requests_total", map[string]string{"method": "GET", "route": "/api/public/agents/{publicId}/passport", "status": "200"}, 3},
			{"passportkit_http_request_duration_seconds", map[string]string{"method": "GET", "route": "/api/memories/{id}", "status": "200"}, 2},
			{"passportkit_validation_submissions_total", map[string]string{"kind": "memory_feedback", "transport": "http", "outcome": "accepted", "code": ""}, 1},
			{"passportkit_validation_submissions_total", map[string]string{"kind": "memory_feedback", "transport": "http", "outcome": "replayed", "code": ""}, 1},
			{"passportkit_validation_submissions_total", map[string]string{"kind": "memory_feedback", "transport": "http", "outcome": "refused", "code": "self_feedback"}, 1},
			{"passportkit_validation_submissions_total", map[string]string{"kind": "memory_feedback", "transport": "mcp", "outcome": "accepted", "code": ""}, 1},
			{"passportkit_validation_submissions_total", map[string]string{"kind": "memory_feedback", "transport": "mcp", "outcome": "refused", "code": "self_feedback"}, 1},
			{"passportkit_passports_issued_total", map[string]string{"disclosure": "previews"}, 2},
			{"passportkit_passports_issued_total", map[string]string{"disclosure": "none"}, 1},
			{"passportkit_passports_issued_total", map[string]string{"disclosure": "all"}, 0},
			{"passportkit_passport_cache_lookups_total", map[string]string{"entry": "passport", "result": "miss"}, 1},
			{"passportkit_passport_cache_lookups_total", map[string]string{"entry": "passport", "result": "hit"}, 3},
			{"passportkit_passport_cache_lookups_total", map[string]string{"entry": "skill", "result": "miss"}, 1},
			{"passportkit_db_max_open_connections", map[string]string{"engine": string(db.Engine())}, 10},
			{"passportkit_trust_network_up", nil, 1},
			{"passportkit_trust_network_today", map[string]string{"metric": service.MetricAssessmentsGenerated}, 1},
			{"passportkit_trust_network_today", map[string]string{"metric": service.MetricContestedAssessments}, 0},
		}
		for _, c := range want {
			if got, ok := value(fams, c.name, c.labels); !ok || got != c.value {
				t.Errorf("%s%v = %v (present %v), want %v", c.name, c.labels, got, ok, c.value)
			}
		}
		for _, name := range []string{"passportkit_db_open_connections", "passportkit_db_connections", "passportkit_db_waits_total", "go_goroutines", "process_cpu_seconds_total"} {
			if _, ok := fams[name]; !ok {
				t.Errorf("no %s", name)
			}
		}
		for name, f := range fams {
			for _, m := range f.GetMetric() {
				for _, l := range m.GetLabel() {
					if strings.Contains(l.GetValue(), "mem_") || strings.Contains(l.GetValue(), "agt_") {
						t.Errorf("%s has a label %s=%q holding an identifier", name, l.GetName(), l.GetValue())
					}
				}
			}
		}
		// The scrape itself is counted by the next one.
		if got, _ := value(w.scrape(), "passportkit_http_requests_total", map[string]string{"route": "/metrics", "status": "200"}); got != 1 {
			t.Errorf("/metrics counted %v times, want 1", got)
		}
	})
}

// failingSource is a network counter source whose database is gone.
type failingSource struct{ *store.DB }

// TestNetworkReadFailure: a scrape whose read of the day's counters fails
// still answers, with passportkit_trust_network_up 0 and no counter.
func TestNetworkReadFailure(t *testing.T) {
	db := storetest.Open(t, store.SQLite, store.Options{})
	met := metrics.New(storetest.Logger(t))
	met.WatchNetwork(failingSource{db}, nil)
	met.WatchPool(string(db.Engine()), db)
	db.Close()
	srv := httptest.NewServer(met.Handler())
	defer srv.Close()
	res, err := srv.Client().Get(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	p := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := p.TextToMetricFamilies(res.Body)
	if err != nil || res.StatusCode != 200 {
		t.Fatalf("scrape: %d %v", res.StatusCode, err)
	}
	if up, ok := value(fams, "passportkit_trust_network_up", nil); !ok || up != 0 {
		t.Fatalf("up = %v (%v), want 0", up, ok)
	}
	if _, ok := fams["passportkit_trust_network_today"]; ok {
		t.Fatal("counters reported after a failed read")
	}
}
