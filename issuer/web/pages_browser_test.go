package web_test

import (
	"context"
	"fmt"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"

	"github.com/remnant/passportkit/issuer"
	"github.com/remnant/passportkit/issuer/demoworld"
	"github.com/remnant/passportkit/issuer/service"
	"github.com/remnant/passportkit/issuer/store/storetest"
	"github.com/remnant/passportkit/passport"
)

// listedOnHome follows the start page's listing page by page and returns
// the agent ids it lists, in order, and the latest evidence day it shows
// for each.
func listedOnHome(t *testing.T, ctx context.Context, s *site) (ids []string, latest map[string]string) {
	t.Helper()
	latest = map[string]string{}
	if err := chromedp.Do(ctx, chromedp.Navigate(s.URL+"/")); err != nil {
		t.Fatal(err)
	}
	for range 50 {
		page, err := chromedp.Run(ctx, chromedp.Evaluate[[][2]string](`[...document.querySelectorAll("ul.agents > li")].map(li => [li.dataset.id, li.dataset.latest])`))
		if err != nil {
			t.Fatal(err)
		}
		for _, a := range page {
			ids, latest[a[0]] = append(ids, a[0]), a[1]
		}
		n, err := chromedp.Run(ctx, chromedp.Evaluate[int](`document.querySelectorAll('nav.pager a[rel="next"]').length`))
		if err != nil {
			t.Fatal(err)
		}
		if n == 0 {
			return ids, latest
		}
		if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS(`nav.pager a[rel="next"]`)), chromedp.WaitVisible(chromedp.CSS("#agents-h"))); err != nil {
			t.Fatal(err)
		}
	}
	t.Fatal("the start page's listing does not end")
	return nil, nil
}

// latestEvidence is the latest recency.latestEligible of the skill
// passports of id's passport as the API serves it, "" when none has one.
func latestEvidence(t *testing.T, s *site, id string) string {
	t.Helper()
	b, err := passport.ParseBundleUnverified(s.bundle(t, issuer.AgentID(id)))
	if err != nil {
		t.Fatal(err)
	}
	_, p, err := b.SnapshotUnverified()
	if err != nil {
		t.Fatal(err)
	}
	day := ""
	for _, sp := range p.SkillPassports {
		if r := sp.Recency; r != nil && r.LatestEligible > day {
			day = r.LatestEligible
		}
	}
	return day
}

