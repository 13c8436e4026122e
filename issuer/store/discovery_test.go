package store_test

import (
	"cmp"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/remnant/passportkit/evidence"
	"github.com/remnant/passportkit/internal/seal"
	"github.com/remnant/passportkit/issuer"
	"github.com/remnant/passportkit/issuer/issuing"
	"github.com/remnant/passportkit/issuer/keyring"
	"github.com/remnant/passportkit/issuer/service"
	"github.com/remnant/passportkit/issuer/store"
	"github.com/remnant/passportkit/issuer/store/storetest"
	"github.com/remnant/passportkit/passport"
	"github.com/remnant/passportkit/reputation"
	"github.com/remnant/passportkit/skilltrust"
)

// discoveryWorld is a registry of a few hundred agents built through the
// service: independently evaluated authors, a same-owner ring, agents that
// only declare, contested and stale authors, and agents with nothing.
type discoveryWorld struct {
	*fixture
	clock      *storetest.Clock // a second later at every reading
	svc        *service.Service
	passports  *service.Passports
	discovery  *service.Discovery
	sealer     *seal.Sealer
	evaluators []issuer.Principal
	authors    []issuer.Principal
	memories   map[issuer.AgentID][]issuer.MemoryID
	published  int
	ring       []issuer.Principal
	lone       []issuer.Principal
	declarers  []issuer.Principal
	stale      []issuer.Principal
	contested  []issuer.Principal
	sqlite     []issuer.Principal
	hidden     []issuer.AgentID // unlisted, private or suspended from the start
}

const (
	worldSkill = "PostgreSQL indexing"
	// worldNow is the present of the world; stale evidence is three years
	// older.
	worldDays = 3 * 365
)

var worldNow = time.Date(2026, 6, 1, 9, 0, 0, 0, time.UTC)

func newDiscoveryWorld(t *testing.T, engine store.Engine, opts service.DiscoveryOptions) *discoveryWorld {
	t.Helper()
	c := storetest.NewClock(worldNow.AddDate(0, 0, -worldDays), time.Second)
	db := storetest.Open(t, engine, store.Options{Now: c.Now})
	ring, err := keyring.New(db, keyring.Config{Issuer: "https://issuer.test", Dir: filepath.Join(t.TempDir(), "keys"), Now: c.Now})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ring.EnsureActive(context.Background(), passport.EdDSA); err != nil {
		t.Fatal(err)
	}
	sealer := storetest.Sealer(t, db)
	w := &discoveryWorld{fixture: newFixture(t, db), clock: c, sealer: sealer, memories: map[issuer.AgentID][]issuer.MemoryID{}}
	w.admin = service.NewAdmin(db, service.AdminOptions{Now: c.Now})
	w.svc = service.New(db, service.Options{Now: c.Now})
	w.passports = service.NewPassports(db, ring, service.PassportOptions{Now: c.Now})
	opts.Now = c.Now
	w.discovery = service.NewDiscovery(db, w.passports, sealer, opts)
	w.build()
	return w
}

func (w *discoveryWorld) operator(name string) issuer.OperatorID {
	w.t.Helper()
	op, err := w.admin.CreateOperator(w.ctx, name)
	if err != nil {
		w.t.Fatal(err)
	}
	return op
}

func (w *discoveryWorld) owned(name string, op issuer.OperatorID) issuer.Principal {
	w.t.Helper()
	return w.agentWith(service.NewAgent{Name: name, Operator: op})
}

// publishSkill publishes a memory about skill in the workload by author.
func (w *discoveryWorld) publishSkill(author issuer.Principal, skill, workload string) issuer.MemoryID {
	w.t.Helper()
	w.published++
	m, err := w.svc.Publish(w.ctx, author, w.pub(issuer.Publication{Content: fmt.Sprintf("Finding %d.", w.published),
		AppliesTo: issuer.AppliesTo{Skill: skill, Context: evidence.Context{Workload: workload}}}))
	if err != nil {
		w.t.Fatalf("publish: %v", err)
	}
	w.memories[author.AgentID] = append(w.memories[author.AgentID], m.ID)
	return m.ID
}

