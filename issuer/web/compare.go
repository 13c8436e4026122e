package web

import (
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/remnant/passportkit/evidence"
	"github.com/remnant/passportkit/issuer"
	"github.com/remnant/passportkit/skilltrust"
)

// Bounds of the comparison form (SPEC.md §18.3).
const (
	// MaxCompareAgents and MaxCompareSkills bound a comparison, as the
	// trust model does.
	MaxCompareAgents = skilltrust.MaxCompareAgents
	MaxCompareSkills = skilltrust.MaxCompareSkills
	// MaxFieldValues bounds how many values one query field may repeat,
	// blank ones included.
	MaxFieldValues = 10
	// MaxFieldBytes bounds one value: a skill term or context label, as
	// the trust model bounds them (SPEC.md §4.2).
	MaxFieldBytes = evidence.MaxTextLen
)

// compareQuery is a parsed comparison: agents and skills in input order,
// without blanks and repeats, and the task context.
type compareQuery struct {
	Agents []issuer.AgentID
	// Skills are the terms as asked (trimmed); a term that normalises like
	// an earlier one is dropped.
	Skills  []string
	Context evidence.Context
	// Notices say what was dropped as a repeat.
	Notices []string
}

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

// parseContext reads the context dimensions of q: each at most once, at
// most MaxFieldBytes, blank meaning unstated. Fields other than the
// dimensions and the names in allowed are unknown_context_dimension, the
// first in byte order of the field names reported.
func parseContext(q url.Values, allowed ...string) (evidence.Context, error) {
	names := make([]string, 0, len(q))
	for k := range q {
		names = append(names, k)
	}
	slices.Sort(names)
	for _, k := range names {
		if !slices.Contains(allowed, k) && !slices.Contains(evidence.Dimensions, k) {
			return evidence.Context{}, issuer.Errorf(issuer.CodeUnknownDimension,
				"unknown field %q: the context dimensions are %s", clip(k), strings.Join(evidence.Dimensions, ", "))
		}
	}
	for _, k := range names {
		if len(q[k]) > MaxFieldValues {
			return evidence.Context{}, issuer.Errorf(issuer.CodeTooManyItems, "the field %s is given %d times; at most %d", k, len(q[k]), MaxFieldValues)
		}
	}
	var c evidence.Context
	for _, d := range evidence.Dimensions {
		switch vs := nonBlank(q[d]); {
		case len(vs) > 1:
			return c, issuer.Errorf(issuer.CodeInvalid, "the context dimension %s is given more than once", d)
		case len(vs) == 1:
			if len(vs[0]) > MaxFieldBytes {
				return c, issuer.Errorf(issuer.CodeInvalid, "the %s label is longer than %d bytes", d, MaxFieldBytes)
			}
			c.Set(d, strings.TrimSpace(vs[0]))
		}
	}
	return c, nil
}

// parseCompareQuery reads a comparison from the query of /trust/assess.
// Faults are reported in this order: an unknown field, a field repeated
// more than MaxFieldValues times, a context dimension given twice or too
// long, an agent or skill value too long, more than MaxCompareAgents
// agents or MaxCompareSkills skills, an agent without a skill or a skill
// without an agent, then a malformed agent id (not_found, like an agent
// that is not shown). An empty query is no comparison (ok false).
func parseCompareQuery(q url.Values) (cq compareQuery, ok bool, err error) {
	if cq.Context, err = parseContext(q, "agent", "skill"); err != nil {
		return cq, false, err
	}
	agents, skills := nonBlank(q["agent"]), nonBlank(q["skill"])
	for _, v := range append(slices.Clone(agents), skills...) {
		if len(v) > MaxFieldBytes {
			return cq, false, issuer.Errorf(issuer.CodeInvalid, "a field is longer than %d bytes", MaxFieldBytes)
		}
	}
	switch {
	case len(agents) > MaxCompareAgents:
		return cq, false, issuer.Errorf(issuer.CodeTooManyItems, "%d agents; a comparison takes at most %d", len(agents), MaxCompareAgents)
	case len(skills) > MaxCompareSkills:
		return cq, false, issuer.Errorf(issuer.CodeTooManyItems, "%d skills; a comparison takes at most %d", len(skills), MaxCompareSkills)
	case len(agents) == 0 && len(skills) == 0:
		return cq, false, nil
	case len(agents) == 0:
		return cq, false, issuer.Errorf(issuer.CodeInvalid, "name at least one agent to compare")
	case len(skills) == 0:
		return cq, false, issuer.Errorf(issuer.CodeInvalid, "name at least one skill to compare on")
	}
	for i, v := range agents {
		id, err := issuer.ParseAgentID(strings.TrimSpace(v))
		if err != nil {
			return cq, false, agentNotShown(i, clip(strings.TrimSpace(v)))
		}
		if slices.Contains(cq.Agents, id) {
			cq.Notices = append(cq.Notices, "Agent "+string(id)+" was named more than once; it is shown once, where first named.")
			continue
		}
		cq.Agents = append(cq.Agents, id)
	}
	seen := map[string]bool{}
	for _, v := range skills {
		v = strings.TrimSpace(v)
		norm := skilltrust.Skills1().Normalize(v).Name
		if seen[norm] {
			cq.Notices = append(cq.Notices, "The skill "+v+" is the same skill as one named before ("+norm+"); it is shown once.")
			continue
		}
		seen[norm] = true
		cq.Skills = append(cq.Skills, v)
	}
	return cq, true, nil
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
	Form    compareForm
	Error   string
	Notices []string
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
	Operators, Validators              int
	Contested, Stale                   bool
	Limitations                        []string
}

