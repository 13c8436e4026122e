package issuing

import (
	"cmp"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/remnant/passportkit/evidence"
	"github.com/remnant/passportkit/internal/calendar"
	"github.com/remnant/passportkit/issuer"
	"github.com/remnant/passportkit/reputation"
)

// ErrInvalidSubject is wrapped by the errors Collect returns for a Subject
// that breaks its documented contract (a store fault, not a caller's).
var ErrInvalidSubject = errors.New("issuing: invalid subject")

// MinPseudonymKey is the least length, in bytes, of a per-passport
// pseudonym key.
const MinPseudonymKey = 32

// fileOverhead is what an evidence file holds besides its records: the
// member names, the root, the passportHash and the truncation flag.
const fileOverhead = 512

// Collection is one subject's evidence within the collection limits of
// SPEC.md §5.6: the records in leaf order, each with its canonical JSON, and
// whether collection stopped at a limit.
type Collection struct {
	// Records are the records in leaf order: by date, then by id.
	Records []evidence.Record
	// Leaves are the records' canonical JSON, in the same order.
	Leaves [][]byte
	// Truncated reports that a limit left records out.
	Truncated bool
	set       *evidence.Set
}

// Set returns the collection as a validated evidence set.
func (c *Collection) Set() *evidence.Set { return c.set }

// candidate is a record the collection may keep.
type candidate struct {
	rec  evidence.Record
	rank int // 0 adverse, 1 other observations, 2 the subject's own records
	// pub is the index of the publication of the record's memory (-1 for
	// none): kept first when it fits, so that the memory's lineage is
	// named once, on its publication.
	pub int
	// needs is the index of a record this one cannot be kept without (the
	// contradiction a resolution resolves), or -1.
	needs int
	kept  bool
	tried bool
	leaf  []byte
}

// Collect is the source adapter: it turns a subject into a SPEC.md §5
// evidence set within the collection limits. key is the per-passport
// pseudonym key, fresh random bytes (at least MinPseudonymKey) that must
// not be reused; at is the issuance time, which decides current ownership.
//
// What becomes a record:
//   - each declared capability: a declaration (DECLARED, self);
//   - each public memory with a skill, whatever its status: a publication
//     (SELF_REPORTED, self), which alone carries the memory's lineage;
//   - each outcome, corroboration, contradiction and resolution on such a
//     memory: a record of that type (OBSERVED_REUSE, or SELF_REPORTED when
//     the subject reported it), with the ownership of SPEC.md §5.3 from the
//     owner bindings at the event's instant;
//   - each revision, deprecation and withdrawal by the subject of such a
//     memory: a record of that type (SELF_REPORTED, self).
//
// Consumptions, events on private memories and on memories without a
// skill yield nothing. No internal key, operator id, private memory or
// private link target enters a record.
//
// When the records break a limit (2,000 memories, 10,000 records, lineage
// nodes and links, and the 16 MiB evidence file), Collect keeps them in
// this order, each only if it fits, and marks the collection truncated:
// adverse records first (contradictions, their resolutions and failures),
// then other observations, then the subject's own records; within each,
// latest first, then by record id. A record's publication is kept just
// before it when it fits; a resolution is kept only with its
// contradiction.
func Collect(s *Subject, key []byte, at time.Time) (*Collection, error) {
	if len(key) < MinPseudonymKey {
		return nil, fmt.Errorf("issuing: a pseudonym key of %d bytes; at least %d are required", len(key), MinPseudonymKey)
	}
	if s.Visibility != issuer.VisibilityPublic || s.Status != issuer.AgentActive {
		return nil, issuer.Errorf(issuer.CodeNotFound, "no public agent %s", s.PublicID)
	}
	if err := s.validate(); err != nil {
		return nil, err
	}
	a := &adapter{s: s, ps: evidence.NewPseudonyms(key), at: at, actors: map[Key]string{}, ops: map[Key]string{}}
	a.indexOwners()
	a.nameMemories()
	a.families()
	cands := a.candidates()
	return a.admit(cands)
}

type adapter struct {
	s      *Subject
	ps     *evidence.Pseudonyms
	actors map[Key]string // pseudonyms issued so far
	ops    map[Key]string
	at     time.Time
	owners map[Key][]OwnerBinding
	mem    map[Key]*Memory
	name   map[Key]string // what a memory is called in records; "" for never
	root   map[Key]string // a subject memory's versionRoot member
}