// report has ev retrieve mem and report o in the workload.
func (w *discoveryWorld) report(ev issuer.Principal, mem issuer.MemoryID, o evidence.Outcome, workload string) error {
	if _, err := w.svc.Retrieve(w.ctx, ev, mem); err != nil {
		return err
	}
	_, _, err := w.svc.ReportOutcome(w.ctx, ev, mem, issuer.OutcomeReport{Outcome: o, Context: evidence.Context{Workload: workload}}, issuer.TransportHTTP)
	return err
}

func (w *discoveryWorld) mustReport(ev issuer.Principal, mem issuer.MemoryID, o evidence.Outcome, workload string) {
	w.t.Helper()
	if err := w.report(ev, mem, o, workload); err != nil {
		w.t.Fatalf("report: %v", err)
	}
}

func (w *discoveryWorld) build() {
	t := w.t
	const evaluatorOps, evaluatorsPer, authors = 12, 2, 48
	var evOps []issuer.OperatorID
	for i := range evaluatorOps {
		evOps = append(evOps, w.operator(fmt.Sprintf("Evaluators %d", i)))
	}
	for i := range evaluatorOps * evaluatorsPer {
		w.evaluators = append(w.evaluators, w.owned(fmt.Sprintf("evaluator %d", i), evOps[i%evaluatorOps]))
	}
	for i := range authors {
		w.authors = append(w.authors, w.owned(fmt.Sprintf("author %d", i), w.operator(fmt.Sprintf("Author house %d", i))))
	}
	ringOp := w.operator("Ring")
	for i := range 5 {
		w.ring = append(w.ring, w.owned(fmt.Sprintf("ring %d", i), ringOp))
	}
	for i := range 3 {
		w.lone = append(w.lone, w.owned(fmt.Sprintf("lone %d", i), w.operator(fmt.Sprintf("Lone house %d", i))))
	}
	for i := range 25 {
		w.declarers = append(w.declarers, w.owned(fmt.Sprintf("declarer %d", i), w.operator(fmt.Sprintf("Declarer house %d", i))))
	}
	for i := range 4 {
		w.sqlite = append(w.sqlite, w.owned(fmt.Sprintf("sqlite author %d", i), w.operator(fmt.Sprintf("SQLite house %d", i))))
	}
	for i := range 90 {
		w.owned(fmt.Sprintf("bystander %d", i), "")
	}
	for i, vis := range []issuer.Visibility{issuer.VisibilityUnlisted, issuer.VisibilityPrivate, issuer.VisibilityPublic} {
		p := w.agentWith(service.NewAgent{Name: fmt.Sprintf("hidden %d", i), Operator: w.operator(fmt.Sprintf("Hidden house %d", i)), Visibility: vis})
		w.hidden = append(w.hidden, p.AgentID)
		m := w.publishSkill(p, worldSkill, "w0")
		for x := range 3 {
			w.mustReport(w.evaluators[x*5], m, evidence.OutcomeSuccess, "w1")
		}
		if vis == issuer.VisibilityPublic {
			if err := w.admin.SetAgentStatus(w.ctx, p.AgentID, issuer.AgentSuspended); err != nil {
				t.Fatal(err)
			}
		}
	}

	// Three authors whose evidence is three years old: stale.
	w.stale = w.authors[:3]
	for i, a := range w.stale {
		for j := range 3 {
			m := w.publishSkill(a, worldSkill, "w0")
			for x := range 3 {
				w.mustReport(w.evaluators[(i*3+j*5+x*7)%len(w.evaluators)], m, evidence.OutcomeSuccess, fmt.Sprintf("w%d", x))
			}
		}
	}
	w.clock.Set(worldNow.AddDate(0, 0, -20))

	// The other authors: 1 to 6 memories, each reported on by 1 to 6
	// evaluators of distinct operators in varied workloads; some fail.
	for i, a := range w.authors[3:] {
		for j := range 1 + i%6 {
			m := w.publishSkill(a, worldSkill, fmt.Sprintf("w%d", j%3))
			for x := range 1 + (i*7+j)%6 {
				ev := w.evaluators[(i*5+j*3+x*evaluatorsPer*5+x)%len(w.evaluators)]
				o := evidence.OutcomeSuccess
				switch (i + j + x) % 9 {
				case 0:
					o = evidence.OutcomeFailure
				case 4:
					o = evidence.OutcomePartial
				}
				if err := w.report(ev, m, o, fmt.Sprintf("w%d", (i+j+x)%5)); err != nil && issuer.ErrorCode(err) != issuer.CodeSameOwner {
					t.Fatalf("report: %v", err)
				}
			}
		}
		if i%10 == 3 {
			// A contradiction by an evaluator that reported nothing here.
			w.contested = append(w.contested, a)
			ev := w.evaluators[(i*5+11)%len(w.evaluators)]
			m := w.memories[a.AgentID][0]
			w.retrieve(ev, m)
			if _, _, err := w.svc.SubmitFeedback(w.ctx, ev, m, issuer.Feedback{Type: reputation.Contradict}, issuer.TransportHTTP); err != nil &&
				issuer.ErrorCode(err) != issuer.CodeConflict {
				t.Fatalf("contradict: %v", err)
			}
		}
	}

	// The ring praises itself: every act is refused, so it gets nothing.
	for _, a := range w.ring {
		w.publishSkill(a, worldSkill, "w0")
	}
	for i, a := range w.ring {
		for j, b := range w.ring {
			if i == j {
				continue
			}
			err := w.report(a, w.memories[b.AgentID][0], evidence.OutcomeSuccess, "w1")
			wantCode(t, err, issuer.CodeSameOwner)
		}
	}
	for _, a := range w.lone {
		w.publishSkill(a, worldSkill, "w0")
	}
	for _, a := range w.declarers {
		if _, err := w.svc.DeclareCapabilities(w.ctx, a, []string{worldSkill, "Kubernetes"}); err != nil {
			t.Fatal(err)
		}
	}
	for i, a := range w.sqlite {
		m := w.publishSkill(a, "SQLite indexing", "w0")
		for x := range 3 {
			w.mustReport(w.evaluators[(i+x*5)%len(w.evaluators)], m, evidence.OutcomeSuccess, fmt.Sprintf("w%d", x))
		}
	}
	w.clock.Set(worldNow)
}

