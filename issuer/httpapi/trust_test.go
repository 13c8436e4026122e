package httpapi_test

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"net/url"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/remnant/passportkit/evidence"
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
	"github.com/remnant/passportkit/skilltrust"
)

// trustEnv is the demo world on one store, served on loopback with the
// public trust API, with a clock the test moves for issuing.
type trustEnv struct {
	*env
	w         *demoworld.World
	clock     *clock
	passports *service.Passports
	cursorKey []byte
	bodies    []string // every successful answer, for the leak check
}

func newTrustEnv(t *testing.T, engine store.Engine) *trustEnv {
	t.Helper()
	ctx := context.Background()
	now := time.Now().UTC().Truncate(time.Second)
	db, _, w := storetest.DemoWorld(t, engine, now)
	c := &clock{t: now}
	ring, err := keyring.New(db, keyring.Config{Issuer: "https://issuer.test", Dir: filepath.Join(t.TempDir(), "keys"), Now: c.Now})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ring.EnsureActive(ctx, passport.EdDSA); err != nil {
		t.Fatal(err)
	}
	passports := service.NewPassports(db, ring, service.PassportOptions{Now: c.Now})
	key := make([]byte, seal.KeySize)
	rand.Read(key)
	trust := storetest.Trust(t, passports, db, key)
	e := newEnv(t, db, httpapi.Config{Keys: ring, Passports: passports, Trust: trust})
	return &trustEnv{env: e, w: w, clock: c, passports: passports, cursorKey: key}
}

// get fetches path anonymously and keeps a successful answer.
func (te *trustEnv) get(path string) response {
	te.t.Helper()
	r := te.do("", "GET", path, "")
	if r.status == 200 {
		te.bodies = append(te.bodies, string(r.body))
	}
	return r
}

func (te *trustEnv) post(path, body string) response {
	te.t.Helper()
	r := te.do("", "POST", path, body)
	if r.status == 200 {
		te.bodies = append(te.bodies, string(r.body))
	}
	return r
}

// historyRows counts the skill history rows.
func (te *trustEnv) historyRows() int {
	te.t.Helper()
	var n int
	if err := te.db.UnsafeSQL().GetContext(context.Background(), &n, `SELECT COUNT(*) FROM skill_trust_history`); err != nil {
		te.t.Fatal(err)
	}
	return n
}

// listed returns the skill passports the agent's passport lists now, by
// skill.
func (te *trustEnv) listed(id issuer.AgentID) (*issuing.Issued, map[string]passport.SkillPassport) {
	te.t.Helper()
	is, err := te.passports.Issue(context.Background(), id, issuing.DiscloseNone)
	if err != nil {
		te.t.Fatal(err)
	}
	by := map[string]passport.SkillPassport{}
	for _, sp := range is.Passport.SkillPassports {
		by[sp.Skill] = sp
	}
	return is, by
}

func skillPath(id issuer.AgentID, skill, route string) string {
	return "/api/public/agents/" + string(id) + "/skills/" + url.PathEscape(skill) + "/" + route
}

func sameJSON(t *testing.T, what string, got, want any) {
	t.Helper()
	a, _ := json.Marshal(got)
	b, _ := json.Marshal(want)
	if string(a) != string(b) {
		t.Fatalf("%s:\n got %s\nwant %s", what, a, b)
	}
}

// TestTrustAPI walks the public trust API over the demo world on both
// engines: every figure equals the passport's, history is written only
// where SPEC.md §16 says, pagination walks every source once, and refusals
// carry their codes.
func TestTrustAPI(t *testing.T) {
	t.Parallel()
	for _, engine := range storetest.Engines(t) {
		t.Run(string(engine), func(t *testing.T) {
			t.Parallel()
			te := newTrustEnv(t, engine)
			w := te.w
			main := w.AgentID(w.Main())
			t.Run("skills", func(t *testing.T) { te.t = t; testSkillList(t, te, main) })
			t.Run("trust", func(t *testing.T) { te.t = t; testSkillTrust(t, te, main) })
			t.Run("evidence", func(t *testing.T) { te.t = t; testSkillEvidence(t, te, main) })
			t.Run("assess", func(t *testing.T) { te.t = t; testAssess(t, te, main) })
			t.Run("history", func(t *testing.T) { te.t = t; testTrustHistory(t, te, main) })
			t.Run("not found", func(t *testing.T) { te.t = t; testTrustNotFound(t, te, main) })
			t.Run("no identities", func(t *testing.T) { te.t = t; testNoIdentities(t, te, main) })
		})
	}
}

