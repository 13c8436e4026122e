package service

import (
	"context"
	"encoding/hex"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/remnant/passportkit/evidence"
	"github.com/remnant/passportkit/issuer"
	"github.com/remnant/passportkit/issuer/issuing"
	"github.com/remnant/passportkit/reputation"
)

// NewRevisionToken returns a fresh subject revision token: 128 random bits
// in hex. Tokens are random, not counters, so that a token from a
// transaction that rolled back is never issued again by a later one.
func NewRevisionToken(rand io.Reader) (string, error) {
	var b [16]byte
	if _, err := io.ReadFull(rand, b[:]); err != nil {
		return "", fmt.Errorf("service: revision token: %w", err)
	}
	return "rev_" + hex.EncodeToString(b[:]), nil
}

// PassportRevision joins a subject's revision token and the issuer's keys
// epoch (a token replaced by every activation, rotation, retirement and
// withdrawal of a signing key) into the revision a passport describes and
// is cached under (SPEC.md §5.9): a change of either makes every passport
// cached under the other unreachable. The store reads both in one
// statement.
func PassportRevision(subject, keys string) string { return subject + "." + keys }

// SubjectToken returns the subject's own revision token within rev, a
// [PassportRevision]: what the discovery index and the skill history,
// which hold no signature, are kept under.
func SubjectToken(rev string) string {
	subject, _, _ := strings.Cut(rev, ".")
	return subject
}

// keysEpoch returns the keys epoch within rev, a [PassportRevision].
func keysEpoch(rev string) string {
	_, keys, _ := strings.Cut(rev, ".")
	return keys
}

// bumpRevisions adds a revision write for every author whose memory the
// plan changes a position or an outcome report on. An exact repeat, which
// writes nothing, bumps nothing.
func (pl *planner) bumpRevisions() error {
	var authors []int64
	for _, p := range pl.plan.Positions {
		if !slices.Contains(authors, p.Author) {
			authors = append(authors, p.Author)
		}
	}
	if o := pl.plan.Outcome; o != nil {
		for _, t := range pl.st.Targets {
			if t.Key == o.Memory && !slices.Contains(authors, t.Author) {
				authors = append(authors, t.Author)
			}
		}
	}
	revs, err := newRevisions(pl.s.rand, authors)
	pl.plan.Revisions = revs
	return err
}

// outcomeType maps the outcomes that are validation positions to their
// type: success is used_successfully, failure used_unsuccessfully.
func outcomeType(o evidence.Outcome) (reputation.Type, bool) {
	switch o {
	case evidence.OutcomeSuccess:
		return reputation.UsedSuccessfully, true
	case evidence.OutcomeFailure:
		return reputation.UsedUnsuccessfully, true
	}
	return "", false
}

// ReportOutcome records p's outcome report on a memory it consumed. A
// success or failure is p's used_successfully or used_unsuccessfully
// position, through the validation write path and every rule of
// [Service.SubmitFeedback] (one position per evaluator and memory; an
// unchanged repeat changes no position). partial and uncertain are
// recorded with no reputation effect, under the same eligibility rules:
// the caller must hold the feedback scope, have retrieved the memory, not
// be its author and share no known operator with its author. The report
// replaces p's earlier report on the memory; the memory's author's
// subject revision is bumped in the same transaction.
func (s *Service) ReportOutcome(ctx context.Context, p issuer.Principal, mem issuer.MemoryID, o issuer.OutcomeReport, via issuer.Transport) (issuer.OutcomeResult, bool, error) {
	return validation(ctx, s, p, ValidationOutcome, via, ValidationQuery{Memory: mem, IdempotencyKey: o.IdempotencyKey},
		func(st *ValidationState) (issuer.OutcomeResult, *ValidationPlan, bool, error) {
			return s.planOutcome(st, p, mem, o, via)
		})
}

