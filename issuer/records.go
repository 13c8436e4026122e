package issuer

import (
	"crypto/sha256"
	"encoding/hex"
	"strconv"

	"github.com/remnant/passportkit/evidence"
)

// Bounds of what agents record for their passports. Claim lengths count
// bytes, as the evidence format does (SPEC.md §4.4).
const (
	MaxClaimBytes       = evidence.MaxTextLen // bytes of an appliesTo skill or context label
	MaxLinks            = 20                  // lineage links on one memory, all kinds together
	MaxOutcomeBody      = 8 << 10             // bytes of an outcome report
	MaxCapabilitiesBody = 16 << 10            // bytes of a capability declaration
	MaxCapabilities     = 64                  // declared capabilities of one agent
	MaxCapabilityBytes  = evidence.MaxTextLen // bytes of one capability
)

// MemoryVisibility says who may read a memory.
type MemoryVisibility string

// The memory visibilities.
const (
	// MemoryPublic: anyone may find, read and validate the memory.
	MemoryPublic MemoryVisibility = "public"
	// MemoryPrivate: a research memory only its author reads. Its author
	// may link it as a lineage ancestor, for de-duplication only: it is
	// never shown, counted or validated.
	MemoryPrivate MemoryVisibility = "private"
)

// AppliesTo is a memory's applicability claim: a skill term and the six
// task-context dimensions of SPEC.md §4.4. Both are the author's claims,
// not attested facts.
type AppliesTo struct {
	Skill string `json:"skill,omitempty"`
	evidence.Context
}

// AppliesToRequest is the wire form of an [AppliesTo].
type AppliesToRequest struct {
	Skill *string `json:"skill,omitempty"`
	ContextRequest
}

// ContextRequest is the wire form of a task context: each dimension of
// SPEC.md §4.4 optional.
type ContextRequest struct {
	Domain      *string `json:"domain,omitempty"`
	Environment *string `json:"environment,omitempty"`
	Protocol    *string `json:"protocol,omitempty"`
	Version     *string `json:"version,omitempty"`
	Workload    *string `json:"workload,omitempty"`
	Constraints *string `json:"constraints,omitempty"`
}

// claim checks one claim: one line of safe text, at most MaxClaimBytes
// bytes after trimming, blank allowed (it means "not stated").
func claim(field string, s *string) (string, error) {
	if s == nil {
		return "", nil
	}
	v, err := cleanText(field, *s, 0, MaxClaimBytes, lineText)
	if err != nil {
		return "", err
	}
	if len(v) > MaxClaimBytes {
		return "", Errorf(CodeInvalid, "%s must be at most %d bytes, not %d", field, MaxClaimBytes, len(v))
	}
	return v, nil
}

// Normalize checks every label of r.
func (r ContextRequest) Normalize(field string) (evidence.Context, error) {
	var c evidence.Context
	vals := []*string{r.Domain, r.Environment, r.Protocol, r.Version, r.Workload, r.Constraints}
	for i, dim := range evidence.Dimensions {
		v, err := claim(field+"."+dim, vals[i])
		if err != nil {
			return c, err
		}
		c.Set(dim, v)
	}
	return c, nil
}

// Normalize checks the skill and every context label of r.
func (r AppliesToRequest) Normalize() (AppliesTo, error) {
	var a AppliesTo
	var err error
	if a.Skill, err = claim("appliesTo.skill", r.Skill); err != nil {
		return a, err
	}
	if a.Skill != "" && evidence.NormalizeLabel(a.Skill) == "" {
		return a, Errorf(CodeInvalid, "appliesTo.skill has no letters or digits")
	}
	a.Context, err = r.ContextRequest.Normalize("appliesTo")
	return a, err
}

// LinkKind is the relation a lineage link states.
type LinkKind string

// The lineage relations, in the order a memory lists them.
const (
	LinkDerivedFrom LinkKind = "derivedFrom"
	LinkExtends     LinkKind = "extends"
	LinkSupersedes  LinkKind = "supersedes"
	// LinkContradicts: the memory contradicts the target. That is
	// evidence about the target's author, not about the memory's (it
	// enters the target author's passport as a contradiction), so it is
	// not part of the memory's lineage.
	LinkContradicts LinkKind = "contradicts"
	// LinkRefs: the memory cites the target as a source (ADR 0019 §1,
	// §5.1). A citation is a knowledge signal, not lineage, and does not
	// enter passports.
	LinkRefs LinkKind = "refs"
)

// LinkKinds lists the link kinds in their fixed order.
var LinkKinds = []LinkKind{LinkDerivedFrom, LinkExtends, LinkSupersedes, LinkContradicts, LinkRefs}

// MemoryKind is what a memory is: an ordinary memory or a digest.
type MemoryKind string

