package web

import (
	"context"
	"maps"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/remnant/passportkit/evidence"
	"github.com/remnant/passportkit/internal/problem"
	"github.com/remnant/passportkit/issuer"
	"github.com/remnant/passportkit/skilltrust"
)

// Bounds of the comparison form (SPEC.md §18.3).
const (
	// MaxCompareAgents and MaxCompareSkills bound a comparison, as the
	// trust API does.
	MaxCompareAgents = issuer.MaxAssessAgents
	MaxCompareSkills = issuer.MaxAssessSkills
	// MaxFieldValues bounds how many values one query field may repeat,
	// blank ones included.
	MaxFieldValues = 10
	// MaxFieldBytes bounds one value: a skill term or context label, as
	// the trust model bounds them (SPEC.md §4.2).
	MaxFieldBytes = evidence.MaxTextLen
)

// compareForm is what the form shows: the fields as the visitor wrote them.
type compareForm struct {
	Agents  []string // MaxCompareAgents fields
	Skills  []string // MaxCompareSkills fields
	Context []dimension
}

type dimension struct {
	Name, Label, Value, Hint string
}

var dimensionHints = map[string][2]string{
	"domain":      {"Domain", "e.g. billing"},
	"environment": {"Environment", "e.g. production"},
	"protocol":    {"Protocol", "e.g. postgres"},
	"version":     {"Version", "e.g. 16"},
	"workload":    {"Workload", "e.g. oltp"},
	"constraints": {"Constraints", "e.g. read-only"},
}

// formOf returns the form holding q's raw values, padded to its fields.
func formOf(q url.Values) compareForm {
	f := compareForm{Agents: nonBlank(q["agent"]), Skills: nonBlank(q["skill"])}
	f.Agents = pad(f.Agents, MaxCompareAgents)
	f.Skills = pad(f.Skills, MaxCompareSkills)
	f.Context = contextFields(q)
	return f
}

// contextFields returns the six context fields holding q's values.
func contextFields(q url.Values) []dimension {
	out := make([]dimension, 0, len(evidence.Dimensions))
	for _, d := range evidence.Dimensions {
		out = append(out, dimension{Name: d, Label: dimensionHints[d][0], Hint: dimensionHints[d][1], Value: q.Get(d)})
	}
	return out
}

func nonBlank(vs []string) []string {
	var out []string
	for _, v := range vs {
		if strings.TrimSpace(v) != "" {
			out = append(out, v)
		}
	}
	return out
}

// pad returns vs with blank fields added up to n, keeping any beyond n.
func pad(vs []string, n int) []string {
	for len(vs) < n {
		vs = append(vs, "")
	}
	return vs
}

// compareParams is the table of the comparison form's query (SPEC.md
// §18.3): agent, skill and the six context dimensions; any other name is
// unknown_context_dimension.
var compareParams = formParams(issuer.QuerySpec{
	Params: append(issuer.Params("agent", "skill"), issuer.ContextParams()...),
	Unknown: func(name string) error {
		return issuer.Errorf(issuer.CodeUnknownDimension,
			"unknown field %q: the context dimensions are %s", clip(name), strings.Join(evidence.Dimensions, ", "))
	},
})

// formParams returns s with every parameter repeatable: a form sends a
// field for each of its inputs, filled in or not, and a page drops the
// blank values before its rules count them.
func formParams(s issuer.QuerySpec) issuer.QuerySpec {
	out := issuer.QuerySpec{Params: slices.Clone(s.Params), Unknown: s.Unknown}
	for i := range out.Params {
		out.Params[i].Multi = true
	}
	return out
}

// checkCounts refuses a field of q given more than MaxFieldValues times
// (too_many_items), the first in byte order reported.
func checkCounts(q url.Values) error {
	for _, k := range slices.Sorted(maps.Keys(q)) {
		if len(q[k]) > MaxFieldValues {
			return issuer.Errorf(issuer.CodeTooManyItems, "the field %s is given %d times; at most %d", k, len(q[k]), MaxFieldValues)
		}
	}
	return nil
}

// oneValue returns the one non-blank value of the dimension d in q, nil
// when there is none; more than one is invalid_request.
func oneValue(q url.Values, d string) (*string, error) {
	switch vs := nonBlank(q[d]); len(vs) {
	case 0:
		return nil, nil
	case 1:
		return &vs[0], nil
	default:
		return nil, issuer.Errorf(issuer.CodeInvalid, "the context dimension %s is given more than once", d)
	}
}

