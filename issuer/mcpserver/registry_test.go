package mcpserver_test

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/remnant/passportkit/evidence"
	"github.com/remnant/passportkit/internal/mcpwire/mcpwiretest"
	"github.com/remnant/passportkit/issuer"
	"github.com/remnant/passportkit/issuer/httpapi"
	"github.com/remnant/passportkit/issuer/keyring"
	"github.com/remnant/passportkit/issuer/mcpserver"
	"github.com/remnant/passportkit/issuer/service"
	"github.com/remnant/passportkit/issuer/store"
	"github.com/remnant/passportkit/issuer/store/storetest"
	"github.com/remnant/passportkit/passport"
)

// The registry's skill, the skill some of its agents are evidenced for
// instead, and its present.
const (
	registrySkill = "PostgreSQL indexing"
	otherSkill    = "Kubernetes operators"
)

var registryNow = time.Date(2026, 6, 1, 9, 30, 0, 0, time.UTC)

// registry is a registry of a few hundred agents, served on loopback as
// serve serves it (GET /api/public/agents and find_agents on /mcp over one
// discovery), whose every record was written through the HTTP API: the
// agents and operators are made by the store's administration, as the
// CLI makes them. Once written, it is indexed and its clock stops.
type registry struct {
	transports
	db        *store.DB
	admin     *service.Admin // on the registry's clock
	discovery *service.Discovery
	keys      map[issuer.AgentID]issuer.APIKey
	memories  map[issuer.AgentID][]issuer.MemoryID
	published int

	// evaluators are two agents of each of ten operators.
	evaluators []issuer.AgentID
	// authors, each of an operator of its own, publish about the skill and
	// are evidenced by evaluators; contested are those of them one of
	// whose memories an evaluator contradicted.
	authors, contested []issuer.AgentID
	// ring are agents of one operator that praise one another: every
	// praise is refused (refused counts the refusals).
	ring    []issuer.AgentID
	refused int
	// lone publish one memory each about the skill and get nothing: the
	// ring without its praise.
	lone []issuer.AgentID
	// declarers declare the skill as a capability and have no evidence.
	declarers []issuer.AgentID
	// elsewhere are evidenced for another skill only; idle have nothing.
	elsewhere, idle []issuer.AgentID
}

// Sizes of the registry: 20 evaluators, 36 authors, 5 ring members, 3
// lone publishers, 20 declarers, 4 agents evidenced elsewhere, 200 idle
// agents and the caller: 289 agents.
const (
	evaluatorOperators = 10
	evaluatorsPer      = 2
	registryAuthors    = 36
	registryIdle       = 200
)

func newRegistry(t *testing.T, engine store.Engine) *registry {
	t.Helper()
	ctx := context.Background()
	// A second later at every reading while the registry is written, then
	// still, so that every page is read at one moment.
	clock := storetest.NewClock(registryNow.AddDate(0, 0, -30), time.Second)
	db := storetest.Open(t, engine, store.Options{Now: clock.Now})
	ring, err := keyring.New(db, keyring.Config{Issuer: "https://issuer.test", Dir: filepath.Join(t.TempDir(), "keys"), Now: clock.Now})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ring.EnsureActive(ctx, passport.EdDSA); err != nil {
		t.Fatal(err)
	}
	app := service.New(db, service.Options{Now: clock.Now})
	passports := service.NewPassports(db, ring, service.PassportOptions{Now: clock.Now})
	discovery := service.NewDiscovery(db, passports, storetest.Sealer(t, db), service.DiscoveryOptions{Now: clock.Now})
	log := storetest.QuietLogger(t)
	tools := mcpserver.Handler(app, log, "test", mcpserver.WithDiscovery(discovery))
	srv := httptest.NewServer(httpapi.New(app, log, httpapi.Config{RatePerSecond: 1e6, Burst: 1e6, Agents: discovery, MCP: tools}))
	t.Cleanup(srv.Close)
	r := &registry{transports: transports{t: t, srv: srv}, db: db, admin: service.NewAdmin(db, service.AdminOptions{Now: clock.Now}), discovery: discovery,
		keys: map[issuer.AgentID]issuer.APIKey{}, memories: map[issuer.AgentID][]issuer.MemoryID{}}
	caller := r.agent("Caller", "")
	start := time.Now()
	r.build()
	built := time.Since(start)
	clock.Freeze(registryNow)
	rep, err := discovery.Sync(ctx)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%s: wrote the registry over HTTP in %v, indexed %d agents in %v", engine, built.Round(time.Millisecond), rep.Indexed,
		(time.Since(start) - built).Round(time.Millisecond))
	r.cs = mcpwiretest.Session(t, srv.URL+"/mcp", string(r.keys[caller]))
	return r
}

