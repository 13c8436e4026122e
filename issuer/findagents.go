package issuer

import (
	"slices"
	"strconv"
	"time"

	"github.com/remnant/passportkit/evidence"
)

// Bounds of a find_agents query (SPEC.md §17).
const (
	// DefaultFindAgentsLimit and MaxFindAgentsLimit bound the results of
	// one page.
	DefaultFindAgentsLimit = 20
	MaxFindAgentsLimit     = 100
	// MaxFindAgentsCursor bounds a cursor's text, in bytes: more than any
	// cursor the service issues.
	MaxFindAgentsCursor = 512
)

// FindAgentsQuery is a checked find_agents query (see
// [NewFindAgentsQuery]). Nothing in it is normalised yet: the service
// normalises the skill with the ontology and the labels as SPEC.md §4.4
// says.
type FindAgentsQuery struct {
	// Skill is the skill term as given, "" for the listing without a skill.
	Skill string
	// Context holds the task-context labels given, trimmed; only with a
	// skill.
	Context evidence.Context
	// Limit is the page size, 1 to MaxFindAgentsLimit.
	Limit int
	// Cursor is the opaque cursor of the page to continue from, "" for the
	// first page; only the service can read it.
	Cursor string
}

// FindAgentsRequest is the wire form of a find_agents query as a JSON
// object (an MCP tool's arguments): the members of the query string, each
// optional. [Decode] binds the known members and keeps the names of the
// others, which [FindAgentsRequest.Query] refuses as the query string's
// unknown parameters are refused, so that both forms of one query get one
// answer (SPEC.md §17.7).
type FindAgentsRequest struct {
	Skill  *string `json:"skill,omitempty"`
	Limit  *int    `json:"limit,omitempty"`
	Cursor *string `json:"cursor,omitempty"`
	ContextRequest
	// unknown holds the members that name no part of the query.
	unknown []string
}

// refuseMember keeps an unknown member for Query to refuse.
func (r *FindAgentsRequest) refuseMember(path string) error {
	r.unknown = append(r.unknown, path)
	return nil
}

// Query checks r: first the unknown members, the first in byte order
// named (unknown_context_dimension, as [ParseFindAgentsQuery] names an
// unknown parameter), then as [NewFindAgentsQuery] does.
func (r FindAgentsRequest) Query() (FindAgentsQuery, error) {
	if len(r.unknown) > 0 {
		return FindAgentsQuery{}, unknownFindAgentsField(slices.Min(r.unknown))
	}
	return NewFindAgentsQuery(r.Skill, r.ContextRequest, r.Limit, r.Cursor)
}

// unknownFindAgentsField refuses a parameter or member that names no part
// of a find_agents query, in the same words for either form.
func unknownFindAgentsField(name string) error {
	return Errorf(CodeUnknownDimension,
		"%q is not part of a find_agents query, which takes skill, limit, cursor and the context dimensions domain, environment, protocol, version, workload and constraints", truncate(name, 40))
}

// NewFindAgentsQuery checks a find_agents query; nil means absent. skill is
// one line of safe text of at most 200 bytes after trimming, not blank
// after the normalisation of SPEC.md §4.3; each context label likewise,
// given only with a skill; limit 1 to [MaxFindAgentsLimit] ([DefaultFindAgentsLimit]
// when absent), else limit_out_of_range; cursor non-empty and at most
// [MaxFindAgentsCursor] bytes, else cursor_invalid. The faults are
// reported in that order: skill, context (in the order of
// evidence.Dimensions), limit, cursor.
func NewFindAgentsQuery(skill *string, ctx ContextRequest, limit *int, cursor *string) (FindAgentsQuery, error) {
	q := FindAgentsQuery{Limit: DefaultFindAgentsLimit}
	if skill != nil {
		s, err := claim("skill", skill)
		if err != nil {
			return q, err
		}
		if evidence.NormalizeLabel(s) == "" {
			return q, Errorf(CodeInvalid, "skill must not be blank: it names the skill to rank agents by, such as \"PostgreSQL indexing\"")
		}
		q.Skill = s
	}
	labels := []*string{ctx.Domain, ctx.Environment, ctx.Protocol, ctx.Version, ctx.Workload, ctx.Constraints}
	for i, dim := range evidence.Dimensions {
		if labels[i] == nil {
			continue
		}
		v, err := claim(dim, labels[i])
		if err != nil {
			return q, err
		}
		if evidence.NormalizeLabel(v) == "" {
			return q, Errorf(CodeInvalid, "%s must not be blank: give a label or leave the dimension out", dim)
		}
		if skill == nil {
			return q, Errorf(CodeInvalid, "%s is a task-context label and needs a skill: a context ranks agents by their evidence for a skill in it", dim)
		}
		q.Context.Set(dim, v)
	}
	if limit != nil {
		if *limit < 1 || *limit > MaxFindAgentsLimit {
			return q, Errorf(CodeLimitOutOfRange, "limit must be between 1 and %d", MaxFindAgentsLimit)
		}
		q.Limit = *limit
	}
	if cursor != nil {
		if *cursor == "" || len(*cursor) > MaxFindAgentsCursor {
			return q, Errorf(CodeCursorInvalid, "cursor is not one this service returned")
		}
		q.Cursor = *cursor
	}
	return q, nil
}

