package service

import (
	"context"
	"time"

	"github.com/remnant/passportkit/evidence"
	"github.com/remnant/passportkit/issuer"
	"github.com/remnant/passportkit/issuer/issuing"
	"github.com/remnant/passportkit/reputation"
)

// Store is what the service needs of a database: the use cases that are
// plain data access, and transactions over an [Executor] for the use cases
// whose rules the service decides. issuer/store implements it for
// PostgreSQL and SQLite.
type Store interface {
	Transactor

	Authenticate(ctx context.Context, key issuer.APIKey) (issuer.Principal, error)
	Validations(ctx context.Context, p issuer.Principal, id issuer.MemoryID) (reputation.Summary, error)
	Profile(ctx context.Context, p issuer.Principal) (issuer.Profile, error)
	PublicProfile(ctx context.Context, id issuer.AgentID) (issuer.PublicProfile, error)
	Reputation(ctx context.Context, p issuer.Principal, id issuer.AgentID, q issuer.ReputationQuery) (issuer.ReputationReport, error)

	SubjectSource
	SearchStore
	FeedStore
	ReaderNumbersStore
	KnowledgeStore
	HolderKeyStore
	ArtifactStore
}

// SubjectSource reads what a passport is computed from. issuer/store
// implements it for both engines; the issuing endpoints, the cache and the
// demo read subjects through it.
type SubjectSource interface {
	// LoadSubject reads a public, active subject's records as they stand,
	// within the collection limits, in one read-only transaction (one
	// snapshot): its profile, declared capabilities, activity, reputation,
	// holder keys' thumbprints (in byte order), memories, the events on
	// them, the owner-binding history of every agent those events name,
	// and its revision (as SubjectRevision reads it, in the statement that
	// pins the snapshot), so that the revision names exactly the state
	// read. now is called once the
	// snapshot is pinned: its time, the subject's At, is later than every
	// record read. No record is left out for its time. An unknown,
	// private, unlisted or suspended subject is issuer.CodeNotFound.
	LoadSubject(ctx context.Context, id issuer.AgentID, now func() time.Time) (*issuing.Subject, error)
	// SubjectRevision returns a listed subject's current revision, the
	// [PassportRevision] of its revision token (a random token replaced in
	// the same transaction as any write that changes the subject's
	// evidence, visibility or status, "" before the first such write) and
	// the keys epoch, both read in one statement: LoadSubject's Revision
	// for the same state. An unknown agent and one that is private,
	// unlisted or suspended are issuer.CodeNotFound alike, at the same
	// cost.
	SubjectRevision(ctx context.Context, id issuer.AgentID) (string, error)
}

// Executor is a store's data access inside one transaction, shaped like
// river's driver executor: for each use case whose rules the service
// decides, one call reads, and locks, everything the decision needs; the
// service decides, purely, what changes; one call writes that plan. (A
// change that may reach other authors' passports reads their relations
// in a second call, once it is known to change something, so that one
// that changes nothing reads no more than its record.) Each Write call is
// the last call of its transaction: an adapter may commit with it, and
// may send each call as one round trip.
type Executor interface {
	// LoadValidation reads what q's validation needs. It locks the global
	// aggregate rows of every target's author and of the evaluator, in key
	// order, before it reads any position, aggregate or counter, so that
	// what it returns stays current until the transaction ends.
	LoadValidation(ctx context.Context, q ValidationQuery) (*ValidationState, error)
	// WriteValidation writes plan.
	WriteValidation(ctx context.Context, plan *ValidationPlan) error

	// LoadPublication reads the memories q's links name.
	LoadPublication(ctx context.Context, q PublicationQuery) (*PublicationState, error)
	// WritePublication writes plan and returns the new memory as its
	// author reads it.
	WritePublication(ctx context.Context, plan *PublicationPlan) (issuer.Memory, error)

	// LoadRetrieval reads the memory mem, and the memory as reader reads
	// it.
	LoadRetrieval(ctx context.Context, mem issuer.MemoryID, reader int64) (*RetrievalState, error)
	// WriteRetrieval writes plan.
	WriteRetrieval(ctx context.Context, plan *RetrievalPlan) error

	// LoadConsultation reads the memories mems names.
	LoadConsultation(ctx context.Context, mems []issuer.MemoryID) (*ConsultationState, error)
	// WriteConsultation writes plan.
	WriteConsultation(ctx context.Context, plan *ConsultationPlan) error

	// LoadModeration reads the memory mem, locking its row.
	LoadModeration(ctx context.Context, mem issuer.MemoryID) (*ModerationState, error)
	// WriteModeration writes plan.
	WriteModeration(ctx context.Context, plan *ModerationPlan) error

	AcceptExecutor

	// LoadAgent reads what q names, locking the agent's row before it
	// reads anything else of the agent; not its relations.
	LoadAgent(ctx context.Context, q AgentQuery) (*AgentState, error)
	// LoadRelated reads how other authors' records relate to the records
	// q names, each relation once: a second read of a moderation or of a
	// change of an agent, once the change is known to change something.
	LoadRelated(ctx context.Context, q RelatedQuery) ([]Relation, error)
	// WriteAgent writes plan.
	WriteAgent(ctx context.Context, plan *AgentPlan) error
	// WriteNewAgent writes plan.
	WriteNewAgent(ctx context.Context, plan *NewAgentPlan) error
	// WriteNewOperator writes plan.
	WriteNewOperator(ctx context.Context, plan *NewOperatorPlan) error

	// LoadPassportStatus reads, and locks, the status list entry of the
	// issued passport hash names; when there is none, whether the
	// passport is kept.
	LoadPassportStatus(ctx context.Context, hash string) (*PassportStatusState, error)
	// WritePassportStatus writes plan.
	WritePassportStatus(ctx context.Context, plan *PassportStatusPlan) error

	// LoadCapabilities reads the capabilities agent declares.
	LoadCapabilities(ctx context.Context, agent int64) ([]string, error)
	// WriteCapabilities writes plan.
	WriteCapabilities(ctx context.Context, plan *CapabilitiesPlan) error

	// LoadHolderKeys locks agent's row, then reads its holder keys and the
	// agents the keys named by thumbprints are bound to.
	LoadHolderKeys(ctx context.Context, agent int64, thumbprints []string) (*HolderKeyState, error)
	// WriteHolderKeys writes plan. A key bound to another agent meanwhile
	// is issuer.CodeConflict.
	WriteHolderKeys(ctx context.Context, plan *HolderKeyPlan) error
}

