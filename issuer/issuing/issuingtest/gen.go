// Package issuingtest generates subjects for tests and benchmarks of
// passport issuance: random subjects that remember every value that must
// never leave the issuer, and a subject at the collection limits.
package issuingtest

import (
	"encoding/base32"
	"encoding/hex"
	"fmt"
	"math/rand/v2"
	"strconv"
	"time"

	"github.com/remnant/passportkit/evidence"
	"github.com/remnant/passportkit/issuer"
	"github.com/remnant/passportkit/issuer/issuing"
	"github.com/remnant/passportkit/reputation"
)

// SkillTerms are the skill terms generated memories claim.
var SkillTerms = skillTerms

// World generates subjects, and remembers every value that must never
// leave the issuer.
type World struct {
	r       *rand.Rand
	secrets []string // internal keys, private ids, hashes and labels
	used    map[issuing.Key]bool
	at      time.Time
}

// NewWorld returns a generator seeded with seed, whose subjects are
// issued at at.
func NewWorld(seed uint64, at time.Time) *World {
	return &World{r: rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15)), used: map[issuing.Key]bool{}, at: at}
}

// Secrets returns every value generated so far that must never leave the
// issuer: internal keys, private ids, content hashes and labels.
func (w *World) Secrets() []string { return w.secrets }

// key returns a fresh internal key large enough that its decimal form
// cannot occur by chance, and remembers it as a secret.
func (w *World) key() issuing.Key {
	for {
		k := issuing.Key(1e17 + w.r.Int64N(8e18))
		if !w.used[k] {
			w.used[k] = true
			w.secrets = append(w.secrets, strconv.FormatInt(int64(k), 10))
			return k
		}
	}
}

var b32 = base32.NewEncoding("abcdefghijklmnopqrstuvwxyz234567").WithPadding(base32.NoPadding)

func (w *World) token(prefix string) string {
	b := make([]byte, 16)
	for i := range b {
		b[i] = byte(w.r.UintN(256))
	}
	return prefix + b32.EncodeToString(b)
}

func (w *World) secret(prefix string) string {
	s := w.token(prefix)
	w.secrets = append(w.secrets, s)
	return s
}

func (w *World) hash() string {
	b := make([]byte, 32)
	for i := range b {
		b[i] = byte(w.r.UintN(256))
	}
	return "sha256:" + hex.EncodeToString(b)
}

var skillTerms = []string{"PostgreSQL", "PostgreSQL indexing", "pg tuning", "Postgres replication", "SQLite",
	"SQLite indexing", "MCP", "MCP debugging", "MCP server development", "rust async", "terraform"}

func (w *World) when(daysBack int) time.Time {
	return w.at.Add(-time.Duration(w.r.IntN(daysBack*24*3600)) * time.Second)
}

// context returns labels unique to this call; private ones are secrets.
func (w *World) context(private bool) evidence.Context {
	var c evidence.Context
	for _, d := range evidence.Dimensions {
		if w.r.IntN(3) == 0 {
			v := w.token("lbl-")
			if private {
				w.secrets = append(w.secrets, v)
			}
			c.Set(d, v)
		}
	}
	return c
}

// Shape is the size of a generated subject.
type Shape struct {
	Memories, Events, Agents, Operators, Capabilities int
}

