package service

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/remnant/passportkit/issuer"
)

// SubmitFeedback records p's validation of a memory: a first position, a
// change of type (compensating the previous contribution), a revision of the
// reason alone (no reputation effect), or nothing at all for an exact repeat.
// replayed reports a response recorded earlier under the same idempotency
// key.
//
// The caller must be active, hold the feedback scope, have retrieved the
// memory, not be its author and share no known operator with its author.
// Every refusal happens before anything is written.
func (s *Service) SubmitFeedback(ctx context.Context, p issuer.Principal, mem issuer.MemoryID, f issuer.Feedback, via issuer.Transport) (issuer.FeedbackResult, bool, error) {
	return validation(ctx, s, p, ValidationMemory, via, ValidationQuery{Memory: mem, IdempotencyKey: f.IdempotencyKey, Artifact: f.Evidence.Artifact},
		func(st *ValidationState) (issuer.FeedbackResult, *ValidationPlan, bool, error) {
			return s.planFeedback(st, p, mem, f, via)
		})
}

// planFeedback decides a direct validation from what was read: the
// response, the plan (nil for a replay) and whether it is a replay.
func (s *Service) planFeedback(st *ValidationState, p issuer.Principal, mem issuer.MemoryID, f issuer.Feedback, via issuer.Transport) (issuer.FeedbackResult, *ValidationPlan, bool, error) {
	return decideValidation(st, f, "memory:"+string(mem),
		func(st *ValidationState, res *issuer.FeedbackResult) (*planner, error) {
			m, err := directTarget(st, p, mem, validating)
			if err != nil {
				return nil, err
			}
			if f.Evidence.Artifact != "" && !st.ArtifactReadable {
				return nil, issuer.Errorf(issuer.CodeNotFound, "artifact %s not found", f.Evidence.Artifact)
			}
			if f.StillValid && (m.Current == nil || m.Current.Ref.Type != f.Type) {
				return nil, issuer.Errorf(issuer.CodeConflict, "stillValid renews your standing %s position on this memory, and you have none", f.Type)
			}
			pl := s.newPlanner(st, p, f, via, 0)
			out, err := pl.apply(m)
			if err != nil {
				return nil, err
			}
			// No audit entry: feedback_history records every revision of a
			// position, with its change, transport and time.
			*res = issuer.FeedbackResult{OK: true, Validation: out.ref, Confidence: out.summary}
			if f.StillValid && (m.RenewedAt.IsZero() || pl.now.Sub(m.RenewedAt) >= RenewalInterval) {
				pl.plan.Renewal, res.Renewed = m.Current.Key, true
			}
			return pl, nil
		})
}

// SubmitReceiptFeedback records p's validation of a consultation, applying
// it to each memory the consultation activated through the same position
// rules as [Service.SubmitFeedback]. The receipt must be p's own; a receipt
// that activated any of p's own memories, or a memory of a same-owner
// agent, is refused as a whole.
//
// An unchanged repeat leaves every position as it is, including positions
// p has since set directly, and records only an audit entry. A change of
// reason alone revises the memories whose current position this receipt
// still owns with the same type. A change of type applies to every
// activated memory again.
func (s *Service) SubmitReceiptFeedback(ctx context.Context, p issuer.Principal, rid issuer.ReceiptID, f issuer.Feedback, via issuer.Transport) (issuer.ReceiptFeedbackResult, bool, error) {
	return validation(ctx, s, p, ValidationReceipt, via, ValidationQuery{Receipt: rid, IdempotencyKey: f.IdempotencyKey},
		func(st *ValidationState) (issuer.ReceiptFeedbackResult, *ValidationPlan, bool, error) {
			return s.planReceiptFeedback(st, p, rid, f, via)
		})
}