func (s *Subject) validate() error {
	bad := func(format string, a ...any) error {
		return fmt.Errorf("%w: %s", ErrInvalidSubject, fmt.Sprintf(format, a...))
	}
	switch {
	case s.Key == 0:
		return bad("the subject has no key")
	case len(s.Memories) > MaxInputMemories:
		return bad("%d memories; at most %d are loaded", len(s.Memories), MaxInputMemories)
	case len(s.Events) > MaxInputEvents:
		return bad("%d events; at most %d are loaded", len(s.Events), MaxInputEvents)
	case len(s.Capabilities) > MaxInputCapabilities:
		return bad("%d capabilities; at most %d", len(s.Capabilities), MaxInputCapabilities)
	}
	switch s.TrustLevel {
	case "", reputation.TrustNew, reputation.TrustObserved, reputation.TrustTrusted, reputation.TrustHighTrust:
	default:
		return bad("unknown trust level %q", clip(string(s.TrustLevel)))
	}
	if s.ReputationScore < -reputation.ScoreBound || s.ReputationScore > reputation.ScoreBound {
		return bad("reputation score %v is outside ±100", s.ReputationScore)
	}
	for _, c := range s.Capabilities {
		if !dated(c.DeclaredAt) {
			return bad("capability %q has no declaration time from 1970 on", clip(c.Name))
		}
		if !term(c.Name) {
			return bad("capability %q is not a non-blank term of at most %d bytes", clip(c.Name), MaxTextLen)
		}
	}
	mems := make(map[Key]*Memory, len(s.Memories))
	for i := range s.Memories {
		m := &s.Memories[i]
		if m.Key == 0 || mems[m.Key] != nil {
			return bad("memory key %d is zero or repeated", m.Key)
		}
		mems[m.Key] = m
		if !dated(m.CreatedAt) {
			return bad("memory %d has no creation time from 1970 on", m.Key)
		}
		if m.Visibility != MemoryPublic && m.Visibility != MemoryPrivate {
			return bad("memory %d: unknown visibility %q", m.Key, m.Visibility)
		}
		if _, err := issuer.ParseMemoryStatus(string(m.Status)); err != nil {
			return bad("memory %d: %v", m.Key, err)
		}
		if m.Visibility == MemoryPublic && !strings.HasPrefix(string(m.PublicID), "mem_") {
			return bad("memory %d: public id %q", m.Key, clip(string(m.PublicID)))
		}
		if m.AppliesTo.Skill != "" && !term(m.AppliesTo.Skill) {
			return bad("memory %d: skill is not a term of at most %d bytes", m.Key, MaxTextLen)
		}
		if err := checkContext(m.AppliesTo.Context); err != nil {
			return bad("memory %d: %v", m.Key, err)
		}
		if m.ContentHash != "" && !evidence.ValidContentHash(m.ContentHash) {
			return bad("memory %d: content hash is not sha256: and 64 lower-case hex digits", m.Key)
		}
		for _, l := range m.Links {
			switch l.Kind {
			case LinkDerivedFrom, LinkExtends, LinkSupersedes, LinkContradicts:
			default:
				return bad("memory %d: unknown link kind %q", m.Key, l.Kind)
			}
			if l.Target.Key == 0 {
				return bad("memory %d: a %s link without a target", m.Key, l.Kind)
			}
		}
	}
	events := make(map[Key]*Event, len(s.Events))
	for i := range s.Events {
		e := &s.Events[i]
		if e.Key == 0 || events[e.Key] != nil {
			return bad("event key %d is zero or repeated", e.Key)
		}
		events[e.Key] = e
	}
	for _, e := range events {
		if mems[e.Memory] == nil {
			return bad("event %d names memory %d, which is not the subject's", e.Key, e.Memory)
		}
		if !dated(e.At) {
			return bad("event %d has no time from 1970 on", e.Key)
		}
		if e.Actor == 0 {
			return bad("event %d has no actor", e.Key)
		}
		if (e.Kind == EventOutcome) != (e.Outcome != "") {
			return bad("event %d: an outcome is required on outcome events and only there", e.Key)
		}
		switch e.Kind {
		case EventConsumption, EventCorroboration, EventContradiction:
		case EventOutcome:
			switch e.Outcome {
			case evidence.OutcomeSuccess, evidence.OutcomeFailure, evidence.OutcomePartial, evidence.OutcomeUncertain:
			default:
				return bad("event %d: unknown outcome %q", e.Key, e.Outcome)
			}
		case EventResolution:
			c := events[e.Resolves]
			if c == nil || c.Kind != EventContradiction || c.Actor != e.Actor || c.Memory != e.Memory || e.At.Before(c.At) {
				return bad("event %d resolves no earlier contradiction of its actor on its memory", e.Key)
			}
		case EventRevision, EventDeprecation, EventWithdrawal:
			if e.Actor != s.Key {
				return bad("event %d: a %s is the subject's own", e.Key, e.Kind)
			}
		default:
			return bad("event %d: unknown kind %q", e.Key, e.Kind)
		}
		if e.Kind != EventResolution && e.Resolves != 0 {
			return bad("event %d: only a resolution resolves", e.Key)
		}
		if err := checkContext(e.Context); err != nil {
			return bad("event %d: %v", e.Key, err)
		}
	}
	byAgent := map[Key][]OwnerBinding{}
	for _, b := range s.Owners {
		if b.Agent == 0 || b.Operator == 0 || (!b.Until.IsZero() && !b.Until.After(b.From)) {
			return bad("owner binding of agent %d to operator %d is malformed", b.Agent, b.Operator)
		}
		byAgent[b.Agent] = append(byAgent[b.Agent], b)
	}
	for agent, bs := range byAgent {
		slices.SortFunc(bs, func(x, y OwnerBinding) int { return x.From.Compare(y.From) })
		for i := 1; i < len(bs); i++ {
			if prev := bs[i-1]; prev.Until.IsZero() || prev.Until.After(bs[i].From) {
				return bad("owner bindings of agent %d overlap", agent)
			}
		}
	}
	return nil
}

