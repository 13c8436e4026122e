package mcpserver_test

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/remnant/passportkit/evidence"
	"github.com/remnant/passportkit/issuer"
	"github.com/remnant/passportkit/issuer/store/storetest"
	"github.com/remnant/passportkit/passport"
)

// TestFindAgentsAcrossTransports builds a registry of a few hundred agents
// through the HTTP API on both engines, and asks find_agents of it through
// the route and through the tool (the SDK's client): every page the same
// bytes, a cursor of either transport good on the other, every refusal the
// same problem details; and the ranking is what the registry's evidence
// makes it: the independently evidenced first, the ring no higher than
// without its praise, declarations never evidence, contested agents
// labelled in their place.
func TestFindAgentsAcrossTransports(t *testing.T) {
	t.Parallel()
	for _, engine := range storetest.Engines(t) {
		t.Run(string(engine), func(t *testing.T) {
			t.Parallel()
			r := newRegistry(t, engine)
			for _, c := range []struct {
				name string
				f    func(*testing.T, *registry)
			}{
				{"the tool", testFindAgentsTool},
				{"by skill", testFindAgentsBySkill},
				{"in context", testFindAgentsInContext},
				{"the listing", testFindAgentsListing},
				{"refusals", testFindAgentsRefusals},
			} {
				t.Run(c.name, func(t *testing.T) { r.t = t; c.f(t, r) })
			}
		})
	}
}

// walk reads every page of a query from both transports: the route with
// query, a query string, and the tool with args, the same query as its
// arguments, each page asked of both with the cursor one transport's
// previous page gave (the route's and the tool's in turn). Both answer
// each page with the same bytes. warm asks the route for each page once
// before: a page in context reports the candidates it assessed anew, so
// only pages asked after it has been read once answer alike.
func (r *registry) walk(what string, query url.Values, args map[string]any, warm bool) []issuer.FindAgentsPage {
	r.t.Helper()
	var pages []issuer.FindAgentsPage
	cursor := ""
	for i := 0; ; i++ {
		q, a := url.Values{}, maps.Clone(args)
		maps.Copy(q, query)
		if cursor != "" {
			q.Set("cursor", cursor)
			a["cursor"] = cursor
		}
		path := "/api/public/agents?" + q.Encode()
		if warm {
			r.http("GET", path, "")
		}
		b, _ := json.Marshal(a)
		viaTool, viaRoute := r.tool("find_agents", string(b)), r.http("GET", path, "")
		if !viaTool.ok || !viaRoute.ok {
			r.t.Fatalf("%s page %d: tool %+v, route %+v", what, i, viaTool.problem, viaRoute.problem)
		}
		r.same(fmt.Sprintf("%s page %d", what, i), viaTool, viaRoute)
		from := viaRoute
		if i%2 == 1 {
			from = viaTool
		}
		var p issuer.FindAgentsPage
		if err := json.Unmarshal([]byte(from.body), &p); err != nil {
			r.t.Fatal(err)
		}
		pages = append(pages, p)
		if cursor = p.NextCursor; cursor == "" {
			return pages
		}
		if i == 100 {
			r.t.Fatalf("%s: more than 100 pages", what)
		}
	}
}

// results are the results of pages, in order.
func results(pages []issuer.FindAgentsPage) []issuer.FoundAgent {
	var out []issuer.FoundAgent
	for _, p := range pages {
		out = append(out, p.Results...)
	}
	return out
}