// sync runs the indexer once.
func (w *discoveryWorld) sync() service.IndexReport {
	w.t.Helper()
	rep, err := w.discovery.Sync(w.ctx)
	if err != nil {
		w.t.Fatalf("index: %v", err)
	}
	return rep
}

// ranked is an agent and its rank key, as the test computes them.
type ranked struct {
	id  issuer.AgentID
	key int64
	sp  passport.SkillPassport
}

// expected ranks every listed agent whose passport lists skill, from its
// passport's skill passport (or, in a task context, its skill passport in
// that context), independently of the index.
func (w *discoveryWorld) expected(skill string, ctx evidence.Context) []ranked {
	w.t.Helper()
	var ids []issuer.AgentID
	if err := w.db.UnsafeSQL().Select(&ids, `SELECT public_id FROM agents WHERE status = 'active' AND visibility = 'public'`); err != nil {
		w.t.Fatal(err)
	}
	norm := skilltrust.Skills1().Normalize(skill).Name
	var out []ranked
	for _, id := range ids {
		is, err := w.passports.Issue(w.ctx, id, issuing.DiscloseNone)
		if err != nil {
			w.t.Fatalf("issue %s: %v", id, err)
		}
		i := slices.IndexFunc(is.Passport.SkillPassports, func(sp passport.SkillPassport) bool { return sp.Skill == norm })
		if i < 0 {
			continue
		}
		sp := is.Passport.SkillPassports[i]
		if ctx != (evidence.Context{}) {
			if sp, err = w.passports.SkillPassport(w.ctx, id, skilltrust.Task{Skill: skill, Context: ctx}); err != nil {
				w.t.Fatal(err)
			}
		}
		out = append(out, ranked{id: id, key: rankKey(sp), sp: sp})
	}
	slices.SortFunc(out, func(a, b ranked) int {
		return cmp.Or(cmp.Compare(a.key, b.key), strings.Compare(string(a.id), string(b.id)))
	})
	return out
}

