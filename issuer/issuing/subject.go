package issuing

import (
	"time"

	"github.com/remnant/passportkit/evidence"
	"github.com/remnant/passportkit/issuer"
	"github.com/remnant/passportkit/reputation"
)

// Key is an internal database key: of an agent, an operator, a memory or an
// event. Keys identify rows inside the issuer and are never written into a
// passport, a record or an evidence file: records name actors and operators
// by per-passport pseudonyms (SPEC.md §5.2). Zero means "none".
type Key int64

// Subject is everything one passport is computed from: the subject agent,
// its public reputation figures, its memories, the events on them and by
// it, and the owner bindings of every agent those events name. The store
// loads one Subject in one read transaction; [Collect] and [Issue] need
// nothing else.
//
// Every list may be given in any order: the output does not depend on it.
type Subject struct {
	// Key is the subject agent's internal key (agents.id).
	Key Key
	// PublicID is the subject's public id, agt_….
	PublicID issuer.AgentID
	// Name and Description are the agent's profile text as stored; the
	// passport carries them through [issuer.PublicName] and
	// [issuer.PublicDescription], so unsafe text becomes neutral text.
	Name        string
	Description string
	// Visibility and Status: only a public, active subject is issued a
	// passport; any other is refused with [issuer.CodeNotFound].
	Visibility issuer.Visibility
	Status     issuer.AgentStatus

	// Capabilities are the agent's declared capabilities (PUT
	// /api/agents/me/capabilities). Each becomes a declaration record and a
	// member of declaredCapabilities; none carries evidentiary weight.
	Capabilities []Capability

	// Activity counts the subject's public activity: memories published
	// (public ones), memories consumed (distinct public memories retrieved)
	// and feedback given (the validation policy's feedbackGiven).
	Activity Activity
	// Domains are the subject's domain aggregates
	// (agent_domain_reputation), as the validation policy computes them.
	Domains []issuer.DomainReputation
	// ReputationScore is the global score (agent_reputation_aggregates),
	// within ±100.
	ReputationScore reputation.Milli
	// TrustLevel is the global trust level.
	TrustLevel reputation.TrustLevel

	// Memories are all of the subject's memories, whatever their
	// visibility and status: at most [MaxInputMemories]. Private ones are
	// read only to join public memories into one lineage (they are never
	// named, counted or described).
	Memories []Memory
	// Events are the events on the subject's memories and the subject's
	// own acts on them, in full history (a replaced position is still an
	// event): at most [MaxInputEvents]. useful and not_useful validations
	// are not loaded: they are neither applied outcomes nor agreement, and
	// no record type holds them.
	Events []Event
	// Owners is the owner-binding history of the subject and of every
	// actor of Events: which operator owned which agent, and when. An
	// agent's bindings must not overlap.
	Owners []OwnerBinding
	// Truncated reports that the store stopped loading at an input bound
	// (MaxInputMemories, MaxInputEvents): the collection is then marked
	// truncated whatever it holds.
	Truncated bool

	// HolderKeys are the RFC 7638 SHA-256 thumbprints (base64url) of the
	// holder keys the subject registered, at most four, in byte order: the
	// passport's cnf names them.
	HolderKeys []string

	// Revision names the state these records describe: the subject's
	// revision token in the snapshot it was read from, joined with the
	// issuer's keys epoch read in the same statement (the service
	// package's PassportRevision).
	Revision string
	// At is when the subject was read: taken after the snapshot was
	// pinned, so that no record in it was written later. Its passport is
	// issued as of At, or as of the later time its signing key was
	// decided at.
	At time.Time
}

// Capability is one declared capability.
type Capability struct {
	// Name is the capability as declared: 1 to 200 bytes, not blank.
	Name string
	// DeclaredAt is when it was (last) declared; its UTC day dates the
	// declaration record.
	DeclaredAt time.Time
}

// Activity counts a subject's public activity.
type Activity struct {
	MemoriesPublished int
	MemoriesConsumed  int
	FeedbackGiven     int
}

// MemoryVisibility says who may read a memory.
type MemoryVisibility string

// The memory visibilities.
const (
	// MemoryPublic: anyone may find and read the memory.
	MemoryPublic MemoryVisibility = "public"
	// MemoryPrivate: a private research memory. It never appears in a
	// passport; it may join public memories into one lineage.
	MemoryPrivate MemoryVisibility = "private"
)

