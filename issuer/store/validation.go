package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/jmoiron/sqlx"

	"github.com/remnant/passportkit/issuer"
	"github.com/remnant/passportkit/reputation"
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
func (db *DB) SubmitFeedback(ctx context.Context, p issuer.Principal, mem issuer.MemoryID, f issuer.Feedback, via issuer.Transport) (res issuer.FeedbackResult, replayed bool, err error) {
	if err := p.Require(issuer.ScopeFeedback); err != nil {
		return res, false, err
	}
	err = db.inTx(ctx, func(tx *sqlx.Tx) error {
		res, replayed = issuer.FeedbackResult{}, false
		now := db.timestamp()
		claim, recorded, err := db.claimKey(ctx, tx, p, f, "memory:"+string(mem), now)
		if err != nil {
			return err
		}
		if recorded != nil {
			replayed = true
			return json.Unmarshal(recorded, &res)
		}
		var m struct {
			memoryRow
			Consumed  bool `db:"consumed"`
			SameOwner bool `db:"same_owner"`
		}
		err = get(ctx, tx, &m, memoryEligibilitySelect+` WHERE m.public_id = ?`, p.Key, p.Key, mem)
		if err != nil || !m.visible() {
			return notFound(orNoRows(err), "memory %s not found", mem)
		}
		if m.AuthorKey == p.Key {
			return issuer.Errorf(issuer.CodeSelfFeedback, "an agent cannot validate its own memory")
		}
		if !m.Consumed {
			return issuer.Errorf(issuer.CodeConsumptionRequired, "retrieve memory %s before validating it", mem)
		}
		if m.SameOwner {
			return issuer.Errorf(issuer.CodeSameOwner, "agents of the same operator cannot validate one another")
		}
		globals, err := db.lockAuthors(ctx, tx, []int64{m.AuthorKey})
		if err != nil {
			return err
		}
		out, err := db.applyPosition(ctx, tx, positionInput{memory: &m.memoryRow, evaluator: p, feedback: f, via: via, now: now, globals: globals})
		if err != nil {
			return err
		}
		if out.change != "" {
			action := "validation.recorded"
			if out.change == changeDetail {
				action = "validation.revised"
			}
			if err := audit(ctx, tx, now, string(p.AgentID), action, string(out.ref.ID), map[string]any{
				"memory": mem, "type": out.ref.Type, "revision": out.ref.Revision, "transport": via,
			}); err != nil {
				return err
			}
		}
		res = issuer.FeedbackResult{OK: true, Validation: out.ref, Confidence: out.summary}
		return db.recordResponse(ctx, tx, claim, res)
	})
	return res, replayed, err
}