// Subject generates a random subject of the given shape: public and
// private memories in every status, private research ancestors, external
// targets, events of every kind from agents whose owners change over time.
func (w *World) Subject(sh Shape) *issuing.Subject {
	s := &issuing.Subject{
		Key: w.key(), PublicID: issuer.AgentID(w.token("agt_")), Name: "Subject", Description: "A generated subject",
		Visibility: issuer.VisibilityPublic, Status: issuer.AgentActive,
		Activity:        issuing.Activity{MemoriesPublished: sh.Memories, MemoriesConsumed: 3, FeedbackGiven: 2},
		ReputationScore: reputation.Milli(w.r.IntN(200_000) - 100_000), TrustLevel: reputation.TrustObserved,
		Domains: []issuer.DomainReputation{
			{Domain: "databases", Score: 12_500, Confidence: 600, SampleSize: 6, PositiveEvents: 7, NegativeEvents: 1, UpdatedAt: w.at.Add(-time.Hour)},
			{Domain: "agents", Score: -1_000, Confidence: 100, SampleSize: 1, NegativeEvents: 1, UpdatedAt: w.at.Add(-48 * time.Hour)},
		},
	}
	for i := range sh.Capabilities {
		s.Capabilities = append(s.Capabilities, issuing.Capability{Name: skillTerms[i%len(skillTerms)], DeclaredAt: w.when(400)})
	}
	ops := make([]issuing.Key, sh.Operators)
	for i := range ops {
		ops[i] = w.key()
	}
	agents := make([]issuing.Key, sh.Agents)
	for i := range agents {
		agents[i] = w.key()
	}
	bind := func(agent issuing.Key) {
		t := w.at.Add(-4 * 365 * 24 * time.Hour)
		for range 1 + w.r.IntN(3) {
			if w.r.IntN(4) == 0 { // a gap: ownership unknown for a while
				t = t.Add(time.Duration(w.r.IntN(200*24)) * time.Hour)
			}
			until := t.Add(time.Duration(1+w.r.IntN(900*24)) * time.Hour)
			b := issuing.OwnerBinding{Agent: agent, Operator: ops[w.r.IntN(len(ops))], From: t, Until: until}
			if until.After(w.at) {
				b.Until = time.Time{}
			}
			s.Owners = append(s.Owners, b)
			if b.Until.IsZero() {
				return
			}
			t = until
		}
	}
	bind(s.Key)
	for _, a := range agents {
		if w.r.IntN(8) != 0 {
			bind(a)
		}
	}

	ancestors := make([]issuing.Target, 1+sh.Memories/10)
	for i := range ancestors {
		ancestors[i] = issuing.Target{Key: w.key(), PublicID: issuer.MemoryID(w.secret("mem_"))}
	}
	external := make([]issuing.Target, 1+sh.Memories/10)
	for i := range external {
		external[i] = issuing.Target{Key: w.key(), PublicID: issuer.MemoryID(w.token("mem_")), Named: true}
	}
	for range sh.Memories {
		m := issuing.Memory{
			Key: w.key(), Visibility: issuing.MemoryPublic, Status: issuer.MemoryActive,
			CreatedAt: w.when(1200), ContentHash: w.hash(),
		}
		private := w.r.IntN(5) == 0
		if private {
			m.Visibility = issuing.MemoryPrivate
			m.PublicID = issuer.MemoryID(w.secret("mem_"))
			w.secrets = append(w.secrets, m.ContentHash)
			m.AppliesTo = issuing.AppliesTo{Skill: w.secret("privskill-"), Context: w.context(true)}
		} else {
			m.PublicID = issuer.MemoryID(w.token("mem_"))
			m.AppliesTo = issuing.AppliesTo{Skill: skillTerms[w.r.IntN(len(skillTerms))], Context: w.context(false)}
			switch w.r.IntN(10) {
			case 0:
				m.Status = issuer.MemoryQuarantined
			case 1:
				m.Status = issuer.MemoryRemoved
			case 2:
				m.AppliesTo.Skill = ""
			}
		}
		if m.Status != issuer.MemoryActive || private {
			w.secrets = append(w.secrets, string(m.PublicID), m.ContentHash)
		}
		switch w.r.IntN(4) {
		case 0:
			m.Links = append(m.Links, issuing.Link{Kind: issuer.LinkDerivedFrom, Target: ancestors[w.r.IntN(len(ancestors))]})
		case 1:
			m.Links = append(m.Links, issuing.Link{Kind: issuer.LinkExtends, Target: external[w.r.IntN(len(external))]})
		case 2:
			m.Links = append(m.Links, issuing.Link{Kind: issuer.LinkContradicts, Target: external[w.r.IntN(len(external))]})
		}
		s.Memories = append(s.Memories, m)
	}
	// Links and version roots between the subject's own memories.
	for i := range s.Memories {
		if i > 0 && w.r.IntN(5) == 0 {
			o := s.Memories[w.r.IntN(i)]
			t := issuing.Target{Key: o.Key, PublicID: o.PublicID, Named: o.Visibility == issuing.MemoryPublic && o.Status == issuer.MemoryActive}
			if w.r.IntN(2) == 0 {
				s.Memories[i].VersionRoot = t
			} else {
				s.Memories[i].Links = append(s.Memories[i].Links, issuing.Link{Kind: issuer.LinkSupersedes, Target: t})
			}
		}
	}

	kinds := []issuing.EventKind{issuing.EventConsumption, issuing.EventOutcome, issuing.EventOutcome, issuing.EventOutcome,
		issuing.EventCorroboration, issuing.EventContradiction, issuing.EventRevision, issuing.EventDeprecation, issuing.EventWithdrawal}
	outcomes := []evidence.Outcome{evidence.OutcomeSuccess, evidence.OutcomeSuccess, evidence.OutcomeFailure, evidence.OutcomePartial, evidence.OutcomeUncertain}
	var contradictions []issuing.Event
	for range sh.Events {
		m := s.Memories[w.r.IntN(len(s.Memories))]
		e := issuing.Event{Key: w.key(), Kind: kinds[w.r.IntN(len(kinds))], Memory: m.Key, At: w.when(1100)}
		if e.At.Before(m.CreatedAt) {
			e.At = m.CreatedAt.Add(time.Hour)
		}
		e.Actor = agents[w.r.IntN(len(agents))]
		switch e.Kind {
		case issuing.EventOutcome:
			e.Outcome = outcomes[w.r.IntN(len(outcomes))]
			if w.r.IntN(10) == 0 {
				e.Actor = s.Key // a self-report
			}
		case issuing.EventRevision, issuing.EventDeprecation, issuing.EventWithdrawal:
			e.Actor = s.Key
		}
		if w.r.IntN(2) == 0 {
			e.Context = w.context(m.Visibility == issuing.MemoryPrivate)
		}
		s.Events = append(s.Events, e)
		if e.Kind == issuing.EventContradiction {
			contradictions = append(contradictions, e)
		}
	}
	for _, c := range contradictions {
		if w.r.IntN(3) == 0 {
			s.Events = append(s.Events, issuing.Event{Key: w.key(), Kind: issuing.EventResolution, Actor: c.Actor,
				Memory: c.Memory, At: c.At.Add(time.Duration(w.r.IntN(1000)) * time.Hour), Resolves: c.Key})
		}
	}
	return s
}

