package skilltrust

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/remnant/passportkit/evidence"
	"github.com/remnant/passportkit/passport"
)

// ErrTask is wrapped by the errors Assess and Compare return for a task
// they cannot assess.
var ErrTask = errors.New("skilltrust: invalid task")

// Task is what an assessment answers: a skill, and optionally the context
// it is needed in.
type Task struct {
	// Skill is a skill term; it is normalised with the ontology.
	Skill string
	// Context holds the labels the task states; unset dimensions impose no
	// constraint.
	Context evidence.Context
}

// Assessment is the assessment of one skill for one task from one subject's
// evidence, with everything that explains it: the sources and their
// weights, the independence groups and caps, contradictions, corrections,
// the limitations that applied and the thresholds that held it back. Every
// list is in a deterministic order that does not depend on the order of the
// input. It names records, actors and operators only by their pseudonyms and
// context dimensions only by name.
type Assessment struct {
	// Skill is the normalised task skill.
	Skill string `json:"skill"`
	// KnownSkill reports whether the ontology defines the skill.
	KnownSkill bool `json:"knownSkill"`
	// Ontology and Policy name the versioned policies applied.
	Ontology string `json:"ontology"`
	Policy   string `json:"policy"`
	// At is the assessment date; records dated later are left out.
	At evidence.Date `json:"at"`
	// TaskDimensions lists the context dimensions the task stated.
	TaskDimensions []string `json:"taskDimensions"`

	State         passport.SkillState      `json:"state"`
	Contested     bool                     `json:"contested"`
	Stale         bool                     `json:"stale"`
	Assessment    passport.AssessmentLabel `json:"assessment"`
	EvidenceLevel passport.EvidenceLevel   `json:"evidenceLevel"`
	Visibility    passport.Visibility      `json:"visibility"`
	Calibration   CalibrationResult        `json:"calibration"`
	// Estimate is nil when no estimate may be shown (N/A).
	Estimate *Estimate `json:"estimate"`
	// Effective holds the effective counts.
	Effective Effective `json:"effective"`
	// Counts holds raw counts of the relevant records.
	Counts Counts `json:"counts"`
	// Axes counts the distinct categories seen on each independence axis
	// among positions with positive weight. Sources record registered
	// operators only: the other axes report zero and remain unknown; they
	// are never inferred from names or declarations.
	Axes map[string]int `json:"axes"`
	// LatestEligible is the date of the latest eligible observation.
	LatestEligible *evidence.Date `json:"latestEligible,omitempty"`

	Sources        []Source        `json:"sources"`
	Groups         []Group         `json:"groups"`
	Contradictions []Contradiction `json:"contradictions"`
	Corrections    []Correction    `json:"corrections"`
	// Limitations lists the reason codes of the limits that applied,
	// sorted.
	Limitations []Limitation `json:"limitations"`
	// HeldBackBy lists the unmet thresholds of the estimate and of the next
	// evidence level.
	HeldBackBy []Threshold `json:"heldBackBy"`
}

// Effective counts are sums of final (capped) weights, and numbers of
// distinct known independent operators, validators and structured contexts
// among positions with positive weight.
type Effective struct {
	// Observations sums every position: outcomes of all kinds,
	// corroborations and contradictions.
	Observations float64 `json:"observations"`
	// Binary is N, the sum over successes and failures; Successes is S.
	Binary         float64 `json:"binary"`
	Successes      float64 `json:"successes"`
	Failures       float64 `json:"failures"`
	Partial        float64 `json:"partial"`
	Uncertain      float64 `json:"uncertain"`
	Corroborations float64 `json:"corroborations"`
	Contradictions float64 `json:"contradictions"`
	// Operators, Validators and Contexts count over all positions;
	// BinaryOperators and BinaryValidators over successes and failures.
	Operators        int `json:"operators"`
	Validators       int `json:"validators"`
	Contexts         int `json:"contexts"`
	BinaryOperators  int `json:"binaryOperators"`
	BinaryValidators int `json:"binaryValidators"`
}

