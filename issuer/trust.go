package issuer

import (
	"strconv"
	"strings"

	"github.com/remnant/passportkit/evidence"
	"github.com/remnant/passportkit/skilltrust"
)

// Bounds of the public trust API (SPEC.md §16).
const (
	// MaxAssessAgents and MaxAssessSkills bound a comparison.
	MaxAssessAgents = skilltrust.MaxCompareAgents
	MaxAssessSkills = skilltrust.MaxCompareSkills
	// MaxAssessBody bounds the body of a comparison request, in bytes
	// after decompression: five agents and eleven terms of 200 bytes,
	// each written with \u escapes, fit.
	MaxAssessBody = 16 << 10
	// DefaultEvidenceLimit and MaxEvidenceLimit bound a page of sources.
	DefaultEvidenceLimit = 50
	MaxEvidenceLimit     = 50
	// MaxEvidenceOffset is the largest offset of a page of sources; later
	// pages are reached with the cursor each page returns.
	MaxEvidenceOffset = 1000
	// MaxCursor bounds a cursor's text, in bytes.
	MaxCursor = 1024
)

// TrustQuery is a read of one skill's trust: the skill term as requested
// and the task context it is needed in. Terms and labels are checked and
// trimmed, not normalised: the trust service normalises them (SPEC.md
// §4.3, §4.4) and says what it used.
type TrustQuery struct {
	Skill   string
	Context evidence.Context
	// Passport, when set, pins the read to the passport with this
	// passportHash, which the issuer signed recently for the agent: the
	// answer is read from that passport instead of the current one, so
	// that several reads describe one state. A pin the issuer no longer
	// holds is unavailable. The pages set it; no request field does.
	Passport string
}

// EvidenceQuery is a read of one page of a skill's sources: the skill and
// context of a [TrustQuery], and either an offset or a cursor.
type EvidenceQuery struct {
	TrustQuery
	// Limit is the page size, 1 to MaxEvidenceLimit.
	Limit int
	// Offset is the position of the page's first source, 0 to
	// MaxEvidenceOffset; 0 when Cursor is set.
	Offset int
	// Cursor is the opaque cursor of a previous page, "" for none. Its
	// form is checked here; whether this service sealed it, for this
	// listing, only the trust service can tell.
	Cursor string
}

// trustParams is the table of a trust read's query string: the task
// context's dimensions, and no parameter (SPEC.md §16.2).
var trustParams = QuerySpec{Params: ContextParams(), Unknown: func(name string) error { return unknownDimension(name, "") }}

// evidenceParams is the table of an evidence read's query string: the
// task context's dimensions, limit, offset and cursor (SPEC.md §16.3).
var evidenceParams = QuerySpec{
	Params:  append(Params("limit", "offset", "cursor"), ContextParams()...),
	Unknown: func(name string) error { return unknownDimension(name, "limit, offset and cursor") },
}

// ParseTrustQuery reads the skill term of a trust read (from its path,
// already unescaped) and its raw query string, whose fields are the task
// context's dimensions (SPEC.md §16.2), by [QuerySpec.ReadFields]: fields
// in order, the first fault winning; a field name that is not a dimension
// is unknown_context_dimension, a field given twice or a bad or blank
// label invalid_request. The skill is checked after the query.
func ParseTrustQuery(skill, rawQuery string) (TrustQuery, error) {
	var q TrustQuery
	err := trustParams.ReadFields(rawQuery, func(name, value string) error { return setLabel(&q.Context, name, value) })
	if err != nil {
		return q, err
	}
	q.Skill, err = ParseSkillTerm("skill", skill)
	return q, err
}

// ParseEvidenceQuery reads the skill term of an evidence read and its raw
// query string: the dimensions of the task context, and limit (1 to
// MaxEvidenceLimit, DefaultEvidenceLimit when absent), offset (0 to
// MaxEvidenceOffset) and cursor. A limit or offset that is not a decimal
// integer in its bounds is limit_out_of_range; a cursor that is not of the
// form this service writes is cursor_invalid; offset and cursor together
// are invalid_request. Otherwise as [ParseTrustQuery].
func ParseEvidenceQuery(skill, rawQuery string) (EvidenceQuery, error) {
	q := EvidenceQuery{Limit: DefaultEvidenceLimit}
	offset := false
	err := evidenceParams.ReadFields(rawQuery, func(name, value string) error {
		switch name {
		case "limit":
			return q.setLimit(smallInt(value))
		case "offset":
			offset = true
			return q.setOffset(smallInt(value))
		case "cursor":
			return q.setCursor(value)
		}
		return setLabel(&q.Context, name, value)
	})
	if err != nil {
		return q, err
	}
	return q, q.finish(skill, offset)
}

