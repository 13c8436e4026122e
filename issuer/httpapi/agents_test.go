package httpapi_test

import (
	"context"
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
	"github.com/remnant/passportkit/passport"
)

// discoveryEnv is a server on loopback answering find_agents over the demo
// world, indexed once.
type discoveryEnv struct {
	*env
	world *demoworld.World
}

func newDiscoveryEnv(t *testing.T, engine store.Engine, cfg httpapi.Config) *discoveryEnv {
	t.Helper()
	ctx := context.Background()
	clock, ids := &demoworld.Clock{}, &demoworld.IDs{}
	db := storetest.Open(t, engine, store.Options{Now: clock.Now})
	w := demoworld.Generate(demoworld.DefaultSeed)
	now := time.Now().UTC().Truncate(time.Second)
	if _, err := demoworld.Build(ctx, w, demoworld.NewEnv(db, clock, ids, now)); err != nil {
		t.Fatal(err)
	}
	clock.Set(now)
	ring, err := keyring.New(db, keyring.Config{Issuer: "https://issuer.test", Dir: filepath.Join(t.TempDir(), "keys")})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ring.EnsureActive(ctx, passport.EdDSA); err != nil {
		t.Fatal(err)
	}
	passports := service.NewPassports(db, ring, service.PassportOptions{})
	d := service.NewDiscovery(db, passports, storetest.Sealer(t, db), service.DiscoveryOptions{})
	if _, err := d.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	cfg.Agents = d
	return &discoveryEnv{env: newEnv(t, db, cfg), world: w}
}

// find gets a page of find_agents.
func (e *discoveryEnv) find(query string) issuer.FindAgentsPage {
	e.t.Helper()
	r := must(e.t, e.do("", "GET", "/api/public/agents?"+query, ""), 200)
	if r.header.Get("Cache-Control") != "no-store" || r.header.Get("X-Content-Type-Options") != "nosniff" {
		e.t.Fatalf("headers %v", r.header)
	}
	var p issuer.FindAgentsPage
	r.json(e.t, &p)
	return p
}

func TestFindAgentsOverHTTP(t *testing.T) {
	t.Parallel()
	for _, engine := range storetest.Engines(t) {
		t.Run(string(engine), func(t *testing.T) { testFindAgentsOverHTTP(t, engine) })
	}
}