// planOutcome decides an outcome report from what was read, as
// planFeedback does.
func (s *Service) planOutcome(st *ValidationState, p issuer.Principal, mem issuer.MemoryID, o issuer.OutcomeReport, via issuer.Transport) (issuer.OutcomeResult, *ValidationPlan, bool, error) {
	typ, positional := outcomeType(o.Outcome)
	f := issuer.Feedback{Type: typ, IdempotencyKey: o.IdempotencyKey}
	return decideValidation(st, f, "outcome:"+o.Fingerprint(mem),
		func(st *ValidationState, res *issuer.OutcomeResult) (*planner, error) {
			m, err := directTarget(st, p, mem, reportingOutcome)
			if err != nil {
				return nil, err
			}
			pl := s.newPlanner(st, p, f, via, 0)
			write := &OutcomeWrite{Memory: m.Key, Outcome: o.Outcome, Context: o.Context}
			*res = issuer.OutcomeResult{OK: true, MemoryID: mem, Outcome: o.Outcome}
			if positional {
				out, err := pl.apply(m)
				if err != nil {
					return nil, err
				}
				ref := out.ref
				write.Position, res.Validation = &ref, &ref
			}
			pl.plan.Outcome = write
			return pl, nil
		})
}

// CapabilitiesPlan replaces an agent's declared capabilities: the names
// removed and those added, declared now; the others keep their
// declaration time.
type CapabilitiesPlan struct {
	Now         time.Time
	Agent       int64
	Remove, Add []string
	Revisions   []RevisionWrite
	Audit       *AuditWrite
}

// DeclareCapabilities replaces p's declared capabilities (publish scope).
// Declarations carry no evidentiary weight; they are listed in p's
// passport as claims.
func (s *Service) DeclareCapabilities(ctx context.Context, p issuer.Principal, caps []string) (issuer.Capabilities, error) {
	if err := p.Require(issuer.ScopePublish); err != nil {
		return issuer.Capabilities{}, err
	}
	caps, err := issuer.NormalizeCapabilities(caps)
	if err != nil {
		return issuer.Capabilities{}, err
	}
	err = s.store.InTx(ctx, func(ctx context.Context, ex Executor) error {
		have, err := ex.LoadCapabilities(ctx, p.Key)
		if err != nil {
			return err
		}
		plan, err := planCapabilities(have, caps, p, s.timestamp(), s.rand)
		if err != nil || plan == nil {
			return err
		}
		return ex.WriteCapabilities(ctx, plan)
	})
	if err != nil {
		return issuer.Capabilities{}, err
	}
	return issuer.Capabilities{Capabilities: caps}, nil
}

// planCapabilities decides the replacement of p's declared capabilities
// have by caps (normalised): nothing when the list is the same set; else
// the names removed and added, p's passport made stale, and an audit of
// the new count.
func planCapabilities(have, caps []string, p issuer.Principal, now time.Time, rand io.Reader) (*CapabilitiesPlan, error) {
	plan := &CapabilitiesPlan{Now: now, Agent: p.Key}
	for _, h := range have {
		if !slices.Contains(caps, h) {
			plan.Remove = append(plan.Remove, h)
		}
	}
	for _, c := range caps {
		if !slices.Contains(have, c) {
			plan.Add = append(plan.Add, c)
		}
	}
	if len(plan.Remove) == 0 && len(plan.Add) == 0 {
		return nil, nil
	}
	var err error
	if plan.Revisions, err = newRevisions(rand, staleSubjects(p.Key, nil, false)); err != nil {
		return nil, err
	}
	plan.Audit = &AuditWrite{Actor: string(p.AgentID), Action: "agent.capabilities_declared", Subject: string(p.AgentID),
		Detail: map[string]any{"capabilities": len(caps)}}
	return plan, nil
}

// LoadSubject reads a public, active subject's records for issuing; see
// [SubjectSource.LoadSubject].
func (s *Service) LoadSubject(ctx context.Context, id issuer.AgentID, now func() time.Time) (*issuing.Subject, error) {
	return s.store.LoadSubject(ctx, id, now)
}

// SubjectRevision returns a subject's current revision token; see
// [SubjectSource.SubjectRevision].
func (s *Service) SubjectRevision(ctx context.Context, id issuer.AgentID) (string, error) {
	return s.store.SubjectRevision(ctx, id)
}
