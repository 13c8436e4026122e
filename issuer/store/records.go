package store

import (
	"context"
	"fmt"
	"time"

	"github.com/jmoiron/sqlx"

	"github.com/remnant/passportkit/issuer"
	"github.com/remnant/passportkit/issuer/service"
)

// setRevision is the upsert of a subject's revision token.
const setRevision = `INSERT INTO skill_trust_revisions (agent_id, revision, updated_at) VALUES (?, ?, ?)
	ON CONFLICT (agent_id) DO UPDATE SET revision = excluded.revision, updated_at = excluded.updated_at`

// bumpRevision replaces the revision token of each agent, inside tx: the
// write that changes their evidence and the new token commit together or
// not at all.
func (db *DB) bumpRevision(ctx context.Context, tx sqlx.ExtContext, now time.Time, agents ...int64) error {
	for _, a := range agents {
		tok, err := service.NewRevisionToken(db.rand)
		if err != nil {
			return err
		}
		if _, err := exec(ctx, tx, setRevision, a, tok, now); err != nil {
			return fmt.Errorf("store: bump revision: %w", err)
		}
	}
	return nil
}

// SubjectRevision returns an agent's current revision token, "" when no
// write has changed its evidence yet. It answers for any existing agent,
// whatever its status or visibility, so that a cache keyed by it sees a
// suspension as a change.
func (db *DB) SubjectRevision(ctx context.Context, id issuer.AgentID) (string, error) {
	var rev []string
	err := sel(ctx, db.x, &rev, `SELECT COALESCE(r.revision, '') FROM agents a
		LEFT JOIN skill_trust_revisions r ON r.agent_id = a.id WHERE a.public_id = ?`, id)
	if err != nil {
		return "", fmt.Errorf("store: read revision: %w", err)
	}
	if len(rev) == 0 {
		return "", issuer.Errorf(issuer.CodeNotFound, "agent %s not found", id)
	}
	return rev[0], nil
}

// SetCapabilities replaces p's declared capabilities with caps (already
// normalised) and sets p's revision token to token. A capability declared
// before keeps its declaration time; an unchanged list writes nothing and
// keeps the revision.
func (db *DB) SetCapabilities(ctx context.Context, p issuer.Principal, caps []string, token string) ([]string, error) {
	err := db.inTx(ctx, func(tx *sqlx.Tx) error {
		now := db.timestamp()
		var have []string
		if err := sel(ctx, tx, &have, `SELECT name FROM agent_capabilities WHERE agent_id = ?`, p.Key); err != nil {
			return fmt.Errorf("store: read capabilities: %w", err)
		}
		want := make(map[string]bool, len(caps))
		for _, c := range caps {
			want[c] = true
		}
		had := make(map[string]bool, len(have))
		changed := false
		for _, h := range have {
			had[h] = true
			if !want[h] {
				changed = true
				if _, err := exec(ctx, tx, `DELETE FROM agent_capabilities WHERE agent_id = ? AND name = ?`, p.Key, h); err != nil {
					return fmt.Errorf("store: remove capability: %w", err)
				}
			}
		}
		for _, c := range caps {
			if had[c] {
				continue
			}
			changed = true
			if _, err := exec(ctx, tx, `INSERT INTO agent_capabilities (agent_id, name, declared_at) VALUES (?, ?, ?)`, p.Key, c, now); err != nil {
				return fmt.Errorf("store: declare capability: %w", err)
			}
		}
		if !changed {
			return nil
		}
		if _, err := exec(ctx, tx, setRevision, p.Key, token, now); err != nil {
			return fmt.Errorf("store: bump revision: %w", err)
		}
		return audit(ctx, tx, now, string(p.AgentID), "agent.capabilities_declared", string(p.AgentID), map[string]int{"capabilities": len(caps)})
	})
	if err != nil {
		return nil, err
	}
	return caps, nil
}
