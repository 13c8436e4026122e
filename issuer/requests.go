package issuer

import (
	"crypto/sha256"
	"encoding/hex"
	"strconv"

	"github.com/remnant/passportkit/reputation"
)

// Request bounds. Text lengths count Unicode characters after trimming.
const (
	MaxFeedbackBody        = 16 << 10  // bytes of a feedback request
	MaxPublishBody         = 128 << 10 // bytes of a publish request
	MaxConsultationBody    = 16 << 10  // bytes of a consultation request
	MaxModerationBody      = 4 << 10   // bytes of a moderation request
	MaxReason              = 1000      // characters of a validation reason
	MaxIdempotencyKey      = 200       // characters of an idempotency key
	MaxCategory            = 100       // characters of a memory category
	MaxTitle               = 200       // characters of a memory title
	MaxContent             = 20000     // characters of a memory's content
	MaxConsultedMemories   = 20        // memories in one consultation
	MaxReputationLimit     = 50        // events on one page of a reputation report
	DefaultReputationLimit = 20
	DefaultConfidence      = reputation.Milli(500)
)

// FeedbackRequest is the wire form of a validation, in either contract: the
// six-type contract {type, reason} or the legacy one {verdict, note}. Each
// transport decodes into it and calls [FeedbackRequest.Normalize]. A client
// cannot name an author, evaluator, domain, weight, score or state: those
// are resolved on the server.
type FeedbackRequest struct {
	Type           *string `json:"type,omitempty"`
	Reason         *string `json:"reason,omitempty"`
	Verdict        *string `json:"verdict,omitempty"`
	Note           *string `json:"note,omitempty"`
	IdempotencyKey *string `json:"idempotencyKey,omitempty"`
	// Evidence is an optional evidence object (SPEC.md §15.8); free-text
	// evidence stays in the reason.
	Evidence *EvidenceRequest `json:"evidence,omitempty"`
	// StillValid renews the caller's standing confirmation (SPEC.md
	// §15.8): type must be its current corroborate or used_successfully.
	StillValid *bool `json:"stillValid,omitempty"`
}

// Feedback is a validated, normalised validation request.
type Feedback struct {
	Type reputation.Type
	// Verdict is the legacy verdict the request used, or "".
	Verdict reputation.Verdict
	Reason  string
	// IdempotencyKey is "" when the request carried none.
	IdempotencyKey string
	// Evidence is the evidence object, the zero value when none was given.
	Evidence Evidence
	// StillValid asks to renew the standing confirmation of this type.
	StillValid bool
}

// Normalize checks r and returns its normalised form: one contract, a known
// type or verdict, the reason trimmed and bounded, the key trimmed and
// bounded.
func (r FeedbackRequest) Normalize() (Feedback, error) {
	var f Feedback
	switch {
	case r.Type != nil && r.Verdict != nil:
		return f, Errorf(CodeInvalid, "give either type or the legacy verdict, not both")
	case r.Type != nil:
		if r.Note != nil {
			return f, Errorf(CodeInvalid, "note belongs to the legacy verdict contract; use reason with type")
		}
		t, err := reputation.ParseType(*r.Type)
		if err != nil {
			return f, Errorf(CodeInvalid, "type %q is not one of corroborate, contradict, useful, not_useful, used_successfully, used_unsuccessfully", truncate(*r.Type, 40))
		}
		f.Type = t
		if r.Reason != nil {
			f.Reason = *r.Reason
		}
	case r.Verdict != nil:
		if r.Reason != nil {
			return f, Errorf(CodeInvalid, "reason belongs to the type contract; use note with verdict")
		}
		v, err := reputation.ParseVerdict(*r.Verdict)
		if err != nil {
			return f, Errorf(CodeInvalid, "verdict %q is not one of confirm, contradict, outdated, irrelevant", truncate(*r.Verdict, 40))
		}
		f.Type, f.Verdict = v.Type(), v
		if r.Note != nil {
			f.Reason = *r.Note
		}
	default:
		return f, Errorf(CodeInvalid, "a validation needs a type (or a legacy verdict)")
	}
	var err error
	if f.Reason, err = cleanText("reason", f.Reason, 0, MaxReason, proseText); err != nil {
		return f, err
	}
	if r.Evidence != nil {
		switch f.Type {
		case reputation.Corroborate, reputation.Contradict, reputation.UsedSuccessfully, reputation.UsedUnsuccessfully:
		default:
			return f, Errorf(CodeInvalid, "evidence belongs to corroborate, contradict, used_successfully and used_unsuccessfully, not %s", f.Type)
		}
		if f.Evidence, err = r.Evidence.Normalize(); err != nil {
			return f, err
		}
	}
	if r.StillValid != nil && *r.StillValid {
		if f.Type != reputation.Corroborate && f.Type != reputation.UsedSuccessfully {
			return f, Errorf(CodeInvalid, "stillValid renews a corroborate or used_successfully position, not %s", f.Type)
		}
		f.StillValid = true
	}
	if r.IdempotencyKey != nil {
		if f.IdempotencyKey, err = cleanText("idempotencyKey", *r.IdempotencyKey, 1, MaxIdempotencyKey, lineText); err != nil {
			return f, err
		}
	}
	return f, nil
}

