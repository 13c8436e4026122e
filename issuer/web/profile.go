package web

import (
	"context"
	"net/http"
	"net/url"
	"strconv"
	"time"

	"github.com/remnant/passportkit/evidence"
	"github.com/remnant/passportkit/issuer"
	"github.com/remnant/passportkit/issuer/issuing"
	"github.com/remnant/passportkit/passport"
	"github.com/remnant/passportkit/skilltrust"
)

// profilePage is the body of an agent's profile.
type profilePage struct {
	ID          string
	Name        string
	Description string

	PassportHash string
	IssuedAt     string
	ExpiresAt    string
	AssessedAt   string
	// PassportURL, EvidenceURL and TrustURL are the signed bundle, its
	// complete evidence file and the issuer's trust file.
	PassportURL, EvidenceURL, TrustURL string
	// PassportFile and TrustFileName are the names the downloads suggest;
	// VerifyCommand checks them offline.
	PassportFile, TrustFileName string
	VerifyCommand               string

	Skills   []skillRow
	Declared []string

	Stats           issuer.AgentStats
	TrustLevel      string
	ReputationScore string
	Domains         []domainRow
}

// skillRow is one skill passport in words, with its explanation: a row of
// the profile's skill table, or the head of a skill's page.
type skillRow struct {
	Skill      string
	Assessment string
	State      string
	Level      string
	Estimate   string
	NA         bool
	Operators  int
	Validators int
	Contested  bool
	Stale      bool
	// Unresolved counts the unresolved contradictions of non-zero
	// eligibility.
	Unresolved int
	Why        whyView
}

// whyView is the "Why this assessment?" of one skill: the trust service's
// why, the skill passport's figures, and sources.
type whyView struct {
	Skill   string
	Why     skilltrust.Why
	Figures []figure
	Sources sourcesView
}

type figure struct{ Name, Value string }

// sourcesView is one page of a skill's sources, as the trust service's
// evidence route gives it.
type sourcesView struct {
	Skill string
	Rows  []sourceRow
	// Count is the number of relevant records; First and Last are the
	// positions, from 1, of the first and last rows shown.
	Count, First, Last int
	// ContextMatch says whether to show each source's context match: only
	// when a task context is stated.
	ContextMatch bool
	// EvidenceURL is the evidence file of the passport the sources belong
	// to.
	EvidenceURL string
	// MoreURL, on a profile, is the skill's page, which lists every
	// source; "" when the profile shows them all.
	MoreURL string
	// StartURL, PrevURL and NextURL, on a skill's page, are the first, the
	// previous and the next page of sources; "" when there is none.
	StartURL, PrevURL, NextURL string
}

// sourceRow is one evidence record behind a skill.
type sourceRow struct {
	ID string
	// Page is the record's own page, in words; Inspect is the record in
	// the passport's evidence file: the evidence route's inspect link.
	Page, Inspect string
	// Kind is the record's type and Outcome its outcome ("" for a record
	// that is not an outcome); Context its context labels.
	Kind, Outcome, Context string
	Quality                string
	Skill                  string
	Date                   string
	Weight                 string
	Applicability          string
	ContextMatch           string
	Contradiction          string
	Role                   string
}

type domainRow struct {
	Domain                    string
	Score, Confidence         string
	SampleSize, Positive, Neg int
	UpdatedAt                 string
}

// profileSources bounds the sources a profile lists per skill; the skill's
// page lists every one, page by page.
const profileSources = 10

// readShown reads the public profile of the agent the request's path
// names, then runs read, which reads one passport (Passports.Latest) and
// everything else pinned to it (SPEC.md §18.2). A pinned passport the
// issuer dropped meanwhile, or a busy store, makes read run once more. Every agent that is
// not shown is errNoAgent.
func (h *Handler) readShown(r *http.Request, read func(ctx context.Context, id issuer.AgentID) error) (issuer.PublicProfile, error) {
	id, err := issuer.ParseAgentID(r.PathValue("publicId"))
	if err != nil {
		return issuer.PublicProfile{}, errNoAgent
	}
	prof, err := h.cfg.Profiles.PublicProfile(r.Context(), id)
	if err != nil {
		return prof, agentError(err)
	}
	err = read(r.Context(), id)
	if issuer.ErrorCode(err) == issuer.CodeUnavailable {
		err = read(r.Context(), id)
	}
	return prof, agentError(err)
}

