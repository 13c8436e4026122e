package web

import (
	"context"
	"net/http"
	"strings"

	"github.com/remnant/passportkit/evidence"
	"github.com/remnant/passportkit/issuer"
	"github.com/remnant/passportkit/passport"
)

// Finder is registry discovery: agents ranked by their evidence for one
// skill in a task context, or, without a skill, the registry's listing.
// The discovery use case of the issuer service implements it.
type Finder interface {
	FindAgents(ctx context.Context, q FindQuery) (FindResults, error)
}

// FindQuery is one discovery request.
type FindQuery struct {
	// Skill is the skill term, "" for the listing without a skill.
	Skill   string
	Context evidence.Context
	// Cursor continues an earlier page; "" starts at the first.
	Cursor string
	Limit  int
}

// FindResults is one page of discovery results, best first.
type FindResults struct {
	// Skill is the normalised skill ranked on, "" for the listing.
	Skill string
	// Basis says in words what the order rests on.
	Basis   string
	Results []FoundAgent
	// NextCursor continues the results; "" on the last page.
	NextCursor string
	// Freshness says in words how current the ranking is.
	Freshness string
}

// FoundAgent is one discovery result.
type FoundAgent struct {
	ID   issuer.AgentID
	Name string
	// SkillPassport is the agent's assessment of the skill ranked on; nil
	// in the listing without a skill.
	SkillPassport *passport.SkillPassport
	// Why says in one line why the agent has its place.
	Why string
}

// findPageSize is how many results a discovery page shows.
const findPageSize = 20

// maxCursorBytes bounds a cursor in a query.
const maxCursorBytes = 1024

// findPage is the body of the discovery page.
type findPage struct {
	Skill     string
	Context   []dimension
	Error     string
	Searched  bool
	Results   []foundRow
	Basis     string
	Freshness string
	// NextURL continues the results.
	NextURL string
}

type foundRow struct {
	ID, Name, URL               string
	Assessment, Level, Estimate string
	NA, Contested, Stale        bool
	Why                         string
}

// find answers GET /agents: the form, and with a query its results.
func (h *Handler) find(w http.ResponseWriter, r *http.Request) error {
	q := r.URL.Query()
	page := findPage{Skill: q.Get("skill"), Context: contextFields(q)}
	fail := func(err error) error {
		d := issuerProblem(err)
		if d.Status >= 500 {
			return err
		}
		page.Error = d.Detail
		return h.render(w, d.Status, "find", "Find agents", "find", page)
	}
	fq, searched, err := parseFindQuery(q)
	if err != nil {
		return fail(err)
	}
	if !searched {
		return h.render(w, http.StatusOK, "find", "Find agents", "find", page)
	}
	res, err := h.cfg.Finder.FindAgents(r.Context(), fq)
	if err != nil {
		return fail(err)
	}
	page.Searched, page.Basis, page.Freshness = true, res.Basis, res.Freshness
	for _, a := range res.Results {
		row := foundRow{ID: string(a.ID), Name: a.Name, URL: "/agents/" + string(a.ID), Why: a.Why}
		if sp := a.SkillPassport; sp != nil {
			row.Assessment, row.Level = word(assessmentWords, sp.Assessment), word(levelWords, sp.EvidenceLevel)
			row.Estimate, row.NA, row.Contested, row.Stale = estimateText(sp.Estimate), sp.Estimate == nil, sp.Contested, sp.Stale
		}
		page.Results = append(page.Results, row)
	}
	if res.NextCursor != "" {
		next := r.URL.Query()
		next.Set("cursor", res.NextCursor)
		page.NextURL = "/agents?" + next.Encode()
	}
	return h.render(w, http.StatusOK, "find", "Find agents", "find", page)
}

// parseFindQuery reads the query of /agents: skill, the context
// dimensions and cursor, each at most once. An empty query is no search.
func parseFindQuery(q map[string][]string) (FindQuery, bool, error) {
	c, err := parseContext(q, "skill", "cursor")
	if err != nil {
		return FindQuery{}, false, err
	}
	fq := FindQuery{Context: c, Limit: findPageSize}
	for _, k := range []string{"skill", "cursor"} {
		vs := nonBlank(q[k])
		if len(vs) > 1 {
			return FindQuery{}, false, issuer.Errorf(issuer.CodeInvalid, "the field %s is given more than once", k)
		}
		if len(vs) == 0 {
			continue
		}
		v := strings.TrimSpace(vs[0])
		switch {
		case k == "skill" && len(v) > MaxFieldBytes:
			return FindQuery{}, false, issuer.Errorf(issuer.CodeInvalid, "the skill is longer than %d bytes", MaxFieldBytes)
		case k == "cursor" && len(v) > maxCursorBytes:
			return FindQuery{}, false, issuer.Errorf(issuer.CodeCursorInvalid, "the cursor is not one this issuer made")
		case k == "skill":
			fq.Skill = v
		default:
			fq.Cursor = v
		}
	}
	_, any := q["skill"]
	return fq, any || fq.Cursor != "" || fq.Context != (evidence.Context{}), nil
}
