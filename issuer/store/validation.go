package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/remnant/passportkit/issuer"
	"github.com/remnant/passportkit/issuer/service"
	"github.com/remnant/passportkit/reputation"
)

// loadValidation reads in one batch: the idempotency record, the memory or
// receipt with its eligibility, then the locks and everything the
// positions need. The statements name the targets by subquery, so that
// none waits for another's answer.
func loadValidation(ctx context.Context, br batchRunner, q service.ValidationQuery) (*service.ValidationState, error) {
	st := &service.ValidationState{
		Authors: map[int64]reputation.Aggregate{}, Domains: map[service.AuthorDomain]reputation.Aggregate{},
		EvaluatorCredit: map[string][2]reputation.Milli{}, PositivePairs: map[int64]int{}, NegativePairs: map[int64]int{},
		DomainCounts: map[service.AuthorDomain]int{}, GlobalCounts: map[int64]int{},
	}
	lock := br.rowLock()
	var b []stmt
	if q.IdempotencyKey != "" {
		b = append(b, stmt{
			query: `SELECT fingerprint, response FROM validation_requests WHERE agent_id = ? AND idempotency_key = ?`,
			args:  []any{q.Evaluator, q.IdempotencyKey},
			scan: func(r rows) error {
				var fp string
				var resp sql.NullString
				if err := r.Scan(&fp, &resp); err != nil {
					return err
				}
				st.Prior = &service.IdempotencyRecord{Fingerprint: fp}
				if resp.Valid {
					st.Prior.Response = []byte(resp.String)
				}
				return nil
			},
		})
	}
	if q.Artifact != "" {
		b = append(b, stmt{
			query: `SELECT COUNT(*) FROM artifacts a WHERE a.digest = ? AND a.evicted_at IS NULL AND (` + artifactReadable + `)`,
			args:  []any{q.Artifact, q.Evaluator, q.Evaluator},
			scan: func(r rows) error {
				var n int64
				if err := r.Scan(&n); err != nil {
					return err
				}
				st.ArtifactReadable = n > 0
				return nil
			},
		})
	}
	// targets selects the keys of the memories validated, with targetArgs.
	var targets string
	var targetArgs []any
	if q.Receipt == "" {
		targets, targetArgs = `SELECT id FROM memories WHERE public_id = ?`, []any{q.Memory}
		b = append(b, stmt{
			query: memoryEligibilitySelect + ` WHERE m.public_id = ?`,
			args:  []any{q.Evaluator, q.Evaluator, q.Memory},
			scan: func(r rows) error {
				var t service.Target
				if err := r.Scan(append(targetDest(&t), &t.Consumed, &t.SameOwner)...); err != nil {
					return err
				}
				st.Targets = append(st.Targets, t)
				return nil
			},
		})
	} else {
		const receipt = `(SELECT id FROM receipts WHERE public_id = ?)`
		targets, targetArgs = `SELECT memory_id FROM receipt_memories WHERE receipt_id = `+receipt, []any{q.Receipt}
		b = append(b,
			stmt{
				// Locking the receipt serialises validations of one consultation.
				query: `SELECT id, agent_id FROM receipts WHERE public_id = ?` + lock,
				args:  []any{q.Receipt},
				scan: func(r rows) error {
					st.Receipt = &service.ReceiptState{}
					return r.Scan(&st.Receipt.Key, &st.Receipt.Agent)
				},
			},
			stmt{
				query: targetSelect + ` JOIN receipt_memories rm ON rm.memory_id = m.id WHERE rm.receipt_id = ` + receipt + ` ORDER BY rm.position`,
				args:  []any{q.Receipt},
				scan: func(r rows) error {
					var t service.Target
					if err := r.Scan(targetDest(&t)...); err != nil {
						return err
					}
					st.Targets = append(st.Targets, t)
					return nil
				},
			},
			stmt{
				query: `SELECT
					(SELECT COUNT(DISTINCT memory_id) FROM retrievals WHERE agent_id = ? AND receipt_id = ` + receipt + `),
					(SELECT COUNT(*) FROM receipt_memories rm JOIN memories m ON m.id = rm.memory_id
						JOIN agent_owner_bindings a ON a.agent_id = m.author_id
						JOIN agent_owner_bindings e ON e.operator_id = a.operator_id AND e.agent_id = ?
						WHERE rm.receipt_id = ` + receipt + `),
					cf.id, cf.type, cf.legacy_verdict, cf.reason, cf.revision
					FROM (SELECT 1 AS one) x LEFT JOIN consultation_feedback cf ON cf.receipt_id = ` + receipt,
				args: []any{q.Evaluator, q.Receipt, q.Evaluator, q.Receipt, q.Receipt},
				scan: func(r rows) error {
					var consumed, same int64
					var key, revision sql.NullInt64
					var typ, verdict, reason sql.NullString
					if err := r.Scan(&consumed, &same, &key, &typ, &verdict, &reason, &revision); err != nil {
						return err
					}
					if st.Receipt == nil {
						return nil
					}
					st.Receipt.Consumed, st.Receipt.SameOwner = int(consumed), int(same)
					if key.Valid {
						st.Receipt.Feedback = &service.ConsultationFeedback{Key: key.Int64, Type: reputation.Type(typ.String),
							Verdict: reputation.Verdict(verdict.String), Reason: reason.String, Revision: int(revision.Int64)}
					}
					return nil
				},
			})
	}
	b = append(b, positionReads(st, q.Evaluator, lock, targets, targetArgs)...)
	if err := br.run(ctx, b, false); err != nil {
		return nil, fmt.Errorf("store: read validation: %w", err)
	}
	return st, nil
}