// dated reports whether t is a time evidence can be dated by.
func dated(t time.Time) bool { y := t.UTC().Year(); return y >= 1970 && y <= 9999 }

func term(s string) bool {
	return s != "" && len(s) <= MaxTextLen && utf8.ValidString(s) && evidence.NormalizeLabel(s) != ""
}

func checkContext(c evidence.Context) error {
	for i, v := range c.Values() {
		if len(v) > MaxTextLen || !utf8.ValidString(v) {
			return fmt.Errorf("context %s is not UTF-8 of at most %d bytes", evidence.Dimensions[i], MaxTextLen)
		}
	}
	return nil
}

// cleanContext leaves out blank labels, which a record cannot carry.
func cleanContext(c evidence.Context) evidence.Context {
	for i, v := range c.Values() {
		if v != "" && evidence.NormalizeLabel(v) == "" {
			c.Set(evidence.Dimensions[i], "")
		}
	}
	return c
}

func clip(s string) string {
	if len(s) > 40 {
		return s[:40] + "…"
	}
	return s
}

func (a *adapter) indexOwners() {
	a.owners = map[Key][]OwnerBinding{}
	for _, b := range a.s.Owners {
		a.owners[b.Agent] = append(a.owners[b.Agent], b)
	}
	for _, bs := range a.owners {
		slices.SortFunc(bs, func(x, y OwnerBinding) int { return x.From.Compare(y.From) })
	}
}

// operatorAt returns the operator bound to agent at t, or 0.
func (a *adapter) operatorAt(agent Key, t time.Time) Key {
	bs := a.owners[agent]
	i, _ := slices.BinarySearchFunc(bs, t, func(b OwnerBinding, t time.Time) int {
		if b.From.After(t) {
			return 1
		}
		return -1
	})
	if i == 0 {
		return 0
	}
	if b := bs[i-1]; b.Until.IsZero() || t.Before(b.Until) {
		return b.Operator
	}
	return 0
}

// ownership relates an event's actor to the subject (SPEC.md §5.3): self
// for the subject; shared when the actor's operator at the event owned the
// subject then or owns it at issuance; distinct when the subject's owner at
// the event is known and differs; unknown otherwise.
func (a *adapter) ownership(actor Key, t time.Time) (evidence.Ownership, Key) {
	if actor == a.s.Key {
		return evidence.OwnershipSelf, 0
	}
	r := a.operatorAt(actor, t)
	if r == 0 {
		return evidence.OwnershipUnknown, 0
	}
	then, now := a.operatorAt(a.s.Key, t), a.operatorAt(a.s.Key, a.at)
	switch {
	case r == then || r == now:
		return evidence.OwnershipShared, r
	case then != 0:
		return evidence.OwnershipDistinct, r
	}
	return evidence.OwnershipUnknown, 0
}

