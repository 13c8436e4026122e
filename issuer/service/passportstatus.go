package service

import (
	"context"
	"io"
	"time"

	"github.com/remnant/passportkit/issuer"
)

// PassportStatusState is what a store read for a change of an issued
// passport's status.
type PassportStatusState struct {
	// Entry is the passport's status list entry, locked until the
	// transaction ends; nil when the passport is not kept or has none.
	Entry *StatusEntryRecord
	// Kept reports whether a passport of that hash is kept.
	Kept bool
}

// StatusEntryRecord is an issued passport's status list entry.
type StatusEntryRecord struct {
	// Subject is the key of the agent the passport describes.
	Subject int64
	// List is the key of the entry's list, ListID its name.
	List   int64
	ListID issuer.StatusListID
	Index  int
	Status issuer.PassportStatus
}

// PassportStatusPlan writes an entry's new status and reason, a new
// version of its list, and what else the change writes.
type PassportStatusPlan struct {
	Now       time.Time
	List      int64
	Index     int
	Status    issuer.PassportStatus
	Reason    string
	Revisions []RevisionWrite
	Audit     *AuditWrite
}

// SetPassportStatus revokes, suspends or reinstates the issued passport c
// names, as the operator, in one transaction (SPEC.md §19.4). A passport
// that already has the status changes nothing and is reported so
// (Changed false). An unknown hash, or one purged after its retention, is
// not_found; a passport issued without a status entry is a conflict.
func (a *Admin) SetPassportStatus(ctx context.Context, c issuer.StatusChange) (issuer.StatusOutcome, error) {
	var out issuer.StatusOutcome
	err := a.st.InTx(ctx, func(ctx context.Context, ex Executor) error {
		st, err := ex.LoadPassportStatus(ctx, c.PassportHash)
		if err != nil {
			return err
		}
		var plan *PassportStatusPlan
		plan, out, err = planPassportStatus(st, ActorAdmin, c, a.timestamp(), a.rand)
		if err != nil || plan == nil {
			return err
		}
		return ex.WritePassportStatus(ctx, plan)
	})
	return out, err
}

// statusActions are the audit actions of the changes to each status.
var statusActions = map[issuer.PassportStatus]string{issuer.PassportRevoked: "passport.revoked",
	issuer.PassportSuspended: "passport.suspended", issuer.PassportValid: "passport.reinstated"}

// planPassportStatus decides a status change by actor: none when the
// passport has the status already; a revoked passport stays revoked (a
// conflict); else the entry and its list's version, the subject's
// passport made stale (so that no process serves it from its cache
// again), and the audit event passport.revoked, passport.suspended or
// passport.reinstated with the reason.
func planPassportStatus(st *PassportStatusState, actor string, c issuer.StatusChange, now time.Time, rand io.Reader) (*PassportStatusPlan, issuer.StatusOutcome, error) {
	e := st.Entry
	switch {
	case e == nil && st.Kept:
		return nil, issuer.StatusOutcome{}, issuer.Errorf(issuer.CodeConflict,
			"passport %s was issued without a status list entry: it cannot be revoked, and stands until it expires", c.PassportHash)
	case e == nil:
		return nil, issuer.StatusOutcome{}, issuer.Errorf(issuer.CodeNotFound,
			"no issued passport %s is kept: it is unknown, or expired and purged", c.PassportHash)
	}
	out := issuer.StatusOutcome{List: e.ListID, Index: e.Index, From: e.Status, To: c.To}
	switch {
	case e.Status == c.To:
		return nil, out, nil
	case e.Status == issuer.PassportRevoked:
		return nil, out, issuer.Errorf(issuer.CodeConflict, "passport %s is revoked, and a revoked passport stays revoked", c.PassportHash)
	}
	revs, err := newRevisions(rand, staleSubjects(e.Subject, nil, false))
	if err != nil {
		return nil, out, err
	}
	out.Changed = true
	return &PassportStatusPlan{Now: now, List: e.List, Index: e.Index, Status: c.To, Reason: c.Reason, Revisions: revs,
		Audit: &AuditWrite{Actor: actor, Action: statusActions[c.To], Subject: c.PassportHash,
			Detail: map[string]any{"list": e.ListID, "index": e.Index, "from": e.Status, "to": c.To, "reason": c.Reason}}}, out, nil
}