// browseHome: the start page lists every public agent, page by page, the
// most recently evidenced first (the latest day its passport's skill
// passports were evidenced, then by id, those with none last), the same
// agents as the registry's listing and no hidden one; a listed agent's
// link opens its profile.
func browseHome(t *testing.T, ctx context.Context, s *site, look bool, sh *shots) {
	console := watchConsole(t, ctx)
	// More agents than one page holds.
	c := context.Background()
	for i := range 25 {
		if _, err := storetest.Admin(s.db).CreateAgent(c, service.NewAgent{Name: fmt.Sprintf("Listed agent %02d", i)}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := s.discovery.Sync(c); err != nil {
		t.Fatal(err)
	}
	ids, latest := listedOnHome(t, ctx, s)
	var want []string
	for cursor := ""; ; {
		var page issuer.FindAgentsPage
		q := "limit=100"
		if cursor != "" {
			q += "&cursor=" + url.QueryEscape(cursor)
		}
		s.api(t, "/api/public/agents?"+q, &page)
		for _, a := range page.Results {
			want = append(want, string(a.ID))
		}
		if cursor = page.NextCursor; cursor == "" {
			break
		}
	}
	if len(ids) <= 20 || !slices.Equal(slices.Sorted(slices.Values(ids)), slices.Sorted(slices.Values(want))) {
		t.Errorf("the start page lists %d agents %v, the registry's listing %d %v", len(ids), ids, len(want), want)
	}
	evidenced := 0
	for _, id := range ids {
		if day := latestEvidence(t, s, id); latest[id] != day {
			t.Errorf("the start page shows %s's latest evidence as %q, its passport %q", id, latest[id], day)
		} else if day != "" {
			evidenced++
		}
	}
	order := slices.Clone(ids)
	slices.SortStableFunc(order, func(a, b string) int {
		switch da, db := latest[a], latest[b]; {
		case da != db && (da == "" || db == ""):
			return len(db) - len(da) // none last
		case da != db:
			return strings.Compare(db, da) // newest first
		}
		return strings.Compare(a, b)
	})
	if !slices.Equal(ids, order) || evidenced < 2 {
		t.Errorf("the start page's order is not the latest evidence first (%d evidenced):\n%v\nwant\n%v", evidenced, ids, order)
	}
	for kind, id := range s.hidden {
		if slices.Contains(ids, string(id)) {
			t.Errorf("the start page lists the %s agent %s", kind, id)
		}
	}
	if !slices.Contains(ids, string(s.main)) {
		t.Errorf("the start page does not list the main agent")
	}
	if err := chromedp.Do(ctx, chromedp.Navigate(s.URL+"/"), chromedp.Click(chromedp.CSS(`ul.agents > li[data-id="`+string(s.main)+`"] > a`)),
		chromedp.WaitVisible(chromedp.CSS("#agent-name"))); err != nil {
		t.Fatal(err)
	}
	if loc, err := chromedp.Run(ctx, chromedp.Location()); err != nil || loc != s.URL+"/agents/"+string(s.main) {
		t.Errorf("the listed agent leads to %s (%v)", loc, err)
	}
	if look {
		if err := chromedp.Do(ctx, chromedp.Navigate(s.URL+"/")); err != nil {
			t.Fatal(err)
		}
		checkAccessibility(t, ctx, "home, listed")
		sh.take(t, ctx, "home-listed")
		if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS(`nav.pager a[rel="next"]`)), chromedp.WaitVisible(chromedp.CSS("#agents-h"))); err != nil {
			t.Fatal(err)
		}
		checkAccessibility(t, ctx, "home, second page")
	}
	console.check(t, "home")
}

// counted is one skill of a profile as the browser shows it: the table's
// figures and its explanation's text.
type counted struct {
	Skill, Operators, Validators, Why, Figure string
}

const readCounted = `[...document.querySelectorAll("table.skills tbody.skill")].map(b => {
	const cell = l => b.querySelector('[data-label="' + l + '"]').textContent.trim();
	const fig = [...b.querySelectorAll(".why-body dl.figures > div")].find(d => d.querySelector("dt").textContent.startsWith("Independent operators"));
	return {Skill: b.dataset.skill, Operators: cell("Independent operators"), Validators: cell("Independent validators"),
		Why: b.querySelector(".why-body").textContent.replace(/\s+/g, " "), Figure: fig ? fig.querySelector("dd").textContent : ""};
})`

// browseCounts: on the profile of every listed agent, each count the table
// states for a skill is the count its explanation states for the same
// thing: the independent operators and validators, parsed from both.
func browseCounts(t *testing.T, ctx context.Context, s *site) {
	sentence := map[string]*regexp.Regexp{
		"operator":  regexp.MustCompile(`needs \d+ independent operators; there are (\d+)\.`),
		"validator": regexp.MustCompile(`needs \d+ independent validators; there are (\d+)\.`),
	}
	figure := map[string]*regexp.Regexp{
		"operator":  regexp.MustCompile(`^(\d+) operators?,`),
		"validator": regexp.MustCompile(`, (\d+) validators?,`),
	}
	checked, compared := 0, 0
	listed, _ := listedOnHome(t, ctx, s)
	for _, id := range listed {
		rows, err := chromedp.Run(ctx, func(ctx context.Context, tg *chromedp.Target) ([]counted, error) {
			if _, err := chromedp.Navigate(s.URL+"/agents/"+id)(ctx, tg); err != nil {
				return nil, err
			}
			return chromedp.Evaluate[[]counted](readCounted)(ctx, tg)
		})
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range rows {
			checked++
			table := map[string]string{"operator": r.Operators, "validator": r.Validators}
			for what, n := range table {
				m := figure[what].FindStringSubmatch(r.Figure)
				if m == nil {
					t.Fatalf("%s, %s: no %s count in the figure %q", id, r.Skill, what, r.Figure)
				}
				if m[1] != n {
					t.Errorf("%s, %s: the table states %s independent %ss, the explanation's figures %s", id, r.Skill, n, what, m[1])
				}
				for _, m := range sentence[what].FindAllStringSubmatch(r.Why, -1) {
					compared++
					if m[1] != n {
						t.Errorf("%s, %s: the table states %s independent %ss, the explanation %q", id, r.Skill, n, what, m[0])
					}
				}
			}
		}
	}
	if checked < 10 || compared == 0 {
		t.Errorf("%d skills checked, %d sentences compared: too few to mean anything", checked, compared)
	}
}