// rankKey is SPEC.md §17.2's order of a skill passport, written out again:
// level (STRONG first), then lower bound (higher first), N/A last.
func rankKey(sp passport.SkillPassport) int64 {
	level := map[passport.EvidenceLevel]int64{passport.LevelStrong: 0, passport.LevelModerate: 1, passport.LevelLow: 2, passport.LevelVeryLow: 3}[sp.EvidenceLevel]
	if sp.Estimate == nil {
		return level*2_000_000 + 1_000_001
	}
	return level*2_000_000 + 1_000_000 - int64(sp.Estimate.Lower*1e6+0.5)
}

// pages reads every page of q with limit n, failing on any refusal.
func (w *discoveryWorld) pages(q issuer.FindAgentsQuery) ([]issuer.FoundAgent, []issuer.FindAgentsPage) {
	w.t.Helper()
	var all []issuer.FoundAgent
	var pages []issuer.FindAgentsPage
	for range 1000 {
		p, err := w.discovery.FindAgents(w.ctx, q)
		if err != nil {
			w.t.Fatalf("find agents %+v: %v", q, err)
		}
		pages = append(pages, p)
		all = append(all, p.Results...)
		if p.NextCursor == "" {
			return all, pages
		}
		q.Cursor = p.NextCursor
	}
	w.t.Fatal("more than 1000 pages")
	return nil, nil
}

func ids(rs []issuer.FoundAgent) []issuer.AgentID {
	out := make([]issuer.AgentID, len(rs))
	for i, r := range rs {
		out[i] = r.ID
	}
	return out
}

func expectedIDs(rs []ranked) []issuer.AgentID {
	out := make([]issuer.AgentID, len(rs))
	for i, r := range rs {
		out[i] = r.id
	}
	return out
}

// sameOrder fails unless got lists exactly want's agents, once each, in
// order.
func sameOrder(t *testing.T, what string, got []issuer.FoundAgent, want []ranked) {
	t.Helper()
	g, e := ids(got), expectedIDs(want)
	if slices.Equal(g, e) {
		return
	}
	seen := map[issuer.AgentID]int{}
	for _, id := range g {
		seen[id]++
		if seen[id] == 2 {
			t.Errorf("%s: %s returned twice", what, id)
		}
	}
	for i := range min(len(g), len(e)) {
		if g[i] != e[i] {
			t.Fatalf("%s: %d results, want %d; first difference at %d: %s (%s), want %s (key %d)",
				what, len(g), len(e), i, g[i], got[i].Why, e[i], want[i].key)
		}
	}
	t.Fatalf("%s: %d results, want %d", what, len(g), len(e))
}

func TestFindAgentsRanksBySkillEvidence(t *testing.T) {
	t.Parallel()
	for _, engine := range storetest.Engines(t) {
		t.Run(string(engine), func(t *testing.T) { testFindAgents(t, engine) })
	}
}