// SubmitReceiptFeedback records p's validation of a consultation, applying
// it to each memory the consultation activated through the same position
// rules as [DB.SubmitFeedback]. The receipt must be p's own; a receipt that
// activated any of p's own memories, or a memory of a same-owner agent, is
// refused as a whole.
//
// An unchanged repeat leaves every position as it is, including positions
// p has since set directly, and records only an audit entry. A change of
// reason alone revises the memories whose current position this receipt
// still owns with the same type. A change of type applies to every
// activated memory again.
func (db *DB) SubmitReceiptFeedback(ctx context.Context, p issuer.Principal, rid issuer.ReceiptID, f issuer.Feedback, via issuer.Transport) (res issuer.ReceiptFeedbackResult, replayed bool, err error) {
	if err := p.Require(issuer.ScopeFeedback); err != nil {
		return res, false, err
	}
	err = db.inTx(ctx, func(tx *sqlx.Tx) error {
		res, replayed = issuer.ReceiptFeedbackResult{}, false
		now := db.timestamp()
		claim, recorded, err := db.claimKey(ctx, tx, p, f, "receipt:"+string(rid), now)
		if err != nil {
			return err
		}
		if recorded != nil {
			replayed = true
			return json.Unmarshal(recorded, &res)
		}
		var receipt struct {
			Key   int64 `db:"id"`
			Agent int64 `db:"agent_id"`
		}
		// Locking the receipt serialises validations of one consultation.
		if err := get(ctx, tx, &receipt, `SELECT id, agent_id FROM receipts WHERE public_id = ?`+db.forUpdate(), rid); err != nil || receipt.Agent != p.Key {
			if err != nil && !errors.Is(err, sql.ErrNoRows) {
				return fmt.Errorf("store: read receipt: %w", err)
			}
			return issuer.Errorf(issuer.CodeNotFound, "receipt %s not found", rid)
		}
		var mems []*memoryRow
		if err := sel(ctx, tx, &mems, targetSelect+` JOIN receipt_memories rm ON rm.memory_id = m.id
			WHERE rm.receipt_id = ? ORDER BY rm.position`, receipt.Key); err != nil {
			return fmt.Errorf("store: read receipt memories: %w", err)
		}
		for _, m := range mems {
			if m.AuthorKey == p.Key {
				return issuer.Errorf(issuer.CodeSelfFeedback, "receipt %s activated your own memory %s; it cannot be validated", rid, m.PublicID)
			}
		}
		var check struct {
			Consumed  int `db:"consumed"`
			SameOwner int `db:"same_owner"`
		}
		if err := get(ctx, tx, &check, `SELECT
			(SELECT COUNT(DISTINCT memory_id) FROM retrievals WHERE agent_id = ? AND receipt_id = ?) AS consumed,
			(SELECT COUNT(*) FROM receipt_memories rm JOIN memories m ON m.id = rm.memory_id
				JOIN agent_owner_bindings a ON a.agent_id = m.author_id
				JOIN agent_owner_bindings e ON e.operator_id = a.operator_id AND e.agent_id = ?
				WHERE rm.receipt_id = ?) AS same_owner`,
			p.Key, receipt.Key, p.Key, receipt.Key); err != nil {
			return fmt.Errorf("store: eligibility: %w", err)
		}
		if check.Consumed != len(mems) {
			return issuer.Errorf(issuer.CodeConsumptionRequired, "receipt %s has no consumption record for every memory", rid)
		}
		if check.SameOwner > 0 {
			return issuer.Errorf(issuer.CodeSameOwner, "receipt %s activated a memory of an agent with the same operator", rid)
		}

		var cf struct {
			Key      int64          `db:"id"`
			Type     string         `db:"type"`
			Verdict  sql.NullString `db:"legacy_verdict"`
			Reason   string         `db:"reason"`
			Revision int            `db:"revision"`
		}
		err = get(ctx, tx, &cf, `SELECT id, type, legacy_verdict, reason, revision FROM consultation_feedback WHERE receipt_id = ?`, receipt.Key)
		exists := err == nil
		if err != nil && !errors.Is(err, sql.ErrNoRows) {
			return fmt.Errorf("store: read consultation feedback: %w", err)
		}
		sameType := exists && cf.Type == string(f.Type)
		unchanged := sameType && cf.Reason == f.Reason && cf.Verdict.String == string(f.Verdict)

		var visible []*memoryRow
		var authors []int64
		for _, m := range mems {
			if !m.visible() {
				res.Skipped = append(res.Skipped, issuer.SkippedMemory{MemoryID: issuer.MemoryID(m.PublicID), Reason: issuer.SkipUnavailable})
				continue
			}
			visible = append(visible, m)
			if !slices.Contains(authors, m.AuthorKey) {
				authors = append(authors, m.AuthorKey)
			}
		}
		globals, err := db.lockAuthors(ctx, tx, authors)
		if err != nil {
			return err
		}

		action := "consultation.validation_recorded"
		revision := 1
		switch {
		case unchanged:
			action, revision = "consultation.validation_repeated", cf.Revision
		case sameType:
			action, revision = "consultation.validation_revised", cf.Revision+1
			_, err = exec(ctx, tx, `UPDATE consultation_feedback SET legacy_verdict = ?, reason = ?, revision = ?, updated_at = ? WHERE id = ?`,
				nullString(string(f.Verdict)), f.Reason, revision, now, cf.Key)
		case exists:
			revision = cf.Revision + 1
			_, err = exec(ctx, tx, `UPDATE consultation_feedback SET type = ?, legacy_verdict = ?, reason = ?, revision = ?, updated_at = ? WHERE id = ?`,
				f.Type, nullString(string(f.Verdict)), f.Reason, revision, now, cf.Key)
		default:
			_, err = exec(ctx, tx, `INSERT INTO consultation_feedback (receipt_id, agent_id, type, legacy_verdict, reason, revision, created_at, updated_at)
				VALUES (?, ?, ?, ?, ?, 1, ?, ?)`, receipt.Key, p.Key, f.Type, nullString(string(f.Verdict)), f.Reason, now, now)
			if err == nil {
				err = countFeedback(ctx, tx, p.Key)
			}
		}
		if err != nil {
			return fmt.Errorf("store: write consultation feedback: %w", err)
		}

		for _, m := range visible {
			in := positionInput{memory: m, evaluator: p, feedback: f, receipt: receipt.Key, via: via, now: now, globals: globals}
			var out positionOutcome
			if unchanged || sameType {
				// Leave positions alone, except a reason edit of a position
				// this receipt still owns with the same type.
				out, err = db.currentPosition(ctx, tx, in, sameType && !unchanged)
			} else {
				out, err = db.applyPosition(ctx, tx, in)
			}
			if err != nil {
				return err
			}
			if out.ref.ID == "" {
				res.Skipped = append(res.Skipped, issuer.SkippedMemory{MemoryID: issuer.MemoryID(m.PublicID), Reason: issuer.SkipNoPosition})
				continue
			}
			res.Validations = append(res.Validations, issuer.ReceiptValidation{MemoryID: issuer.MemoryID(m.PublicID), Validation: out.ref, Confidence: out.summary})
		}
		if err := audit(ctx, tx, now, string(p.AgentID), action, string(rid), map[string]any{
			"type": f.Type, "revision": revision, "memories": len(visible), "transport": via,
		}); err != nil {
			return err
		}
		res.OK = true
		res.Receipt = issuer.ReceiptRef{ID: rid, Type: f.Type, Revision: revision}
		if res.Validations == nil {
			res.Validations = []issuer.ReceiptValidation{}
		}
		return db.recordResponse(ctx, tx, claim, res)
	})
	return res, replayed, err
}