func testFindAgentsOverHTTP(t *testing.T, engine store.Engine) {
	e := newDiscoveryEnv(t, engine, httpapi.Config{})
	w := e.world
	main := w.AgentID(w.Main())

	// The main agent's PostgreSQL indexing is evidenced, and listed under
	// the skill's alias too.
	p := e.find("skill=" + url.QueryEscape(demoworld.SkillAlias))
	if p.Basis != issuer.BasisSkillEvidence || p.Query.Skill != demoworld.SkillEstimated || p.Query.Limit != 20 || p.Truncated || len(p.Results) == 0 {
		t.Fatalf("page %+v", p)
	}
	if p.Results[0].ID != main || p.Results[0].Skill.Estimate == nil || !strings.Contains(p.Results[0].Why, "independent operators; lower bound") {
		t.Fatalf("first result %+v", p.Results[0])
	}

	// The ring's skill: its praise of itself was refused, so no member has
	// an estimate; the declarer's declarations are never evidence.
	ring := e.find("skill=" + url.QueryEscape(demoworld.SkillRing) + "&limit=100")
	if len(ring.Results) < len(w.OfRole(demoworld.RoleRing)) {
		t.Fatalf("ring skill: %d results", len(ring.Results))
	}
	for _, r := range ring.Results {
		if r.Skill.Estimate != nil || r.Skill.EvidenceLevel != string(passport.LevelVeryLow) {
			t.Fatalf("ring member %s: %+v", r.ID, r.Skill)
		}
	}
	declared := e.find("skill=" + url.QueryEscape(demoworld.SkillDeclared))
	if len(declared.Results) != 2 {
		t.Fatalf("declared skill: %+v", declared.Results)
	}
	for _, r := range declared.Results {
		if r.Skill.State != string(passport.StateNew) || r.Skill.Estimate != nil {
			t.Fatalf("declared skill of %s: %+v", r.ID, r.Skill)
		}
	}

	// Paging one by one returns the same agents once each, in order.
	var paged []issuer.AgentID
	q := url.Values{"skill": {demoworld.SkillRing}, "limit": {"1"}}
	for range 100 {
		pg := e.find(q.Encode())
		for _, r := range pg.Results {
			paged = append(paged, r.ID)
		}
		if pg.NextCursor == "" {
			break
		}
		q.Set("cursor", pg.NextCursor)
	}
	if !slices.Equal(paged, ids(ring.Results)) {
		t.Fatalf("paged %v, want %v", paged, ids(ring.Results))
	}

	// In a context; and the legacy listing without a skill.
	ctxPage := e.find("skill=PostgreSQL+indexing&workload=" + url.QueryEscape("OLTP") + "&environment=production&limit=5")
	if ctxPage.Basis != issuer.BasisSkillEvidenceInContext || ctxPage.Work == nil || ctxPage.Query.Context == nil ||
		ctxPage.Query.Context.Workload != "oltp" || len(ctxPage.Results) == 0 || !strings.HasPrefix(ctxPage.Results[0].Why, "in this context") {
		t.Fatalf("context page %+v", ctxPage)
	}
	legacy := e.find("limit=100")
	if legacy.Basis != issuer.BasisGlobalReputation || len(legacy.Results) != len(w.Agents) || legacy.Results[0].Reputation == nil {
		t.Fatalf("legacy listing: %d results of %d agents, %+v", len(legacy.Results), len(w.Agents), legacy.Query)
	}

	// An unknown skill is an empty, explained page.
	unknown := e.find("skill=" + url.QueryEscape("underwater basket weaving"))
	if len(unknown.Results) != 0 || !strings.Contains(unknown.Note, "not a skill of skills-1") {
		t.Fatalf("unknown skill: %+v", unknown)
	}

	// Refusals.
	first := e.find("skill=" + url.QueryEscape(demoworld.SkillRing) + "&limit=1")
	if first.NextCursor == "" {
		t.Fatal("no cursor after the first of several results")
	}
	tampered := []byte(first.NextCursor)
	tampered[len(tampered)/2] ^= 1
	ringSkill := "skill=" + url.QueryEscape(demoworld.SkillRing)
	for query, code := range map[string]issuer.Code{
		"skill=PostgreSQL&limit=0":   issuer.CodeLimitOutOfRange,
		"skill=PostgreSQL&limit=101": issuer.CodeLimitOutOfRange,
		"limit=99999999999999999999": issuer.CodeLimitOutOfRange,
		"limit=ten":                  issuer.CodeInvalid,
		"limit=1&limit=2":            issuer.CodeInvalid,
		"skill=PostgreSQL&color=red": issuer.CodeUnknownDimension,
		"workload=oltp":              issuer.CodeInvalid,
		"skill=":                     issuer.CodeInvalid,
		"skill=%zz":                  issuer.CodeInvalid,
		ringSkill + "&cursor=" + url.QueryEscape(string(tampered)):                 issuer.CodeCursorInvalid,
		"skill=PostgreSQL+replication&cursor=" + url.QueryEscape(first.NextCursor): issuer.CodeCursorInvalid,
		ringSkill + "&workload=oltp&cursor=" + url.QueryEscape(first.NextCursor):   issuer.CodeCursorInvalid,
		"cursor=" + url.QueryEscape(first.NextCursor):                              issuer.CodeCursorInvalid,
		ringSkill + "&cursor=": issuer.CodeCursorInvalid,
		ringSkill + "&cursor=" + strings.Repeat("A", issuer.MaxFindAgentsCursor+1): issuer.CodeCursorInvalid,
		ringSkill + "&cursor=" + url.QueryEscape(sealOther(t, first.NextCursor)):   issuer.CodeCursorInvalid,
	} {
		wantProblem(t, e.do("", "GET", "/api/public/agents?"+query, ""), 400, code)
	}
	// The same cursor with the same query, however spelled, continues.
	spelled := "skill=" + url.QueryEscape("  "+strings.ToUpper(demoworld.SkillRing)+" ") + "&cursor=" + url.QueryEscape(first.NextCursor)
	if p := e.find(spelled); len(p.Results) == 0 || p.Results[0].ID == first.Results[0].ID {
		t.Fatalf("continuation %+v", p.Results)
	}
}

// sealOther seals the payload of a cursor again under another key: a
// cursor from another issuer.
func sealOther(t *testing.T, cursor string) string {
	s, err := seal.New([]byte(strings.Repeat("k", seal.KeySize)))
	if err != nil {
		t.Fatal(err)
	}
	return s.Seal(service.CursorPurpose, []byte(cursor[:min(len(cursor), 40)]))
}

func ids(rs []issuer.FoundAgent) []issuer.AgentID {
	out := make([]issuer.AgentID, len(rs))
	for i, r := range rs {
		out[i] = r.ID
	}
	return out
}

func TestFindAgentsIsRateLimitedPerAddress(t *testing.T) {
	e := newDiscoveryEnv(t, store.SQLite, httpapi.Config{RatePerSecond: 0.001, Burst: 2})
	for range 2 {
		e.find("skill=PostgreSQL")
	}
	r := e.do("", "GET", "/api/public/agents?skill=PostgreSQL", "")
	wantProblem(t, r, 429, issuer.CodeRateLimited)
	if r.header.Get("Retry-After") == "" {
		t.Fatal("no Retry-After")
	}
}
