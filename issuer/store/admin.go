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
)

// ActorAdmin is the audit actor of operator commands.
const ActorAdmin = "admin"

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

// CreateOperator records a new operator, a known owner of agents.
func (db *DB) CreateOperator(ctx context.Context, name string) (issuer.OperatorID, error) {
	name, err := issuer.CleanOperatorName(name)
	if err != nil {
		return "", err
	}
	id, err := issuer.NewOperatorID(db.rand)
	if err != nil {
		return "", err
	}
	err = db.inTx(ctx, func(tx *sqlx.Tx) error {
		now := db.timestamp()
		if _, err := exec(ctx, tx, `INSERT INTO operators (public_id, name, created_at) VALUES (?, ?, ?)`, id, name, now); err != nil {
			return fmt.Errorf("store: create operator: %w", err)
		}
		return audit(ctx, tx, now, ActorAdmin, "operator.created", string(id), map[string]string{"name": name})
	})
	return id, err
}

// NewAgent describes an agent to create.
type NewAgent struct {
	Name        string
	Description string
	// Operator, if set, becomes the agent's owner from now on.
	Operator issuer.OperatorID
	// Scopes of the agent's first key; [issuer.DefaultScopes] when empty.
	Scopes []issuer.Scope
	// Visibility of the profile; public when empty.
	Visibility issuer.Visibility
}

// CreatedAgent is a new agent and its first key. The key is not stored and
// cannot be shown again.
type CreatedAgent struct {
	ID  issuer.AgentID
	Key issuer.APIKey
}

// CreateAgent records a new agent with one API key, and its owner binding
// when an operator is named.
func (db *DB) CreateAgent(ctx context.Context, in NewAgent) (CreatedAgent, error) {
	var out CreatedAgent
	name, err := issuer.CleanAgentName(in.Name)
	if err != nil {
		return out, err
	}
	desc, err := issuer.CleanAgentDescription(in.Description)
	if err != nil {
		return out, err
	}
	scopes := in.Scopes
	if len(scopes) == 0 {
		scopes = issuer.DefaultScopes
	}
	if scopes, err = issuer.ParseScopes(issuer.FormatScopes(scopes)); err != nil {
		return out, err
	}
	vis := in.Visibility
	if vis == "" {
		vis = issuer.VisibilityPublic
	}
	if _, err := issuer.ParseVisibility(string(vis)); err != nil {
		return out, err
	}
	if out.ID, err = issuer.NewAgentID(db.rand); err != nil {
		return out, err
	}
	if out.Key, err = issuer.NewAPIKey(db.rand); err != nil {
		return out, err
	}
	err = db.inTx(ctx, func(tx *sqlx.Tx) error {
		now := db.timestamp()
		var opKey int64
		if in.Operator != "" {
			if err := get(ctx, tx, &opKey, `SELECT id FROM operators WHERE public_id = ?`, in.Operator); err != nil {
				return notFound(err, "operator %s not found", in.Operator)
			}
		}
		agentKey, err := insertID(ctx, tx, `INSERT INTO agents (public_id, name, description, status, visibility, created_at, updated_at)
			VALUES (?, ?, ?, 'active', ?, ?, ?)`, out.ID, name, desc, vis, now, now)
		if err != nil {
			return fmt.Errorf("store: create agent: %w", err)
		}
		if _, err := exec(ctx, tx, `INSERT INTO agent_reputation_aggregates
			(agent_id, raw, score, confidence, sample_size, positive_events, negative_events, trust_level, updated_at)
			VALUES (?, 0, 0, 0, 0, 0, 0, 'new', ?)`, agentKey, now); err != nil {
			return fmt.Errorf("store: create agent aggregate: %w", err)
		}
		if _, err := exec(ctx, tx, `INSERT INTO api_keys (agent_id, key_hash, scopes, created_at) VALUES (?, ?, ?, ?)`,
			agentKey, out.Key.Hash(), issuer.FormatScopes(scopes), now); err != nil {
			return fmt.Errorf("store: create api key: %w", err)
		}
		detail := map[string]any{"name": name, "scopes": scopes, "visibility": vis}
		if in.Operator != "" {
			if _, err := exec(ctx, tx, `INSERT INTO agent_owner_bindings (agent_id, operator_id, bound_at) VALUES (?, ?, ?)`,
				agentKey, opKey, now); err != nil {
				return fmt.Errorf("store: bind owner: %w", err)
			}
			detail["operator"] = in.Operator
		}
		return audit(ctx, tx, now, ActorAdmin, "agent.created", string(out.ID), detail)
	})
	if err != nil {
		return CreatedAgent{}, err
	}
	return out, nil
}

