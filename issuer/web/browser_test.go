package web_test

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/remnant/passportkit/issuer/demoworld"
	"github.com/remnant/passportkit/issuer/store/storetest"
	"github.com/remnant/passportkit/issuer/web"
	"github.com/remnant/passportkit/verifier"
)

// The browser tests drive headless Chromium (Debian's package chromium)
// against the demo world served on loopback. Without Chromium they skip,
// saying so, unless CI is set, where they fail.
//
// The accessibility check is axe-core, the npm package, fetched at test
// time with `npm pack` (or read from $PASSPORT_AXE_TGZ, a tarball of the
// package) and pinned by its SHA-256 below; the tarball is kept in the
// user's cache directory between runs. It is not vendored.
//
// Screenshots of every page at phone (390 px) and desktop (1280 px) widths
// go to $PASSPORT_SCREENSHOTS, or to a temporary directory the test logs.

// chromiumPath is where Debian's package puts Chromium; $PASSPORT_CHROMIUM
// names another.
const chromiumPath = "/usr/bin/chromium"

// The pinned axe-core release.
const (
	axeVersion       = "4.14.1"
	axeTarballSHA256 = "e6b0ce02b84d892e2e33e403485e7f3d6c29e2be6df65daf44d89ba564139745"
)

// need stops the test when an outside tool is missing: a skip with one
// line, or a failure where storetest.EnvRequired is set.
func need(t *testing.T, format string, a ...any) {
	t.Helper()
	if storetest.Required() {
		t.Fatalf(format, a...)
	}
	t.Skipf(format, a...)
}

// browser starts a fresh headless Chromium for the test.
func browser(t *testing.T) context.Context {
	t.Helper()
	path := cmpOr(os.Getenv("PASSPORT_CHROMIUM"), chromiumPath)
	if _, err := os.Stat(path); err != nil {
		need(t, "the browser tests need Chromium, and there is none at %s (apt-get install chromium)", path)
	}
	actx, cancel := chromedp.NewExecAllocator(context.Background(),
		chromedp.ExecPath(path),
		chromedp.Flag("headless", true),
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.Flag("disable-quic", true),
		chromedp.NoFirstRun,
		chromedp.NoDefaultBrowserCheck,
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("disable-dev-shm-usage", true),
		chromedp.Flag("hide-scrollbars", true),
		chromedp.Flag("mute-audio", true),
		chromedp.UserDataDir(t.TempDir()),
	)
	t.Cleanup(cancel)
	ctx, cancelCtx := chromedp.NewContext(actx)
	t.Cleanup(cancelCtx)
	ctx, cancelT := context.WithTimeout(ctx, 8*time.Minute)
	t.Cleanup(cancelT)
	if err := chromedp.Do(ctx, chromedp.Navigate("about:blank")); err != nil {
		t.Fatalf("start Chromium: %v", err)
	}
	return ctx
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

var axeOnce struct {
	sync.Once
	src string
	err error
}

// axeScript returns axe.min.js of the pinned axe-core release.
func axeScript(t *testing.T) string {
	t.Helper()
	axeOnce.Do(func() { axeOnce.src, axeOnce.err = loadAxe() })
	if axeOnce.err != nil {
		need(t, "the accessibility check needs axe-core %s, which is not available: %v", axeVersion, axeOnce.err)
	}
	return axeOnce.src
}

func loadAxe() (string, error) {
	tgz, err := axeTarball()
	if err != nil {
		return "", err
	}
	zr, err := gzip.NewReader(bytes.NewReader(tgz))
	if err != nil {
		return "", err
	}
	tr := tar.NewReader(zr)
	for {
		h, err := tr.Next()
		if err != nil {
			return "", fmt.Errorf("no package/axe.min.js in the tarball: %w", err)
		}
		if h.Name == "package/axe.min.js" {
			b, err := io.ReadAll(io.LimitReader(tr, 8<<20))
			return string(b), err
		}
	}
}

// axeTarball reads the pinned tarball from $PASSPORT_AXE_TGZ, the cache, or
// npm, and checks its SHA-256.
func axeTarball() ([]byte, error) {
	check := func(b []byte) ([]byte, error) {
		sum := sha256.Sum256(b)
		if got := hex.EncodeToString(sum[:]); got != axeTarballSHA256 {
			return nil, fmt.Errorf("axe-core tarball has SHA-256 %s, want %s", got, axeTarballSHA256)
		}
		return b, nil
	}
	if p := os.Getenv("PASSPORT_AXE_TGZ"); p != "" {
		b, err := os.ReadFile(p)
		if err != nil {
			return nil, err
		}
		return check(b)
	}
	name := "axe-core-" + axeVersion + ".tgz"
	cache := ""
	if dir, err := os.UserCacheDir(); err == nil {
		cache = filepath.Join(dir, "passportkit", name)
		if b, err := os.ReadFile(cache); err == nil {
			if b, err := check(b); err == nil {
				return b, nil
			}
		}
	}
	tmp, err := os.MkdirTemp("", "axe")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "npm", "pack", "--silent", "--pack-destination", tmp, "axe-core@"+axeVersion)
	cmd.Dir = tmp
	if out, err := cmd.CombinedOutput(); err != nil {
		return nil, fmt.Errorf("npm pack: %v: %s", err, bytes.TrimSpace(out))
	}
	b, err := os.ReadFile(filepath.Join(tmp, name))
	if err != nil {
		return nil, err
	}
	if b, err = check(b); err != nil {
		return nil, err
	}
	if cache != "" && os.MkdirAll(filepath.Dir(cache), 0o755) == nil {
		_ = os.WriteFile(cache, b, 0o644)
	}
	return b, nil
}

