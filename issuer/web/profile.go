package web

import (
	"net/http"
	"net/url"
	"strconv"
	"sync"
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

// skillRow is one row of the skill table and its explanation.
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
	// eligibility; -1 when the explanation is unavailable.
	Unresolved int
	Why        why
}

// why is the "Why this assessment?" of one skill.
type why struct {
	Skill string
	Lead  string
	// Recomputed says the explanation was recomputed from the passport's
	// evidence file and matches the signed skill passport; when false the
	// figures are the signed ones and the rest is unavailable.
	Recomputed bool
	Figures    []figure
	HeldBack   []string
	Caps       []capRow
	// MoreCaps counts the capped groups not listed.
	MoreCaps    int
	Limitations []string
	Sources     []sourceRow
	// TotalSources is the number of relevant records; Sources shows at
	// most maxSourcesShown of them.
	TotalSources int
	EvidenceURL  string
}

type figure struct{ Name, Value string }

// capRow is one capped group: its kind in words, its cap, and how much
// weight it held before and after.
type capRow struct {
	Group          string
	Cap            string
	Initial, Final string
	Factor         string
}

// sourceRow is one evidence record behind a skill.
type sourceRow struct {
	ID            string
	What          string
	Quality       string
	Owner         string
	Date          string
	Weight        string
	Applicability string
	Contradiction string
	Role          string
}

type domainRow struct {
	Domain                    string
	Score, Confidence         string
	SampleSize, Positive, Neg int
	UpdatedAt                 string
}

// maxSourcesShown bounds the sources listed per skill; the evidence file
// holds every record.
const maxSourcesShown = 20

// profile answers GET /agents/{publicId}.
func (h *Handler) profile(w http.ResponseWriter, r *http.Request) error {
	id, err := issuer.ParseAgentID(r.PathValue("publicId"))
	if err != nil {
		return errNoAgent
	}
	ctx := r.Context()
	prof, err := h.cfg.Profiles.PublicProfile(ctx, id)
	if err != nil {
		return agentError(err)
	}
	is, err := h.cfg.Passports.Issue(ctx, id, issuing.DisclosePreviews)
	if err != nil {
		return agentError(err)
	}
	p := &is.Passport
	ex := h.explain.get(is)
	page := profilePage{
		ID: string(id), Name: prof.Name, Description: prof.Description,
		PassportHash: is.PassportHash,
		IssuedAt:     p.IssuedAt.UTC().Format(time.RFC3339), ExpiresAt: p.ExpiresAt.UTC().Format(time.RFC3339),
		PassportURL:   "/api/public/agents/" + string(id) + "/passport",
		EvidenceURL:   "/api/public/agents/" + string(id) + "/passport/evidence?passportHash=" + url.QueryEscape(is.PassportHash),
		TrustURL:      "/.well-known/passport-trust.json",
		PassportFile:  string(id) + ".passport.json",
		TrustFileName: "passport-trust.json",
		Declared:      p.DeclaredCapabilities,
		Stats:         prof.Stats,
		TrustLevel:    string(prof.TrustLevel), ReputationScore: prof.ReputationScore.String(),
	}
	page.VerifyCommand = "passport verify --trust " + page.TrustFileName + " --subject " + string(id) + " " + page.PassportFile
	for _, sp := range p.SkillPassports {
		page.AssessedAt = sp.AssessedAt
		page.Skills = append(page.Skills, skillRowOf(sp, ex.bySkill[sp.Skill], page.EvidenceURL))
	}
	for _, d := range prof.DomainReputations {
		page.Domains = append(page.Domains, domainRow{
			Domain: d.Domain, Score: d.Score.String(), Confidence: d.Confidence.String(),
			SampleSize: d.SampleSize, Positive: d.PositiveEvents, Neg: d.NegativeEvents,
			UpdatedAt: d.UpdatedAt.UTC().Format(time.DateOnly),
		})
	}
	return h.render(w, http.StatusOK, "profile", prof.Name, "", page)
}

// skillRowOf builds a skill's row from its signed skill passport and, when
// the recomputation matched, the explanation behind it (nil otherwise).
func skillRowOf(sp passport.SkillPassport, x *explanation, evidenceURL string) skillRow {
	row := skillRow{
		Skill: sp.Skill, Assessment: word(assessmentWords, sp.Assessment), State: word(stateWords, sp.State),
		Level: word(levelWords, sp.EvidenceLevel), Estimate: estimateText(sp.Estimate), NA: sp.Estimate == nil,
		Operators: sp.Effective.Operators, Validators: sp.Effective.Validators,
		Contested: sp.Contested, Stale: sp.Stale, Unresolved: -1,
	}
	e, c := sp.Effective, sp.Coverage
	wy := why{Skill: sp.Skill, Lead: assessmentLeads[sp.Assessment], TotalSources: sp.SourceCount, EvidenceURL: evidenceURL}
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
	for _, l := range sp.Limitations {
		wy.Limitations = append(wy.Limitations, skilltrust.Limitation(l).Text())
	}
	if x != nil {
		wy.Recomputed = true
		row.Unresolved = x.unresolved
		wy.HeldBack, wy.Caps, wy.MoreCaps, wy.Sources = x.heldBack, x.caps, x.moreCaps, x.sources
	}
	row.Why = wy
	return row
}