// testFindAgentsTool: the tool's description says what its order rests on
// and how to read it, and its input schema states the query's bounds.
func testFindAgentsTool(t *testing.T, r *registry) {
	list, err := r.cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	i := slices.IndexFunc(list.Tools, func(tl *mcp.Tool) bool { return tl.Name == "find_agents" })
	if i < 0 {
		t.Fatal("find_agents is not listed")
	}
	tool := list.Tools[i]
	for _, says := range []string{"evidence level", "lower bound", "null (N/A", "then the agent id", "never a global score",
		"declared capability", "own operator", "labelled, not demoted", "one-line why", "not an endorsement", "nextCursor",
		"legacy listing by global reputation"} {
		if !strings.Contains(tool.Description, says) {
			t.Errorf("the description does not say %q", says)
		}
	}
	var schema struct {
		Properties map[string]struct {
			Minimum   *float64        `json:"minimum"`
			Maximum   *float64        `json:"maximum"`
			Default   json.RawMessage `json:"default"`
			MinLength *int            `json:"minLength"`
			MaxLength *int            `json:"maxLength"`
			Pattern   string          `json:"pattern"`
		} `json:"properties"`
		Additional *bool `json:"additionalProperties"`
	}
	b, _ := json.Marshal(tool.InputSchema)
	if err := json.Unmarshal(b, &schema); err != nil {
		t.Fatal(err)
	}
	p := schema.Properties
	if len(p) != 3+len(evidence.Dimensions) || *p["limit"].Minimum != 1 || *p["limit"].Maximum != issuer.MaxFindAgentsLimit ||
		string(p["limit"].Default) != "20" || *p["cursor"].MinLength != 1 || *p["cursor"].MaxLength != issuer.MaxFindAgentsCursor ||
		p["cursor"].Pattern == "" || *p["skill"].MaxLength != issuer.MaxClaimBytes || *schema.Additional {
		t.Errorf("schema %s", b)
	}
	for _, dim := range evidence.Dimensions {
		if *p[dim].MaxLength != issuer.MaxClaimBytes {
			t.Errorf("%s: %s", dim, b)
		}
	}
}

// rankKey is SPEC.md §17.2's rank key of a result, from its own figures,
// written out again: level (STRONG first), then lower bound (higher
// first), N/A last.
func rankKey(s *issuer.FoundSkill) int64 {
	level := map[string]int64{"STRONG": 0, "MODERATE": 1, "LOW": 2, "VERY_LOW": 3}[s.EvidenceLevel]
	if s.Estimate == nil {
		return level*2_000_000 + 1_000_001
	}
	return level*2_000_000 + 1_000_000 - int64(s.Estimate.Lower*1e6+0.5)
}

// checkOrder fails unless got is in SPEC.md §17.2's order of its own
// figures and lists exactly the agents of want, once each.
func checkOrder(t *testing.T, what string, got []issuer.FoundAgent, want []issuer.AgentID) {
	t.Helper()
	for i := 1; i < len(got); i++ {
		a, b := got[i-1], got[i]
		if ka, kb := rankKey(a.Skill), rankKey(b.Skill); ka > kb || ka == kb && a.ID >= b.ID {
			t.Fatalf("%s: %s (%s) before %s (%s)", what, a.ID, a.Why, b.ID, b.Why)
		}
	}
	ids := make([]issuer.AgentID, len(got))
	for i, g := range got {
		ids[i] = g.ID
	}
	slices.Sort(ids)
	want = slices.Sorted(slices.Values(want))
	if !slices.Equal(ids, want) {
		t.Fatalf("%s: %d agents found, want the %d whose passports list the skill", what, len(ids), len(want))
	}
}

// listing are the agents whose passports list the registry's skill.
func (r *registry) listing() []issuer.AgentID {
	return slices.Concat(r.authors, r.ring, r.lone, r.declarers)
}

