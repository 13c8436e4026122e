package web_test

import (
	"context"
	"html"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/remnant/passportkit/issuer"
	"github.com/remnant/passportkit/issuer/demoworld"
	"github.com/remnant/passportkit/issuer/issuing"
	"github.com/remnant/passportkit/issuer/store/storetest"
	"github.com/remnant/passportkit/issuer/web"
)

// inspected returns the links of the sources a page lists: each to its
// record's page.
func inspected(body string) []string {
	var out []string
	for _, m := range regexp.MustCompile(`<a href="([^"]*)" title="This record`).FindAllStringSubmatch(body, -1) {
		out = append(out, html.UnescapeString(m[1]))
	}
	return out
}

// inspects returns the addresses of the record pages of the sources of an
// evidence page of the API.
func inspects(ev issuer.EvidencePage) []string {
	var out []string
	for _, s := range ev.Sources {
		out = append(out, recordPage(ev.Agent, s.Evidence, ev.PassportHash))
	}
	return out
}

// recordPage is the address of the page of the record ev of the passport
// hash.
func recordPage(id issuer.AgentID, ev, hash string) string {
	return "/agents/" + string(id) + "/evidence/" + ev + "?passportHash=" + hash
}

// pageLink returns the address of a skill page's link to another page of
// sources ("Next page", "Previous page", "First page"), "" when none.
func pageLink(body, name string) string {
	m := regexp.MustCompile(`<a href="([^"]*)"[^>]*>` + name + `</a>`).FindStringSubmatch(body)
	if m == nil {
		return ""
	}
	return html.UnescapeString(m[1])
}

func testSkillPage(t *testing.T, s *site) {
	skill := url.PathEscape(demoworld.SkillEstimated)
	page := "/agents/" + string(s.main) + "/skills/" + skill
	var all issuer.EvidencePage
	s.api(t, skillAPI(s.main, demoworld.SkillEstimated, "evidence", ""), &all)
	if all.SourceCount < 12 {
		t.Fatalf("the estimated skill has %d sources; the test pages through more than 10", all.SourceCount)
	}

	// Page by page, by offset, the pages list what the evidence route
	// lists, in its order, with its inspection links.
	res, body := s.get(t, page+"?limit=5")
	if res.StatusCode != http.StatusOK {
		t.Fatalf("%s: %d", page, res.StatusCode)
	}
	var seen []string
	for n := 0; ; n++ {
		seen = append(seen, inspected(body)...)
		if n > 0 && pageLink(body, "First page") != page+"?limit=5" {
			t.Errorf("page %d: first page %q", n, pageLink(body, "First page"))
		}
		next := pageLink(body, "Next page")
		if next == "" {
			break
		}
		if want := page + "?limit=5&offset=" + strconv.Itoa(5*(n+1)); next != want {
			t.Fatalf("page %d: next %q, want %q", n, next, want)
		}
		_, body = s.get(t, next)
		if prev := pageLink(body, "Previous page"); n == 0 && prev != page+"?limit=5" || n > 0 && prev != page+"?limit=5&offset="+strconv.Itoa(5*n) {
			t.Errorf("page %d: previous %q", n+1, prev)
		}
	}
	if strings.Join(seen, "\n") != strings.Join(inspects(all), "\n") {
		t.Errorf("the pages list\n%v\nthe evidence route\n%v", seen, inspects(all))
	}
	for _, w := range []string{"Records 11 to 15 of", `class="assessment">Supported<`, "The agent's passport lists this skill."} {
		if _, b := s.get(t, page+"?limit=5&offset=10"); !strings.Contains(b, w) {
			t.Errorf("the third page lacks %q", w)
		}
	}

	// A cursor the API returned reads as it does on the API.
	var first, second issuer.EvidencePage
	s.api(t, skillAPI(s.main, demoworld.SkillEstimated, "evidence", "limit=5"), &first)
	s.api(t, skillAPI(s.main, demoworld.SkillEstimated, "evidence", "limit=5&cursor="+first.NextCursor), &second)
	if _, b := s.get(t, page+"?limit=5&cursor="+first.NextCursor); strings.Join(inspected(b), " ") != strings.Join(inspects(second), " ") {
		t.Errorf("by cursor the page lists %v, the API %v", inspected(b), inspects(second))
	}

	// In a task context: the context used, and each source's match.
	var inCtx issuer.SkillTrust
	s.api(t, skillAPI(s.main, demoworld.SkillEstimated, "trust", "workload=OLTP"), &inCtx)
	_, body = s.get(t, page+"?workload=OLTP")
	for _, w := range []string{"Workload <q>oltp</q>", ">Context match<", html.EscapeString(inCtx.Why.Context)} {
		if !strings.Contains(body, w) {
			t.Errorf("in a context, the page lacks %q", w)
		}
	}
	// A skill without evidence is new, not an error.
	if res, body := s.get(t, "/agents/"+string(s.main)+"/skills/COBOL"); res.StatusCode != http.StatusOK ||
		!strings.Contains(body, "No evidence for cobol") || !strings.Contains(body, "does not list this skill") {
		t.Errorf("a skill without evidence: %d", res.StatusCode)
	}

	// A skill term is one path segment: a slash in it is escaped.
	if res, body := s.get(t, "/agents/"+string(s.main)+"/skills/CI%2FCD%20pipelines?limit=1"); res.StatusCode != http.StatusOK ||
		!strings.Contains(body, `<h1 id="skill-name">ci/cd pipelines</h1>`) {
		t.Errorf("a skill with a slash: %d", res.StatusCode)
	}

	// The query is read as the evidence route reads it, its faults first.
	for _, c := range []struct {
		query string
		code  issuer.Code
	}{
		{"colour=red", issuer.CodeUnknownDimension},
		{"offset=1001", issuer.CodeLimitOutOfRange},
		{"limit=0", issuer.CodeLimitOutOfRange},
		{"cursor=%21", issuer.CodeCursorInvalid},
		{"cursor=" + first.NextCursor + "&offset=1", issuer.CodeInvalid},
		{"workload=a&workload=b", issuer.CodeInvalid},
		{"cursor=" + first.NextCursor + "&workload=oltp", issuer.CodeCursorInvalid}, // another listing
	} {
		res, body := s.get(t, page+"?"+c.query)
		if res.StatusCode != http.StatusBadRequest || !strings.Contains(body, "<code>"+string(c.code)+"</code>") {
			t.Errorf("%s: %d, want 400 %s", c.query, res.StatusCode, c.code)
		}
	}
	if res, _ := s.get(t, "/agents/agt_aaaaaaaaaaaaaaaaaaaaaaaaaa/skills/x?colour=red"); res.StatusCode != http.StatusBadRequest {
		t.Errorf("a bad query of an unknown agent: %d, want the query's 400 first", res.StatusCode)
	}
}

