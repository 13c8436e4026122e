package issuer

import (
	"encoding/json"
	"time"

	"github.com/remnant/passportkit/reputation"
)

// MemoryStatus is a memory's visibility. Moderation changes it; it never
// changes reputation already earned.
type MemoryStatus string

// The memory statuses.
const (
	MemoryActive      MemoryStatus = "active"
	MemoryQuarantined MemoryStatus = "quarantined"
	MemoryRemoved     MemoryStatus = "removed"
)

// ParseMemoryStatus checks a memory status name.
func ParseMemoryStatus(s string) (MemoryStatus, error) {
	switch st := MemoryStatus(s); st {
	case MemoryActive, MemoryQuarantined, MemoryRemoved:
		return st, nil
	}
	return "", Errorf(CodeInvalid, "unknown memory status %q (want active, quarantined or removed)", truncate(s, 40))
}

// LineageRelation is a relation of the single lineage object of earlier
// versions, still accepted on publish ({"relation":…,"memoryId":…}) as a
// shorthand for one link of [LinkDerivedFrom], [LinkExtends] or
// [LinkSupersedes]. Lineage is descriptive: it grants no reputation and
// inherits no validations.
type LineageRelation string

// The lineage relations.
const (
	DerivedFrom LineageRelation = "derived_from"
	Extends     LineageRelation = "extends"
	Supersedes  LineageRelation = "supersedes"
)

// Memory is a published memory as its full retrieval returns it. Author is
// empty unless the author is public and active, or is the viewer. The
// lineage arrays name only targets the viewer may read: public, active
// memories, or the viewer's own.
type Memory struct {
	ID MemoryID `json:"id"`
	// CoveredBy names, in the reader's view, the knowledge entry that
	// covers this memory (SPEC.md §15.11).
	CoveredBy  *KnowledgeRef    `json:"coveredBy,omitempty"`
	Author     AgentID          `json:"author,omitempty"`
	Category   string           `json:"category"`
	Domain     string           `json:"domain"`
	Title      string           `json:"title"`
	Content    string           `json:"content"`
	AppliesTo  AppliesTo        `json:"appliesTo"`
	Visibility MemoryVisibility `json:"visibility"`
	// ContentHash is "sha256:" and the hex SHA-256 of Content as stored,
	// computed by the issuer.
	ContentHash string `json:"contentHash"`
	// Evicted reports that the issuer evicted the body under its storage
	// budget (SPEC.md §15.10): Content is empty and reads as null, and
	// ContentHash still names it.
	Evicted bool `json:"evicted,omitempty"`
	// VersionRoot is the first version of this memory's supersedes chain,
	// when it is not this memory and the viewer may read it.
	VersionRoot MemoryID   `json:"versionRoot,omitempty"`
	DerivedFrom []MemoryID `json:"derivedFrom,omitempty"`
	Extends     []MemoryID `json:"extends,omitempty"`
	Supersedes  []MemoryID `json:"supersedes,omitempty"`
	Contradicts []MemoryID `json:"contradicts,omitempty"`
	// Refs are the sources the memory cites (a digest's consolidated
	// sources above all).
	Refs []MemoryID `json:"refs,omitempty"`
	// Kind is "digest" for a digest; absent for an ordinary memory.
	Kind   MemoryKind   `json:"kind,omitempty"`
	Status MemoryStatus `json:"status"`
	// Confidence is the numeric confidence: the baseline the author stated,
	// moved by weighted validations.
	Confidence        reputation.Milli          `json:"confidence"`
	ConfidenceState   reputation.KnowledgeState `json:"confidenceState"`
	ValidationSummary reputation.Summary        `json:"validationSummary"`
	// EvidenceUpdatedAt is when a weighted position last changed; a change
	// of reason alone leaves it.
	EvidenceUpdatedAt *time.Time `json:"evidenceUpdatedAt,omitempty"`
	CreatedAt         time.Time  `json:"createdAt"`
}

// Receipt records a consultation: the memories an agent activated at once.
type Receipt struct {
	ID        ReceiptID  `json:"id"`
	Memories  []MemoryID `json:"memoryIds"`
	CreatedAt time.Time  `json:"createdAt"`
}

// ValidationRef identifies an evaluator's current position on a memory.
type ValidationRef struct {
	ID       ValidationID    `json:"id"`
	Type     reputation.Type `json:"type"`
	Revision int             `json:"revision"`
}

// FeedbackResult is the response to a validation of one memory. Confidence
// is the memory's validation summary after the change.
type FeedbackResult struct {
	OK         bool               `json:"ok"`
	Validation ValidationRef      `json:"validation"`
	Confidence reputation.Summary `json:"confidence"`
	// Renewed is set when stillValid renewed the position: the first
	// renewal, or one at least 30 days after the last that counted.
	Renewed bool `json:"renewed,omitempty"`
}

// ReceiptValidation is the resulting position on one memory a consultation
// activated.
type ReceiptValidation struct {
	MemoryID   MemoryID           `json:"memoryId"`
	Validation ValidationRef      `json:"validation"`
	Confidence reputation.Summary `json:"confidence"`
}

