package service

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"strconv"
	"strings"
	"time"

	lru "github.com/hashicorp/golang-lru/v2"

	"github.com/remnant/passportkit/evidence"
	"github.com/remnant/passportkit/internal/seal"
	"github.com/remnant/passportkit/issuer"
	"github.com/remnant/passportkit/passport"
	"github.com/remnant/passportkit/skilltrust"
)

// DiscoveryStore is what discovery needs of a database: the index of what
// listed agents' passports say per skill, its maintenance and its status.
// issuer/store implements it for both engines.
type DiscoveryStore interface {
	// RevisionOf returns the subject's current revision (see
	// [SubjectSource.SubjectRevision]) whether it is listed or not;
	// not_found for an unknown agent. The index itself is kept under the
	// subject's own token ([SubjectToken]): a key change alters no figure.
	RevisionOf(ctx context.Context, id issuer.AgentID) (string, error)
	// PendingSubjects returns at most n subjects awaiting re-indexing:
	// first those never indexed or whose revision token differs from the
	// one indexed (by key), then the listed ones whose figures were
	// assessed before today, a YYYY-MM-DD day (oldest first).
	PendingSubjects(ctx context.Context, today string, n int) ([]issuer.AgentID, error)
	// CheckPending counts the subjects awaiting re-indexing as
	// PendingSubjects finds them and records the count, at now, as the
	// index status.
	CheckPending(ctx context.Context, today string, now time.Time) (IndexStatus, error)
	// IndexStatus returns the status the last CheckPending recorded; the
	// zero status when none has.
	IndexStatus(ctx context.Context) (IndexStatus, error)
	// WriteSubjectIndex replaces the subject's index entry with w in one
	// transaction, and reports whether it did. It writes nothing when the
	// subject's revision token is no longer w.Revision (a later write made
	// w stale; its own re-indexing follows), nor when the entry already
	// holds w.Revision assessed on a later day: an older computation never
	// overwrites a newer one, whatever order concurrent indexers finish in.
	WriteSubjectIndex(ctx context.Context, w SubjectIndex) (bool, error)
	// ClaimSubjectIndex runs index, which indexes the subject id, only
	// when the subject awaits re-indexing as PendingSubjects finds it on
	// today and no other process of the database is indexing it, and
	// reports whether index ran: every process hears every revision
	// notification, and one change is indexed once.
	ClaimSubjectIndex(ctx context.Context, id issuer.AgentID, today string, index func() error) (bool, error)
	// AgentsAfter returns at most n agents' public ids after after, in
	// byte order ("" starts).
	AgentsAfter(ctx context.Context, after issuer.AgentID, n int) ([]issuer.AgentID, error)
	// AnalyzeIndex refreshes the database's statistics of the index
	// tables, so that the planner reads them by what they now hold: after
	// a rebuild rewrote them, before autovacuum would.
	AnalyzeIndex(ctx context.Context) error
	// SkillPage returns at most n index rows of skill after the position
	// after, in (rank key, public id) order, of agents that are public and
	// active now.
	SkillPage(ctx context.Context, skill string, after IndexPosition, n int) ([]IndexedSkill, error)
	// CeilingPage returns at most n candidates for a task context stating
	// label on dimension (and, with alone, on no other), after the position
	// after in (ceiling key, public id) order, of agents that are public and
	// active now: with matched, the agents whose ceilings for skill name
	// that label; without, the other agents listing skill, by their ceiling
	// for any other label.
	CeilingPage(ctx context.Context, skill, dimension, label string, alone, matched bool, after IndexPosition, n int) ([]Candidate, error)
	// ListingPage returns at most n listed subjects after the position
	// after, in (listing key, public id) order, of agents that are public
	// and active now.
	ListingPage(ctx context.Context, after IndexPosition, n int) ([]IndexedSubject, error)
	// RecentPage returns at most n listed subjects after the position
	// after, in (evidenced key, public id) order — the latest evidence
	// first ([EvidencedKey]) — of agents that are public and active now.
	RecentPage(ctx context.Context, after IndexPosition, n int) ([]IndexedSubject, error)
}