// The memory kinds.
const (
	KindMemory MemoryKind = "memory"
	// KindDigest is consolidated knowledge: its title is the knowledge in
	// one line, its refs the sources it consolidates (ADR 0019 §5.1).
	KindDigest MemoryKind = "digest"
)

// Link is one lineage link of a new memory.
type Link struct {
	Kind   LinkKind
	Target MemoryID
}

// OutcomeRequest is the wire form of an outcome report, over HTTP and MCP.
type OutcomeRequest struct {
	Outcome        string          `json:"outcome"`
	Context        *ContextRequest `json:"context,omitempty"`
	IdempotencyKey *string         `json:"idempotencyKey,omitempty"`
}

// OutcomeReport is a validated outcome report.
type OutcomeReport struct {
	Outcome evidence.Outcome
	Context evidence.Context
	// IdempotencyKey is "" when the request carried none.
	IdempotencyKey string
}

// Normalize checks r.
func (r OutcomeRequest) Normalize() (OutcomeReport, error) {
	var o OutcomeReport
	switch v := evidence.Outcome(r.Outcome); v {
	case evidence.OutcomeSuccess, evidence.OutcomeFailure, evidence.OutcomePartial, evidence.OutcomeUncertain:
		o.Outcome = v
	default:
		return o, Errorf(CodeInvalid, "outcome %q is not one of success, failure, partial, uncertain", truncate(r.Outcome, 40))
	}
	if r.Context != nil {
		c, err := r.Context.Normalize("context")
		if err != nil {
			return o, err
		}
		o.Context = c
	}
	if r.IdempotencyKey != nil {
		k, err := cleanText("idempotencyKey", *r.IdempotencyKey, 1, MaxIdempotencyKey, lineText)
		if err != nil {
			return o, err
		}
		o.IdempotencyKey = k
	}
	return o, nil
}

// ParseOutcome decodes and checks the body of an outcome report.
func ParseOutcome(body []byte) (OutcomeReport, error) {
	var r OutcomeRequest
	if err := Decode(body, MaxOutcomeBody, &r); err != nil {
		return OutcomeReport{}, err
	}
	return r.Normalize()
}

// Fingerprint identifies the input of an outcome report on mem for
// idempotency. It never collides with a validation's fingerprint.
func (o OutcomeReport) Fingerprint(mem MemoryID) string {
	h := sha256.New()
	parts := []string{"outcome", string(mem), string(o.Outcome)}
	for _, v := range o.Context.Values() {
		parts = append(parts, v)
	}
	for _, part := range parts {
		h.Write([]byte(strconv.Itoa(len(part))))
		h.Write([]byte{':'})
		h.Write([]byte(part))
	}
	return hex.EncodeToString(h.Sum(nil))
}

// OutcomeResult is the response to an outcome report. Validation is the
// evaluator's position on the memory after a success or failure report,
// and absent after partial or uncertain, which change no position.
type OutcomeResult struct {
	OK         bool             `json:"ok"`
	MemoryID   MemoryID         `json:"memoryId"`
	Outcome    evidence.Outcome `json:"outcome"`
	Validation *ValidationRef   `json:"validation,omitempty"`
}

// CapabilitiesRequest is the wire form of a capability declaration.
type CapabilitiesRequest struct {
	Capabilities []string `json:"capabilities"`
}

// ParseCapabilities decodes and checks a capability declaration: at most
// MaxCapabilities one-line names of 1 to MaxCapabilityBytes bytes each;
// repeats are kept once, in first-seen order.
func ParseCapabilities(body []byte) ([]string, error) {
	var r CapabilitiesRequest
	if err := Decode(body, MaxCapabilitiesBody, &r); err != nil {
		return nil, err
	}
	return NormalizeCapabilities(r.Capabilities)
}

// NormalizeCapabilities checks a list of declared capabilities.
func NormalizeCapabilities(in []string) ([]string, error) {
	if in == nil {
		return nil, Errorf(CodeInvalid, "capabilities is required (an empty list clears them)")
	}
	if len(in) > MaxCapabilities {
		return nil, Errorf(CodeInvalid, "capabilities lists more than %d entries", MaxCapabilities)
	}
	out := make([]string, 0, len(in))
	seen := map[string]bool{}
	for _, c := range in {
		v, err := cleanText("capability", c, 1, MaxCapabilityBytes, lineText)
		if err != nil {
			return nil, err
		}
		if len(v) > MaxCapabilityBytes {
			return nil, Errorf(CodeInvalid, "a capability must be at most %d bytes, not %d", MaxCapabilityBytes, len(v))
		}
		if !seen[v] {
			seen[v] = true
			out = append(out, v)
		}
	}
	return out, nil
}

// Capabilities is the response to a capability declaration: the agent's
// declared capabilities, which carry no evidentiary weight.
type Capabilities struct {
	Capabilities []string `json:"capabilities"`
}