// FindAgentsParams returns the table of a find_agents query string:
// skill, limit, cursor and the six context dimensions of SPEC.md §4.4,
// each at most once. Any other name is unknown_context_dimension: what a
// caller adds to a discovery query is most likely a task-context label the
// trust model does not define.
func FindAgentsParams() QuerySpec {
	return QuerySpec{Params: append(Params("skill", "limit", "cursor"), ContextParams()...), Unknown: unknownFindAgentsField}
}

// ParseFindAgentsQuery reads a find_agents query from a raw URL query
// string by [FindAgentsParams], whole ([QuerySpec.Read]: a field that does
// not decode, then the first unknown name in byte order, then a parameter
// given twice), then a limit that is not a decimal integer
// (invalid_request; an integer outside 1 to 100 is limit_out_of_range),
// then as [NewFindAgentsQuery] says.
func ParseFindAgentsQuery(raw string) (FindAgentsQuery, error) {
	v, err := FindAgentsParams().Read(raw)
	if err != nil {
		return FindAgentsQuery{}, err
	}
	var (
		skill, cursor *string
		limit         *int
		ctx           ContextRequest
	)
	labels := map[string]**string{"domain": &ctx.Domain, "environment": &ctx.Environment, "protocol": &ctx.Protocol,
		"version": &ctx.Version, "workload": &ctx.Workload, "constraints": &ctx.Constraints}
	for name, vals := range v {
		val := vals[0]
		switch name {
		case "skill":
			skill = &val
		case "cursor":
			cursor = &val
		case "limit":
			n, err := parseSmallUint(val)
			if err == strconv.ErrSyntax || val == "" {
				return FindAgentsQuery{}, Errorf(CodeInvalid, "limit must be a decimal integer")
			}
			if err != nil {
				n = MaxFindAgentsLimit + 1 // more digits than any limit
			}
			limit = &n
		default:
			*labels[name] = &val
		}
	}
	return NewFindAgentsQuery(skill, ctx, limit, cursor)
}

// The bases of a find_agents page: what its results are ranked by.
const (
	// BasisSkillEvidence: the listed skill passport of each agent, with no
	// task context (SPEC.md §17.2).
	BasisSkillEvidence = "skill_evidence"
	// BasisSkillEvidenceInContext: each agent's skill passport for the
	// skill in the task context (SPEC.md §17.4).
	BasisSkillEvidenceInContext = "skill_evidence_in_context"
	// BasisGlobalReputation: the legacy registry listing, by the global
	// reputation aggregate; no skill evidence (SPEC.md §17.6).
	BasisGlobalReputation = "global_reputation"
)

// RecentAgentsPage is one page of the public agents by their latest
// evidence, the start page's listing (SPEC.md §18.9).
type RecentAgentsPage struct {
	Agents []RecentAgent
	// NextCursor continues the listing; "" on the last page.
	NextCursor string
}

// RecentAgent is one agent of a [RecentAgentsPage].
type RecentAgent struct {
	ID AgentID
	// Name is the public display name, "" when there is none to show.
	Name string
	// LatestEvidence is the latest day (YYYY-MM-DD) of eligible evidence
	// of any skill its passport lists, "" when none has any.
	LatestEvidence string
}