// SubjectIndex is one subject's index entry: computed from the subject's
// revision token Revision ([SubjectToken]), listed or not, and when listed its global reputation and the
// skills its passport lists.
type SubjectIndex struct {
	Subject  issuer.AgentID
	Revision string
	Listed   bool
	// AssessedOn is the assessment day (YYYY-MM-DD) of a listed subject.
	AssessedOn string
	// Score is the global reputation score in thousandths; TrustLevel its
	// trust level.
	Score      int64
	TrustLevel string
	// LatestEvidence is the latest day of eligible evidence of any skill
	// the passport lists (its skill passports' recency.latestEligible),
	// "" when none has any.
	LatestEvidence string
	Skills         []IndexedSkill
	// Ceilings bound each listed skill in task contexts (SPEC.md §17.4).
	Ceilings []CeilingRow
}

// CeilingRow is the ceiling of a listed skill for the task contexts that
// state Label on Dimension ("" for any label the evidence does not carry
// there) and, with Alone, no other dimension; as a rank key.
type CeilingRow struct {
	Skill, Dimension, Label string
	Alone                   bool
	Key                     int64
}

// Candidate is an agent a query in context may rank: its ceiling key for
// the query's context, and what the page shows of it.
type Candidate struct {
	Subject    issuer.AgentID
	CeilingKey int64
	// Name is the display name; Revision the revision its entry was
	// computed from, Current its revision now.
	Name, Revision, Current string
}

// IndexedSkill is one index row: a listed skill passport's figures.
type IndexedSkill struct {
	Subject issuer.AgentID
	Skill   string
	// RankKey orders the skill's agents (see [RankKey]).
	RankKey int64
	Level   passport.EvidenceLevel
	// Lower, Midpoint and Upper are the estimate in millionths; nil when
	// N/A.
	Lower, Midpoint, Upper *int64
	State                  passport.SkillState
	Assessment             passport.AssessmentLabel
	Contested, Stale       bool
	Operators              int
	SourceCount            int
	AssessmentHash         string
	AssessedOn             string
	// Revision is the subject revision the row was computed from.
	Revision string
	// Read back only: the agent's display name and current revision.
	Name    string
	Current string
}

// IndexedSubject is a listed subject as the legacy listing reads it.
type IndexedSubject struct {
	Subject    issuer.AgentID
	Score      int64
	TrustLevel string
	ListingKey int64
	Revision   string
	// LatestEvidence is the subject's latest evidence day, "" for none;
	// EvidencedKey its key in the order of the latest evidence.
	LatestEvidence string
	EvidencedKey   int64
	// Read back only: the agent's display name and current revision.
	Name    string
	Current string
}

// IndexPosition is a position in one of the index's orders: after the row
// with key Key and public id ID. [Start] precedes every row.
type IndexPosition struct {
	Key int64
	ID  issuer.AgentID
}

// Start is the position before every row: every key is at least 0.
var Start = IndexPosition{Key: -1}

// before reports whether position p comes before q.
func (p IndexPosition) before(q IndexPosition) bool {
	return p.Key < q.Key || p.Key == q.Key && p.ID < q.ID
}

// IndexStatus is what the last count of subjects awaiting re-indexing
// found: at CheckedAt, Changed subjects were never indexed or had changed
// since, and Aged listed ones had figures assessed before that day.
type IndexStatus struct {
	CheckedAt     time.Time
	Changed, Aged int64
}

// The rank key orders a skill's agents best first in one ascending integer
// (SPEC.md §17.2): evidence level first (STRONG, MODERATE, LOW, VERY_LOW),
// then the estimate's lower bound, higher first, N/A last within its level.
const (
	levelStride = 2_000_000
	noEstimate  = 1_000_001
	// MaxRankKey is the largest rank key: VERY_LOW with no estimate.
	MaxRankKey = 3*levelStride + noEstimate
)

// levelRank is 3 for STRONG down to 0 for VERY_LOW.
func levelRank(l passport.EvidenceLevel) int64 {
	switch l {
	case passport.LevelStrong:
		return 3
	case passport.LevelModerate:
		return 2
	case passport.LevelLow:
		return 1
	}
	return 0
}

// RankKey is the rank key of an evidence level and an estimate's lower
// bound in millionths (nil for N/A): (3 − level rank) × 2,000,000 plus
// 1,000,000 − lower, or plus 1,000,001 without an estimate.
func RankKey(level passport.EvidenceLevel, lower *int64) int64 {
	k := (3 - levelRank(level)) * levelStride
	if lower == nil {
		return k + noEstimate
	}
	return k + 1_000_000 - *lower
}

// millionths is x in millionths, as a skill passport rounds it.
func millionths(x float64) int64 { return int64(math.Round(x * 1e6)) }