func testFindAgents(t *testing.T, engine store.Engine) {
	w := newDiscoveryWorld(t, engine, service.DiscoveryOptions{})
	ctx := w.ctx
	rep := w.sync()
	if n := w.count(`SELECT COUNT(*) FROM agents`); rep.Indexed != n || rep.Status.Changed != 0 || rep.Status.Aged != 0 {
		t.Fatalf("first sync: %+v", rep)
	}
	if again := w.sync(); again.Indexed != 0 {
		t.Fatalf("a second sync re-indexed %d subjects with nothing changed", again.Indexed)
	}

	want := w.expected(worldSkill, evidence.Context{})
	got, pages := w.pages(issuer.FindAgentsQuery{Skill: "postgres  Indexing", Limit: 7})
	sameOrder(t, "skill pages", got, want)

	// A cursor is SPEC.md §17.3's token, byte for byte.
	cursorKey, err := w.db.CursorKey(ctx)
	if err != nil {
		t.Fatal(err)
	}
	digest := sha256.Sum256([]byte("find_agents/1\x00skill_evidence\x00" + worldSkill + "\x00\x00\x00\x00\x00\x00"))
	payload := binary.BigEndian.AppendUint64(slices.Clone(digest[:16]), uint64(want[6].key))
	payload = append(payload, want[6].id...)
	mac := hmac.New(sha256.New, cursorKey)
	mac.Write([]byte("find_agents\x00"))
	mac.Write(payload)
	if token := base64.RawURLEncoding.EncodeToString(append(payload, mac.Sum(nil)[:16]...)); token != pages[0].NextCursor {
		t.Fatalf("cursor %s, SPEC.md §17.3 makes %s", pages[0].NextCursor, token)
	}
	if len(pages) < 10 || pages[0].Basis != issuer.BasisSkillEvidence || pages[0].Query.Skill != worldSkill || pages[0].Truncated {
		t.Fatalf("first page: %d pages, %+v", len(pages), pages[0].Query)
	}
	for i, p := range pages {
		if p.Freshness.CheckedAt == nil || p.Freshness.ChangedOnPage != 0 || !strings.Contains(p.Freshness.Statement, "every subject was indexed") {
			t.Fatalf("page %d freshness %+v", i, p.Freshness)
		}
	}

	// Independently evidenced agents first; the ring has no lift from its
	// own praise; declarations are never evidence.
	byID := map[issuer.AgentID]int{}
	for i, r := range got {
		byID[r.ID] = i
	}
	first := got[0]
	if first.Skill.Estimate == nil || first.Skill.IndependentOperators < 2 || first.Skill.EvidenceLevel == string(passport.LevelVeryLow) {
		t.Fatalf("the first result is not independently evidenced: %+v", first.Skill)
	}
	lastEvidenced := -1
	for i, r := range got {
		if r.Skill.Estimate != nil {
			lastEvidenced = i
		}
	}
	lone := got[byID[w.lone[0].AgentID]].Skill
	for _, a := range append(slices.Clone(w.ring), w.declarers...) {
		i, ok := byID[a.AgentID]
		if !ok {
			t.Fatalf("%s is not listed", a.AgentID)
		}
		s := got[i].Skill
		if i < lastEvidenced || s.Estimate != nil || s.IndependentOperators != 0 || s.EvidenceLevel != string(passport.LevelVeryLow) {
			t.Fatalf("%s at %d (last evidenced %d): %+v", a.AgentID, i, lastEvidenced, s)
		}
	}
	for _, a := range w.ring {
		s := got[byID[a.AgentID]].Skill
		if s.EvidenceLevel != lone.EvidenceLevel || s.State != lone.State || s.Assessment != lone.Assessment {
			t.Fatalf("ring member %+v differs from a lone publisher %+v: the ring's praise lifted it", s, lone)
		}
	}
	for _, a := range w.declarers {
		s := got[byID[a.AgentID]].Skill
		if s.State != string(passport.StateNew) || s.Assessment != string(passport.AssessmentNew) || !strings.Contains(got[byID[a.AgentID]].Why, "no estimate") {
			t.Fatalf("declarer %+v, why %q", s, got[byID[a.AgentID]].Why)
		}
	}
	contested, stale := 0, 0
	for _, r := range got {
		if r.Skill.Contested {
			contested++
			if !strings.Contains(r.Why, "contested") {
				t.Fatalf("contested result without its label: %q", r.Why)
			}
		}
		if r.Skill.Stale {
			stale++
		}
	}
	if contested == 0 || stale < len(w.stale) {
		t.Fatalf("%d contested and %d stale results", contested, stale)
	}
	for _, h := range w.hidden {
		if _, ok := byID[h]; ok {
			t.Fatalf("hidden agent %s listed", h)
		}
	}

	// Another skill's agents never stand in for an unknown one, nor the
	// children for their parent.
	for _, skill := range []string{"Quantum basket weaving", "SQLite"} {
		p, err := w.discovery.FindAgents(ctx, issuer.FindAgentsQuery{Skill: skill, Limit: 20})
		if err != nil {
			t.Fatal(err)
		}
		if len(p.Results) != 0 || p.NextCursor != "" || p.Note == "" {
			t.Fatalf("%s: %d results, note %q", skill, len(p.Results), p.Note)
		}
	}
	if p, err := w.discovery.FindAgents(ctx, issuer.FindAgentsQuery{Skill: "sqlite indexing", Limit: 20}); err != nil || len(p.Results) != len(w.sqlite) {
		t.Fatalf("SQLite indexing: %v, %d results", err, len(p.Results))
	}
	if p, err := w.discovery.FindAgents(ctx, issuer.FindAgentsQuery{Skill: "Kubernetes", Limit: 100}); err != nil || len(p.Results) != len(w.declarers) {
		t.Fatalf("Kubernetes: %v, %d results", err, len(p.Results))
	}

	// The legacy listing: every listed agent by global reputation.
	testLegacyListing(t, w)

	// A task context re-ranks, exactly, and pages of it agree with a brute
	// force.
	for _, tctx := range []evidence.Context{{Workload: "w1"}, {Workload: "W3 "}, {Workload: "unseen"}, {Version: "17", Workload: "w2"}} {
		wl := tctx.Workload
		wantCtx := w.expected(worldSkill, tctx)
		gotCtx, ctxPages := w.pages(issuer.FindAgentsQuery{Skill: worldSkill, Context: tctx, Limit: 9})
		sameOrder(t, "context "+wl, gotCtx, wantCtx)
		for _, p := range ctxPages {
			if p.Basis != issuer.BasisSkillEvidenceInContext || p.Truncated || p.Work == nil || *p.Query.Context != tctx.Normalized() {
				t.Fatalf("context page %+v", p)
			}
		}
		levels := map[string]int{}
		for _, r := range gotCtx {
			levels[r.Skill.EvidenceLevel]++
		}
		t.Logf("context %+v: %d results, %v; first page read %d candidates, assessed %d; order differs from no context: %v",
			tctx, len(gotCtx), levels, ctxPages[0].Work.Candidates, ctxPages[0].Work.Assessed, !slices.Equal(ids(gotCtx), expectedIDs(want)))
		if !strings.HasPrefix(gotCtx[0].Why, "in this context: ") {
			t.Fatalf("why %q", gotCtx[0].Why)
		}
		if ctxPages[0].Work.Candidates >= len(gotCtx) {
			t.Fatalf("the first page in context read all %d candidates: the walk never stopped early", ctxPages[0].Work.Candidates)
		}
	}

	// With a small budget a page in context stops early, keeps only what
	// is proven, and calling again continues until the same order is read.
	small := service.NewDiscovery(w.db, w.passports, w.sealer, service.DiscoveryOptions{Now: w.clock.Now, ContextBudget: 5})
	tctx := evidence.Context{Workload: "w2"}
	wantCtx := w.expected(worldSkill, tctx)
	q := issuer.FindAgentsQuery{Skill: worldSkill, Context: tctx, Limit: 9}
	var gotCtx []issuer.FoundAgent
	truncated := 0
	for calls := 0; ; calls++ {
		if calls > 500 {
			t.Fatal("a budgeted query in context never finished")
		}
		p, err := small.FindAgents(ctx, q)
		if err != nil {
			t.Fatal(err)
		}
		gotCtx = append(gotCtx, p.Results...)
		if p.Truncated {
			truncated++
			if p.Work.Assessed > 5 || p.Note == "" {
				t.Fatalf("truncated page %+v", p)
			}
		}
		if p.NextCursor == "" && !p.Truncated {
			break
		}
		if p.NextCursor != "" {
			q.Cursor = p.NextCursor
		}
	}
	sameOrder(t, "budgeted context", gotCtx, wantCtx)
	if truncated == 0 {
		t.Fatal("a budget of 5 never cut a page short")
	}

	// A write is reflected once the indexer runs; until then the result
	// says it changed.
	mover := w.lone[1]
	mem := w.memories[mover.AgentID][0]
	for x := range 6 {
		w.mustReport(w.evaluators[x*4+1], mem, evidence.OutcomeSuccess, fmt.Sprintf("w%d", x%3))
	}
	for x := range 3 {
		m := w.publishSkill(mover, worldSkill, "w2")
		for y := range 4 {
			w.mustReport(w.evaluators[(x*4+y*6+3)%len(w.evaluators)], m, evidence.OutcomeSuccess, fmt.Sprintf("w%d", (x+y)%5))
		}
	}
	stalePage, _ := w.pages(issuer.FindAgentsQuery{Skill: worldSkill, Limit: 100})
	if i := slices.IndexFunc(stalePage, func(r issuer.FoundAgent) bool { return r.ID == mover.AgentID }); i != byID[mover.AgentID] || !stalePage[i].ChangedSinceIndexed {
		t.Fatalf("before re-indexing the mover is at %d (was %d), changed %v", i, byID[mover.AgentID], stalePage[i].ChangedSinceIndexed)
	}
	if rep := w.sync(); rep.Indexed == 0 {
		t.Fatal("the sync indexed nothing after a write")
	}
	want = w.expected(worldSkill, evidence.Context{})
	got, _ = w.pages(issuer.FindAgentsQuery{Skill: worldSkill, Limit: 13})
	sameOrder(t, "after a write", got, want)
	if i := slices.IndexFunc(got, func(r issuer.FoundAgent) bool { return r.ID == mover.AgentID }); i >= byID[mover.AgentID] || got[i].ChangedSinceIndexed {
		t.Fatalf("after re-indexing the mover is at %d (was %d)", i, byID[mover.AgentID])
	}

	// A subject made private disappears at once, and its rows go with the
	// next sync.
	top := got[0].ID
	if err := w.admin.SetAgentVisibility(ctx, top, issuer.VisibilityPrivate); err != nil {
		t.Fatal(err)
	}
	p, err := w.discovery.FindAgents(ctx, issuer.FindAgentsQuery{Skill: worldSkill, Limit: 100})
	if err != nil || slices.Contains(ids(p.Results), top) {
		t.Fatalf("private agent still listed: %v", err)
	}
	w.sync()
	if n := w.count(`SELECT COUNT(*) FROM discovery_skills d JOIN agents a ON a.id = d.agent_id WHERE a.public_id = ?`, top); n != 0 {
		t.Fatalf("%d rows left for a private agent", n)
	}

	// A rebuild gives what incremental maintenance gave.
	before := indexRows(t, w.db)
	if _, err := w.discovery.Rebuild(ctx, 3, nil); err != nil {
		t.Fatal(err)
	}
	if after := indexRows(t, w.db); !slices.Equal(before, after) {
		t.Fatalf("rebuild differs from incremental maintenance:\n%s", strings.Join(diffLines(before, after), "\n"))
	}
	// and leaves the planner statistics of what it wrote.
	stats := `SELECT COUNT(*) FROM sqlite_stat1 WHERE tbl = ?`
	if w.db.Engine() == store.Postgres {
		stats = `SELECT COUNT(*) FROM pg_stats WHERE schemaname = current_schema() AND tablename = ?`
	}
	for _, table := range []string{"discovery_subjects", "discovery_skills", "discovery_context_ceilings"} {
		if n := w.count(stats, table); n == 0 {
			t.Errorf("no planner statistics of %s after a rebuild", table)
		}
	}
}

