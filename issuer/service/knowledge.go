package service

import (
	"context"
	"time"

	"github.com/remnant/passportkit/issuer"
)

// AcceptTrustWeight is what a standing accept adds to the trust edge from
// the consulting agent to the accepted memory's author, in thousandths:
// one position of full weight (SPEC.md §15.8).
const AcceptTrustWeight = 1000

// RenewalInterval is how far apart two renewals of one position must be
// for the later to count (ADR 0019 §2.5).
const RenewalInterval = 30 * 24 * time.Hour

// ArtifactStore keeps content-addressed artifacts. issuer/store implements
// it for both engines.
type ArtifactStore interface {
	// PutArtifact stores content under digest, once, and records uploader
	// as one of its uploaders, in one transaction. Created reports whether
	// the content was new.
	PutArtifact(ctx context.Context, uploader int64, digest string, content []byte, now time.Time) (issuer.Artifact, error)
	// ReadArtifact returns the artifact digest names when viewer may read
	// it: viewer uploaded it, or a current position on a memory viewer may
	// read cites it. Otherwise issuer.CodeNotFound.
	ReadArtifact(ctx context.Context, viewer int64, digest string) ([]byte, issuer.Artifact, error)
}

// UploadArtifact stores content as an artifact of p (feedback scope): at
// most [issuer.MaxArtifactBytes], addressed by its SHA-256, deduplicated.
func (s *Service) UploadArtifact(ctx context.Context, p issuer.Principal, content []byte) (issuer.Artifact, error) {
	if err := p.Require(issuer.ScopeFeedback); err != nil {
		return issuer.Artifact{}, err
	}
	if len(content) > issuer.MaxArtifactBytes {
		return issuer.Artifact{}, issuer.Errorf(issuer.CodeTooLarge, "an artifact is at most %d bytes", issuer.MaxArtifactBytes)
	}
	return s.store.PutArtifact(ctx, p.Key, issuer.ArtifactDigest(content), content, s.timestamp())
}

// Artifact returns the artifact digest names, as p may read it (search
// scope): an unknown digest and one p may not read are both not_found.
func (s *Service) Artifact(ctx context.Context, p issuer.Principal, digest string) ([]byte, issuer.Artifact, error) {
	if err := p.Require(issuer.ScopeSearch); err != nil {
		return nil, issuer.Artifact{}, err
	}
	if _, err := issuer.ParseArtifactDigest(digest); err != nil {
		return nil, issuer.Artifact{}, issuer.Errorf(issuer.CodeNotFound, "artifact not found")
	}
	return s.store.ReadArtifact(ctx, p.Key, digest)
}

// AcceptQuery names an accept: the consulting agent, its receipt and the
// memory it accepts.
type AcceptQuery struct {
	Agent   int64
	Receipt issuer.ReceiptID
	Memory  issuer.MemoryID
}

// AcceptState is what a store read for an [AcceptQuery].
type AcceptState struct {
	// ReceiptKey and ReceiptAgent name the receipt; ReceiptKey is 0 when
	// it does not exist.
	ReceiptKey, ReceiptAgent int64
	// Target is the memory, with whether its author shares an operator
	// with the agent; nil when it does not exist.
	Target *Target
	// InReceipt reports that the receipt activated the memory.
	InReceipt bool
	// Prior is the receipt's standing accept, or nil.
	Prior *PriorAccept
}

// PriorAccept is a receipt's standing accept.
type PriorAccept struct {
	Memory   int64
	PublicID issuer.MemoryID
	Author   int64
}

// AcceptPlan is what an accept writes: the receipt's accept, the trust
// edges it moves and the audit entry.
type AcceptPlan struct {
	Now                            time.Time
	Receipt, Agent, Memory, Author int64
	// Prior is the replaced accept, or nil.
	Prior *PriorAccept
	Audit *AuditWrite
}

// AcceptExecutor runs an accept's read and write in the transaction of
// [Transactor.InTx]; the store's executor implements it.
type AcceptExecutor interface {
	// LoadAccept reads what q names, locking the receipt's row.
	LoadAccept(ctx context.Context, q AcceptQuery) (*AcceptState, error)
	// WriteAccept writes plan.
	WriteAccept(ctx context.Context, plan *AcceptPlan) error
}

// Accept records that p, the agent of consultation rid, accepts memory
// mem as the memory that solved it (feedback scope; SPEC.md §15.8). One
// accept stands per consultation: a later one replaces it. The rules, in
// this order: the receipt is p's (else not_found), the memory exists and
// is visible (else not_found), the consultation activated it
// (consumption_required), it is not p's own (self_feedback) and its author
// shares no operator with p (same_owner). Accepting the standing memory
// again changes nothing.
func (s *Service) Accept(ctx context.Context, p issuer.Principal, rid issuer.ReceiptID, mem issuer.MemoryID) (issuer.Accept, error) {
	if err := p.Require(issuer.ScopeFeedback); err != nil {
		return issuer.Accept{}, err
	}
	var out issuer.Accept
	err := s.store.InTx(ctx, func(ctx context.Context, ex Executor) error {
		st, err := ex.LoadAccept(ctx, AcceptQuery{Agent: p.Key, Receipt: rid, Memory: mem})
		if err != nil {
			return err
		}
		var plan *AcceptPlan
		out, plan, err = s.planAccept(st, p, rid, mem)
		if err != nil || plan == nil {
			return err
		}
		return ex.WriteAccept(ctx, plan)
	})
	return out, err
}

// planAccept decides an accept purely from st.
func (s *Service) planAccept(st *AcceptState, p issuer.Principal, rid issuer.ReceiptID, mem issuer.MemoryID) (issuer.Accept, *AcceptPlan, error) {
	now := s.timestamp()
	out := issuer.Accept{Receipt: rid, MemoryID: mem, UpdatedAt: now}
	m := st.Target
	switch {
	case st.ReceiptKey == 0 || st.ReceiptAgent != p.Key:
		return out, nil, issuer.Errorf(issuer.CodeNotFound, "receipt %s not found", rid)
	case m == nil || !m.visible():
		return out, nil, issuer.Errorf(issuer.CodeNotFound, "memory %s not found", mem)
	case !st.InReceipt:
		return out, nil, issuer.Errorf(issuer.CodeConsumptionRequired, "memory %s is not one of the memories consultation %s activated", mem, rid)
	case m.Author == p.Key:
		return out, nil, issuer.Errorf(issuer.CodeSelfFeedback, "an agent cannot accept its own memory")
	case m.SameOwner:
		return out, nil, issuer.Errorf(issuer.CodeSameOwner, "agents of the same operator cannot accept one another's memories")
	}
	if st.Prior != nil && st.Prior.Memory == m.Key {
		return out, nil, nil
	}
	plan := &AcceptPlan{Now: now, Receipt: st.ReceiptKey, Agent: p.Key, Memory: m.Key, Author: m.Author, Prior: st.Prior,
		Audit: &AuditWrite{Actor: string(p.AgentID), Action: "consultation.accept", Subject: string(rid),
			Detail: map[string]any{"memoryId": string(mem)}}}
	if st.Prior != nil {
		out.Replaced = st.Prior.PublicID
		plan.Audit.Detail["replaced"] = string(st.Prior.PublicID)
	}
	return out, plan, nil
}