func testSkillList(t *testing.T, te *trustEnv, main issuer.AgentID) {
	if n := te.historyRows(); n != 0 {
		t.Fatalf("%d history rows before any read", n)
	}
	r := must(t, te.get("/api/public/agents/"+string(main)+"/skills"), 200)
	var list issuer.SkillList
	r.json(t, &list)
	is, by := te.listed(main)
	if list.Agent != main || len(list.Skills) != len(is.Passport.SkillPassports) || list.Passport != "/api/public/agents/"+string(main)+"/passport" {
		t.Fatalf("%d skills listed of %d: %s", len(list.Skills), len(is.Passport.SkillPassports), r.body)
	}
	for i, s := range list.Skills {
		sp := is.Passport.SkillPassports[i]
		want := issuer.NewSkillSummary(main, sp, s.UnresolvedContradictions, evidence.Context{})
		sameJSON(t, "summary of "+sp.Skill, s, want)
		if (s.UnresolvedContradictions > 0) != sp.Contested {
			t.Errorf("%s: %d unresolved contradictions, contested %t", s.Skill, s.UnresolvedContradictions, sp.Contested)
		}
		if s.Estimate == nil && !strings.Contains(string(r.body), `"estimate":null`) {
			t.Errorf("an N/A estimate is not written as null")
		}
		// The links lead to the same skill passport.
		var st issuer.SkillTrust
		must(t, te.get(s.Links.Trust), 200).json(t, &st)
		if st.SkillPassport.AssessmentHash != sp.AssessmentHash {
			t.Errorf("%s: the trust link answers %s, the passport lists %s", s.Skill, st.SkillPassport.AssessmentHash, sp.AssessmentHash)
		}
	}
	for skill, want := range map[string]passport.AssessmentLabel{
		demoworld.SkillEstimated: passport.AssessmentSupported,
		demoworld.SkillThin:      passport.AssessmentInsufficientEvidence,
		demoworld.SkillContested: passport.AssessmentContested,
		demoworld.SkillStale:     passport.AssessmentStale,
	} {
		if by[skill].Assessment != want {
			t.Errorf("the demo world's %s is %s, not %s", skill, by[skill].Assessment, want)
		}
	}
	// Following each trust link read each listed skill once: one history
	// row each for this revision and hour.
	if n := te.historyRows(); n != len(list.Skills) {
		t.Fatalf("%d history rows after the first read of %d listed skills", n, len(list.Skills))
	}
	wantProblem(t, te.get("/api/public/agents/"+string(main)+"/skills?limit=3"), 400, issuer.CodeInvalid)
}