// claimKey handles an idempotency key. With no key it does nothing. A key
// recorded before returns its response when the input matches and
// idempotency_conflict when it does not. A new key is claimed in tx, so that
// concurrent requests with the same key wait for the first to finish and
// then replay its response; the claim's ID is returned for recordResponse.
func (db *DB) claimKey(ctx context.Context, tx *sqlx.Tx, p issuer.Principal, f issuer.Feedback, target string, now time.Time) (claim int64, recorded []byte, err error) {
	if f.IdempotencyKey == "" {
		return 0, nil, nil
	}
	fp := f.Fingerprint(target)
	for range 2 {
		var prior struct {
			Fingerprint string         `db:"fingerprint"`
			Response    sql.NullString `db:"response"`
		}
		err := get(ctx, tx, &prior, `SELECT fingerprint, response FROM validation_requests WHERE agent_id = ? AND idempotency_key = ?`, p.Key, f.IdempotencyKey)
		switch {
		case err == nil:
			if prior.Fingerprint != fp || !prior.Response.Valid {
				return 0, nil, issuer.Errorf(issuer.CodeIdempotencyConflict, "the idempotency key was used before with different input")
			}
			return 0, []byte(prior.Response.String), nil
		case !errors.Is(err, sql.ErrNoRows):
			return 0, nil, fmt.Errorf("store: read idempotency key: %w", err)
		}
		var ids []int64
		if err := sel(ctx, tx, &ids, `INSERT INTO validation_requests (agent_id, idempotency_key, fingerprint, created_at)
			VALUES (?, ?, ?, ?) ON CONFLICT (agent_id, idempotency_key) DO NOTHING RETURNING id`,
			p.Key, f.IdempotencyKey, fp, now); err != nil {
			return 0, nil, fmt.Errorf("store: claim idempotency key: %w", err)
		}
		if len(ids) == 1 {
			return ids[0], nil, nil
		}
		// Another request claimed the key and has committed since: read it.
	}
	return 0, nil, fmt.Errorf("store: idempotency key claimed but not readable")
}

// recordResponse stores the response of a claimed idempotency key.
func (db *DB) recordResponse(ctx context.Context, tx *sqlx.Tx, claim int64, res any) error {
	if claim == 0 {
		return nil
	}
	b, err := json.Marshal(res)
	if err != nil {
		return fmt.Errorf("store: encode response: %w", err)
	}
	if _, err := exec(ctx, tx, `UPDATE validation_requests SET response = ? WHERE id = ?`, string(b), claim); err != nil {
		return fmt.Errorf("store: record response: %w", err)
	}
	return nil
}

// lockAuthors locks the global aggregate rows of the given authors and
// returns them, for the transaction to update. Rows are locked in key order
// so that transactions touching several authors cannot deadlock. SQLite has
// no row locks: its transaction holds the write lock from BEGIN.
func (db *DB) lockAuthors(ctx context.Context, tx *sqlx.Tx, authors []int64) (map[int64]*aggregateRow, error) {
	out := make(map[int64]*aggregateRow, len(authors))
	for _, a := range slices.Sorted(slices.Values(authors)) {
		var g aggregateRow
		if err := get(ctx, tx, &g, `SELECT raw, sample_size, positive_events, negative_events
			FROM agent_reputation_aggregates WHERE agent_id = ?`+db.forUpdate(), a); err != nil {
			return nil, fmt.Errorf("store: lock author aggregate: %w", err)
		}
		out[a] = &g
	}
	return out, nil
}