func sourceRowOf(s skilltrust.Source) sourceRow {
	what := string(s.Type)
	if s.Outcome != "" {
		what += ": " + string(s.Outcome)
	}
	contra := "none"
	if s.Contradiction != "" {
		contra = s.Contradiction
	}
	role := map[skilltrust.Role]string{
		skilltrust.RoleCounted:     "holds a position",
		skilltrust.RoleMerged:      "merged into " + s.MergedInto,
		skilltrust.RoleNotWeighted: "never weighted",
	}[s.Role]
	return sourceRow{
		ID: s.ID, What: what, Quality: word(qualityWords, s.Quality), Owner: word(ownershipWords, s.Ownership),
		Date: s.Date.String(), Weight: fixed(s.Weight), Applicability: fixed(s.Applicability),
		Contradiction: contra, Role: role,
	}
}

// explained holds the explanation of each skill passport of one issued
// passport whose recomputation from the evidence file matched.
type explained struct {
	bySkill map[string]*explanation
}

// explanation is what a profile shows of the full assessment behind one
// skill passport, bounded whatever the size of the evidence.
type explanation struct {
	// unresolved counts the unresolved contradictions of non-zero
	// eligibility.
	unresolved int
	heldBack   []string
	// caps are the first maxCapsShown capped groups; moreCaps counts the
	// rest.
	caps     []capRow
	moreCaps int
	// sources are the first maxSourcesShown sources in ranked order.
	sources []sourceRow
}

// maxCapsShown bounds the capped groups listed per skill.
const maxCapsShown = 20

// explanationOf keeps what a profile shows of a.
func explanationOf(a *skilltrust.Assessment) *explanation {
	x := &explanation{}
	for _, k := range a.Contradictions {
		if k.Eligible && k.Status == "unresolved" {
			x.unresolved++
		}
	}
	for _, t := range a.HeldBackBy {
		x.heldBack = append(x.heldBack, t.Text())
	}
	for _, g := range a.Groups {
		if g.Factor >= 1 {
			continue
		}
		if len(x.caps) == maxCapsShown {
			x.moreCaps++
			continue
		}
		x.caps = append(x.caps, capRow{Group: word(groupWords, g.Kind), Cap: fixed(g.Cap),
			Initial: fixed(g.InitialMass), Final: fixed(g.Mass), Factor: fixed(g.Factor)})
	}
	for i, j := range skilltrust.SourceOrder(a.Sources) {
		if i == maxSourcesShown {
			break
		}
		x.sources = append(x.sources, sourceRowOf(a.Sources[j]))
	}
	return x
}

// explainCacheSize bounds the passports whose explanations are kept.
const explainCacheSize = 16

// explainCache keeps the explanations of the most recently shown
// passports, by passportHash: a passport never changes, and within an
// hour an unchanged subject is served the same one.
type explainCache struct {
	mu    sync.Mutex
	max   int
	order []string // least recently used first
	items map[string]*explained
}

func newExplainCache(max int) *explainCache {
	return &explainCache{max: max, items: map[string]*explained{}}
}

// get returns the explanation of is, recomputing it when missing.
func (c *explainCache) get(is *issuing.Issued) *explained {
	c.mu.Lock()
	if e, ok := c.items[is.PassportHash]; ok {
		c.touch(is.PassportHash)
		c.mu.Unlock()
		return e
	}
	c.mu.Unlock()
	e := explain(is)
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.items[is.PassportHash]; !ok {
		if len(c.order) == c.max {
			delete(c.items, c.order[0])
			c.order = c.order[1:]
		}
		c.items[is.PassportHash] = e
		c.order = append(c.order, is.PassportHash)
	}
	return e
}

func (c *explainCache) touch(k string) {
	for i, o := range c.order {
		if o == k {
			c.order = append(append(c.order[:i:i], c.order[i+1:]...), k)
			return
		}
	}
}

// explain recomputes every skill passport of is from its complete evidence
// file, as a verifier would (SPEC.md §4.15), and keeps the assessments
// whose skill passport is the one signed.
func explain(is *issuing.Issued) *explained {
	e := &explained{bySkill: map[string]*explanation{}}
	set, err := evidence.Parse(is.EvidenceFile)
	if err != nil {
		return e
	}
	for _, sp := range is.Passport.SkillPassports {
		at, err := evidence.ParseDate(sp.AssessedAt)
		if err != nil {
			continue
		}
		a, err := skilltrust.Assess(set, skilltrust.Task{Skill: sp.Skill}, at)
		if err != nil {
			continue
		}
		again, err := a.SkillPassportAs(is.Passport.TrustModelVersion)
		if err != nil || again.AssessmentHash != sp.AssessmentHash {
			continue
		}
		e.bySkill[sp.Skill] = explanationOf(a)
	}
	return e
}