func testSkillTrust(t *testing.T, te *trustEnv, main issuer.AgentID) {
	rows := te.historyRows()
	_, by := te.listed(main)
	for skill, sp := range by {
		r := must(t, te.get(skillPath(main, skill, "trust")), 200)
		var st issuer.SkillTrust
		r.json(t, &st)
		sameJSON(t, "skill passport of "+skill, st.SkillPassport, sp)
		if !st.Listed || st.Skill.Normalized != skill || st.Why.Assessment.Code != string(sp.Assessment) ||
			len(st.Why.Limitations) != len(sp.Limitations) || !strings.Contains(string(r.body), `"context":{}`) {
			t.Errorf("%s: %s", skill, r.body)
		}
	}
	if got := te.historyRows(); got != rows {
		t.Fatalf("%d history rows after reading %d listed skills again in the hour, from %d", got, len(by), rows)
	}
	// Again, an alias, the same hour and revision: nothing more.
	must(t, te.get(skillPath(main, demoworld.SkillEstimated, "trust")), 200)
	var alias issuer.SkillTrust
	must(t, te.get(skillPath(main, demoworld.SkillAlias, "trust")), 200).json(t, &alias)
	if alias.Skill.Requested != demoworld.SkillAlias || alias.Skill.Normalized != demoworld.SkillEstimated || !alias.Skill.InOntology ||
		alias.SkillPassport.AssessmentHash != by[demoworld.SkillEstimated].AssessmentHash {
		t.Errorf("the alias: %+v", alias.Skill)
	}
	// With a context: a pure read, another assessment, nothing written.
	var inCtx issuer.SkillTrust
	must(t, te.get(skillPath(main, demoworld.SkillEstimated, "trust")+"?workload=High-Write%20Concurrency&protocol=postgres"), 200).json(t, &inCtx)
	if inCtx.Context.Workload != "high-write concurrency" || inCtx.Context.Protocol != "postgres" || !inCtx.Listed ||
		inCtx.SkillPassport.AssessmentHash == by[demoworld.SkillEstimated].AssessmentHash ||
		!strings.Contains(inCtx.Links.Evidence, "protocol=postgres&workload=high-write+concurrency") ||
		!strings.Contains(inCtx.Why.Context, "protocol, workload") {
		t.Errorf("in context: %+v %+v %s", inCtx.Context, inCtx.Links, inCtx.Why.Context)
	}
	// A skill with no evidence: an empty, explained answer.
	var none issuer.SkillTrust
	r := must(t, te.get(skillPath(main, "  Haskell   Compilers ", "trust")), 200)
	r.json(t, &none)
	sp := none.SkillPassport
	if none.Listed || none.Skill.Normalized != "haskell compilers" || none.Skill.InOntology || sp.State != passport.StateNew ||
		sp.Assessment != passport.AssessmentNew || sp.Estimate != nil || sp.SourceCount != 0 || len(sp.Sources) != 0 ||
		!strings.HasPrefix(none.Why.Summary, "No evidence for haskell compilers") || !slices.Equal(sp.Limitations, []string{"unknown_skill"}) {
		t.Errorf("a skill without evidence: %s", r.body)
	}
	// A term of the ontology with no evidence of its own: only its
	// sibling's, at the sibling's applicability, and it says so.
	var sqlite issuer.SkillTrust
	must(t, te.get(skillPath(main, "SQLite indexing", "trust")), 200).json(t, &sqlite)
	if sqlite.Listed || !sqlite.Skill.InOntology || sqlite.SkillPassport.SourceCount == 0 || !strings.Contains(sqlite.Why.Sources, "related skill") {
		t.Errorf("SQLite indexing: %+v %s", sqlite.SkillPassport, sqlite.Why.Sources)
	}
	var sib issuer.EvidencePage
	must(t, te.get(skillPath(main, "SQLite indexing", "evidence")), 200).json(t, &sib)
	for _, s := range sib.Sources {
		if s.Applicability != 0.2 || skilltrust.Skills1().Normalize(s.Skill).Name != demoworld.SkillStale {
			t.Errorf("SQLite indexing lists %+v", s)
		}
	}
	// A skill term with a slash, path-encoded.
	var slash issuer.SkillTrust
	must(t, te.get("/api/public/agents/"+string(main)+"/skills/CI%2FCD/trust"), 200).json(t, &slash)
	if slash.Skill.Normalized != "ci/cd" || !strings.Contains(slash.Links.Trust, "/skills/ci%2Fcd/trust") {
		t.Errorf("a skill with a slash: %+v %+v", slash.Skill, slash.Links)
	}
	if got := te.historyRows(); got != rows {
		t.Fatalf("%d history rows; reads with a context or of unlisted skills wrote some", got)
	}

	base := skillPath(main, demoworld.SkillEstimated, "trust")
	wantProblem(t, te.get(base+"?colour=red"), 400, issuer.CodeUnknownDimension)
	wantProblem(t, te.get(base+"?limit=5"), 400, issuer.CodeUnknownDimension)
	wantProblem(t, te.get(base+"?workload=a&workload=b"), 400, issuer.CodeInvalid)
	wantProblem(t, te.get(base+"?workload="), 400, issuer.CodeInvalid)
	wantProblem(t, te.get(base+"?workload=%zz"), 400, issuer.CodeInvalid)
	wantProblem(t, te.get(base+"?workload="+strings.Repeat("x", 201)), 400, issuer.CodeInvalid)
	wantProblem(t, te.get(skillPath(main, strings.Repeat("x", 201), "trust")), 400, issuer.CodeInvalid)
	wantProblem(t, te.get("/api/public/agents/"+string(main)+"/skills/%20/trust"), 400, issuer.CodeInvalid)
	wantProblem(t, te.get("/api/public/agents/nonsense/skills/x/trust?colour=red"), 400, issuer.CodeUnknownDimension)
}