// Counts are raw counts of the records relevant to the skill.
type Counts struct {
	Records int `json:"records"`
	// ByType and ByOutcome count records by type and outcome; ByQuality by
	// tier.
	ByType    map[evidence.Type]int    `json:"byType"`
	ByOutcome map[evidence.Outcome]int `json:"byOutcome"`
	ByQuality map[evidence.Quality]int `json:"byQuality"`
	// Positions counts the actor positions after merging representations.
	Positions int `json:"positions"`
	// LaterRecords counts records dated after the assessment date, left out.
	LaterRecords int `json:"laterRecords"`
	// Observations counts the relevant outcome, corroboration and
	// contradiction records; Lineages the distinct lineage clusters among
	// positions; Contexts the distinct normalised contexts among relevant
	// observations.
	Observations int `json:"observations"`
	Lineages     int `json:"lineages"`
	Contexts     int `json:"contexts"`
}

// Role says what a source contributed to an assessment.
type Role string

// Source roles.
const (
	// RoleCounted: the record holds its actor's position in its lineage.
	RoleCounted Role = "counted"
	// RoleMerged: another representation by the same actor in the same
	// lineage (a repost, a mirror): it adds no weight and stays visible.
	RoleMerged Role = "merged"
	// RoleNotWeighted: a declaration, publication, resolution or an act of
	// the subject on its work; never weighted.
	RoleNotWeighted Role = "not_weighted"
)

// Source is one record relevant to the assessed skill and what it
// contributed.
type Source struct {
	ID        string             `json:"id"`
	Type      evidence.Type      `json:"type"`
	Outcome   evidence.Outcome   `json:"outcome,omitempty"`
	Quality   evidence.Quality   `json:"quality"`
	Skill     string             `json:"skill"`
	Date      evidence.Date      `json:"date"`
	Reporter  string             `json:"reporter"`
	Ownership evidence.Ownership `json:"ownership"`
	Lineage   string             `json:"lineage"`
	// Applicability is the skill match, ContextMatch the context match
	// (shared between sources of one context; never nil),
	// Eligibility the ownership coefficient and Decay the age factor.
	Applicability float64       `json:"applicability"`
	ContextMatch  *ContextMatch `json:"contextMatch"`
	Eligibility   float64       `json:"eligibility"`
	Decay         float64       `json:"decay"`
	// InitialWeight is their product, before caps; Weight the final weight.
	InitialWeight float64 `json:"initialWeight"`
	Weight        float64 `json:"weight"`
	Role          Role    `json:"role"`
	// MergedInto names the record holding the position a merged record
	// belongs to.
	MergedInto string `json:"mergedInto,omitempty"`
	// Contradiction is "unresolved" or "resolved" on contradictions.
	Contradiction string `json:"contradiction,omitempty"`
}

// Group kinds.
const (
	GroupActor            = "actor"
	GroupOperator         = "operator"
	GroupUnknownOperators = "unknown_operators"
	GroupLineage          = "lineage"
	GroupOperatorContext  = "operator_context"
)

// Group is an independence or lineage group with its cap.
type Group struct {
	Kind string `json:"kind"`
	// Key is the actor, operator or lineage cluster; for operator_context
	// the operator (or "unknown") and the ordinal of the context among the
	// assessment's distinct contexts.
	Key         string  `json:"key"`
	Cap         float64 `json:"cap"`
	InitialMass float64 `json:"initialMass"`
	// Factor is min(1, cap/initial mass); Mass the group's final mass.
	Factor float64 `json:"factor"`
	Mass   float64 `json:"mass"`
	// Members lists the positions' records, latest first.
	Members []string `json:"members"`
}

// Contradiction is a relevant contradiction and its status.
type Contradiction struct {
	ID       string `json:"id"`
	Eligible bool   `json:"eligible"`
	// Status is "unresolved" or "resolved"; ResolvedBy names the
	// resolution record.
	Status     string        `json:"status"`
	ResolvedBy string        `json:"resolvedBy,omitempty"`
	Date       evidence.Date `json:"date"`
}

// Correction is an observable correction signal: the subject revised or
// deprecated its work after a contrary report about it. It adds no weight
// and resolves nothing.
type Correction struct {
	ID    string        `json:"id"`
	Type  evidence.Type `json:"type"`
	Date  evidence.Date `json:"date"`
	After string        `json:"after"`
}

