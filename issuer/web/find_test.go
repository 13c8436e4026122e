package web_test

import (
	"encoding/json"
	"html"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/remnant/passportkit/issuer"
	"github.com/remnant/passportkit/issuer/demoworld"
	"github.com/remnant/passportkit/issuer/service"
	"github.com/remnant/passportkit/issuer/store/storetest"
	"github.com/remnant/passportkit/issuer/web"
)

// found is the page of /agents?query read back: the results' ids in
// order, each result's markup, and the next page's address.
type found struct {
	status int
	body   string
	ids    []string
	rows   map[string]string
	next   string
}

var (
	resultRE = regexp.MustCompile(`<li data-id="(agt_[a-z2-7]{26})">`)
	nextRE   = regexp.MustCompile(`<a href="([^"]+)" rel="next">`)
	reasonRE = regexp.MustCompile(`Status (\d+), reason <code>([a-z_]+)</code>`)
)

// find reads the discovery page at path.
func (s *site) find(t *testing.T, path string) found {
	t.Helper()
	res, body := s.get(t, path)
	f := found{status: res.StatusCode, body: body, rows: map[string]string{}}
	ms := resultRE.FindAllStringSubmatchIndex(body, -1)
	for i, m := range ms {
		id := body[m[2]:m[3]]
		end := len(body)
		if i+1 < len(ms) {
			end = ms[i+1][0]
		}
		f.ids = append(f.ids, id)
		f.rows[id] = body[m[0]:end]
	}
	if m := nextRE.FindStringSubmatch(body); m != nil {
		f.next = html.UnescapeString(m[1])
	}
	if res.StatusCode == http.StatusOK && res.Header.Get("Cache-Control") != "no-store" && strings.Contains(path, "?") {
		t.Errorf("%s: Cache-Control %q, want no-store", path, res.Header.Get("Cache-Control"))
	}
	return f
}

// findAPI reads GET /api/public/agents?query.
func (s *site) findAPI(t *testing.T, query string) issuer.FindAgentsPage {
	t.Helper()
	var p issuer.FindAgentsPage
	s.api(t, "/api/public/agents?"+query, &p)
	return p
}

func agentIDs(rs []issuer.FoundAgent) []string {
	out := []string{}
	for _, r := range rs {
		out = append(out, string(r.ID))
	}
	return out
}

