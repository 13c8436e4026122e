package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/jmoiron/sqlx"

	"github.com/remnant/passportkit/issuer"
	"github.com/remnant/passportkit/issuer/service"
)

// audit appends an audit event in tx.
func audit(ctx context.Context, tx sqlx.ExtContext, at any, actor, action, subject string, detail any) error {
	b, err := json.Marshal(detail)
	if err != nil {
		return fmt.Errorf("store: audit detail: %w", err)
	}
	_, err = exec(ctx, tx, `INSERT INTO audit_events (actor, action, subject, detail, created_at) VALUES (?, ?, ?, ?, ?)`,
		actor, action, subject, string(b), at)
	if err != nil {
		return fmt.Errorf("store: audit: %w", err)
	}
	return nil
}

// agentKey finds the key of the agent named by public ID, the parameter
// that follows.
const agentKey = `(SELECT id FROM agents WHERE public_id = ?)`

// loadRelated reads, for the records of an agent (agentRelated) or of one
// memory (memoryRelated), the other authors whose records involve them,
// each relation once, in one statement: the authors of memories linking
// to them, of memories they link to, and, for an agent, of memories it
// validated or reported an outcome on. Which relation makes whose passport
// stale is the service's decision (service.Relation.Affected).
func loadRelated(ctx context.Context, br batchRunner, q service.RelatedQuery) ([]service.Relation, error) {
	query, args := memoryRelated, []any{q.Memory, q.Memory}
	if q.Agent != "" {
		query, args = agentRelated, []any{q.Agent, q.Agent, q.Agent, q.Agent}
	}
	var out []service.Relation
	var b batch
	b.read(func(r rows) error {
		var rel service.Relation
		err := r.Scan(&rel.Author, &rel.Kind, &rel.Link)
		out = append(out, rel)
		return err
	}, query, args...)
	if err := br.run(ctx, b, false); err != nil {
		return nil, fmt.Errorf("store: read related authors: %w", err)
	}
	return out, nil
}

// agentRelated is loadRelated's query for the agent its four parameters
// name by public ID.
const agentRelated = `SELECT m.author_id, 'linking_to', l.kind FROM memory_links l
		JOIN memories m ON m.id = l.memory_id JOIN memories t ON t.id = l.target_id WHERE t.author_id = ` + agentKey + `
	UNION SELECT t.author_id, 'linked_from', l.kind FROM memory_links l
		JOIN memories m ON m.id = l.memory_id JOIN memories t ON t.id = l.target_id WHERE m.author_id = ` + agentKey + `
	UNION SELECT m.author_id, 'acted_on', '' FROM feedback f JOIN memories m ON m.id = f.memory_id WHERE f.evaluator_id = ` + agentKey + `
	UNION SELECT m.author_id, 'acted_on', '' FROM memory_outcomes o JOIN memories m ON m.id = o.memory_id WHERE o.evaluator_id = ` + agentKey

// memoryKey finds the key of the memory named by public ID, the parameter
// that follows.
const memoryKey = `(SELECT id FROM memories WHERE public_id = ?)`

// memoryRelated is loadRelated's query for the memory its two parameters
// name by public ID.
const memoryRelated = `SELECT m.author_id, 'linking_to', l.kind FROM memory_links l
		JOIN memories m ON m.id = l.memory_id WHERE l.target_id = ` + memoryKey + `
	UNION SELECT t.author_id, 'linked_from', l.kind FROM memory_links l
		JOIN memories t ON t.id = l.target_id WHERE l.memory_id = ` + memoryKey