func testSkillEvidence(t *testing.T, te *trustEnv, main issuer.AgentID) {
	_, by := te.listed(main)
	file := map[string]evidenceIDs{}
	for _, skill := range []string{demoworld.SkillEstimated, demoworld.SkillContested} {
		sp := by[skill]
		base := skillPath(main, skill, "evidence")
		// Pages of 3 by offset, then by cursor: both walk every source once,
		// in one order that starts with the passport's previews.
		walk := func(byCursor bool) []issuer.EvidenceSource {
			var all []issuer.EvidenceSource
			next := base + "?limit=3"
			for next != "" {
				var page issuer.EvidencePage
				must(t, te.get(next), 200).json(t, &page)
				if page.SourceCount != sp.SourceCount || page.Offset != len(all) || page.Skill.Normalized != skill {
					t.Fatalf("%s: page at %d of %d sources: %+v", skill, len(all), sp.SourceCount, page)
				}
				all = append(all, page.Sources...)
				next = ""
				switch {
				case page.NextCursor != "" && (byCursor || page.NextOffset == nil):
					next = base + "?limit=3&cursor=" + page.NextCursor
				case page.NextOffset != nil:
					next = fmt.Sprintf("%s?limit=3&offset=%d", base, *page.NextOffset)
				}
				if (page.NextCursor == "") != (len(all) == sp.SourceCount) {
					t.Fatalf("%s: next cursor %q after %d of %d", skill, page.NextCursor, len(all), sp.SourceCount)
				}
				if _, ok := file[page.PassportHash]; !ok {
					var f struct {
						Evidence evidenceIDs `json:"evidence"`
					}
					// The evidence file names pseudonyms by design: it is
					// not an answer of the trust API.
					must(t, te.do("", "GET", page.EvidenceFile, ""), 200).json(t, &f)
					file[page.PassportHash] = f.Evidence
				}
			}
			return all
		}
		byOffset, byCursor := walk(false), walk(true)
		sameJSON(t, skill+": walks by offset and by cursor", byCursor, byOffset)
		seen := map[string]bool{}
		for i, s := range byOffset {
			if seen[s.Evidence] {
				t.Fatalf("%s: %s listed twice", skill, s.Evidence)
			}
			seen[s.Evidence] = true
			if i < len(sp.Sources) {
				p := sp.Sources[i]
				if p.Evidence != s.Evidence || p.Weight != s.Weight || p.Applicability != s.Applicability || p.Contradiction != s.Contradiction ||
					p.Type != s.Type || p.Outcome != s.Outcome || p.Quality != s.Quality || p.Date != s.Date {
					t.Errorf("%s: source %d is %+v; the passport previews %+v", skill, i, s, p)
				}
			}
			if !strings.HasSuffix(s.Inspect, fmt.Sprintf("#/evidence/%d", s.Leaf)) {
				t.Errorf("%s: inspect %s for leaf %d", skill, s.Inspect, s.Leaf)
			}
		}
		if len(byOffset) != sp.SourceCount || sp.SourceCount <= 3 {
			t.Fatalf("%s: walked %d sources of %d", skill, len(byOffset), sp.SourceCount)
		}
		// Every inspection link names the record in the evidence file.
		var page issuer.EvidencePage
		must(t, te.get(base), 200).json(t, &page)
		recs := file[page.PassportHash]
		memories := 0
		for _, s := range page.Sources {
			if recs[s.Leaf].ID != s.Evidence {
				t.Errorf("%s: leaf %d of the evidence file is %s, not %s", skill, s.Leaf, recs[s.Leaf].ID, s.Evidence)
			}
			if s.Memory != "" {
				memories++
				if !worldMemory(te.w, s.Memory) {
					t.Errorf("%s: %s is no memory of the world", skill, s.Memory)
				}
			}
		}
		if memories == 0 {
			t.Errorf("%s: no source names its memory", skill)
		}
		if len(page.Sources) != sp.SourceCount || page.NextCursor != "" || page.NextOffset != nil {
			t.Errorf("%s: the default page holds %d of %d", skill, len(page.Sources), sp.SourceCount)
		}
	}

	// Refusals.
	base := skillPath(main, demoworld.SkillEstimated, "evidence")
	var first issuer.EvidencePage
	must(t, te.get(base+"?limit=2"), 200).json(t, &first)
	cursor := first.NextCursor
	checkCursorFormat(t, te, main, first)
	wantProblem(t, te.get(base+"?limit=0"), 400, issuer.CodeLimitOutOfRange)
	wantProblem(t, te.get(base+"?limit=51"), 400, issuer.CodeLimitOutOfRange)
	wantProblem(t, te.get(base+"?offset=1001"), 400, issuer.CodeLimitOutOfRange)
	wantProblem(t, te.get(base+"?offset=x"), 400, issuer.CodeLimitOutOfRange)
	wantProblem(t, te.get(base+"?colour=red"), 400, issuer.CodeUnknownDimension)
	wantProblem(t, te.get(base+"?cursor="+cursor+"&offset=2"), 400, issuer.CodeInvalid)
	tampered := []byte(cursor)
	if mid := len(tampered) / 2; tampered[mid] == 'A' {
		tampered[mid] = 'B'
	} else {
		tampered[mid] = 'A'
	}
	wantProblem(t, te.get(base+"?cursor="+string(tampered)), 400, issuer.CodeCursorInvalid)
	wantProblem(t, te.get(base+"?cursor=%21"), 400, issuer.CodeCursorInvalid)
	// A cursor of one listing is refused by every other.
	wantProblem(t, te.get(skillPath(main, demoworld.SkillContested, "evidence")+"?cursor="+cursor), 400, issuer.CodeCursorInvalid)
	wantProblem(t, te.get(base+"?workload=oltp&cursor="+cursor), 400, issuer.CodeCursorInvalid)
	must(t, te.get(base+"?cursor="+cursor), 200)
	// Past the hour, the hour's passport and its pseudonyms change: the
	// cursor is refused, and a walk starts again.
	te.clock.Add(time.Hour)
	p := wantProblem(t, te.get(base+"?cursor="+cursor), 400, issuer.CodeCursorInvalid)
	if !strings.Contains(p.Detail, "offset 0") {
		t.Errorf("a stale cursor's detail: %q", p.Detail)
	}
	// Offsets past the listing give an empty page.
	var past issuer.EvidencePage
	must(t, te.get(base+"?offset=1000"), 200).json(t, &past)
	if len(past.Sources) != 0 || past.NextCursor != "" || past.Offset != past.SourceCount {
		t.Errorf("past the end: %+v", past)
	}
}

