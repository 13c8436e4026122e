package service

import (
	"bytes"
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"

	"github.com/remnant/passportkit/evidence"
	"github.com/remnant/passportkit/internal/calendar"
	"github.com/remnant/passportkit/internal/seal"
	"github.com/remnant/passportkit/issuer"
	"github.com/remnant/passportkit/issuer/issuing"
	"github.com/remnant/passportkit/skilltrust"
)

// TrustOptions configure [Trust].
type TrustOptions struct {
	// Cursors seals the cursors of evidence pages; required. Cursors
	// survive as long as its key: a key made at start-up invalidates every
	// cursor at a restart, and replicas must share one key.
	Cursors *seal.Sealer
}

// Trust is the public trust API's use case (SPEC.md §16): a subject's
// listed skills, one skill's trust in a task context with why, the sources
// behind it page by page, and comparisons of up to five agents. It reads
// through the issuing use case's cache and writes only skill history, and
// only from SkillTrust without a context, for a skill the subject's
// passport lists ([Trust.PureSkillTrust] is the same read, writing
// nothing). It is transport-neutral: HTTP and MCP serve the same answers.
type Trust struct {
	p       *Passports
	hs      HistoryStore
	cursors *seal.Sealer
}

// NewTrust returns the trust API over the issuing use case p, recording
// skill history in hs.
func NewTrust(p *Passports, hs HistoryStore, opts TrustOptions) (*Trust, error) {
	switch {
	case p == nil || hs == nil:
		return nil, errors.New("service: the trust API needs the issuing use case and a history store")
	case opts.Cursors == nil:
		return nil, errors.New("service: the trust API needs a sealer for its cursors")
	}
	return &Trust{p: p, hs: hs, cursors: opts.Cursors}, nil
}

// Skills returns the skill passports the agent's passport lists, each
// summarised, in the passport's order. An unknown agent, and one without a
// public profile, is not_found.
func (t *Trust) Skills(ctx context.Context, id issuer.AgentID) (issuer.SkillList, error) {
	d, err := t.p.current(ctx, id)
	if err != nil {
		return issuer.SkillList{}, err
	}
	listed := d.draft.Passport.SkillPassports
	tasks := make([]skilltrust.Task, len(listed))
	for i, sp := range listed {
		tasks[i] = skilltrust.Task{Skill: sp.Skill}
	}
	es, err := t.p.skillsOf(id, d, tasks, nil)
	if err != nil {
		return issuer.SkillList{}, err
	}
	out := issuer.SkillList{Agent: id, Skills: make([]issuer.SkillSummary, len(es)), Passport: issuer.PassportPath(id)}
	for i, e := range es {
		out.Skills[i] = issuer.NewSkillSummary(id, e.sp, e.unresolved, evidence.Context{})
	}
	return out, nil
}

// SkillTrust returns the agent's skill passport for q's skill in q's
// context, with why. Without a context, for a skill the agent's passport
// lists, it is the trust service's read (Passports.InspectSkill): the
// first read of a subject revision and hour is written to the skill
// history. Any other read writes nothing. A skill with no evidence is not
// an error: its skill passport is new, with no estimate, and says so.
//
// Only the trust route of the HTTP API records history (SPEC.md §5.9);
// every other transport reads through [Trust.PureSkillTrust].
func (t *Trust) SkillTrust(ctx context.Context, id issuer.AgentID, q issuer.TrustQuery) (issuer.SkillTrust, error) {
	return t.skillTrust(ctx, id, q, true)
}

// PureSkillTrust returns what [Trust.SkillTrust] returns for the same
// read, and writes nothing, whatever the read: the pure read of one
// skill's trust that MCP and other general reads use (SPEC.md §5.9, §14.2).
func (t *Trust) PureSkillTrust(ctx context.Context, id issuer.AgentID, q issuer.TrustQuery) (issuer.SkillTrust, error) {
	return t.skillTrust(ctx, id, q, false)
}

// skillTrust is SkillTrust, recording history only when record is set.
func (t *Trust) skillTrust(ctx context.Context, id issuer.AgentID, q issuer.TrustQuery, record bool) (issuer.SkillTrust, error) {
	tasks := []skilltrust.Task{{Skill: q.Skill, Context: q.Context}}
	var es []*skillEntry
	var err error
	if q.Passport == "" {
		es, err = t.p.skills(ctx, id, tasks)
	} else {
		es, err = t.p.pinnedSkills(id, q.Passport, tasks)
	}
	if err != nil {
		return issuer.SkillTrust{}, err
	}
	e := es[0]
	if record && e.known {
		if err := e.record(ctx, t.hs); err != nil {
			return issuer.SkillTrust{}, err
		}
	}
	used := q.Context.Normalized()
	return issuer.SkillTrust{
		Agent: id, Skill: issuer.NewSkillTerm(q.Skill), Context: used, Listed: e.listed,
		SkillPassport: e.sp, UnresolvedContradictions: e.unresolved, Why: e.why,
		Links: issuer.NewSkillLinks(id, e.sp.Skill, used),
	}, nil
}