// testLegacyListing pages through the listing without a skill.
func testLegacyListing(t *testing.T, w *discoveryWorld) {
	var ids []issuer.AgentID
	if err := w.db.UnsafeSQL().Select(&ids, `SELECT public_id FROM agents WHERE status = 'active' AND visibility = 'public'`); err != nil {
		t.Fatal(err)
	}
	type scored struct {
		id    issuer.AgentID
		score reputation.Milli
	}
	var want []scored
	for _, id := range ids {
		pr, err := w.svc.PublicProfile(w.ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		want = append(want, scored{id, pr.ReputationScore})
	}
	slices.SortFunc(want, func(a, b scored) int {
		return cmp.Or(cmp.Compare(b.score, a.score), strings.Compare(string(a.id), string(b.id)))
	})
	got, pages := w.pages(issuer.FindAgentsQuery{Limit: 50})
	if len(got) != len(want) {
		t.Fatalf("listing: %d agents, want %d", len(got), len(want))
	}
	for i, g := range got {
		if g.ID != want[i].id || g.Reputation == nil || g.Reputation.Score != float64(want[i].score)/1000 || g.Skill != nil ||
			!strings.Contains(g.Why, "not skill evidence") {
			t.Fatalf("listing %d: %+v, want %s with %v", i, g, want[i].id, want[i].score)
		}
	}
	if pages[0].Basis != issuer.BasisGlobalReputation || pages[0].Query.Skill != "" || len(pages) != (len(want)+49)/50 {
		t.Fatalf("listing pages: %d, first %+v", len(pages), pages[0].Query)
	}
}

// indexRows returns the index's rows as text, without what a rebuild
// legitimately changes: the time of indexing, and the assessment hashes,
// whose evidence ids are pseudonyms fresh in every assembly.
func indexRows(t *testing.T, db *store.DB) []string {
	t.Helper()
	var out []string
	for _, q := range []string{
		`SELECT agent_id, skill, public_id, revision, rank_key, level, lower_bound, midpoint, upper_bound, state,
			assessment, contested, stale, operators, source_count, assessed_on FROM discovery_skills ORDER BY agent_id, skill`,
		`SELECT agent_id, skill, dimension, alone, label, public_id, ceiling_key FROM discovery_context_ceilings ORDER BY agent_id, skill, dimension, alone, label`,
		`SELECT agent_id, public_id, revision, listed, assessed_on, score, trust_level, listing_key FROM discovery_subjects ORDER BY agent_id`,
	} {
		out = append(out, queryText(t, db, q)...)
	}
	if len(out) < 300 {
		t.Fatalf("only %d index rows", len(out))
	}
	return out
}

func diffLines(a, b []string) []string {
	var out []string
	for i := range max(len(a), len(b)) {
		var x, y string
		if i < len(a) {
			x = a[i]
		}
		if i < len(b) {
			y = b[i]
		}
		if x != y {
			out = append(out, "- "+x, "+ "+y)
		}
		if len(out) > 20 {
			break
		}
	}
	return out
}

// TestFindAgentsReadsOnlyWhatItReturns checks the plans of a page: one
// range of the index in its order, no sort, so that a page reads the
// limit plus one rows wherever its cursor is.
func TestFindAgentsReadsOnlyWhatItReturns(t *testing.T) {
	storetest.Run(t, func(t *testing.T, db *store.DB) {
		for _, c := range []struct {
			query, index string
			args         []any
		}{
			{store.SkillPageSQL, "discovery_skills_rank", []any{"PostgreSQL", 2_000_123, "agt_x", 21}},
			{store.ListingPageSQL, "discovery_subjects_listing", []any{100_000, "agt_x", 21}},
			{store.RecentPageSQL, "discovery_subjects_evidenced", []any{79_738_868, "agt_x", 21}},
		} {
			text := queryPlan(t, db, c.query, c.args...)
			if !strings.Contains(text, c.index) || strings.Contains(text, "Sort") || strings.Contains(text, "TEMP B-TREE") {
				t.Fatalf("the page does not read %s in order:\n%s", c.index, text)
			}
			if db.Engine() == store.Postgres && !strings.Contains(text, "ROW(") {
				t.Fatalf("the cursor is not a bound of the index range:\n%s", text)
			}
		}
	})
}