// checkCursorFormat pins SPEC.md §16.3's cursor: the seal of internal/seal
// over a version, the listing's binding and the key of the page's last
// source.
func checkCursorFormat(t *testing.T, te *trustEnv, main issuer.AgentID, page issuer.EvidencePage) {
	t.Helper()
	raw, err := base64.RawURLEncoding.Strict().DecodeString(page.NextCursor)
	if err != nil || len(raw) < 16+1+16+1+8+10+1 {
		t.Fatalf("cursor %q: %v", page.NextCursor, err)
	}
	payload, tag := raw[:len(raw)-16], raw[len(raw)-16:]
	mac := hmac.New(sha256.New, te.cursorKey)
	mac.Write([]byte("skill-evidence\x00"))
	mac.Write(payload)
	if !hmac.Equal(mac.Sum(nil)[:16], tag) {
		t.Fatal("the cursor's tag is not HMAC-SHA-256 of skill-evidence, a zero byte and the payload")
	}
	rev, err := te.db.SubjectRevision(context.Background(), main)
	if err != nil {
		t.Fatal(err)
	}
	h := sha256.New()
	labels := page.Context.Values()
	for _, part := range append([]string{string(main), rev, page.PassportHash, page.Skill.Normalized}, labels[:]...) {
		h.Write(binary.BigEndian.AppendUint32(nil, uint32(len(part))))
		h.Write([]byte(part))
	}
	last := page.Sources[len(page.Sources)-1]
	if payload[0] != 1 || !bytes.Equal(payload[1:17], h.Sum(nil)[:16]) {
		t.Fatalf("cursor payload %x: not version 1 and the listing's binding", payload[:17])
	}
	key := payload[17:]
	weight := math.Float64frombits(binary.BigEndian.Uint64(key[1:9]))
	if key[0] > 3 || math.Round(weight*1e6)/1e6 != last.Weight || string(key[9:19]) != last.Date || string(key[19:]) != last.Evidence {
		t.Fatalf("cursor key %x for the last source %+v", key, last)
	}
}

