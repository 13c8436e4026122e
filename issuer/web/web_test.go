package web_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"html"
	"io"
	"mime/multipart"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/remnant/passportkit/issuer"
	"github.com/remnant/passportkit/issuer/demoworld"
	"github.com/remnant/passportkit/issuer/store/storetest"
	"github.com/remnant/passportkit/issuer/web"
	"github.com/remnant/passportkit/passport"
	"github.com/remnant/passportkit/skilltrust"
)

// TestPages runs the page tests on the demo world on every engine.
func TestPages(t *testing.T) {
	t.Parallel()
	for _, engine := range storetest.Engines(t) {
		t.Run(string(engine), func(t *testing.T) {
			t.Parallel()
			s := newSite(t, engine)
			t.Run("headers", func(t *testing.T) { testHeaders(t, s) })
			t.Run("profile", func(t *testing.T) { testProfile(t, s) })
			t.Run("skill page", func(t *testing.T) { testSkillPage(t, s) })
			t.Run("not shown", func(t *testing.T) { testNotShown(t, s) })
			t.Run("escaping", func(t *testing.T) { testEscaping(t, s) })
			t.Run("compare", func(t *testing.T) { testCompare(t, s) })
			t.Run("verify", func(t *testing.T) { testVerify(t, s) })
			t.Run("api untouched", func(t *testing.T) { testAPIUntouched(t, s) })
			t.Run("find", func(t *testing.T) { testFind(t, s) })
			t.Run("query strings", func(t *testing.T) { testQueryStrings(t, s) })
		})
	}
}

func testHeaders(t *testing.T, s *site) {
	// Assets are addressed by version: cached for good under it,
	// revalidated under any other address.
	_, home := s.get(t, "/")
	css := regexp.MustCompile(`href="(/assets/style\.css\?v=[0-9a-f]{16})"`).FindStringSubmatch(home)
	if css == nil {
		t.Fatal("the stylesheet is not addressed by its version")
	}
	if res, _ := s.get(t, css[1]); res.Header.Get("Cache-Control") != "public, max-age=31536000, immutable" {
		t.Errorf("the versioned stylesheet: Cache-Control %q", res.Header.Get("Cache-Control"))
	}
	if res, _ := s.get(t, "/assets/style.css"); res.Header.Get("Cache-Control") != "no-cache" {
		t.Errorf("the stylesheet without a version: Cache-Control %q", res.Header.Get("Cache-Control"))
	}

	for _, path := range []string{"/", "/agents/" + string(s.main), "/trust/assess", "/verify", "/agents/agt_nobody", "/assets/style.css", "/assets/web.js"} {
		res, body := s.get(t, path)
		h := res.Header
		for k, want := range map[string]string{
			"Content-Security-Policy": web.ContentSecurityPolicy,
			"X-Content-Type-Options":  "nosniff",
			"Referrer-Policy":         "no-referrer",
			"X-Frame-Options":         "DENY",
		} {
			if got := h.Get(k); got != want {
				t.Errorf("%s: %s is %q, want %q", path, k, got, want)
			}
		}
		if !strings.Contains(web.ContentSecurityPolicy, "frame-ancestors 'none'") || strings.Contains(web.ContentSecurityPolicy, "unsafe-inline") {
			t.Fatalf("the policy allows framing or inline code: %s", web.ContentSecurityPolicy)
		}
		if h.Get("Set-Cookie") != "" {
			t.Errorf("%s sets a cookie", path)
		}
		if strings.HasPrefix(path, "/assets/") {
			continue
		}
		if ct := h.Get("Content-Type"); ct != "text/html; charset=utf-8" {
			t.Errorf("%s: Content-Type %q", path, ct)
		}
		// No inline script or style, and nothing from another host.
		for _, bad := range []*regexp.Regexp{regexp.MustCompile(`<script>|<script [^>]*>[^<]`), regexp.MustCompile(`<style|style=`),
			regexp.MustCompile(`(src|href)="(https?:)?//`), regexp.MustCompile(`\son[a-z]+=`)} {
			if m := bad.FindString(body); m != "" {
				t.Errorf("%s holds %q", path, m)
			}
		}
	}
}