// loadAgent reads what q names in one batch: the operator, then the agent
// locked, with its current owner and keys. The statements find the
// agent by its public ID, so that none waits for another's answer.
func loadAgent(ctx context.Context, br batchRunner, q service.AgentQuery) (*service.AgentState, error) {
	st := &service.AgentState{}
	var b batch
	if q.Operator != "" {
		b.read(func(r rows) error { return r.Scan(&st.Operator) }, `SELECT id FROM operators WHERE public_id = ?`, q.Operator)
	}
	if q.Agent != "" {
		// The owner and the keys are read with the agent's row, in one
		// statement.
		cols := `a.id, a.status, a.visibility`
		if q.Owner {
			cols += `, (SELECT o.operator_id FROM agent_owner_bindings o WHERE o.agent_id = a.id AND o.unbound_at IS NULL)`
		}
		if q.APIKeys {
			cols += `, (SELECT COUNT(*) FROM api_keys k WHERE k.agent_id = a.id AND k.revoked_at IS NULL),
				(SELECT k.scopes FROM api_keys k WHERE k.agent_id = a.id ORDER BY k.id DESC LIMIT 1)`
		}
		b.read(func(r rows) error {
			a := &service.AgentRecord{}
			dest := []any{&a.Key, &a.Status, &a.Visibility}
			var owner sql.NullInt64
			var scopes sql.NullString
			if q.Owner {
				dest = append(dest, &owner)
			}
			if q.APIKeys {
				dest = append(dest, &st.LiveKeys, &scopes)
			}
			if err := r.Scan(dest...); err != nil {
				return err
			}
			if scopes.Valid {
				st.LatestScopes = &scopes.String
			}
			st.Agent, st.Owner = a, owner.Int64
			return nil
		}, `SELECT `+cols+` FROM agents a WHERE a.public_id = ?`+br.rowLock(), q.Agent)
	}
	if err := br.run(ctx, b, false); err != nil {
		return nil, fmt.Errorf("store: read agent: %w", err)
	}
	return st, nil
}

// writeAgent writes plan in one batch.
func writeAgent(ctx context.Context, br batchRunner, plan *service.AgentPlan) error {
	now, agent := plan.Now, plan.Agent
	var b batch
	if plan.Status != "" {
		b.add(`UPDATE agents SET status = ?, updated_at = ? WHERE id = ?`, plan.Status, now, agent)
	}
	if plan.Visibility != "" {
		b.add(`UPDATE agents SET visibility = ?, updated_at = ? WHERE id = ?`, plan.Visibility, now, agent)
	}
	if plan.Owner != 0 {
		b.add(`UPDATE agent_owner_bindings SET unbound_at = ? WHERE agent_id = ? AND unbound_at IS NULL`, now, agent)
		b.add(`INSERT INTO agent_owner_bindings (agent_id, operator_id, bound_at) VALUES (?, ?, ?)`, agent, plan.Owner, now)
	}
	if k := plan.APIKey; k != nil {
		b.add(`UPDATE api_keys SET revoked_at = ? WHERE agent_id = ? AND revoked_at IS NULL`, now, agent)
		b.add(`INSERT INTO api_keys (agent_id, key_hash, scopes, created_at) VALUES (?, ?, ?, ?)`, agent, k.Hash, k.Scopes, now)
	}
	b.revisions(plan.Revisions, now)
	if err := b.audit(plan.Audit, now); err != nil {
		return err
	}
	if err := br.run(ctx, b, true); err != nil {
		return fmt.Errorf("store: change agent: %w", err)
	}
	return nil
}

// writeNewAgent writes plan in one batch: the agent, its empty global
// aggregate, its first key and its owner binding, each finding the agent
// by its public ID.
func writeNewAgent(ctx context.Context, br batchRunner, plan *service.NewAgentPlan) error {
	now, id := plan.Now, plan.ID
	var b batch
	b.add(`INSERT INTO agents (public_id, name, description, status, visibility, created_at, updated_at)
		VALUES (?, ?, ?, 'active', ?, ?, ?)`, id, plan.Name, plan.Description, plan.Visibility, now, now)
	b.add(`INSERT INTO agent_reputation_aggregates
		(agent_id, raw, score, confidence, sample_size, positive_events, negative_events, trust_level, updated_at)
		VALUES (`+agentKey+`, 0, 0, 0, 0, 0, 0, 'new', ?)`, id, now)
	b.add(`INSERT INTO api_keys (agent_id, key_hash, scopes, created_at) VALUES (`+agentKey+`, ?, ?, ?)`,
		id, plan.APIKey.Hash, plan.APIKey.Scopes, now)
	if plan.Operator != 0 {
		b.add(`INSERT INTO agent_owner_bindings (agent_id, operator_id, bound_at) VALUES (`+agentKey+`, ?, ?)`, id, plan.Operator, now)
	}
	if err := b.audit(plan.Audit, now); err != nil {
		return err
	}
	if err := br.run(ctx, b, true); err != nil {
		return fmt.Errorf("store: create agent: %w", err)
	}
	return nil
}