// BindOwner makes op the owner of agent from now on. The agent's previous
// binding, if any, is closed, not removed: ownership history stays, so a
// change of owner cannot make earlier siblings independent.
func (db *DB) BindOwner(ctx context.Context, op issuer.OperatorID, agent issuer.AgentID) error {
	return db.inTx(ctx, func(tx *sqlx.Tx) error {
		now := db.timestamp()
		var opKey, agentKey int64
		if err := get(ctx, tx, &opKey, `SELECT id FROM operators WHERE public_id = ?`, op); err != nil {
			return notFound(err, "operator %s not found", op)
		}
		if err := get(ctx, tx, &agentKey, `SELECT id FROM agents WHERE public_id = ?`, agent); err != nil {
			return notFound(err, "agent %s not found", agent)
		}
		var current []int64
		if err := sel(ctx, tx, &current, `SELECT operator_id FROM agent_owner_bindings WHERE agent_id = ? AND unbound_at IS NULL`, agentKey); err != nil {
			return fmt.Errorf("store: read owner: %w", err)
		}
		if len(current) == 1 && current[0] == opKey {
			return nil
		}
		if _, err := exec(ctx, tx, `UPDATE agent_owner_bindings SET unbound_at = ? WHERE agent_id = ? AND unbound_at IS NULL`, now, agentKey); err != nil {
			return fmt.Errorf("store: close owner binding: %w", err)
		}
		if _, err := exec(ctx, tx, `INSERT INTO agent_owner_bindings (agent_id, operator_id, bound_at) VALUES (?, ?, ?)`, agentKey, opKey, now); err != nil {
			return fmt.Errorf("store: bind owner: %w", err)
		}
		deps, err := dependents(ctx, tx, agentKey, true)
		if err != nil {
			return err
		}
		if err := db.bumpRevision(ctx, tx, now, append(deps, agentKey)...); err != nil {
			return err
		}
		return audit(ctx, tx, now, ActorAdmin, "agent.owner_bound", string(agent), map[string]any{"operator": op})
	})
}

// SetAgentStatus suspends or reactivates an agent. A suspended agent cannot
// act, and its profile and memories are hidden.
func (db *DB) SetAgentStatus(ctx context.Context, agent issuer.AgentID, status issuer.AgentStatus) error {
	if _, err := issuer.ParseAgentStatus(string(status)); err != nil {
		return err
	}
	return db.inTx(ctx, func(tx *sqlx.Tx) error {
		now := db.timestamp()
		var prev struct {
			Key    int64  `db:"id"`
			Status string `db:"status"`
		}
		if err := get(ctx, tx, &prev, `SELECT id, status FROM agents WHERE public_id = ?`+db.forUpdate(), agent); err != nil {
			return notFound(err, "agent %s not found", agent)
		}
		if prev.Status == string(status) {
			return nil
		}
		if _, err := exec(ctx, tx, `UPDATE agents SET status = ?, updated_at = ? WHERE public_id = ?`, status, now, agent); err != nil {
			return fmt.Errorf("store: set agent status: %w", err)
		}
		deps, err := dependents(ctx, tx, prev.Key, false)
		if err != nil {
			return err
		}
		if err := db.bumpRevision(ctx, tx, now, append(deps, prev.Key)...); err != nil {
			return err
		}
		return audit(ctx, tx, now, ActorAdmin, "agent.status_changed", string(agent), map[string]string{"from": prev.Status, "to": string(status)})
	})
}