func nullString(s string) sql.NullString { return sql.NullString{String: s, Valid: s != ""} }

// The kinds of change a submission makes to a position.
const (
	changeNone     = ""
	changeDetail   = "detail"   // reason, legacy verdict or owning consultation; no reputation effect
	changePosition = "position" // a first position or a change of type
)

// positionInput is one evaluator's validation of one memory.
type positionInput struct {
	memory    *memoryRow
	evaluator issuer.Principal
	feedback  issuer.Feedback
	receipt   int64 // the owning consultation's receipt, or 0 for direct feedback
	via       issuer.Transport
	now       time.Time
	// globals holds the locked global aggregates of the authors involved,
	// kept current as positions change.
	globals map[int64]*aggregateRow
}

// positionOutcome is the resulting position and the memory's summary.
type positionOutcome struct {
	ref     issuer.ValidationRef
	summary reputation.Summary
	change  string
}

// currentRow is the evaluator's current position on a memory, read with the
// memory's summary after the author lock is held.
type currentRow struct {
	Summary        string         `db:"validation_summary_json"`
	BaseConfidence int64          `db:"validation_base_confidence"`
	Key            sql.NullInt64  `db:"id"`
	PublicID       sql.NullString `db:"public_id"`
	Type           sql.NullString `db:"type"`
	Verdict        sql.NullString `db:"legacy_verdict"`
	Reason         sql.NullString `db:"reason"`
	Revision       sql.NullInt64  `db:"revision"`
	Receipt        sql.NullInt64  `db:"receipt_id"`
	Direct         sql.NullBool   `db:"direct"`
	BaseWeight     sql.NullInt64  `db:"base_weight"`
	PositiveFactor sql.NullInt64  `db:"positive_factor"`
	NegativeFactor sql.NullInt64  `db:"negative_factor"`
	Weight         sql.NullInt64  `db:"weight"`
	Contribution   sql.NullInt64  `db:"contribution"`
	// The author's aggregate in the memory's domain, if any yet.
	DomainRaw      sql.NullInt64 `db:"domain_raw"`
	DomainSample   sql.NullInt64 `db:"domain_sample_size"`
	DomainPositive sql.NullInt64 `db:"domain_positive_events"`
	DomainNegative sql.NullInt64 `db:"domain_negative_events"`
}

func (c *currentRow) domain() aggregateRow {
	return aggregateRow{Raw: c.DomainRaw.Int64, SampleSize: int(c.DomainSample.Int64),
		PositiveEvents: int(c.DomainPositive.Int64), NegativeEvents: int(c.DomainNegative.Int64)}
}

func (c *currentRow) exists() bool { return c.Key.Valid }

func (c *currentRow) position() *reputation.Position {
	if !c.exists() {
		return nil
	}
	return &reputation.Position{
		Type:            reputation.Type(c.Type.String),
		BaseWeight:      reputation.Milli(c.BaseWeight.Int64),
		PositiveRanked:  c.PositiveFactor.Valid,
		PositiveFactor:  reputation.Milli(c.PositiveFactor.Int64),
		NegativeRanked:  c.NegativeFactor.Valid,
		NegativeFactor:  reputation.Milli(c.NegativeFactor.Int64),
		EffectiveWeight: reputation.Milli(c.Weight.Int64),
		Contribution:    reputation.Milli(c.Contribution.Int64),
	}
}

func (c *currentRow) ref() issuer.ValidationRef {
	return issuer.ValidationRef{ID: issuer.ValidationID(c.PublicID.String), Type: reputation.Type(c.Type.String), Revision: int(c.Revision.Int64)}
}

func (db *DB) readCurrent(ctx context.Context, tx *sqlx.Tx, memory, evaluator int64) (*currentRow, error) {
	var c currentRow
	err := get(ctx, tx, &c, `SELECT m.validation_summary_json, m.validation_base_confidence,
		f.id, f.public_id, f.type, f.legacy_verdict, f.reason, f.revision, f.receipt_id, f.direct,
		rp.base_weight, rp.positive_factor, rp.negative_factor, rp.weight, rp.contribution,
		d.raw AS domain_raw, d.sample_size AS domain_sample_size,
		d.positive_events AS domain_positive_events, d.negative_events AS domain_negative_events
		FROM memories m
		LEFT JOIN feedback f ON f.memory_id = m.id AND f.evaluator_id = ?
		LEFT JOIN reputation_positions rp ON rp.feedback_id = f.id
		LEFT JOIN agent_domain_reputation d ON d.agent_id = m.author_id AND d.domain = m.domain
		WHERE m.id = ?`, evaluator, memory)
	if err != nil {
		return nil, fmt.Errorf("store: read position: %w", err)
	}
	return &c, nil
}