// targetDest returns the scan destinations of targetColumns.
func targetDest(t *service.Target) []any {
	return []any{&t.Key, &t.PublicID, &t.Author, &t.AuthorStatus, &t.Domain, &t.Status, &t.Visibility}
}

// positionReads read what the positions on the target memories (selected
// by targets with args) need: first the lock on the authors' and the
// evaluator's global aggregates (in key order, so that transactions
// touching several authors cannot deadlock; the evaluator's row serialises
// the positive budget it shares with each author), then the evaluator's
// positions, the domain aggregates with the evaluator's counts and credit,
// and the budgets and global counts per author.
func positionReads(st *service.ValidationState, evaluator int64, lock, targets string, args []any) []stmt {
	authors := `SELECT author_id FROM memories WHERE id IN (` + targets + `)`
	domains := `SELECT domain FROM memories WHERE id IN (` + targets + `)`
	target := func(key int64) *service.Target {
		for i := range st.Targets {
			if st.Targets[i].Key == key {
				return &st.Targets[i]
			}
		}
		return nil
	}
	isAuthor := func(a int64) bool {
		return slices.ContainsFunc(st.Targets, func(t service.Target) bool { return t.Author == a })
	}
	cat := func(xs ...[]any) []any { return slices.Concat(xs...) }
	ev := []any{evaluator}
	return []stmt{
		{
			query: `SELECT agent_id, raw, sample_size, positive_events, negative_events FROM agent_reputation_aggregates
				WHERE agent_id IN (` + authors + ` UNION ALL SELECT ?) ORDER BY agent_id` + lock,
			args: cat(args, ev),
			scan: func(r rows) error {
				var a int64
				var g reputation.Aggregate
				if err := r.Scan(&a, &g.Raw, &g.Evaluators, &g.Positive, &g.Negative); err != nil {
					return err
				}
				st.Authors[a] = g
				return nil
			},
		},
		{
			query: `SELECT m.id, m.validation_summary_json, m.validation_base_confidence,
				f.id, f.public_id, f.type, f.legacy_verdict, f.reason, f.revision, f.receipt_id, f.direct,
				f.base_weight, f.positive_factor, f.negative_factor, f.weight, f.contribution,
				f.evidence_type, f.evidence_detail, f.evidence_artifact, f.evidence_env, f.renewed_at
				FROM memories m
				LEFT JOIN feedback f ON f.memory_id = m.id AND f.evaluator_id = ?
				WHERE m.id IN (` + targets + `)`,
			args: cat(ev, args),
			scan: func(r rows) error {
				var m int64
				var summary string
				var base int64
				var key, revision, receipt, bw, pf, nf, w, contrib sql.NullInt64
				var pub, typ, verdict, reason, eType, eDetail, eArtifact, eEnv sql.NullString
				var direct sql.NullBool
				var renewed sql.NullTime
				if err := r.Scan(&m, &summary, &base, &key, &pub, &typ, &verdict, &reason, &revision, &receipt, &direct,
					&bw, &pf, &nf, &w, &contrib, &eType, &eDetail, &eArtifact, &eEnv, &renewed); err != nil {
					return err
				}
				t := target(m)
				if t == nil {
					return nil
				}
				sum, err := decodeSummary(summary)
				if err != nil {
					return err
				}
				t.Summary, t.BaseConfidence = sum, reputation.Milli(base)
				if renewed.Valid {
					t.RenewedAt = renewed.Time.UTC()
				}
				if key.Valid {
					t.Current = &service.CurrentPosition{
						Key:     key.Int64,
						Ref:     issuer.ValidationRef{ID: issuer.ValidationID(pub.String), Type: reputation.Type(typ.String), Revision: int(revision.Int64)},
						Verdict: reputation.Verdict(verdict.String), Reason: reason.String, Receipt: receipt.Int64,
						Direct: direct.Bool,
						Evidence: issuer.Evidence{Type: issuer.EvidenceType(eType.String), Detail: eDetail.String,
							Artifact: eArtifact.String, Env: eEnv.String},
						Position: reputation.Position{
							Type: reputation.Type(typ.String), BaseWeight: reputation.Milli(bw.Int64),
							PositiveRanked: pf.Valid, PositiveFactor: reputation.Milli(pf.Int64),
							NegativeRanked: nf.Valid, NegativeFactor: reputation.Milli(nf.Int64),
							EffectiveWeight: reputation.Milli(w.Int64), Contribution: reputation.Milli(contrib.Int64),
						},
					}
				}
				return nil
			},
		},
		{
			// The authors' domain aggregates with the evaluator's counts
			// (a count row exists only beside its aggregate), and the
			// evaluator's own credit in those domains.
			query: `SELECT d.agent_id, d.domain, d.raw, d.score, d.confidence, d.sample_size, d.positive_events, d.negative_events, c.positions
				FROM agent_domain_reputation d
				LEFT JOIN agent_domain_evaluator_counts c ON c.agent_id = d.agent_id AND c.domain = d.domain AND c.evaluator_id = ?
				WHERE d.agent_id IN (` + authors + ` UNION ALL SELECT ?) AND d.domain IN (` + domains + `)`,
			args: cat(ev, args, ev, args),
			scan: func(r rows) error {
				var a int64
				var d string
				var score, confidence int64
				var n sql.NullInt64
				var g reputation.Aggregate
				if err := r.Scan(&a, &d, &g.Raw, &score, &confidence, &g.Evaluators, &g.Positive, &g.Negative, &n); err != nil {
					return err
				}
				if a == evaluator {
					st.EvaluatorCredit[d] = [2]reputation.Milli{reputation.Milli(score), reputation.Milli(confidence)}
				}
				if isAuthor(a) {
					ad := service.AuthorDomain{Author: a, Domain: d}
					st.Domains[ad] = g
					if n.Valid {
						st.DomainCounts[ad] = int(n.Int64)
					}
				}
				return nil
			},
		},
		{
			// Per author: the positive budget of the pair, the negative
			// budget of the evaluator towards the author, and the
			// evaluator's global count.
			query: `SELECT a.id, pp.positions, np.positions, gc.positions FROM agents a
				LEFT JOIN reputation_pair_counters pp
					ON pp.agent_low = CASE WHEN a.id < ? THEN a.id ELSE ? END AND pp.agent_high = CASE WHEN a.id < ? THEN ? ELSE a.id END
				LEFT JOIN reputation_negative_pair_counters np ON np.author_id = a.id AND np.evaluator_id = ?
				LEFT JOIN agent_global_evaluator_counts gc ON gc.agent_id = a.id AND gc.evaluator_id = ?
				WHERE a.id IN (` + authors + `)`,
			args: cat(ev, ev, ev, ev, ev, ev, args),
			scan: func(r rows) error {
				var a int64
				var pp, np, gc sql.NullInt64
				if err := r.Scan(&a, &pp, &np, &gc); err != nil {
					return err
				}
				if pp.Valid {
					st.PositivePairs[a] = int(pp.Int64)
				}
				if np.Valid {
					st.NegativePairs[a] = int(np.Int64)
				}
				if gc.Valid {
					st.GlobalCounts[a] = int(gc.Int64)
				}
				return nil
			},
		},
	}
}

