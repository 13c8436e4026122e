package web

import (
	"context"
	"net/http"
	"strconv"

	"github.com/remnant/passportkit/evidence"
	"github.com/remnant/passportkit/issuer"
	"github.com/remnant/passportkit/issuer/issuing"
)

// skillPage is the body of one skill's page: the trust service's answer
// for the skill in a task context, and one page of its sources.
type skillPage struct {
	ID, Name, ProfileURL string
	Skill                issuer.SkillTerm
	// Context holds the stated dimensions, normalised.
	Context []dimension
	// Listed says that the agent's passport lists the skill.
	Listed       bool
	PassportHash string
	Row          skillRow
	// Timeline draws the sources of the page over time; nil without any.
	Timeline *timelineView
}

// skill answers GET /agents/{publicId}/skills/{skill}: the page of
// GET /api/public/agents/{publicId}/skills/{skill}/trust and /evidence,
// whose query it takes and reads the same way (SPEC.md §18.6).
func (h *Handler) skill(w http.ResponseWriter, r *http.Request) error {
	q, err := issuer.ParseEvidenceQuery(r.PathValue("skill"), r.URL.RawQuery)
	if err != nil {
		return err
	}
	var page skillPage
	prof, err := h.readShown(r, func(ctx context.Context, id issuer.AgentID) (err error) {
		page, err = h.readSkill(ctx, id, q)
		return err
	})
	if err != nil {
		return err
	}
	page.Name = prof.Name
	return h.render(w, http.StatusOK, "skill", page.Skill.Normalized+" · "+prof.Name, "", page)
}

// readSkill reads the agent's passport, then the skill's trust and a page
// of its sources, pinned to that passport (see readProfile).
func (h *Handler) readSkill(ctx context.Context, id issuer.AgentID, q issuer.EvidenceQuery) (skillPage, error) {
	is, err := h.cfg.Passports.Latest(ctx, id, issuing.DisclosePreviews)
	if err != nil {
		return skillPage{}, err
	}
	q.Passport = is.PassportHash
	st, err := h.cfg.Trust.PureSkillTrust(ctx, id, q.TrustQuery)
	if err != nil {
		return skillPage{}, err
	}
	ev, err := h.cfg.Trust.SkillEvidence(ctx, id, q)
	if err != nil {
		return skillPage{}, err
	}
	recs, err := h.records.of(is)
	if err != nil {
		return skillPage{}, err
	}
	page := skillPage{
		ID: string(id), ProfileURL: "/agents/" + string(id), Skill: st.Skill, Listed: st.Listed,
		Context: stated(st.Context), PassportHash: is.PassportHash, Row: skillRowOf(st.SkillPassport, st, ev, recs),
	}
	sp := st.SkillPassport
	page.Timeline = timelineOf(ev, sp.AssessedAt, sp.Stale, sp.Contested)
	pageLinks(&page.Row.Why.Sources, id, q.Limit, ev)
	return page, nil
}

// stated returns the stated dimensions of c, in dimension order.
func stated(c evidence.Context) []dimension {
	var out []dimension
	for i, v := range c.Values() {
		if d := evidence.Dimensions[i]; v != "" {
			out = append(out, dimension{Name: d, Label: dimensionHints[d][0], Value: v})
		}
	}
	return out
}

// pageLinks sets the addresses of the first, previous and next pages of
// the listing ev is a page of, limit sources a page: by offset while it is
// at most MaxEvidenceOffset, by ev's cursor beyond.
func pageLinks(v *sourcesView, id issuer.AgentID, limit int, ev issuer.EvidencePage) {
	base := issuer.ContextQuery(ev.Context)
	if limit != issuer.DefaultEvidenceLimit {
		base = join(base, "limit="+strconv.Itoa(limit))
	}
	at := func(field string) string { return skillPath(id, ev.Skill.Normalized, join(base, field)) }
	if ev.Offset > 0 {
		v.StartURL = at("")
		if prev := ev.Offset - limit; prev <= issuer.MaxEvidenceOffset {
			v.PrevURL = v.StartURL
			if prev > 0 {
				v.PrevURL = at("offset=" + strconv.Itoa(prev))
			}
		}
	}
	switch {
	case ev.NextOffset != nil:
		v.NextURL = at("offset=" + strconv.Itoa(*ev.NextOffset))
	case ev.NextCursor != "":
		v.NextURL = at("cursor=" + ev.NextCursor)
	}
}

// join joins two raw query strings.
func join(a, b string) string {
	if a == "" || b == "" {
		return a + b
	}
	return a + "&" + b
}
