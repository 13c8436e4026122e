package demoworld_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/remnant/passportkit/issuer"
	"github.com/remnant/passportkit/issuer/demoworld"
	"github.com/remnant/passportkit/issuer/issuing"
	"github.com/remnant/passportkit/issuer/keyring"
	"github.com/remnant/passportkit/issuer/service"
	"github.com/remnant/passportkit/issuer/store"
	"github.com/remnant/passportkit/issuer/store/storetest"
	"github.com/remnant/passportkit/passport"
	"github.com/remnant/passportkit/verifier"
)

func TestGenerateIsDeterministic(t *testing.T) {
	a, b := demoworld.Generate(7), demoworld.Generate(7)
	if fmt.Sprint(a) != fmt.Sprint(b) {
		t.Fatal("two worlds of one seed differ")
	}
	if fmt.Sprint(a) == fmt.Sprint(demoworld.Generate(8)) {
		t.Fatal("worlds of two seeds are the same")
	}
	if a.AgentID(a.Main()) != b.AgentID(b.Main()) || a.AgentID(0) == demoworld.Generate(8).AgentID(0) {
		t.Fatal("agent identifiers do not follow the seed")
	}
}

// world is a built world on one store, with what issuing it needs.
type world struct {
	w         *demoworld.World
	db        *store.DB
	clock     *demoworld.Clock
	ids       *demoworld.IDs
	app       *service.Service
	passports *service.Passports
	ring      *keyring.Keyring
	verifier  *verifier.Verifier
	res       *demoworld.Result
	now       time.Time
}