// ValidationQuery names what a validation reads: the evaluator, one memory
// (direct feedback) or one receipt (consultation feedback), and an
// idempotency key if any.
type ValidationQuery struct {
	Evaluator      int64
	Memory         issuer.MemoryID  // direct feedback
	Receipt        issuer.ReceiptID // consultation feedback
	IdempotencyKey string
	// Artifact is the digest an evidence object cites, or "".
	Artifact string
}

// ValidationState is what a store read for a [ValidationQuery].
type ValidationState struct {
	// Prior is the record of the idempotency key, when it was used before.
	Prior *IdempotencyRecord
	// ArtifactReadable reports that the query's artifact exists and the
	// evaluator may read it.
	ArtifactReadable bool
	// Receipt is the consultation, for consultation feedback; nil when it
	// does not exist.
	Receipt *ReceiptState
	// Targets are the memory (direct) or the memories the consultation
	// activated, in its order; empty when the memory does not exist.
	Targets []Target
	// Authors holds the locked global aggregates by author key.
	Authors map[int64]reputation.Aggregate
	// Domains holds the authors' domain aggregates that exist.
	Domains map[AuthorDomain]reputation.Aggregate
	// EvaluatorCredit holds the evaluator's domain score and confidence,
	// by domain, where it has any.
	EvaluatorCredit map[string][2]reputation.Milli
	// PositivePairs holds the positive budget used by the pair of the
	// evaluator and each author; NegativePairs the evaluator's negative
	// budget towards each author. Missing means zero.
	PositivePairs, NegativePairs map[int64]int
	// DomainCounts and GlobalCounts are the evaluator's weighted current
	// positions towards each author, per domain and overall.
	DomainCounts map[AuthorDomain]int
	GlobalCounts map[int64]int
}

// IdempotencyRecord is a recorded idempotency key.
type IdempotencyRecord struct {
	Fingerprint string
	Response    []byte // nil when no response was recorded
}

// ReceiptState is a consultation and its own validation, if any.
type ReceiptState struct {
	Key   int64
	Agent int64
	// Consumed counts the activated memories the evaluator has a
	// retrieval of under this receipt; SameOwner counts activated memories
	// whose author shares an operator with the evaluator.
	Consumed, SameOwner int
	// Feedback is the consultation's validation so far, or nil.
	Feedback *ConsultationFeedback
}

// ConsultationFeedback is a consultation-level validation.
type ConsultationFeedback struct {
	Key      int64
	Type     reputation.Type
	Verdict  reputation.Verdict
	Reason   string
	Revision int
}

// Target is a memory a validation applies to, with the evaluator's current
// position on it.
type Target struct {
	MemoryRecord
	PublicID issuer.MemoryID
	Domain   string
	// Consumed and SameOwner are read for direct feedback only.
	Consumed, SameOwner bool
	// Summary and BaseConfidence are the memory's knowledge summary.
	Summary        reputation.Summary
	BaseConfidence reputation.Milli
	// Current is the evaluator's current position, or nil.
	Current *CurrentPosition
	// RenewedAt is when the current position was last renewed (a renewal
	// that counted); zero for never.
	RenewedAt time.Time
}