// ceilingKey is the rank key of a ceiling: its lower bound is rounded up
// to the next millionth, so that no skill passport's rounded lower bound
// under a covered context can pass it.
func ceilingKey(c skilltrust.Ceiling) int64 {
	if c.Lower == nil {
		return RankKey(c.Level, nil)
	}
	l := min(int64(math.Ceil(*c.Lower*1e6)), 1_000_000)
	return RankKey(c.Level, &l)
}

// DiscoveryOptions configure a [Discovery]. The zero value is ready to use.
type DiscoveryOptions struct {
	// Now returns the current time; time.Now when nil.
	Now func() time.Time
	// ContextBudget bounds the candidates one page in context may assess
	// anew; DefaultContextBudget when zero.
	ContextBudget int
	// ContextMemo bounds the assessments in context kept for later pages;
	// DefaultContextMemo when zero.
	ContextMemo int
	// Logger receives the indexer's failures; discarded when nil.
	Logger *slog.Logger
}

// Defaults of [DiscoveryOptions].
const (
	DefaultContextBudget = 256
	DefaultContextMemo   = 1 << 16
)

// Discovery is the find_agents use case and the maintenance of the index
// behind it (SPEC.md §17). It reads skill passports through [Passports]:
// listed ones, with no task context, when it indexes a subject; and, for
// a query in context, each candidate's skill passport in that context
// through the passport cache.
type Discovery struct {
	st        DiscoveryStore
	passports *Passports
	sealer    *seal.Sealer
	now       func() time.Time
	budget    int
	log       *slog.Logger
	// memo keeps candidates' figures in context by subject revision,
	// skill, context and hour, so that later pages of a query in context
	// do not assess them again.
	memo *lru.Cache[string, found]
}

// NewDiscovery returns the use case over st, assessing through passports
// and sealing cursors with sealer.
func NewDiscovery(st DiscoveryStore, passports *Passports, sealer *seal.Sealer, opts DiscoveryOptions) *Discovery {
	d := &Discovery{st: st, passports: passports, sealer: sealer, now: opts.Now, budget: opts.ContextBudget, log: opts.Logger}
	if d.now == nil {
		d.now = time.Now
	}
	if d.budget <= 0 {
		d.budget = DefaultContextBudget
	}
	if d.log == nil {
		d.log = slog.New(slog.DiscardHandler)
	}
	size := opts.ContextMemo
	if size <= 0 {
		size = DefaultContextMemo
	}
	memo, err := lru.New[string, found](size)
	if err != nil {
		panic(err) // only for a size below 1
	}
	d.memo = memo
	return d
}

// CursorPurpose separates find_agents cursors from every other sealed
// token.
const CursorPurpose = "find_agents"

// found is one ranked result with its position in the page's order.
type found struct {
	pos   IndexPosition
	agent issuer.FoundAgent
}

// query is a find_agents query as the service understands it.
type query struct {
	skill   string
	ctx     evidence.Context
	hasCtx  bool
	limit   int
	basis   string
	known   bool
	cursor  IndexPosition
	digest  [16]byte
	started bool // a cursor was given
}

// FindAgents answers a find_agents query (SPEC.md §17): with a skill, the
// agents whose passports list it, ranked by their evidence for it (in the
// task context when one is given); without, the legacy registry listing by
// global reputation. Pages follow one another through sealed cursors bound
// to the query.
func (d *Discovery) FindAgents(ctx context.Context, fq issuer.FindAgentsQuery) (issuer.FindAgentsPage, error) {
	q, err := d.understand(fq)
	if err != nil {
		return issuer.FindAgentsPage{}, err
	}
	page := issuer.FindAgentsPage{Basis: q.basis, Results: []issuer.FoundAgent{}, Query: issuer.FindAgentsEcho{Skill: q.skill, Limit: q.limit}}
	if q.hasCtx {
		c := q.ctx
		page.Query.Context = &c
	}
	var results []found
	more := false
	switch q.basis {
	case issuer.BasisGlobalReputation:
		results, more, err = d.listingPage(ctx, q)
	case issuer.BasisSkillEvidence:
		results, more, err = d.skillPage(ctx, q)
	default:
		results, more, err = d.contextPage(ctx, q, &page)
	}
	if err != nil {
		return issuer.FindAgentsPage{}, err
	}
	changed := 0
	for _, r := range results {
		page.Results = append(page.Results, r.agent)
		if r.agent.ChangedSinceIndexed {
			changed++
		}
	}
	switch {
	case more && len(results) > 0:
		page.NextCursor = d.cursor(q, results[len(results)-1].pos)
	case page.Truncated && q.started:
		page.NextCursor = d.cursor(q, q.cursor) // nothing proven yet: resume where it was
	}
	if len(results) == 0 && !q.started && q.skill != "" {
		page.Note = d.emptyNote(q)
	}
	st, err := d.st.IndexStatus(ctx)
	if err != nil {
		return issuer.FindAgentsPage{}, err
	}
	page.Freshness = freshness(st, changed)
	return page, nil
}

