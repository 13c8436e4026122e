package service

import (
	"context"
	"errors"
	"math"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/remnant/passportkit/evidence"
	"github.com/remnant/passportkit/internal/calendar"
	"github.com/remnant/passportkit/issuer"
	"github.com/remnant/passportkit/passport"
	"github.com/remnant/passportkit/skilltrust"
)

// The daily network metrics of the trust model (SPEC.md §5.9).
const (
	MetricAssessmentsGenerated = "skill_assessments_generated"
	MetricEvidenceUpdates      = "skill_evidence_updates"
	MetricContestedAssessments = "skill_contested_assessments"
	MetricInsufficientEvidence = "skill_insufficient_evidence"
	MetricStateChanges         = "skill_state_changes"
	MetricEstimateChanges      = "skill_estimate_changes"
	MetricCrossOperatorGains   = "skill_cross_operator_gains"
)

// MetricNames lists every daily network metric, in the order SPEC.md §5.9
// gives them.
var MetricNames = []string{
	MetricAssessmentsGenerated, MetricContestedAssessments, MetricInsufficientEvidence,
	MetricEvidenceUpdates, MetricStateChanges, MetricEstimateChanges, MetricCrossOperatorGains,
}

// SkillHistory is one row of a subject's skill history: what the trust
// service showed, never the request's context or a raw identity.
type SkillHistory struct {
	Subject        issuer.AgentID
	Skill          string // normalised
	Policy         string
	SourceRevision string // the subject's own token: see SubjectToken
	AssessedAt     time.Time
	// Hour is the UTC hour of the passport the assessment belongs to
	// (Unix seconds / 3600): with Subject, Skill and SourceRevision, the
	// key a history row is written once under.
	Hour  int64
	State string
	// Estimate is the estimate's midpoint in millionths, nil without one.
	Estimate       *int64
	Operators      int // distinct known independent operators with weight
	Contradictions int // contradictions in the assessment
	AssessmentHash string
	// Contested and InsufficientEvidence decide the day's counters.
	Contested, InsufficientEvidence bool
}

// HistoryStore keeps skill history and network metrics. issuer/store
// implements it.
type HistoryStore interface {
	RecordSkillHistory(ctx context.Context, h SkillHistory) error
}

// skillEntry is one cached skill passport, with what the trust API shows
// beside it.
type skillEntry struct {
	sp         passport.SkillPassport
	why        skilltrust.Why
	unresolved int  // unresolved contradictions of non-zero eligibility
	listed     bool // the subject's passport lists the skill
	known      bool // listed, and no context was given
	history    SkillHistory
	mu         sync.Mutex
	recorded   bool
}

// SkillPassport returns the skill passport of the agent id for task, as of
// now: the pure read that passports, MCP and other general reads use. It
// writes nothing. Answers are cached by the subject's revision, the
// normalised skill and context, and the hour.
func (p *Passports) SkillPassport(ctx context.Context, id issuer.AgentID, task skilltrust.Task) (passport.SkillPassport, error) {
	es, err := p.skills(ctx, id, []skilltrust.Task{task})
	if err != nil {
		return passport.SkillPassport{}, err
	}
	return es[0].sp, nil
}

// InspectSkill is the trust service's read of one known skill passport:
// the subject's skill passport for skill with no task context, recorded in
// the skill history (and counted in the day's network metrics) the first
// time it is assessed for a subject revision and hour. Only a skill the
// subject's passport lists is known; any other is not_found, so arbitrary
// queries cannot add history rows.
func (p *Passports) InspectSkill(ctx context.Context, hs HistoryStore, id issuer.AgentID, skill string) (passport.SkillPassport, error) {
	es, err := p.skills(ctx, id, []skilltrust.Task{{Skill: skill}})
	if err != nil {
		return passport.SkillPassport{}, err
	}
	e := es[0]
	if !e.known {
		return passport.SkillPassport{}, issuer.Errorf(issuer.CodeNotFound, "agent %s's passport lists no skill %s", id, clipSkill(skill))
	}
	if err := e.record(ctx, hs); err != nil {
		return passport.SkillPassport{}, err
	}
	return e.sp, nil
}

