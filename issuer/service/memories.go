package service

import (
	"context"
	"slices"
	"time"

	"github.com/remnant/passportkit/issuer"
)

// MemoryRecord is a memory as the rules of access to it need it.
type MemoryRecord struct {
	Key          int64
	Author       int64
	AuthorStatus issuer.AgentStatus
	Status       issuer.MemoryStatus
	Visibility   issuer.MemoryVisibility
	// Kind is the memory's kind, where the read needs it ("" otherwise).
	Kind issuer.MemoryKind
}

// active reports whether the memory and its author are active.
func (m MemoryRecord) active() bool {
	return m.Status == issuer.MemoryActive && m.AuthorStatus == issuer.AgentActive
}

// visible reports whether any agent may retrieve, consult, validate or
// link to the memory: it is public and active, and so is its author.
func (m MemoryRecord) visible() bool { return m.active() && m.Visibility == issuer.MemoryPublic }

// readableBy reports whether agent may read the memory: it is visible, or
// it is agent's own and active.
func (m MemoryRecord) readableBy(agent int64) bool {
	return m.visible() || m.active() && m.Author == agent
}

// RetrievalState is what a store read for a retrieval of one memory.
type RetrievalState struct {
	// Memory is the memory; nil when it does not exist.
	Memory *MemoryRecord
	// Read is the memory as the reader reads it: the author named only
	// when it is public and active or is the reader, the lineage only as
	// far as the reader may read it.
	Read issuer.Memory
}

// RetrievalPlan records a retrieval: the consumption a later validation
// requires.
type RetrievalPlan struct {
	Now      time.Time
	Agent    int64
	Memory   int64
	Activity []ActivityWrite
}

// Retrieve returns a memory in full and records p's retrieval of it
// (search scope): a memory any agent may see, or p's own active private
// memory. Others are not found.
func (s *Service) Retrieve(ctx context.Context, p issuer.Principal, id issuer.MemoryID) (issuer.Memory, error) {
	if err := p.Require(issuer.ScopeSearch); err != nil {
		return issuer.Memory{}, err
	}
	var (
		out issuer.Memory
		rec MemoryRecord
	)
	err := s.store.InTx(ctx, func(ctx context.Context, ex Executor) error {
		st, err := ex.LoadRetrieval(ctx, id, p.Key)
		if err != nil {
			return err
		}
		plan, err := planRetrieval(st, p, id, s.timestamp())
		if err != nil {
			return err
		}
		out, rec = st.Read, *st.Memory
		return ex.WriteRetrieval(ctx, plan)
	})
	if err != nil {
		return out, err
	}
	// The knowledge entry covering it is shown first (SPEC.md §15.11).
	out.CoveredBy, err = s.coverOf(ctx, p, SearchCandidate{Key: rec.Key, ID: out.ID, Author: rec.Author,
		Title: out.Title, Kind: out.Kind, CreatedAt: out.CreatedAt})
	return out, err
}

// planRetrieval decides a retrieval's writes: the retrieval, counted when
// the memory is public (an author reading its own private memory is not).
func planRetrieval(st *RetrievalState, p issuer.Principal, id issuer.MemoryID, now time.Time) (*RetrievalPlan, error) {
	m := st.Memory
	if m == nil || !m.readableBy(p.Key) {
		return nil, issuer.Errorf(issuer.CodeNotFound, "memory %s not found", id)
	}
	plan := &RetrievalPlan{Now: now, Agent: p.Key, Memory: m.Key}
	if m.Visibility == issuer.MemoryPublic {
		plan.Activity = []ActivityWrite{{Agent: p.Key, Counter: CountRetrievals, N: 1}}
	}
	return plan, nil
}

// ConsultationState is what a store read for a consultation.
type ConsultationState struct {
	// Memories holds the named memories that exist, by public ID.
	Memories map[issuer.MemoryID]MemoryRecord
}

// ConsultationPlan records a consultation: its receipt, the memories it
// activated in order (by key), and a retrieval of each under the receipt.
type ConsultationPlan struct {
	Now      time.Time
	Receipt  issuer.ReceiptID
	Agent    int64
	Memories []int64
	Activity []ActivityWrite
}

// Consult records p's consultation of several memories, activated together,
// and returns its receipt (search scope). Each memory must be one any
// agent may see, and named once: a consultation never records one
// activation twice. Its cost is a fixed number of statements whatever the
// number of memories.
func (s *Service) Consult(ctx context.Context, p issuer.Principal, ids []issuer.MemoryID) (issuer.Receipt, error) {
	if err := p.Require(issuer.ScopeSearch); err != nil {
		return issuer.Receipt{}, err
	}
	if len(ids) == 0 || len(ids) > issuer.MaxConsultedMemories {
		return issuer.Receipt{}, issuer.Errorf(issuer.CodeInvalid, "a consultation activates between 1 and %d memories", issuer.MaxConsultedMemories)
	}
	for i, id := range ids {
		if slices.Contains(ids[:i], id) {
			return issuer.Receipt{}, issuer.Errorf(issuer.CodeInvalid, "memoryIds lists %s twice", id)
		}
	}
	rid, err := issuer.NewReceiptID(s.rand)
	if err != nil {
		return issuer.Receipt{}, err
	}
	out := issuer.Receipt{ID: rid, Memories: slices.Clone(ids)}
	err = s.store.InTx(ctx, func(ctx context.Context, ex Executor) error {
		st, err := ex.LoadConsultation(ctx, ids)
		if err != nil {
			return err
		}
		plan, err := planConsultation(st, p, rid, ids, s.timestamp())
		if err != nil {
			return err
		}
		out.CreatedAt = plan.Now
		return ex.WriteConsultation(ctx, plan)
	})
	return out, err
}

// planConsultation decides a consultation's writes: every memory visible
// (the first that is not, in request order, is not found), and the
// consultation counted.
func planConsultation(st *ConsultationState, p issuer.Principal, rid issuer.ReceiptID, ids []issuer.MemoryID, now time.Time) (*ConsultationPlan, error) {
	plan := &ConsultationPlan{Now: now, Receipt: rid, Agent: p.Key,
		Activity: []ActivityWrite{{Agent: p.Key, Counter: CountConsultations, N: 1}}}
	for _, id := range ids {
		m, ok := st.Memories[id]
		if !ok || !m.visible() {
			return nil, issuer.Errorf(issuer.CodeNotFound, "memory %s not found", id)
		}
		plan.Memories = append(plan.Memories, m.Key)
	}
	return plan, nil
}