// understand normalises a query and opens its cursor.
func (d *Discovery) understand(fq issuer.FindAgentsQuery) (query, error) {
	q := query{limit: fq.Limit, basis: issuer.BasisGlobalReputation, cursor: Start}
	if q.limit == 0 {
		q.limit = issuer.DefaultFindAgentsLimit
	}
	if err := checkLimit(q.limit); err != nil {
		return q, err
	}
	if fq.Skill != "" {
		sk := skilltrust.Skills1().Normalize(fq.Skill)
		if sk.Name == "" || len(fq.Skill) > evidence.MaxTextLen {
			return q, issuer.Errorf(issuer.CodeInvalid, "skill must be 1 to %d bytes holding a letter or digit", evidence.MaxTextLen)
		}
		q.skill, q.known, q.basis = sk.Name, sk.Known, issuer.BasisSkillEvidence
		q.ctx = fq.Context.Normalized()
		if q.ctx != (evidence.Context{}) {
			q.hasCtx, q.basis = true, issuer.BasisSkillEvidenceInContext
		}
	} else if fq.Context != (evidence.Context{}) {
		return q, issuer.Errorf(issuer.CodeInvalid, "a task context needs a skill")
	}
	return q, d.begin(&q, fq.Cursor)
}

// checkLimit refuses a page size outside 1 to MaxFindAgentsLimit.
func checkLimit(limit int) error {
	if limit < 1 || limit > issuer.MaxFindAgentsLimit {
		return issuer.Errorf(issuer.CodeLimitOutOfRange, "limit must be between 1 and %d", issuer.MaxFindAgentsLimit)
	}
	return nil
}

// begin binds q to its digest and opens cursor ("" for the first page),
// a cursor sealed for the same query.
func (d *Discovery) begin(q *query, cursor string) error {
	q.digest = queryDigest(*q)
	if cursor == "" {
		return nil
	}
	pos, err := d.openCursor(*q, cursor)
	if err != nil {
		return err
	}
	q.cursor, q.started = pos, true
	return nil
}

// queryDigest binds a cursor to its query: the basis, the normalised skill
// and the normalised context labels.
func queryDigest(q query) [16]byte {
	h := sha256.New()
	labels := q.ctx.Values()
	h.Write([]byte("find_agents/1\x00" + q.basis + "\x00" + q.skill + "\x00" + strings.Join(labels[:], "\x00")))
	var d [16]byte
	copy(d[:], h.Sum(nil))
	return d
}

// cursor seals the position after pos for q: the query digest, the key
// (8 bytes, big-endian) and the public id.
func (d *Discovery) cursor(q query, pos IndexPosition) string {
	b := make([]byte, 0, 24+len(pos.ID))
	b = append(b, q.digest[:]...)
	b = binary.BigEndian.AppendUint64(b, uint64(pos.Key))
	b = append(b, pos.ID...)
	return d.sealer.Seal(CursorPurpose, b)
}

// openCursor reads a cursor of q: sealed by this service for find_agents,
// for the same query, naming a valid position.
func (d *Discovery) openCursor(q query, token string) (IndexPosition, error) {
	bad := issuer.Errorf(issuer.CodeCursorInvalid, "cursor is not one this service returned for this query: pass back nextCursor with the same skill and context")
	b, err := d.sealer.Open(CursorPurpose, token)
	if errors.Is(err, seal.ErrInvalid) || len(b) < 24 {
		return Start, bad
	}
	if err != nil {
		return Start, err
	}
	if [16]byte(b[:16]) != q.digest {
		return Start, bad
	}
	key := int64(binary.BigEndian.Uint64(b[16:24]))
	id, err := issuer.ParseAgentID(string(b[24:]))
	if err != nil || key < 0 {
		return Start, bad
	}
	return IndexPosition{Key: key, ID: id}, nil
}

