package issuer

import (
	"net/url"
	"strings"

	"github.com/remnant/passportkit/evidence"
	"github.com/remnant/passportkit/passport"
	"github.com/remnant/passportkit/skilltrust"
)

// The answers of the public trust API (SPEC.md §16). Every transport
// serves these types as they are; their JSON names are stable. None
// carries an internal key, an operator, a reporter or a context label of
// the evidence: only the subject's public id, skill terms, the caller's own
// context, figures, codes and record ids (per-passport pseudonyms).

// SkillTerm says which skill a request asked about and what it names under
// skills-1 (SPEC.md §4.3).
type SkillTerm struct {
	// Requested is the term as given, trimmed.
	Requested string `json:"requested"`
	// Normalized is the skill the term names: a skill of the ontology in
	// its canonical spelling, or the normalised term itself.
	Normalized string `json:"normalized"`
	// InOntology reports whether skills-1 defines the skill.
	InOntology bool `json:"inOntology"`
}

// NewSkillTerm returns what the term names under skills-1.
func NewSkillTerm(term string) SkillTerm {
	s := skilltrust.Skills1().Normalize(term)
	return SkillTerm{Requested: term, Normalized: s.Name, InOntology: s.Known}
}

// SkillLinks are the routes that say more about one skill of one agent, in
// one task context.
type SkillLinks struct {
	Trust    string `json:"trust"`
	Evidence string `json:"evidence"`
}

// NewSkillLinks returns the trust and evidence routes of skill (as the
// agent's passport names it) for the agent id in the task context ctx.
func NewSkillLinks(id AgentID, skill string, ctx evidence.Context) SkillLinks {
	base := "/api/public/agents/" + url.PathEscape(string(id)) + "/skills/" + url.PathEscape(skill)
	q := ContextQuery(ctx)
	if q != "" {
		q = "?" + q
	}
	return SkillLinks{Trust: base + "/trust" + q, Evidence: base + "/evidence" + q}
}

// ContextQuery writes the stated labels of ctx as query fields, in the
// order of evidence.Dimensions; "" when none is stated.
func ContextQuery(ctx evidence.Context) string {
	var b strings.Builder
	for i, v := range ctx.Values() {
		if v == "" {
			continue
		}
		if b.Len() > 0 {
			b.WriteByte('&')
		}
		b.WriteString(evidence.Dimensions[i])
		b.WriteByte('=')
		b.WriteString(url.QueryEscape(v))
	}
	return b.String()
}

// PassportPath is the route of the agent's signed passport.
func PassportPath(id AgentID) string {
	return "/api/public/agents/" + url.PathEscape(string(id)) + "/passport"
}

// EvidenceFilePath is the route of the evidence file of the passport hash
// issued to the agent (SPEC.md §5.8).
func EvidenceFilePath(id AgentID, passportHash string) string {
	return PassportPath(id) + "/evidence?passportHash=" + url.QueryEscape(passportHash)
}

// SkillSummary is one skill passport in brief: the figures a comparison
// table shows, from the skill passport itself.
type SkillSummary struct {
	// Skill is the normalised skill.
	Skill         string                   `json:"skill"`
	State         passport.SkillState      `json:"state"`
	Assessment    passport.AssessmentLabel `json:"assessment"`
	EvidenceLevel passport.EvidenceLevel   `json:"evidenceLevel"`
	// Estimate is the interval, null when N/A.
	Estimate  *passport.SkillEstimate `json:"estimate"`
	Contested bool                    `json:"contested"`
	Stale     bool                    `json:"stale"`
	// IndependentOperators and IndependentValidators are the distinct
	// operators and reporters of distinct ownership whose positions carry
	// weight (effective.operators and effective.validators).
	IndependentOperators  int `json:"independentOperators"`
	IndependentValidators int `json:"independentValidators"`
	// UnresolvedContradictions counts the relevant contradictions of
	// non-zero eligibility that no resolution answers: the ones that make
	// the skill contested.
	UnresolvedContradictions int `json:"unresolvedContradictions"`
	// SourceCount is the number of relevant records.
	SourceCount int `json:"sourceCount"`
	// Limitations are the skill passport's limitation codes, sorted.
	Limitations    []string   `json:"limitations"`
	AssessedAt     string     `json:"assessedAt"`
	AssessmentHash string     `json:"assessmentHash"`
	Links          SkillLinks `json:"links"`
}

// NewSkillSummary summarises sp, the skill passport of the agent id in the
// task context ctx; unresolved is its number of unresolved contradictions.
func NewSkillSummary(id AgentID, sp passport.SkillPassport, unresolved int, ctx evidence.Context) SkillSummary {
	lim := sp.Limitations
	if lim == nil {
		lim = []string{}
	}
	return SkillSummary{
		Skill: sp.Skill, State: sp.State, Assessment: sp.Assessment, EvidenceLevel: sp.EvidenceLevel,
		Estimate: sp.Estimate, Contested: sp.Contested, Stale: sp.Stale,
		IndependentOperators: sp.Effective.Operators, IndependentValidators: sp.Effective.Validators,
		UnresolvedContradictions: unresolved, SourceCount: sp.SourceCount, Limitations: lim,
		AssessedAt: sp.AssessedAt, AssessmentHash: sp.AssessmentHash,
		Links: NewSkillLinks(id, sp.Skill, ctx),
	}
}