// Fingerprint identifies the input of a validation of target (a memory or a
// receipt ID) for idempotency: two requests with the same key must have the
// same fingerprint to be the same request.
func (f Feedback) Fingerprint(target string) string {
	h := sha256.New()
	parts := []string{target, string(f.Type), string(f.Verdict), f.Reason}
	if e := f.Evidence; e.Given() {
		// Without evidence the fingerprint is the one recorded before
		// evidence existed, so that recorded keys still replay.
		parts = append(parts, "evidence", string(e.Type), e.Detail, e.Artifact, e.Env)
	}
	if f.StillValid {
		parts = append(parts, "stillValid")
	}
	for _, part := range parts {
		h.Write([]byte(strconv.Itoa(len(part))))
		h.Write([]byte{':'})
		h.Write([]byte(part))
	}
	return hex.EncodeToString(h.Sum(nil))
}

// ParseFeedback decodes and checks the body of a memory validation.
func ParseFeedback(body []byte) (Feedback, error) {
	var r FeedbackRequest
	if err := Decode(body, MaxFeedbackBody, &r); err != nil {
		return Feedback{}, err
	}
	return r.Normalize()
}

// ParseReceiptFeedback decodes and checks the body of a consultation's
// validation for the receipt named in the path. The body may repeat the
// receipt as receiptId; it must then be the same.
func ParseReceiptFeedback(body []byte, receipt ReceiptID) (Feedback, error) {
	var r struct {
		FeedbackRequest
		ReceiptID *string `json:"receiptId,omitempty"`
	}
	if err := Decode(body, MaxFeedbackBody, &r); err != nil {
		return Feedback{}, err
	}
	if r.Evidence != nil || r.StillValid != nil {
		return Feedback{}, Errorf(CodeInvalid, "evidence and stillValid belong to the validation of one memory, not of a consultation")
	}
	if r.ReceiptID != nil && *r.ReceiptID != string(receipt) {
		return Feedback{}, Errorf(CodeInvalid, "receiptId %q does not match the receipt in the path", truncate(*r.ReceiptID, 40))
	}
	return r.FeedbackRequest.Normalize()
}

// PublishRequest is the wire form of a new memory.
type PublishRequest struct {
	Category  string            `json:"category"`
	Title     string            `json:"title"`
	Content   string            `json:"content"`
	AppliesTo *AppliesToRequest `json:"appliesTo,omitempty"`
	// Visibility is public (the default) or private: a research memory
	// only its author reads.
	Visibility *string `json:"visibility,omitempty"`
	// Confidence is the author's own confidence, 0 to 1 with at most three
	// decimals; 0.5 when absent. Validations move it from there.
	Confidence *reputation.Milli `json:"confidence,omitempty"`
	// The lineage links: memory ids the author may link to.
	DerivedFrom []string `json:"derivedFrom,omitempty"`
	Extends     []string `json:"extends,omitempty"`
	Supersedes  []string `json:"supersedes,omitempty"`
	Contradicts []string `json:"contradicts,omitempty"`
	// Refs are the sources the memory cites; a digest's consolidated
	// sources.
	Refs []string `json:"refs,omitempty"`
	// Kind is memory (the default) or digest (SPEC.md §15.8).
	Kind *string `json:"kind,omitempty"`
	// Lineage is the single link of earlier versions, kept as a shorthand:
	// {"relation":"derived_from|extends|supersedes","memoryId":…} is one
	// link of that kind.
	Lineage *struct {
		Relation string `json:"relation"`
		MemoryID string `json:"memoryId"`
	} `json:"lineage,omitempty"`
}

// Publication is a validated, normalised new memory.
type Publication struct {
	// Kind is the memory's kind; "" reads as [KindMemory].
	Kind       MemoryKind
	Category   string
	Domain     string
	Title      string
	Content    string
	AppliesTo  AppliesTo
	Visibility MemoryVisibility
	Confidence reputation.Milli
	// Links are the lineage links, by kind in the order of [LinkKinds],
	// then as given; a target appears at most once per kind.
	Links []Link
}

