package service

import (
	"context"
	"io"
	"time"

	"github.com/remnant/passportkit/issuer"
)

// ModerationState is what a store read for the moderation of one memory.
type ModerationState struct {
	// Memory is the memory, locked until the transaction ends; nil when
	// it does not exist.
	Memory *MemoryRecord
	// Related are the memory's relations to other authors: read, once a
	// moderation changes its status, by [Executor.LoadRelated].
	Related []Relation
}

// ModerationPlan is everything a moderation writes.
type ModerationPlan struct {
	Now       time.Time
	Memory    int64
	Status    issuer.MemoryStatus
	Revisions []RevisionWrite
	Activity  []ActivityWrite
	Audit     *AuditWrite
}

// ModerateMemory changes a memory's visibility on behalf of p (admin
// scope) and returns its previous status; see [Admin.ModerateMemory].
func (s *Service) ModerateMemory(ctx context.Context, p issuer.Principal, mem issuer.MemoryID, m issuer.Moderation) (issuer.MemoryStatus, error) {
	if err := p.Require(issuer.ScopeAdmin); err != nil {
		return "", err
	}
	return moderate(ctx, s.store, s.timestamp, s.rand, string(p.AgentID), mem, m)
}

// moderate moderates mem on behalf of actor in one transaction and returns
// its previous status.
func moderate(ctx context.Context, tx Transactor, now func() time.Time, rand io.Reader, actor string, mem issuer.MemoryID, m issuer.Moderation) (issuer.MemoryStatus, error) {
	var prev issuer.MemoryStatus
	err := tx.InTx(ctx, func(ctx context.Context, ex Executor) error {
		st, err := ex.LoadModeration(ctx, mem)
		if err != nil {
			return err
		}
		var plan *ModerationPlan
		plan, prev, err = planModeration(st, actor, mem, m, now(), rand)
		if err != nil || plan == nil {
			return err
		}
		// The status changes: whose passports that reaches is decided on
		// the memory's relations, read now.
		if st.Related, err = ex.LoadRelated(ctx, RelatedQuery{Memory: mem}); err != nil {
			return err
		}
		if plan, _, err = planModeration(st, actor, mem, m, now(), rand); err != nil {
			return err
		}
		return ex.WriteModeration(ctx, plan)
	})
	return prev, err
}

// planModeration decides a moderation's writes and returns them with the
// memory's previous status; no plan when the status does not change.
// Reputation already earned through the memory stays. The passports of
// its author and of the authors its status reaches ([Relation.Affected])
// become stale; a public memory leaving or re-entering active changes its
// author's published count; the change is audited under actor with the
// reason.
func planModeration(st *ModerationState, actor string, mem issuer.MemoryID, m issuer.Moderation, now time.Time, rand io.Reader) (*ModerationPlan, issuer.MemoryStatus, error) {
	cur := st.Memory
	if cur == nil {
		return nil, "", issuer.Errorf(issuer.CodeNotFound, "memory %s not found", mem)
	}
	if cur.Status == m.Status {
		return nil, cur.Status, nil
	}
	revs, err := newRevisions(rand, staleSubjects(cur.Author, st.Related, false))
	if err != nil {
		return nil, "", err
	}
	plan := &ModerationPlan{Now: now, Memory: cur.Key, Status: m.Status, Revisions: revs,
		Audit: &AuditWrite{Actor: actor, Action: "memory.moderated", Subject: string(mem),
			Detail: map[string]any{"from": cur.Status, "to": m.Status, "reason": m.Reason}}}
	if cur.Visibility == issuer.MemoryPublic && (cur.Status == issuer.MemoryActive || m.Status == issuer.MemoryActive) {
		n := 1
		if cur.Status == issuer.MemoryActive {
			n = -1
		}
		plan.Activity = []ActivityWrite{{Agent: cur.Author, Counter: CountPublished, N: n}}
	}
	return plan, cur.Status, nil
}