// source is a row of a skill's sources as the browser shows it.
type source struct {
	ID, Link, Kind, Outcome, Date, Context string
}

const readSources = `[...document.querySelectorAll("table.sources tbody tr")].map(r => ({
	ID: r.querySelector("th a code").textContent, Link: r.querySelector("th a").getAttribute("href"),
	Kind: r.querySelector("td.kind").textContent, Outcome: r.querySelector("td.outcome").textContent,
	Date: r.querySelector("td.date").textContent, Context: r.querySelector("td.context").textContent}))`

// browseSources: every source of a skill's page says its kind, outcome,
// date and context, and links to the record's own page, which says the
// same in HTML.
func browseSources(t *testing.T, ctx context.Context, s *site, look bool) {
	console := watchConsole(t, ctx)
	for _, skill := range []string{demoworld.SkillEstimated, demoworld.SkillContested} {
		rows, err := chromedp.Run(ctx, func(ctx context.Context, tg *chromedp.Target) ([]source, error) {
			if _, err := chromedp.Navigate(s.URL+"/agents/"+string(s.main)+"/skills/"+url.PathEscape(skill))(ctx, tg); err != nil {
				return nil, err
			}
			return chromedp.Evaluate[[]source](readSources)(ctx, tg)
		})
		if err != nil {
			t.Fatal(err)
		}
		if len(rows) == 0 {
			t.Fatalf("%s: no source", skill)
		}
		contexts := 0
		for _, r := range rows {
			if r.Kind == "" || r.Outcome == "" || r.Date == "" || r.Context == "" || r.Context == "unknown" {
				t.Errorf("%s: source %+v", skill, r)
			}
			if r.Context != "none stated" {
				contexts++
			}
			if !strings.HasPrefix(r.Link, "/agents/"+string(s.main)+"/evidence/"+r.ID+"?passportHash=") {
				t.Errorf("%s: source %s links %s", skill, r.ID, r.Link)
			}
		}
		if contexts == 0 && skill == demoworld.SkillEstimated {
			t.Errorf("%s: no source states a context", skill)
		}
		// The first source's page, through its link.
		first := rows[0]
		if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS(`table.sources tbody tr:first-child th a`)), chromedp.WaitVisible(chromedp.CSS("#record-h"))); err != nil {
			t.Fatal(err)
		}
		type shown struct{ Heading, Kind, Date, Context, Outcome, ContentType string }
		got, err := chromedp.Run(ctx, chromedp.Evaluate[shown](`({Heading: document.getElementById("record-h").textContent,
			Kind: document.querySelector("dd.kind").textContent, Date: document.querySelector("dd.date").textContent,
			Context: document.querySelector("dd.context").textContent, Outcome: document.querySelector("dd.outcome").textContent,
			ContentType: document.contentType})`))
		if err != nil {
			t.Fatal(err)
		}
		outcome := first.Outcome
		if outcome == "none" {
			outcome = "none: not an outcome"
		}
		if got.ContentType != "text/html" || !strings.Contains(got.Heading, first.ID) || got.Kind != first.Kind || got.Date != first.Date ||
			got.Context != first.Context || got.Outcome != outcome {
			t.Errorf("%s: the record's page shows %+v, its row %+v", skill, got, first)
		}
		if look && skill == demoworld.SkillContested {
			checkAccessibility(t, ctx, "record")
		}
	}
	console.check(t, "sources")
}

