package store

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/jmoiron/sqlx"

	"github.com/remnant/passportkit/issuer"
	"github.com/remnant/passportkit/issuer/service"
	"github.com/remnant/passportkit/reputation"
)

var _ service.SearchStore = (*DB)(nil)

// TrustSeeds returns the authors agent trusts directly, heaviest first.
func (db *DB) TrustSeeds(ctx context.Context, agent int64, max int) ([]int64, error) {
	var out []int64
	if err := sel(ctx, db.r, &out, `SELECT target_id FROM trust_edges WHERE source_id = ?
		ORDER BY weight DESC, target_id LIMIT ?`, agent, max); err != nil {
		return nil, fmt.Errorf("store: trust seeds: %w", err)
	}
	return out, nil
}

// ResolveTrustSet maps the IDs of listed agents (active and public) to
// their keys. An unlisted, private or suspended agent is missing from the
// map, as an unknown ID is.
func (db *DB) ResolveTrustSet(ctx context.Context, ids []issuer.AgentID) (map[issuer.AgentID]int64, error) {
	out := map[issuer.AgentID]int64{}
	if len(ids) == 0 {
		return out, nil
	}
	query, args, err := sqlx.In(`SELECT a.id, a.public_id FROM agents a WHERE a.public_id IN (?) AND `+listedNow, ids)
	if err != nil {
		return nil, err
	}
	var rows []struct {
		Key int64          `db:"id"`
		ID  issuer.AgentID `db:"public_id"`
	}
	if err := sel(ctx, db.r, &rows, query, args...); err != nil {
		return nil, fmt.Errorf("store: resolve trust set: %w", err)
	}
	for _, r := range rows {
		out[r.ID] = r.Key
	}
	return out, nil
}

// The neighbourhood query, one statement per engine. hood holds the nodes
// fewer than depth−1 hops from a seed, reached through at most fanOut
// out-edges per node; the final select reads the out-edges of those nodes
// under the same cap, each with its source's whole out-weight.
const (
	neighbourhoodPostgres = `WITH RECURSIVE hood (id, depth) AS (
		SELECT s.id, 0 FROM unnest(?::bigint[]) AS s (id)
		UNION
		SELECT e.target_id, h.depth + 1 FROM hood h
		CROSS JOIN LATERAL (SELECT target_id FROM trust_edges WHERE source_id = h.id
			ORDER BY weight DESC, target_id LIMIT ?) e
		WHERE h.depth < ?
	), nodes AS (SELECT DISTINCT id FROM hood)
	SELECT e.source_id, e.target_id, e.weight, t.total FROM nodes n
	CROSS JOIN LATERAL (SELECT source_id, target_id, weight FROM trust_edges WHERE source_id = n.id
		ORDER BY weight DESC, target_id LIMIT ?) e
	CROSS JOIN LATERAL (SELECT SUM(weight) AS total FROM trust_edges WHERE source_id = n.id) t`

	neighbourhoodSQLite = `WITH RECURSIVE hood (id, depth) AS (
		SELECT value, 0 FROM json_each(?)
		UNION
		SELECT e.target_id, h.depth + 1 FROM hood h JOIN trust_edges e ON e.source_id = h.id
		WHERE h.depth < ? AND e.target_id IN (SELECT x.target_id FROM trust_edges x WHERE x.source_id = h.id
			ORDER BY x.weight DESC, x.target_id LIMIT ?)
	), nodes AS (SELECT DISTINCT id FROM hood)
	SELECT e.source_id, e.target_id, e.weight,
		(SELECT SUM(t.weight) FROM trust_edges t WHERE t.source_id = n.id) AS total
	FROM nodes n JOIN trust_edges e ON e.source_id = n.id
	WHERE e.target_id IN (SELECT x.target_id FROM trust_edges x WHERE x.source_id = n.id
		ORDER BY x.weight DESC, x.target_id LIMIT ?)`
)