func build(t *testing.T, engine store.Engine, seed uint64) *world {
	t.Helper()
	ctx := context.Background()
	now := time.Now().UTC().Truncate(time.Second)
	x := &world{w: demoworld.Generate(seed), clock: &demoworld.Clock{}, ids: &demoworld.IDs{}, now: now}
	x.db = storetest.Open(t, engine, store.Options{Now: x.clock.Now})
	x.app = service.New(x.db, service.Options{Now: x.clock.Now})
	var err error
	x.res, err = demoworld.Build(ctx, x.w, x.env())
	if err != nil {
		t.Fatal(err)
	}
	// The store now serves the present, as the demo's issuing store does.
	x.clock.Set(now)
	x.ring, err = keyring.New(x.db, keyring.Config{Issuer: "http://demo.test", Dir: keyDir(t), MaxPassportTTL: 24 * time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := x.ring.EnsureActive(ctx, passport.EdDSA); err != nil {
		t.Fatal(err)
	}
	trust, err := x.ring.Trust(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if x.verifier, err = verifier.New(trust); err != nil {
		t.Fatal(err)
	}
	x.passports = service.NewPassports(x.db, x.ring, service.PassportOptions{Now: func() time.Time { return now }})
	return x
}

func (x *world) env() demoworld.Env {
	return demoworld.NewEnv(x.db, x.clock, x.ids, x.now)
}

// issue issues agent i's passport, verifies it and returns it by skill.
func (x *world) issue(t *testing.T, i int) (*issuing.Issued, map[string]passport.SkillPassport) {
	t.Helper()
	ctx := context.Background()
	is, err := x.passports.Issue(ctx, x.w.AgentID(i), issuing.DiscloseAll)
	if err != nil {
		t.Fatalf("issue %s: %v", x.w.Agents[i].Name, err)
	}
	res, err := x.verifier.Verify(ctx, is.Bundle, verifier.ForSubject(string(x.w.AgentID(i))).At(x.now))
	if err != nil {
		t.Fatal(err)
	}
	if !res.Verified {
		t.Fatalf("the passport of %s does not verify: %s", x.w.Agents[i].Name, res.Reason)
	}
	by := map[string]passport.SkillPassport{}
	for _, sp := range is.Passport.SkillPassports {
		by[sp.Skill] = sp
	}
	return is, by
}

// TestWorld builds the demo world of several seeds and checks that the main
// agent's passport shows what docs/demo.md promises: one skill of each kind.
func TestWorld(t *testing.T) {
	t.Parallel()
	seeds := []uint64{demoworld.DefaultSeed, 2, 3, 4, 5, 6}
	for _, engine := range storetest.Engines(t) {
		for _, seed := range seeds {
			if engine == store.Postgres && seed != demoworld.DefaultSeed {
				continue // the shape is engine-independent; one seed proves the engine
			}
			t.Run(fmt.Sprintf("%s/seed%d", engine, seed), func(t *testing.T) {
				t.Parallel()
				checkWorld(t, build(t, engine, seed))
			})
		}
	}
}

func checkWorld(t *testing.T, x *world) {
	w := x.w
	if x.res.Reused {
		t.Fatal("a fresh database reported the world as reused")
	}
	if got, want := len(x.res.Refusals), 6; got != want {
		t.Errorf("%d refusals, want %d (each ring member praising each other)", got, want)
	}
	for _, r := range x.res.Refusals {
		if r.Code != issuer.CodeSameOwner || w.Agents[r.Step.Agent].Role != demoworld.RoleRing {
			t.Errorf("unexpected refusal %+v", r)
		}
	}
	if x.res.Steps+len(x.res.Refusals) != len(w.Steps) {
		t.Errorf("%d steps applied and %d refused of %d", x.res.Steps, len(x.res.Refusals), len(w.Steps))
	}

	is, skills := x.issue(t, w.Main())
	type want struct {
		label    passport.AssessmentLabel
		estimate bool
	}
	for skill, wt := range map[string]want{
		demoworld.SkillEstimated: {"SUPPORTED", true},
		demoworld.SkillThin:      {"INSUFFICIENT_EVIDENCE", false},
		demoworld.SkillContested: {"CONTESTED", false},
		demoworld.SkillStale:     {"STALE", false},
		"kubernetes operators":   {"NEW", false},
	} {
		sp, ok := skills[skill]
		if !ok {
			t.Errorf("no skill passport for %q; have %v", skill, keys(skills))
			continue
		}
		if sp.Assessment != wt.label || (sp.Estimate != nil) != wt.estimate {
			t.Errorf("%s: %s with estimate %v, want %s with estimate %v (effective %+v)", skill, sp.Assessment, sp.Estimate, wt.label, wt.estimate, sp.Effective)
		}
	}
	if len(skills) != 5 {
		t.Errorf("skills %v, want 5", keys(skills))
	}
	if got := is.Passport.DeclaredCapabilities; len(got) != 3 {
		t.Errorf("declared capabilities %v", got)
	}
	// The private research note is never named or described.
	for i, m := range w.Memories {
		if !m.Private {
			continue
		}
		for _, b := range [][]byte{is.Bundle, is.EvidenceFile} {
			if bytes.Contains(b, []byte(w.MemoryID(i))) || bytes.Contains(b, []byte(m.Title)) {
				t.Errorf("the private memory %q leaks into an issued file", m.Title)
			}
		}
	}

	// The ring's praise left no trace: only the one outside report counts.
	for n, i := range w.OfRole(demoworld.RoleRing) {
		ris, rs := x.issue(t, i)
		if bytes.Contains(ris.EvidenceFile, []byte(`"corroboration"`)) {
			t.Errorf("%s: a corroboration record, though every praise was refused", w.Agents[i].Name)
		}
		sp := rs[demoworld.SkillRing]
		wantState := passport.SkillState("new")
		if n == 0 {
			wantState = "limited_evidence"
		}
		if sp.State != wantState || sp.Estimate != nil {
			t.Errorf("%s: %s %s, want state %s and no estimate", w.Agents[i].Name, sp.State, sp.Assessment, wantState)
		}
	}

	// The declarer has declarations and nothing else.
	dis, ds := x.issue(t, w.OfRole(demoworld.RoleDeclarer)[0])
	if len(ds) != 3 || len(dis.Passport.DeclaredCapabilities) != 3 {
		t.Errorf("declarer: skills %v, capabilities %v", keys(ds), dis.Passport.DeclaredCapabilities)
	}
	for skill, sp := range ds {
		if sp.State != "new" || sp.Assessment != "NEW" {
			t.Errorf("declarer: %s is %s %s, want new NEW", skill, sp.State, sp.Assessment)
		}
	}

	ctx := context.Background()
	checkDigest(t, x)

	// A second build finds the world and writes nothing.
	main := w.AgentID(w.Main())
	before, err := x.app.SubjectRevision(ctx, main)
	if err != nil {
		t.Fatal(err)
	}
	again, err := demoworld.Build(ctx, w, x.env())
	if err != nil {
		t.Fatal(err)
	}
	after, err := x.app.SubjectRevision(ctx, main)
	if err != nil {
		t.Fatal(err)
	}
	if !again.Reused || again.Steps != 0 || before != after {
		t.Errorf("second build: reused %v, %d steps, revision %s -> %s", again.Reused, again.Steps, before, after)
	}
}

// checkDigest: the reader's search for the knowledge query shows the
// digest first, a knowledge entry whose sources are its refs, and the
// memories it covers after it.
func checkDigest(t *testing.T, x *world) {
	t.Helper()
	ctx := context.Background()
	w := x.w
	key, err := storetest.Admin(x.db).RotateKey(ctx, w.AgentID(w.Reader()), nil)
	if err != nil {
		t.Fatal(err)
	}
	p, err := x.app.Authenticate(ctx, key)
	if err != nil {
		t.Fatal(err)
	}
	q, err := issuer.ParseSearchQuery("q=" + demoworld.KnowledgeQuery)
	if err != nil {
		t.Fatal(err)
	}
	page, err := x.app.SearchMemories(ctx, p, q)
	if err != nil {
		t.Fatal(err)
	}
	digest := slices.IndexFunc(w.Memories, func(m demoworld.Memory) bool { return m.Digest })
	var refs []issuer.MemoryID
	for _, l := range w.Memories[digest].Links {
		refs = append(refs, w.MemoryID(l.Memory))
	}
	slices.Sort(refs)
	if len(page.Results) == 0 {
		t.Fatalf("the reader's search for %q finds nothing", demoworld.KnowledgeQuery)
	}
	first := page.Results[0]
	if first.ID != w.MemoryID(digest) || first.Kind != issuer.KindDigest || !first.Knowledge || first.Status != issuer.StatusConfirmed || !slices.Equal(first.Sources, refs) {
		t.Fatalf("the reader's search for %q shows first %+v; want the digest %s, a knowledge entry citing %v", demoworld.KnowledgeQuery, first, w.MemoryID(digest), refs)
	}
	covered := 0
	for _, r := range page.Results[1:] {
		if r.CoveredBy != nil && r.CoveredBy.ID == first.ID {
			covered++
		}
	}
	if covered == 0 {
		t.Errorf("no result after the digest is covered by it: %+v", page.Results)
	}
}

// TestBuildRefusesAPartialWorld: a database holding the start of a world
// (an interrupted build) is reported, not built on.
func TestBuildRefusesAPartialWorld(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	clock, ids := &demoworld.Clock{}, &demoworld.IDs{}
	db := storetest.Open(t, store.SQLite, store.Options{Now: clock.Now})
	w := demoworld.Generate(demoworld.DefaultSeed)
	// Stop the build at its first publication by cancelling its context.
	cctx, cancel := context.WithCancel(ctx)
	env := demoworld.NewEnv(db, clock, ids, time.Now())
	app := env.Service
	env.Service = &cancelOnPublish{Service: app, cancel: cancel}
	if _, err := demoworld.Build(cctx, w, env); err == nil {
		t.Fatal("a cancelled build succeeded")
	}
	env.Service = app
	_, err := demoworld.Build(ctx, w, env)
	if err == nil || !strings.Contains(err.Error(), "stopped before its end") {
		t.Fatalf("rebuilding a partial world: %v", err)
	}
}

type cancelOnPublish struct {
	demoworld.Service
	cancel func()
}

func (c *cancelOnPublish) Publish(ctx context.Context, p issuer.Principal, pub issuer.Publication) (issuer.Memory, error) {
	c.cancel()
	return issuer.Memory{}, ctx.Err()
}

func keys(m map[string]passport.SkillPassport) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

// keyDir returns a key directory the keyring accepts: mode 0700.
func keyDir(t *testing.T) string {
	dir := t.TempDir() + "/keys"
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	return dir
}

// keyRecorder keeps the API keys of the agents a build creates.
type keyRecorder struct {
	demoworld.Admin
	ids  []issuer.AgentID
	keys []issuer.APIKey
}

func (k *keyRecorder) CreateAgent(ctx context.Context, in service.NewAgent) (service.CreatedAgent, error) {
	c, err := k.Admin.CreateAgent(ctx, in)
	k.ids, k.keys = append(k.ids, c.ID), append(k.keys, c.Key)
	return c, err
}

// TestIdentifiersFollowTheSeedKeysDoNot: two databases built from one seed
// hold the same agents under the same identifiers, with unrelated API keys.
func TestIdentifiersFollowTheSeedKeysDoNot(t *testing.T) {
	t.Parallel()
	w := demoworld.Generate(demoworld.DefaultSeed)
	var runs []*keyRecorder
	for range 2 {
		clock, ids := &demoworld.Clock{}, &demoworld.IDs{}
		db := storetest.Open(t, store.SQLite, store.Options{Now: clock.Now})
		env := demoworld.NewEnv(db, clock, ids, time.Now())
		rec := &keyRecorder{Admin: env.Admin}
		env.Admin = rec
		if _, err := demoworld.Build(context.Background(), w, env); err != nil {
			t.Fatal(err)
		}
		runs = append(runs, rec)
	}
	if len(runs[0].ids) != len(w.Agents) || fmt.Sprint(runs[0].ids) != fmt.Sprint(runs[1].ids) {
		t.Fatalf("agent identifiers differ between builds: %v, %v", runs[0].ids, runs[1].ids)
	}
	for i := range runs[0].keys {
		if runs[0].keys[i] == runs[1].keys[i] {
			t.Errorf("agent %s has the same API key in both databases", runs[0].ids[i])
		}
	}
}

func TestTheDeclarerActsLast(t *testing.T) {
	for seed := uint64(1); seed <= 50; seed++ {
		w := demoworld.Generate(seed)
		for i, s := range w.Steps {
			last := i == len(w.Steps)-1
			if (w.Agents[s.Agent].Role == demoworld.RoleDeclarer) != last {
				t.Fatalf("seed %d: step %d of %d is by %s", seed, i, len(w.Steps), w.Agents[s.Agent].Name)
			}
			if i > 0 && s.DaysAgo > w.Steps[i-1].DaysAgo {
				t.Fatalf("seed %d: step %d goes back in time", seed, i)
			}
		}
	}
}