// timeline is a skill's chart as the browser shows it.
type timeline struct {
	SVG, Title, Desc, Caption string
	Marks, Rings, StaleLines  int
	Rows, Unresolved          int
	TableSources              int
}

const readTimeline = `(() => {
	const f = document.querySelector("figure.timeline"); if (!f) return {};
	const svg = f.querySelector("svg");
	const ids = (svg.getAttribute("aria-labelledby") || "").split(" ");
	const txt = id => { const e = document.getElementById(id); return e ? e.textContent : ""; };
	const sum = sel => [...document.querySelectorAll(sel)].reduce((a, c) => a + Number(c.textContent), 0);
	return {SVG: svg.getAttribute("role"), Title: txt(ids[0]), Desc: txt(ids[1]), Caption: f.querySelector("figcaption").textContent,
		Marks: svg.querySelectorAll("circle.mark").length, Rings: svg.querySelectorAll("circle.ring").length,
		StaleLines: svg.querySelectorAll(".stale-line").length,
		Rows: document.querySelectorAll("table.timeline-table tbody tr").length,
		Unresolved: sum("table.timeline-table tbody tr td:nth-of-type(4)"),
		TableSources: sum("table.timeline-table tbody tr td:nth-of-type(2)")};
})()`

// browseTimeline: a skill's page draws its sources over time, without
// script, with a text alternative that counts the same sources; the
// contested skill rings its unresolved contradictions, the stale one marks
// where evidence turns stale.
func browseTimeline(t *testing.T, ctx context.Context, s *site, look bool, sh *shots) {
	for _, skill := range []string{demoworld.SkillEstimated, demoworld.SkillContested, demoworld.SkillStale} {
		path := "/agents/" + string(s.main) + "/skills/" + url.PathEscape(skill)
		// Server-rendered: the chart is in the page as sent.
		if _, body := s.get(t, path); !strings.Contains(body, `<svg viewBox=`) {
			t.Errorf("%s: the page as sent has no chart", skill)
		}
		got, err := chromedp.Run(ctx, func(ctx context.Context, tg *chromedp.Target) (timeline, error) {
			if _, err := chromedp.Navigate(s.URL+path)(ctx, tg); err != nil {
				return timeline{}, err
			}
			return chromedp.Evaluate[timeline](readTimeline)(ctx, tg)
		})
		if err != nil {
			t.Fatal(err)
		}
		var ev issuer.EvidencePage
		s.api(t, skillAPI(s.main, skill, "evidence", ""), &ev)
		unresolved := 0
		for _, src := range ev.Sources {
			if src.Type == "contradiction" && src.Contradiction == "unresolved" {
				unresolved++
			}
		}
		if got.SVG != "img" || !strings.HasPrefix(got.Title, "Timeline of "+skill) || got.Desc == "" {
			t.Errorf("%s: the chart's role and text alternative: %+v", skill, got)
		}
		if got.Marks != len(ev.Sources) || got.TableSources != len(ev.Sources) || got.Rings != unresolved || got.Unresolved != unresolved {
			t.Errorf("%s: %d marks, %d sources in its table, %d rings, %d unresolved in its table; the evidence route: %d sources, %d unresolved",
				skill, got.Marks, got.TableSources, got.Rings, got.Unresolved, len(ev.Sources), unresolved)
		}
		switch skill {
		case demoworld.SkillContested:
			if unresolved == 0 || !strings.Contains(got.Caption, "Contested") {
				t.Errorf("%s: caption %q with %d unresolved", skill, got.Caption, unresolved)
			}
		case demoworld.SkillStale:
			if got.StaleLines != 1 || !strings.Contains(got.Caption, "Stale") {
				t.Errorf("%s: %d stale lines, caption %q", skill, got.StaleLines, got.Caption)
			}
		}
		if look && skill == demoworld.SkillContested {
			checkAccessibility(t, ctx, "skill with timeline")
			sh.take(t, ctx, "skill-timeline")
		}
	}
}