// agent creates an agent of op ("" for none) with the default scopes.
func (r *registry) agent(name string, op issuer.OperatorID) issuer.AgentID {
	r.t.Helper()
	a, err := r.admin.CreateAgent(context.Background(), service.NewAgent{Name: name, Operator: op})
	if err != nil {
		r.t.Fatal(err)
	}
	r.keys[a.ID] = a.Key
	return a.ID
}

// housed creates n agents called kind 0 to n−1, each of an operator of
// its own.
func (r *registry) housed(kind string, n int) []issuer.AgentID {
	out := make([]issuer.AgentID, n)
	for i := range out {
		out[i] = r.agent(fmt.Sprintf("%s %d", kind, i), r.operator(fmt.Sprintf("%s house %d", kind, i)))
	}
	return out
}

func (r *registry) operator(name string) issuer.OperatorID {
	r.t.Helper()
	op, err := r.admin.CreateOperator(context.Background(), name)
	if err != nil {
		r.t.Fatal(err)
	}
	return op
}

// send makes an authenticated request of the API as agent, with body as
// its JSON body, and returns the status and the answer.
func (r *registry) send(as issuer.AgentID, method, path string, body any) (int, []byte) {
	r.t.Helper()
	b, err := json.Marshal(body)
	if err != nil {
		r.t.Fatal(err)
	}
	req, err := http.NewRequest(method, r.srv.URL+path, bytes.NewReader(b))
	if err != nil {
		r.t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+string(r.keys[as]))
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		r.t.Fatal(err)
	}
	defer res.Body.Close()
	out, err := io.ReadAll(res.Body)
	if err != nil {
		r.t.Fatal(err)
	}
	return res.StatusCode, out
}

// must is send, failing unless the answer has the status.
func (r *registry) must(as issuer.AgentID, method, path string, body any, status int) []byte {
	r.t.Helper()
	got, out := r.send(as, method, path, body)
	if got != status {
		r.t.Fatalf("%s %s: %d %s", method, path, got, out)
	}
	return out
}

// publish publishes a memory by author about skill, found in workload.
func (r *registry) publish(author issuer.AgentID, skill, workload string) issuer.MemoryID {
	r.t.Helper()
	r.published++
	out := r.must(author, "POST", "/api/memories", map[string]any{
		"category": "databases", "title": fmt.Sprintf("Finding %d", r.published),
		"content":   fmt.Sprintf("Finding %d, about %s.", r.published, skill),
		"appliesTo": map[string]string{"skill": skill, "workload": workload},
	}, http.StatusCreated)
	var m issuer.Memory
	if err := json.Unmarshal(out, &m); err != nil || m.ID == "" {
		r.t.Fatalf("publish: %s", out)
	}
	r.memories[author] = append(r.memories[author], m.ID)
	return m.ID
}

// act is what an evaluator does with a memory: report an outcome in a
// workload, or take a position (feedback).
type act struct {
	mem      issuer.MemoryID
	outcome  evidence.Outcome
	feedback string
	workload string
}

// work has an agent consult the memories of acts, twenty to a
// consultation, and then do each act, each refused with refusal (a
// status) or done.
func (r *registry) work(ev issuer.AgentID, acts []act, refusal int) {
	r.t.Helper()
	var mems []issuer.MemoryID
	for _, a := range acts {
		if !slices.Contains(mems, a.mem) {
			mems = append(mems, a.mem)
		}
	}
	for chunk := range slices.Chunk(mems, issuer.MaxConsultedMemories) {
		r.must(ev, "POST", "/api/receipts", map[string]any{"memoryIds": chunk}, http.StatusCreated)
	}
	want := cmp.Or(refusal, http.StatusOK)
	for _, a := range acts {
		var out []byte
		if a.feedback != "" {
			out = r.must(ev, "POST", "/api/memories/"+string(a.mem)+"/feedback", map[string]string{"type": a.feedback}, want)
		} else {
			out = r.must(ev, "POST", "/api/memories/"+string(a.mem)+"/outcomes",
				map[string]any{"outcome": a.outcome, "context": map[string]string{"workload": a.workload}}, want)
		}
		if refusal != 0 {
			var p struct{ Code issuer.Code }
			if json.Unmarshal(out, &p); p.Code != issuer.CodeSameOwner {
				r.t.Fatalf("a refusal of %s: %s", a.mem, out)
			}
			r.refused++
		}
	}
}