// writeValidation writes plan as one batch.
func writeValidation(ctx context.Context, br batchRunner, plan *service.ValidationPlan) error {
	now, ev := plan.Now, plan.Evaluator
	var b batch
	add := b.add
	if w := plan.Idempotency; w != nil {
		add(`INSERT INTO validation_requests (agent_id, idempotency_key, fingerprint, response, created_at) VALUES (?, ?, ?, ?, ?)`,
			ev, w.Key, w.Fingerprint, string(w.Response), now)
	}
	if c := plan.Consultation; c != nil {
		if c.Key == 0 {
			add(`INSERT INTO consultation_feedback (receipt_id, agent_id, type, legacy_verdict, reason, revision, created_at, updated_at)
				VALUES (?, ?, ?, ?, ?, ?, ?, ?)`, c.Receipt, ev, string(c.Type), nullString(string(c.Verdict)), c.Reason, c.Revision, now, now)
		} else {
			add(`UPDATE consultation_feedback SET type = ?, legacy_verdict = ?, reason = ?, revision = ?, updated_at = ? WHERE id = ?`,
				string(c.Type), nullString(string(c.Verdict)), c.Reason, c.Revision, now, c.Key)
		}
	}
	for _, p := range plan.Positions {
		receipt := sql.NullInt64{Int64: p.Receipt, Valid: p.Receipt != 0}
		direct := p.Receipt == 0
		// A new position's key is found by its public ID.
		ref, refArg := "?", any(p.Key)
		if p.Key == 0 {
			ref, refArg = "(SELECT id FROM feedback WHERE public_id = ?)", string(p.Ref.ID)
		}
		n := p.Position
		switch {
		case p.Change == service.ChangeDetail:
			add(`UPDATE feedback SET legacy_verdict = ?, reason = ?, revision = ?, receipt_id = ?, direct = (direct OR ?), updated_at = ?,
				evidence_type = ?, evidence_detail = ?, evidence_artifact = ?, evidence_env = ?, evidence_factor = ? WHERE id = ?`,
				append([]any{nullString(string(p.Verdict)), p.Reason, p.Ref.Revision, receipt, direct, now}, append(evidenceArgs(p.Evidence, p.EvidenceFactor), p.Key)...)...)
		case p.Key == 0:
			add(`INSERT INTO feedback (public_id, memory_id, evaluator_id, type, legacy_verdict, reason,
				revision, eligible, weight, receipt_id, direct, base_weight, positive_factor, negative_factor,
				contribution, policy, created_at, updated_at,
				evidence_type, evidence_detail, evidence_artifact, evidence_env, evidence_factor)
				VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
				append([]any{string(p.Ref.ID), p.Memory, ev, string(p.Ref.Type), nullString(string(p.Verdict)), p.Reason, p.Ref.Revision, true,
					int64(n.EffectiveWeight), receipt, direct, int64(n.BaseWeight),
					savedFactor(n.PositiveRanked, n.PositiveFactor), savedFactor(n.NegativeRanked, n.NegativeFactor),
					int64(n.Contribution), reputation.Policy, now, now}, evidenceArgs(p.Evidence, p.EvidenceFactor)...)...)
		default:
			add(`UPDATE feedback SET type = ?, legacy_verdict = ?, reason = ?, revision = ?, weight = ?,
				receipt_id = ?, direct = (direct OR ?), positive_factor = ?, negative_factor = ?, contribution = ?,
				policy = ?, updated_at = ?, evidence_type = ?, evidence_detail = ?, evidence_artifact = ?, evidence_env = ?,
				evidence_factor = ? WHERE id = ?`,
				append([]any{string(n.Type), nullString(string(p.Verdict)), p.Reason, p.Ref.Revision, int64(n.EffectiveWeight), receipt, direct,
					savedFactor(n.PositiveRanked, n.PositiveFactor), savedFactor(n.NegativeRanked, n.NegativeFactor),
					int64(n.Contribution), reputation.Policy, now}, append(evidenceArgs(p.Evidence, p.EvidenceFactor), p.Key)...)...)
		}
		add(`INSERT INTO feedback_history (feedback_id, revision, change, type, legacy_verdict, reason,
			eligible, weight, receipt_id, transport, created_at, evidence) VALUES (`+ref+`, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
			refArg, p.Ref.Revision, p.Change, string(p.Ref.Type), nullString(string(p.Verdict)), p.Reason, true, int64(p.Weight),
			receipt, string(p.Via), now, evidenceJSON(p.Evidence))
		if len(p.Events) > 0 {
			const row = `(?, ?, ?, ` + "%s" + `, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`
			var rowsSQL []string
			var args []any
			for _, e := range p.Events {
				rowsSQL = append(rowsSQL, fmt.Sprintf(row, ref))
				args = append(args, p.Author, ev, p.Memory, refArg, p.Domain, string(e.Phase), string(e.Type), int64(e.Points),
					int64(e.BaseWeight), int64(e.PairFactor), int64(e.Weight), int64(e.Delta), reputation.Policy, now)
			}
			add(`INSERT INTO reputation_events (author_id, evaluator_id, memory_id, feedback_id, domain, phase, type,
				points, base_weight, pair_factor, weight, delta, policy, created_at) VALUES `+strings.Join(rowsSQL, ", "), args...)
		}
	}
	for _, s := range plan.Summaries {
		add(`UPDATE memories SET validation_summary_json = ?, confidence_state = ?, confidence = ?,
			evidence_at = CASE WHEN ? THEN ? ELSE evidence_at END WHERE id = ?`,
			encodeSummary(s.Summary), string(s.Summary.State), int64(s.Confidence), s.Evidence, now, s.Memory)
	}
	for _, d := range plan.Domains {
		a := d.Aggregate
		add(`INSERT INTO agent_domain_reputation (agent_id, domain, raw, score, confidence, sample_size,
			positive_events, negative_events, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
			ON CONFLICT (agent_id, domain) DO UPDATE SET raw = excluded.raw, score = excluded.score, confidence = excluded.confidence,
			sample_size = excluded.sample_size, positive_events = excluded.positive_events, negative_events = excluded.negative_events,
			updated_at = excluded.updated_at`,
			d.Author, d.Domain, int64(a.Raw), int64(a.Score()), int64(a.Confidence()), a.Evaluators, a.Positive, a.Negative, now, now)
	}
	for _, g := range plan.Authors {
		a := g.Aggregate
		add(`UPDATE agent_reputation_aggregates SET raw = ?, score = ?, confidence = ?, sample_size = ?,
			positive_events = ?, negative_events = ?, trust_level = ?, updated_at = ? WHERE agent_id = ?`,
			int64(a.Raw), int64(a.Score()), int64(a.Confidence()), a.Evaluators, a.Positive, a.Negative, string(a.Trust()), now, g.Author)
	}
	for _, c := range plan.PositivePairs {
		add(`INSERT INTO reputation_pair_counters (agent_low, agent_high, positions) VALUES (?, ?, ?)
			ON CONFLICT (agent_low, agent_high) DO UPDATE SET positions = excluded.positions`, min(c.Author, ev), max(c.Author, ev), c.N)
	}
	for _, c := range plan.NegativePairs {
		add(`INSERT INTO reputation_negative_pair_counters (author_id, evaluator_id, positions) VALUES (?, ?, ?)
			ON CONFLICT (author_id, evaluator_id) DO UPDATE SET positions = excluded.positions`, c.Author, ev, c.N)
	}
	for _, c := range plan.DomainCounts {
		if c.N == 0 {
			add(`DELETE FROM agent_domain_evaluator_counts WHERE agent_id = ? AND domain = ? AND evaluator_id = ?`, c.Author, c.Domain, ev)
			continue
		}
		add(`INSERT INTO agent_domain_evaluator_counts (agent_id, domain, evaluator_id, positions) VALUES (?, ?, ?, ?)
			ON CONFLICT (agent_id, domain, evaluator_id) DO UPDATE SET positions = excluded.positions`, c.Author, c.Domain, ev, c.N)
	}
	for _, c := range plan.GlobalCounts {
		if c.N == 0 {
			add(`DELETE FROM agent_global_evaluator_counts WHERE agent_id = ? AND evaluator_id = ?`, c.Author, ev)
			continue
		}
		add(`INSERT INTO agent_global_evaluator_counts (agent_id, evaluator_id, positions) VALUES (?, ?, ?)
			ON CONFLICT (agent_id, evaluator_id) DO UPDATE SET positions = excluded.positions`, c.Author, ev, c.N)
	}
	if plan.FeedbackGiven > 0 {
		if err := b.activity([]service.ActivityWrite{{Agent: ev, Counter: service.CountFeedbackGiven, N: plan.FeedbackGiven}}); err != nil {
			return err
		}
	}
	if o := plan.Outcome; o != nil {
		ctxJSON, err := json.Marshal(o.Context)
		if err != nil {
			return fmt.Errorf("store: outcome context: %w", err)
		}
		var fb, rev any
		fbSQL := "?"
		if o.Position != nil {
			fbSQL, fb, rev = "(SELECT id FROM feedback WHERE public_id = ?)", string(o.Position.ID), o.Position.Revision
		}
		add(`INSERT INTO memory_outcomes (memory_id, evaluator_id, outcome, context, feedback_id, feedback_revision, created_at, updated_at)
			VALUES (?, ?, ?, ?, `+fbSQL+`, ?, ?, ?)
			ON CONFLICT (memory_id, evaluator_id) DO UPDATE SET outcome = excluded.outcome, context = excluded.context,
			feedback_id = excluded.feedback_id, feedback_revision = excluded.feedback_revision, updated_at = excluded.updated_at`,
			o.Memory, ev, string(o.Outcome), string(ctxJSON), fb, rev, now, now)
	}
	if plan.Renewal != 0 {
		add(`INSERT INTO position_renewals (feedback_id, renewed_at) VALUES (?, ?)`, plan.Renewal, now)
		add(`UPDATE feedback SET renewed_at = ? WHERE id = ?`, now, plan.Renewal)
	}
	b.revisions(plan.Revisions, now)
	if err := b.audit(plan.Audit, now); err != nil {
		return err
	}
	if err := br.run(ctx, b, true); err != nil {
		return fmt.Errorf("store: write validation: %w", err)
	}
	return nil
}

// evidenceArgs are the evidence columns of a position: type, detail,
// artifact, env (NULL when absent) and the weight factor.
func evidenceArgs(e issuer.Evidence, factor reputation.Milli) []any {
	return []any{nullString(string(e.Type)), nullString(e.Detail), nullString(e.Artifact), nullString(e.Env), int64(factor)}
}

// evidenceJSON is the evidence object as feedback_history records it: its
// JSON, or "" for none.
func evidenceJSON(e issuer.Evidence) string {
	if !e.Given() {
		return ""
	}
	b, _ := json.Marshal(e) // strings only: cannot fail
	return string(b)
}

func nullString(s string) sql.NullString { return sql.NullString{String: s, Valid: s != ""} }

func savedFactor(ranked bool, f reputation.Milli) sql.NullInt64 {
	return sql.NullInt64{Int64: int64(f), Valid: ranked}
}