// record writes e's history row the first time it is called for e: once per
// subject revision, hour and skill, as e is cached under those. The store
// keys the row by the same, so other processes do not write it again.
func (e *skillEntry) record(ctx context.Context, hs HistoryStore) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.recorded {
		return nil
	}
	if err := hs.RecordSkillHistory(ctx, e.history); err != nil {
		return err
	}
	e.recorded = true
	return nil
}

func clipSkill(s string) string {
	if len(s) > 64 {
		return strings.ToValidUTF8(s[:64], "") + "…"
	}
	return s
}

// checkTasks is checkTask of each task.
func checkTasks(tasks []skilltrust.Task) error {
	for _, task := range tasks {
		if err := checkTask(task); err != nil {
			return err
		}
	}
	return nil
}

// checkTask refuses a task the trust model cannot assess: a skill term of
// more than evidence.MaxTextLen bytes or blank once normalised, or a
// context label too long or blank once normalised (SPEC.md §4.2).
func checkTask(task skilltrust.Task) error {
	if task.Skill == "" || len(task.Skill) > evidence.MaxTextLen || skilltrust.Skills1().Normalize(task.Skill).Name == "" {
		return issuer.Errorf(issuer.CodeInvalid, "a skill of 1 to %d bytes, not blank, is required", evidence.MaxTextLen)
	}
	for i, v := range task.Context.Values() {
		if len(v) > evidence.MaxTextLen || v != "" && evidence.NormalizeLabel(v) == "" {
			return issuer.Errorf(issuer.CodeInvalid, "the context label %s must be 1 to %d bytes, not blank", evidence.Dimensions[i], evidence.MaxTextLen)
		}
	}
	return nil
}

// skillKey is the cache key of task's skill passport at revision rev in
// hour.
func skillKey(task skilltrust.Task, rev string, hour int64) cacheKey {
	norm := skilltrust.Skills1().Normalize(task.Skill).Name
	labels := task.Context.Normalized().Values()
	return cacheKey{revision: rev, context: "skill\x00" + norm + "\x00" + strings.Join(labels[:], "\x00"), hour: hour}
}

// skills returns the cached skill passports of id for tasks, in their
// order, assessing those missing from the subject's cached collection in
// one pass (skilltrust.AssessSkills, as issuing assesses a passport's
// skills).
func (p *Passports) skills(ctx context.Context, id issuer.AgentID, tasks []skilltrust.Task) ([]*skillEntry, error) {
	if err := checkTasks(tasks); err != nil {
		return nil, err
	}
	rev, err := p.st.SubjectRevision(ctx, id)
	if err != nil {
		return nil, err
	}
	now := p.now().UTC()
	hour := hourBucket(now)
	have, all := p.cachedSkills(id, rev, hour, tasks)
	if all {
		return have, nil
	}
	d, err := p.draft(ctx, id, rev, now)
	if err != nil {
		return nil, err
	}
	if d.draft.Revision != rev || hourBucket(d.draft.Passport.IssuedAt.UTC()) != hour {
		have = nil // looked up under another key: look up again
	}
	return p.skillsOf(id, d, tasks, have)
}

// pinnedSkills is skills for the passport hash issued to id (see
// issuer.TrustQuery.Passport).
func (p *Passports) pinnedSkills(id issuer.AgentID, hash string, tasks []skilltrust.Task) ([]*skillEntry, error) {
	if err := checkTasks(tasks); err != nil {
		return nil, err
	}
	d, err := p.pinned(id, hash)
	if err != nil {
		return nil, err
	}
	return p.skillsOf(id, d, tasks, nil)
}

// passportOf returns the passport hash issued to id, or id's current
// passport when hash is "".
func (p *Passports) passportOf(ctx context.Context, id issuer.AgentID, hash string) (*issuedDraft, error) {
	if hash == "" {
		return p.current(ctx, id)
	}
	return p.pinned(id, hash)
}