// browseCommand: the profile shows the verify command as text, and with
// script a button that copies it; the downloads are named by agent and
// day, the names the command uses; without script, the command is there
// and no button.
func browseCommand(t *testing.T, ctx context.Context, s *site) {
	console := watchConsole(t, ctx)
	type cmd struct {
		Command, Button, Said, PassportName string
	}
	// read waits, up to 3 s, for the button's word after a click.
	const read = `new Promise(done => {
		const t0 = Date.now();
		const f = () => {
			const b = document.querySelector(".copy button"), said = document.querySelector(".copy [role=status]");
			if (said && !said.textContent && Date.now() - t0 < 3000) { setTimeout(f, 50); return; }
			done({Command: document.querySelector("pre.command code").textContent, Button: b ? b.textContent : "",
				Said: said ? said.textContent : "", PassportName: document.querySelector("ul.downloads a[download]").getAttribute("download")});
		};
		f();
	})`
	got, err := chromedp.Run(ctx, func(ctx context.Context, tg *chromedp.Target) (cmd, error) {
		if _, err := chromedp.Steps(chromedp.Navigate(s.URL+"/agents/"+string(s.main)), chromedp.Click(chromedp.CSS(".copy button")))(ctx, tg); err != nil {
			return cmd{}, err
		}
		return chromedp.Evaluate[cmd](read, chromedp.EvalAwaitPromise)(ctx, tg)
	})
	if err != nil {
		t.Fatal(err)
	}
	name := string(s.main) + "-" + s.now.Format("2006-01-02") + ".passport.json"
	if got.PassportName != name || !strings.HasSuffix(got.Command, " "+name) || got.Button != "Copy the command" {
		t.Errorf("with script: %+v, want the download %s", got, name)
	}
	if got.Said != "Copied." && !strings.HasPrefix(got.Said, "Selected") {
		t.Errorf("the copy button says %q", got.Said)
	}
	if got.Said != "Copied." {
		sel, err := chromedp.Run(ctx, chromedp.Evaluate[string](`String(window.getSelection())`))
		if err != nil || sel != got.Command {
			t.Errorf("the copy button selected %q (%v)", sel, err)
		}
	}
	console.check(t, "command")
	if _, err := chromedp.Call(ctx, emulation.SetScriptExecutionDisabled, emulation.SetScriptExecutionDisabledParams{Value: true}); err != nil {
		t.Fatal(err)
	}
	// Evaluate runs even with the page's scripts off.
	noScript, err := chromedp.Run(ctx, func(ctx context.Context, tg *chromedp.Target) (cmd, error) {
		if _, err := chromedp.Navigate(s.URL+"/agents/"+string(s.main))(ctx, tg); err != nil {
			return cmd{}, err
		}
		return chromedp.Evaluate[cmd](read, chromedp.EvalAwaitPromise)(ctx, tg)
	})
	if _, err := chromedp.Call(ctx, emulation.SetScriptExecutionDisabled, emulation.SetScriptExecutionDisabledParams{Value: false}); err != nil {
		t.Fatal(err)
	}
	if err != nil {
		t.Fatal(err)
	}
	if noScript.Command != got.Command || noScript.Button != "" {
		t.Errorf("without script: %+v", noScript)
	}
}

// box is an element's box against the viewport.
type box struct {
	What         string
	Left, Right  float64
	Fits, Scroll bool
	Cue          bool
}

// readBoxes measures every table, and the caption of the verification's
// checks, in the viewport: a table either fits, or scrolls in a region
// that fits and says so above it.
const readBoxes = `(() => {
	const vw = document.documentElement.clientWidth, out = [];
	const fits = r => r.left >= -0.5 && r.right <= vw + 0.5;
	for (const t of document.querySelectorAll("table")) {
		const r = t.getBoundingClientRect(), region = t.closest(".scroll");
		const cue = region && region.previousElementSibling && region.previousElementSibling.classList.contains("scroll-cue") &&
			region.previousElementSibling.checkVisibility();
		out.push({What: "table." + t.className, Left: r.left, Right: r.right, Fits: fits(r),
			Scroll: !!region && fits(region.getBoundingClientRect()) && region.scrollWidth > region.clientWidth, Cue: !!cue});
	}
	for (const c of document.querySelectorAll("table.checks caption")) {
		const r = c.getBoundingClientRect();
		out.push({What: "caption of table." + c.parentElement.className, Left: r.left, Right: r.right,
			Fits: fits(r) && c.scrollWidth <= c.clientWidth + 1 && r.width > 0});
	}
	return out;
})()`

