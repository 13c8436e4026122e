package skilltrust

import (
	"fmt"
	"math"

	"github.com/remnant/passportkit/evidence"
)

// Assess assesses task.Skill in task.Context from set, as of at, under
// contextual-trust-v2 and skills-1. It is a pure function of its
// arguments.
func Assess(set *evidence.Set, task Task, at evidence.Date) (*Assessment, error) {
	return assess(set, task, at, nil)
}

// assess is Assess, reading only the records of sc when sc is not nil.
func assess(set *evidence.Set, task Task, at evidence.Date, sc *scope) (*Assessment, error) {
	st, err := begin(set, task, at, sc)
	if err != nil {
		return nil, err
	}
	st.caps()
	st.aggregate()
	st.judge()
	st.explain()
	return st.a, nil
}

// begin checks the task and takes an assessment through its first steps:
// the relevant records with their initial weights, and the positions.
func begin(set *evidence.Set, task Task, at evidence.Date, sc *scope) (*state, error) {
	o := Skills1()
	if at.IsZero() {
		return nil, fmt.Errorf("%w: no assessment date", ErrTask)
	}
	if len(task.Skill) > evidence.MaxTextLen {
		return nil, fmt.Errorf("%w: skill term longer than %d bytes", ErrTask, evidence.MaxTextLen)
	}
	ts := o.Normalize(task.Skill)
	if ts.Name == "" {
		return nil, fmt.Errorf("%w: blank skill term", ErrTask)
	}
	for i, v := range task.Context.Values() {
		if len(v) > evidence.MaxTextLen {
			return nil, fmt.Errorf("%w: context %s longer than %d bytes", ErrTask, evidence.Dimensions[i], evidence.MaxTextLen)
		}
		if v != "" && evidence.NormalizeLabel(v) == "" {
			return nil, fmt.Errorf("%w: context %s is blank", ErrTask, evidence.Dimensions[i])
		}
	}
	tctx := task.Context.Normalized()
	a := &Assessment{
		Skill: ts.Name, KnownSkill: ts.Known, Ontology: o.Version(), Policy: PolicyID, At: at,
		TaskDimensions: []string{},
		Counts: Counts{
			ByType: map[evidence.Type]int{}, ByOutcome: map[evidence.Outcome]int{}, ByQuality: map[evidence.Quality]int{},
		},
	}
	for i, v := range tctx.Values() {
		if v != "" {
			a.TaskDimensions = append(a.TaskDimensions, evidence.Dimensions[i])
		}
	}
	st := &state{a: a, set: set, task: ts, tctx: tctx, at: at, scope: sc}
	if sc != nil && sc.clusters != nil {
		st.clusters = sc.clusters
	} else {
		st.clusters = set.ClustersAsOf(at)
	}
	st.collect(o)
	st.positions()
	return st, nil
}

// state carries one assessment through its steps.
type state struct {
	a      *Assessment
	set    *evidence.Set
	task   Skill
	tctx   evidence.Context
	at     evidence.Date
	limits []Limitation // those that applied, in the order first noted
	scope  *scope       // nil: every record of the set
	// clusters are the lineage clusters of the records dated on or before
	// at: a later record never joins two earlier ones (SPEC.md §4.2).
	clusters *evidence.Clusters

	items    []item            // relevant records, latest first, then by id
	pos      []*position       // one per actor and lineage
	resolved map[string]string // contradiction id -> resolution id
}

type item struct {
	rec   *evidence.Record
	keys  evidence.Keys
	src   *Source // in Assessment.Sources
	class class
}

type position struct {
	rep     *item
	w0, w   float64
	groups  [5]*capGroup // at most one of each kind
	ngroups int
}

type capGroup struct {
	g     Group
	count int // members
}

// collect selects the records relevant to the task skill and computes each
// one's initial weight: eligibility × applicability × context match ×
// 2^(−age/365).
func (st *state) collect(o *Ontology) {
	recs := st.set.Records()
	skills := map[string]Skill{}
	matches := map[int32]*ContextMatch{}
	byType, byQuality, byOutcome := map[evidence.Type]int{}, map[evidence.Quality]int{}, map[evidence.Outcome]int{}
	order := st.set.ByDate()
	if st.scope != nil {
		order = st.scope.order
		if st.a.Counts.LaterRecords = st.scope.later; st.scope.later > 0 {
			st.note(LimitLaterRecords)
		}
	}
	st.items = make([]item, 0, len(order))
	st.a.Sources = make([]Source, 0, len(order)) // never reallocated: items point into it
	st.resolved = map[string]string{}
	for i := range recs {
		r := &recs[i]
		if r.Type == evidence.TypeResolution && st.at.Sub(r.Date) >= 0 {
			st.resolved[r.Resolves] = r.ID
		}
	}
	for _, i := range order {
		r := &recs[i]
		if st.at.Sub(r.Date) < 0 {
			if st.scope == nil {
				st.a.Counts.LaterRecords++
				st.note(LimitLaterRecords)
			}
			continue
		}
		sk, ok := skills[r.Skill]
		if !ok {
			sk = o.Normalize(r.Skill)
			skills[r.Skill] = sk
		}
		app := Applicability(sk, st.task)
		if app == 0 {
			continue
		}
		keys := st.set.Keys(i)
		keys.Cluster = st.clusters.Of(i)
		match, ok := matches[keys.Context]
		if !ok {
			m := MatchContext(st.tctx, st.set.NormalizedContext(keys.Context))
			match = &m
			matches[keys.Context] = match
		}
		st.a.Sources = append(st.a.Sources, Source{
			ID: r.ID, Type: r.Type, Outcome: r.Outcome, Quality: r.Quality, Skill: sk.Name, Date: r.Date,
			Reporter: r.Reporter, Ownership: r.Ownership, Lineage: st.clusters.Name(i),
			Applicability: app, ContextMatch: match, Role: RoleNotWeighted,
		})
		s := &st.a.Sources[len(st.a.Sources)-1]
		st.items = append(st.items, item{rec: r, keys: keys, src: s})
		it := &st.items[len(st.items)-1]
		switch r.Ownership {
		case evidence.OwnershipDistinct:
			s.Eligibility = EligibilityDistinct
		case evidence.OwnershipUnknown:
			s.Eligibility = EligibilityUnknown
		}
		s.Decay = math.Exp2(-float64(st.at.Sub(r.Date)) / HalfLifeDays)
		if r.Type.Observation() {
			s.Role = RoleCounted
			s.InitialWeight = s.Eligibility * app * s.ContextMatch.Value * s.Decay
			it.class = classify(r, st.resolved)
		}
		if r.Type == evidence.TypeContradiction {
			s.Contradiction = "unresolved"
			if st.resolved[r.ID] != "" {
				s.Contradiction = "resolved"
			}
		}
		st.a.Counts.Records++
		byType[r.Type]++
		byQuality[r.Quality]++
		if r.Outcome != "" {
			byOutcome[r.Outcome]++
		}
	}
	st.a.Counts.ByType, st.a.Counts.ByQuality, st.a.Counts.ByOutcome = byType, byQuality, byOutcome
}

func classify(r *evidence.Record, resolved map[string]string) class {
	switch r.Type {
	case evidence.TypeContradiction:
		if resolved[r.ID] != "" {
			return classResolved
		}
		return classUnresolved
	case evidence.TypeCorroboration:
		return classCorroboration
	}
	switch r.Outcome {
	case evidence.OutcomeFailure:
		return classFailure
	case evidence.OutcomePartial:
		return classPartial
	case evidence.OutcomeUncertain:
		return classUncertain
	}
	return classSuccess
}