// cachedSkills returns the cached skill passports of id at revision rev
// in hour for tasks, and whether every one was cached.
func (p *Passports) cachedSkills(id issuer.AgentID, rev string, hour int64, tasks []skilltrust.Task) ([]*skillEntry, bool) {
	out := make([]*skillEntry, len(tasks))
	all := true
	for i, task := range tasks {
		v, ok := p.cache.get(id, skillKey(task, rev, hour))
		p.observer.ObserveCacheLookup(CacheSkill, ok)
		if ok {
			out[i] = v.(*skillEntry)
		}
		all = all && ok
	}
	return out, all
}

// skillsOf returns the skill passports of tasks assessed from the one
// passport d, so that every answer describes the revision d describes:
// those cached for d's revision and hour, and the missing ones assessed
// in one pass (skilltrust.AssessSkills, as issuing assesses a passport's
// skills) and cached. have, when not nil, holds the entries already found
// under d's revision and hour. The tasks are already checked.
func (p *Passports) skillsOf(id issuer.AgentID, d *issuedDraft, tasks []skilltrust.Task, have []*skillEntry) ([]*skillEntry, error) {
	issued := d.draft.Passport.IssuedAt.UTC()
	hour := hourBucket(issued)
	out := have
	if out == nil {
		var all bool
		if out, all = p.cachedSkills(id, d.draft.Revision, hour, tasks); all {
			return out, nil
		}
	}
	var missing []int
	for i := range tasks {
		if out[i] == nil {
			missing = append(missing, i)
		}
	}
	assess := make([]skilltrust.Task, len(missing))
	for j, i := range missing {
		assess[j] = skilltrust.Task{Skill: skilltrust.Skills1().Normalize(tasks[i].Skill).Name, Context: tasks[i].Context.Normalized()}
	}
	as, err := skilltrust.AssessSkills(d.draft.Collection().Set(), assess, calendar.Of(issued))
	if err != nil {
		return nil, taskError(err)
	}
	for j, a := range as {
		e, err := newSkillEntry(d, id, a, assess[j].Context == (evidence.Context{}))
		if err != nil {
			return nil, err
		}
		// d may be older than the subject's cached passport (a pinned
		// one, or a write's passport cached meanwhile): its entries must
		// not displace the newer ones.
		i := missing[j]
		out[i] = p.cache.addBeside(id, skillKey(tasks[i], d.draft.Revision, hour), e).(*skillEntry)
	}
	return out, nil
}

// newSkillEntry serialises a, assessed from d's collection; noContext
// says that its task stated no context.
func newSkillEntry(d *issuedDraft, id issuer.AgentID, a *skilltrust.Assessment, noContext bool) (*skillEntry, error) {
	sp, err := a.SkillPassport()
	if err != nil {
		return nil, err
	}
	issued := d.draft.Passport.IssuedAt.UTC()
	h := SkillHistory{
		Subject: id, Skill: sp.Skill, Policy: a.Policy, SourceRevision: SubjectToken(d.draft.Revision), AssessedAt: issued, Hour: hourBucket(issued), State: string(sp.State),
		Operators: a.Effective.Operators, Contradictions: len(a.Contradictions),
		Contested: sp.Contested, InsufficientEvidence: sp.Assessment == passport.AssessmentInsufficientEvidence,
		AssessmentHash: sp.AssessmentHash,
	}
	if sp.Estimate != nil {
		m := int64(math.Round(sp.Estimate.Midpoint * 1e6))
		h.Estimate = &m
	}
	listed := slices.ContainsFunc(d.draft.Passport.SkillPassports, func(l passport.SkillPassport) bool { return l.Skill == sp.Skill })
	return &skillEntry{sp: sp, why: a.Why(), unresolved: unresolved(a), listed: listed, known: listed && noContext, history: h}, nil
}

// unresolved counts a's relevant contradictions of non-zero eligibility
// that no resolution answers: those that make it contested.
func unresolved(a *skilltrust.Assessment) int {
	n := 0
	for _, c := range a.Contradictions {
		if c.Eligible && c.Status == "unresolved" {
			n++
		}
	}
	return n
}

// taskError maps the trust model's refusal of a task to invalid_request.
func taskError(err error) error {
	if errors.Is(err, skilltrust.ErrTask) {
		return &issuer.Error{Code: issuer.CodeInvalid, Message: strings.TrimPrefix(err.Error(), "skilltrust: "), Err: err}
	}
	return err
}
