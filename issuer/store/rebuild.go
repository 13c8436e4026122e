package store

import (
	"context"
	"database/sql"
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/jmoiron/sqlx"

	"github.com/remnant/passportkit/issuer"
	"github.com/remnant/passportkit/issuer/service"
	"github.com/remnant/passportkit/reputation"
)

// progressEvery is how many journal entries pass between progress calls.
const progressEvery = 5000

// RebuildReputation reconstructs an author's global and domain aggregates,
// its distinct-evaluator counters and its memories' validation summaries
// from the journal and the current positions. It appends no journal entry,
// re-weights nothing and changes no budget rank; only derived rows that
// differ are rewritten. progress, when not nil, is called with the entries
// replayed so far and the total.
func (db *DB) RebuildReputation(ctx context.Context, agent issuer.AgentID, progress func(done, total int)) (service.RebuildReport, error) {
	var rep service.RebuildReport
	err := db.inTx(ctx, func(tx *sqlx.Tx) error {
		rep = service.RebuildReport{Agent: agent}
		now := db.timestamp()
		var key int64
		if err := get(ctx, tx, &key, `SELECT id FROM agents WHERE public_id = ?`, agent); err != nil {
			return notFound(err, "agent %s not found", agent)
		}
		if _, err := db.lockAuthors(ctx, tx, []int64{key}); err != nil {
			return err
		}
		var total int
		if err := get(ctx, tx, &total, `SELECT COUNT(*) FROM reputation_events WHERE author_id = ?`, key); err != nil {
			return fmt.Errorf("store: count journal: %w", err)
		}
		replay, err := db.replay(ctx, tx, key, total, progress)
		if err != nil {
			return err
		}
		rebuilt := replay.Result()
		rep.Events, rep.Domains = replay.Entries(), len(rebuilt.Domains)
		rep.Score, rep.Trust = rebuilt.Global.Score(), rebuilt.Global.Trust()

		n, err := db.restoreDomains(ctx, tx, key, rebuilt, now)
		if err != nil {
			return err
		}
		rep.Corrected += n
		if n, err = db.restoreGlobal(ctx, tx, key, rebuilt, now); err != nil {
			return err
		}
		rep.Corrected += n
		if n, rep.Memories, err = db.restoreSummaries(ctx, tx, key); err != nil {
			return err
		}
		rep.Corrected += n
		return audit(ctx, tx, now, service.ActorAdmin, "reputation.rebuilt", string(agent), map[string]any{
			"events": rep.Events, "corrected": rep.Corrected, "score": rep.Score, "trust": rep.Trust,
		})
	})
	return rep, err
}

func (db *DB) replay(ctx context.Context, tx *sqlx.Tx, author int64, total int, progress func(done, total int)) (*reputation.Replay, error) {
	rows, err := tx.QueryxContext(ctx, tx.Rebind(`SELECT phase, memory_id, evaluator_id, domain, type, weight, delta
		FROM reputation_events WHERE author_id = ? ORDER BY id`), author)
	if err != nil {
		return nil, fmt.Errorf("store: read journal: %w", err)
	}
	defer rows.Close()
	var r reputation.Replay
	for rows.Next() {
		var (
			e                 reputation.Entry
			memory, evaluator sql.NullInt64
			typ               sql.NullString
			weight, delta     int64
		)
		if err := rows.Scan(&e.Phase, &memory, &evaluator, &e.Domain, &typ, &weight, &delta); err != nil {
			return nil, fmt.Errorf("store: read journal: %w", err)
		}
		e.Memory, e.Evaluator, e.Type = memory.Int64, evaluator.Int64, reputation.Type(typ.String)
		e.Weight, e.Delta = reputation.Milli(weight), reputation.Milli(delta)
		r.Add(e)
		if progress != nil && r.Entries()%progressEvery == 0 {
			progress(r.Entries(), total)
		}
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: read journal: %w", err)
	}
	if progress != nil {
		progress(r.Entries(), total)
	}
	return &r, nil
}

