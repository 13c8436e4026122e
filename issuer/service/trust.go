package service

import (
	"context"
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
	SourceRevision string
	AssessedAt     time.Time
	State          string
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

// skillEntry is one cached skill passport.
type skillEntry struct {
	sp       passport.SkillPassport
	known    bool // the subject's passport lists the skill
	history  SkillHistory
	mu       sync.Mutex
	recorded bool
}

// SkillPassport returns the skill passport of the agent id for task, as of
// now: the pure read that passports, MCP and other general reads use. It
// writes nothing. Answers are cached by the subject's revision, the
// normalised skill and context, and the hour.
func (p *Passports) SkillPassport(ctx context.Context, id issuer.AgentID, task skilltrust.Task) (passport.SkillPassport, error) {
	e, err := p.skill(ctx, id, task)
	if err != nil {
		return passport.SkillPassport{}, err
	}
	return e.sp, nil
}

// InspectSkill is the trust service's read of one known skill passport:
// the subject's skill passport for skill with no task context, recorded in
// the skill history (and counted in the day's network metrics) the first
// time it is assessed for a subject revision and hour. Only a skill the
// subject's passport lists is known; any other is not_found, so arbitrary
// queries cannot add history rows.
func (p *Passports) InspectSkill(ctx context.Context, hs HistoryStore, id issuer.AgentID, skill string) (passport.SkillPassport, error) {
	e, err := p.skill(ctx, id, skilltrust.Task{Skill: skill})
	if err != nil {
		return passport.SkillPassport{}, err
	}
	if !e.known {
		return passport.SkillPassport{}, issuer.Errorf(issuer.CodeNotFound, "agent %s's passport lists no skill %s", id, clipSkill(skill))
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	if !e.recorded {
		if err := hs.RecordSkillHistory(ctx, e.history); err != nil {
			return passport.SkillPassport{}, err
		}
		e.recorded = true
	}
	return e.sp, nil
}

func clipSkill(s string) string {
	if len(s) > 64 {
		return strings.ToValidUTF8(s[:64], "") + "…"
	}
	return s
}

// skill returns the cached skill passport of id for task, assessing it from
// the subject's cached collection when missing.
func (p *Passports) skill(ctx context.Context, id issuer.AgentID, task skilltrust.Task) (*skillEntry, error) {
	if task.Skill == "" || len(task.Skill) > evidence.MaxTextLen {
		return nil, issuer.Errorf(issuer.CodeInvalid, "a skill of 1 to %d bytes is required", evidence.MaxTextLen)
	}
	norm := skilltrust.Skills1().Normalize(task.Skill).Name
	ctxLabels := task.Context.Normalized()
	rev, err := p.st.SubjectRevision(ctx, id)
	if err != nil {
		return nil, err
	}
	now := p.now().UTC()
	hour := hourBucket(now)
	labels := ctxLabels.Values()
	key := cacheKey{revision: rev, context: "skill\x00" + norm + "\x00" + strings.Join(labels[:], "\x00"), hour: hour}
	v, ok := p.cache.get(id, key)
	p.observer.ObserveCacheLookup(CacheSkill, ok)
	if ok {
		return v.(*skillEntry), nil
	}
	d, err := p.draft(ctx, id, rev, now)
	if err != nil {
		return nil, err
	}
	issued := d.draft.Passport.IssuedAt.UTC()
	a, err := skilltrust.Assess(d.draft.Collection().Set(), skilltrust.Task{Skill: norm, Context: ctxLabels}, calendar.Of(issued))
	if err != nil {
		return nil, err
	}
	sp, err := a.SkillPassport()
	if err != nil {
		return nil, err
	}
	h := SkillHistory{
		Subject: id, Skill: sp.Skill, Policy: a.Policy, SourceRevision: rev, AssessedAt: issued, State: string(sp.State),
		Operators: a.Effective.Operators, Contradictions: len(a.Contradictions),
		Contested: sp.Contested, InsufficientEvidence: sp.Assessment == passport.AssessmentInsufficientEvidence,
	}
	if sp.Estimate != nil {
		m := int64(math.Round(sp.Estimate.Midpoint * 1e6))
		h.Estimate = &m
	}
	h.AssessmentHash = sp.AssessmentHash
	known := slices.ContainsFunc(d.draft.Passport.SkillPassports, func(l passport.SkillPassport) bool { return l.Skill == sp.Skill })
	return p.cache.add(id, key, &skillEntry{sp: sp, known: known && ctxLabels == (evidence.Context{}), history: h}).(*skillEntry), nil
}