// evidenceIDs are the records of an evidence file, by their ids.
type evidenceIDs []struct {
	ID string `json:"id"`
}

// taskOf is the task of skill in a context of one workload.
func taskOf(skill, workload string) skilltrust.Task {
	return skilltrust.Task{Skill: skill, Context: evidence.Context{Workload: workload}}
}

func worldMemory(w *demoworld.World, id issuer.MemoryID) bool {
	for i := range w.Memories {
		if w.MemoryID(i) == id {
			return true
		}
	}
	return false
}

func testAssess(t *testing.T, te *trustEnv, main issuer.AgentID) {
	w := te.w
	ring := w.AgentID(w.OfRole(demoworld.RoleRing)[0])
	declarer := w.AgentID(w.OfRole(demoworld.RoleDeclarer)[0])
	rows := te.historyRows()
	agents := []issuer.AgentID{declarer, main, ring}
	skills := []string{demoworld.SkillContested, "Haskell", demoworld.SkillAlias}
	body := fmt.Sprintf(`{"agents":["%s","%s","%s"],"skills":["%s","%s","%s"],"context":{"workload":"High-Write-Concurrency"}}`,
		agents[0], agents[1], agents[2], skills[0], skills[1], skills[2])
	r := must(t, te.post("/api/public/trust/assess", body), 200)
	var cmp issuer.TrustComparison
	r.json(t, &cmp)
	if len(cmp.Agents) != 3 || len(cmp.Skills) != 3 || cmp.Context.Workload != "high-write-concurrency" {
		t.Fatalf("%s", r.body)
	}
	for i, s := range cmp.Skills {
		if s.Requested != skills[i] {
			t.Errorf("column %d is %s, asked %s", i, s.Requested, skills[i])
		}
	}
	for i, row := range cmp.Agents {
		if row.Agent != agents[i] || len(row.Skills) != 3 {
			t.Fatalf("row %d is %s with %d skills", i, row.Agent, len(row.Skills))
		}
		for j, cell := range row.Skills {
			sp, err := te.passports.SkillPassport(context.Background(), agents[i], taskOf(skills[j], "high-write-concurrency"))
			if err != nil {
				t.Fatal(err)
			}
			if cell.AssessmentHash != sp.AssessmentHash || cell.Skill != sp.Skill || cell.SourceCount != sp.SourceCount {
				t.Errorf("%s × %s: %+v, the pure read says %s", agents[i], skills[j], cell, sp.AssessmentHash)
			}
			if !strings.Contains(cell.Links.Trust, "?workload=high-write-concurrency") {
				t.Errorf("a cell's link forgets the context: %s", cell.Links.Trust)
			}
		}
	}
	if cmp.Agents[1].Skills[0].Assessment != passport.AssessmentContested || cmp.Agents[1].Skills[0].UnresolvedContradictions == 0 {
		t.Errorf("the main agent's contested skill: %+v", cmp.Agents[1].Skills[0])
	}
	if te.historyRows() != rows {
		t.Fatal("a comparison wrote history")
	}
	for _, bad := range []struct {
		body string
		code issuer.Code
	}{
		{`{"agents":["` + strings.Repeat(string(main)+`","`, 5) + string(ring) + `"],"skills":["x"]}`, issuer.CodeTooManyItems},
		{`{"agents":["` + string(main) + `"],"skills":["a","b","c","d","e","f"]}`, issuer.CodeTooManyItems},
		{`{"agents":[],"skills":["x"]}`, issuer.CodeInvalid},
		{`{"agents":["` + string(main) + `"],"skills":["x"],"context":{"colour":"red"}}`, issuer.CodeUnknownDimension},
		{`{"agents":["` + string(main) + `"],"skills":["x"],"extra":1}`, issuer.CodeJSONUnknownMember},
	} {
		wantProblem(t, te.post("/api/public/trust/assess", bad.body), 400, bad.code)
	}
	r = te.do("", "POST", "/api/public/trust/assess", "")
	wantProblem(t, r, 415, issuer.CodeUnsupportedMedia)
}

