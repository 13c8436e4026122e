package web_test

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/remnant/passportkit/issuer"
	"github.com/remnant/passportkit/issuer/store"
	"github.com/remnant/passportkit/issuer/web"
	"github.com/remnant/passportkit/passport"
)

// finder answers every discovery query with fixed results: the page's
// layout is tested here, discovery itself where it is built.
type finder struct {
	got []web.FindQuery
}

func (f *finder) FindAgents(_ context.Context, q web.FindQuery) (web.FindResults, error) {
	f.got = append(f.got, q)
	if q.Skill == "fail" {
		return web.FindResults{}, issuer.Errorf(issuer.CodeCursorInvalid, "the cursor is not one this issuer made")
	}
	return web.FindResults{
		Skill: "PostgreSQL indexing", Basis: "Ranked by skill evidence.", Freshness: "Every agent is indexed.",
		NextCursor: "next-page",
		Results: []web.FoundAgent{
			{ID: "agt_aaaaaaaaaaaaaaaaaaaaaaaaaa", Name: "Evil\u202Etxt.exe <b>", Why: "MODERATE evidence from 5 independent operators",
				SkillPassport: &passport.SkillPassport{Assessment: passport.AssessmentSupported, EvidenceLevel: passport.LevelModerate,
					Estimate: &passport.SkillEstimate{Midpoint: 0.8, Lower: 0.6, Upper: 0.9}}},
			{ID: "agt_bbbbbbbbbbbbbbbbbbbbbbbbbb", Name: "Plain", Why: "VERY_LOW evidence",
				SkillPassport: &passport.SkillPassport{Assessment: passport.AssessmentContested, Contested: true, EvidenceLevel: passport.LevelVeryLow}},
		},
	}, nil
}

func TestFindPage(t *testing.T) {
	t.Parallel()
	f := &finder{}
	s := newSite(t, store.SQLite, f)
	_, home := s.get(t, "/")
	if !strings.Contains(home, `href="/agents"`) {
		t.Error("the navigation does not link the discovery page")
	}
	res, body := s.get(t, "/agents")
	if res.StatusCode != http.StatusOK || len(f.got) != 0 || strings.Contains(body, "Why this rank") {
		t.Fatalf("the empty form searched: %d, %v", res.StatusCode, f.got)
	}
	res, body = s.get(t, "/agents?skill=postgres+indexing&workload=oltp")
	if res.StatusCode != http.StatusOK {
		t.Fatalf("find: %d", res.StatusCode)
	}
	if len(f.got) != 1 || f.got[0].Skill != "postgres indexing" || f.got[0].Context.Workload != "oltp" || f.got[0].Limit != 20 {
		t.Errorf("queries %+v", f.got)
	}
	for _, w := range []string{"Why this rank:</span> MODERATE evidence from 5 independent operators", "0.80 (interval 0.60–0.90)",
		web.NotEnoughEvidence, `class="flag contested"`, "Evil\uFFFDtxt.exe &lt;b&gt;", `href="/agents?cursor=next-page&amp;skill=postgres&#43;indexing&amp;workload=oltp"`} {
		if !strings.Contains(body, w) {
			t.Errorf("the results lack %q", w)
		}
	}
	if strings.ContainsRune(body, '\u202E') {
		t.Error("a bidirectional override reaches the page")
	}
	for q, want := range map[string]int{"skill=fail": 400, "colour=red": 400, "skill=a&skill=b": 400} {
		if res, _ := s.get(t, "/agents?"+q); res.StatusCode != want {
			t.Errorf("%s: %d, want %d", q, res.StatusCode, want)
		}
	}
}

// TestFindPageNeedsAFinder: without discovery the page is not routed.
func TestFindPageNeedsAFinder(t *testing.T) {
	t.Parallel()
	s := newSite(t, store.SQLite, nil)
	if res, _ := s.get(t, "/agents"); res.StatusCode != http.StatusNotFound {
		t.Errorf("/agents without a finder: %d", res.StatusCode)
	}
	if _, home := s.get(t, "/"); strings.Contains(home, `href="/agents"`) {
		t.Error("the navigation links a page that does not exist")
	}
}