// NewTrustQuery reads a trust read given as arguments of a JSON request
// (the MCP tool get_skill_trust, SPEC.md §14.2) rather than a path and a
// query string: the labels of ctx (nil for none) in dimension order, then
// the skill, by the rules of [ParseTrustQuery]. ctx's member names were
// checked when it was decoded ([TaskContext]).
func NewTrustQuery(skill string, ctx *TaskContext) (TrustQuery, error) {
	var q TrustQuery
	var err error
	if q.Context, err = ctx.Labels(); err != nil {
		return q, err
	}
	q.Skill, err = ParseSkillTerm("skill", skill)
	return q, err
}

// NewEvidenceQuery reads an evidence read given as arguments of a JSON
// request (the MCP tool get_skill_evidence, SPEC.md §14.2), with the
// bounds and codes of [ParseEvidenceQuery], in the order that function
// reads a query string written limit, offset, cursor, then the context:
// limit (nil for the default; outside 1 to MaxEvidenceLimit
// limit_out_of_range), offset (outside 0 to MaxEvidenceOffset
// limit_out_of_range), cursor (not of the form this service writes, ""
// included, cursor_invalid), the labels of ctx in dimension order, then
// offset and cursor together (invalid_request), then the skill.
func NewEvidenceQuery(skill string, ctx *TaskContext, limit, offset *int, cursor *string) (EvidenceQuery, error) {
	q := EvidenceQuery{Limit: DefaultEvidenceLimit}
	if limit != nil {
		if err := q.setLimit(*limit); err != nil {
			return q, err
		}
	}
	if offset != nil {
		if err := q.setOffset(*offset); err != nil {
			return q, err
		}
	}
	if cursor != nil {
		if err := q.setCursor(*cursor); err != nil {
			return q, err
		}
	}
	var err error
	if q.Context, err = ctx.Labels(); err != nil {
		return q, err
	}
	return q, q.finish(skill, offset != nil)
}

// setLimit checks and sets the page size; n < 0 stands for a value that
// is not a decimal integer.
func (q *EvidenceQuery) setLimit(n int) error {
	if n < 1 || n > MaxEvidenceLimit {
		return Errorf(CodeLimitOutOfRange, "limit must be an integer from 1 to %d", MaxEvidenceLimit)
	}
	q.Limit = n
	return nil
}

// setOffset checks and sets the offset; n < 0 stands for a value that is
// not a decimal integer.
func (q *EvidenceQuery) setOffset(n int) error {
	if n < 0 || n > MaxEvidenceOffset {
		return Errorf(CodeLimitOutOfRange, "offset must be an integer from 0 to %d; to read further, follow the nextCursor of a page", MaxEvidenceOffset)
	}
	q.Offset = n
	return nil
}

// setCursor checks the cursor's form and sets it.
func (q *EvidenceQuery) setCursor(s string) error {
	if !cursorForm(s) {
		return Errorf(CodeCursorInvalid, "cursor is not one this service returned")
	}
	q.Cursor = s
	return nil
}

// finish checks what an evidence read's fields say together (offset, if
// given, and a cursor), then the skill.
func (q *EvidenceQuery) finish(skill string, offset bool) error {
	if offset && q.Cursor != "" {
		return Errorf(CodeInvalid, "give offset or cursor, not both: a cursor says where its page starts")
	}
	var err error
	q.Skill, err = ParseSkillTerm("skill", skill)
	return err
}

// unknownDimension refuses a context field that names no dimension.
func unknownDimension(name, params string) error {
	also := ""
	if params != "" {
		also = "; the other fields are " + params
	}
	return Errorf(CodeUnknownDimension, "%q is not a context dimension: the dimensions are %s%s",
		truncate(name, 40), strings.Join(evidence.Dimensions, ", "), also)
}

// contextLabel checks one stated label: a claim as an appliesTo label is,
// that is not blank, nor blank once normalised. A nil label is not stated.
func contextLabel(field string, s *string) (string, error) {
	v, err := claim(field, s)
	if err != nil || s == nil {
		return "", err
	}
	if evidence.NormalizeLabel(v) == "" {
		return "", Errorf(CodeInvalid, "%s must not be blank: give a label or leave the dimension out", field)
	}
	return v, nil
}

// setLabel checks the label value of the dimension name and sets it in
// ctx.
func setLabel(ctx *evidence.Context, name, value string) error {
	label, err := contextLabel(name, &value)
	if err != nil {
		return err
	}
	ctx.Set(name, label)
	return nil
}

// ParseSkillTerm checks a skill term a caller asks about: one line of safe text,
// 1 to MaxClaimBytes bytes after trimming, not blank once normalised. It
// returns the trimmed term.
func ParseSkillTerm(field, s string) (string, error) {
	v, err := claim(field, &s)
	if err != nil {
		return "", err
	}
	if v == "" || evidence.NormalizeLabel(v) == "" {
		return "", Errorf(CodeInvalid, "%s is required: a skill term such as \"PostgreSQL indexing\"", field)
	}
	return v, nil
}