// CurrentPosition is an evaluator's current position on a memory.
type CurrentPosition struct {
	Key     int64
	Ref     issuer.ValidationRef
	Verdict reputation.Verdict
	Reason  string
	// Evidence is the position's evidence object, the zero value for none.
	Evidence issuer.Evidence
	Receipt  int64 // the owning consultation, 0 for none
	// Direct reports that the evaluator has ever set this position by
	// direct feedback, which is what the feedback-given count counts.
	Direct   bool
	Position reputation.Position
}

// AuthorDomain names an author's aggregate in one domain.
type AuthorDomain struct {
	Author int64
	Domain string
}

// ValidationPlan is everything a validation writes, decided by the
// service. Figures are final values, not increments: the rows were locked
// when they were read.
type ValidationPlan struct {
	Evaluator int64
	Now       time.Time
	// Idempotency claims a key and records the response, or is nil.
	Idempotency *IdempotencyWrite
	// Consultation writes the consultation's own validation, or is nil.
	Consultation *ConsultationWrite
	Positions    []PositionWrite
	Summaries    []SummaryWrite
	Domains      []DomainWrite
	Authors      []AuthorWrite
	// PositivePairs and NegativePairs set budgets by author key.
	PositivePairs, NegativePairs []CountWrite
	// DomainCounts and GlobalCounts set evaluator counts; 0 deletes.
	DomainCounts []DomainCountWrite
	GlobalCounts []CountWrite
	// FeedbackGiven is what the evaluator's feedback-given count grows by:
	// memories validated directly for the first time, plus a first
	// validation of a consultation.
	FeedbackGiven int
	// Outcome records an outcome report, or is nil.
	Outcome *OutcomeWrite
	// Renewal records a renewal of the position with this key, or is 0.
	Renewal int64
	// Revisions replace subject revision tokens: of every author whose
	// evidence the plan changes.
	Revisions []RevisionWrite
	Audit     *AuditWrite
}

// OutcomeWrite records an evaluator's current outcome report on a memory,
// replacing its earlier one. For success and failure, Position names the
// position it set (Ref.ID, at Ref.Revision); nil for partial and
// uncertain.
type OutcomeWrite struct {
	Memory   int64
	Outcome  evidence.Outcome
	Context  evidence.Context
	Position *issuer.ValidationRef
}

// RevisionWrite sets a subject's revision token.
type RevisionWrite struct {
	Agent int64
	Token string
}

// IdempotencyWrite records a key with its response. A concurrent request
// that recorded the same key first makes the write fail as a transient
// conflict, and the retry replays the recorded response.
type IdempotencyWrite struct {
	Key, Fingerprint string
	Response         []byte
}

// ConsultationWrite writes a consultation-level validation: an insert when
// Key is 0, an update otherwise.
type ConsultationWrite struct {
	Key, Receipt int64
	Type         reputation.Type
	Verdict      reputation.Verdict
	Reason       string
	Revision     int
}

// The kinds of change a submission makes to a position, as
// feedback_history records them.
const (
	ChangeDetail   = "detail"   // reason, legacy verdict or owning consultation; no reputation effect
	ChangePosition = "position" // a first position or a change of type
)

// PositionWrite is one change to one position, with its history row and,
// for a change of position, its journal entries.
type PositionWrite struct {
	// Key is the existing position's key, or 0 for a new position named
	// by Ref.ID.
	Key      int64
	Ref      issuer.ValidationRef
	Memory   int64
	Author   int64
	Domain   string
	Change   string
	Verdict  reputation.Verdict
	Reason   string
	Evidence issuer.Evidence
	// EvidenceFactor is the weight factor the evidence gives the position
	// where reader trust weighs it, in thousandths.
	EvidenceFactor reputation.Milli
	Receipt        int64 // the owning consultation, 0 for direct feedback
	Via            issuer.Transport
	Weight         reputation.Milli // the effective weight recorded in history
	Position       *reputation.Position
	// Events are the journal entries, compensation first.
	Events []JournalEntry
}

// JournalEntry is one reputation journal entry of a position change.
type JournalEntry struct {
	Phase      reputation.Phase
	Type       reputation.Type
	Points     reputation.Milli
	BaseWeight reputation.Milli
	PairFactor reputation.Milli
	Weight     reputation.Milli
	Delta      reputation.Milli
}

// SummaryWrite sets a memory's knowledge summary; Evidence also sets its
// evidence time.
type SummaryWrite struct {
	Memory     int64
	Summary    reputation.Summary
	Confidence reputation.Milli
	Evidence   bool
}

// DomainWrite sets an author's domain aggregate.
type DomainWrite struct {
	AuthorDomain
	Aggregate reputation.Aggregate
}

// AuthorWrite sets an author's global aggregate.
type AuthorWrite struct {
	Author    int64
	Aggregate reputation.Aggregate
}

// CountWrite sets a count kept per author.
type CountWrite struct {
	Author int64
	N      int
}

// DomainCountWrite sets a count kept per author and domain.
type DomainCountWrite struct {
	AuthorDomain
	N int
}

// AuditWrite is an audit event.
type AuditWrite struct {
	Actor, Action, Subject string
	Detail                 map[string]any
}