// currentPosition reports the evaluator's current position for a repeated
// or reason-only consultation validation. With revise set, a position the
// consultation still owns with the same type takes the new reason.
func (db *DB) currentPosition(ctx context.Context, tx *sqlx.Tx, in positionInput, revise bool) (positionOutcome, error) {
	cur, err := db.readCurrent(ctx, tx, in.memory.Key, in.evaluator.Key)
	if err != nil {
		return positionOutcome{}, err
	}
	if revise && cur.exists() && cur.Receipt.Int64 == in.receipt && cur.Type.String == string(in.feedback.Type) {
		return db.applyPosition(ctx, tx, in)
	}
	sum, err := decodeSummary(cur.Summary)
	if err != nil || !cur.exists() {
		return positionOutcome{summary: sum}, err
	}
	return positionOutcome{ref: cur.ref(), summary: sum}, nil
}

// applyPosition records one evaluator's validation of one memory. The caller
// has checked eligibility and holds the author's lock.
func (db *DB) applyPosition(ctx context.Context, tx *sqlx.Tx, in positionInput) (positionOutcome, error) {
	m, f, now := in.memory, in.feedback, in.now
	cur, err := db.readCurrent(ctx, tx, m.Key, in.evaluator.Key)
	if err != nil {
		return positionOutcome{}, err
	}
	sum, err := decodeSummary(cur.Summary)
	if err != nil {
		return positionOutcome{}, err
	}
	direct := in.receipt == 0
	receipt := sql.NullInt64{Int64: in.receipt, Valid: !direct}
	if direct && !cur.Direct.Bool {
		// Every path below writes direct = true.
		if err := countFeedback(ctx, tx, in.evaluator.Key); err != nil {
			return positionOutcome{}, err
		}
	}

	if cur.exists() && cur.Type.String == string(f.Type) {
		sameSource := cur.Receipt == receipt
		if sameSource && cur.Reason.String == f.Reason && cur.Verdict.String == string(f.Verdict) {
			return positionOutcome{ref: cur.ref(), summary: sum}, nil
		}
		// Same type: a new revision of the details, without any
		// reputation effect, sample or evidence timestamp.
		ref := cur.ref()
		ref.Revision++
		if _, err := exec(ctx, tx, `UPDATE feedback SET legacy_verdict = ?, reason = ?, revision = ?, receipt_id = ?,
			direct = (direct OR ?), updated_at = ? WHERE id = ?`,
			nullString(string(f.Verdict)), f.Reason, ref.Revision, receipt, direct, now, cur.Key.Int64); err != nil {
			return positionOutcome{}, fmt.Errorf("store: revise feedback: %w", err)
		}
		if err := db.insertHistory(ctx, tx, cur.Key.Int64, ref.Revision, changeDetail, f, reputation.Milli(cur.Weight.Int64), receipt, in.via, now); err != nil {
			return positionOutcome{}, err
		}
		return positionOutcome{ref: ref, summary: sum, change: changeDetail}, nil
	}

	// A first position or a change of type.
	prev := cur.position()
	budgets, err := db.drawBudget(ctx, tx, m.AuthorKey, in.evaluator.Key, prev, f.Type)
	if err != nil {
		return positionOutcome{}, err
	}
	var ch reputation.Change
	if prev == nil {
		weight, err := db.evaluatorWeight(ctx, tx, in.evaluator.Key, m.Domain)
		if err != nil {
			return positionOutcome{}, err
		}
		ch = reputation.First(f.Type, weight, budgets)
	} else {
		ch = prev.Replace(f.Type, budgets)
	}
	next := ch.Next

	var ref issuer.ValidationRef
	var fbKey int64
	if prev == nil {
		vid, err := issuer.NewValidationID(db.rand)
		if err != nil {
			return positionOutcome{}, err
		}
		ref = issuer.ValidationRef{ID: vid, Type: f.Type, Revision: 1}
		fbKey, err = insertID(ctx, tx, `INSERT INTO feedback (public_id, memory_id, evaluator_id, type, legacy_verdict, reason,
			revision, eligible, weight, receipt_id, direct, created_at, updated_at)
			VALUES (?, ?, ?, ?, ?, ?, 1, ?, ?, ?, ?, ?, ?)`,
			vid, m.Key, in.evaluator.Key, f.Type, nullString(string(f.Verdict)), f.Reason, true, int64(next.EffectiveWeight),
			receipt, direct, now, now)
		if err != nil {
			return positionOutcome{}, fmt.Errorf("store: insert feedback: %w", err)
		}
		if _, err := exec(ctx, tx, `INSERT INTO reputation_positions (feedback_id, memory_id, evaluator_id, author_id, domain, type,
			base_weight, positive_factor, negative_factor, weight, contribution, policy, updated_at)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
			fbKey, m.Key, in.evaluator.Key, m.AuthorKey, m.Domain, f.Type, int64(next.BaseWeight),
			savedFactor(next.PositiveRanked, next.PositiveFactor), savedFactor(next.NegativeRanked, next.NegativeFactor),
			int64(next.EffectiveWeight), int64(next.Contribution), reputation.Policy, now); err != nil {
			return positionOutcome{}, fmt.Errorf("store: insert reputation position: %w", err)
		}
	} else {
		fbKey = cur.Key.Int64
		ref = cur.ref()
		ref.Type = f.Type
		ref.Revision++
		if _, err := exec(ctx, tx, `UPDATE feedback SET type = ?, legacy_verdict = ?, reason = ?, revision = ?, weight = ?,
			receipt_id = ?, direct = (direct OR ?), updated_at = ? WHERE id = ?`,
			f.Type, nullString(string(f.Verdict)), f.Reason, ref.Revision, int64(next.EffectiveWeight), receipt, direct, now, fbKey); err != nil {
			return positionOutcome{}, fmt.Errorf("store: update feedback: %w", err)
		}
		if _, err := exec(ctx, tx, `UPDATE reputation_positions SET type = ?, positive_factor = ?, negative_factor = ?, weight = ?,
			contribution = ?, policy = ?, updated_at = ? WHERE feedback_id = ?`,
			f.Type, savedFactor(next.PositiveRanked, next.PositiveFactor), savedFactor(next.NegativeRanked, next.NegativeFactor),
			int64(next.EffectiveWeight), int64(next.Contribution), reputation.Policy, now, fbKey); err != nil {
			return positionOutcome{}, fmt.Errorf("store: update reputation position: %w", err)
		}
	}
	if err := db.insertHistory(ctx, tx, fbKey, ref.Revision, changePosition, f, next.EffectiveWeight, receipt, in.via, now); err != nil {
		return positionOutcome{}, err
	}
	if err := db.appendEvents(ctx, tx, m, in.evaluator.Key, fbKey, prev, ch, now); err != nil {
		return positionOutcome{}, err
	}
	if err := db.moveAggregates(ctx, tx, m.AuthorKey, m.Domain, in.evaluator.Key, cur.domain(), in.globals[m.AuthorKey], prev, &next, now); err != nil {
		return positionOutcome{}, err
	}

	// The memory's knowledge summary follows the same change.
	if prev != nil {
		sum.Remove(vote(prev))
	}
	sum.Add(vote(&next))
	evidence := next.Weighted() || prev != nil && prev.Weighted()
	if _, err := exec(ctx, tx, `UPDATE memories SET validation_summary_json = ?, confidence_state = ?, confidence = ?,
		evidence_at = CASE WHEN ? THEN ? ELSE evidence_at END WHERE id = ?`,
		encodeSummary(sum), sum.State, int64(sum.Confidence(reputation.Milli(cur.BaseConfidence))), evidence, now, m.Key); err != nil {
		return positionOutcome{}, fmt.Errorf("store: update memory summary: %w", err)
	}
	return positionOutcome{ref: ref, summary: sum, change: changePosition}, nil
}

// vote is a position as the knowledge summary counts it.
func vote(p *reputation.Position) reputation.Vote {
	return reputation.Vote{Type: p.Type, EffectiveWeight: p.EffectiveWeight, Credible: p.BaseWeight >= reputation.CredibleWeight}
}

func savedFactor(ranked bool, f reputation.Milli) sql.NullInt64 {
	return sql.NullInt64{Int64: int64(f), Valid: ranked}
}

// evaluatorWeight reads the evaluator's reputation in the memory's domain
// and returns its base weight there.
func (db *DB) evaluatorWeight(ctx context.Context, tx *sqlx.Tx, evaluator int64, domain string) (reputation.Milli, error) {
	var row struct {
		Score      int64 `db:"score"`
		Confidence int64 `db:"confidence"`
	}
	err := get(ctx, tx, &row, `SELECT score, confidence FROM agent_domain_reputation WHERE agent_id = ? AND domain = ?`, evaluator, domain)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return 0, fmt.Errorf("store: evaluator credibility: %w", err)
	}
	return reputation.EvaluatorWeight(reputation.Milli(row.Score), reputation.Milli(row.Confidence)), nil
}

// drawBudget takes the next rank in the budget the new type's polarity
// draws on, when the position holds no rank there yet, and returns the
// budget sizes before the draw. Positive budgets belong to the unordered
// pair; negative budgets to the (author, evaluator) direction.
func (db *DB) drawBudget(ctx context.Context, tx *sqlx.Tx, author, evaluator int64, prev *reputation.Position, t reputation.Type) (reputation.Budgets, error) {
	var b reputation.Budgets
	var n int
	var err error
	switch {
	case t.Polarity() == reputation.Positive && (prev == nil || !prev.PositiveRanked):
		lo, hi := min(author, evaluator), max(author, evaluator)
		err = get(ctx, tx, &n, `INSERT INTO reputation_pair_counters (agent_low, agent_high, positions) VALUES (?, ?, 1)
			ON CONFLICT (agent_low, agent_high) DO UPDATE SET positions = reputation_pair_counters.positions + 1
			RETURNING positions`, lo, hi)
		b.Positive = n - 1
	case t.Polarity() == reputation.Negative && (prev == nil || !prev.NegativeRanked):
		err = get(ctx, tx, &n, `INSERT INTO reputation_negative_pair_counters (author_id, evaluator_id, positions) VALUES (?, ?, 1)
			ON CONFLICT (author_id, evaluator_id) DO UPDATE SET positions = reputation_negative_pair_counters.positions + 1
			RETURNING positions`, author, evaluator)
		b.Negative = n - 1
	}
	if err != nil {
		return b, fmt.Errorf("store: draw influence budget: %w", err)
	}
	return b, nil
}

// insertHistory appends one revision to the validation history.
func (db *DB) insertHistory(ctx context.Context, tx *sqlx.Tx, feedback int64, revision int, change string, f issuer.Feedback,
	weight reputation.Milli, receipt sql.NullInt64, via issuer.Transport, now time.Time) error {
	_, err := exec(ctx, tx, `INSERT INTO feedback_history (feedback_id, revision, change, type, legacy_verdict, reason,
		eligible, weight, receipt_id, transport, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		feedback, revision, change, f.Type, nullString(string(f.Verdict)), f.Reason, true, int64(weight), receipt, via, now)
	if err != nil {
		return fmt.Errorf("store: append history: %w", err)
	}
	return nil
}

// appendEvents appends the journal entries of a position change: a
// compensation for a previous nonzero contribution, then the apply entry.
func (db *DB) appendEvents(ctx context.Context, tx *sqlx.Tx, m *memoryRow, evaluator, feedback int64, prev *reputation.Position, ch reputation.Change, now time.Time) error {
	const cols = `INSERT INTO reputation_events (author_id, evaluator_id, memory_id, feedback_id, domain, phase, type,
		points, base_weight, pair_factor, weight, delta, policy, created_at) VALUES `
	const row = `(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`
	entry := func(phase reputation.Phase, p *reputation.Position, delta reputation.Milli) []any {
		return []any{m.AuthorKey, evaluator, m.Key, feedback, m.Domain, phase, p.Type, int64(p.Type.Points()),
			int64(p.BaseWeight), int64(factorOf(p)), int64(p.EffectiveWeight), int64(delta), reputation.Policy, now}
	}
	next := ch.Next
	query, args := cols+row, entry(reputation.PhaseApply, &next, ch.Apply)
	if ch.Compensation != 0 {
		query = cols + row + ", " + row
		args = append(entry(reputation.PhaseCompensation, prev, ch.Compensation), args...)
	}
	if _, err := exec(ctx, tx, query, args...); err != nil {
		return fmt.Errorf("store: append reputation events: %w", err)
	}
	return nil
}

// factorOf returns the pair factor p's current type uses.
func factorOf(p *reputation.Position) reputation.Milli {
	if p.Type.Polarity() == reputation.Positive {
		return p.PositiveFactor
	}
	return p.NegativeFactor
}

// aggregateRow is an author's aggregate, in one domain or overall.
type aggregateRow struct {
	Raw            int64 `db:"raw"`
	SampleSize     int   `db:"sample_size"`
	PositiveEvents int   `db:"positive_events"`
	NegativeEvents int   `db:"negative_events"`
}

func (r aggregateRow) aggregate() reputation.Aggregate {
	return reputation.Aggregate{Raw: reputation.Milli(r.Raw), Evaluators: r.SampleSize, Positive: r.PositiveEvents, Negative: r.NegativeEvents}
}

// moveAggregates applies one position change to the author's domain
// aggregate d and global aggregate g (locked, and updated in place) and to
// the evaluator's distinct-sample counters. It writes only those rows.
func (db *DB) moveAggregates(ctx context.Context, tx *sqlx.Tx, author int64, domain string, evaluator int64,
	d aggregateRow, g *aggregateRow, prev, next *reputation.Position, now time.Time) error {
	held, err := db.countEvaluator(ctx, tx, `agent_domain_evaluator_counts`, `agent_id = ? AND domain = ? AND evaluator_id = ?`,
		[]any{author, domain, evaluator}, prev, next)
	if err != nil {
		return err
	}
	da, _ := d.aggregate().Move(prev, next, held)
	if _, err := exec(ctx, tx, `INSERT INTO agent_domain_reputation (agent_id, domain, raw, score, confidence, sample_size,
		positive_events, negative_events, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT (agent_id, domain) DO UPDATE SET raw = excluded.raw, score = excluded.score, confidence = excluded.confidence,
		sample_size = excluded.sample_size, positive_events = excluded.positive_events, negative_events = excluded.negative_events,
		updated_at = excluded.updated_at`,
		author, domain, int64(da.Raw), int64(da.Score()), int64(da.Confidence()), da.Evaluators, da.Positive, da.Negative, now, now); err != nil {
		return fmt.Errorf("store: write domain aggregate: %w", err)
	}

	held, err = db.countEvaluator(ctx, tx, `agent_global_evaluator_counts`, `agent_id = ? AND evaluator_id = ?`,
		[]any{author, evaluator}, prev, next)
	if err != nil {
		return err
	}
	ga, _ := g.aggregate().Move(prev, next, held)
	if err := writeGlobal(ctx, tx, author, ga, now); err != nil {
		return err
	}
	*g = aggregateRow{Raw: int64(ga.Raw), SampleSize: ga.Evaluators, PositiveEvents: ga.Positive, NegativeEvents: ga.Negative}
	return nil
}

func writeGlobal(ctx context.Context, tx sqlx.ExtContext, author int64, ga reputation.Aggregate, now time.Time) error {
	if _, err := exec(ctx, tx, `UPDATE agent_reputation_aggregates SET raw = ?, score = ?, confidence = ?, sample_size = ?,
		positive_events = ?, negative_events = ?, trust_level = ?, updated_at = ? WHERE agent_id = ?`,
		int64(ga.Raw), int64(ga.Score()), int64(ga.Confidence()), ga.Evaluators, ga.Positive, ga.Negative, ga.Trust(), now, author); err != nil {
		return fmt.Errorf("store: write global aggregate: %w", err)
	}
	return nil
}

// countEvaluator updates an evaluator's count of weighted current positions
// in table (rows identified by where and args, whose last column is
// evaluator_id) and returns the count before the change, as
// [reputation.Aggregate.Move] needs it. Rows exist only for positive counts.
func (db *DB) countEvaluator(ctx context.Context, tx *sqlx.Tx, table, where string, args []any, prev, next *reputation.Position) (int, error) {
	delta := 0
	if prev != nil && prev.Weighted() {
		delta--
	}
	if next != nil && next.Weighted() {
		delta++
	}
	switch delta {
	case 0:
		// Either no weighted position is involved, or one replaces another:
		// the evaluator stays in the sample whatever its count.
		return 1, nil
	case 1:
		cols := "agent_id, domain, evaluator_id"
		if len(args) == 2 {
			cols = "agent_id, evaluator_id"
		}
		var n int
		err := get(ctx, tx, &n, `INSERT INTO `+table+` (`+cols+`, positions) VALUES (`+placeholders(len(args))+`, 1)
			ON CONFLICT (`+cols+`) DO UPDATE SET positions = `+table+`.positions + 1 RETURNING positions`, args...)
		if err != nil {
			return 0, fmt.Errorf("store: count evaluator: %w", err)
		}
		return n - 1, nil
	default:
		var n int
		if err := get(ctx, tx, &n, `SELECT positions FROM `+table+` WHERE `+where, args...); err != nil {
			return 0, fmt.Errorf("store: read evaluator count: %w", err)
		}
		query := `UPDATE ` + table + ` SET positions = positions - 1 WHERE ` + where
		if n == 1 {
			query = `DELETE FROM ` + table + ` WHERE ` + where
		}
		if _, err := exec(ctx, tx, query, args...); err != nil {
			return 0, fmt.Errorf("store: count evaluator: %w", err)
		}
		return n, nil
	}
}

func placeholders(n int) string {
	b := make([]byte, 0, 3*n)
	for i := range n {
		if i > 0 {
			b = append(b, ", "...)
		}
		b = append(b, '?')
	}
	return string(b)
}