// ParsePublication decodes and checks the body of a new memory.
func ParsePublication(body []byte) (Publication, error) {
	var r PublishRequest
	if err := Decode(body, MaxPublishBody, &r); err != nil {
		return Publication{}, err
	}
	return r.Normalize()
}

// Normalize checks r and returns the publication it asks for.
func (r PublishRequest) Normalize() (Publication, error) {
	var (
		p   Publication
		err error
	)
	if p.Category, err = cleanText("category", r.Category, 1, MaxCategory, blockText); err != nil {
		return p, err
	}
	p.Domain = reputation.NormalizeDomain(p.Category)
	if p.Domain == "" {
		return p, Errorf(CodeInvalid, "category has no domain after normalisation")
	}
	if p.Title, err = cleanText("title", r.Title, 1, MaxTitle, lineText); err != nil {
		return p, err
	}
	if p.Content, err = cleanText("content", r.Content, 1, MaxContent, proseText); err != nil {
		return p, err
	}
	if r.AppliesTo != nil {
		if p.AppliesTo, err = r.AppliesTo.Normalize(); err != nil {
			return p, err
		}
	}
	p.Visibility = MemoryPublic
	if r.Visibility != nil {
		switch v := MemoryVisibility(*r.Visibility); v {
		case MemoryPublic, MemoryPrivate:
			p.Visibility = v
		default:
			return p, Errorf(CodeInvalid, "visibility %q is not one of public, private", truncate(*r.Visibility, 40))
		}
	}
	p.Confidence = DefaultConfidence
	if r.Confidence != nil {
		if *r.Confidence < 0 || *r.Confidence > reputation.One {
			return p, Errorf(CodeInvalid, "confidence must be between 0 and 1")
		}
		p.Confidence = *r.Confidence
	}
	p.Kind = KindMemory
	if r.Kind != nil {
		switch k := MemoryKind(*r.Kind); k {
		case KindMemory, KindDigest:
			p.Kind = k
		default:
			return p, Errorf(CodeInvalid, "kind %q is not one of memory, digest", truncate(*r.Kind, 40))
		}
	}
	given := map[LinkKind][]string{LinkDerivedFrom: r.DerivedFrom, LinkExtends: r.Extends, LinkSupersedes: r.Supersedes,
		LinkContradicts: r.Contradicts, LinkRefs: r.Refs}
	for _, kind := range LinkKinds {
		if len(given[kind]) > MaxLinks {
			return p, Errorf(CodeInvalid, "%s lists more than %d memories", kind, MaxLinks)
		}
	}
	if r.Lineage != nil {
		var kind LinkKind
		switch LineageRelation(r.Lineage.Relation) {
		case DerivedFrom:
			kind = LinkDerivedFrom
		case Extends:
			kind = LinkExtends
		case Supersedes:
			kind = LinkSupersedes
		default:
			return p, Errorf(CodeInvalid, "lineage relation %q is not one of derived_from, extends, supersedes", truncate(r.Lineage.Relation, 40))
		}
		given[kind] = append(given[kind], r.Lineage.MemoryID)
	}
	for _, kind := range LinkKinds {
		seen := map[MemoryID]bool{}
		for _, s := range given[kind] {
			id, err := ParseMemoryID(s)
			if err != nil {
				return p, err
			}
			if seen[id] {
				continue
			}
			seen[id] = true
			p.Links = append(p.Links, Link{Kind: kind, Target: id})
		}
	}
	if len(p.Links) > MaxLinks {
		return p, Errorf(CodeInvalid, "a memory has at most %d lineage links", MaxLinks)
	}
	if p.Kind == KindDigest {
		n := 0
		for _, l := range p.Links {
			if l.Kind == LinkSupersedes {
				n++
			}
		}
		if n > 1 {
			return p, Errorf(CodeInvalid, "a digest supersedes at most one older digest")
		}
	}
	if p.Visibility == MemoryPrivate {
		for _, l := range p.Links {
			if l.Kind == LinkContradicts {
				return p, Errorf(CodeInvalid, "a private memory cannot contradict another memory")
			}
		}
	}
	return p, nil
}

