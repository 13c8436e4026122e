package store

import (
	"context"
	"fmt"

	"github.com/jmoiron/sqlx"

	"github.com/remnant/passportkit/issuer/service"
)

// confirmedIn is true of a memory (alias x) that some reader may see
// confirmed (SPEC.md §15.10): it has a standing accept by another agent, or
// a current eligible used_successfully position, or an evidenced
// corroborate position (an evidence object or a reason), by another agent.
// Weights, groups, decay and contradictions only ever take a confirmation
// away, so this is the widest reading of "confirmed".
func confirmedIn(x string) string {
	return `(EXISTS (SELECT 1 FROM consultation_accepts ca WHERE ca.memory_id = ` + x + `.id AND ca.agent_id <> ` + x + `.author_id)
	OR EXISTS (SELECT 1 FROM feedback f WHERE f.memory_id = ` + x + `.id AND f.eligible AND f.evaluator_id <> ` + x + `.author_id
		AND (f.type = 'used_successfully' OR (f.type = 'corroborate' AND (f.evidence_type IS NOT NULL OR f.reason <> '')))))`
}

// keptBody is true of a memory m whose body the issuer keeps whatever the
// budget: a confirmed memory or digest, a source (refs) of a confirmed
// digest, and a memory an unexpired passport's source previews name. Its
// one parameter is the current time.
var keptBody = `(` + confirmedIn("m") + `
	OR EXISTS (SELECT 1 FROM memory_links l JOIN memories d ON d.id = l.memory_id
		WHERE l.target_id = m.id AND l.kind = 'refs' AND d.kind = 'digest' AND ` + confirmedIn("d") + `)
	OR EXISTS (SELECT 1 FROM issued_passport_previews pp JOIN issued_passports p ON p.passport_hash = pp.passport_hash
		WHERE pp.memory_id = m.id AND p.expires_at > ?))`

// evictionOrder is the order in which a sweep evicts memory bodies
// (SPEC.md §15.10): score (positive current positions and standing
// accepts, less negative positions), then uses (retrievals), then age,
// oldest first, then the key.
const evictionOrder = `ORDER BY
	(SELECT COALESCE(SUM(CASE WHEN f.type IN ('corroborate', 'useful', 'used_successfully') THEN 1 ELSE -1 END), 0)
		FROM feedback f WHERE f.memory_id = m.id AND f.eligible)
	+ (SELECT COUNT(*) FROM consultation_accepts ca WHERE ca.memory_id = m.id),
	(SELECT COUNT(*) FROM retrievals r WHERE r.memory_id = m.id),
	m.created_at, m.id`

// contentBytes is the engine's expression of a text column's size in
// bytes.
func (db *DB) contentBytes(col string) string {
	if db.engine == Postgres {
		return "OCTET_LENGTH(" + col + ")"
	}
	return "LENGTH(CAST(" + col + " AS BLOB))"
}

// SweepStorage evicts bodies until what the issuer holds of memory
// contents and artifact bodies fits the budget (SPEC.md §15.10): first the
// artifacts no position cites, oldest first, then memory bodies in
// eviction order, never a kept body. Each batch is one transaction that
// re-checks what it evicts and audits each eviction. Rows, content hashes
// and events stay.
func (db *DB) SweepStorage(ctx context.Context, o service.SweepOptions) (service.SweepReport, error) {
	if err := o.Check(); err != nil {
		return service.SweepReport{}, err
	}
	batch := o.Batch
	if batch == 0 {
		batch = service.DefaultSweepBatch
	}
	now := db.timestamp()
	rep := service.SweepReport{Budget: o.Budget, DryRun: o.DryRun, At: now}
	var held struct {
		Memories  int64 `db:"memories"`
		Artifacts int64 `db:"artifacts"`
	}
	err := get(ctx, db.x, &held, `SELECT
		(SELECT COALESCE(SUM(`+db.contentBytes("content")+`), 0) FROM memories WHERE evicted_at IS NULL) AS memories,
		(SELECT COALESCE(SUM(size), 0) FROM artifacts WHERE evicted_at IS NULL) AS artifacts`)
	if err != nil {
		return rep, fmt.Errorf("store: storage held: %w", err)
	}
	rep.HeldBefore = held.Memories + held.Artifacts
	rep.HeldAfter = rep.HeldBefore
	excess := rep.HeldBefore - o.Budget

	// Artifacts no current position cites.
	if excess > 0 {
		plan, err := db.sweepPlan(ctx, `SELECT a.digest AS k, a.size AS n FROM artifacts a
			WHERE a.evicted_at IS NULL AND a.size > 0
			AND NOT EXISTS (SELECT 1 FROM feedback f WHERE f.evidence_artifact = a.digest)
			ORDER BY a.created_at, a.digest`, excess)
		if err != nil {
			return rep, err
		}
		for chunk := range chunks(plan, batch) {
			n, bytes, err := db.evictArtifacts(ctx, chunk, o.DryRun)
			if err != nil {
				return rep, err
			}
			rep.Artifacts, rep.ArtifactBytes, excess = rep.Artifacts+n, rep.ArtifactBytes+bytes, excess-bytes
			if !o.DryRun {
				rep.Batches++
			}
		}
	}
	// Memory bodies in eviction order.
	if excess > 0 {
		plan, err := db.sweepPlan(ctx, `SELECT m.public_id AS k, `+db.contentBytes("m.content")+` AS n FROM memories m
			WHERE m.evicted_at IS NULL AND NOT `+keptBody+` `+evictionOrder, excess, now)
		if err != nil {
			return rep, err
		}
		for chunk := range chunks(plan, batch) {
			n, bytes, err := db.evictMemories(ctx, chunk, now, o.DryRun)
			if err != nil {
				return rep, err
			}
			rep.Memories, rep.MemoryBytes, excess = rep.Memories+n, rep.MemoryBytes+bytes, excess-bytes
			if !o.DryRun {
				rep.Batches++
			}
		}
	}
	rep.HeldAfter = rep.HeldBefore - rep.MemoryBytes - rep.ArtifactBytes
	rep.OverBudget = rep.HeldAfter > o.Budget
	return rep, nil
}