func keyText(prefix string, k Key) string { return prefix + strconv.FormatInt(int64(k), 10) }

// actor returns the pseudonym of an agent.
func (a *adapter) actor(k Key) string {
	p, ok := a.actors[k]
	if !ok {
		p = a.ps.Actor(keyText("a", k))
		a.actors[k] = p
	}
	return p
}

// operator returns the pseudonym of an operator.
func (a *adapter) operator(k Key) string {
	p, ok := a.ops[k]
	if !ok {
		p = a.ps.Operator(keyText("o", k))
		a.ops[k] = p
	}
	return p
}

// nameMemories decides what each memory is called in records: a public,
// active memory its public id; a public memory hidden by moderation or
// withdrawn a per-passport pseudonym; a private one nothing. Link targets
// that are not the subject's are named by their public id when they may
// be named, else not at all.
func (a *adapter) nameMemories() {
	a.mem = make(map[Key]*Memory, len(a.s.Memories))
	a.name = make(map[Key]string, len(a.s.Memories))
	for i := range a.s.Memories {
		m := &a.s.Memories[i]
		a.mem[m.Key] = m
		switch {
		case m.Visibility != MemoryPublic:
			a.name[m.Key] = ""
		case m.Status == issuer.MemoryActive:
			a.name[m.Key] = string(m.PublicID)
		default:
			a.name[m.Key] = a.ps.Memory(keyText("m", m.Key))
		}
	}
}

// targetName is what a link target or version root is called in records.
func (a *adapter) targetName(t Target) string {
	if n, ok := a.name[t.Key]; ok {
		return n
	}
	if t.Named && strings.HasPrefix(string(t.PublicID), "mem_") {
		return string(t.PublicID)
	}
	return ""
}

// families joins each of the subject's memories with its version root and
// with the link targets that may not be named (private research
// ancestors, hidden memories), transitively, and gives every memory of a
// family the family's smallest name as its versionRoot. So public memories
// distilled from one private ancestor fall into one lineage cluster while
// the ancestor is never named (SPEC.md §5.2).
func (a *adapter) families() {
	parent := map[Key]Key{}
	var find func(Key) Key
	find = func(k Key) Key {
		p, ok := parent[k]
		if !ok || p == k {
			parent[k] = k
			return k
		}
		r := find(p)
		parent[k] = r
		return r
	}
	union := func(x, y Key) {
		rx, ry := find(x), find(y)
		if rx != ry {
			parent[max(rx, ry)] = min(rx, ry)
		}
	}
	names := map[Key]string{}
	for _, m := range a.s.Memories {
		find(m.Key)
		if n := a.name[m.Key]; n != "" {
			names[m.Key] = n
		}
		if m.VersionRoot.Key != 0 {
			union(m.Key, m.VersionRoot.Key)
			if n := a.targetName(m.VersionRoot); n != "" {
				names[m.VersionRoot.Key] = n
			}
		}
		for _, l := range m.Links {
			if l.Kind != LinkContradicts && a.targetName(l.Target) == "" {
				union(m.Key, l.Target.Key)
			}
		}
	}
	smallest := map[Key]string{}
	for k, n := range names {
		r := find(k)
		if s, ok := smallest[r]; !ok || n < s {
			smallest[r] = n
		}
	}
	a.root = map[Key]string{}
	for _, m := range a.s.Memories {
		if r := smallest[find(m.Key)]; r != "" && r != a.name[m.Key] {
			a.root[m.Key] = r
		}
	}
}

// lineage returns the lineage of a memory's publication: the memory, its
// family's root, its content hash and its named links.
func (a *adapter) lineage(m *Memory) *evidence.Lineage {
	l := &evidence.Lineage{Memory: a.name[m.Key], VersionRoot: a.root[m.Key]}
	if m.Status == issuer.MemoryActive {
		// A hidden memory's hash would identify it as its public id would.
		l.ContentHash = m.ContentHash
	}
	for _, link := range m.Links {
		n := a.targetName(link.Target)
		if n == "" || n == l.Memory {
			continue
		}
		switch link.Kind {
		case LinkDerivedFrom:
			l.DerivedFrom = append(l.DerivedFrom, n)
		case LinkExtends:
			l.Extends = append(l.Extends, n)
		case LinkSupersedes:
			l.Supersedes = append(l.Supersedes, n)
		}
	}
	for _, p := range []*[]string{&l.DerivedFrom, &l.Extends, &l.Supersedes} {
		slices.Sort(*p)
		*p = slices.Compact(*p)
	}
	return l
}