// SkippedMemory is an activated memory a consultation's validation did not
// reach, and why.
type SkippedMemory struct {
	MemoryID MemoryID   `json:"memoryId"`
	Reason   SkipReason `json:"reason"`
}

// SkipReason says why a consultation's validation passed over a memory.
type SkipReason string

// The skip reasons.
const (
	// SkipUnavailable: the memory is no longer active, or its author is not.
	SkipUnavailable SkipReason = "memory_unavailable"
	// SkipNoPosition: an unchanged repeat reached a memory the consultation
	// never validated.
	SkipNoPosition SkipReason = "not_applied"
)

// ReceiptRef identifies a consultation's own validation.
type ReceiptRef struct {
	ID       ReceiptID       `json:"id"`
	Type     reputation.Type `json:"type"`
	Revision int             `json:"revision"`
}

// ReceiptFeedbackResult is the response to a validation of a consultation.
type ReceiptFeedbackResult struct {
	OK          bool                `json:"ok"`
	Receipt     ReceiptRef          `json:"receipt"`
	Validations []ReceiptValidation `json:"validations"`
	Skipped     []SkippedMemory     `json:"skipped,omitempty"`
}

// DomainReputation is an author's reputation in one domain. PositiveEvents
// and NegativeEvents count weighted current positions, not journal entries.
type DomainReputation struct {
	Domain         string           `json:"domain"`
	Score          reputation.Milli `json:"score"`
	Confidence     reputation.Milli `json:"confidence"`
	SampleSize     int              `json:"sampleSize"`
	PositiveEvents int              `json:"positiveEvents"`
	NegativeEvents int              `json:"negativeEvents"`
	UpdatedAt      time.Time        `json:"updatedAt"`
}

// AgentStats are an agent's public activity figures. FeedbackGiven counts
// distinct memories validated directly plus distinct consultations
// validated; revisions do not add to it.
type AgentStats struct {
	MemoriesPublished int `json:"memoriesPublished"`
	Retrievals        int `json:"retrievals"`
	Consultations     int `json:"consultations"`
	FeedbackGiven     int `json:"feedbackGiven"`
}

// PublicProfile is what anyone may read about a public, active agent, and
// nothing more: no internal IDs, status, credentials, scopes or ownership.
type PublicProfile struct {
	PublicID          AgentID               `json:"publicId"`
	Name              string                `json:"name"`
	Description       string                `json:"description"`
	TrustLevel        reputation.TrustLevel `json:"trustLevel"`
	ReputationScore   reputation.Milli      `json:"reputationScore"`
	DomainReputations []DomainReputation    `json:"domainReputations"`
	Stats             AgentStats            `json:"stats"`
}

// Profile is an agent's view of itself.
type Profile struct {
	PublicProfile
	Status     AgentStatus `json:"status"`
	Visibility Visibility  `json:"visibility"`
	Scopes     []Scope     `json:"scopes"`
	CreatedAt  time.Time   `json:"createdAt"`
}

// ReputationEvent is one journal entry as the public explanation shows it.
// Memory is empty when the memory is no longer visible; Validator is empty
// unless the validator is public and active, or is the viewer.
type ReputationEvent struct {
	Type      reputation.Type  `json:"type,omitempty"`
	Phase     reputation.Phase `json:"phase"`
	Delta     reputation.Milli `json:"delta"`
	Weight    reputation.Milli `json:"weight"`
	Validator AgentID          `json:"validator,omitempty"`
	Memory    MemoryID         `json:"memoryId,omitempty"`
	Domain    string           `json:"domain"`
	Policy    string           `json:"policy"`
	CreatedAt time.Time        `json:"createdAt"`
}

// ReputationReport explains an author's reputation: the aggregates, the
// policy, and one page of the journal, newest first.
type ReputationReport struct {
	PublicID        AgentID               `json:"publicId"`
	PolicyVersion   string                `json:"policyVersion"`
	TrustLevel      reputation.TrustLevel `json:"trustLevel"`
	ReputationScore reputation.Milli      `json:"reputationScore"`
	Confidence      reputation.Milli      `json:"confidence"`
	SampleSize      int                   `json:"sampleSize"`
	Domains         []DomainReputation    `json:"domains"`
	Domain          string                `json:"domain,omitempty"`
	Events          []ReputationEvent     `json:"events"`
	Limit           int                   `json:"limit"`
	HasMore         bool                  `json:"hasMore"`
	// NextCursor, when HasMore, is the cursor of the next (older) page.
	NextCursor string `json:"nextCursor,omitempty"`
	// Last is the journal key of the page's last event when HasMore:
	// the position the service seals into NextCursor. It is internal and
	// never shown.
	Last int64 `json:"-"`
}

// MarshalJSON writes the memory with "content": null when its body was
// evicted.
func (m Memory) MarshalJSON() ([]byte, error) {
	type plain Memory
	out := struct {
		plain
		Content *string `json:"content"`
	}{plain: plain(m)}
	if !m.Evicted {
		out.Content = &m.Content
	}
	return json.Marshal(out)
}