// ModerateMemory changes a memory's visibility on behalf of actor (an
// operator command, or an agent with the admin scope) and returns the
// previous status. Reputation already earned through the memory stays; the
// public explanation hides references to a memory that is not active.
func (db *DB) ModerateMemory(ctx context.Context, actor string, mem issuer.MemoryID, m issuer.Moderation) (issuer.MemoryStatus, error) {
	var prev issuer.MemoryStatus
	err := db.inTx(ctx, func(tx *sqlx.Tx) error {
		now := db.timestamp()
		if err := get(ctx, tx, &prev, `SELECT status FROM memories WHERE public_id = ?`+db.forUpdate(), mem); err != nil {
			return notFound(err, "memory %s not found", mem)
		}
		if prev == m.Status {
			return nil
		}
		var row struct {
			Key        int64  `db:"id"`
			Author     int64  `db:"author_id"`
			Visibility string `db:"visibility"`
		}
		if err := get(ctx, tx, &row, `UPDATE memories SET status = ?, updated_at = ? WHERE public_id = ? RETURNING id, author_id, visibility`, m.Status, now, mem); err != nil {
			return fmt.Errorf("store: moderate: %w", err)
		}
		author := row.Author
		deps, err := memoryDependents(ctx, tx, row.Key, author)
		if err != nil {
			return err
		}
		if err := db.bumpRevision(ctx, tx, now, append(deps, author)...); err != nil {
			return err
		}
		if row.Visibility == string(issuer.MemoryPublic) && (prev == issuer.MemoryActive || m.Status == issuer.MemoryActive) {
			n := 1
			if prev == issuer.MemoryActive {
				n = -1
			}
			if err := addActivity(ctx, tx, author, countPublished, n); err != nil {
				return err
			}
		}
		return audit(ctx, tx, now, actor, "memory.moderated", string(mem), map[string]string{"from": string(prev), "to": string(m.Status), "reason": m.Reason})
	})
	return prev, err
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

// RotateKey revokes every key of agent and issues a new one, with the given
// scopes or, when none are given, those of its most recent key. The new key
// is returned once and not stored.
func (db *DB) RotateKey(ctx context.Context, agent issuer.AgentID, scopes []issuer.Scope) (issuer.APIKey, error) {
	key, err := issuer.NewAPIKey(db.rand)
	if err != nil {
		return "", err
	}
	if len(scopes) > 0 {
		if scopes, err = issuer.ParseScopes(issuer.FormatScopes(scopes)); err != nil {
			return "", err
		}
	}
	err = db.inTx(ctx, func(tx *sqlx.Tx) error {
		now := db.timestamp()
		var agentKey int64
		if err := get(ctx, tx, &agentKey, `SELECT id FROM agents WHERE public_id = ?`, agent); err != nil {
			return notFound(err, "agent %s not found", agent)
		}
		stored := issuer.FormatScopes(scopes)
		if len(scopes) == 0 {
			if err := get(ctx, tx, &stored, `SELECT scopes FROM api_keys WHERE agent_id = ? ORDER BY id DESC LIMIT 1`, agentKey); err != nil {
				return notFound(err, "agent %s has no key to take scopes from; name them", agent)
			}
		}
		revoked, err := exec(ctx, tx, `UPDATE api_keys SET revoked_at = ? WHERE agent_id = ? AND revoked_at IS NULL`, now, agentKey)
		if err != nil {
			return fmt.Errorf("store: revoke keys: %w", err)
		}
		n, _ := revoked.RowsAffected()
		if _, err := exec(ctx, tx, `INSERT INTO api_keys (agent_id, key_hash, scopes, created_at) VALUES (?, ?, ?, ?)`,
			agentKey, key.Hash(), stored, now); err != nil {
			return fmt.Errorf("store: create api key: %w", err)
		}
		return audit(ctx, tx, now, ActorAdmin, "agent.key_rotated", string(agent), map[string]any{"revoked": n, "scopes": stored})
	})
	if err != nil {
		return "", err
	}
	return key, nil
}