// testFindAgentsBySkill pages through the agents listing the skill on both
// transports, each spelling the skill its own way, and checks the ranking
// against the registry's evidence.
func testFindAgentsBySkill(t *testing.T, r *registry) {
	pages := r.walk("by skill", url.Values{"skill": {"postgres  Indexing"}, "limit": {"7"}},
		map[string]any{"skill": registrySkill, "limit": 7}, false)
	for i, p := range pages {
		if p.Basis != issuer.BasisSkillEvidence || p.Query.Skill != registrySkill || p.Query.Limit != 7 || p.Truncated ||
			p.Freshness.ChangedOnPage != 0 || p.Freshness.CheckedAt == nil || p.Freshness.Changed+p.Freshness.Aged != 0 {
			t.Fatalf("page %d: %+v %+v", i, p.Query, p.Freshness)
		}
	}
	got := results(pages)
	checkOrder(t, "by skill", got, r.listing())
	at := map[issuer.AgentID]int{}
	for i, g := range got {
		at[g.ID] = i
		if strings.Contains(g.Why, "\n") || !strings.HasPrefix(g.Why, g.Skill.EvidenceLevel+" evidence from ") {
			t.Fatalf("%s: why %q", g.ID, g.Why)
		}
	}

	// The independently evidenced come first: only authors have an
	// estimate, and every agent without independent evidence comes after
	// all of them.
	lastEvidenced, evidenced := -1, 0
	for i, g := range got {
		if g.Skill.Estimate != nil || g.Skill.EvidenceLevel != string(passport.LevelVeryLow) {
			if !slices.Contains(r.authors, g.ID) {
				t.Fatalf("%s has evidence: %+v", g.ID, g.Skill)
			}
			lastEvidenced = i
		}
		if g.Skill.Estimate != nil {
			evidenced++
		}
	}
	if first := got[0].Skill; !slices.Contains(r.authors, got[0].ID) || first.Estimate == nil || first.IndependentOperators < 2 ||
		first.EvidenceLevel == string(passport.LevelVeryLow) || evidenced < 10 {
		t.Fatalf("first %+v; %d results with an estimate", first, evidenced)
	}

	// The ring ranks no higher than without its praise: its members'
	// figures are a lone publisher's, and they follow every evidenced
	// agent. Declarations are never evidence.
	lone := got[at[r.lone[0]]].Skill
	if lone.Estimate != nil || lone.IndependentOperators != 0 {
		t.Fatalf("a lone publisher %+v", lone)
	}
	for _, id := range r.ring {
		s := got[at[id]].Skill
		if at[id] <= lastEvidenced || rankKey(s) != rankKey(lone) || s.State != lone.State || s.Assessment != lone.Assessment ||
			s.IndependentOperators != 0 {
			t.Fatalf("ring member %s at %d (last evidenced %d): %+v; a lone publisher %+v", id, at[id], lastEvidenced, s, lone)
		}
	}
	for _, id := range r.declarers {
		g := got[at[id]]
		if at[id] <= lastEvidenced || g.Skill.EvidenceLevel != string(passport.LevelVeryLow) || g.Skill.Estimate != nil ||
			g.Skill.State != string(passport.StateNew) || g.Skill.IndependentOperators != 0 ||
			!strings.Contains(g.Why, "no estimate (N/A); no weighted evidence yet") {
			t.Fatalf("declarer %s at %d: %+v %q", id, at[id], g.Skill, g.Why)
		}
	}

	// Contested agents carry the label and keep their place: the order is
	// their figures' (checked above), and some outrank uncontested agents
	// with an estimate.
	outranks := false
	for _, id := range r.contested {
		g := got[at[id]]
		if !g.Skill.Contested || !strings.Contains(g.Why, "; contested: an unresolved contradiction, labelled and kept in its place") {
			t.Fatalf("contested %s: %+v %q", id, g.Skill, g.Why)
		}
		for _, below := range got[at[id]+1:] {
			outranks = outranks || !below.Skill.Contested && below.Skill.Estimate != nil
		}
	}
	if !outranks {
		t.Error("no contested agent outranks an uncontested one with an estimate")
	}
	t.Logf("%d results in %d pages: %d with an estimate, the last at %d; %d contested; the ring's %d praises refused",
		len(got), len(pages), evidenced, lastEvidenced, len(r.contested), r.refused)
}