// build writes the registry: evaluators from distinct operators evidence
// the authors (outcomes of every kind, corroborations) and contradict
// some; the ring praises itself; declarers declare; the idle do nothing.
func (r *registry) build() {
	var evOps []issuer.OperatorID
	for i := range evaluatorOperators {
		evOps = append(evOps, r.operator(fmt.Sprintf("Evaluators %d", i)))
	}
	for i := range evaluatorOperators * evaluatorsPer {
		r.evaluators = append(r.evaluators, r.agent(fmt.Sprintf("evaluator %d", i), evOps[i%evaluatorOperators]))
	}
	r.authors = r.housed("author", registryAuthors)
	ringOp := r.operator("Ring")
	for i := range 5 {
		r.ring = append(r.ring, r.agent(fmt.Sprintf("ring %d", i), ringOp))
	}
	r.lone = r.housed("lone", 3)
	r.declarers = r.housed("declarer", 20)
	r.elsewhere = r.housed("operator expert", 4)
	for i := range registryIdle {
		r.idle = append(r.idle, r.agent(fmt.Sprintf("idle %d", i), ""))
	}

	// Each author publishes 1 to 4 memories; each is used by 2 to 5
	// evaluators of distinct operators, in varied workloads; some fail,
	// some are partial, and some evaluators corroborate instead. Every
	// sixth author has a memory contradicted by an evaluator of yet
	// another operator.
	acts := map[issuer.AgentID][]act{}
	n := len(r.evaluators)
	for i, a := range r.authors {
		for j := range 1 + i%4 {
			m := r.publish(a, registrySkill, fmt.Sprintf("w%d", j%3))
			base := i*3 + j*7
			for x := range 2 + (i+j)%4 {
				ac := act{mem: m, outcome: evidence.OutcomeSuccess, workload: fmt.Sprintf("w%d", (i+j+x)%4)}
				switch (i + j + x) % 7 {
				case 0:
					ac.outcome = evidence.OutcomeFailure
				case 3:
					ac.outcome = evidence.OutcomePartial
				case 5:
					ac.feedback = "corroborate"
				}
				ev := r.evaluators[(base+x)%n]
				acts[ev] = append(acts[ev], ac)
			}
			if j == 0 && i%6 == 2 {
				r.contested = append(r.contested, a)
				ev := r.evaluators[(base+7)%n]
				acts[ev] = append(acts[ev], act{mem: m, feedback: "contradict"})
			}
		}
	}
	for i, a := range r.elsewhere {
		for j := range 2 {
			m := r.publish(a, otherSkill, "w0")
			for x := range 4 {
				ev := r.evaluators[(i*5+j*3+x)%n]
				acts[ev] = append(acts[ev], act{mem: m, outcome: evidence.OutcomeSuccess, workload: "w1"})
			}
		}
	}
	for _, ev := range r.evaluators {
		r.work(ev, acts[ev], 0)
	}

	// The ring praises itself, every way it can: refused.
	for _, a := range r.ring {
		r.publish(a, registrySkill, "w0")
	}
	for _, a := range r.ring {
		var praise []act
		for _, b := range r.ring {
			if b != a {
				m := r.memories[b][0]
				praise = append(praise, act{mem: m, outcome: evidence.OutcomeSuccess, workload: "w1"}, act{mem: m, feedback: "corroborate"})
			}
		}
		r.work(a, praise, http.StatusForbidden)
	}
	for _, a := range r.lone {
		r.publish(a, registrySkill, "w0")
	}
	for _, a := range r.declarers {
		r.must(a, "PUT", "/api/agents/me/capabilities", map[string]any{"capabilities": []string{registrySkill, "Kubernetes"}}, http.StatusOK)
	}
}