// writeNewOperator writes plan in one batch.
func writeNewOperator(ctx context.Context, br batchRunner, plan *service.NewOperatorPlan) error {
	var b batch
	b.add(`INSERT INTO operators (public_id, name, created_at) VALUES (?, ?, ?)`, plan.ID, plan.Name, plan.Now)
	if err := b.audit(plan.Audit, plan.Now); err != nil {
		return err
	}
	if err := br.run(ctx, b, true); err != nil {
		return fmt.Errorf("store: create operator: %w", err)
	}
	return nil
}

// loadModeration reads the memory mem, locked.
func loadModeration(ctx context.Context, br batchRunner, mem issuer.MemoryID) (*service.ModerationState, error) {
	st := &service.ModerationState{}
	var b batch
	b.read(func(r rows) error {
		m := &service.MemoryRecord{}
		if err := r.Scan(&m.Key, &m.Author, &m.AuthorStatus, &m.Status, &m.Visibility); err != nil {
			return err
		}
		st.Memory = m
		return nil
	}, `SELECT id, author_id, (SELECT status FROM agents WHERE id = author_id), status, visibility
		FROM memories WHERE public_id = ?`+br.rowLock(), mem)
	if err := br.run(ctx, b, false); err != nil {
		return nil, fmt.Errorf("store: read memory: %w", err)
	}
	return st, nil
}

// writeModeration writes plan in one batch.
func writeModeration(ctx context.Context, br batchRunner, plan *service.ModerationPlan) error {
	var b batch
	b.add(`UPDATE memories SET status = ?, updated_at = ? WHERE id = ?`, plan.Status, plan.Now, plan.Memory)
	b.revisions(plan.Revisions, plan.Now)
	if err := b.activity(plan.Activity); err != nil {
		return err
	}
	if err := b.audit(plan.Audit, plan.Now); err != nil {
		return err
	}
	if err := br.run(ctx, b, true); err != nil {
		return fmt.Errorf("store: moderate: %w", err)
	}
	return nil
}

// Authenticate resolves an API key to the agent it belongs to. It writes
// nothing: authentication activity is not business data.
func (db *DB) Authenticate(ctx context.Context, key issuer.APIKey) (issuer.Principal, error) {
	var row struct {
		Key      int64  `db:"id"`
		PublicID string `db:"public_id"`
		Status   string `db:"status"`
		Scopes   string `db:"scopes"`
	}
	err := get(ctx, db.x, &row, `SELECT a.id, a.public_id, a.status, k.scopes
		FROM api_keys k JOIN agents a ON a.id = k.agent_id
		WHERE k.key_hash = ? AND k.revoked_at IS NULL`, key.Hash())
	if errors.Is(err, sql.ErrNoRows) {
		return issuer.Principal{}, issuer.Errorf(issuer.CodeUnauthorized, "the API key is not valid")
	}
	if err != nil {
		return issuer.Principal{}, fmt.Errorf("store: authenticate: %w", err)
	}
	p := issuer.Principal{Key: row.Key, AgentID: issuer.AgentID(row.PublicID), Status: issuer.AgentStatus(row.Status)}
	for _, s := range strings.Fields(row.Scopes) {
		p.Scopes = append(p.Scopes, issuer.Scope(s))
	}
	return p, nil
}