// FindAgentsPage is one page of find_agents.
type FindAgentsPage struct {
	// Query is the query as the service understood it: the normalised
	// skill and context, and the limit.
	Query FindAgentsEcho `json:"query"`
	// Basis says what ranks the results: one of the Basis constants.
	Basis   string       `json:"basis"`
	Results []FoundAgent `json:"results"`
	// NextCursor continues after the last result; absent on the last page.
	NextCursor string `json:"nextCursor,omitempty"`
	// Truncated reports a page cut short: only a query in context whose
	// work bound stopped it before its order was proven (Work says how
	// far it got). A listing never leaves out an agent it ranks.
	Truncated bool `json:"truncated"`
	// Note explains a page that needs it: an unknown skill, a page cut
	// short.
	Note string `json:"note,omitempty"`
	// Freshness says how far the index behind the page lags the records.
	Freshness Freshness `json:"freshness"`
	// Work reports, for a query in context, the candidates assessed.
	Work *ContextWork `json:"work,omitempty"`
}

// FindAgentsEcho is a query as the service understood it.
type FindAgentsEcho struct {
	// Skill is the normalised skill; absent for the legacy listing.
	Skill string `json:"skill,omitempty"`
	// Context holds the normalised labels; absent when none is given.
	Context *evidence.Context `json:"context,omitempty"`
	Limit   int               `json:"limit"`
}

// FoundAgent is one ranked agent.
type FoundAgent struct {
	ID AgentID `json:"id"`
	// Name is the agent's public display name (safe text), absent when it
	// has none that may be shown.
	Name string `json:"name,omitempty"`
	// Skill summarises the skill passport the rank comes from; absent in
	// the legacy listing.
	Skill *FoundSkill `json:"skill,omitempty"`
	// Reputation is the global aggregate the legacy listing ranks by;
	// absent when a skill is asked for.
	Reputation *FoundReputation `json:"reputation,omitempty"`
	// Why says in one line what put the agent here.
	Why string `json:"why"`
	// ChangedSinceIndexed marks an agent whose records changed after the
	// index computed its figures: it awaits re-indexing.
	ChangedSinceIndexed bool `json:"changedSinceIndexed,omitempty"`
}

// FoundSkill summarises a skill passport (SPEC.md §4.1).
type FoundSkill struct {
	Skill         string `json:"skill"`
	State         string `json:"state"`
	Assessment    string `json:"assessment"`
	EvidenceLevel string `json:"evidenceLevel"`
	// Estimate is the interval; null means N/A.
	Estimate  *SkillEstimate `json:"estimate"`
	Contested bool           `json:"contested"`
	Stale     bool           `json:"stale"`
	// IndependentOperators counts the distinct known independent
	// operators behind positions with weight.
	IndependentOperators int `json:"independentOperators"`
	// SourceCount is the number of relevant records.
	SourceCount int `json:"sourceCount"`
	// AssessedAt is the assessment day.
	AssessedAt string `json:"assessedAt"`
	// AssessmentHash is the skill passport's hash (SPEC.md §4.14) as it
	// was assessed for this answer; evidence ids inside it are
	// per-passport pseudonyms, so it identifies that assessment only.
	AssessmentHash string `json:"assessmentHash"`
}

// SkillEstimate is a skill passport's interval, rounded to six places.
type SkillEstimate struct {
	Midpoint float64 `json:"midpoint"`
	Lower    float64 `json:"lower"`
	Upper    float64 `json:"upper"`
}

// FoundReputation is an agent's global reputation aggregate: a score in
// [−100, 100] and a trust level. It is not skill evidence.
type FoundReputation struct {
	Score      float64 `json:"reputationScore"`
	TrustLevel string  `json:"trustLevel"`
}

// Freshness says how far the index behind a page lags the records.
type Freshness struct {
	// CheckedAt is when an indexer last counted the subjects awaiting
	// re-indexing; absent when none has yet.
	CheckedAt *time.Time `json:"checkedAt,omitempty"`
	// Changed counts, at CheckedAt, the subjects whose records changed
	// since they were indexed; Aged those whose figures were assessed
	// before that day.
	Changed int64 `json:"changed"`
	Aged    int64 `json:"aged"`
	// ChangedOnPage counts the results of this page whose records changed
	// since they were indexed, as of this answer.
	ChangedOnPage int `json:"changedOnPage"`
	// Statement says the above in a sentence.
	Statement string `json:"statement"`
}

// ContextWork reports what a query in context assessed.
type ContextWork struct {
	// Candidates counts the agents listing the skill whose figures in
	// context were read for this page; Assessed those of them assessed
	// for it (not already cached).
	Candidates int `json:"candidates"`
	Assessed   int `json:"assessed"`
	// Budget is the most candidates one page may assess.
	Budget int `json:"budget"`
}