// testFindAgentsInContext pages through the same agents ranked in a task
// context on both transports.
func testFindAgentsInContext(t *testing.T, r *registry) {
	pages := r.walk("in context", url.Values{"skill": {registrySkill}, "workload": {"W1 "}, "limit": {"9"}},
		map[string]any{"skill": "postgres indexing", "workload": "w1", "limit": 9}, true)
	for i, p := range pages {
		if p.Basis != issuer.BasisSkillEvidenceInContext || p.Query.Context == nil || p.Query.Context.Workload != "w1" || p.Truncated || p.Work == nil {
			t.Fatalf("page %d: %+v", i, p)
		}
	}
	got := results(pages)
	checkOrder(t, "in context", got, r.listing())
	for _, g := range got {
		if !strings.HasPrefix(g.Why, "in this context: ") {
			t.Fatalf("why %q", g.Why)
		}
		if !slices.Contains(r.authors, g.ID) && (g.Skill.Estimate != nil || g.Skill.EvidenceLevel != string(passport.LevelVeryLow)) {
			t.Fatalf("%s has evidence in context: %+v", g.ID, g.Skill)
		}
	}
}

// testFindAgentsListing pages through the legacy listing on both
// transports: every agent, by global reputation, each saying it is not
// skill evidence; the agents evidenced for another skill are there, and
// only there.
func testFindAgentsListing(t *testing.T, r *registry) {
	pages := r.walk("the listing", url.Values{"limit": {"50"}}, map[string]any{"limit": 50}, false)
	got := results(pages)
	if want := len(r.keys); len(got) != want || pages[0].Basis != issuer.BasisGlobalReputation {
		t.Fatalf("the listing: %d agents, want %d", len(got), want)
	}
	for _, g := range got {
		if g.Skill != nil || g.Reputation == nil || !strings.HasSuffix(g.Why, "not skill evidence") {
			t.Fatalf("%+v", g)
		}
	}
	if i := slices.IndexFunc(got, func(g issuer.FoundAgent) bool { return g.ID == r.elsewhere[0] }); i < 0 || got[i].Reputation.Score <= 0 {
		t.Fatalf("an agent evidenced for another skill in the listing: %d", i)
	}
}