// skillAPI is the trust API's route of the agent's skill: trust or
// evidence, with a raw query.
func skillAPI(id issuer.AgentID, skill, route, query string) string {
	p := "/api/public/agents/" + string(id) + "/skills/" + url.PathEscape(skill) + "/" + route
	if query != "" {
		p += "?" + query
	}
	return p
}

// api reads the JSON answer of an API route into v.
func (s *site) api(t *testing.T, path string, v any) {
	t.Helper()
	res, body := s.get(t, path)
	if res.StatusCode != http.StatusOK {
		t.Fatalf("%s: %d %s", path, res.StatusCode, body)
	}
	if err := json.Unmarshal([]byte(body), v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}

// post posts a JSON body to an API route and reads its answer into v.
func (s *site) post(t *testing.T, path string, body []byte, v any) {
	t.Helper()
	res, err := http.Post(s.URL+path, "application/json", bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	if res.StatusCode != http.StatusOK {
		t.Fatalf("%s: %d", path, res.StatusCode)
	}
	if err := json.NewDecoder(res.Body).Decode(v); err != nil {
		t.Fatal(err)
	}
}

// whyOf returns the explanation of a skill in the profile's table.
func whyOf(t *testing.T, body, skill string) string {
	t.Helper()
	start := strings.Index(body, `data-skill="`+html.EscapeString(skill)+`"`)
	if start < 0 {
		t.Fatalf("no row for %q", skill)
	}
	end := strings.Index(body[start:], `</details>`)
	return body[start : start+end]
}

// skillRow returns the text of a skill's row in the profile's table.
func skillRow(t *testing.T, body, skill string) string {
	t.Helper()
	start := strings.Index(body, `data-skill="`+html.EscapeString(skill)+`"`)
	if start < 0 {
		t.Fatalf("no row for %q", skill)
	}
	end := strings.Index(body[start:], `class="why-row"`)
	return body[start : start+end]
}

func testProfile(t *testing.T, s *site) {
	res, body := s.get(t, "/agents/"+string(s.main))
	if res.StatusCode != http.StatusOK {
		t.Fatalf("profile: %d", res.StatusCode)
	}
	for skill, want := range map[string][]string{
		demoworld.SkillEstimated: {">Supported<", "(interval ", ">moderate<"},
		demoworld.SkillThin:      {">Insufficient evidence<", web.NotEnoughEvidence},
		demoworld.SkillContested: {">Contested<", web.NotEnoughEvidence, `class="flag contested"`},
		demoworld.SkillStale:     {">Stale<", web.NotEnoughEvidence, `class="flag stale"`},
		"kubernetes operators":   {">New: no observations<", web.NotEnoughEvidence},
	} {
		row := skillRow(t, body, skill)
		for _, w := range want {
			if !strings.Contains(row, w) {
				t.Errorf("%s: the row lacks %q:\n%s", skill, w, row)
			}
		}
	}
	// The contested skill's unresolved contradictions are counted.
	if row := skillRow(t, body, demoworld.SkillContested); !regexp.MustCompile(`data-label="Unresolved contradictions" class="num">[1-9]`).MatchString(row) {
		t.Errorf("the contested skill shows no unresolved contradiction:\n%s", row)
	}
	// The skill table comes first, the historical figures after it.
	if i, j := strings.Index(body, `id="skills-h"`), strings.Index(body, `id="history-h"`); i < 0 || j < i {
		t.Errorf("the skill table is not first (%d, %d)", i, j)
	}
	// Every skill explains itself as the trust service does: its why, and
	// its first sources, each linked to its record's page.
	if n := strings.Count(body, "Why this assessment?"); n != 5 {
		t.Errorf("%d explanations, want 5", n)
	}
	plain := html.UnescapeString(body)
	for _, w := range []string{"Partial and uncertain outcomes are shown but do not enter the estimate.",
		"It is an outcome, not evidence of dishonesty.", "unresolved", "observed reuse",
		"An estimate needs 5 effective success or failure outcomes; there are 0.8.", "Caps that applied", "One evidence lineage may count at most"} {
		if !strings.Contains(plain, w) {
			t.Errorf("the explanations lack %q", w)
		}
	}
	for _, skill := range []string{demoworld.SkillEstimated, demoworld.SkillThin, demoworld.SkillContested, demoworld.SkillStale, "kubernetes operators"} {
		why := whyOf(t, body, skill)
		var st issuer.SkillTrust
		s.api(t, skillAPI(s.main, skill, "trust", ""), &st)
		texts := []string{st.Why.Summary, st.Why.State.Text, st.Why.EvidenceLevel.Text, st.Why.Estimate, st.Why.Sources, st.Why.Context}
		for _, rs := range [][]skilltrust.Reason{st.Why.Limitations, st.Why.HeldBackBy, st.Why.Caps} {
			for _, r := range rs {
				texts = append(texts, r.Text)
			}
		}
		for _, w := range texts {
			if !strings.Contains(why, html.EscapeString(w)) {
				t.Errorf("%s: the explanation lacks the trust service's %q", skill, w)
			}
		}
		var ev issuer.EvidencePage
		s.api(t, skillAPI(s.main, skill, "evidence", "limit=10"), &ev)
		if got := regexp.MustCompile(`<a href="([^"]*)" title="This record`).FindAllStringSubmatch(why, -1); len(got) != len(ev.Sources) {
			t.Errorf("%s: %d sources shown, the evidence route's first page has %d", skill, len(got), len(ev.Sources))
		} else {
			for i, m := range got {
				if want := recordPage(s.main, ev.Sources[i].Evidence, ev.PassportHash); html.UnescapeString(m[1]) != want {
					t.Errorf("%s: source %d links %s, want its record's page %s", skill, i, m[1], want)
				}
			}
		}
		more := strings.Contains(why, `href="/agents/`+string(s.main)+`/skills/`+url.PathEscape(skill)+`"`)
		if more != (ev.SourceCount > len(ev.Sources)) {
			t.Errorf("%s: a link to every source is %v with %d of %d sources shown", skill, more, len(ev.Sources), ev.SourceCount)
		}
	}
	if res, _ := s.get(t, "/agents/"+string(s.main)+"/skills/"+url.PathEscape(demoworld.SkillEstimated)); res.StatusCode != http.StatusOK {
		t.Errorf("the skill's page answers %d", res.StatusCode)
	}
	// The downloads, and the offline command.
	for _, w := range []string{`href="/api/public/agents/` + string(s.main) + `/passport"`, `href="/.well-known/passport-trust.json"`,
		"passport verify --trust passport-trust.json --subject " + string(s.main)} {
		if !strings.Contains(body, w) {
			t.Errorf("the profile lacks %q", w)
		}
	}
	// The figures are those of the passport the download serves.
	is, err := s.passports.Issue(context.Background(), s.main, "previews")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(body, is.PassportHash) {
		t.Error("the profile does not name the served passport's hash")
	}
	if res, _ := s.get(t, "/api/public/agents/"+string(s.main)+"/passport/evidence?passportHash="+is.PassportHash); res.StatusCode != http.StatusOK {
		t.Errorf("the evidence link answers %d", res.StatusCode)
	}
	// No stars, percentages or ranks in the text (addresses may hold
	// percent-encoding).
	plain = html.UnescapeString(regexp.MustCompile(`<[^>]*>`).ReplaceAllString(body, ""))
	for _, bad := range []string{"★", "☆", "%", "rank"} {
		if strings.Contains(plain, bad) {
			t.Errorf("the profile shows %q", bad)
		}
	}

	// The same-owner ring gets no lift from its own praise.
	_, body = s.get(t, "/agents/"+string(s.ring0))
	row := skillRow(t, body, demoworld.SkillRing)
	if !strings.Contains(row, web.NotEnoughEvidence) || strings.Contains(row, "(interval") {
		t.Errorf("ring member: %s", row)
	}
	// The declarer has declarations only: every skill is new.
	_, body = s.get(t, "/agents/"+string(s.declarer))
	if n := strings.Count(body, ">New: no observations<"); n != 3 {
		t.Errorf("declarer: %d new skills, want 3", n)
	}
}

func testNotShown(t *testing.T, s *site) {
	_, want := s.get(t, "/agents/agt_aaaaaaaaaaaaaaaaaaaaaaaaaa")
	paths := []string{"/agents/not-an-id", "/agents/agt_" + strings.Repeat("z", 26), "/?agent=nonsense"}
	for _, id := range s.hidden {
		paths = append(paths, "/agents/"+string(id))
	}
	for _, p := range paths {
		res, body := s.get(t, p)
		if res.StatusCode != http.StatusNotFound || body != want {
			t.Errorf("%s: %d, and the page differs from an unknown agent's: %v", p, res.StatusCode, body != want)
		}
	}
	if !strings.Contains(want, "There is no public agent at this address") {
		t.Errorf("the 404 page says: %s", want)
	}
	// A hidden agent cannot be compared either, refused as the API refuses
	// it, in the words it uses for an unknown one.
	for kind, id := range s.hidden {
		detail := sameRefusal(t, s, url.Values{"agent": {string(s.main), string(id)}, "skill": {"SQLite"}}, http.StatusNotFound)
		if detail != "agent "+string(id)+" not found" {
			t.Errorf("compare with a %s agent: %q", kind, detail)
		}
	}
	// The start page lists no hidden agent; a record's page of one is the
	// one 404 page, whatever the hash.
	if _, home := s.get(t, "/"); !strings.Contains(home, `data-id="`+string(s.main)+`"`) {
		t.Error("the start page does not list the main agent")
	} else {
		for kind, id := range s.hidden {
			if strings.Contains(home, string(id)) {
				t.Errorf("the start page shows the %s agent", kind)
			}
		}
	}
	for _, id := range s.hidden {
		if res, body := s.get(t, "/agents/"+string(id)+"/evidence/ev_x?passportHash="+strings.Repeat("0", 64)); res.StatusCode != http.StatusNotFound || body != want {
			t.Errorf("a record's page of %s: %d", id, res.StatusCode)
		}
	}
	// A record's page needs its passport's hash, and a record id.
	for path, status := range map[string]int{
		"/agents/" + string(s.main) + "/evidence/ev_x":                                         http.StatusBadRequest,
		"/agents/" + string(s.main) + "/evidence/ev_x?passportHash=a&passportHash=b":           http.StatusBadRequest,
		"/agents/" + string(s.main) + "/evidence/ev_x?hash=" + strings.Repeat("0", 64):         http.StatusBadRequest,
		"/agents/" + string(s.main) + "/evidence/nope?passportHash=" + strings.Repeat("0", 64): http.StatusNotFound,
		"/agents/" + string(s.main) + "/evidence/ev_x?passportHash=" + strings.Repeat("0", 64): http.StatusNotFound,
		"/agents/" + string(s.main) + "/evidence/ev_x?passportHash=" + strings.Repeat("Z", 64): http.StatusBadRequest,
	} {
		res, body := s.get(t, path)
		if res.StatusCode != status {
			t.Errorf("%s: %d, want %d", path, res.StatusCode, status)
		}
		if status == http.StatusNotFound && body == want {
			t.Errorf("%s: a missing record of a public agent is answered as if there were no agent", path)
		}
	}
	// A skill's page of a hidden agent is the one 404 page.
	for _, id := range s.hidden {
		if res, body := s.get(t, "/agents/"+string(id)+"/skills/sqlite"); res.StatusCode != http.StatusNotFound || body != want {
			t.Errorf("the skill page of %s: %d", id, res.StatusCode)
		}
	}
}

// sameRefusal asks the comparison page for q and the API for the same
// comparison, and checks that both refuse it with status and one detail,
// which it returns.
func sameRefusal(t *testing.T, s *site, q url.Values, status int) string {
	t.Helper()
	nonBlank := func(vs []string) []string {
		out := []string{}
		for _, v := range vs {
			if strings.TrimSpace(v) != "" {
				out = append(out, strings.TrimSpace(v))
			}
		}
		return out
	}
	body := map[string]any{"agents": nonBlank(q["agent"]), "skills": nonBlank(q["skill"])}
	c := map[string]string{}
	for k, v := range q {
		if k != "agent" && k != "skill" && len(v) > 0 {
			c[k] = v[0]
		}
	}
	if len(c) > 0 {
		body["context"] = c
	}
	b, _ := json.Marshal(body)
	res, err := http.Post(s.URL+"/api/public/trust/assess", "application/json", bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var p struct {
		Detail string `json:"detail"`
		Code   string `json:"code"`
	}
	if err := json.NewDecoder(res.Body).Decode(&p); err != nil || res.StatusCode != status || p.Code == "" {
		t.Errorf("the API answers %s with %d and code %q (%v), want %d", b, res.StatusCode, p.Code, err, status)
	}
	page, html0 := s.get(t, "/trust/assess?"+q.Encode())
	want := `<div class="error" role="alert"><h2>Nothing to compare</h2><p>` + html.EscapeString(p.Detail) + `</p>` +
		fmt.Sprintf(`<p>Status %d, reason <code>%s</code>.</p>`, status, p.Code)
	if page.StatusCode != status || !strings.Contains(html0, want) {
		t.Errorf("the page answers %s with %d and not the API's %q (%s)", q.Encode(), page.StatusCode, p.Detail, p.Code)
	}
	return p.Detail
}

func testEscaping(t *testing.T, s *site) {
	_, body := s.get(t, "/agents/"+string(s.odd))
	if !strings.Contains(body, html.EscapeString(oddName)) {
		t.Errorf("the name is not shown escaped")
	}
	if strings.Contains(body, "<img") || strings.Contains(body, `"Jerry"`) {
		t.Errorf("untrusted text is not escaped")
	}
	if !strings.Contains(body, "&lt;img src=x onerror=alert(1)&gt;") {
		t.Errorf("the odd skill is not shown")
	}
}

func testCompare(t *testing.T, s *site) {
	q := url.Values{"agent": {string(s.declarer), "", " " + string(s.main)}, "skill": {"postgres indexing", "MCP server development"},
		"workload": {"OLTP"}, "environment": {""}}
	res, body := s.get(t, "/trust/assess?"+q.Encode())
	if res.StatusCode != http.StatusOK {
		t.Fatalf("compare: %d", res.StatusCode)
	}
	// Agents in input order; skills normalised, in order.
	d, m := strings.Index(body, `<code>`+string(s.declarer)+`</code></th>`), strings.Index(body, `<code>`+string(s.main)+`</code></th>`)
	if d < 0 || m < d {
		t.Errorf("agents out of input order (%d, %d)", d, m)
	}
	if i, j := strings.Index(body, ">PostgreSQL indexing "), strings.Index(body, ">MCP server development<"); i < 0 || j < i {
		t.Errorf("skills out of input order (%d, %d)", i, j)
	}
	if !strings.Contains(body, "Workload <q>oltp</q>") {
		t.Error("the task context is not stated")
	}
	// The form keeps what was asked.
	if !strings.Contains(body, `value="postgres indexing"`) || !strings.Contains(body, `value="OLTP"`) {
		t.Error("the form lost its values")
	}
	// Each cell is the API's, and leads to the skill's page in the context.
	var api issuer.TrustComparison
	b, _ := json.Marshal(map[string]any{"agents": []issuer.AgentID{s.declarer, s.main}, "skills": q["skill"], "context": map[string]string{"workload": "OLTP"}})
	s.post(t, "/api/public/trust/assess", b, &api)
	for _, a := range api.Agents {
		for _, c := range a.Skills {
			link := `href="` + html.EscapeString(strings.Replace(c.Links.Trust, "/api/public/agents/", "/agents/", 1)) + `"`
			link = strings.Replace(link, "/trust?", "?", 1)
			if !strings.Contains(body, link) {
				t.Errorf("%s × %s: no link %s", a.Agent, c.Skill, link)
			}
		}
	}
	if cells := regexp.MustCompile(`<td class="assessment">([^<]*)</td>`).FindAllStringSubmatch(body, -1); len(cells) != 4 ||
		cells[0][1] != "New: no observations" || cells[1][1] != web.AssessmentWords(api.Agents[1].Skills[0].Assessment) {
		t.Errorf("cells %v, the API %+v", cells, api.Agents)
	}

	// Refusals are the API's, in its order.
	main := string(s.main)
	for _, c := range []struct {
		q      url.Values
		status int
	}{
		{url.Values{"agent": {main, main}, "skill": {"SQLite"}}, 400},
		{url.Values{"agent": {main}, "skill": {"postgres indexing", "PostgreSQL Indexing"}}, 400},
		{url.Values{"agent": {main}}, 400},
		{url.Values{"skill": {"SQLite"}}, 400},
		{url.Values{"agent": {"nope"}, "skill": {"SQLite"}}, 400},
		{url.Values{"agent": {"a", "b", "c", "d", "e", "f"}, "skill": {"x"}}, 400},
		{url.Values{"agent": {main}, "skill": {"x", "y", "z", "u", "v", "w"}}, 400},
		{url.Values{"agent": {main}, "skill": {strings.Repeat("x", 201)}}, 400},
		{url.Values{"agent": {main}, "skill": {"SQLite"}, "version": {strings.Repeat("1", 201)}}, 400},
		{url.Values{"agent": {"agt_aaaaaaaaaaaaaaaaaaaaaaaaaa"}, "skill": {"SQLite"}}, 404},
	} {
		sameRefusal(t, s, c.q, c.status)
	}
	// What only a query can hold.
	for _, c := range []struct {
		query  string
		status int
		text   string
	}{
		{"", 200, ""},
		{"colour=red", 400, "unknown field"},
		{"agent=" + main + "&skill=SQLite&version=1&version=2", 400, "more than once"},
		{strings.Repeat("skill=x&", 11), 400, "at most 10"},
	} {
		res, body := s.get(t, "/trust/assess?"+c.query)
		if res.StatusCode != c.status || !strings.Contains(body, c.text) {
			t.Errorf("%q: %d, want %d with %q", c.query, res.StatusCode, c.status, c.text)
		}
	}
}

// postVerify sends the verification form: fields in order, each a
// [name, value] or, for a file, [name, value, file name].
func postVerify(t *testing.T, s *site, fields ...[]string) (*http.Response, string) {
	t.Helper()
	var buf bytes.Buffer
	mw := multipart.NewWriter(&buf)
	for _, f := range fields {
		var w io.Writer
		var err error
		if len(f) == 3 {
			w, err = mw.CreateFormFile(f[0], f[2])
		} else {
			w, err = mw.CreateFormField(f[0])
		}
		if err != nil {
			t.Fatal(err)
		}
		io.WriteString(w, f[1])
	}
	mw.Close()
	res, err := http.Post(s.URL+"/verify", mw.FormDataContentType(), &buf)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return res, string(b)
}

func testVerify(t *testing.T, s *site) {
	good := string(s.bundle(t, s.main))
	bad := string(tamper(t, []byte(good)))
	for _, c := range []struct {
		name   string
		fields [][]string
		status int
		want   []string
		absent []string
	}{
		{"file, subject", [][]string{{"bundle", "", ""}, {"bundle", good, "p.json"}, {"subject", string(s.main)}}, 200,
			[]string{">Verified<", `class="status">passed</td>`}, []string{"failed"}},
		{"paste with white space, any subject", [][]string{{"bundle", "\r\n " + good + "\r\n"}, {"anySubject", "yes"}}, 200,
			[]string{">Verified<", "not required"}, nil},
		{"tampered", [][]string{{"bundle", bad}, {"subject", string(s.main)}}, 200,
			[]string{"Not verified: <code>snapshot_mismatch</code>", `class="status">failed</td>`, "not reached"},
			[]string{"passportHash</dt>", "reputationScore", string(s.main) + "</code></a>"}},
		{"file byte for byte", [][]string{{"bundle", good + "\n", "p.json"}, {"subject", string(s.main)}}, 200,
			[]string{"<code>json_trailing_data</code>"}, nil},
		{"another subject", [][]string{{"bundle", good}, {"subject", string(s.declarer)}}, 200,
			[]string{"<code>subject_mismatch</code>"}, nil},
		{"too large", [][]string{{"bundle", strings.Repeat(" ", 10) + "{" + strings.Repeat("x", passport.MaxBundleSize) + "}", "big.json"}, {"anySubject", "yes"}}, 200,
			[]string{"<code>bundle_too_large</code>"}, nil},
		{"no subject choice", [][]string{{"bundle", good}}, 400, []string{"say whose passport you expect"}, []string{"<table class=\"checks\""}},
		{"both subject choices", [][]string{{"bundle", good}, {"subject", string(s.main)}, {"anySubject", "yes"}}, 400, []string{"not both"}, nil},
		{"two bundles", [][]string{{"bundle", good}, {"bundle", good, "p.json"}, {"anySubject", "yes"}}, 400, []string{"not both"}, nil},
		{"no bundle", [][]string{{"bundle", "  "}, {"anySubject", "yes"}}, 400, []string{"paste a bundle or choose a file"}, nil},
		{"unknown field", [][]string{{"bundle", good}, {"anySubject", "yes"}, {"at", "2020-01-01T00:00:00Z"}}, 400, []string{"unknown form field"}, nil},
	} {
		res, body := postVerify(t, s, c.fields...)
		if res.StatusCode != c.status {
			t.Errorf("%s: status %d, want %d", c.name, res.StatusCode, c.status)
		}
		if res.Header.Get("Cache-Control") != "no-store" {
			t.Errorf("%s: Cache-Control %q", c.name, res.Header.Get("Cache-Control"))
		}
		for _, w := range c.want {
			if !strings.Contains(body, w) {
				t.Errorf("%s: the page lacks %q", c.name, w)
			}
		}
		for _, a := range c.absent {
			if strings.Contains(body, a) {
				t.Errorf("%s: the page shows %q", c.name, a)
			}
		}
		// The bundle is never shown back.
		if strings.Contains(body, good[:60]) {
			t.Errorf("%s: the page echoes the bundle", c.name)
		}
	}
	// A form over its bound, and a form that is not multipart.
	res, body := postVerify(t, s, []string{"bundle", strings.Repeat("x", web.MaxVerifyForm+1), "big.json"}, []string{"anySubject", "yes"})
	if res.StatusCode != http.StatusRequestEntityTooLarge || !strings.Contains(body, "exceeds") {
		t.Errorf("an oversized form: %d", res.StatusCode)
	}
	r, err := http.Post(s.URL+"/verify", "application/x-www-form-urlencoded", strings.NewReader("bundle=x&anySubject=yes"))
	if err != nil {
		t.Fatal(err)
	}
	r.Body.Close()
	if r.StatusCode != http.StatusUnsupportedMediaType {
		t.Errorf("a url-encoded form: %d", r.StatusCode)
	}
}

// testAPIUntouched: paths the pages do not claim keep the API's problem
// details.
func testAPIUntouched(t *testing.T, s *site) {
	for _, p := range []string{"/nope", "/api/nope", "/agents/x/y"} {
		res, _ := s.get(t, p)
		if res.StatusCode != http.StatusNotFound || res.Header.Get("Content-Type") != "application/problem+json" {
			t.Errorf("%s: %d %s", p, res.StatusCode, res.Header.Get("Content-Type"))
		}
	}
	req, _ := http.NewRequest(http.MethodPut, s.URL+"/verify", nil)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusMethodNotAllowed {
		t.Errorf("PUT /verify: %d", res.StatusCode)
	}
	if res, _ := s.get(t, "/?agent="+string(s.main)); res.Request.URL.Path != "/agents/"+string(s.main) {
		t.Errorf("the start page's form leads to %s", res.Request.URL)
	}
}