// violation is one axe-core finding.
type violation struct {
	ID      string   `json:"id"`
	Impact  string   `json:"impact"`
	Help    string   `json:"help"`
	Targets []string `json:"targets"`
}

// checkAccessibility runs axe-core on the current page with every rule it
// has enabled, those of WCAG 2.x A, AA and AAA, best practices and the
// experimental ones alike, and fails on any violation, whatever its
// impact.
func checkAccessibility(t *testing.T, ctx context.Context, page string) {
	t.Helper()
	src := axeScript(t)
	if _, err := chromedp.Run(ctx, chromedp.Evaluate[bool](src+";true")); err != nil {
		t.Fatalf("%s: load axe-core: %v", page, err)
	}
	const run = `axe.run(document, {rules: Object.fromEntries(axe.getRules().map(r => [r.ruleId, {enabled: true}]))})
		.then(r => r.violations.map(v => ({id: v.id, impact: v.impact || "", help: v.help,
			targets: v.nodes.map(n => n.target.join(" ")).slice(0, 5)})))`
	vs, err := chromedp.Run(ctx, chromedp.Evaluate[[]violation](run, chromedp.EvalAwaitPromise))
	if err != nil {
		t.Fatalf("%s: run axe-core: %v", page, err)
	}
	for _, v := range vs {
		t.Errorf("%s: %s accessibility violation %s (%s) at %v", page, v.Impact, v.ID, v.Help, v.Targets)
	}
}

// shots takes the screenshots: each page state is drawn at 390 and 1280 px
// and measured; the images are written only where PASSPORT_SCREENSHOTS names
// a folder, so a test run leaves no files behind.
type shots struct {
	dir  string
	once sync.Once
}

