package mcpserver

import (
	"context"
	"encoding/json"
	"strconv"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/remnant/passportkit/evidence"
	"github.com/remnant/passportkit/issuer"
)

// TrustReader answers the trust tools, the public trust API's reads
// (SPEC.md §16) as pure reads: none of them writes skill history (SPEC.md
// §5.9, §14.2). *service.Trust implements it.
type TrustReader interface {
	Skills(ctx context.Context, id issuer.AgentID) (issuer.SkillList, error)
	PureSkillTrust(ctx context.Context, id issuer.AgentID, q issuer.TrustQuery) (issuer.SkillTrust, error)
	SkillEvidence(ctx context.Context, id issuer.AgentID, q issuer.EvidenceQuery) (issuer.EvidencePage, error)
	Assess(ctx context.Context, r issuer.AssessRequest) (issuer.TrustComparison, error)
}

// WithTrustAPI serves get_agent_skills, get_skill_trust,
// get_skill_evidence and assess_trust over r: the answers of the public
// trust API's routes. Give it the trust API the HTTP routes serve, so that
// an evidence cursor of either transport works on the other.
func WithTrustAPI(r TrustReader) Option { return func(c *config) { c.trustAPI = r } }

// What the trust tools' descriptions tell an agent about every figure.
const (
	figuresMean = "These figures are evidence recorded about the agent and weighed by the issuer's published rules, not an " +
		"endorsement. estimate is an interval; null means N/A: too little independent evidence for one, never a score of 0. " +
		"contested means unresolved contradictions; stale means the evidence is old. "
	giveContext = "Give your task's context (domain, environment, protocol, version, workload, constraints): evidence " +
		"from contexts unlike yours counts for less. "
	hidden = "An agent without a public profile is not_found."
)

// addTrustTools registers the trust tools when their dependency is
// configured.
func addTrustTools(t *tools) {
	if t.cfg.trustAPI == nil {
		return
	}
	addTool(t, anyone, &mcp.Tool{
		Name:  "get_agent_skills",
		Title: "An agent's skills",
		Description: "The skills an agent's passport lists, each in brief: state, assessment, evidenceLevel, estimate, " +
			"contested, stale, independent operators and validators, unresolved contradictions, sourceCount and limitations, " +
			"as GET /api/public/agents/{publicId}/skills answers. " + figuresMean + hidden,
		InputSchema: skillsSchema(),
		Annotations: reads(),
	}, t.agentSkills)
	addTool(t, anyone, &mcp.Tool{
		Name:  "get_skill_trust",
		Title: "One skill of an agent, in your context",
		Description: "One skill of an agent in your task's context: the full skill passport, the skill and context it was " +
			"assessed for, and why in plain words (what the assessment, state, evidence level and estimate mean, which " +
			"sources counted, caps, limitations and the thresholds not met), as GET …/skills/{skill}/trust answers. " +
			giveContext + figuresMean + "A skill with no evidence is an answer (NEW, estimate null), not an error. " + hidden,
		InputSchema: skillTrustSchema(),
		Annotations: reads(),
	}, t.skillTrust)
	addTool(t, anyone, &mcp.Tool{
		Name:  "get_skill_evidence",
		Title: "The evidence behind a skill",
		Description: "The records behind an agent's assessment of a skill in a context, page by page, as GET " +
			"…/skills/{skill}/evidence answers: unresolved contradictions first, then failures, other counted records and " +
			"the rest, heavier first; each with type, outcome, quality, date, weight, applicability, context match, role, " +
			"contradiction status, the memory, and inspect (the record in the hour's passport's evidence file). limit 1 to " +
			"50 (default 50), offset 0 to 1000; further, pass the page's nextCursor as cursor (the HTTP route's cursors work " +
			"too). A cursor is cursor_invalid once the agent's evidence or the hour changed: start again at offset 0. " + hidden,
		InputSchema: evidenceSchema(),
		Annotations: reads(),
	}, t.skillEvidence)
	addRawTool(t, anyone, &mcp.Tool{
		Name:  "assess_trust",
		Title: "Compare agents on skills",
		Description: "Compare 1 to 5 agents on 1 to 5 skills in one task context: each agent's skill passports in brief, " +
			"side by side in input order, as POST /api/public/trust/assess answers. Nothing is ranked or totalled: read " +
			"each cell's evidence level and estimate with its flags. " + giveContext + figuresMean +
			"The first agent, in input order, without a public profile makes the call not_found.",
		InputSchema: assessSchema(),
		Annotations: reads(),
	}, t.assessTrust)
}

// SkillsInput is the input of get_agent_skills.
type SkillsInput struct {
	PublicID string `json:"publicId" jsonschema:"the agent (agt_…)"`
}

func (t *tools) agentSkills(ctx context.Context, _ issuer.Principal, in SkillsInput) (issuer.SkillList, error) {
	id, err := issuer.ParseAgentID(in.PublicID)
	if err != nil {
		return issuer.SkillList{}, err
	}
	return t.cfg.trustAPI.Skills(ctx, id)
}

// SkillTrustInput is the input of get_skill_trust.
type SkillTrustInput struct {
	PublicID string              `json:"publicId" jsonschema:"the agent (agt_…)"`
	Skill    string              `json:"skill" jsonschema:"the skill term, such as PostgreSQL indexing"`
	Context  *issuer.TaskContext `json:"context,omitempty" jsonschema:"your task's context: any of domain, environment, protocol, version, workload, constraints"`
}