// restoreDomains rewrites the author's domain aggregates and domain evaluator
// counters where they differ from rebuilt, returning how many rows changed.
func (db *DB) restoreDomains(ctx context.Context, tx *sqlx.Tx, author int64, rebuilt reputation.Rebuilt, now time.Time) (int, error) {
	changed := 0
	var have []struct {
		Domain string `db:"domain"`
		aggregateRow
		Score      int64 `db:"score"`
		Confidence int64 `db:"confidence"`
	}
	if err := sel(ctx, tx, &have, `SELECT domain, raw, score, confidence, sample_size, positive_events, negative_events
		FROM agent_domain_reputation WHERE agent_id = ?`, author); err != nil {
		return 0, fmt.Errorf("store: read domain aggregates: %w", err)
	}
	seen := map[string]bool{}
	for _, h := range have {
		seen[h.Domain] = true
		want, ok := rebuilt.Domains[h.Domain]
		switch {
		case !ok:
			if _, err := exec(ctx, tx, `DELETE FROM agent_domain_reputation WHERE agent_id = ? AND domain = ?`, author, h.Domain); err != nil {
				return 0, fmt.Errorf("store: restore domain aggregate: %w", err)
			}
			changed++
		case h.aggregate() != want || h.Score != int64(want.Score()) || h.Confidence != int64(want.Confidence()):
			if _, err := exec(ctx, tx, `UPDATE agent_domain_reputation SET raw = ?, score = ?, confidence = ?, sample_size = ?,
				positive_events = ?, negative_events = ?, updated_at = ? WHERE agent_id = ? AND domain = ?`,
				int64(want.Raw), int64(want.Score()), int64(want.Confidence()), want.Evaluators, want.Positive, want.Negative,
				now, author, h.Domain); err != nil {
				return 0, fmt.Errorf("store: restore domain aggregate: %w", err)
			}
			changed++
		}
	}
	for _, d := range slices.Sorted(maps.Keys(rebuilt.Domains)) {
		if seen[d] {
			continue
		}
		want := rebuilt.Domains[d]
		if _, err := exec(ctx, tx, `INSERT INTO agent_domain_reputation (agent_id, domain, raw, score, confidence, sample_size,
			positive_events, negative_events, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
			author, d, int64(want.Raw), int64(want.Score()), int64(want.Confidence()), want.Evaluators, want.Positive, want.Negative, now, now); err != nil {
			return 0, fmt.Errorf("store: restore domain aggregate: %w", err)
		}
		changed++
	}

	var counts []struct {
		Domain    string `db:"domain"`
		Evaluator int64  `db:"evaluator_id"`
		Positions int    `db:"positions"`
	}
	if err := sel(ctx, tx, &counts, `SELECT domain, evaluator_id, positions FROM agent_domain_evaluator_counts WHERE agent_id = ?`, author); err != nil {
		return 0, fmt.Errorf("store: read domain evaluator counts: %w", err)
	}
	have2 := map[string]map[int64]int{}
	for _, c := range counts {
		if have2[c.Domain] == nil {
			have2[c.Domain] = map[int64]int{}
		}
		have2[c.Domain][c.Evaluator] = c.Positions
	}
	domains := slices.Collect(maps.Keys(have2))
	for d := range rebuilt.DomainEvaluators {
		if have2[d] == nil {
			domains = append(domains, d)
		}
	}
	for _, d := range domains {
		n, err := restoreCounts(ctx, tx, `agent_domain_evaluator_counts`, []any{author, d}, have2[d], rebuilt.DomainEvaluators[d])
		if err != nil {
			return 0, err
		}
		changed += n
	}
	return changed, nil
}

// restoreGlobal rewrites the author's global aggregate and global evaluator
// counters where they differ from rebuilt.
func (db *DB) restoreGlobal(ctx context.Context, tx *sqlx.Tx, author int64, rebuilt reputation.Rebuilt, now time.Time) (int, error) {
	changed := 0
	var have struct {
		aggregateRow
		Score      int64  `db:"score"`
		Confidence int64  `db:"confidence"`
		Trust      string `db:"trust_level"`
	}
	if err := get(ctx, tx, &have, `SELECT raw, score, confidence, sample_size, positive_events, negative_events, trust_level
		FROM agent_reputation_aggregates WHERE agent_id = ?`, author); err != nil {
		return 0, fmt.Errorf("store: read global aggregate: %w", err)
	}
	want := rebuilt.Global
	if have.aggregate() != want || have.Score != int64(want.Score()) || have.Confidence != int64(want.Confidence()) || have.Trust != string(want.Trust()) {
		if err := writeGlobal(ctx, tx, author, want, now); err != nil {
			return 0, err
		}
		changed++
	}
	var counts []struct {
		Evaluator int64 `db:"evaluator_id"`
		Positions int   `db:"positions"`
	}
	if err := sel(ctx, tx, &counts, `SELECT evaluator_id, positions FROM agent_global_evaluator_counts WHERE agent_id = ?`, author); err != nil {
		return 0, fmt.Errorf("store: read global evaluator counts: %w", err)
	}
	current := map[int64]int{}
	for _, c := range counts {
		current[c.Evaluator] = c.Positions
	}
	n, err := restoreCounts(ctx, tx, `agent_global_evaluator_counts`, []any{author}, current, rebuilt.GlobalEvaluators)
	return changed + n, err
}

// restoreCounts makes the evaluator counters of one scope (key holds the
// leading key columns' values) equal want.
func restoreCounts(ctx context.Context, tx *sqlx.Tx, table string, key []any, have, want map[int64]int) (int, error) {
	cols := "agent_id, evaluator_id"
	where := "agent_id = ? AND evaluator_id = ?"
	if len(key) == 2 {
		cols = "agent_id, domain, evaluator_id"
		where = "agent_id = ? AND domain = ? AND evaluator_id = ?"
	}
	changed := 0
	for e, n := range have {
		args := append(slices.Clone(key), e)
		switch w := want[e]; {
		case w == n:
			continue
		case w == 0:
			if _, err := exec(ctx, tx, `DELETE FROM `+table+` WHERE `+where, args...); err != nil {
				return 0, fmt.Errorf("store: restore evaluator count: %w", err)
			}
		default:
			if _, err := exec(ctx, tx, `UPDATE `+table+` SET positions = ? WHERE `+where, append([]any{w}, args...)...); err != nil {
				return 0, fmt.Errorf("store: restore evaluator count: %w", err)
			}
		}
		changed++
	}
	for e, w := range want {
		if _, ok := have[e]; ok || w == 0 {
			continue
		}
		args := append(slices.Clone(key), e, w)
		if _, err := exec(ctx, tx, `INSERT INTO `+table+` (`+cols+`, positions) VALUES (`+placeholders(len(args))+`)`, args...); err != nil {
			return 0, fmt.Errorf("store: restore evaluator count: %w", err)
		}
		changed++
	}
	return changed, nil
}

// restoreSummaries recomputes the validation summaries of the author's
// memories from their current eligible positions.
func (db *DB) restoreSummaries(ctx context.Context, tx *sqlx.Tx, author int64) (changed, memories int, err error) {
	var votes []struct {
		Memory     int64  `db:"memory_id"`
		Type       string `db:"type"`
		Weight     int64  `db:"weight"`
		BaseWeight int64  `db:"base_weight"`
	}
	if err := sel(ctx, tx, &votes, `SELECT f.memory_id, f.type, f.weight, f.base_weight
		FROM feedback f JOIN memories m ON m.id = f.memory_id
		WHERE m.author_id = ? AND f.eligible AND f.evaluator_id <> m.author_id`, author); err != nil {
		return 0, 0, fmt.Errorf("store: read positions: %w", err)
	}
	byMemory := map[int64][]reputation.Vote{}
	for _, v := range votes {
		p := reputation.Position{Type: reputation.Type(v.Type), EffectiveWeight: reputation.Milli(v.Weight), BaseWeight: reputation.Milli(v.BaseWeight)}
		byMemory[v.Memory] = append(byMemory[v.Memory], p.Vote())
	}
	var mems []struct {
		Key            int64  `db:"id"`
		Summary        string `db:"validation_summary_json"`
		State          string `db:"confidence_state"`
		Confidence     int64  `db:"confidence"`
		BaseConfidence int64  `db:"validation_base_confidence"`
	}
	if err := sel(ctx, tx, &mems, `SELECT id, validation_summary_json, confidence_state, confidence, validation_base_confidence
		FROM memories WHERE author_id = ?`, author); err != nil {
		return 0, 0, fmt.Errorf("store: read memories: %w", err)
	}
	for _, m := range mems {
		sum := reputation.Summarize(byMemory[m.Key]...)
		enc, conf := encodeSummary(sum), int64(sum.Confidence(reputation.Milli(m.BaseConfidence)))
		if enc == m.Summary && string(sum.State) == m.State && conf == m.Confidence {
			continue
		}
		if _, err := exec(ctx, tx, `UPDATE memories SET validation_summary_json = ?, confidence_state = ?, confidence = ? WHERE id = ?`,
			enc, sum.State, conf, m.Key); err != nil {
			return 0, 0, fmt.Errorf("store: restore summary: %w", err)
		}
		changed++
	}
	return changed, len(mems), nil
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

func writeGlobal(ctx context.Context, tx sqlx.ExtContext, author int64, ga reputation.Aggregate, now time.Time) error {
	if _, err := exec(ctx, tx, `UPDATE agent_reputation_aggregates SET raw = ?, score = ?, confidence = ?, sample_size = ?,
		positive_events = ?, negative_events = ?, trust_level = ?, updated_at = ? WHERE agent_id = ?`,
		int64(ga.Raw), int64(ga.Score()), int64(ga.Confidence()), ga.Evaluators, ga.Positive, ga.Negative, ga.Trust(), now, author); err != nil {
		return fmt.Errorf("store: write global aggregate: %w", err)
	}
	return nil
}