func day(t time.Time) evidence.Date { return calendar.Of(t.UTC()) }

// candidates builds every record the subject's data yields.
func (a *adapter) candidates() []candidate {
	// One candidate per capability, memory and event at most: allocated
	// once, as a candidate holds a whole record.
	cs := make([]candidate, 0, len(a.s.Capabilities)+len(a.s.Memories)+len(a.s.Events))
	subject := a.actor(a.s.Key)
	add := func(c candidate) int {
		cs = append(cs, c)
		return len(cs) - 1
	}

	declared := map[string]time.Time{}
	for _, c := range a.s.Capabilities {
		if t, ok := declared[c.Name]; !ok || c.DeclaredAt.After(t) {
			declared[c.Name] = c.DeclaredAt
		}
	}
	for name, t := range declared {
		add(candidate{rank: 2, pub: -1, needs: -1, rec: evidence.Record{
			ID: a.ps.Record("d" + name), Type: evidence.TypeDeclaration, Skill: name,
			Quality: evidence.QualityDeclared, Reporter: subject, Ownership: evidence.OwnershipSelf, Date: day(t),
		}})
	}

	pubs := map[Key]int{}
	for i := range a.s.Memories {
		m := &a.s.Memories[i]
		if a.name[m.Key] == "" || m.AppliesTo.Skill == "" {
			continue
		}
		pubs[m.Key] = add(candidate{rank: 2, pub: -1, needs: -1, rec: evidence.Record{
			ID: a.ps.Record(keyText("p", m.Key)), Type: evidence.TypePublication, Skill: m.AppliesTo.Skill,
			Quality: evidence.QualitySelfReported, Reporter: subject, Ownership: evidence.OwnershipSelf,
			Lineage: a.lineage(m), Context: cleanContext(m.AppliesTo.Context), Date: day(m.CreatedAt),
		}})
	}

	events := map[Key]int{}
	var resolutions []*Event
	for i := range a.s.Events {
		e := &a.s.Events[i]
		pub, ok := pubs[e.Memory]
		if !ok || e.Kind == EventConsumption {
			continue
		}
		m := a.mem[e.Memory]
		own, op := a.ownership(e.Actor, e.At)
		r := evidence.Record{
			ID: a.ps.Record(keyText("e", e.Key)), Skill: m.AppliesTo.Skill, Quality: evidence.QualityObservedReuse,
			Reporter: a.actor(e.Actor), Ownership: own,
			Lineage: &evidence.Lineage{Memory: a.name[m.Key]}, Date: day(e.At),
		}
		if own == evidence.OwnershipSelf {
			r.Quality = evidence.QualitySelfReported
		}
		if op != 0 {
			r.Operator = a.operator(op)
		}
		rank := 1
		switch e.Kind {
		case EventOutcome:
			r.Type, r.Outcome = evidence.TypeOutcome, e.Outcome
			if e.Outcome == evidence.OutcomeFailure {
				rank = 0
			}
		case EventCorroboration:
			r.Type = evidence.TypeCorroboration
		case EventContradiction:
			r.Type, rank = evidence.TypeContradiction, 0
		case EventResolution:
			r.Type, rank = evidence.TypeResolution, 0
			r.Resolves = a.ps.Record(keyText("e", e.Resolves))
		case EventRevision:
			r.Type, rank = evidence.TypeRevision, 2
		case EventDeprecation:
			r.Type, rank = evidence.TypeDeprecation, 2
		case EventWithdrawal:
			r.Type, rank = evidence.TypeWithdrawal, 2
		}
		if r.Type.Observation() {
			r.Context = cleanContext(e.Context)
			if r.Context == (evidence.Context{}) {
				r.Context = cleanContext(m.AppliesTo.Context)
			}
		}
		i := add(candidate{rank: rank, pub: pub, needs: -1, rec: r})
		events[e.Key] = i
		if e.Kind == EventResolution {
			resolutions = append(resolutions, e)
		}
	}
	for _, e := range resolutions {
		cs[events[e.Key]].needs = events[e.Resolves]
	}
	return cs
}

