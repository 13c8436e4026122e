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

// SubjectRevision returns a listed agent's current revision: the
// service.PassportRevision of its revision token ("" when no write has
// changed its evidence yet) and the keys epoch, read in one statement. An
// unknown agent and one that is unlisted, private or suspended are
// not_found alike, after the same one statement that yields no row.
func (db *DB) SubjectRevision(ctx context.Context, id issuer.AgentID) (string, error) {
	return db.revision(ctx, id, `a.public_id = ? AND `+listedNow)
}

// RevisionOf returns an agent's current revision, whatever its status
// or visibility, for the discovery indexer, which enters a hidden agent as
// not listed. An unknown agent is not_found.
func (db *DB) RevisionOf(ctx context.Context, id issuer.AgentID) (string, error) {
	return db.revision(ctx, id, `a.public_id = ?`)
}

// revisionColumns reads, on the agent row a, its revision token and the
// keys epoch: the two halves of a service.PassportRevision, in one
// statement. LoadSubject's first statement reads them too.
const revisionColumns = `COALESCE(r.revision, '') AS revision, COALESCE((SELECT epoch FROM issuer_keys_epoch), '') AS keys_epoch`

// revision reads the revision of the agent id, which the condition where
// on the agent row a finds with id as its one parameter.
func (db *DB) revision(ctx context.Context, id issuer.AgentID, where string) (string, error) {
	var rev []struct {
		Subject string `db:"revision"`
		Keys    string `db:"keys_epoch"`
	}
	err := sel(ctx, db.x, &rev, `SELECT `+revisionColumns+` FROM agents a
		LEFT JOIN skill_trust_revisions r ON r.agent_id = a.id WHERE `+where, id)
	if err != nil {
		return "", fmt.Errorf("store: read revision: %w", err)
	}
	if len(rev) == 0 {
		return "", issuer.Errorf(issuer.CodeNotFound, "agent %s not found", id)
	}
	return service.PassportRevision(rev[0].Subject, rev[0].Keys), nil
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