// compare answers GET /trust/assess: the form, and when it names agents
// and skills, their assessments side by side in input order.
func (h *Handler) compare(w http.ResponseWriter, r *http.Request) error {
	q := r.URL.Query()
	page := comparePage{Form: formOf(q)}
	cq, ok, err := parseCompareQuery(q)
	if err == nil && ok {
		err = h.assess(r, cq, &page)
	}
	if err != nil {
		d := issuerProblem(err)
		if d.Status >= 500 {
			return err
		}
		page.Error, page.Agents, page.Skills, page.Context = d.Detail, nil, nil, nil
		return h.render(w, d.Status, "compare", "Compare agents", "compare", page)
	}
	return h.render(w, http.StatusOK, "compare", "Compare agents", "compare", page)
}

// assess fills page with the comparison of cq.
func (h *Handler) assess(r *http.Request, cq compareQuery, page *comparePage) error {
	ctx := r.Context()
	page.Notices = cq.Notices
	for i, id := range cq.Agents {
		prof, err := h.cfg.Profiles.PublicProfile(ctx, id)
		if err != nil {
			if issuer.ErrorCode(err) == issuer.CodeNotFound {
				return agentNotShown(i, string(id))
			}
			return err
		}
		page.Agents = append(page.Agents, comparedAgent{ID: string(id), Name: prof.Name, URL: "/agents/" + string(id)})
	}
	for i, v := range cq.Context.Normalized().Values() {
		if d := evidence.Dimensions[i]; v != "" {
			page.Context = append(page.Context, dimension{Name: d, Label: dimensionHints[d][0], Value: v})
		}
	}
	for _, asked := range cq.Skills {
		n := skilltrust.Skills1().Normalize(asked)
		cs := comparedSkill{Asked: asked, Skill: n.Name, Known: n.Known}
		for i, id := range cq.Agents {
			sp, err := h.cfg.Passports.SkillPassport(ctx, id, skilltrust.Task{Skill: asked, Context: cq.Context})
			if err != nil {
				if issuer.ErrorCode(err) == issuer.CodeNotFound {
					return agentNotShown(i, string(id))
				}
				return err
			}
			cell := compareCell{
				Assessment: word(assessmentWords, sp.Assessment), State: word(stateWords, sp.State),
				Level: word(levelWords, sp.EvidenceLevel), Estimate: estimateText(sp.Estimate), NA: sp.Estimate == nil,
				Operators: sp.Effective.Operators, Validators: sp.Effective.Validators,
				Contested: sp.Contested, Stale: sp.Stale,
			}
			for _, l := range sp.Limitations {
				cell.Limitations = append(cell.Limitations, skilltrust.Limitation(l).Text())
			}
			cs.Cells = append(cs.Cells, cell)
		}
		page.Skills = append(page.Skills, cs)
	}
	return nil
}

// agentNotShown is the refusal of the i-th agent (from 0) of a comparison
// when it is not shown: the same words for an unknown, private, unlisted
// or suspended agent, naming it as the visitor wrote it.
func agentNotShown(i int, id string) error {
	return issuer.Errorf(issuer.CodeNotFound, "agent %d, %s, is not a public agent of this issuer", i+1, id)
}