// TrustNeighbourhood reads the trust edges a depth-capped propagation from
// seeds needs, in one recursive query with a fan-out cap.
func (db *DB) TrustNeighbourhood(ctx context.Context, seeds []int64, depth, fanOut int) ([]service.TrustEdge, error) {
	if depth <= 0 || len(seeds) == 0 {
		return nil, nil
	}
	var (
		query string
		args  []any
	)
	if db.engine == Postgres {
		query, args = neighbourhoodPostgres, []any{seeds, fanOut, depth - 1, fanOut}
	} else {
		b, err := json.Marshal(seeds)
		if err != nil {
			return nil, err
		}
		query, args = neighbourhoodSQLite, []any{string(b), depth - 1, fanOut, fanOut}
	}
	var rows []struct {
		Source int64 `db:"source_id"`
		Target int64 `db:"target_id"`
		Weight int64 `db:"weight"`
		Total  int64 `db:"total"`
	}
	if err := sel(ctx, db.r, &rows, query, args...); err != nil {
		return nil, fmt.Errorf("store: trust neighbourhood: %w", err)
	}
	out := make([]service.TrustEdge, len(rows))
	for i, r := range rows {
		out[i] = service.TrustEdge{Source: r.Source, Target: r.Target, Weight: r.Weight, Total: r.Total}
	}
	return out, nil
}

// readableMatch is the condition on memory m (author a) for viewer (the
// one argument): visible to all, or the viewer's own active memory.
const readableMatch = `m.status = 'active' AND a.status = 'active' AND (m.visibility = 'public' OR m.author_id = ?)`

// SearchCandidates returns the most relevant memories viewer may read
// holding every term: by ts_rank_cd on PostgreSQL (title terms weigh A,
// content terms B) and by BM25 on SQLite (title 10, content 1).
func (db *DB) SearchCandidates(ctx context.Context, viewer int64, terms []string, max int) ([]service.SearchCandidate, bool, error) {
	if len(terms) == 0 {
		return nil, false, issuer.Errorf(issuer.CodeInvalid, "a search needs at least one word")
	}
	const cols = candidateColumns
	var query string
	var match string
	if db.engine == Postgres {
		// plainto_tsquery parses the words as plain text and ANDs them.
		match = strings.Join(terms, " ")
		query = `SELECT ` + cols + `, ts_rank_cd(m.search_vector, q) AS relevance
			FROM memories m JOIN agents a ON a.id = m.author_id, plainto_tsquery('english', ?) q
			WHERE m.search_vector @@ q AND ` + readableMatch + `
			ORDER BY relevance DESC, m.id DESC LIMIT ?`
	} else {
		// Each term is quoted, so FTS5 reads it as a string, never as
		// query syntax; terms separated by spaces are ANDed.
		quoted := make([]string, len(terms))
		for i, t := range terms {
			quoted[i] = `"` + strings.ReplaceAll(t, `"`, `""`) + `"`
		}
		match = strings.Join(quoted, " ")
		query = `SELECT ` + cols + `, -bm25(memories_fts, 10.0, 1.0) AS relevance
			FROM memories_fts JOIN memories m ON m.id = memories_fts.rowid JOIN agents a ON a.id = m.author_id
			WHERE memories_fts MATCH ? AND ` + readableMatch + `
			ORDER BY relevance DESC, m.id DESC LIMIT ?`
	}
	var rows []struct {
		candidateRow
		Relevance float64 `db:"relevance"`
	}
	if err := sel(ctx, db.r, &rows, query, match, viewer, max+1); err != nil {
		return nil, false, fmt.Errorf("store: search: %w", err)
	}
	more := len(rows) > max
	if more {
		rows = rows[:max]
	}
	out := make([]service.SearchCandidate, len(rows))
	for i, r := range rows {
		out[i] = r.candidate(viewer)
		out[i].Relevance = r.Relevance
	}
	return out, more, nil
}

// SearchSignals reads the signals on memories: the visible memories
// contradicting them up to depth links away, the eligible positions on all
// of these, and the facts of every agent named. The reads share one
// read-only snapshot.
func (db *DB) SearchSignals(ctx context.Context, memories []int64, depth int) (*service.SearchSignals, error) {
	if len(memories) == 0 {
		return &service.SearchSignals{Agents: map[int64]service.AgentFacts{}}, nil
	}
	var out *service.SearchSignals
	err := db.snapshot(ctx, db.r, func(tx *sqlx.Tx) (err error) {
		out, err = searchSignals(ctx, tx, db.engine, memories, depth)
		return err
	})
	return out, err
}