func (s *shots) take(t *testing.T, ctx context.Context, name string) {
	t.Helper()
	s.once.Do(func() {
		s.dir = os.Getenv("PASSPORT_SCREENSHOTS")
		if s.dir == "" {
			return
		}
		if err := os.MkdirAll(s.dir, 0o755); err != nil {
			t.Fatal(err)
		}
		t.Logf("screenshots in %s", s.dir)
	})
	for _, width := range []int64{390, 1280} {
		var wide int64
		png, err := chromedp.Run(ctx, func(ctx context.Context, tg *chromedp.Target) ([]byte, error) {
			if _, err := chromedp.EmulateViewport(width, 900)(ctx, tg); err != nil {
				return nil, err
			}
			var err error
			if wide, err = chromedp.Evaluate[int64](`document.documentElement.scrollWidth`)(ctx, tg); err != nil {
				return nil, err
			}
			return chromedp.FullScreenshot(100)(ctx, tg)
		})
		if err != nil {
			t.Fatalf("screenshot %s: %v", name, err)
		}
		// Wide tables scroll in their own region; the page never does.
		if wide > width {
			t.Errorf("%s is %d px wide in a %d px window", name, wide, width)
		}
		if s.dir == "" {
			continue
		}
		if err := os.WriteFile(filepath.Join(s.dir, fmt.Sprintf("%s-%d.png", name, width)), png, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := chromedp.Run(ctx, chromedp.EmulateViewport(1280, 900)); err != nil {
		t.Fatal(err)
	}
}

// row is a skill row of a profile as the browser shows it.
type row struct {
	Skill, Assessment, Estimate, Flags, Unresolved string
}

const readRows = `[...document.querySelectorAll("table.skills tbody.skill")].map(b => {
	const cell = l => b.querySelector('[data-label="' + l + '"]').innerText.trim();
	return {Skill: cell("Skill"), Assessment: cell("Assessment"), Estimate: cell("Estimate"),
		Flags: cell("Flags"), Unresolved: cell("Unresolved contradictions")};
})`

// TestBrowser drives the pages in Chromium: the demo world's profiles,
// "Why this assessment?" by mouse and keyboard, the comparison form, the
// verification form with a real and a tampered bundle, the discovery page,
// an accessibility check of every page, and screenshots.
func TestBrowser(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: no browser")
	}
	ctx := browser(t)
	sh := &shots{}
	for i, engine := range storetest.Engines(t) {
		t.Run(string(engine), func(t *testing.T) {
			s := newSite(t, engine)
			t.Run("profile", func(t *testing.T) { browseProfile(t, ctx, s, i == 0, sh) })
			t.Run("skill", func(t *testing.T) { browseSkill(t, ctx, s, i == 0, sh) })
			t.Run("compare", func(t *testing.T) { browseCompare(t, ctx, s, i == 0, sh) })
			t.Run("verify", func(t *testing.T) { browseVerify(t, ctx, s, i == 0, sh) })
			t.Run("find", func(t *testing.T) { browseFind(t, ctx, s, i == 0, sh) })
			t.Run("sources", func(t *testing.T) { browseSources(t, ctx, s, i == 0) })
			t.Run("timeline", func(t *testing.T) { browseTimeline(t, ctx, s, i == 0, sh) })
			t.Run("command", func(t *testing.T) { browseCommand(t, ctx, s) })
			if i == 0 {
				t.Run("other pages", func(t *testing.T) { browseOthers(t, ctx, s, sh) })
				t.Run("narrow", func(t *testing.T) { browseNarrow(t, ctx, s) })
			}
			// Last: it adds agents to the world.
			t.Run("home", func(t *testing.T) { browseHome(t, ctx, s, i == 0, sh) })
			t.Run("counts", func(t *testing.T) { browseCounts(t, ctx, s) })
		})
	}
}

func browseProfile(t *testing.T, ctx context.Context, s *site, look bool, sh *shots) {
	console := watchConsole(t, ctx)
	rows, err := chromedp.Run(ctx, func(ctx context.Context, tg *chromedp.Target) ([]row, error) {
		if _, err := chromedp.Navigate(s.URL+"/agents/"+string(s.main))(ctx, tg); err != nil {
			return nil, err
		}
		return chromedp.Evaluate[[]row](readRows)(ctx, tg)
	})
	if err != nil {
		t.Fatal(err)
	}
	by := map[string]row{}
	for _, r := range rows {
		by[r.Skill] = r
	}
	for skill, want := range map[string]row{
		demoworld.SkillEstimated: {Assessment: "Supported", Flags: "none", Unresolved: "0"},
		demoworld.SkillThin:      {Assessment: "Insufficient evidence", Estimate: web.NotEnoughEvidence, Flags: "none"},
		demoworld.SkillContested: {Assessment: "Contested", Estimate: web.NotEnoughEvidence, Flags: "Contested"},
		demoworld.SkillStale:     {Assessment: "Stale", Estimate: web.NotEnoughEvidence, Flags: "Stale"},
		"kubernetes operators":   {Assessment: "New: no observations", Estimate: web.NotEnoughEvidence, Flags: "none"},
	} {
		got, ok := by[skill]
		switch {
		case !ok:
			t.Errorf("no row for %s in %v", skill, rows)
		case got.Assessment != want.Assessment || got.Flags != want.Flags:
			t.Errorf("%s: %+v, want %+v", skill, got, want)
		case want.Estimate != "" && got.Estimate != want.Estimate:
			t.Errorf("%s: estimate %q, want %q", skill, got.Estimate, want.Estimate)
		case want.Estimate == "" && !strings.Contains(got.Estimate, "(interval "):
			t.Errorf("%s: estimate %q, want an interval", skill, got.Estimate)
		}
	}
	if u := by[demoworld.SkillContested].Unresolved; u == "0" || u == "" {
		t.Errorf("the contested skill shows %q unresolved contradictions", u)
	}

	// "Why this assessment?" opens with the mouse, and with the keyboard.
	why := func(skill string) string {
		return fmt.Sprintf(`(() => { const b = [...document.querySelectorAll("tbody.skill")].find(b => b.dataset.skill === %q); return b.querySelector("details.why"); })()`, skill)
	}
	open := func(skill string) bool {
		v, err := chromedp.Run(ctx, chromedp.Evaluate[bool](why(skill)+".open"))
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	sourcesShown := func(skill string) int {
		v, err := chromedp.Run(ctx, chromedp.Evaluate[int](fmt.Sprintf(`[...%s.querySelectorAll("table.sources tbody tr")].filter(r => r.checkVisibility()).length`, why(skill))))
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	contested := `tbody.skill[data-skill="` + demoworld.SkillContested + `"] summary`
	if o, n := open(demoworld.SkillContested), sourcesShown(demoworld.SkillContested); o || n != 0 {
		t.Fatalf("an explanation is open before it is asked for (open %v, %d sources shown)", o, n)
	}
	if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS(contested))); err != nil {
		t.Fatal(err)
	}
	if !open(demoworld.SkillContested) || sourcesShown(demoworld.SkillContested) == 0 {
		t.Error("a click does not open the explanation and its sources")
	}
	text, err := chromedp.Run(ctx, chromedp.Evaluate[string](why(demoworld.SkillContested)+".innerText"))
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range []string{"unresolved", "contradiction", "Limitations", "What holds it back"} {
		if !strings.Contains(text, w) {
			t.Errorf("the contested skill's explanation lacks %q", w)
		}
	}
	estimated := `tbody.skill[data-skill="` + demoworld.SkillEstimated + `"] summary`
	if err := chromedp.Do(ctx, chromedp.Focus(chromedp.CSS(estimated)), chromedp.KeyEvent("\r")); err != nil {
		t.Fatal(err)
	}
	if !open(demoworld.SkillEstimated) || sourcesShown(demoworld.SkillEstimated) == 0 {
		t.Error("Enter on the focused summary does not open the explanation")
	}
	focused, err := chromedp.Run(ctx, chromedp.Evaluate[string](`document.activeElement.tagName + ":" + getComputedStyle(document.activeElement).outlineStyle`))
	if err != nil {
		t.Fatal(err)
	}
	if focused != "SUMMARY:solid" {
		t.Errorf("the focused summary shows %q, want a visible outline", focused)
	}
	if look {
		checkAccessibility(t, ctx, "profile")
		sh.take(t, ctx, "profile")
	}
	console.check(t, "profile")

	// The same-owner ring: no lift from its own praise.
	rows, err = chromedp.Run(ctx, func(ctx context.Context, tg *chromedp.Target) ([]row, error) {
		if _, err := chromedp.Navigate(s.URL+"/agents/"+string(s.ring0))(ctx, tg); err != nil {
			return nil, err
		}
		return chromedp.Evaluate[[]row](readRows)(ctx, tg)
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 1 || rows[0].Skill != demoworld.SkillRing || rows[0].Estimate != web.NotEnoughEvidence || rows[0].Assessment == "Supported" {
		t.Errorf("ring member: %+v", rows)
	}
}

// browseSkill follows a profile's link to every source of a skill, and
// pages through them.
func browseSkill(t *testing.T, ctx context.Context, s *site, look bool, sh *shots) {
	console := watchConsole(t, ctx)
	more := `tbody.skill[data-skill="` + demoworld.SkillEstimated + `"] .why-body p > a[href^="/agents/"]`
	rows := func() int {
		n, err := chromedp.Run(ctx, chromedp.Evaluate[int](`document.querySelectorAll("table.sources tbody tr").length`))
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	if err := chromedp.Do(ctx, chromedp.Navigate(s.URL+"/agents/"+string(s.main)),
		chromedp.Click(chromedp.CSS(`tbody.skill[data-skill="`+demoworld.SkillEstimated+`"] summary`)),
		chromedp.Click(chromedp.CSS(more)), chromedp.WaitVisible(chromedp.CSS("#skill-name"))); err != nil {
		t.Fatal(err)
	}
	h, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS("#skill-name")))
	if err != nil || h != demoworld.SkillEstimated {
		t.Fatalf("the skill's page is headed %q (%v)", h, err)
	}
	first := rows()
	if first == 0 {
		t.Fatal("the skill's page lists no source")
	}
	if look {
		checkAccessibility(t, ctx, "skill")
		sh.take(t, ctx, "skill")
	}
	if err := chromedp.Do(ctx, chromedp.Navigate(s.URL+"/agents/"+string(s.main)+"/skills/"+url.PathEscape(demoworld.SkillEstimated)+"?limit=5"),
		chromedp.Click(chromedp.CSS(`nav.pager a[rel="next"]`)), chromedp.WaitVisible(chromedp.CSS(`nav.pager a[rel="prev"]`))); err != nil {
		t.Fatal(err)
	}
	loc, err := chromedp.Run(ctx, chromedp.Location())
	if err != nil || !strings.HasSuffix(loc, "?limit=5&offset=5") || rows() != 5 {
		t.Errorf("the next page is %s with %d sources (%v)", loc, rows(), err)
	}
	console.check(t, "skill")
}

// consoleLog collects the errors a page logs: a script or style the
// Content-Security-Policy refused, an exception.
type consoleLog struct {
	mu     sync.Mutex
	errors []string
}

// watchConsole collects the console errors of ctx's page until the test
// ends.
func watchConsole(t *testing.T, ctx context.Context) *consoleLog {
	ctx, cancel := context.WithCancel(ctx)
	t.Cleanup(cancel)
	l := &consoleLog{}
	msgs := chromedp.Console(ctx)
	go func() {
		for m, err := range msgs {
			if err != nil {
				return
			}
			if m.IsException() || m.Type == "error" {
				l.mu.Lock()
				l.errors = append(l.errors, m.String())
				l.mu.Unlock()
			}
		}
	}()
	return l
}

// check fails on every error logged so far.
func (l *consoleLog) check(t *testing.T, page string) {
	t.Helper()
	time.Sleep(100 * time.Millisecond) // let the last events arrive
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, m := range l.errors {
		t.Errorf("%s: console error: %s", page, m)
	}
	l.errors = nil
}

func browseCompare(t *testing.T, ctx context.Context, s *site, look bool, sh *shots) {
	fill := chromedp.Steps(
		chromedp.Navigate(s.URL+"/trust/assess"),
		chromedp.SendKeys(chromedp.CSS("#agent-0"), string(s.declarer)),
		chromedp.SendKeys(chromedp.CSS("#agent-1"), string(s.main)),
		chromedp.SendKeys(chromedp.CSS("#skill-0"), "postgres indexing"),
		chromedp.SendKeys(chromedp.CSS("#skill-1"), demoworld.SkillContested),
		chromedp.SendKeys(chromedp.CSS("#ctx-environment"), "production"),
	)
	if err := chromedp.Do(ctx, fill, chromedp.Click(chromedp.CSS(`form.task button[type="submit"]`)),
		chromedp.WaitVisible(chromedp.CSS("section.results"))); err != nil {
		t.Fatal(err)
	}
	type table struct {
		Caption string
		Agents  []string
		Cells   []string
	}
	tables, err := chromedp.Run(ctx, chromedp.Evaluate[[]table](`[...document.querySelectorAll("table.compare")].map(t => ({
		Caption: t.caption.innerText.trim(),
		Agents: [...t.tHead.querySelectorAll("th code")].map(c => c.innerText),
		Cells: [...t.tBodies[0].rows[0].cells].slice(1).map(c => c.innerText.trim())}))`))
	if err != nil {
		t.Fatal(err)
	}
	if len(tables) != 2 || !strings.HasPrefix(tables[0].Caption, demoworld.SkillEstimated) || !strings.HasPrefix(tables[1].Caption, demoworld.SkillContested) {
		t.Fatalf("tables %+v", tables)
	}
	for _, tb := range tables {
		if fmt.Sprint(tb.Agents) != fmt.Sprint([]string{string(s.declarer), string(s.main)}) {
			t.Errorf("%s: agents %v, not in input order", tb.Caption, tb.Agents)
		}
	}
	if tables[0].Cells[0] != "New: no observations" || tables[1].Cells[1] != "Contested" {
		t.Errorf("cells %v / %v", tables[0].Cells, tables[1].Cells)
	}
	// The address holds the whole form: opening it again gives the same
	// page.
	loc, err := chromedp.Run(ctx, chromedp.Location())
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range []string{"agent=" + string(s.declarer), "skill=postgres+indexing", "environment=production"} {
		if !strings.Contains(loc, w) {
			t.Errorf("the address %s lacks %s", loc, w)
		}
	}
	again, err := chromedp.Run(ctx, func(ctx context.Context, tg *chromedp.Target) (string, error) {
		if _, err := chromedp.Navigate(loc)(ctx, tg); err != nil {
			return "", err
		}
		return chromedp.Value(chromedp.CSS("#skill-0"))(ctx, tg)
	})
	if err != nil || again != "postgres indexing" {
		t.Errorf("reopening the address: %q, %v", again, err)
	}
	if look {
		checkAccessibility(t, ctx, "compare")
		sh.take(t, ctx, "compare")
	}
}

func browseVerify(t *testing.T, ctx context.Context, s *site, look bool, sh *shots) {
	good := s.bundle(t, s.main)
	file := filepath.Join(t.TempDir(), "passport.json")
	if err := os.WriteFile(file, good, 0o644); err != nil {
		t.Fatal(err)
	}
	heading := func() string {
		h, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS("#result-h")))
		if err != nil {
			t.Fatal(err)
		}
		return h
	}
	// Upload the real bundle, expecting its subject.
	if err := chromedp.Do(ctx, chromedp.Navigate(s.URL+"/verify"),
		chromedp.SetUploadFiles(chromedp.CSS("#bundle-file"), []string{file}),
		chromedp.SendKeys(chromedp.CSS("#subject"), string(s.main)),
		chromedp.Click(chromedp.CSS(`form.verify button[type="submit"]`)),
		chromedp.WaitVisible(chromedp.CSS("#result-h"))); err != nil {
		t.Fatal(err)
	}
	if h := heading(); h != "Verified" {
		t.Errorf("the real bundle: %q", h)
	}
	statuses, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](`[...document.querySelectorAll("table.checks td.status")].map(c => c.innerText)`))
	if err != nil {
		t.Fatal(err)
	}
	// Every check passes but status: this issuer keeps no status lists.
	if n := len(verifier.CheckNames()); len(statuses) != n || strings.Join(statuses, ",") != strings.Repeat("passed,", n-1)+"not required" {
		t.Errorf("checks %v", statuses)
	}
	if look {
		checkAccessibility(t, ctx, "verify, verified")
		sh.take(t, ctx, "verify-verified")
	}
	// Paste a tampered copy, accepting any subject: the checkbox turns the
	// subject field off.
	if err := chromedp.Do(ctx, chromedp.Navigate(s.URL+"/verify"),
		chromedp.SetValue(chromedp.CSS("#bundle-text"), string(tamper(t, good))),
		chromedp.Click(chromedp.CSS("#any-subject"))); err != nil {
		t.Fatal(err)
	}
	disabled, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`document.getElementById("subject").disabled`))
	if err != nil || !disabled {
		t.Errorf("\"any subject\" leaves the subject field on (%v)", err)
	}
	if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS(`form.verify button[type="submit"]`)),
		chromedp.WaitVisible(chromedp.CSS("#result-h"))); err != nil {
		t.Fatal(err)
	}
	if h := heading(); h != "Not verified: snapshot_mismatch" {
		t.Errorf("the tampered bundle: %q", h)
	}
	body, err := chromedp.Run(ctx, chromedp.Evaluate[string](`document.body.innerText`))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(body, string(s.main)) || strings.Contains(body, "reputationScore") {
		t.Error("the page shows content of a bundle that failed")
	}
	if look {
		checkAccessibility(t, ctx, "verify, refused")
		sh.take(t, ctx, "verify-refused")
	}
}

