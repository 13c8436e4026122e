package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/jmoiron/sqlx"

	"github.com/remnant/passportkit/issuer/service"
)

// RecordSkillHistory appends h to the subject's skill history and counts it
// in the day's network metrics, in one transaction, unless a row of the
// same subject, skill, source revision and hour is there already: then it
// writes and counts nothing (SPEC.md §5.9). Which counters grow is
// decided against the subject's previous row for the same skill (SPEC.md
// §5.9): skill_assessments_generated always; skill_contested_assessments
// and skill_insufficient_evidence by h's own state; skill_evidence_updates,
// skill_state_changes, skill_estimate_changes and
// skill_cross_operator_gains when a previous row differs in its source
// revision, state, estimate, or has fewer operators.
func (db *DB) RecordSkillHistory(ctx context.Context, h service.SkillHistory) error {
	return db.inTx(ctx, func(tx *sqlx.Tx) error {
		a, err := db.loadAgent(ctx, tx, h.Subject)
		if err != nil {
			return err
		}
		var prev struct {
			Revision  string        `db:"source_revision"`
			State     string        `db:"state"`
			Estimate  sql.NullInt64 `db:"estimate"`
			Operators int           `db:"operators"`
		}
		err = get(ctx, tx, &prev, `SELECT source_revision, state, estimate, operators FROM skill_trust_history
			WHERE subject_id = ? AND skill = ? ORDER BY id DESC LIMIT 1`, a.Key, h.Skill)
		hasPrev := err == nil
		if err != nil && !errors.Is(err, sql.ErrNoRows) {
			return fmt.Errorf("store: read skill history: %w", err)
		}
		var estimate sql.NullInt64
		if h.Estimate != nil {
			estimate = sql.NullInt64{Int64: *h.Estimate, Valid: true}
		}
		res, err := exec(ctx, tx, `INSERT INTO skill_trust_history (subject_id, skill, policy, source_revision, assessed_at, hour, state,
			estimate, operators, contradictions, assessment_hash) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
			ON CONFLICT (subject_id, skill, source_revision, hour) DO NOTHING`,
			a.Key, h.Skill, h.Policy, h.SourceRevision, h.AssessedAt.UTC(), h.Hour, h.State, estimate, h.Operators, h.Contradictions, h.AssessmentHash)
		if err != nil {
			return fmt.Errorf("store: write skill history: %w", err)
		}
		if n, err := res.RowsAffected(); err != nil {
			return fmt.Errorf("store: write skill history: %w", err)
		} else if n == 0 {
			return nil // written already, by this process or another
		}
		counters := []string{service.MetricAssessmentsGenerated}
		if h.Contested {
			counters = append(counters, service.MetricContestedAssessments)
		}
		if h.InsufficientEvidence {
			counters = append(counters, service.MetricInsufficientEvidence)
		}
		if hasPrev {
			if prev.Revision != h.SourceRevision {
				counters = append(counters, service.MetricEvidenceUpdates)
			}
			if prev.State != h.State {
				counters = append(counters, service.MetricStateChanges)
			}
			if prev.Estimate != estimate {
				counters = append(counters, service.MetricEstimateChanges)
			}
			if h.Operators > prev.Operators {
				counters = append(counters, service.MetricCrossOperatorGains)
			}
		}
		day := h.AssessedAt.UTC().Format("2006-01-02")
		for _, name := range counters {
			if _, err := exec(ctx, tx, `INSERT INTO network_metrics (day, name, value) VALUES (?, ?, 1)
				ON CONFLICT (day, name) DO UPDATE SET value = network_metrics.value + 1`, day, name); err != nil {
				return fmt.Errorf("store: count %s: %w", name, err)
			}
		}
		return nil
	})
}

// NetworkMetrics returns the day's network metric counters by name (day
// written YYYY-MM-DD, UTC); a counter never bumped is absent.
func (db *DB) NetworkMetrics(ctx context.Context, day string) (map[string]int64, error) {
	var rows []struct {
		Name  string `db:"name"`
		Value int64  `db:"value"`
	}
	q := `SELECT name, value FROM network_metrics WHERE day = ?`
	if db.engine == Postgres {
		q = `SELECT name, value FROM network_metrics WHERE day = CAST(? AS DATE)`
	}
	if err := sel(ctx, db.x, &rows, q, day); err != nil {
		return nil, fmt.Errorf("store: network metrics: %w", err)
	}
	out := make(map[string]int64, len(rows))
	for _, r := range rows {
		out[r.Name] = r.Value
	}
	return out, nil
}