// limits tracks the collection limits while records are admitted.
type limits struct {
	records, links, bytes int
	memories, nodes       map[string]bool
}

// fits reports whether r can join, and if so counts it.
func (l *limits) fits(r *evidence.Record, leaf []byte) bool {
	if l.records+1 > evidence.MaxReports || l.bytes+len(leaf)+1 > evidence.MaxFileSize-fileOverhead {
		return false
	}
	var newMem string
	var newNodes []string
	links := 0
	if lin := r.Lineage; lin != nil {
		if lin.Memory != "" && !l.memories[lin.Memory] {
			newMem = lin.Memory
		}
		for _, v := range append([]string{lin.Memory, lin.VersionRoot, lin.ContentHash}, slices.Concat(lin.DerivedFrom, lin.Extends, lin.Supersedes)...) {
			if v != "" && !l.nodes[v] && !slices.Contains(newNodes, v) {
				newNodes = append(newNodes, v)
			}
		}
		links = len(lin.DerivedFrom) + len(lin.Extends) + len(lin.Supersedes)
	}
	if newMem != "" && len(l.memories)+1 > evidence.MaxMemories ||
		len(l.nodes)+len(newNodes) > evidence.MaxLineageNodes || l.links+links > evidence.MaxLinks {
		return false
	}
	l.records++
	l.bytes += len(leaf) + 1
	l.links += links
	if newMem != "" {
		l.memories[newMem] = true
	}
	for _, v := range newNodes {
		l.nodes[v] = true
	}
	return true
}

// admit keeps candidates in priority order while they fit, then orders the
// kept records by date and id.
func (a *adapter) admit(cs []candidate) (*Collection, error) {
	order := make([]int, len(cs))
	for i := range order {
		order[i] = i
	}
	slices.SortFunc(order, func(x, y int) int {
		cx, cy := &cs[x], &cs[y]
		if c := cmp.Compare(cx.rank, cy.rank); c != 0 {
			return c
		}
		if c := cy.rec.Date.Compare(cx.rec.Date); c != 0 {
			return c
		}
		return strings.Compare(cx.rec.ID, cy.rec.ID)
	})
	lim := &limits{memories: map[string]bool{}, nodes: map[string]bool{}}
	truncated := a.s.Truncated
	var try func(i int) (bool, error)
	try = func(i int) (bool, error) {
		c := &cs[i]
		if c.tried {
			return c.kept, nil
		}
		c.tried = true
		if c.needs >= 0 {
			if ok, err := try(c.needs); err != nil || !ok {
				return false, err
			}
		}
		if c.pub >= 0 {
			if _, err := try(c.pub); err != nil {
				return false, err
			}
		}
		if lim.records >= evidence.MaxReports {
			return false, nil
		}
		leaf, err := c.rec.Canonical()
		if err != nil {
			return false, fmt.Errorf("issuing: record %s: %w", c.rec.ID, err)
		}
		if !lim.fits(&c.rec, leaf) {
			return false, nil
		}
		c.kept, c.leaf = true, leaf
		return true, nil
	}
	for _, i := range order {
		if lim.records >= evidence.MaxReports {
			break
		}
		if _, err := try(i); err != nil {
			return nil, err
		}
	}

	kept := make([]*candidate, 0, lim.records)
	for i := range cs {
		if cs[i].kept {
			kept = append(kept, &cs[i])
		}
	}
	// Truncated exactly when a record was left out.
	truncated = truncated || len(kept) < len(cs)
	slices.SortFunc(kept, func(x, y *candidate) int {
		if c := x.rec.Date.Compare(y.rec.Date); c != 0 {
			return c
		}
		return strings.Compare(x.rec.ID, y.rec.ID)
	})
	col := &Collection{Records: make([]evidence.Record, len(kept)), Leaves: make([][]byte, len(kept)), Truncated: truncated}
	for i, c := range kept {
		col.Records[i], col.Leaves[i] = c.rec, c.leaf
	}
	set, err := evidence.NewSet(col.Records, truncated)
	if err != nil {
		// The adapter writes only valid records; this is a fault here.
		return nil, fmt.Errorf("issuing: collected evidence is not a valid set: %w", err)
	}
	col.set = set
	return col, nil
}