func browseOthers(t *testing.T, ctx context.Context, s *site, sh *shots) {
	for _, p := range []struct{ name, path string }{
		{"home", "/"},
		{"not-found", "/agents/" + string(s.hidden["private"])},
		{"compare-empty", "/trust/assess"},
		{"find-empty", "/agents"},
		{"find-listing", "/agents?skill=&limit=5"},
		{"find-refused", "/agents?skill=x&limit=0"},
	} {
		if err := chromedp.Do(ctx, chromedp.Navigate(s.URL+p.path)); err != nil {
			t.Fatal(err)
		}
		checkAccessibility(t, ctx, p.name)
		sh.take(t, ctx, p.name)
	}
	// The skip link leads the keyboard to the content.
	active, err := chromedp.Run(ctx, func(ctx context.Context, tg *chromedp.Target) (string, error) {
		if _, err := chromedp.Steps(chromedp.Navigate(s.URL+"/"), chromedp.KeyEvent("\t"))(ctx, tg); err != nil {
			return "", err
		}
		return chromedp.Evaluate[string](`document.activeElement.className`)(ctx, tg)
	})
	if err != nil || active != "skip" {
		t.Errorf("the first Tab reaches %q, want the skip link (%v)", active, err)
	}
}

// result is a discovery result as the browser shows it.
type result struct {
	ID, Name, Assessment, State, Level, Estimate, Flags, Why string
}