// EvidencePurpose is the seal purpose of evidence page cursors.
const EvidencePurpose = "skill-evidence"

// SkillEvidence returns one page of the sources of the agent's assessment
// of q's skill in q's context: every relevant record, in the order of
// skilltrust.SourceOrder, each linked into the evidence file of the hour's
// passport, which it issues (signs and keeps, as the passport route does)
// if it has not been yet. A cursor is valid only for the listing it came
// from: the same agent, skill and context, subject revision and hour's
// passport; any other, or one this service did not seal, is
// cursor_invalid.
func (t *Trust) SkillEvidence(ctx context.Context, id issuer.AgentID, q issuer.EvidenceQuery) (issuer.EvidencePage, error) {
	task := skilltrust.Task{Skill: q.Skill, Context: q.Context}
	if err := checkTask(task); err != nil {
		return issuer.EvidencePage{}, err
	}
	if q.Limit < 1 || q.Limit > issuer.MaxEvidenceLimit || q.Offset < 0 || q.Offset > issuer.MaxEvidenceOffset {
		return issuer.EvidencePage{}, issuer.Errorf(issuer.CodeLimitOutOfRange, "limit must be 1 to %d and offset 0 to %d", issuer.MaxEvidenceLimit, issuer.MaxEvidenceOffset)
	}
	d, err := t.p.passportOf(ctx, id, q.Passport)
	if err != nil {
		return issuer.EvidencePage{}, err
	}
	term := issuer.NewSkillTerm(q.Skill)
	used := q.Context.Normalized()
	as, err := skilltrust.AssessSkills(d.draft.Collection().Set(), []skilltrust.Task{{Skill: term.Normalized, Context: used}},
		calendar.Of(d.draft.Passport.IssuedAt.UTC()))
	if err != nil {
		return issuer.EvidencePage{}, taskError(err)
	}
	a := as[0]
	is, err := t.p.sign(ctx, id, d, issuing.DisclosePreviews)
	if err != nil {
		return issuer.EvidencePage{}, err
	}
	bind := cursorBinding(id, d.draft.Revision, is.PassportHash, term.Normalized, used)
	order := skilltrust.SourceOrder(a.Sources)
	start := min(q.Offset, len(order))
	if q.Cursor != "" {
		after, err := t.openCursor(q.Cursor, bind)
		if err != nil {
			return issuer.EvidencePage{}, err
		}
		start, _ = slices.BinarySearchFunc(order, after, func(i int, k skilltrust.SourceKey) int {
			if a.Sources[i].Key().Compare(k) <= 0 {
				return -1
			}
			return 1
		})
	}
	end := min(start+q.Limit, len(order))
	file := issuer.EvidenceFilePath(id, is.PassportHash)
	page := issuer.EvidencePage{
		Agent: id, Skill: term, Context: used, PassportHash: is.PassportHash, EvidenceFile: file,
		SourceCount: len(order), Offset: start, Sources: make([]issuer.EvidenceSource, 0, end-start),
	}
	records := d.draft.Collection().Records
	for _, i := range order[start:end] {
		src := &a.Sources[i]
		leaf, ok := slices.BinarySearchFunc(records, src, func(r evidence.Record, s *skilltrust.Source) int {
			if c := r.Date.Compare(s.Date); c != 0 {
				return c
			}
			return cmp.Compare(r.ID, s.ID)
		})
		if !ok {
			return issuer.EvidencePage{}, fmt.Errorf("service: source %s is not a leaf of its passport", src.ID)
		}
		page.Sources = append(page.Sources, evidenceSource(src, &records[leaf], leaf, file))
	}
	if end < len(order) {
		page.NextCursor = t.cursors.Seal(EvidencePurpose, cursorPayload(bind, a.Sources[order[end-1]].Key()))
		if end <= issuer.MaxEvidenceOffset {
			page.NextOffset = &end
		}
	}
	return page, nil
}

// evidenceSource is how the evidence route shows src, the record r, the
// leaf-th leaf of the passport whose evidence file is at file.
func evidenceSource(src *skilltrust.Source, r *evidence.Record, leaf int, file string) issuer.EvidenceSource {
	contradiction := src.Contradiction
	if contradiction == "" {
		contradiction = "none"
	}
	out := issuer.EvidenceSource{
		Evidence: src.ID, Type: string(src.Type), Outcome: string(src.Outcome), Quality: string(src.Quality),
		Skill: src.Skill, Date: src.Date.String(), Weight: round6(src.Weight), Applicability: src.Applicability,
		ContextMatch: src.ContextMatch.Value, Role: string(src.Role), Contradiction: contradiction,
		Leaf: leaf, Inspect: file + "#/evidence/" + strconv.Itoa(leaf),
	}
	// A public, active memory is named by its public id; any other by a
	// per-passport pseudonym, which is not a memory id (SPEC.md §5.8).
	if r.Lineage != nil {
		if m, err := issuer.ParseMemoryID(r.Lineage.Memory); err == nil {
			out.Memory = m
		}
	}
	return out
}