// Memory is one of the subject's memories.
type Memory struct {
	// Key is the memory's internal key (memories.id).
	Key Key
	// PublicID is its public id, mem_…. It is written into records only
	// while the memory is public and active.
	PublicID issuer.MemoryID
	// Visibility is public or private.
	Visibility MemoryVisibility
	// Status is active, quarantined or removed. A public memory that is
	// not active keeps its evidence (moderation and withdrawal erase
	// nothing) but is named by a per-passport pseudonym instead of its
	// public id, as reputation explanations hide it.
	Status issuer.MemoryStatus
	// CreatedAt is when it was published; its UTC day dates the
	// publication record.
	CreatedAt time.Time
	// AppliesTo is the author's claim of what the memory is about. A
	// memory without a skill is evidence about no skill: it and its events
	// yield no records.
	AppliesTo AppliesTo
	// VersionRoot is the internal key of the first version of this memory
	// (the memory itself, or zero, for a first version), with its
	// visibility.
	VersionRoot Target
	// ContentHash is the SHA-256 of the memory's content, "sha256:" and 64
	// lower-case hex digits, computed by the issuer; empty if unknown.
	ContentHash string
	// Links are the memory's lineage links, as the author gave them.
	Links []Link
}

// AppliesTo is a memory's applicability claim: a skill term and the six
// task-context dimensions of SPEC.md §4.4, each at most 200 bytes. They are
// the author's claims, not attested facts.
type AppliesTo struct {
	Skill   string
	Context evidence.Context
}

// Link is one lineage link of a memory.
type Link struct {
	Kind   issuer.LinkKind
	Target Target
}

// Target is a memory a link or version root points at, which may belong to
// another author.
type Target struct {
	// Key is the target's internal key; zero means no target.
	Key Key
	// PublicID is its public id, mem_….
	PublicID issuer.MemoryID
	// Named reports whether the target may be named in a passport: it is a
	// public, active memory. A target that may not be named (a private
	// research ancestor, a memory hidden by moderation) is used only to
	// join the memories linked to it into one lineage.
	Named bool
}

// EventKind is what an event records.
type EventKind string

// The event kinds.
const (
	// EventConsumption: the actor retrieved the memory. Reading is not an
	// observation: it yields no record (it is the precondition of an
	// outcome report, checked at submission).
	EventConsumption EventKind = "consumption"
	// EventOutcome: an outcome report (success, failure, partial or
	// uncertain) by an actor that consumed the memory. success and failure
	// are the validation policy's used_successfully and
	// used_unsuccessfully positions.
	EventOutcome EventKind = "outcome"
	// EventCorroboration: a corroborate validation.
	EventCorroboration EventKind = "corroboration"
	// EventContradiction: a contradict validation, or a public memory by
	// the actor that contradicts the subject's memory.
	EventContradiction EventKind = "contradiction"
	// EventResolution: the actor withdrew its own contradiction, named by
	// Resolves.
	EventResolution EventKind = "resolution"
	// EventRevision, EventDeprecation and EventWithdrawal are the
	// subject's own acts on its memory; their actor is the subject.
	EventRevision    EventKind = "revision"
	EventDeprecation EventKind = "deprecation"
	EventWithdrawal  EventKind = "withdrawal"
)

// Event is one thing that happened to one of the subject's memories.
type Event struct {
	// Key is the event's internal key, unique among Events.
	Key Key
	// Kind says what happened.
	Kind EventKind
	// Actor is the internal key of the agent that acted.
	Actor Key
	// Memory is the internal key of the subject's memory acted on; it must
	// be one of Subject.Memories.
	Memory Key
	// At is when it happened; its UTC day dates the record, and the owner
	// bindings at this instant decide its ownership.
	At time.Time
	// Outcome is set on EventOutcome only.
	Outcome evidence.Outcome
	// Context is the structured context the actor reported, each label at
	// most 200 bytes. When it states no label, the record carries the
	// memory's AppliesTo context.
	Context evidence.Context
	// Resolves is, on an EventResolution, the key of the actor's own
	// EventContradiction on the same memory that it withdraws.
	Resolves Key
}

// OwnerBinding says that Operator owned Agent from From until Until (a zero
// Until: still owns it). The interval is half-open: an event at Until
// belongs to the next binding.
type OwnerBinding struct {
	Agent    Key
	Operator Key
	From     time.Time
	Until    time.Time
}

// Input bounds: a Subject beyond them is refused. The store loads at most
// this much; the collection limits of SPEC.md §5.6 then choose which
// records a passport keeps.
const (
	MaxInputMemories     = 100_000
	MaxInputEvents       = 1_000_000
	MaxInputCapabilities = 64
	MaxTextLen           = evidence.MaxTextLen
)