const readResults = `[...document.querySelectorAll("ol.found > li")].map(li => {
	const dd = c => { const e = li.querySelector("dd." + c); return e ? e.innerText.trim() : ""; };
	return {ID: li.dataset.id, Name: li.querySelector("h3 a").innerText.trim(), Assessment: dd("assessment"), State: dd("state"),
		Level: dd("level"), Estimate: dd("estimate"), Flags: dd("flags"), Why: li.querySelector(".why-rank").innerText.trim()};
})`

// browseFind searches the demo world by skill through the form: the
// evidenced agent first, the ring without lift, declarations not shown as
// evidence, the contested flag; a result's profile; page by page; the form
// keeping its values.
func browseFind(t *testing.T, ctx context.Context, s *site, look bool, sh *shots) {
	console := watchConsole(t, ctx)
	results := func() []result {
		rs, err := chromedp.Run(ctx, chromedp.Evaluate[[]result](readResults))
		if err != nil {
			t.Fatal(err)
		}
		return rs
	}
	ids := func(rs []result) []string {
		out := []string{}
		for _, r := range rs {
			out = append(out, r.ID)
		}
		return out
	}
	open := func(path string) []result {
		if err := chromedp.Do(ctx, chromedp.Navigate(s.URL+path), chromedp.WaitVisible(chromedp.CSS("#found-h"))); err != nil {
			t.Fatal(err)
		}
		return results()
	}

	// The skill's alias, typed into the form: the evidenced agent first,
	// with its interval; the ring's agent after it, with none.
	if err := chromedp.Do(ctx, chromedp.Navigate(s.URL+"/agents"),
		chromedp.SendKeys(chromedp.CSS("#find-skill"), demoworld.SkillAlias),
		chromedp.Click(chromedp.CSS(`form.task button[type="submit"]`)),
		chromedp.WaitVisible(chromedp.CSS("#found-h"))); err != nil {
		t.Fatal(err)
	}
	rs := results()
	if len(rs) != 2 || rs[0].ID != string(s.main) || rs[1].ID != string(s.sibling) {
		t.Fatalf("%s: %+v, want the main agent, then the ring's", demoworld.SkillAlias, rs)
	}
	if m := rs[0]; m.Assessment != "Supported" || m.Level != "moderate" || !strings.Contains(m.Estimate, "(interval ") || m.Flags != "none" ||
		!strings.HasPrefix(m.Why, "Why this rank: MODERATE evidence from") {
		t.Errorf("the evidenced agent: %+v", m)
	}
	if r := rs[1]; r.Assessment == "Supported" || r.Level != "very low" || r.Estimate != web.NotEnoughEvidence {
		t.Errorf("the ring's agent: %+v", r)
	}
	if v, err := chromedp.Run(ctx, chromedp.Value(chromedp.CSS("#find-skill"))); err != nil || v != demoworld.SkillAlias {
		t.Errorf("the form holds %q after the search (%v)", v, err)
	}
	if look {
		checkAccessibility(t, ctx, "find")
		sh.take(t, ctx, "find")
	}
	// Following a result opens its profile.
	if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS(`ol.found > li[data-id="`+string(s.main)+`"] h3 a`)),
		chromedp.WaitVisible(chromedp.CSS("#agent-name"))); err != nil {
		t.Fatal(err)
	}
	if loc, err := chromedp.Run(ctx, chromedp.Location()); err != nil || loc != s.URL+"/agents/"+string(s.main) {
		t.Errorf("the result leads to %s (%v)", loc, err)
	}
	if h, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS("#agent-name"))); err != nil || h != rs[0].Name {
		t.Errorf("the profile is headed %q, the result named %q (%v)", h, rs[0].Name, err)
	}

	// The ring's own skill: its praise of itself lifted no member.
	ring := open("/agents?skill=" + url.QueryEscape(demoworld.SkillRing))
	if len(ring) != len(s.w.OfRole(demoworld.RoleRing)) {
		t.Fatalf("the ring's skill: %+v", ring)
	}
	for _, r := range ring {
		if r.Level != "very low" || r.Estimate != web.NotEnoughEvidence || r.Assessment == "Supported" || r.State == "evidenced" {
			t.Errorf("ring member %s: %+v", r.ID, r)
		}
	}
	// Declarations only: after the evidence, and not shown as evidence.
	thin := open("/agents?skill=" + url.QueryEscape(demoworld.SkillThin))
	if len(thin) != 2 || thin[0].ID != string(s.main) || thin[1].ID != string(s.declarer) {
		t.Fatalf("%s: %+v", demoworld.SkillThin, thin)
	}
	if d := thin[1]; d.Assessment != "New: no observations" || d.State != "new" || d.Level != "very low" || d.Estimate != web.NotEnoughEvidence {
		t.Errorf("the declarer: %+v", d)
	}
	// The contested skill says so; page by page, the same results.
	mcp := open("/agents?skill=" + url.QueryEscape(demoworld.SkillContested))
	if len(mcp) != 3 {
		t.Fatalf("%s: %+v", demoworld.SkillContested, mcp)
	}
	for _, r := range mcp {
		if (r.ID == string(s.main)) != (r.Flags == "Contested") {
			t.Errorf("%s: flags %q", r.ID, r.Flags)
		}
	}
	paged := ids(open("/agents?skill=" + url.QueryEscape(demoworld.SkillContested) + "&limit=1"))
	for range len(mcp) {
		n, err := chromedp.Run(ctx, chromedp.Evaluate[int](`document.querySelectorAll('a[rel="next"]').length`))
		if err != nil {
			t.Fatal(err)
		}
		if n == 0 {
			break
		}
		if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS(`a[rel="next"]`)), chromedp.WaitVisible(chromedp.CSS("#found-h"))); err != nil {
			t.Fatal(err)
		}
		paged = append(paged, ids(results())...)
	}
	if fmt.Sprint(paged) != fmt.Sprint(ids(mcp)) {
		t.Errorf("page by page %v, want %v", paged, ids(mcp))
	}
	if v, err := chromedp.Run(ctx, chromedp.Value(chromedp.CSS("#find-limit"))); err != nil || v != "1" {
		t.Errorf("the next page's form holds the limit %q (%v)", v, err)
	}

	// In a task context, through the form: the address and the form keep
	// it, and each result is ranked in it.
	if err := chromedp.Do(ctx, chromedp.Navigate(s.URL+"/agents"),
		chromedp.SendKeys(chromedp.CSS("#find-skill"), demoworld.SkillEstimated),
		chromedp.SendKeys(chromedp.CSS("#ctx-workload"), "OLTP"),
		chromedp.Click(chromedp.CSS(`form.task button[type="submit"]`)),
		chromedp.WaitVisible(chromedp.CSS("#found-h"))); err != nil {
		t.Fatal(err)
	}
	loc, err := chromedp.Run(ctx, chromedp.Location())
	if err != nil || !strings.Contains(loc, "workload=OLTP") {
		t.Errorf("the address %s lacks the context (%v)", loc, err)
	}
	if v, err := chromedp.Run(ctx, chromedp.Value(chromedp.CSS("#ctx-workload"))); err != nil || v != "OLTP" {
		t.Errorf("the form holds the workload %q (%v)", v, err)
	}
	inCtx := results()
	if len(inCtx) == 0 || inCtx[0].ID != string(s.main) || !strings.HasPrefix(inCtx[0].Why, "Why this rank: in this context: ") {
		t.Errorf("in context: %+v", inCtx)
	}
	if look {
		checkAccessibility(t, ctx, "find, in context")
		sh.take(t, ctx, "find-context")
	}
	console.check(t, "find")
}