// profile answers GET /agents/{publicId}.
func (h *Handler) profile(w http.ResponseWriter, r *http.Request) error {
	var page profilePage
	prof, err := h.readShown(r, func(ctx context.Context, id issuer.AgentID) (err error) {
		page, err = h.readProfile(ctx, id)
		return err
	})
	if err != nil {
		return err
	}
	page.Name, page.Description = prof.Name, prof.Description
	page.Stats, page.TrustLevel, page.ReputationScore = prof.Stats, string(prof.TrustLevel), prof.ReputationScore.String()
	for _, d := range prof.DomainReputations {
		page.Domains = append(page.Domains, domainRow{
			Domain: d.Domain, Score: d.Score.String(), Confidence: d.Confidence.String(),
			SampleSize: d.SampleSize, Positive: d.PositiveEvents, Neg: d.NegativeEvents,
			UpdatedAt: d.UpdatedAt.UTC().Format(time.DateOnly),
		})
	}
	return h.render(w, http.StatusOK, "profile", prof.Name, "", page)
}

// readProfile reads the agent's passport, then each listed skill's trust
// and first sources from the trust service (the sources kept per passport,
// firstPages), each read pinned to that passport.
func (h *Handler) readProfile(ctx context.Context, id issuer.AgentID) (profilePage, error) {
	is, err := h.cfg.Passports.Latest(ctx, id, issuing.DisclosePreviews)
	if err != nil {
		return profilePage{}, err
	}
	recs, err := h.records.of(is)
	if err != nil {
		return profilePage{}, err
	}
	p := &is.Passport
	page := profilePage{
		ID:       string(id),
		IssuedAt: p.IssuedAt.UTC().Format(time.RFC3339), ExpiresAt: p.ExpiresAt.UTC().Format(time.RFC3339),
		PassportHash:  is.PassportHash,
		PassportURL:   issuer.PassportPath(id),
		EvidenceURL:   issuer.EvidenceFilePath(id, is.PassportHash),
		TrustURL:      "/.well-known/passport-trust.json",
		PassportFile:  passportFileName(id, p.IssuedAt.Time),
		TrustFileName: "passport-trust.json",
		Declared:      p.DeclaredCapabilities,
	}
	page.VerifyCommand = "passport verify --trust " + page.TrustFileName + " --subject " + string(id) + " " + page.PassportFile
	for _, sp := range p.SkillPassports {
		q := issuer.TrustQuery{Skill: sp.Skill, Passport: is.PassportHash}
		st, err := h.cfg.Trust.PureSkillTrust(ctx, id, q)
		if err != nil {
			return profilePage{}, err
		}
		ev, ok := h.first.get(is.PassportHash, sp.Skill)
		if !ok {
			if ev, err = h.cfg.Trust.SkillEvidence(ctx, id, issuer.EvidenceQuery{TrustQuery: q, Limit: profileSources}); err != nil {
				return profilePage{}, err
			}
			h.first.put(sp.Skill, ev)
		}
		row := skillRowOf(sp, st, ev, recs)
		if ev.SourceCount > len(ev.Sources) {
			row.Why.Sources.MoreURL = skillPath(id, sp.Skill, "")
		}
		page.AssessedAt = sp.AssessedAt
		page.Skills = append(page.Skills, row)
	}
	return page, nil
}

// passportFileName is the name a passport's download suggests: the agent
// and the day it was issued, so that two downloads of one agent, or of two
// agents, do not overwrite each other.
func passportFileName(id issuer.AgentID, issued time.Time) string {
	return string(id) + "-" + issued.UTC().Format(time.DateOnly) + ".passport.json"
}

