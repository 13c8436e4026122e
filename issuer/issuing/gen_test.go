package issuing_test

import (
	"encoding/base32"
	"encoding/hex"
	"math/rand/v2"
	"strconv"
	"testing"
	"time"

	"github.com/remnant/passportkit/evidence"
	"github.com/remnant/passportkit/issuer"
	"github.com/remnant/passportkit/issuer/issuing"
	"github.com/remnant/passportkit/passport"
	"github.com/remnant/passportkit/reputation"
	"github.com/remnant/passportkit/verifier"
)

var (
	issuedAt = time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	testKey  = []byte("0123456789abcdef0123456789abcdef")
)

const testIssuer = "https://issuer.test"

// world generates subjects, and remembers every value that must never
// leave the issuer.
type world struct {
	r       *rand.Rand
	secrets []string // internal keys, private ids, hashes and labels
	used    map[issuing.Key]bool
}

func newWorld(seed uint64) *world {
	return &world{r: rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15)), used: map[issuing.Key]bool{}}
}

// key returns a fresh internal key large enough that its decimal form
// cannot occur by chance, and remembers it as a secret.
func (w *world) key() issuing.Key {
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

func (w *world) token(prefix string) string {
	b := make([]byte, 16)
	for i := range b {
		b[i] = byte(w.r.UintN(256))
	}
	return prefix + b32.EncodeToString(b)
}

func (w *world) secret(prefix string) string {
	s := w.token(prefix)
	w.secrets = append(w.secrets, s)
	return s
}

func (w *world) hash() string {
	b := make([]byte, 32)
	for i := range b {
		b[i] = byte(w.r.UintN(256))
	}
	return "sha256:" + hex.EncodeToString(b)
}

var skillTerms = []string{"PostgreSQL", "PostgreSQL indexing", "pg tuning", "Postgres replication", "SQLite",
	"SQLite indexing", "MCP", "MCP debugging", "MCP server development", "rust async", "terraform"}

func (w *world) when(daysBack int) time.Time {
	return issuedAt.Add(-time.Duration(w.r.IntN(daysBack*24*3600)) * time.Second)
}

// context returns labels unique to this call; private ones are secrets.
func (w *world) context(private bool) evidence.Context {
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

type shape struct {
	memories, events, agents, operators, capabilities int
}

// subject generates a random subject of the given shape: public and
// private memories in every status, private research ancestors, external
// targets, events of every kind from agents whose owners change over time.
func (w *world) subject(sh shape) *issuing.Subject {
	s := &issuing.Subject{
		Key: w.key(), PublicID: issuer.AgentID(w.token("agt_")), Name: "Subject", Description: "A generated subject",
		Visibility: issuer.VisibilityPublic, Status: issuer.AgentActive,
		Activity:        issuing.Activity{MemoriesPublished: sh.memories, MemoriesConsumed: 3, FeedbackGiven: 2},
		ReputationScore: reputation.Milli(w.r.IntN(200_000) - 100_000), TrustLevel: reputation.TrustObserved,
		Domains: []issuer.DomainReputation{
			{Domain: "databases", Score: 12_500, Confidence: 600, SampleSize: 6, PositiveEvents: 7, NegativeEvents: 1, UpdatedAt: issuedAt.Add(-time.Hour)},
			{Domain: "agents", Score: -1_000, Confidence: 100, SampleSize: 1, NegativeEvents: 1, UpdatedAt: issuedAt.Add(-48 * time.Hour)},
		},
	}
	for i := range sh.capabilities {
		s.Capabilities = append(s.Capabilities, issuing.Capability{Name: skillTerms[i%len(skillTerms)], DeclaredAt: w.when(400)})
	}
	ops := make([]issuing.Key, sh.operators)
	for i := range ops {
		ops[i] = w.key()
	}
	agents := make([]issuing.Key, sh.agents)
	for i := range agents {
		agents[i] = w.key()
	}
	bind := func(agent issuing.Key) {
		t := issuedAt.Add(-4 * 365 * 24 * time.Hour)
		for range 1 + w.r.IntN(3) {
			if w.r.IntN(4) == 0 { // a gap: ownership unknown for a while
				t = t.Add(time.Duration(w.r.IntN(200*24)) * time.Hour)
			}
			until := t.Add(time.Duration(1+w.r.IntN(900*24)) * time.Hour)
			b := issuing.OwnerBinding{Agent: agent, Operator: ops[w.r.IntN(len(ops))], From: t, Until: until}
			if until.After(issuedAt) {
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

	ancestors := make([]issuing.Target, 1+sh.memories/10)
	for i := range ancestors {
		ancestors[i] = issuing.Target{Key: w.key(), PublicID: issuer.MemoryID(w.secret("mem_"))}
	}
	external := make([]issuing.Target, 1+sh.memories/10)
	for i := range external {
		external[i] = issuing.Target{Key: w.key(), PublicID: issuer.MemoryID(w.token("mem_")), Named: true}
	}
	for range sh.memories {
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
			m.Links = append(m.Links, issuing.Link{Kind: issuing.LinkDerivedFrom, Target: ancestors[w.r.IntN(len(ancestors))]})
		case 1:
			m.Links = append(m.Links, issuing.Link{Kind: issuing.LinkExtends, Target: external[w.r.IntN(len(external))]})
		case 2:
			m.Links = append(m.Links, issuing.Link{Kind: issuing.LinkContradicts, Target: external[w.r.IntN(len(external))]})
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
				s.Memories[i].Links = append(s.Memories[i].Links, issuing.Link{Kind: issuing.LinkSupersedes, Target: t})
			}
		}
	}

	kinds := []issuing.EventKind{issuing.EventConsumption, issuing.EventOutcome, issuing.EventOutcome, issuing.EventOutcome,
		issuing.EventCorroboration, issuing.EventContradiction, issuing.EventRevision, issuing.EventDeprecation, issuing.EventWithdrawal}
	outcomes := []evidence.Outcome{evidence.OutcomeSuccess, evidence.OutcomeSuccess, evidence.OutcomeFailure, evidence.OutcomePartial, evidence.OutcomeUncertain}
	var contradictions []issuing.Event
	for range sh.events {
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

// signer returns a deterministic Ed25519 signer and a verifier reading a
// trust file for it.
func signer(t testing.TB) (*passport.Signer, *verifier.Verifier) {
	t.Helper()
	seed := rand.NewChaCha8([32]byte{7})
	k, err := passport.GenerateKey(passport.EdDSA, seed)
	if err != nil {
		t.Fatal(err)
	}
	trust, err := verifier.NewTrust(testIssuer, verifier.TrustedKey{Key: k.Public()})
	if err != nil {
		t.Fatal(err)
	}
	// Through a trust file, as a third party would hold it.
	file, err := trust.MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	if trust, err = verifier.ParseTrust(file); err != nil {
		t.Fatal(err)
	}
	v, err := verifier.New(trust, verifier.WithClock(func() time.Time { return issuedAt.Add(time.Minute) }))
	if err != nil {
		t.Fatal(err)
	}
	return passport.NewSigner(k), v
}

func options() issuing.Options {
	return issuing.Options{Issuer: testIssuer, IssuedAt: issuedAt}
}