// changing is the trust service under a subject that changes (a real
// write) just before each of its next n trust reads. It counts the
// evidence pages read.
type changing struct {
	web.Trust
	s *site
	t *testing.T

	mu    sync.Mutex
	n     int
	pages int
}

func (c *changing) SkillEvidence(ctx context.Context, id issuer.AgentID, q issuer.EvidenceQuery) (issuer.EvidencePage, error) {
	c.mu.Lock()
	c.pages++
	c.mu.Unlock()
	return c.Trust.SkillEvidence(ctx, id, q)
}

func (c *changing) PureSkillTrust(ctx context.Context, id issuer.AgentID, q issuer.TrustQuery) (issuer.SkillTrust, error) {
	c.mu.Lock()
	if c.n > 0 {
		c.n--
		c.s.publish(c.t, "A note "+strconv.Itoa(c.n))
	}
	c.mu.Unlock()
	return c.Trust.PureSkillTrust(ctx, id, q)
}

// pagesRead returns the evidence pages read since it was last called.
func (c *changing) pagesRead() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := c.pages
	c.pages = 0
	return n
}

func (c *changing) changeBeforeNext(n int) {
	c.mu.Lock()
	c.n = n
	c.mu.Unlock()
}

// TestPagesReadOnePassport: a profile reads each skill's first sources
// once per passport; when the subject changes while a profile or a skill's
// page is read, the page still shows the one passport it read first, every
// figure and link of it, never a 503; the next view shows the newer one
// once it is built.
func TestPagesReadOnePassport(t *testing.T) {
	t.Parallel()
	for _, engine := range storetest.Engines(t) {
		t.Run(string(engine), func(t *testing.T) {
			t.Parallel()
			var c *changing
			s := newSite(t, engine, func(s *site, tr web.Trust) web.Trust {
				c = &changing{Trust: tr, s: s, t: t}
				return c
			})
			// A profile reads each skill's first sources once per passport.
			for view, want := range []int{5, 0} {
				c.pagesRead()
				if res, _ := s.get(t, "/agents/"+string(s.main)); res.StatusCode != http.StatusOK {
					t.Errorf("view %d of the profile: %d", view+1, res.StatusCode)
				}
				if n := c.pagesRead(); n != want {
					t.Errorf("view %d of the profile read %d evidence pages, want %d", view+1, n, want)
				}
			}
			for _, path := range []string{"/agents/" + string(s.odd), "/agents/" + string(s.odd) + "/skills/" + url.PathEscape(oddSkill)} {
				var before *issuing.Issued
				for changes := 1; changes <= 2; changes++ {
					var err error
					if before, err = s.passports.Issue(context.Background(), s.odd, issuing.DisclosePreviews); err != nil {
						t.Fatal(err)
					}
					c.changeBeforeNext(changes)
					res, body := s.get(t, path)
					if res.StatusCode != http.StatusOK || !strings.Contains(body, before.PassportHash) {
						t.Errorf("%s, changed %d times while read: %d, not the passport read first", path, changes, res.StatusCode)
					}
					onePassport(t, path, body, before.PassportHash)
				}
				// The next view, with no change while it is read, builds the
				// current passport and shows it.
				c.changeBeforeNext(0)
				res, body := s.get(t, path)
				after, err := s.passports.Issue(context.Background(), s.odd, issuing.DisclosePreviews)
				if err != nil {
					t.Fatal(err)
				}
				if after.PassportHash == before.PassportHash || res.StatusCode != http.StatusOK || !strings.Contains(body, after.PassportHash) {
					t.Errorf("%s, after the changes: %d, not the current passport", path, res.StatusCode)
				}
				onePassport(t, path, body, after.PassportHash)
			}
		})
	}
}