// LimitSubject is a subject at the collection limits: 2,000 public
// memories about 50 skills (a fifth derived from another), and events
// making 10,000 records with their publications: outcomes of every kind,
// corroborations and contradictions from 300 actors of 80 operators and
// some of unknown ownership, in a dozen contexts, over three years, as of
// at.
func LimitSubject(at time.Time, memories, records int) *issuing.Subject {
	w := NewWorld(99, at)
	day := func(n int) time.Time { return at.Add(-time.Duration(n) * 24 * time.Hour) }
	skills := make([]string, 50)
	for i := range skills {
		if i < len(SkillTerms) {
			skills[i] = SkillTerms[i]
		} else {
			skills[i] = fmt.Sprintf("skill %02d", i)
		}
	}
	s := &issuing.Subject{Key: 1, PublicID: "agt_limit", Name: "Limit", Visibility: issuer.VisibilityPublic, Status: issuer.AgentActive,
		Owners: []issuing.OwnerBinding{{Agent: 1, Operator: 1000, From: day(2000)}}}
	for i := range memories {
		m := issuing.Memory{Key: issuing.Key(10_000 + i), PublicID: issuer.MemoryID(fmt.Sprintf("mem_%026d", i)),
			Visibility: issuing.MemoryPublic, Status: issuer.MemoryActive, CreatedAt: day(1100 + i%50), ContentHash: w.hash(),
			AppliesTo: issuing.AppliesTo{Skill: skills[i%len(skills)], Context: evidence.Context{
				Workload: []string{"oltp", "batch", "mixed"}[i%3], Domain: []string{"payments", "analytics"}[i%2]}}}
		if i%5 == 0 && i > 0 {
			m.Links = []issuing.Link{{Kind: issuer.LinkDerivedFrom, Target: issuing.Target{Key: issuing.Key(10_000 + i - 1),
				PublicID: issuer.MemoryID(fmt.Sprintf("mem_%026d", i-1)), Named: true}}}
		}
		s.Memories = append(s.Memories, m)
	}
	for a := range 300 {
		if a%50 != 7 {
			s.Owners = append(s.Owners, issuing.OwnerBinding{Agent: issuing.Key(100 + a), Operator: issuing.Key(2000 + a%80), From: day(2000)})
		}
	}
	outcomes := []evidence.Outcome{evidence.OutcomeSuccess, evidence.OutcomeSuccess, evidence.OutcomeSuccess,
		evidence.OutcomeFailure, evidence.OutcomePartial, evidence.OutcomeUncertain}
	for i := range records - memories {
		e := issuing.Event{Key: issuing.Key(1_000_000 + i), Kind: issuing.EventOutcome, Outcome: outcomes[i%len(outcomes)],
			Actor: issuing.Key(100 + i*7%300), Memory: issuing.Key(10_000 + i%memories), At: day(i % 1090)}
		switch {
		case i%97 == 0:
			e.Kind, e.Outcome = issuing.EventContradiction, ""
		case i%13 == 0:
			e.Kind, e.Outcome = issuing.EventCorroboration, ""
		}
		if i%4 == 0 {
			e.Context = evidence.Context{Version: []string{"16", "17"}[i%2], Workload: "oltp"}
		}
		s.Events = append(s.Events, e)
	}
	return s
}
