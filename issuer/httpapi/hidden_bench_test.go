package httpapi_test

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/remnant/passportkit/internal/seal"
	"github.com/remnant/passportkit/issuer"
	"github.com/remnant/passportkit/issuer/demoworld"
	"github.com/remnant/passportkit/issuer/httpapi"
	"github.com/remnant/passportkit/issuer/keyring"
	"github.com/remnant/passportkit/issuer/service"
	"github.com/remnant/passportkit/issuer/store"
	"github.com/remnant/passportkit/issuer/store/storetest"
	"github.com/remnant/passportkit/issuer/web"
	"github.com/remnant/passportkit/passport"
)

// BenchmarkHiddenAgentNotFound measures, over HTTP on loopback and on both
// engines, what each public read costs for an agent of the demo world that
// is unlisted, private or suspended, and for an unknown id of the same
// form: both are refused alike, and neither may take longer to refuse
// (SPEC.md §13.2). Every round asks about each hidden agent and the
// unknown id in turn, the order alternating from round to round, so that a
// change of load on a shared machine weighs on both alike. It reports, per
// read, the median time of a hidden agent's answer and of the unknown id's
// (hidden-ms, unknown-ms), and the median of the difference within each
// pair (diff-ms). Run with
//
//	go test ./issuer/httpapi -run '^$' -bench HiddenAgentNotFound -benchtime 400x
func BenchmarkHiddenAgentNotFound(b *testing.B) {
	for _, engine := range storetest.Engines(b) {
		b.Run(string(engine), func(b *testing.B) {
			hw := newHiddenWorld(b, engine)
			for _, r := range hw.reads() {
				b.Run(r.name, func(b *testing.B) { hw.measure(b, r) })
			}
		})
	}
}

// hiddenWorld is the demo world served on loopback with its public reads,
// three of its agents hidden, and the key of an agent of its own.
type hiddenWorld struct {
	srv    *httptest.Server
	main   issuer.AgentID
	hidden []issuer.AgentID
	key    issuer.APIKey
}

// unknownAgent is an id no agent has, of the form of every agent id.
const unknownAgent = issuer.AgentID("agt_qqqqqqqqqqqqqqqqqqqqqqqqqq")

func newHiddenWorld(b *testing.B, engine store.Engine) *hiddenWorld {
	ctx := context.Background()
	now := time.Now().UTC().Truncate(time.Second)
	db, app, w := storetest.DemoWorld(b, engine, now)
	ring, err := keyring.New(db, keyring.Config{Issuer: "https://issuer.test", Dir: filepath.Join(b.TempDir(), "keys")})
	if err != nil {
		b.Fatal(err)
	}
	if _, err := ring.EnsureActive(ctx, passport.EdDSA); err != nil {
		b.Fatal(err)
	}
	passports := service.NewPassports(db, ring, service.PassportOptions{})
	trust := storetest.Trust(b, passports, db, make([]byte, seal.KeySize))
	log := slog.New(slog.DiscardHandler) // the reads are measured, not the log
	pages, err := web.New(web.Config{Profiles: app, Passports: passports, Trust: trust, Keys: ring, Logger: log})
	if err != nil {
		b.Fatal(err)
	}
	srv := httptest.NewServer(httpapi.New(app, log, httpapi.Config{RatePerSecond: 1e6, Burst: 1e6, Passports: passports, Trust: trust, Pages: pages}))
	b.Cleanup(srv.Close)
	viewer, err := storetest.Admin(db).CreateAgent(ctx, service.NewAgent{Name: "Viewer"})
	if err != nil {
		b.Fatal(err)
	}
	ev := w.OfRole(demoworld.RoleEvaluator)
	hw := &hiddenWorld{srv: srv, main: w.AgentID(w.Main()), key: viewer.Key,
		hidden: []issuer.AgentID{w.AgentID(ev[0]), w.AgentID(ev[1]), w.AgentID(w.OfRole(demoworld.RoleRing)[1])}}
	if err := storetest.Admin(db).SetAgentVisibility(ctx, hw.hidden[0], issuer.VisibilityUnlisted); err != nil {
		b.Fatal(err)
	}
	if err := storetest.Admin(db).SetAgentVisibility(ctx, hw.hidden[1], issuer.VisibilityPrivate); err != nil {
		b.Fatal(err)
	}
	if err := storetest.Admin(db).SetAgentStatus(ctx, hw.hidden[2], issuer.AgentSuspended); err != nil {
		b.Fatal(err)
	}
	return hw
}