// testFind: the discovery page is the page of GET /api/public/agents on
// the real discovery service: the same results in the same order, each
// in words, with why, freshness and the next page; the same refusals.
func testFind(t *testing.T, s *site) {
	_, home := s.get(t, "/")
	if strings.Count(home, `href="/agents"`) != 2 {
		t.Error("the navigation and the start page do not both link the discovery page")
	}
	empty := s.find(t, "/agents")
	if empty.status != http.StatusOK || strings.Contains(empty.body, `id="found-h"`) || !strings.Contains(empty.body, `aria-current="page">Find agents`) {
		t.Fatalf("the empty form: %d", empty.status)
	}

	// Every query the page answers, it answers as the API does: the same
	// agents in the same order, each with the API's why, the page's
	// freshness statement, and a next page exactly when the API has one.
	form := func(q string) string {
		return q + "&domain=&environment=+&protocol=&version=&workload=&constraints=&limit="
	}
	for _, q := range []string{
		"skill=" + url.QueryEscape(demoworld.SkillAlias),
		"skill=" + url.QueryEscape(demoworld.SkillContested),
		"skill=" + url.QueryEscape(demoworld.SkillRing) + "&limit=2",
		"skill=" + url.QueryEscape(demoworld.SkillEstimated) + "&environment=production&workload=OLTP",
		"skill=" + url.QueryEscape(oddSkill),
		"skill=" + url.QueryEscape("underwater basket weaving"),
		"limit=100",
	} {
		api := s.findAPI(t, q)
		for _, path := range []string{"/agents?" + q, "/agents?" + form(q)} {
			page := s.find(t, path)
			if page.status != http.StatusOK || !slices.Equal(page.ids, agentIDs(api.Results)) {
				t.Errorf("%s: %d, results %v, the API's %v", path, page.status, page.ids, agentIDs(api.Results))
				continue
			}
			for _, r := range api.Results {
				if !strings.Contains(page.rows[string(r.ID)], `Why this rank:</span> `+html.EscapeString(r.Why)+`</p>`) {
					t.Errorf("%s: %s lacks the API's why %q", path, r.ID, r.Why)
				}
				if !strings.Contains(page.rows[string(r.ID)], `<a href="/agents/`+string(r.ID)+`">`+html.EscapeString(r.Name)+`</a>`) {
					t.Errorf("%s: %s does not link its profile under its name", path, r.ID)
				}
			}
			if !strings.Contains(page.body, html.EscapeString(api.Freshness.Statement)) {
				t.Errorf("%s: no freshness statement", path)
			}
			if (page.next != "") != (api.NextCursor != "") {
				t.Errorf("%s: next page %q, the API's cursor %q", path, page.next, api.NextCursor)
			}
			if api.Note != "" && !strings.Contains(page.body, html.EscapeString(api.Note)) {
				t.Errorf("%s: the note %q is not shown", path, api.Note)
			}
		}
	}

	// The evidenced agent comes first, with its interval; the ring's
	// sibling, whose praise was refused, after it, with no estimate.
	pg := s.find(t, "/agents?skill="+url.QueryEscape(demoworld.SkillAlias))
	if len(pg.ids) != 2 || pg.ids[0] != string(s.main) || pg.ids[1] != string(s.sibling) {
		t.Fatalf("%s: %v, want the main agent, then the ring's sibling", demoworld.SkillEstimated, pg.ids)
	}
	for id, want := range map[issuer.AgentID][]string{
		s.main:    {`<dd class="assessment">Supported</dd>`, `<dd class="state">evidenced</dd>`, `<dd class="level">moderate</dd>`, `<dd class="estimate">0.`, "(interval 0.", `<dd class="flags">none</dd>`},
		s.sibling: {`<dd class="assessment">New: no observations</dd>`, `<dd class="state">new</dd>`, `<dd class="level">very low</dd>`, `<dd class="estimate na">` + web.NotEnoughEvidence + `</dd>`},
	} {
		for _, w := range want {
			if !strings.Contains(pg.rows[string(id)], w) {
				t.Errorf("%s lacks %q:\n%s", id, w, pg.rows[string(id)])
			}
		}
	}
	if !strings.Contains(pg.body, `Asked as <q>`+demoworld.SkillAlias+`</q>`) || !strings.Contains(pg.body, "Agents whose passports list "+demoworld.SkillEstimated) {
		t.Error("the page does not say which skill it ranks and how it was asked")
	}
	if !strings.Contains(pg.rows[string(s.main)], `href="/agents/`+string(s.main)+`/skills/PostgreSQL%20indexing"`) {
		t.Error("a result does not lead to its skill's page")
	}
	// An agent with declarations only comes after the agent with
	// evidence, and is not shown as evidenced.
	thin := s.find(t, "/agents?skill="+url.QueryEscape(demoworld.SkillThin))
	if !slices.Equal(thin.ids, []string{string(s.main), string(s.declarer)}) {
		t.Fatalf("%s: %v, want the main agent, then the declarer", demoworld.SkillThin, thin.ids)
	}
	for id, want := range map[issuer.AgentID][]string{
		s.main:     {`<dd class="assessment">Insufficient evidence</dd>`, `<dd class="level">low</dd>`, web.NotEnoughEvidence},
		s.declarer: {`<dd class="assessment">New: no observations</dd>`, `<dd class="state">new</dd>`, `<dd class="level">very low</dd>`, web.NotEnoughEvidence, "no weighted evidence yet"},
	} {
		for _, w := range want {
			if !strings.Contains(thin.rows[string(id)], w) {
				t.Errorf("%s lacks %q:\n%s", id, w, thin.rows[string(id)])
			}
		}
	}
	// A contested skill keeps its place and says so.
	mcp := s.find(t, "/agents?skill="+url.QueryEscape(demoworld.SkillContested))
	if len(mcp.ids) != 3 || !strings.Contains(mcp.rows[string(s.main)], `<span class="flag contested">Contested</span>`) ||
		strings.Contains(mcp.rows[string(s.declarer)], `<span class="flag`) {
		t.Errorf("%s: %v, the contested skill is not flagged (or another is)", demoworld.SkillContested, mcp.ids)
	}
	// In a context, the page says which.
	if in := s.find(t, "/agents?skill=PostgreSQL+indexing&workload=OLTP"); !strings.Contains(in.body, "in the context Workload <q>oltp</q>") ||
		!strings.Contains(in.rows[string(s.main)], "Why this rank:</span> in this context: ") ||
		!strings.Contains(in.rows[string(s.main)], "/skills/PostgreSQL%20indexing?workload=oltp") {
		t.Errorf("the page in context: %v", in.ids)
	}
	// The form keeps what was asked.
	if kept := s.find(t, "/agents?skill=postgres+indexing&workload=OLTP&limit=5"); !strings.Contains(kept.body, `id="find-skill" name="skill" type="text" value="postgres indexing"`) ||
		!strings.Contains(kept.body, `name="workload" type="text" value="OLTP"`) || !strings.Contains(kept.body, `name="limit" type="text" inputmode="numeric" value="5"`) {
		t.Error("the form lost its values")
	}

	// Without a skill: the legacy listing, said not to be skill evidence,
	// without the agents that are not shown.
	all := s.find(t, "/agents?skill=&limit=100")
	if !strings.Contains(all.body, "It is not evidence of any skill") || !strings.Contains(all.rows[string(s.main)], "Global reputation") {
		t.Error("the listing is not said to be the global reputation's")
	}
	for kind, id := range s.hidden {
		if slices.Contains(all.ids, string(id)) {
			t.Errorf("the listing shows the %s agent", kind)
		}
	}

	// The next page carries the cursor and the query; page by page, the
	// same agents in the same order.
	var paged []string
	next := "/agents?skill=" + url.QueryEscape(demoworld.SkillContested) + "&environment=&limit=1"
	for range 10 {
		p := s.find(t, next)
		paged = append(paged, p.ids...)
		if p.next == "" {
			break
		}
		if !strings.Contains(p.next, "cursor=") || !strings.Contains(p.next, "limit=1") || strings.Contains(p.next, "environment") {
			t.Errorf("the next page is %s", p.next)
		}
		next = p.next
	}
	if !slices.Equal(paged, mcp.ids) {
		t.Errorf("paged %v, want %v", paged, mcp.ids)
	}

	// Refusals: the API's, with its status, reason and words.
	long := strings.Repeat("s", 201)
	for _, q := range []string{"colour=red", "skill=a&skill=b", "skill=x&limit=0", "limit=ten", "workload=oltp",
		"skill=" + long, "skill=a%E2%80%AEb", "skill=a%0Ab", "skill=PostgreSQL&cursor=bogus", "skill=x&cursor=" + strings.Repeat("A", 600)} {
		res, body := s.get(t, "/api/public/agents?"+q)
		var prob struct {
			Code   string `json:"code"`
			Detail string `json:"detail"`
		}
		if err := json.Unmarshal([]byte(body), &prob); err != nil || res.StatusCode != http.StatusBadRequest {
			t.Fatalf("the API answers %s with %d: %s", q, res.StatusCode, body)
		}
		page := s.find(t, "/agents?"+q)
		m := reasonRE.FindStringSubmatch(page.body)
		if page.status != res.StatusCode || m == nil || m[1] != "400" || m[2] != prob.Code ||
			!strings.Contains(html.UnescapeString(page.body), "<p>"+prob.Detail+"</p>") || len(page.ids) != 0 {
			t.Errorf("the page answers %s with %d %v, not the API's %s %q", q, page.status, m, prob.Code, prob.Detail)
		}
		if strings.ContainsRune(page.body, '\u202E') {
			t.Errorf("%s: a bidirectional override reaches the page", q)
		}
	}
	if res, body := s.get(t, "/agents?skill=%zz"); res.StatusCode != http.StatusBadRequest || !strings.Contains(body, "reason <code>invalid_request</code>") {
		t.Errorf("a query that does not decode: %d", res.StatusCode)
	}

	// Untrusted text is escaped.
	odd := s.find(t, "/agents?skill="+url.QueryEscape(oddSkill))
	if len(odd.ids) != 1 || !strings.Contains(odd.body, html.EscapeString(oddName)) || !strings.Contains(odd.body, "&lt;img src=x onerror=alert(1)&gt; &amp; friends") ||
		strings.Contains(odd.body, "<img") {
		t.Errorf("the odd agent: %v", odd.ids)
	}
	// A result whose records changed since it was indexed says so, and so
	// does the freshness statement.
	s.publish(t, "A note written after indexing")
	odd = s.find(t, "/agents?skill="+url.QueryEscape(oddSkill))
	if !strings.Contains(odd.rows[string(s.odd)], "Its records changed after it was indexed") ||
		!strings.Contains(odd.body, "1 result on this page has changed since it was indexed") {
		t.Error("a changed result is not marked")
	}
}