// evidenceLinks finds the addresses of evidence files on a page.
var evidenceLinks = regexp.MustCompile(`/passport/evidence\?passportHash=([0-9a-f]{64})`)

// onePassport checks that every evidence file a page links to is the one of
// the passport hash.
func onePassport(t *testing.T, path, body, hash string) {
	t.Helper()
	links := evidenceLinks.FindAllStringSubmatch(body, -1)
	if len(links) == 0 {
		t.Errorf("%s links to no evidence file", path)
	}
	for _, m := range links {
		if m[1] != hash {
			t.Errorf("%s links to the evidence of passport %s besides its own %s", path, m[1], hash)
			return
		}
	}
}

// TestPagesUnderWrites loads an agent's profile and skill page while
// another client keeps writing to that agent: every load is shown (200,
// never 503 because the subject changed), from one passport, whose evidence
// file is served.
func TestPagesUnderWrites(t *testing.T) {
	t.Parallel()
	d := 3 * time.Second
	if testing.Short() {
		d = time.Second
	}
	for _, engine := range storetest.Engines(t) {
		t.Run(string(engine), func(t *testing.T) {
			t.Parallel()
			s := newSite(t, engine)
			ctx, cancel := context.WithTimeout(context.Background(), d)
			defer cancel()
			var writes, loads atomic.Int64
			var wg sync.WaitGroup
			wg.Go(func() {
				for i := 0; ctx.Err() == nil; i++ {
					s.publish(t, "A note under load "+strconv.Itoa(i))
					writes.Add(1)
				}
			})
			var mu sync.Mutex
			shown := map[string]bool{}
			for _, path := range []string{"/agents/" + string(s.odd), "/agents/" + string(s.odd) + "/skills/" + url.PathEscape(oddSkill)} {
				wg.Go(func() {
					for ctx.Err() == nil {
						res, body := s.get(t, path)
						loads.Add(1)
						if res.StatusCode != http.StatusOK {
							t.Errorf("%s under writes: %d", path, res.StatusCode)
							return
						}
						m := evidenceLinks.FindStringSubmatch(body)
						if m == nil {
							t.Errorf("%s links to no evidence file", path)
							return
						}
						onePassport(t, path, body, m[1])
						mu.Lock()
						shown[m[1]] = true
						mu.Unlock()
					}
				})
			}
			wg.Wait()
			for hash := range shown {
				if res, _ := s.get(t, "/api/public/agents/"+string(s.odd)+"/passport/evidence?passportHash="+hash); res.StatusCode != http.StatusOK {
					t.Errorf("the evidence file of passport %s, shown on a page: %d", hash, res.StatusCode)
				}
			}
			t.Logf("%s: %d page loads, %d writes, %d passports shown", engine, loads.Load(), writes.Load(), len(shown))
			if writes.Load() < 2 || len(shown) < 2 {
				t.Errorf("%d writes and %d passports shown: too few to test anything", writes.Load(), len(shown))
			}
		})
	}
}