// hiddenRead is one public read about an agent: the request for id, and
// the status of its refusal.
type hiddenRead struct {
	name    string
	status  int
	request func(id issuer.AgentID) *http.Request
}

// reads are the public reads that take an agent id, each refused alike
// for a hidden agent and an unknown id: 404, and 400 for a search whose
// trust set names no listed agent.
func (hw *hiddenWorld) reads() []hiddenRead {
	get := func(path func(issuer.AgentID) string, key issuer.APIKey) func(issuer.AgentID) *http.Request {
		return func(id issuer.AgentID) *http.Request {
			req, _ := http.NewRequest("GET", hw.srv.URL+path(id), nil)
			if key != "" {
				req.Header.Set("Authorization", "Bearer "+string(key))
			}
			return req
		}
	}
	under := func(suffix string) func(issuer.AgentID) string {
		return func(id issuer.AgentID) string { return "/api/public/agents/" + string(id) + suffix }
	}
	skill := "/skills/" + url.PathEscape(demoworld.SkillRing)
	return []hiddenRead{
		{"profile", 404, get(func(id issuer.AgentID) string { return "/api/agents/" + string(id) }, "")},
		{"reputation", 404, get(func(id issuer.AgentID) string { return "/api/agents/" + string(id) + "/reputation" }, hw.key)},
		{"passport", 404, get(under("/passport"), "")},
		{"skills", 404, get(under("/skills"), "")},
		{"trust", 404, get(under(skill+"/trust"), "")},
		{"evidence", 404, get(under(skill+"/evidence?limit=1"), "")},
		{"assess", 404, func(id issuer.AgentID) *http.Request {
			body := `{"agents":["` + string(hw.main) + `","` + string(id) + `"],"skills":["` + demoworld.SkillRing + `"]}`
			req, _ := http.NewRequest("POST", hw.srv.URL+"/api/public/trust/assess", strings.NewReader(body))
			req.Header.Set("Content-Type", "application/json")
			return req
		}},
		{"search", 400, get(func(id issuer.AgentID) string { return "/api/memories/search?q=index&trust=" + string(id) }, hw.key)},
		{"profile-page", 404, get(func(id issuer.AgentID) string { return "/agents/" + string(id) }, "")},
	}
}

// measure runs b.N rounds of r: in each, every hidden agent's read paired
// with the unknown id's, and reports the medians.
func (hw *hiddenWorld) measure(b *testing.B, r hiddenRead) {
	client := hw.srv.Client()
	ask := func(id issuer.AgentID) time.Duration {
		start := time.Now()
		res, err := client.Do(r.request(id))
		if err != nil {
			b.Fatal(err)
		}
		io.Copy(io.Discard, res.Body)
		res.Body.Close()
		took := time.Since(start)
		if res.StatusCode != r.status {
			b.Fatalf("%s of %s: %d", r.name, id, res.StatusCode)
		}
		return took
	}
	// The hour's passport of the agent named beside, and the connection,
	// are ready before the first round.
	ask(unknownAgent)
	var hidden, unknown, diff []float64
	ms := func(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
	b.ResetTimer()
	for i := range b.N {
		for _, id := range hw.hidden {
			var h, u time.Duration
			if i%2 == 0 {
				h, u = ask(id), ask(unknownAgent)
			} else {
				u, h = ask(unknownAgent), ask(id)
			}
			hidden, unknown, diff = append(hidden, ms(h)), append(unknown, ms(u)), append(diff, ms(h)-ms(u))
		}
	}
	b.StopTimer()
	b.ReportMetric(median(hidden), "hidden-ms")
	b.ReportMetric(median(unknown), "unknown-ms")
	b.ReportMetric(median(diff), "diff-ms")
}

// median returns the median of xs, which it sorts.
func median(xs []float64) float64 {
	slices.Sort(xs)
	n := len(xs)
	if n%2 == 1 {
		return xs[n/2]
	}
	return (xs[n/2-1] + xs[n/2]) / 2
}