func (t *tools) skillTrust(ctx context.Context, _ issuer.Principal, in SkillTrustInput) (issuer.SkillTrust, error) {
	q, err := issuer.NewTrustQuery(in.Skill, in.Context)
	if err != nil {
		return issuer.SkillTrust{}, err
	}
	id, err := issuer.ParseAgentID(in.PublicID)
	if err != nil {
		return issuer.SkillTrust{}, err
	}
	return t.cfg.trustAPI.PureSkillTrust(ctx, id, q)
}

// EvidenceInput is the input of get_skill_evidence.
type EvidenceInput struct {
	PublicID string              `json:"publicId" jsonschema:"the agent (agt_…)"`
	Skill    string              `json:"skill" jsonschema:"the skill term, such as PostgreSQL indexing"`
	Context  *issuer.TaskContext `json:"context,omitempty" jsonschema:"the task context of the assessment: any of domain, environment, protocol, version, workload, constraints"`
	Limit    *int                `json:"limit,omitempty" jsonschema:"sources per page, 1 to 50 (default 50)"`
	Offset   *int                `json:"offset,omitempty" jsonschema:"the position of the page's first source, 0 to 1000; not with cursor"`
	Cursor   *string             `json:"cursor,omitempty" jsonschema:"the nextCursor of the previous page; not with offset"`
}

func (t *tools) skillEvidence(ctx context.Context, _ issuer.Principal, in EvidenceInput) (issuer.EvidencePage, error) {
	q, err := issuer.NewEvidenceQuery(in.Skill, in.Context, in.Limit, in.Offset, in.Cursor)
	if err != nil {
		return issuer.EvidencePage{}, err
	}
	id, err := issuer.ParseAgentID(in.PublicID)
	if err != nil {
		return issuer.EvidencePage{}, err
	}
	return t.cfg.trustAPI.SkillEvidence(ctx, id, q)
}

func (t *tools) assessTrust(ctx context.Context, _ issuer.Principal, args []byte) (issuer.TrustComparison, error) {
	r, err := issuer.ParseAssessRequest(args)
	if err != nil {
		return issuer.TrustComparison{}, err
	}
	return t.cfg.trustAPI.Assess(ctx, r)
}

// assessArgs describes the arguments of assess_trust for its input schema
// only: issuer.ParseAssessRequest reads them, as it reads the body of
// POST /api/public/trust/assess.
type assessArgs struct {
	Agents  []string            `json:"agents" jsonschema:"the agents to compare (agt_…), in the order of the rows; 1 to 5, none twice"`
	Skills  []string            `json:"skills" jsonschema:"the skill terms, in the order of the columns; 1 to 5, no two naming one skill"`
	Context *issuer.TaskContext `json:"context,omitempty" jsonschema:"your task's context: any of domain, environment, protocol, version, workload, constraints"`
}

// Patterns the input schemas state: an agent id (agt_ and 26 characters
// of lower-case base32) and a cursor (base64url). They describe rules
// package issuer checks; the checks, not the schemas, decide.
const (
	agentPattern  = "^agt_[a-z2-7]{26}$"
	cursorPattern = "^[A-Za-z0-9_-]+$"
)

func skillsSchema() *jsonschema.Schema {
	s := schemaFor[SkillsInput]("get_agent_skills")
	s.Properties["publicId"].Pattern = agentPattern
	return s
}

func skillTrustSchema() *jsonschema.Schema {
	s := schemaFor[SkillTrustInput]("get_skill_trust")
	boundSkillRead(s)
	return s
}

func evidenceSchema() *jsonschema.Schema {
	s := schemaFor[EvidenceInput]("get_skill_evidence")
	boundSkillRead(s)
	p := s.Properties
	p["limit"].Minimum, p["limit"].Maximum = number(1), number(issuer.MaxEvidenceLimit)
	p["limit"].Default = json.RawMessage(strconv.Itoa(issuer.DefaultEvidenceLimit))
	p["offset"].Minimum, p["offset"].Maximum = number(0), number(issuer.MaxEvidenceOffset)
	p["cursor"].MinLength, p["cursor"].MaxLength, p["cursor"].Pattern = integer(1), integer(issuer.MaxCursor), cursorPattern
	return s
}

func assessSchema() *jsonschema.Schema {
	s := schemaFor[assessArgs]("assess_trust")
	p := s.Properties
	p["agents"].MinItems, p["agents"].MaxItems, p["agents"].UniqueItems = integer(1), integer(issuer.MaxAssessAgents), true
	p["agents"].Items.Pattern = agentPattern
	p["skills"].MinItems, p["skills"].MaxItems, p["skills"].UniqueItems = integer(1), integer(issuer.MaxAssessSkills), true
	boundTerm(p["skills"].Items)
	boundContext(p["context"])
	return s
}

// boundSkillRead bounds the members a read of one agent's skill shares.
func boundSkillRead(s *jsonschema.Schema) {
	s.Properties["publicId"].Pattern = agentPattern
	boundTerm(s.Properties["skill"])
	boundContext(s.Properties["context"])
}

// boundTerm bounds a skill term: 1 to issuer.MaxClaimBytes bytes, which
// is at least as many characters.
func boundTerm(s *jsonschema.Schema) {
	s.MinLength, s.MaxLength = integer(1), integer(issuer.MaxClaimBytes)
}

// boundContext bounds each label of a task context.
func boundContext(s *jsonschema.Schema) {
	for _, dim := range evidence.Dimensions {
		l := s.Properties[dim]
		l.MaxLength = integer(issuer.MaxClaimBytes)
		l.Description = "a label of at most " + strconv.Itoa(issuer.MaxClaimBytes) + " bytes, not blank; leave the dimension out, or null, to state nothing"
	}
}

func number(n int) *float64 { f := float64(n); return &f }
func integer(n int) *int    { return &n }