// parseCompareQuery reads a comparison from the raw query of /trust/assess
// as the request of POST /api/public/trust/assess (SPEC.md §18.3): after
// [compareParams] (a field that does not decode, then an unknown one),
// a field given too often (checkCounts) and a context dimension given
// twice (invalid_request), the non-blank agents (trimmed), skills and
// labels are checked by issuer.NewAssessRequest, the API's rules in the
// API's order. A query without agents and skills is no comparison (ok
// false).
func parseCompareQuery(raw string) (r issuer.AssessRequest, ok bool, err error) {
	q, err := compareParams.Read(raw)
	if err != nil {
		return r, false, err
	}
	if err := checkCounts(q); err != nil {
		return r, false, err
	}
	var c issuer.ContextRequest
	for i, p := range []**string{&c.Domain, &c.Environment, &c.Protocol, &c.Version, &c.Workload, &c.Constraints} {
		if *p, err = oneValue(q, evidence.Dimensions[i]); err != nil {
			return r, false, err
		}
	}
	agents, skills := nonBlank(q["agent"]), nonBlank(q["skill"])
	if len(agents) == 0 && len(skills) == 0 {
		return r, false, nil
	}
	for i, a := range agents {
		agents[i] = strings.TrimSpace(a)
	}
	r, err = issuer.NewAssessRequest(agents, skills, c)
	return r, err == nil, err
}

// clip bounds untrusted text quoted in a message, and makes it valid
// UTF-8.
func clip(s string) string {
	if len(s) > 64 {
		return strings.ToValidUTF8(s[:64], "\uFFFD") + "…"
	}
	return strings.ToValidUTF8(s, "\uFFFD")
}

// comparePage is the body of the comparison page.
type comparePage struct {
	Form compareForm
	// Error, Status and Code are a refused comparison's detail, status
	// and reason, as the API gives them.
	Error  string
	Status int
	Code   problem.Code
	// Agents are the compared agents in input order; Skills each skill's
	// assessments, one cell per agent in that order.
	Agents  []comparedAgent
	Skills  []comparedSkill
	Context []dimension // the stated dimensions, normalised
}

type comparedAgent struct {
	ID, Name, URL string
}

type comparedSkill struct {
	Asked, Skill string
	Known        bool
	Cells        []compareCell
}

type compareCell struct {
	Assessment, State, Level, Estimate string
	NA                                 bool
	Operators, Validators, Unresolved  int
	Contested, Stale                   bool
	Limitations                        []string
	// URL is the skill's page for the agent, in the task context.
	URL string
}

// compare answers GET /trust/assess: the form, and when it names agents
// and skills, their assessments side by side in input order.
func (h *Handler) compare(w http.ResponseWriter, r *http.Request) error {
	shown, _ := url.ParseQuery(r.URL.RawQuery) // for the form only: the fields that decode, as sent
	page := comparePage{Form: formOf(shown)}
	req, ok, err := parseCompareQuery(r.URL.RawQuery)
	if err == nil && ok {
		err = h.assess(r.Context(), req, &page)
	}
	if err != nil {
		d := issuerProblem(err)
		if d.Status >= 500 {
			return err
		}
		page.Error, page.Status, page.Code = d.Detail, d.Status, d.Code
		page.Agents, page.Skills, page.Context = nil, nil, nil
		return h.render(w, d.Status, "compare", "Compare agents", "compare", page)
	}
	return h.render(w, http.StatusOK, "compare", "Compare agents", "compare", page)
}

// assess fills page with the trust service's comparison of req.
func (h *Handler) assess(ctx context.Context, req issuer.AssessRequest, page *comparePage) error {
	res, err := h.cfg.Trust.Assess(ctx, req)
	if err != nil {
		return err
	}
	for _, a := range res.Agents {
		prof, err := h.cfg.Profiles.PublicProfile(ctx, a.Agent)
		if err != nil {
			return err
		}
		page.Agents = append(page.Agents, comparedAgent{ID: string(a.Agent), Name: prof.Name, URL: "/agents/" + string(a.Agent)})
	}
	page.Context = stated(res.Context)
	query := issuer.ContextQuery(res.Context)
	for j, term := range res.Skills {
		cs := comparedSkill{Asked: term.Requested, Skill: term.Normalized, Known: term.InOntology}
		for _, a := range res.Agents {
			s := a.Skills[j]
			cell := compareCell{
				Assessment: word(assessmentWords, s.Assessment), State: word(stateWords, s.State),
				Level: word(levelWords, s.EvidenceLevel), Estimate: estimateText(s.Estimate), NA: s.Estimate == nil,
				Operators: s.IndependentOperators, Validators: s.IndependentValidators, Unresolved: s.UnresolvedContradictions,
				Contested: s.Contested, Stale: s.Stale, URL: skillPath(a.Agent, s.Skill, query),
			}
			for _, l := range s.Limitations {
				cell.Limitations = append(cell.Limitations, skilltrust.Limitation(l).Text())
			}
			cs.Cells = append(cs.Cells, cell)
		}
		page.Skills = append(page.Skills, cs)
	}
	return nil
}