// skillPath is the address of the page of the agent's skill, followed by
// query, a raw query string ("" for none).
func skillPath(id issuer.AgentID, skill, query string) string {
	p := "/agents/" + url.PathEscape(string(id)) + "/skills/" + url.PathEscape(skill)
	if query != "" {
		p += "?" + query
	}
	return p
}

// skillRowOf builds a skill's row from its skill passport sp, its trust
// read st (whose skill passport is sp) and a page of its sources ev.
func skillRowOf(sp passport.SkillPassport, st issuer.SkillTrust, ev issuer.EvidencePage, recs []evidence.Record) skillRow {
	row := skillRow{
		Skill: sp.Skill, Assessment: word(assessmentWords, sp.Assessment), State: word(stateWords, sp.State),
		Level: word(levelWords, sp.EvidenceLevel), Estimate: estimateText(sp.Estimate), NA: sp.Estimate == nil,
		Operators: sp.Effective.Operators, Validators: sp.Effective.Validators,
		Contested: sp.Contested, Stale: sp.Stale, Unresolved: st.UnresolvedContradictions,
	}
	e, c := sp.Effective, sp.Coverage
	wy := whyView{Skill: sp.Skill, Why: st.Why}
	wy.Figures = []figure{
		{"Effective successes and failures (N)", fixed(e.Binary) + " (" + fixed(e.Successes) + " successes, " + fixed(e.Failures) + " failures)"},
		{"Partial and uncertain outcomes (not estimated)", fixed(e.Partial) + " partial, " + fixed(e.Uncertain) + " uncertain"},
		{"Corroborations and contradictions", fixed(e.Corroborations) + " corroborations, " + fixed(e.Contradictions) + " contradictions"},
		{"All effective observations", fixed(e.Observations)},
		{"Independent operators, validators, contexts", count(e.Operators, "operator") + ", " + count(e.Validators, "validator") + ", " + count(e.Contexts, "context")},
		{"Records looked at", count(c.Observations, "observation") + " in " + count(c.Positions, "position") + " over " + count(c.Lineages, "line") + " of work"},
	}
	if sp.Recency != nil {
		wy.Figures = append(wy.Figures, figure{"Latest eligible observation", sp.Recency.LatestEligible + " (" + strconv.Itoa(sp.Recency.AgeDays) + " days before the assessment)"})
	} else {
		wy.Figures = append(wy.Figures, figure{"Latest eligible observation", "none"})
	}
	if sp.Corrections > 0 {
		wy.Figures = append(wy.Figures, figure{"Corrections by the agent after a contrary report", strconv.Itoa(sp.Corrections)})
	}
	wy.Sources = sourcesOf(ev, recs)
	row.Why = wy
	return row
}

// sourcesOf shows a page of sources; recs are the records of the
// passport's evidence file, in leaf order, which say each source's
// context.
func sourcesOf(ev issuer.EvidencePage, recs []evidence.Record) sourcesView {
	v := sourcesView{
		Skill: ev.Skill.Normalized, Count: ev.SourceCount, First: ev.Offset + 1, Last: ev.Offset + len(ev.Sources),
		ContextMatch: ev.Context != (evidence.Context{}), EvidenceURL: ev.EvidenceFile,
	}
	for _, s := range ev.Sources {
		ctx := "unknown"
		if s.Leaf >= 0 && s.Leaf < len(recs) && recs[s.Leaf].ID == s.Evidence {
			ctx = contextText(recs[s.Leaf].Context)
		}
		v.Rows = append(v.Rows, sourceRow{
			ID: s.Evidence, Page: recordPath(ev.Agent, s.Evidence, ev.PassportHash), Inspect: s.Inspect,
			Kind: s.Type, Outcome: s.Outcome, Context: ctx, Quality: word(qualityWords, evidence.Quality(s.Quality)),
			Skill: s.Skill, Date: s.Date, Weight: fixed(s.Weight), Applicability: fixed(s.Applicability),
			ContextMatch: fixed(s.ContextMatch), Contradiction: s.Contradiction, Role: word(roleWords, s.Role),
		})
	}
	return v
}