// planReceiptFeedback decides a consultation's validation from what was
// read, as planFeedback does.
func (s *Service) planReceiptFeedback(st *ValidationState, p issuer.Principal, rid issuer.ReceiptID, f issuer.Feedback, via issuer.Transport) (issuer.ReceiptFeedbackResult, *ValidationPlan, bool, error) {
	return decideValidation(st, f, "receipt:"+string(rid),
		func(st *ValidationState, res *issuer.ReceiptFeedbackResult) (*planner, error) {
			rc := st.Receipt
			if rc == nil || rc.Agent != p.Key {
				return nil, issuer.Errorf(issuer.CodeNotFound, "receipt %s not found", rid)
			}
			for _, m := range st.Targets {
				if m.Author == p.Key {
					return nil, issuer.Errorf(issuer.CodeSelfFeedback, "receipt %s activated your own memory %s; it cannot be validated", rid, m.PublicID)
				}
			}
			if rc.Consumed != len(st.Targets) {
				return nil, issuer.Errorf(issuer.CodeConsumptionRequired, "receipt %s has no consumption record for every memory", rid)
			}
			if rc.SameOwner > 0 {
				return nil, issuer.Errorf(issuer.CodeSameOwner, "receipt %s activated a memory of an agent with the same operator", rid)
			}

			cf := rc.Feedback
			exists := cf != nil
			sameType := exists && cf.Type == f.Type
			unchanged := sameType && cf.Reason == f.Reason && cf.Verdict == f.Verdict

			pl := s.newPlanner(st, p, f, via, rc.Key)
			action := "consultation.validation_recorded"
			write := &ConsultationWrite{Receipt: rc.Key, Type: f.Type, Verdict: f.Verdict, Reason: f.Reason, Revision: 1}
			switch {
			case unchanged:
				action, write = "consultation.validation_repeated", nil
			case sameType:
				action = "consultation.validation_revised"
				write.Key, write.Revision = cf.Key, cf.Revision+1
			case exists:
				write.Key, write.Revision = cf.Key, cf.Revision+1
			}
			revision := cf.revision(write)
			pl.plan.Consultation = write
			if write != nil && write.Key == 0 {
				pl.plan.FeedbackGiven++
			}

			visible := 0
			for i := range st.Targets {
				m := &st.Targets[i]
				if !m.visible() {
					res.Skipped = append(res.Skipped, issuer.SkippedMemory{MemoryID: m.PublicID, Reason: issuer.SkipUnavailable})
					continue
				}
				visible++
				var out outcome
				var err error
				switch cur := m.Current; {
				case !unchanged && !sameType:
					out, err = pl.apply(m)
				case !unchanged && cur != nil && cur.Receipt == rc.Key && cur.Ref.Type == f.Type:
					// A reason edit of a position this receipt still owns with
					// the same type.
					out, err = pl.apply(m)
				case cur != nil:
					out = outcome{ref: cur.Ref, summary: m.Summary}
				}
				if err != nil {
					return nil, err
				}
				if out.ref.ID == "" {
					res.Skipped = append(res.Skipped, issuer.SkippedMemory{MemoryID: m.PublicID, Reason: issuer.SkipNoPosition})
					continue
				}
				res.Validations = append(res.Validations, issuer.ReceiptValidation{MemoryID: m.PublicID, Validation: out.ref, Confidence: out.summary})
			}
			pl.plan.Audit = &AuditWrite{Actor: string(p.AgentID), Action: action, Subject: string(rid), Detail: map[string]any{
				"type": f.Type, "revision": revision, "memories": visible, "transport": via,
			}}
			res.OK = true
			res.Receipt = issuer.ReceiptRef{ID: rid, Type: f.Type, Revision: revision}
			if res.Validations == nil {
				res.Validations = []issuer.ReceiptValidation{}
			}
			return pl, nil
		})
}