func testTrustHistory(t *testing.T, te *trustEnv, main issuer.AgentID) {
	trust := skillPath(main, demoworld.SkillEstimated, "trust")
	must(t, te.get(trust), 200)
	rows := te.historyRows()
	must(t, te.get(trust), 200)
	if te.historyRows() != rows {
		t.Fatal("a second read in the hour wrote history")
	}
	// The next hour: one more row, once, however many read at once.
	te.clock.Add(time.Hour)
	var wg sync.WaitGroup
	statuses := make([]int, 8)
	for i := range statuses {
		wg.Go(func() { statuses[i] = te.do("", "GET", trust, "").status })
	}
	wg.Wait()
	if slices.ContainsFunc(statuses, func(s int) bool { return s != 200 }) {
		t.Fatalf("concurrent reads: %v", statuses)
	}
	if got := te.historyRows(); got != rows+1 {
		t.Fatalf("%d rows in the next hour, from %d", got, rows)
	}
	// A new revision in the same hour: one more row, once.
	ctx := context.Background()
	key, err := storetest.Admin(te.db).RotateKey(ctx, main, []issuer.Scope{issuer.ScopePublish})
	if err != nil {
		t.Fatal(err)
	}
	p, err := te.db.Authenticate(ctx, key)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := storetest.Service(te.db).DeclareCapabilities(ctx, p, []string{"Rust embedded", demoworld.SkillDeclared}); err != nil {
		t.Fatal(err)
	}
	must(t, te.get(trust), 200)
	must(t, te.get(trust), 200)
	if got := te.historyRows(); got != rows+2 {
		t.Fatalf("%d rows after a new revision, from %d", got, rows)
	}
	var row struct {
		Skill, Hash string
	}
	if err := te.db.UnsafeSQL().QueryRowxContext(ctx, `SELECT skill, assessment_hash FROM skill_trust_history ORDER BY id DESC LIMIT 1`).Scan(&row.Skill, &row.Hash); err != nil {
		t.Fatal(err)
	}
	_, by := te.listed(main)
	if row.Skill != demoworld.SkillEstimated || row.Hash != by[demoworld.SkillEstimated].AssessmentHash {
		t.Fatalf("history row %+v", row)
	}
}

func testTrustNotFound(t *testing.T, te *trustEnv, main issuer.AgentID) {
	w := te.w
	must(t, te.get("/api/public/agents/"+string(w.AgentID(w.OfRole(demoworld.RoleRing)[1]))+"/skills"), 200)
	hidden := storetest.HiddenAgents(t, te.db, w)
	var want *httpapi.Problem
	for _, id := range hidden {
		for _, path := range []string{
			"/api/public/agents/" + string(id) + "/skills",
			skillPath(id, demoworld.SkillRing, "trust"),
			skillPath(id, demoworld.SkillRing, "evidence") + "?limit=1",
		} {
			p := wantProblem(t, te.get(path), 404, issuer.CodeNotFound)
			p.Detail = strings.ReplaceAll(p.Detail, string(id), "ID")
			p.Instance = strings.ReplaceAll(p.Instance, string(id), "ID")
			if want == nil {
				want = &p
			}
			if p.Detail != want.Detail || p.Title != want.Title || p.Type != want.Type {
				t.Errorf("%s: %+v, unlike %+v", path, p, *want)
			}
		}
		body := fmt.Sprintf(`{"agents":["%s","%s"],"skills":["x"]}`, main, id)
		p := wantProblem(t, te.post("/api/public/trust/assess", body), 404, issuer.CodeNotFound)
		if !strings.Contains(p.Detail, string(id)) || strings.Replace(p.Detail, string(id), "ID", 1) != want.Detail {
			t.Errorf("assess: %q", p.Detail)
		}
	}
	// The first failing agent, in input order, is named.
	body := fmt.Sprintf(`{"agents":["%s","%s","%s"],"skills":["x"]}`, main, hidden[2], hidden[1])
	if p := wantProblem(t, te.post("/api/public/trust/assess", body), 404, issuer.CodeNotFound); !strings.Contains(p.Detail, string(hidden[2])) {
		t.Errorf("assess names %q, not the first unknown agent %s", p.Detail, hidden[2])
	}
	wantProblem(t, te.get("/api/public/agents/nonsense/skills"), 404, issuer.CodeNotFound)
}