func searchSignals(ctx context.Context, tx *sqlx.Tx, engine Engine, memories []int64, depth int) (*service.SearchSignals, error) {
	out := &service.SearchSignals{Agents: map[int64]service.AgentFacts{}}
	seeds, err := json.Marshal(memories)
	if err != nil {
		return nil, err
	}
	// The contradicting memories, transitively, depth+1 links deep so that
	// a contradiction past the cap is seen.
	links := `WITH RECURSIVE att (attacker, target, depth) AS (
			SELECT l.memory_id, l.target_id, 1 FROM memory_links l
			JOIN memories m ON m.id = l.memory_id JOIN agents a ON a.id = m.author_id
			WHERE l.kind = 'contradicts' AND l.target_id IN (SELECT value FROM json_each(?))
				AND m.status = 'active' AND m.visibility = 'public' AND a.status = 'active'
			UNION
			SELECT l.memory_id, l.target_id, att.depth + 1 FROM att JOIN memory_links l ON l.target_id = att.attacker
			JOIN memories m ON m.id = l.memory_id JOIN agents a ON a.id = m.author_id
			WHERE l.kind = 'contradicts' AND att.depth <= ?
				AND m.status = 'active' AND m.visibility = 'public' AND a.status = 'active'
		)
		SELECT DISTINCT att.attacker, att.target, m.author_id FROM att JOIN memories m ON m.id = att.attacker`
	if engine == Postgres {
		links = strings.Replace(links, `SELECT value FROM json_each(?)`, `SELECT value::bigint FROM jsonb_array_elements_text(?::jsonb)`, 1)
	}
	var linkRows []struct {
		Attacker int64 `db:"attacker"`
		Target   int64 `db:"target"`
		Author   int64 `db:"author_id"`
	}
	if err := sel(ctx, tx, &linkRows, links, string(seeds), depth); err != nil {
		return nil, fmt.Errorf("store: search contradictions: %w", err)
	}
	all := append([]int64(nil), memories...)
	for _, l := range linkRows {
		out.Contradictions = append(out.Contradictions, service.ContradictionLink{Attacker: l.Attacker, Target: l.Target, Author: l.Author})
		all = append(all, l.Attacker)
	}
	query, args, err := sqlx.In(`SELECT f.memory_id, f.public_id, f.evaluator_id, f.type, f.created_at, f.updated_at,
		COALESCE(f.evidence_type, '') AS evidence_type, f.reason <> '' AS has_reason
		FROM feedback f WHERE f.eligible AND f.memory_id IN (?)`, all)
	if err != nil {
		return nil, err
	}
	var posRows []struct {
		Memory    int64     `db:"memory_id"`
		ID        string    `db:"public_id"`
		Evaluator int64     `db:"evaluator_id"`
		Type      string    `db:"type"`
		CreatedAt time.Time `db:"created_at"`
		UpdatedAt time.Time `db:"updated_at"`
		Evidence  string    `db:"evidence_type"`
		HasReason bool      `db:"has_reason"`
	}
	if err := sel(ctx, tx, &posRows, query, args...); err != nil {
		return nil, fmt.Errorf("store: search positions: %w", err)
	}
	// The renewals of the confirmations read.
	renewals := map[string][]time.Time{}
	if len(posRows) > 0 {
		ids := make([]string, len(posRows))
		for i, p := range posRows {
			ids[i] = p.ID
		}
		query, args, err := sqlx.In(`SELECT f.public_id, r.renewed_at FROM position_renewals r JOIN feedback f ON f.id = r.feedback_id
			WHERE f.public_id IN (?) ORDER BY r.renewed_at`, ids)
		if err != nil {
			return nil, err
		}
		var rows []struct {
			ID        string    `db:"public_id"`
			RenewedAt time.Time `db:"renewed_at"`
		}
		if err := sel(ctx, tx, &rows, query, args...); err != nil {
			return nil, fmt.Errorf("store: search renewals: %w", err)
		}
		for _, r := range rows {
			renewals[r.ID] = append(renewals[r.ID], r.RenewedAt.UTC())
		}
	}
	agents := map[int64]bool{}
	for _, p := range posRows {
		out.Positions = append(out.Positions, service.SignalPosition{Memory: p.Memory, ID: issuer.ValidationID(p.ID),
			Evaluator: p.Evaluator, Type: reputation.Type(p.Type), CreatedAt: p.CreatedAt.UTC(), UpdatedAt: p.UpdatedAt.UTC(),
			Evidence: issuer.EvidenceType(p.Evidence), TextEvidence: p.HasReason, Renewals: renewals[p.ID]})
		agents[p.Evaluator] = true
	}
	// The accepts of the matched memories, and the visible memories that
	// cite them (derivedFrom, extends, refs).
	query, args, err = sqlx.In(`SELECT ca.memory_id, ca.agent_id, ca.updated_at FROM consultation_accepts ca
		WHERE ca.memory_id IN (?)`, memories)
	if err != nil {
		return nil, err
	}
	var acceptRows []struct {
		Memory    int64     `db:"memory_id"`
		Agent     int64     `db:"agent_id"`
		UpdatedAt time.Time `db:"updated_at"`
	}
	if err := sel(ctx, tx, &acceptRows, query, args...); err != nil {
		return nil, fmt.Errorf("store: search accepts: %w", err)
	}
	for _, a := range acceptRows {
		out.Accepts = append(out.Accepts, service.SignalAccept{Memory: a.Memory, Agent: a.Agent, UpdatedAt: a.UpdatedAt.UTC()})
		agents[a.Agent] = true
	}
	query, args, err = sqlx.In(`SELECT DISTINCT l.target_id, m.author_id FROM memory_links l
		JOIN memories m ON m.id = l.memory_id JOIN agents a ON a.id = m.author_id
		WHERE l.kind IN ('derivedFrom', 'extends', 'refs') AND l.target_id IN (?)
			AND m.status = 'active' AND m.visibility = 'public' AND a.status = 'active'`, memories)
	if err != nil {
		return nil, err
	}
	var citeRows []struct {
		Target int64 `db:"target_id"`
		Author int64 `db:"author_id"`
	}
	if err := sel(ctx, tx, &citeRows, query, args...); err != nil {
		return nil, fmt.Errorf("store: search citations: %w", err)
	}
	for _, c := range citeRows {
		out.Citations = append(out.Citations, service.SignalCitation{Memory: c.Target, Author: c.Author})
		agents[c.Author] = true
	}
	for _, l := range linkRows {
		agents[l.Author] = true
	}
	query, args, err = sqlx.In(`SELECT DISTINCT author_id FROM memories WHERE id IN (?)`, memories)
	if err != nil {
		return nil, err
	}
	var authors []int64
	if err := sel(ctx, tx, &authors, query, args...); err != nil {
		return nil, fmt.Errorf("store: search authors: %w", err)
	}
	for _, a := range authors {
		agents[a] = true
	}
	keys := make([]int64, 0, len(agents))
	for k := range agents {
		keys = append(keys, k)
	}
	query, args, err = sqlx.In(`SELECT a.id, a.created_at, COALESCE(b.operator_id, 0) AS operator_id
		FROM agents a LEFT JOIN agent_owner_bindings b ON b.agent_id = a.id AND b.unbound_at IS NULL
		WHERE a.id IN (?)`, keys)
	if err != nil {
		return nil, err
	}
	var agentRows []struct {
		Key      int64     `db:"id"`
		Since    time.Time `db:"created_at"`
		Operator int64     `db:"operator_id"`
	}
	if err := sel(ctx, tx, &agentRows, query, args...); err != nil {
		return nil, fmt.Errorf("store: search agents: %w", err)
	}
	for _, a := range agentRows {
		out.Agents[a.Key] = service.AgentFacts{Since: a.Since.UTC(), Operator: a.Operator}
	}
	return out, nil
}