// planned is one body a sweep plans to evict: its key and size.
type planned struct {
	Key  string `db:"k"`
	Size int64  `db:"n"`
}

// sweepPlan reads bodies in query order until their sizes cover need.
func (db *DB) sweepPlan(ctx context.Context, query string, need int64, args ...any) ([]planned, error) {
	rows, err := db.x.QueryxContext(ctx, db.x.Rebind(query), args...)
	if err != nil {
		return nil, fmt.Errorf("store: sweep plan: %w", err)
	}
	defer rows.Close()
	var plan []planned
	for need > 0 && rows.Next() {
		var p planned
		if err := rows.StructScan(&p); err != nil {
			return nil, fmt.Errorf("store: sweep plan: %w", err)
		}
		plan = append(plan, p)
		need -= p.Size
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: sweep plan: %w", err)
	}
	return plan, nil
}

// chunks yields plan in slices of at most n.
func chunks(plan []planned, n int) func(func([]planned) bool) {
	return func(yield func([]planned) bool) {
		for len(plan) > 0 {
			k := min(n, len(plan))
			if !yield(plan[:k]) {
				return
			}
			plan = plan[k:]
		}
	}
}

// evictMemories evicts one batch of memory bodies in one transaction,
// skipping any that were evicted or became kept since the plan.
func (db *DB) evictMemories(ctx context.Context, chunk []planned, now any, dryRun bool) (int, int64, error) {
	args := []any{now}
	for _, p := range chunk {
		args = append(args, p.Key)
	}
	var (
		count int
		bytes int64
	)
	err := db.inTx(ctx, func(tx *sqlx.Tx) error {
		count, bytes = 0, 0
		var rows []struct {
			Key      int64  `db:"id"`
			PublicID string `db:"public_id"`
			Hash     string `db:"content_hash"`
			Size     int64  `db:"n"`
		}
		err := sel(ctx, tx, &rows, `SELECT m.id, m.public_id, m.content_hash, `+db.contentBytes("m.content")+` AS n FROM memories m
			WHERE m.evicted_at IS NULL AND NOT `+keptBody+` AND m.public_id IN (`+placeholders(len(chunk))+`)`+db.forUpdate(), args...)
		if err != nil {
			return fmt.Errorf("store: sweep memories: %w", err)
		}
		for _, r := range rows {
			count, bytes = count+1, bytes+r.Size
			if dryRun {
				continue
			}
			if _, err := exec(ctx, tx, `UPDATE memories SET content = '', evicted_at = ? WHERE id = ?`, now, r.Key); err != nil {
				return fmt.Errorf("store: evict memory: %w", err)
			}
			detail := map[string]any{"contentHash": r.Hash, "bytes": r.Size}
			if err := audit(ctx, tx, now, "admin", "memory.evict", r.PublicID, detail); err != nil {
				return err
			}
		}
		return nil
	})
	return count, bytes, err
}

// evictArtifacts evicts one batch of artifact bodies in one transaction,
// skipping any that were evicted or became cited since the plan.
func (db *DB) evictArtifacts(ctx context.Context, chunk []planned, dryRun bool) (int, int64, error) {
	var args []any
	for _, p := range chunk {
		args = append(args, p.Key)
	}
	now := db.timestamp()
	var (
		count int
		bytes int64
	)
	err := db.inTx(ctx, func(tx *sqlx.Tx) error {
		count, bytes = 0, 0
		var rows []struct {
			Digest string `db:"digest"`
			Size   int64  `db:"size"`
		}
		err := sel(ctx, tx, &rows, `SELECT a.digest, a.size FROM artifacts a WHERE a.evicted_at IS NULL
			AND NOT EXISTS (SELECT 1 FROM feedback f WHERE f.evidence_artifact = a.digest)
			AND a.digest IN (`+placeholders(len(chunk))+`)`+db.forUpdate(), args...)
		if err != nil {
			return fmt.Errorf("store: sweep artifacts: %w", err)
		}
		for _, r := range rows {
			count, bytes = count+1, bytes+r.Size
			if dryRun {
				continue
			}
			if _, err := exec(ctx, tx, `UPDATE artifacts SET content = ?, evicted_at = ? WHERE digest = ?`, []byte{}, now, r.Digest); err != nil {
				return fmt.Errorf("store: evict artifact: %w", err)
			}
			if err := audit(ctx, tx, now, "admin", "artifact.evict", r.Digest, map[string]any{"bytes": r.Size}); err != nil {
				return err
			}
		}
		return nil
	})
	return count, bytes, err
}