// ParseConsultation decodes the body of a consultation: the memories an
// agent activated together, {"memoryIds": [...]}, between 1 and 20 distinct
// IDs.
func ParseConsultation(body []byte) ([]MemoryID, error) {
	var r struct {
		MemoryIDs []string `json:"memoryIds"`
	}
	if err := Decode(body, MaxConsultationBody, &r); err != nil {
		return nil, err
	}
	if len(r.MemoryIDs) == 0 || len(r.MemoryIDs) > MaxConsultedMemories {
		return nil, Errorf(CodeInvalid, "memoryIds must list between 1 and %d memories", MaxConsultedMemories)
	}
	out := make([]MemoryID, 0, len(r.MemoryIDs))
	seen := map[MemoryID]bool{}
	for _, s := range r.MemoryIDs {
		id, err := ParseMemoryID(s)
		if err != nil {
			return nil, err
		}
		if seen[id] {
			return nil, Errorf(CodeInvalid, "memoryIds lists %s twice", id)
		}
		seen[id] = true
		out = append(out, id)
	}
	return out, nil
}

// Moderation is a validated change of a memory's visibility.
type Moderation struct {
	Status MemoryStatus
	Reason string
}

// ParseModeration decodes the body of a moderation: {"status": ..., "reason": ...}.
func ParseModeration(body []byte) (Moderation, error) {
	var r struct {
		Status string `json:"status"`
		Reason string `json:"reason,omitempty"`
	}
	if err := Decode(body, MaxModerationBody, &r); err != nil {
		return Moderation{}, err
	}
	return NewModeration(r.Status, r.Reason)
}

// NewModeration checks a moderation's status and reason.
func NewModeration(status, reason string) (Moderation, error) {
	st, err := ParseMemoryStatus(status)
	if err != nil {
		return Moderation{}, err
	}
	reason, err = cleanText("reason", reason, 0, MaxReason, proseText)
	if err != nil {
		return Moderation{}, err
	}
	return Moderation{Status: st, Reason: reason}, nil
}

// ReputationQuery selects one page of a reputation report.
type ReputationQuery struct {
	// Domain is a normalised domain, or "" for all domains.
	Domain string
	Limit  int
	// Cursor is the nextCursor of an earlier page as the caller gave it,
	// "" for the newest events. Its form is checked here; only the
	// service can open it (SPEC.md §13.5).
	Cursor string
	// After is the journal key the page follows, 0 for the newest
	// events: the position Cursor seals, which the service sets once it
	// has opened Cursor. It is internal and never shown.
	After int64
}

// NewReputationQuery checks a report's filters, in this order; nil means
// absent. limit is 1 to 50 (20 when absent); domain is one line of at
// most 100 characters, not blank; cursor is a nextCursor of an earlier
// page: 1 to [MaxCursor] characters of the base64url alphabet, else
// cursor_invalid.
func NewReputationQuery(domain *string, limit *int, cursor *string) (ReputationQuery, error) {
	q := ReputationQuery{Limit: DefaultReputationLimit}
	if limit != nil {
		if *limit < 1 || *limit > MaxReputationLimit {
			return q, Errorf(CodeInvalid, "limit must be between 1 and %d", MaxReputationLimit)
		}
		q.Limit = *limit
	}
	if domain != nil {
		d, err := cleanText("domain", *domain, 0, MaxCategory, lineText)
		if err != nil {
			return q, err
		}
		if q.Domain = reputation.NormalizeDomain(d); q.Domain == "" {
			return q, Errorf(CodeInvalid, "domain must not be blank: name a domain, or leave it out for every domain")
		}
	}
	if cursor != nil {
		if !cursorForm(*cursor) {
			return q, Errorf(CodeCursorInvalid, "cursor is not one this service returned")
		}
		q.Cursor = *cursor
	}
	return q, nil
}

// reputationParams is the table of a reputation report's query string.
var reputationParams = QuerySpec{Params: Params("domain", "limit", "cursor")}

// ParseReputationQuery reads domain, limit and cursor from a raw URL query
// string, whole ([QuerySpec.Read]: another parameter, or one given twice,
// is refused), then a limit that is not a decimal integer, then as
// [NewReputationQuery] says.
func ParseReputationQuery(raw string) (ReputationQuery, error) {
	v, err := reputationParams.Read(raw)
	if err != nil {
		return ReputationQuery{}, err
	}
	limit, err := uintParam("limit", one(v, "limit"))
	if err != nil {
		return ReputationQuery{}, err
	}
	return NewReputationQuery(one(v, "domain"), limit, one(v, "cursor"))
}

// parseSmallUint reads 1 to 9 decimal digits.
func parseSmallUint(s string) (int, error) {
	if s == "" || len(s) > 9 {
		return 0, strconv.ErrRange
	}
	n := 0
	for _, c := range []byte(s) {
		if c < '0' || c > '9' {
			return 0, strconv.ErrSyntax
		}
		n = n*10 + int(c-'0')
	}
	return n, nil
}