// SkillList is the answer of GET /api/public/agents/{publicId}/skills: the
// skill passports the agent's passport lists (SPEC.md §4.16), in its order.
type SkillList struct {
	Agent  AgentID        `json:"agent"`
	Skills []SkillSummary `json:"skills"`
	// Passport is the route of the signed passport that lists them.
	Passport string `json:"passport"`
}

// SkillTrust is the answer of GET
// /api/public/agents/{publicId}/skills/{skill}/trust: one skill passport
// in a task context, with why it says what it says.
type SkillTrust struct {
	Agent AgentID   `json:"agent"`
	Skill SkillTerm `json:"skill"`
	// Context holds the normalised labels the assessment used; {} for
	// none.
	Context evidence.Context `json:"context"`
	// Listed reports that the agent's passport lists the skill.
	Listed bool `json:"listed"`
	// SkillPassport is the full skill passport (SPEC.md §4.1); without a
	// context, for a listed skill, the one the agent's passport lists.
	SkillPassport            passport.SkillPassport `json:"skillPassport"`
	UnresolvedContradictions int                    `json:"unresolvedContradictions"`
	// Why explains the assessment in plain words.
	Why   skilltrust.Why `json:"why"`
	Links SkillLinks     `json:"links"`
}

// EvidenceSource is one relevant record of an assessment, with what it
// contributed.
type EvidenceSource struct {
	// Evidence is the record id, a pseudonym of the passport named by the
	// page's passportHash.
	Evidence string `json:"evidence"`
	Type     string `json:"type"`
	Outcome  string `json:"outcome,omitempty"`
	Quality  string `json:"quality"`
	// Skill is the skill term the record states, as recorded.
	Skill string `json:"skill"`
	Date  string `json:"date"`
	// Weight is the final weight, after caps; Applicability the skill
	// match; ContextMatch the context match (1, 0.5 or 0.2).
	Weight        float64 `json:"weight"`
	Applicability float64 `json:"applicability"`
	ContextMatch  float64 `json:"contextMatch"`
	// Role is counted, merged or not_weighted.
	Role string `json:"role"`
	// Contradiction is unresolved, resolved or none.
	Contradiction string `json:"contradiction"`
	// Memory is the public id of the memory the record is about, when it
	// is a public, active memory.
	Memory MemoryID `json:"memory,omitempty"`
	// Leaf is the record's index among the passport's evidence leaves
	// (SPEC.md §6), as in the evidence file and a bundle's disclosures.
	Leaf int `json:"leaf"`
	// Inspect is the route of the record in the passport's evidence file:
	// the file's route with a JSON Pointer (RFC 6901) fragment naming the
	// record.
	Inspect string `json:"inspect"`
}

// EvidencePage is the answer of GET
// /api/public/agents/{publicId}/skills/{skill}/evidence: one page of the
// relevant records of a skill's assessment, in the order of SPEC.md §16.3.
type EvidencePage struct {
	Agent   AgentID          `json:"agent"`
	Skill   SkillTerm        `json:"skill"`
	Context evidence.Context `json:"context"`
	// PassportHash names the passport whose evidence the records are;
	// EvidenceFile is the route of its evidence file.
	PassportHash string `json:"passportHash"`
	EvidenceFile string `json:"evidenceFile"`
	// SourceCount is the number of relevant records in the whole listing.
	SourceCount int `json:"sourceCount"`
	// Offset is the position of the page's first source in the listing.
	Offset  int              `json:"offset"`
	Sources []EvidenceSource `json:"sources"`
	// NextOffset is the offset of the next page while it is within
	// MaxEvidenceOffset; NextCursor is the cursor of the next page,
	// whenever there is one.
	NextOffset *int   `json:"nextOffset,omitempty"`
	NextCursor string `json:"nextCursor,omitempty"`
}

// TrustComparison is the answer of POST /api/public/trust/assess: each
// agent's assessments of the skills, side by side, in input order. It
// ranks nothing and adds nothing up across agents.
type TrustComparison struct {
	// Skills are the columns: the requested terms, in input order.
	Skills []SkillTerm `json:"skills"`
	// Context holds the normalised labels of the task context.
	Context evidence.Context `json:"context"`
	// Agents are the rows, in input order.
	Agents []ComparedAgent `json:"agents"`
}

// ComparedAgent is one row of a comparison: the agent's skill passports,
// summarised, in the order of the skills.
type ComparedAgent struct {
	Agent  AgentID        `json:"agent"`
	Skills []SkillSummary `json:"skills"`
}
