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
	a := &adapter{s: s, ps: evidence.NewPseudonyms(key), at: at, actors: map[Key]string{}, ops: map[Key]string{},
		contexts: map[evidence.Context]evidence.Context{}}
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

// candidates builds every record the subject's data yields.
func (a *adapter) candidates() []candidate {
	// One candidate per capability, memory and event at most: allocated
	// once, as a candidate holds a whole record.
	cs := make([]candidate, 0, len(a.s.Capabilities)+len(a.s.Memories)+len(a.s.Events))
	subject := a.actor(a.s.Key)

	declared := map[string]time.Time{}
	for _, c := range a.s.Capabilities {
		if t, ok := declared[c.Name]; !ok || c.DeclaredAt.After(t) {
			declared[c.Name] = c.DeclaredAt
		}
	}
	for name, t := range declared {
		cs = append(cs, candidate{rank: 2, pub: -1, needs: -1, rec: evidence.Record{
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
		cs = append(cs, candidate{rank: 2, pub: -1, needs: -1, rec: evidence.Record{
			ID: a.ps.Record(keyText("p", m.Key)), Type: evidence.TypePublication, Skill: m.AppliesTo.Skill,
			Quality: evidence.QualitySelfReported, Reporter: subject, Ownership: evidence.OwnershipSelf,
			Lineage: a.lineage(m), Context: a.clean(m.AppliesTo.Context), Date: day(m.CreatedAt),
		}})
		pubs[m.Key] = len(cs) - 1
	}

	adverse := map[Key]int{} // contradictions and resolutions: their candidates
	var resolutions []*Event
	for i := range a.s.Events {
		e := &a.s.Events[i]
		pub, ok := pubs[e.Memory]
		if !ok || e.Kind == EventConsumption {
			continue
		}
		m := a.mem[e.Memory]
		own, op := a.ownership(e.Actor, e.At)
		// The record is written in place: a candidate is large.
		cs = append(cs, candidate{rank: 1, pub: pub, needs: -1, rec: evidence.Record{
			ID: a.ps.Record(keyText("e", e.Key)), Skill: m.AppliesTo.Skill, Quality: evidence.QualityObservedReuse,
			Reporter: a.actor(e.Actor), Ownership: own,
			Lineage: &evidence.Lineage{Memory: a.name[m.Key]}, Date: day(e.At),
		}})
		c := &cs[len(cs)-1]
		r, rank := &c.rec, &c.rank
		if own == evidence.OwnershipSelf {
			r.Quality = evidence.QualitySelfReported
		}
		if op != 0 {
			r.Operator = a.operator(op)
		}
		switch e.Kind {
		case EventOutcome:
			r.Type, r.Outcome = evidence.TypeOutcome, e.Outcome
			if e.Outcome == evidence.OutcomeFailure {
				*rank = 0
			}
		case EventCorroboration:
			r.Type = evidence.TypeCorroboration
		case EventContradiction:
			r.Type, *rank = evidence.TypeContradiction, 0
			adverse[e.Key] = len(cs) - 1
		case EventResolution:
			r.Type, *rank = evidence.TypeResolution, 0
			r.Resolves = a.ps.Record(keyText("e", e.Resolves))
			adverse[e.Key] = len(cs) - 1
			resolutions = append(resolutions, e)
		case EventRevision:
			r.Type, *rank = evidence.TypeRevision, 2
		case EventDeprecation:
			r.Type, *rank = evidence.TypeDeprecation, 2
		case EventWithdrawal:
			r.Type, *rank = evidence.TypeWithdrawal, 2
		}
		if r.Type.Observation() {
			r.Context = a.clean(e.Context)
			if r.Context == (evidence.Context{}) {
				r.Context = a.clean(m.AppliesTo.Context)
			}
		}
	}
	for _, e := range resolutions {
		cs[adverse[e.Key]].needs = adverse[e.Resolves]
	}
	return cs
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
	lim := &limits{memories: make(map[string]bool, evidence.MaxMemories), nodes: make(map[string]bool, 2*evidence.MaxMemories)}
	// The leaves are written one after another into shared chunks, not
	// each into a buffer of its own.
	var arena []byte
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
		if cap(arena)-len(arena) < leafReserve {
			arena = make([]byte, 0, arenaChunk)
		}
		start := len(arena)
		var err error
		if arena, err = c.rec.AppendCanonical(arena); err != nil {
			return false, fmt.Errorf("issuing: record %s: %w", c.rec.ID, err)
		}
		leaf := arena[start:len(arena):len(arena)]
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