// Threshold is a threshold that was not met.
type Threshold struct {
	Name     string  `json:"name"`
	Required float64 `json:"required"`
	Actual   float64 `json:"actual"`
}

// CalibrationResult reports calibration diagnostics, available only when
// enough outcomes carry a prediction recorded before them.
type CalibrationResult struct {
	Status passport.Calibration `json:"status"`
	// Outcomes, Clusters, Operators and Mass describe the binary positions
	// with a prior prediction.
	Outcomes  int     `json:"outcomes"`
	Clusters  int     `json:"clusters"`
	Operators int     `json:"operators"`
	Mass      float64 `json:"mass"`
	// Brier is the weighted Brier score, MeanPrediction the weighted mean
	// prediction and ObservedRate the weighted success rate; set only when
	// available.
	Brier          *float64 `json:"brier,omitempty"`
	MeanPrediction *float64 `json:"meanPrediction,omitempty"`
	ObservedRate   *float64 `json:"observedRate,omitempty"`
}

// Limitation is the reason code of a limit that applied to an assessment;
// SPEC.md §4 lists them.
type Limitation string

// Limitation reason codes.
const (
	LimitCapsApplied     Limitation = "caps_applied"
	LimitContextMismatch Limitation = "context_mismatch"
	LimitContextMissing  Limitation = "context_missing"
	LimitDeclarations    Limitation = "declarations_carry_no_weight"
	// LimitFailedReuse: a reuse of the subject's work failed, which limits
	// where the evidence applies (trust model 2.1). It says nothing about
	// honesty.
	LimitFailedReuse      Limitation = "failed_reuse_limits_applicability"
	LimitLaterRecords     Limitation = "later_records_ignored"
	LimitNonBinary        Limitation = "non_binary_outcomes_not_estimated"
	LimitMerged           Limitation = "representations_merged"
	LimitSelfReports      Limitation = "self_reports_carry_no_weight"
	LimitSharedOwnership  Limitation = "shared_ownership_carries_no_weight"
	LimitTruncated        Limitation = "truncated_collection"
	LimitUnknownOwnership Limitation = "unknown_ownership_discounted"
	LimitUnknownSkill     Limitation = "unknown_skill"
)

// note records that a limitation applied.
func (st *state) note(l Limitation) {
	if !slices.Contains(st.limits, l) {
		st.limits = append(st.limits, l)
	}
}

// class orders an actor's records in one lineage from most to least
// conservative; the most conservative holds the position.
type class int