// testNoIdentities: no answer names an operator, an actor pseudonym, an
// agent other than the ones asked about, or a context label of the
// evidence.
func testNoIdentities(t *testing.T, te *trustEnv, main issuer.AgentID) {
	var ops []string
	if err := te.db.UnsafeSQL().SelectContext(context.Background(), &ops, `SELECT public_id FROM operators`); err != nil {
		t.Fatal(err)
	}
	var keys []int64
	if err := te.db.UnsafeSQL().SelectContext(context.Background(), &keys, `SELECT id FROM agents`); err != nil {
		t.Fatal(err)
	}
	if len(ops) == 0 || len(te.bodies) < 20 {
		t.Fatalf("%d operators, %d answers", len(ops), len(te.bodies))
	}
	pseudonyms := regexp.MustCompile(`\b(act|op)_[a-z0-9]+`)
	internal := regexp.MustCompile(`"(id|key|agentKey|subjectId|operatorId|reporter|lineage)":`)
	others := map[issuer.AgentID]bool{}
	for i := range te.w.Agents {
		if role := te.w.Agents[i].Role; role == demoworld.RoleEvaluator || role == demoworld.RoleContradicter {
			others[te.w.AgentID(i)] = true
		}
	}
	for _, b := range te.bodies {
		if m := pseudonyms.FindString(b); m != "" {
			t.Errorf("an answer names %s", m)
		}
		if m := internal.FindString(b); m != "" {
			t.Errorf("an answer has the member %s", m)
		}
		for _, op := range ops {
			if strings.Contains(b, op) {
				t.Errorf("an answer names the operator %s", op)
			}
		}
		for id := range others {
			if strings.Contains(b, string(id)) {
				t.Errorf("an answer names the agent %s", id)
			}
		}
	}
}

// TestTrustRateLimit: the trust routes share the per-address budget of
// anonymous requests.
func TestTrustRateLimit(t *testing.T) {
	t.Parallel()
	db := storetest.Open(t, store.SQLite, store.Options{})
	e := newEnv(t, db, httpapi.Config{Trust: newTrust(t, db), RatePerSecond: 0.001, Burst: 2})
	path := "/api/public/agents/agt_" + strings.Repeat("a", 26) + "/skills"
	wantProblem(t, e.do("", "GET", path, ""), 404, issuer.CodeNotFound)
	wantProblem(t, e.do("", "POST", "/api/public/trust/assess", `{}`), 400, issuer.CodeInvalid)
	wantProblem(t, e.do("", "GET", skillPath("agt_"+issuer.AgentID(strings.Repeat("a", 26)), "x", "trust"), ""), 429, issuer.CodeRateLimited)
	if _, err := service.NewTrust(service.NewPassports(db, nil, service.PassportOptions{}), db, service.TrustOptions{}); err == nil {
		t.Fatal("a trust API without a cursor sealer was built")
	}
}

// newTrust returns the trust API over db, with a keyring that has no key
// yet and cursors sealed with a zero key.
func newTrust(t testing.TB, db *store.DB) *service.Trust {
	t.Helper()
	ring, err := keyring.New(db, keyring.Config{Issuer: "https://issuer.test", Dir: filepath.Join(t.TempDir(), "keys")})
	if err != nil {
		t.Fatal(err)
	}
	return storetest.Trust(t, service.NewPassports(db, ring, service.PassportOptions{}), db, make([]byte, seal.KeySize))
}