// smallInt reads a decimal integer of at most four digits (no sign); it
// returns -1 for anything else.
func smallInt(s string) int {
	if s == "" || len(s) > 4 {
		return -1
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 0 || strings.ContainsAny(s, "+-") {
		return -1
	}
	return n
}

// cursorForm reports whether s could be a cursor this service wrote:
// unpadded base64url of at most MaxCursor bytes.
func cursorForm(s string) bool {
	if s == "" || len(s) > MaxCursor {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c == '_') {
			return false
		}
	}
	return true
}

// AssessRequest is a comparison of agents' skill assessments in one task
// context, as [ParseAssessRequest] reads it.
type AssessRequest struct {
	// Agents are 1 to MaxAssessAgents distinct agents, in input order.
	Agents []AgentID
	// Skills are 1 to MaxAssessSkills skill terms, trimmed, in input
	// order, no two of them normalising to one skill.
	Skills []string
	// Context is the task context, labels trimmed.
	Context evidence.Context
}

// TaskContext is the wire form of a task context in a trust request: each
// dimension optional, and a member that names no dimension refused with
// unknown_context_dimension rather than json_unknown_member.
type TaskContext struct {
	ContextRequest
}

// Labels checks the labels of c in dimension order, each as a stated
// label of a trust read (SPEC.md §16.2: absent or null states nothing, a
// blank label is refused), and returns them trimmed. A nil c states
// nothing.
func (c *TaskContext) Labels() (evidence.Context, error) {
	var out evidence.Context
	if c == nil {
		return out, nil
	}
	vals := []*string{c.Domain, c.Environment, c.Protocol, c.Version, c.Workload, c.Constraints}
	for i, dim := range evidence.Dimensions {
		label, err := contextLabel("context."+dim, vals[i])
		if err != nil {
			return out, err
		}
		out.Set(dim, label)
	}
	return out, nil
}

func (*TaskContext) refuseMember(path string) error {
	_, name, _ := strings.Cut(path, ".")
	return Errorf(CodeUnknownDimension, "%q is not a context dimension: the dimensions are %s",
		truncate(name, 40), strings.Join(evidence.Dimensions, ", "))
}

// assessWire is the body of POST /api/public/trust/assess.
type assessWire struct {
	Agents  []string     `json:"agents"`
	Skills  []string     `json:"skills"`
	Context *TaskContext `json:"context,omitempty"`
}

// ParseAssessRequest decodes and checks the body of a comparison (SPEC.md
// §16.4). After the body's JSON and member names (SPEC.md §13.1; an
// unknown member of context is unknown_context_dimension), the rules of
// [NewAssessRequest].
func ParseAssessRequest(body []byte) (AssessRequest, error) {
	var w assessWire
	if err := Decode(body, MaxAssessBody, &w); err != nil {
		return AssessRequest{}, err
	}
	var c ContextRequest
	if w.Context != nil {
		c = w.Context.ContextRequest
	}
	return NewAssessRequest(w.Agents, w.Skills, c)
}

// NewAssessRequest checks a comparison of agents on skills in the task
// context c, however it was sent, by the rules of SPEC.md §16.4 in order,
// the first fault winning: agents (none is invalid_request, more than
// MaxAssessAgents too_many_items; then each in order: an agent id, not
// repeated); skills likewise (then each a skill term, no two normalising
// to one skill); then the context's labels.
func NewAssessRequest(agents, skills []string, c ContextRequest) (AssessRequest, error) {
	var r AssessRequest
	switch {
	case len(agents) == 0:
		return r, Errorf(CodeInvalid, "agents must list 1 to %d agent IDs", MaxAssessAgents)
	case len(agents) > MaxAssessAgents:
		return r, Errorf(CodeTooManyItems, "agents lists %d agents; a comparison takes at most %d", len(agents), MaxAssessAgents)
	}
	for i, s := range agents {
		id, err := ParseAgentID(s)
		if err != nil {
			return r, Errorf(CodeInvalid, "agents[%d]: %s", i, ErrorMessage(err))
		}
		for _, prev := range r.Agents {
			if prev == id {
				return r, Errorf(CodeInvalid, "agents lists %s twice", id)
			}
		}
		r.Agents = append(r.Agents, id)
	}
	switch {
	case len(skills) == 0:
		return r, Errorf(CodeInvalid, "skills must list 1 to %d skill terms", MaxAssessSkills)
	case len(skills) > MaxAssessSkills:
		return r, Errorf(CodeTooManyItems, "skills lists %d skills; a comparison takes at most %d", len(skills), MaxAssessSkills)
	}
	o := skilltrust.Skills1()
	var norms []string
	for i, s := range skills {
		term, err := ParseSkillTerm("skills["+strconv.Itoa(i)+"]", s)
		if err != nil {
			return r, err
		}
		norm := o.Normalize(term).Name
		for j, prev := range norms {
			if prev == norm {
				return r, Errorf(CodeInvalid, "skills[%d] and skills[%d] name the same skill, %s", j, i, truncate(norm, 80))
			}
		}
		norms = append(norms, norm)
		r.Skills = append(r.Skills, term)
	}
	var err error
	r.Context, err = (&TaskContext{ContextRequest: c}).Labels()
	return r, err
}