// testFindAgentsRefusals: the tool refuses what the route refuses, with
// the same problem details, the same query written as arguments.
func testFindAgentsRefusals(t *testing.T, r *registry) {
	var first, inContext issuer.FindAgentsPage
	r.get("find_agents", args("skill", registrySkill, "limit", 3), &first)
	r.get("find_agents", args("skill", registrySkill, "workload", "w2", "limit", 3), &inContext)
	cursor := first.NextCursor
	tampered := []byte(cursor)
	if mid := len(tampered) / 2; tampered[mid] == 'A' {
		tampered[mid] = 'B'
	} else {
		tampered[mid] = 'A'
	}
	for _, c := range []struct {
		what string
		kv   []string
		code issuer.Code
	}{
		{"limit 0", []string{"skill", registrySkill, "limit", "0"}, issuer.CodeLimitOutOfRange},
		{"limit 101", []string{"limit", "101"}, issuer.CodeLimitOutOfRange},
		{"a limit of many digits", []string{"skill", registrySkill, "limit", "99999999999"}, issuer.CodeLimitOutOfRange},
		{"a tampered cursor", []string{"skill", registrySkill, "cursor", string(tampered)}, issuer.CodeCursorInvalid},
		{"an empty cursor", []string{"skill", registrySkill, "cursor", ""}, issuer.CodeCursorInvalid},
		{"a long cursor", []string{"cursor", strings.Repeat("A", issuer.MaxFindAgentsCursor+1)}, issuer.CodeCursorInvalid},
		{"a cursor of the query without context", []string{"skill", registrySkill, "workload", "w2", "cursor", cursor}, issuer.CodeCursorInvalid},
		{"a cursor of the query in context", []string{"skill", registrySkill, "cursor", inContext.NextCursor}, issuer.CodeCursorInvalid},
		{"a cursor of another skill", []string{"skill", otherSkill, "cursor", cursor}, issuer.CodeCursorInvalid},
		{"a cursor of the listing", []string{"cursor", cursor}, issuer.CodeCursorInvalid},
		{"an unknown dimension", []string{"skill", registrySkill, "colour", "red"}, issuer.CodeUnknownDimension},
		{"a dimension in another case", []string{"skill", registrySkill, "Workload", "oltp"}, issuer.CodeUnknownDimension},
		{"two unknown names", []string{"zeta", "1", "skill", registrySkill, "Alpha", "2"}, issuer.CodeUnknownDimension},
		{"an unknown name before a bad limit", []string{"skill", " ", "limit", "0", "offset", "20"}, issuer.CodeUnknownDimension},
		{"a blank skill", []string{"skill", " \u200b "}, issuer.CodeInvalid},
		{"a control character", []string{"skill", "a\x00b"}, issuer.CodeInvalid},
		{"a long skill", []string{"skill", strings.Repeat("x", issuer.MaxClaimBytes+1)}, issuer.CodeInvalid},
		{"a context without skill", []string{"workload", "oltp"}, issuer.CodeInvalid},
		{"a blank label", []string{"skill", registrySkill, "protocol", "  "}, issuer.CodeInvalid},
		{"a long label", []string{"skill", registrySkill, "version", strings.Repeat("9", issuer.MaxClaimBytes+1)}, issuer.CodeInvalid},
		{"the skill before the limit", []string{"skill", "", "limit", "0"}, issuer.CodeInvalid},
		{"the limit before the cursor", []string{"limit", "0", "cursor", ""}, issuer.CodeLimitOutOfRange},
	} {
		q, in := url.Values{}, map[string]any{}
		for i := 0; i < len(c.kv); i += 2 {
			q.Set(c.kv[i], c.kv[i+1])
			in[c.kv[i]] = c.kv[i+1]
			if c.kv[i] == "limit" {
				n, err := strconv.ParseInt(c.kv[i+1], 10, 64)
				if err != nil {
					t.Fatal(err)
				}
				in["limit"] = n
			}
		}
		b, _ := json.Marshal(in)
		a := r.tool("find_agents", string(b))
		if a.ok || a.problem.Code != c.code {
			t.Errorf("%s: %+v, want %s", c.what, a, c.code)
		}
		r.same(c.what, a, r.http("GET", "/api/public/agents?"+q.Encode(), ""))
	}
	if a := r.tool("find_agents", args("zeta", 1, "Alpha", []int{2})); !strings.Contains(a.problem.Detail, `"Alpha"`) {
		t.Errorf("two unknown members of any type: %+v", a.problem)
	}

	// What only arguments can get wrong.
	for _, c := range []struct {
		what, args string
		code       issuer.Code
	}{
		{"a limit as text", `{"skill":"x","limit":"5"}`, issuer.CodeJSONWrongType},
		{"a fractional limit", `{"limit":2.5}`, issuer.CodeJSONWrongType},
		{"a skill that is no string", `{"skill":["x"]}`, issuer.CodeJSONWrongType},
		{"a member twice up to case", `{"skill":"x","Skill":"y"}`, issuer.CodeJSONDuplicateKey},
		{"a bad type before an unknown member", `{"colour":"red","limit":"5"}`, issuer.CodeJSONWrongType},
		{"a context as an object", `{"skill":"x","context":{"workload":"oltp"}}`, issuer.CodeUnknownDimension},
	} {
		if a := r.tool("find_agents", c.args); a.ok || a.problem.Code != c.code {
			t.Errorf("%s: %+v, want %s", c.what, a, c.code)
		}
	}
	// Arguments as null are absent: the legacy listing.
	var listing issuer.FindAgentsPage
	r.get("find_agents", `{"skill":null,"limit":null,"cursor":null}`, &listing)
	if listing.Basis != issuer.BasisGlobalReputation || listing.Query.Limit != issuer.DefaultFindAgentsLimit {
		t.Errorf("null arguments: %+v", listing.Query)
	}
}
