package web

import (
	"context"
	"net/http"
	"net/url"
	"strconv"

	"github.com/remnant/passportkit/evidence"
	"github.com/remnant/passportkit/internal/problem"
	"github.com/remnant/passportkit/issuer"
	"github.com/remnant/passportkit/passport"
)

// Finder is registry discovery, find_agents (SPEC.md §17): agents ranked
// by their evidence for one skill, in a task context when one is given,
// or, without a skill, the registry's legacy listing; and the start page's
// listing of the public agents by their latest evidence. *service.Discovery
// implements it; GET /api/public/agents serves the same find_agents
// answers.
type Finder interface {
	FindAgents(ctx context.Context, q issuer.FindAgentsQuery) (issuer.FindAgentsPage, error)
	RecentAgents(ctx context.Context, cursor string, limit int) (issuer.RecentAgentsPage, error)
}

// findPage is the body of the discovery page.
type findPage struct {
	Form findForm
	// Error and Code are a refused query's detail and reason.
	Error  string
	Status int
	Code   problem.Code
	// Searched says that the query was answered: the fields below hold
	// the answer.
	Searched bool
	// Skill is the skill ranked on, normalised; Asked is the term as given
	// when it differs. Both are "" for the legacy listing.
	Skill, Asked string
	// Context holds the stated dimensions, normalised.
	Context []dimension
	// Listing says that the page is the legacy listing by global
	// reputation, which is not skill evidence.
	Listing bool
	Results []foundRow
	// Note explains an empty first page (a skill no passport lists).
	Note string
	// Truncated says that ranking in context stopped early; Work is what
	// the page assessed.
	Truncated bool
	Work      *issuer.ContextWork
	Freshness string
	// NextURL continues the results: the next page, or, for a page cut
	// short, the rest of its ranking.
	NextURL string
}

// findForm is what the form shows: the fields as the visitor wrote them.
type findForm struct {
	Skill   string
	Limit   string
	Context []dimension
}

// foundRow is one result in words.
type foundRow struct {
	ID, Name, URL string
	// For a result ranked by a skill: the skill passport's summary, and
	// SkillURL, the skill's page for the agent in the same context.
	Ranked                             bool
	Assessment, State, Level, Estimate string
	NA, Contested, Stale               bool
	Operators                          int
	SkillURL                           string
	// For the legacy listing: the global reputation aggregate.
	Reputation, TrustLevel string
	Why                    string
	// Changed marks a result whose records changed since it was indexed.
	Changed bool
}

// find answers GET /agents (SPEC.md §18.7): the form, and with a query the
// page of find_agents it names, as GET /api/public/agents reads and
// answers it.
func (h *Handler) find(w http.ResponseWriter, r *http.Request) error {
	shown, _ := url.ParseQuery(r.URL.RawQuery) // for the form only: the fields that decode, as sent
	page := findPage{Form: findForm{Skill: firstValue(shown, "skill"), Limit: firstValue(shown, "limit"), Context: contextFields(shown)}}
	if r.URL.RawQuery == "" {
		return h.render(w, http.StatusOK, "find", "Find agents", "find", page)
	}
	q, kept, err := readFindQuery(r.URL.RawQuery)
	var res issuer.FindAgentsPage
	if err == nil {
		res, err = h.cfg.Finder.FindAgents(r.Context(), q)
	}
	if err != nil {
		d := issuerProblem(err)
		if d.Status >= 500 {
			return err
		}
		page.Error, page.Status, page.Code = d.Detail, d.Status, d.Code
		return h.render(w, d.Status, "find", "Find agents", "find", page)
	}
	page.answer(q, res, kept)
	// A page moves with the index.
	w.Header().Set("Cache-Control", "no-store")
	return h.render(w, http.StatusOK, "find", findTitle(page.Skill), "find", page)
}

// findTitle is the title of a page of results.
func findTitle(skill string) string {
	if skill == "" {
		return "Find agents"
	}
	return skill + " · Find agents"
}

// firstValue is the first non-blank value of the field k, as the form
// shows it.
func firstValue(q url.Values, k string) string {
	if vs := nonBlank(q[k]); len(vs) > 0 {
		return vs[0]
	}
	return ""
}

// readFindQuery reads the raw query of /agents: its fields decoded and
// named as find_agents names them (a field that does not decode, then an
// unknown name, blank or not), its blank values dropped (see
// withoutBlanks), and what is left read by issuer.ParseFindAgentsQuery, as
// GET /api/public/agents reads its query. It returns the values read.
func readFindQuery(raw string) (issuer.FindAgentsQuery, url.Values, error) {
	v, err := formParams(issuer.FindAgentsParams()).Read(raw)
	if err != nil {
		return issuer.FindAgentsQuery{}, nil, err
	}
	kept := withoutBlanks(v)
	q, err := issuer.ParseFindAgentsQuery(kept.Encode())
	return q, kept, err
}

// withoutBlanks returns the values of q that are not blank: a form's empty
// field is a field left unstated, and a field left with no value is absent.
func withoutBlanks(q url.Values) url.Values {
	out := url.Values{}
	for k, vs := range q {
		if vs = nonBlank(vs); len(vs) > 0 {
			out[k] = vs
		}
	}
	return out
}

// answer fills the page with res, the answer to q, the query kept read
// from.
func (p *findPage) answer(q issuer.FindAgentsQuery, res issuer.FindAgentsPage, kept url.Values) {
	p.Searched, p.Listing = true, res.Basis == issuer.BasisGlobalReputation
	p.Skill, p.Note, p.Truncated, p.Work, p.Freshness = res.Query.Skill, res.Note, res.Truncated, res.Work, res.Freshness.Statement
	if q.Skill != res.Query.Skill {
		p.Asked = q.Skill
	}
	var ctx evidence.Context
	if res.Query.Context != nil {
		ctx = *res.Query.Context
	}
	p.Context = stated(ctx)
	ctxQuery := issuer.ContextQuery(ctx)
	for _, a := range res.Results {
		row := foundRow{ID: string(a.ID), Name: a.Name, URL: "/agents/" + url.PathEscape(string(a.ID)), Why: a.Why, Changed: a.ChangedSinceIndexed}
		if s := a.Skill; s != nil {
			e := (*passport.SkillEstimate)(s.Estimate)
			row.Ranked = true
			row.Assessment = word(assessmentWords, passport.AssessmentLabel(s.Assessment))
			row.State = word(stateWords, passport.SkillState(s.State))
			row.Level = word(levelWords, passport.EvidenceLevel(s.EvidenceLevel))
			row.Estimate, row.NA = estimateText(e), e == nil
			row.Contested, row.Stale, row.Operators = s.Contested, s.Stale, s.IndependentOperators
			row.SkillURL = skillPath(a.ID, s.Skill, ctxQuery)
		}
		if rep := a.Reputation; rep != nil {
			row.Reputation, row.TrustLevel = strconv.FormatFloat(rep.Score, 'f', -1, 64), rep.TrustLevel
		}
		p.Results = append(p.Results, row)
	}
	next := res.NextCursor
	if next == "" && !res.Truncated {
		return
	}
	v := url.Values{}
	for k, vs := range kept {
		if k != "cursor" {
			v[k] = vs
		}
	}
	if next != "" {
		v.Set("cursor", next)
	}
	// A first page cut short before it proved any result has no cursor:
	// the same query continues it.
	p.NextURL = "/agents?" + v.Encode()
}