// emptyNote explains a first page with no result.
func (d *Discovery) emptyNote(q query) string {
	if !q.known {
		return fmt.Sprintf("No listed agent's passport lists the skill %q. It is not a skill of %s, so it is related to no other skill: agents with evidence for other skills are not shown in its place.",
			q.skill, skilltrust.Skills1().Version())
	}
	return fmt.Sprintf("No listed agent's passport lists the skill %q: no agent has records about it. Agents with evidence for other skills are not shown in its place.", q.skill)
}

// freshness states the index's lag.
func freshness(st IndexStatus, changedOnPage int) issuer.Freshness {
	f := issuer.Freshness{Changed: st.Changed, Aged: st.Aged, ChangedOnPage: changedOnPage}
	var b strings.Builder
	if st.CheckedAt.IsZero() {
		b.WriteString("The index has not been checked against the records yet; results may lag them.")
	} else {
		t := st.CheckedAt.UTC()
		f.CheckedAt = &t
		at := t.Format(time.RFC3339)
		switch {
		case st.Changed+st.Aged == 0:
			fmt.Fprintf(&b, "At %s every subject was indexed as of its latest records.", at)
		default:
			fmt.Fprintf(&b, "At %s, %d subjects awaited re-indexing: %d whose records had changed, %d whose figures were assessed before that day.",
				at, st.Changed+st.Aged, st.Changed, st.Aged)
		}
	}
	switch changedOnPage {
	case 0:
		b.WriteString(" No result on this page has changed since it was indexed.")
	case 1:
		b.WriteString(" 1 result on this page has changed since it was indexed and is ranked by its earlier figures until re-indexed.")
	default:
		fmt.Fprintf(&b, " %d results on this page have changed since they were indexed and are ranked by their earlier figures until re-indexed.", changedOnPage)
	}
	f.Statement = b.String()
	return f
}

// listingPage is the legacy registry listing: listed agents by global
// reputation, then public id.
func (d *Discovery) listingPage(ctx context.Context, q query) ([]found, bool, error) {
	rows, err := d.st.ListingPage(ctx, q.cursor, q.limit+1)
	if err != nil {
		return nil, false, err
	}
	out := make([]found, 0, min(len(rows), q.limit))
	for _, r := range rows[:min(len(rows), q.limit)] {
		score := float64(r.Score) / 1000
		out = append(out, found{pos: IndexPosition{Key: r.ListingKey, ID: r.Subject}, agent: issuer.FoundAgent{
			ID: r.Subject, Name: issuer.PublicName(r.Name),
			Reputation:          &issuer.FoundReputation{Score: score, TrustLevel: r.TrustLevel},
			Why:                 fmt.Sprintf("global reputation %s (%s), not skill evidence", formatScore(score), r.TrustLevel),
			ChangedSinceIndexed: r.Current != r.Revision,
		}})
	}
	return out, len(rows) > q.limit, nil
}

// EvidencedKey is the key that orders subjects by their latest evidence
// day (YYYY-MM-DD), newest first: 99999999 less the day written as
// YYYYMMDD, and 99999999, after every evidenced subject, for "" (none).
func EvidencedKey(day string) int64 {
	if len(day) != len("2006-01-02") {
		return noEvidenceKey
	}
	n, err := strconv.ParseInt(day[:4]+day[5:7]+day[8:], 10, 64)
	if err != nil || n < 0 {
		return noEvidenceKey
	}
	return noEvidenceKey - n
}

// noEvidenceKey is the evidenced key of a subject with no eligible
// evidence.
const noEvidenceKey = 99999999

// RecentAgents lists the public agents by their latest evidence, the most
// recently evidenced first and those with none last (then by public id):
// the start page's listing (SPEC.md §18.9). Its pages follow one another
// through sealed cursors of their own.
func (d *Discovery) RecentAgents(ctx context.Context, cursor string, limit int) (issuer.RecentAgentsPage, error) {
	q := query{limit: limit, basis: recentBasis, cursor: Start}
	if err := checkLimit(limit); err != nil {
		return issuer.RecentAgentsPage{}, err
	}
	if err := d.begin(&q, cursor); err != nil {
		return issuer.RecentAgentsPage{}, err
	}
	rows, err := d.st.RecentPage(ctx, q.cursor, q.limit+1)
	if err != nil {
		return issuer.RecentAgentsPage{}, err
	}
	page := issuer.RecentAgentsPage{Agents: make([]issuer.RecentAgent, 0, min(len(rows), q.limit))}
	for _, r := range rows[:min(len(rows), q.limit)] {
		page.Agents = append(page.Agents, issuer.RecentAgent{ID: r.Subject, Name: issuer.PublicName(r.Name), LatestEvidence: r.LatestEvidence})
	}
	if len(rows) > q.limit {
		last := rows[q.limit-1]
		page.NextCursor = d.cursor(q, IndexPosition{Key: last.EvidencedKey, ID: last.Subject})
	}
	return page, nil
}

