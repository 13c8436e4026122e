package issuing

import (
	"cmp"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/remnant/passportkit/evidence"
	"github.com/remnant/passportkit/internal/calendar"
	"github.com/remnant/passportkit/issuer"
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

// candidate is what the collection knows of a record it may keep; the
// record itself sits at the same index of the records slice.
type candidate struct {
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

// source is where a candidate record comes from: a declared capability, a
// memory's publication or an event, with the record's date and id, which
// decide its place in leaf order before the record is written.
type source struct {
	date evidence.Date
	id   string
	kind sourceKind
	i    int    // index of the memory or event; unused for declarations
	name string // the declared capability; only for declarations
}

// sourceKind says which of the subject's data a source is.
type sourceKind uint8

const (
	fromDeclaration sourceKind = iota
	fromPublication
	fromEvent
)

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
	a := &adapter{s: s, ps: evidence.NewPseudonyms(key), at: at, actors: map[Key]string{}, ops: map[Key]string{},
		contexts: map[evidence.Context]evidence.Context{}}
	a.indexOwners()
	a.nameMemories()
	a.families()
	recs, cands := a.candidates()
	return a.admit(recs, cands)
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
	// contexts holds each context cleaned so far: contexts repeat, and
	// each distinct one is cleaned once.
	contexts map[evidence.Context]evidence.Context
}

// clean returns cleanContext(c), cleaning each distinct context once.
func (a *adapter) clean(c evidence.Context) evidence.Context {
	if c == (evidence.Context{}) {
		return c
	}
	v, ok := a.contexts[c]
	if !ok {
		v = cleanContext(c)
		a.contexts[c] = v
	}
	return v
}

func day(t time.Time) evidence.Date { return calendar.Of(t.UTC()) }

// candidates builds every record the subject's data yields, in leaf
// order (by date, then by id), with what admission needs of each at the
// same index. Each record is written once, in place: the records that are
// kept need not be copied into leaf order.
func (a *adapter) candidates() ([]evidence.Record, []candidate) {
	// The sources first: their ids and dates decide the order.
	srcs := make([]source, 0, len(a.s.Capabilities)+len(a.s.Memories)+len(a.s.Events))
	declared := map[string]time.Time{}
	for _, c := range a.s.Capabilities {
		if t, ok := declared[c.Name]; !ok || c.DeclaredAt.After(t) {
			declared[c.Name] = c.DeclaredAt
		}
	}
	for name, t := range declared {
		srcs = append(srcs, source{date: day(t), id: a.ps.Record("d" + name), kind: fromDeclaration, name: name})
	}
	pubs := map[Key]int{} // a memory's publication: its source
	for i := range a.s.Memories {
		m := &a.s.Memories[i]
		if a.name[m.Key] == "" || m.AppliesTo.Skill == "" {
			continue
		}
		pubs[m.Key] = len(srcs)
		srcs = append(srcs, source{date: day(m.CreatedAt), id: a.ps.Record(keyText("p", m.Key)), kind: fromPublication, i: i})
	}
	for i := range a.s.Events {
		e := &a.s.Events[i]
		if _, ok := pubs[e.Memory]; !ok || e.Kind == EventConsumption {
			continue
		}
		srcs = append(srcs, source{date: day(e.At), id: a.ps.Record(keyText("e", e.Key)), kind: fromEvent, i: i})
	}
	order := make([]int, len(srcs))
	for i := range order {
		order[i] = i
	}
	slices.SortFunc(order, func(x, y int) int {
		if c := srcs[x].date.Compare(srcs[y].date); c != 0 {
			return c
		}
		return strings.Compare(srcs[x].id, srcs[y].id)
	})
	at := make([]int, len(srcs)) // a source's index in leaf order
	for n, i := range order {
		at[i] = n
	}

	recs := make([]evidence.Record, len(srcs))
	cs := make([]candidate, len(srcs))
	subject := a.actor(a.s.Key)
	adverse := map[Key]int{} // contradictions and resolutions: their candidates
	var resolutions []*Event
	for n, i := range order {
		src := &srcs[i]
		r, c := &recs[n], &cs[n]
		c.pub, c.needs = -1, -1
		switch src.kind {
		case fromDeclaration:
			c.rank = 2
			*r = evidence.Record{
				ID: src.id, Type: evidence.TypeDeclaration, Skill: src.name,
				Quality: evidence.QualityDeclared, Reporter: subject, Ownership: evidence.OwnershipSelf, Date: src.date,
			}
		case fromPublication:
			m := &a.s.Memories[src.i]
			c.rank = 2
			*r = evidence.Record{
				ID: src.id, Type: evidence.TypePublication, Skill: m.AppliesTo.Skill,
				Quality: evidence.QualitySelfReported, Reporter: subject, Ownership: evidence.OwnershipSelf,
				Lineage: a.lineage(m), Context: a.clean(m.AppliesTo.Context), Date: src.date,
			}
		case fromEvent:
			e := &a.s.Events[src.i]
			if e.Kind == EventContradiction || e.Kind == EventResolution {
				adverse[e.Key] = n
			}
			if e.Kind == EventResolution {
				resolutions = append(resolutions, e)
			}
			c.rank, c.pub = a.event(r, e, src), at[pubs[e.Memory]]
		}
	}
	for _, e := range resolutions {
		cs[adverse[e.Key]].needs = adverse[e.Resolves]
	}
	return recs, cs
}

// event writes the record of an event into r and returns its rank.
func (a *adapter) event(r *evidence.Record, e *Event, src *source) int {
	m := a.mem[e.Memory]
	own, op := a.ownership(e.Actor, e.At)
	*r = evidence.Record{
		ID: src.id, Skill: m.AppliesTo.Skill, Quality: evidence.QualityObservedReuse,
		Reporter: a.actor(e.Actor), Ownership: own,
		Lineage: &evidence.Lineage{Memory: a.name[m.Key]}, Date: src.date,
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
		r.Context = a.clean(e.Context)
		if r.Context == (evidence.Context{}) {
			r.Context = a.clean(m.AppliesTo.Context)
		}
	}
	return rank
}

// limits tracks the collection limits while records are admitted.
type limits struct {
	records, links, bytes int
	memories, nodes       map[string]bool
	added                 []string // the nodes the record being tried adds
}

// fits reports whether r can join, and if so counts it.
func (l *limits) fits(r *evidence.Record, leaf []byte) bool {
	if l.records+1 > evidence.MaxReports || l.bytes+len(leaf)+1 > evidence.MaxFileSize-fileOverhead {
		return false
	}
	lin := r.Lineage
	if lin == nil {
		l.records++
		l.bytes += len(leaf) + 1
		return true
	}
	newMem := lin.Memory != "" && !l.memories[lin.Memory]
	links := len(lin.DerivedFrom) + len(lin.Extends) + len(lin.Supersedes)
	// The record's new nodes join l.nodes at once and leave again if the
	// record does not fit: no set of its own is built per record.
	l.added = l.added[:0]
	add := func(v string) {
		if v != "" && !l.nodes[v] {
			l.nodes[v] = true
			l.added = append(l.added, v)
		}
	}
	add(lin.Memory)
	add(lin.VersionRoot)
	add(lin.ContentHash)
	for _, vs := range [...][]string{lin.DerivedFrom, lin.Extends, lin.Supersedes} {
		for _, v := range vs {
			add(v)
		}
	}
	if newMem && len(l.memories)+1 > evidence.MaxMemories ||
		len(l.nodes) > evidence.MaxLineageNodes || l.links+links > evidence.MaxLinks {
		for _, v := range l.added {
			delete(l.nodes, v)
		}
		return false
	}
	l.records++
	l.bytes += len(leaf) + 1
	l.links += links
	if newMem {
		l.memories[lin.Memory] = true
	}
	return true
}

// Leaves are written into chunks of arenaChunk bytes; a new chunk starts
// when less than leafReserve is left (a longer leaf still fits: append
// moves the chunk, and the leaves written before keep the old one).
const (
	arenaChunk  = 256 << 10
	leafReserve = 4 << 10
)

// admit keeps candidates in priority order while they fit. recs are in
// leaf order, so the kept records stay in it.
func (a *adapter) admit(recs []evidence.Record, cs []candidate) (*Collection, error) {
	order := make([]int, len(cs))
	for i := range order {
		order[i] = i
	}
	slices.SortFunc(order, func(x, y int) int {
		if c := cmp.Compare(cs[x].rank, cs[y].rank); c != 0 {
			return c
		}
		if c := recs[y].Date.Compare(recs[x].Date); c != 0 {
			return c
		}
		return strings.Compare(recs[x].ID, recs[y].ID)
	})
	lim := &limits{memories: make(map[string]bool, evidence.MaxMemories), nodes: make(map[string]bool, 2*evidence.MaxMemories)}
	// The leaves are written one after another into shared chunks, not
	// each into a buffer of its own.
	var arena []byte
	var try func(i int) (bool, error)
	try = func(i int) (bool, error) {
		c, r := &cs[i], &recs[i]
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
		if cap(arena)-len(arena) < leafReserve {
			arena = make([]byte, 0, arenaChunk)
		}
		start := len(arena)
		var err error
		if arena, err = r.AppendCanonical(arena); err != nil {
			return false, fmt.Errorf("issuing: record %s: %w", r.ID, err)
		}
		leaf := arena[start:len(arena):len(arena)]
		if !lim.fits(r, leaf) {
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

	// The kept records move up over those left out, in order.
	leaves := make([][]byte, 0, lim.records)
	for i := range cs {
		if cs[i].kept {
			if i != len(leaves) {
				recs[len(leaves)] = recs[i]
			}
			leaves = append(leaves, cs[i].leaf)
		}
	}
	// Truncated exactly when a record was left out.
	truncated := a.s.Truncated || len(leaves) < len(cs)
	clear(recs[len(leaves):])
	col := &Collection{Records: recs[:len(leaves):len(leaves)], Leaves: leaves, Truncated: truncated}
	// The adapter writes each record from the validated subject, so only
	// what relates the records to each other is checked again; tests parse
	// every evidence file they issue through the validating path.
	set, err := evidence.NewWrittenSet(col.Records, truncated)
	if err != nil {
		// The adapter writes only a valid set; this is a fault here.
		return nil, fmt.Errorf("issuing: collected evidence is not a valid set: %w", err)
	}
	col.set = set
	return col, nil
}