// round6 rounds a weight as skill passports write it (SPEC.md §4.1).
func round6(x float64) float64 { return math.Round(x*1e6) / 1e6 }

// cursorBinding names the listing a cursor belongs to: the agent, the
// subject revision, the passport the records come from, the normalised
// skill and context.
func cursorBinding(id issuer.AgentID, rev, passportHash, skill string, ctx evidence.Context) []byte {
	h := sha256.New()
	labels := ctx.Values()
	for _, part := range append([]string{string(id), rev, passportHash, skill}, labels[:]...) {
		binary.Write(h, binary.BigEndian, uint32(len(part)))
		h.Write([]byte(part))
	}
	return h.Sum(nil)[:cursorBindingSize]
}

const (
	cursorVersion     = 1
	cursorBindingSize = 16
	cursorDateSize    = len("2006-01-02")
	cursorFixed       = 1 + cursorBindingSize + 1 + 8 + cursorDateSize
)

// cursorPayload is what a cursor seals: its version, its listing's
// binding, and the key of the last source of its page (rank, weight bits,
// date, record id).
func cursorPayload(bind []byte, k skilltrust.SourceKey) []byte {
	b := make([]byte, 0, cursorFixed+len(k.ID))
	b = append(b, cursorVersion)
	b = append(b, bind...)
	b = append(b, byte(k.Rank))
	b = binary.BigEndian.AppendUint64(b, math.Float64bits(k.Weight))
	b = append(b, k.Date.String()...)
	return append(b, k.ID...)
}

// openCursor returns the source key a cursor sealed for the listing bind.
func (t *Trust) openCursor(token string, bind []byte) (skilltrust.SourceKey, error) {
	bad := func(why string) error { return issuer.Errorf(issuer.CodeCursorInvalid, "cursor %s", why) }
	b, err := t.cursors.Open(EvidencePurpose, token)
	if err != nil || len(b) <= cursorFixed || b[0] != cursorVersion {
		return skilltrust.SourceKey{}, bad("is not one this service returned")
	}
	if !bytes.Equal(b[1:1+cursorBindingSize], bind) {
		return skilltrust.SourceKey{}, bad("belongs to another listing, or the evidence changed since it was returned (a new subject revision or hour); start again from offset 0")
	}
	rest := b[1+cursorBindingSize:]
	date, err := calendar.Parse(string(rest[9 : 9+cursorDateSize]))
	if err != nil {
		return skilltrust.SourceKey{}, bad("is not one this service returned")
	}
	return skilltrust.SourceKey{
		Rank: int(rest[0]), Weight: math.Float64frombits(binary.BigEndian.Uint64(rest[1:9])), Date: date, ID: string(rest[9+cursorDateSize:]),
	}, nil
}

// Assess returns each agent's skill passports for the request's skills in
// its context, summarised, side by side in input order: pure reads that
// write nothing. The first agent, in input order, that is unknown or has
// no public profile makes the whole request not_found.
func (t *Trust) Assess(ctx context.Context, r issuer.AssessRequest) (issuer.TrustComparison, error) {
	switch {
	case len(r.Agents) == 0 || len(r.Skills) == 0:
		return issuer.TrustComparison{}, issuer.Errorf(issuer.CodeInvalid, "a comparison needs agents and skills")
	case len(r.Agents) > issuer.MaxAssessAgents || len(r.Skills) > issuer.MaxAssessSkills:
		return issuer.TrustComparison{}, issuer.Errorf(issuer.CodeTooManyItems, "a comparison takes at most %d agents and %d skills", issuer.MaxAssessAgents, issuer.MaxAssessSkills)
	}
	used := r.Context.Normalized()
	out := issuer.TrustComparison{Skills: make([]issuer.SkillTerm, len(r.Skills)), Context: used, Agents: make([]issuer.ComparedAgent, 0, len(r.Agents))}
	tasks := make([]skilltrust.Task, len(r.Skills))
	for i, s := range r.Skills {
		out.Skills[i] = issuer.NewSkillTerm(s)
		tasks[i] = skilltrust.Task{Skill: s, Context: r.Context}
	}
	for _, id := range r.Agents {
		es, err := t.p.skills(ctx, id, tasks)
		if err != nil {
			return issuer.TrustComparison{}, err
		}
		row := issuer.ComparedAgent{Agent: id, Skills: make([]issuer.SkillSummary, len(es))}
		for i, e := range es {
			row.Skills[i] = issuer.NewSkillSummary(id, e.sp, e.unresolved, used)
		}
		out.Agents = append(out.Agents, row)
	}
	return out, nil
}