// TestFindPageStopsEarly: a page in context cut short by its work bound
// says so, shows only the results proven, and its link continues the
// ranking to the page's true order.
func TestFindPageStopsEarly(t *testing.T) {
	t.Parallel()
	s := newSite(t, storetest.Engines(t)[0])
	short := service.NewDiscovery(s.db, s.passports, storetest.Sealer(t, s.db), service.DiscoveryOptions{Now: func() time.Time { return s.now }, ContextBudget: 1})
	pages, err := web.New(web.Config{Profiles: s.app, Passports: s.passports, Trust: s.trust, Keys: s.ring, Finder: short, Now: func() time.Time { return s.now }})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(pages)
	t.Cleanup(srv.Close)
	cut := &site{URL: srv.URL}
	query := "/agents?skill=" + url.QueryEscape(demoworld.SkillContested) + "&environment=production"
	want := s.find(t, query).ids
	var got []string
	next, stops := query, 0
	for range 20 {
		p := cut.find(t, next)
		got = append(got, p.ids...)
		if strings.Contains(p.body, "This page stops early") {
			stops++
			if !strings.Contains(p.body, `rel="next">Continue the ranking</a>`) || p.next == "" {
				t.Fatal("a page cut short offers no way on")
			}
		}
		if p.next == "" {
			break
		}
		next = p.next
	}
	if stops == 0 || !slices.Equal(got, want) {
		t.Errorf("%d pages cut short, results %v, want %v", stops, got, want)
	}

	// Without a finder there is no discovery page, and nothing links one.
	none, err := web.New(web.Config{Profiles: s.app, Passports: s.passports, Trust: s.trust, Keys: s.ring})
	if err != nil {
		t.Fatal(err)
	}
	bare := httptest.NewServer(none)
	t.Cleanup(bare.Close)
	without := &site{URL: bare.URL}
	if res, _ := without.get(t, "/agents"); res.StatusCode != http.StatusNotFound {
		t.Errorf("/agents without a finder: %d", res.StatusCode)
	}
	if _, home := without.get(t, "/"); strings.Contains(home, `href="/agents"`) {
		t.Error("the navigation links a page that does not exist")
	}
}