const (
	classUnresolved class = iota // unresolved contradiction
	classFailure
	classPartial
	classUncertain
	classSuccess
	classResolved // resolved contradiction
	classCorroboration
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

// pair packs two keys into one map key.
func pair(a, b int32) int64 { return int64(a)<<32 | int64(uint32(b)) }

// positions gives each actor one conservative position per lineage cluster:
// the most conservative class among its observations there wins (an
// unresolved contradiction, then a failure, partial, uncertain outcome,
// success, resolved contradiction, corroboration), held by the heaviest
// record of that class; the actor's other records there are merged into it.
func (st *state) positions() {
	byKey := make(map[int64]*position, len(st.items))
	block := make([]position, 0, len(st.items)) // never reallocated: pos points into it
	for i := range st.items {
		it := &st.items[i]
		if !it.rec.Type.Observation() {
			continue
		}
		k := pair(it.keys.Reporter, it.keys.Cluster)
		p, ok := byKey[k]
		if !ok {
			block = append(block, position{rep: it})
			p = &block[len(block)-1]
			byKey[k] = p
			st.pos = append(st.pos, p)
			continue
		}
		if better(it, p.rep) {
			p.rep = it
		}
	}
	for _, p := range st.pos {
		p.w0 = p.rep.src.InitialWeight
	}
	for i := range st.items {
		it := &st.items[i]
		if !it.rec.Type.Observation() {
			continue
		}
		if p := byKey[pair(it.keys.Reporter, it.keys.Cluster)]; p.rep != it {
			it.src.Role = RoleMerged
			it.src.MergedInto = p.rep.rec.ID
			st.note(LimitMerged)
		}
	}
	st.a.Counts.Positions = len(st.pos)
	lineages, contexts := map[int32]bool{}, map[int32]bool{}
	for _, p := range st.pos {
		lineages[p.rep.keys.Cluster] = true
	}
	for i := range st.items {
		if it := &st.items[i]; it.rec.Type.Observation() {
			st.a.Counts.Observations++
			contexts[it.keys.Context] = true
		}
	}
	st.a.Counts.Lineages, st.a.Counts.Contexts = len(lineages), len(contexts)
}

// better reports whether a should hold the position instead of b: a more
// conservative class, then a heavier initial weight, then (for a stable
// choice that changes no figure) the smaller id.
func better(a, b *item) bool {
	if a.class != b.class {
		return a.class < b.class
	}
	if a.src.InitialWeight != b.src.InitialWeight {
		return a.src.InitialWeight > b.src.InitialWeight
	}
	return a.rec.ID < b.rec.ID
}

// caps scales every position by the smallest factor min(1, cap/initial
// mass) among its groups. Using initial masses makes the result independent
// of order, keeps every group within its cap, never raises a weight, and
// keeps each group's mix of successes and failures.
func (st *state) caps() {
	const (
		actor = iota
		operator
		unknown
		lineage
		operatorContext
	)
	// Actor, operator and lineage groups are indexed by their set keys;
	// the unknown pool is one group; operator contexts are looked up by
	// the pair of keys.
	sizes := st.set.KeySizes()
	byKey := [...][]*capGroup{
		actor:    make([]*capGroup, sizes.Reporter),
		operator: make([]*capGroup, sizes.Operator),
		unknown:  make([]*capGroup, 1),
		lineage:  make([]*capGroup, st.clusters.Len()),
	}
	opContext := map[int64]*capGroup{}
	var order []*capGroup
	add := func(p *position, slot **capGroup, g Group) {
		if *slot == nil {
			*slot = &capGroup{g: g}
			order = append(order, *slot)
		}
		cg := *slot
		cg.count++
		cg.g.InitialMass += p.w0 // in position order
		p.groups[p.ngroups] = cg
		p.ngroups++
	}
	join := func(p *position, kind int, key int64, g Group) {
		if kind == operatorContext {
			cg := opContext[key]
			add(p, &cg, g)
			opContext[key] = cg
			return
		}
		add(p, &byKey[kind][key], g)
	}
	ordinal := st.contextOrdinals()
	for _, p := range st.pos {
		r, k := p.rep.rec, p.rep.keys
		join(p, actor, int64(k.Reporter), Group{Kind: GroupActor, Key: r.Reporter, Cap: CapActor})
		join(p, lineage, int64(k.Cluster), Group{Kind: GroupLineage, Key: p.rep.src.Lineage, Cap: CapLineage})
		op := r.Operator
		switch r.Ownership {
		case evidence.OwnershipUnknown:
			join(p, unknown, 0, Group{Kind: GroupUnknownOperators, Key: "unknown", Cap: CapUnknownOperator})
			op = "unknown"
		case evidence.OwnershipSelf:
			continue // the subject has no operator group; its weight is zero
		default:
			join(p, operator, int64(k.Operator), Group{Kind: GroupOperator, Key: op, Cap: CapOperator})
		}
		if _, ok := opContext[pair(k.Operator, k.Context)]; !ok {
			op = fmt.Sprintf("%s#%d", op, ordinal[k.Context])
		}
		join(p, operatorContext, pair(k.Operator, k.Context), Group{Kind: GroupOperatorContext, Key: op, Cap: CapOperatorContext})
	}
	for _, g := range order {
		g.g.Factor = 1
		// A group is over its cap only beyond the tolerance (SPEC.md
		// §4.6): twenty weights of 0.05 sum to 1.0000000000000002 and
		// are not scaled.
		if g.g.InitialMass > g.g.Cap+tolerance {
			g.g.Factor = g.g.Cap / g.g.InitialMass
		}
		g.g.Members = make([]string, 0, g.count)
	}
	for _, p := range st.pos {
		f := 1.0
		for _, g := range p.groups[:p.ngroups] {
			f = math.Min(f, g.g.Factor)
		}
		if f < 1 && p.w0 > 0 {
			st.note(LimitCapsApplied)
		}
		p.w = p.w0 * f
		p.rep.src.Weight = p.w
		for _, g := range p.groups[:p.ngroups] {
			g.g.Mass += p.w
			g.g.Members = append(g.g.Members, p.rep.rec.ID)
		}
	}
	slices.SortFunc(order, func(a, b *capGroup) int {
		if c := strings.Compare(a.g.Kind, b.g.Kind); c != 0 {
			return c
		}
		return strings.Compare(a.g.Key, b.g.Key)
	})
	st.a.Groups = make([]Group, len(order))
	for i, g := range order {
		st.a.Groups[i] = g.g
	}
}

// contextOrdinals numbers the distinct contexts of the positions from 1,
// in the order of their labels, so groups can be named without label
// values.
func (st *state) contextOrdinals() map[int32]int {
	seen := map[int32]int{}
	var keys []int32
	for _, p := range st.pos {
		if _, ok := seen[p.rep.keys.Context]; !ok {
			seen[p.rep.keys.Context] = 0
			keys = append(keys, p.rep.keys.Context)
		}
	}
	slices.SortFunc(keys, func(a, b int32) int {
		av, bv := st.set.NormalizedContext(a).Values(), st.set.NormalizedContext(b).Values()
		return slices.Compare(av[:], bv[:])
	})
	for i, k := range keys {
		seen[k] = i + 1
	}
	return seen
}

// sum adds values in the order given. Callers pass them in the order of
// the positions (latest first, then by record id), which does not depend on
// the order of the input.
func sum(v []float64) float64 {
	t := 0.0
	for _, x := range v {
		t += x
	}
	return t
}

// aggregate computes the effective counts.
func (st *state) aggregate() {
	e := &st.a.Effective
	var all, bin, succ, fail, part, unc, corr, contra []float64
	ops, vals, ctxs := map[int32]bool{}, map[int32]bool{}, map[int32]bool{}
	bops, bvals := map[int32]bool{}, map[int32]bool{}
	for _, p := range st.pos {
		if p.w <= 0 {
			continue
		}
		r, k := p.rep.rec, p.rep.keys
		all = append(all, p.w)
		ctxs[k.Context] = true
		binary := false
		switch p.rep.class {
		case classSuccess:
			succ, binary = append(succ, p.w), true
		case classFailure:
			fail, binary = append(fail, p.w), true
		case classPartial:
			part = append(part, p.w)
		case classUncertain:
			unc = append(unc, p.w)
		case classCorroboration:
			corr = append(corr, p.w)
		default:
			contra = append(contra, p.w)
		}
		if binary {
			bin = append(bin, p.w)
		}
		if r.Ownership == evidence.OwnershipDistinct {
			ops[k.Operator], vals[k.Reporter] = true, true
			if binary {
				bops[k.Operator], bvals[k.Reporter] = true, true
			}
		}
	}
	e.Observations, e.Binary, e.Successes, e.Failures = sum(all), sum(bin), sum(succ), sum(fail)
	e.Partial, e.Uncertain, e.Corroborations, e.Contradictions = sum(part), sum(unc), sum(corr), sum(contra)
	e.Operators, e.Validators, e.Contexts = len(ops), len(vals), len(ctxs)
	e.BinaryOperators, e.BinaryValidators = len(bops), len(bvals)
	st.a.Axes = map[string]int{"operator": e.Operators, "builder": 0, "model_family": 0, "host": 0, "framework": 0, "project": 0, "dataset": 0}
}

// judge derives the estimate, level, state, flags and labels.
func (st *state) judge() {
	a, e := st.a, &st.a.Effective
	truncated := st.set.Truncated()
	if truncated {
		st.note(LimitTruncated)
	}
	if !a.KnownSkill {
		st.note(LimitUnknownSkill)
	}

	// The estimate, or the thresholds that held it back.
	var held []Threshold
	need := func(name string, required, actual float64) {
		if actual < required-tolerance {
			held = append(held, Threshold{Name: name, Required: required, Actual: actual})
		}
	}
	need("estimate.binary_outcomes", MinBinary, e.Binary)
	need("estimate.independent_operators", MinOperators, float64(e.BinaryOperators))
	need("estimate.independent_validators", MinValidators, float64(e.BinaryValidators))
	if truncated {
		held = append(held, Threshold{Name: "estimate.complete_collection", Required: 1, Actual: 0})
	}
	if len(held) == 0 {
		w := Wilson(e.Successes, e.Binary)
		a.Estimate = &w
	}

	// The evidence level, and what the next one needs.
	meets := func(t levelThreshold) bool {
		return e.Observations >= t.Observations-tolerance && e.Operators >= t.Operators &&
			e.Validators >= t.Validators && e.Contexts >= t.Contexts
	}
	level, next, nextName := passport.LevelVeryLow, lowLevel, "low"
	switch {
	case meets(strongLevel) && !truncated:
		level, nextName = passport.LevelStrong, ""
	case meets(moderateLevel) && !truncated:
		level, next, nextName = passport.LevelModerate, strongLevel, "strong"
	case meets(lowLevel):
		level, next, nextName = passport.LevelLow, moderateLevel, "moderate"
	}
	a.EvidenceLevel = level
	if nextName != "" {
		need(nextName+".observations", next.Observations, e.Observations)
		need(nextName+".independent_operators", float64(next.Operators), float64(e.Operators))
		need(nextName+".independent_validators", float64(next.Validators), float64(e.Validators))
		need(nextName+".contexts", float64(next.Contexts), float64(e.Contexts))
		if truncated && nextName != "low" {
			held = append(held, Threshold{Name: nextName + ".complete_collection", Required: 1, Actual: 0})
		}
	}
	if held == nil {
		held = []Threshold{}
	}
	a.HeldBackBy = held

	switch {
	case e.Observations <= 0:
		a.State = passport.StateNew
	case level == passport.LevelStrong:
		a.State = passport.StateWellEvidenced
	case level == passport.LevelModerate:
		a.State = passport.StateEvidenced
	default:
		a.State = passport.StateLimitedEvidence
	}

	// Flags: contested by any eligible unresolved contradiction; stale when
	// the latest eligible observation is older than StaleAfterDays.
	negative := false
	for i := range st.items {
		it := &st.items[i]
		r := it.rec
		if r.Outcome == evidence.OutcomeFailure || r.Type == evidence.TypeContradiction {
			negative = true
		}
		if !r.Type.Observation() || it.src.Eligibility <= 0 {
			continue
		}
		if it.src.Contradiction == "unresolved" {
			a.Contested = true
		}
		if a.LatestEligible == nil || r.Date.Sub(*a.LatestEligible) > 0 {
			d := r.Date
			a.LatestEligible = &d
		}
	}
	a.Stale = a.LatestEligible != nil && st.at.Sub(*a.LatestEligible) > StaleAfterDays

	switch {
	case a.Contested:
		a.Assessment = passport.AssessmentContested
	case a.Stale:
		a.Assessment = passport.AssessmentStale
	case a.State == passport.StateNew:
		a.Assessment = passport.AssessmentNew
	case a.Estimate == nil:
		a.Assessment = passport.AssessmentInsufficientEvidence
	case e.Failures > e.Successes+tolerance:
		a.Assessment = passport.AssessmentAdverseOutcomes
	default:
		a.Assessment = passport.AssessmentSupported
	}
	a.Visibility = passport.VisibilityLimited
	if negative {
		a.Visibility = passport.VisibilityNegativeResults
	}
	st.calibrate(truncated)
}

// calibrate reports calibration diagnostics when enough binary positions
// carry a prediction recorded before their outcome; otherwise
// INSUFFICIENT_DATA.
func (st *state) calibrate(truncated bool) {
	c := &st.a.Calibration
	c.Status = passport.CalibrationInsufficientData
	var w, wp, wy, wsq []float64
	clusters, ops := map[int32]bool{}, map[int32]bool{}
	for _, p := range st.pos {
		r := p.rep.rec
		if r.Prediction == nil || p.w <= 0 || !r.Outcome.Binary() {
			continue
		}
		y := 0.0
		if r.Outcome == evidence.OutcomeSuccess {
			y = 1
		}
		q := r.Prediction.Probability
		c.Outcomes++
		clusters[p.rep.keys.Cluster] = true
		if r.Ownership == evidence.OwnershipDistinct {
			ops[p.rep.keys.Operator] = true
		}
		w, wp, wy, wsq = append(w, p.w), append(wp, p.w*q), append(wy, p.w*y), append(wsq, p.w*(q-y)*(q-y))
	}
	c.Clusters, c.Operators, c.Mass = len(clusters), len(ops), sum(w)
	if truncated || c.Outcomes < CalibrationMinOutcomes || c.Clusters < CalibrationMinClusters ||
		c.Operators < CalibrationMinOperators || c.Mass < CalibrationMinMass-tolerance {
		return
	}
	brier, mean, rate := sum(wsq)/c.Mass, sum(wp)/c.Mass, sum(wy)/c.Mass
	c.Status, c.Brier, c.MeanPrediction, c.ObservedRate = passport.CalibrationAvailable, &brier, &mean, &rate
}

// explain fills the lists: sources, contradictions, corrections and
// limitations, each in a deterministic order.
func (st *state) explain() {
	a := st.a
	contrary := map[int32][]*item{} // lineage -> failures and contradictions by others
	for i := range st.items {
		it := &st.items[i]
		r := it.rec
		if r.Ownership != evidence.OwnershipSelf && (r.Outcome == evidence.OutcomeFailure || r.Type == evidence.TypeContradiction) {
			contrary[it.keys.Cluster] = append(contrary[it.keys.Cluster], it)
		}
	}
	a.Contradictions, a.Corrections = []Contradiction{}, []Correction{}
	for i := range st.items {
		it := &st.items[i]
		r, s := it.rec, it.src
		switch {
		case r.Type == evidence.TypeDeclaration:
			st.note(LimitDeclarations)
		case r.Ownership == evidence.OwnershipSelf:
			st.note(LimitSelfReports)
		case r.Ownership == evidence.OwnershipShared:
			st.note(LimitSharedOwnership)
		case r.Ownership == evidence.OwnershipUnknown && r.Type.Observation():
			st.note(LimitUnknownOwnership)
		}
		if r.Type.Observation() && s.Eligibility > 0 {
			if len(s.ContextMatch.Mismatched) > 0 {
				st.note(LimitContextMismatch)
			} else if len(s.ContextMatch.Missing) > 0 {
				st.note(LimitContextMissing)
			}
		}
		if r.Outcome == evidence.OutcomeFailure && r.Quality == evidence.QualityObservedReuse && s.Eligibility > 0 {
			st.note(LimitFailedReuse)
		}
		if s.Role == RoleCounted && (r.Outcome == evidence.OutcomePartial || r.Outcome == evidence.OutcomeUncertain) {
			st.note(LimitNonBinary)
		}
		if r.Type == evidence.TypeContradiction {
			a.Contradictions = append(a.Contradictions, Contradiction{
				ID: r.ID, Eligible: s.Eligibility > 0, Status: s.Contradiction, ResolvedBy: st.resolved[r.ID], Date: r.Date,
			})
		}
		if r.Type == evidence.TypeRevision || r.Type == evidence.TypeDeprecation {
			// The earliest contrary report about the same lineage on or
			// before the act makes it a correction signal.
			var after *item
			for _, c := range contrary[it.keys.Cluster] {
				if r.Date.Sub(c.rec.Date) >= 0 && (after == nil || c.rec.Date.Sub(after.rec.Date) < 0 ||
					(c.rec.Date == after.rec.Date && c.rec.ID < after.rec.ID)) {
					after = c
				}
			}
			if after != nil {
				a.Corrections = append(a.Corrections, Correction{ID: r.ID, Type: r.Type, Date: r.Date, After: after.rec.ID})
			}
		}
	}
	// Both lists are in the order of the items: SPEC.md §5.5, latest
	// first, then by id.
	a.Limitations = slices.Clone(st.limits)
	if a.Limitations == nil {
		a.Limitations = []Limitation{}
	}
	slices.Sort(a.Limitations) // SPEC.md §4: in code order
	if a.Groups == nil {
		a.Groups = []Group{}
	}
}