// recentBasis binds the cursors of [Discovery.RecentAgents] to its
// listing; it is not a find_agents basis.
const recentBasis = "recent_evidence"

// formatScore writes a reputation score without needless digits.
func formatScore(s float64) string {
	return strings.TrimRight(strings.TrimRight(fmt.Sprintf("%.3f", s), "0"), ".")
}

// skillPage ranks the agents whose passports list the skill by their
// listed skill passports: one keyset read of limit+1 index rows.
func (d *Discovery) skillPage(ctx context.Context, q query) ([]found, bool, error) {
	rows, err := d.st.SkillPage(ctx, q.skill, q.cursor, q.limit+1)
	if err != nil {
		return nil, false, err
	}
	out := make([]found, 0, min(len(rows), q.limit))
	for _, r := range rows[:min(len(rows), q.limit)] {
		s := foundSkill(r)
		out = append(out, found{pos: IndexPosition{Key: r.RankKey, ID: r.Subject}, agent: issuer.FoundAgent{
			ID: r.Subject, Name: issuer.PublicName(r.Name), Skill: s, Why: why(s, false),
			ChangedSinceIndexed: r.Current != r.Revision,
		}})
	}
	return out, len(rows) > q.limit, nil
}

// foundSkill is the summary of an index row.
func foundSkill(r IndexedSkill) *issuer.FoundSkill {
	s := &issuer.FoundSkill{
		Skill: r.Skill, State: string(r.State), Assessment: string(r.Assessment), EvidenceLevel: string(r.Level),
		Contested: r.Contested, Stale: r.Stale, IndependentOperators: r.Operators, SourceCount: r.SourceCount,
		AssessedAt: r.AssessedOn, AssessmentHash: r.AssessmentHash,
	}
	if r.Lower != nil && r.Midpoint != nil && r.Upper != nil {
		s.Estimate = &issuer.SkillEstimate{Midpoint: float64(*r.Midpoint) / 1e6, Lower: float64(*r.Lower) / 1e6, Upper: float64(*r.Upper) / 1e6}
	}
	return s
}

// skillSummary is the summary of a skill passport.
func skillSummary(sp passport.SkillPassport) *issuer.FoundSkill {
	s := &issuer.FoundSkill{
		Skill: sp.Skill, State: string(sp.State), Assessment: string(sp.Assessment), EvidenceLevel: string(sp.EvidenceLevel),
		Contested: sp.Contested, Stale: sp.Stale, IndependentOperators: sp.Effective.Operators, SourceCount: sp.SourceCount,
		AssessedAt: sp.AssessedAt, AssessmentHash: sp.AssessmentHash,
	}
	if e := sp.Estimate; e != nil {
		s.Estimate = &issuer.SkillEstimate{Midpoint: e.Midpoint, Lower: e.Lower, Upper: e.Upper}
	}
	return s
}

// why says in one line what ranks a skill result.
func why(s *issuer.FoundSkill, inContext bool) string {
	var b strings.Builder
	if inContext {
		b.WriteString("in this context: ")
	}
	ops := "independent operators"
	if s.IndependentOperators == 1 {
		ops = "independent operator"
	}
	fmt.Fprintf(&b, "%s evidence from %d %s", s.EvidenceLevel, s.IndependentOperators, ops)
	if s.Estimate != nil {
		fmt.Fprintf(&b, "; lower bound %.2f", s.Estimate.Lower)
	} else {
		b.WriteString("; no estimate (N/A)")
	}
	if s.State == string(passport.StateNew) {
		b.WriteString("; no weighted evidence yet")
	}
	if s.Contested {
		b.WriteString("; contested: an unresolved contradiction, labelled and kept in its place")
	}
	if s.Stale {
		b.WriteString("; stale: no eligible evidence for two years")
	}
	return b.String()
}