// browseNarrow: at 390 px no table runs off the screen: the skill table
// and the verification's checks become cards, every other table scrolls
// in its own region with a visible cue, and the checks' caption is whole.
func browseNarrow(t *testing.T, ctx context.Context, s *site) {
	if _, err := chromedp.Run(ctx, chromedp.EmulateViewport(390, 900)); err != nil {
		t.Fatal(err)
	}
	defer func() {
		if _, err := chromedp.Run(ctx, chromedp.EmulateViewport(1280, 900)); err != nil {
			t.Fatal(err)
		}
	}()
	measure := func(name string) {
		t.Helper()
		bs, err := chromedp.Run(ctx, chromedp.Evaluate[[]box](readBoxes))
		if err != nil {
			t.Fatal(err)
		}
		wide, err := chromedp.Run(ctx, chromedp.Evaluate[float64](`document.documentElement.scrollWidth`))
		if err != nil || wide > 390 {
			t.Errorf("%s: the page is %v px wide at 390 (%v)", name, wide, err)
		}
		for _, b := range bs {
			cards := strings.Contains(b.What, "skills") || strings.Contains(b.What, "checks")
			switch {
			case cards && !b.Fits:
				t.Errorf("%s: %s runs from %.0f to %.0f px at 390", name, b.What, b.Left, b.Right)
			case !cards && !b.Fits && !(b.Scroll && b.Cue):
				t.Errorf("%s: %s runs from %.0f to %.0f px at 390, and no region with a cue scrolls it (%+v)", name, b.What, b.Left, b.Right, b)
			}
		}
		checkAccessibility(t, ctx, name+" at 390 px")
	}
	for _, p := range []struct{ name, path string }{
		{"home", "/"},
		{"profile", "/agents/" + string(s.main)},
		{"skill", "/agents/" + string(s.main) + "/skills/" + url.PathEscape(demoworld.SkillContested)},
		{"compare", "/trust/assess?agent=" + string(s.declarer) + "&agent=" + string(s.main) + "&skill=" + url.QueryEscape(demoworld.SkillEstimated)},
		{"find", "/agents?skill=" + url.QueryEscape(demoworld.SkillEstimated)},
	} {
		if err := chromedp.Do(ctx, chromedp.Navigate(s.URL+p.path)); err != nil {
			t.Fatal(err)
		}
		if p.name == "profile" {
			// Every explanation open, its sources table shown.
			if _, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`document.querySelectorAll("details.why").forEach(d => d.open = true); true`)); err != nil {
				t.Fatal(err)
			}
		}
		measure(p.name)
	}
	// The verification's result, verified.
	good := s.bundle(t, s.main)
	if err := chromedp.Do(ctx, chromedp.Navigate(s.URL+"/verify"),
		chromedp.SetValue(chromedp.CSS("#bundle-text"), string(good)),
		chromedp.SendKeys(chromedp.CSS("#subject"), string(s.main)),
		chromedp.Click(chromedp.CSS(`form.verify button[type="submit"]`)),
		chromedp.WaitVisible(chromedp.CSS("#result-h"))); err != nil {
		t.Fatal(err)
	}
	caption, err := chromedp.Run(ctx, chromedp.Evaluate[string](`document.querySelector("table.checks caption").textContent`))
	if err != nil || !strings.HasPrefix(caption, "Checks, in order, as of ") {
		t.Errorf("the checks' caption: %q (%v)", caption, err)
	}
	measure("verify, verified")
}