// validation runs one submission of p that takes a position on memories
// (a validation or an outcome report) in one transaction: it checks the
// feedback scope, reads what q names for p (with its idempotency key), lets
// decide answer from that state (a replayed response, a refusal, or a
// response with the plan to write) and writes the plan. Every refusal
// happens before anything is written. The outcome is reported to the
// service's observer as a submission of kind over via.
func validation[R any](ctx context.Context, s *Service, p issuer.Principal, kind ValidationKind, via issuer.Transport, q ValidationQuery,
	decide func(st *ValidationState) (R, *ValidationPlan, bool, error)) (res R, replayed bool, err error) {
	defer func() { s.observer.ObserveValidation(kind, via, replayed, err) }()
	if err := p.Require(issuer.ScopeFeedback); err != nil {
		return res, false, err
	}
	q.Evaluator = p.Key
	err = s.store.InTx(ctx, func(ctx context.Context, ex Executor) error {
		st, err := ex.LoadValidation(ctx, q)
		if err != nil {
			return err
		}
		var plan *ValidationPlan
		res, plan, replayed, err = decide(st)
		if err != nil || plan == nil {
			return err
		}
		return ex.WriteValidation(ctx, plan)
	})
	return res, replayed, err
}

// decideValidation decides a submission purely from st: the response
// recorded under f's idempotency key (or a refusal of a key used with
// other input), or else what rules decides, with the affected subjects'
// revisions bumped and the response recorded under the key. It returns the
// response, the plan (nil for a replay) and whether it replayed.
func decideValidation[R any](st *ValidationState, f issuer.Feedback, target string, rules func(st *ValidationState, res *R) (*planner, error)) (res R, plan *ValidationPlan, replayed bool, err error) {
	if done, err := replay(st, f, target, &res); done || err != nil {
		return res, nil, done, err
	}
	pl, err := rules(st, &res)
	if err != nil {
		return res, nil, false, err
	}
	if err := pl.bumpRevisions(); err != nil {
		return res, nil, false, err
	}
	if err := pl.finish(target, res); err != nil {
		return res, nil, false, err
	}
	return res, pl.plan, false, nil
}

// revision is the consultation validation's revision after write (nil for
// an unchanged repeat).
func (cf *ConsultationFeedback) revision(write *ConsultationWrite) int {
	if write == nil {
		return cf.Revision
	}
	return write.Revision
}

// replay handles an idempotency key seen before: the recorded response
// when the input matches, idempotency_conflict when it does not.
func replay(st *ValidationState, f issuer.Feedback, target string, res any) (bool, error) {
	if f.IdempotencyKey == "" || st.Prior == nil {
		return false, nil
	}
	if st.Prior.Fingerprint != f.Fingerprint(target) || st.Prior.Response == nil {
		return false, issuer.Errorf(issuer.CodeIdempotencyConflict, "the idempotency key was used before with different input")
	}
	if err := json.Unmarshal(st.Prior.Response, res); err != nil {
		return false, fmt.Errorf("service: recorded response: %w", err)
	}
	return true, nil
}

// directAct names a direct act on one memory in the refusals of
// [directTarget].
type directAct struct {
	own, retrieve, sameOwner string
}

// The direct acts on a memory.
var (
	validating = directAct{
		own:       "an agent cannot validate its own memory",
		retrieve:  "retrieve memory %s before validating it",
		sameOwner: "agents of the same operator cannot validate one another",
	}
	reportingOutcome = directAct{
		own:       "an agent cannot report an outcome of its own memory",
		retrieve:  "retrieve memory %s before reporting its outcome",
		sameOwner: "agents of the same operator cannot report outcomes of one another's memories",
	}
)

// directTarget returns the one memory of a direct validation or outcome
// report after the rules every direct act obeys, in this order: the memory
// exists and is visible, it is not p's own, p retrieved it, and p shares no
// operator with its author.
func directTarget(st *ValidationState, p issuer.Principal, mem issuer.MemoryID, act directAct) (*Target, error) {
	if len(st.Targets) != 1 || !st.Targets[0].visible() {
		return nil, issuer.Errorf(issuer.CodeNotFound, "memory %s not found", mem)
	}
	m := &st.Targets[0]
	switch {
	case m.Author == p.Key:
		return nil, issuer.Errorf(issuer.CodeSelfFeedback, "%s", act.own)
	case !m.Consumed:
		return nil, issuer.Errorf(issuer.CodeConsumptionRequired, act.retrieve, mem)
	case m.SameOwner:
		return nil, issuer.Errorf(issuer.CodeSameOwner, "%s", act.sameOwner)
	}
	return m, nil
}
