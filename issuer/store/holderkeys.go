package store

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"time"

	"github.com/jmoiron/sqlx"

	"github.com/remnant/passportkit/issuer"
	"github.com/remnant/passportkit/issuer/service"
)

var _ service.HolderKeyStore = (*DB)(nil)

// SetHolderKeys replaces p's holder keys with keys, in one transaction that
// first locks p's agent row, so that two replacements of one agent's set
// take turns. A key another agent holds is issuer.CodeConflict, whether
// found before the insert or refused by the primary key when both insert
// at once. A change (a key added or removed) bumps p's subject revision
// and writes the audit event agent.holder_keys_set, naming the
// thumbprints added and removed; an unchanged set writes nothing. The
// count is checked again before commit.
func (db *DB) SetHolderKeys(ctx context.Context, p issuer.Principal, keys []issuer.HolderKey) ([]issuer.HolderKey, error) {
	var out []issuer.HolderKey
	err := db.inTx(ctx, func(tx *sqlx.Tx) error {
		now := db.timestamp()
		var locked []int64
		if err := sel(ctx, tx, &locked, `SELECT id FROM agents WHERE id = ?`+db.forUpdate(), p.Key); err != nil {
			return fmt.Errorf("store: lock agent: %w", err)
		}
		have, err := holderKeysOf(ctx, tx, p.Key)
		if err != nil {
			return err
		}
		added, removed, err := replaceHolderKeys(ctx, tx, p.Key, have, keys, now)
		if err != nil {
			return err
		}
		if len(added) == 0 && len(removed) == 0 {
			out = have
			return nil
		}
		if out, err = holderKeysOf(ctx, tx, p.Key); err != nil {
			return err
		}
		if len(out) > issuer.MaxHolderKeys {
			return issuer.Errorf(issuer.CodeTooManyItems, "an agent holds at most %d holder keys", issuer.MaxHolderKeys)
		}
		if err := db.bumpRevision(ctx, tx, now, p.Key); err != nil {
			return err
		}
		return audit(ctx, tx, now, string(p.AgentID), "agent.holder_keys_set", string(p.AgentID),
			map[string][]string{"added": added, "removed": removed})
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// replaceHolderKeys deletes agent's keys in have that keys lacks and
// inserts those of keys that have lacks, and returns the thumbprints
// added and removed.
func replaceHolderKeys(ctx context.Context, tx *sqlx.Tx, agent int64, have, keys []issuer.HolderKey, now time.Time) (added, removed []string, err error) {
	had := map[string]bool{}
	for _, h := range have {
		had[h.Thumbprint] = true
	}
	want := map[string]bool{}
	for _, k := range keys {
		want[k.Thumbprint] = true
	}
	removed, added = []string{}, []string{}
	for _, h := range have {
		if want[h.Thumbprint] {
			continue
		}
		if _, err := exec(ctx, tx, `DELETE FROM agent_holder_keys WHERE thumbprint = ? AND agent_id = ?`, h.Thumbprint, agent); err != nil {
			return nil, nil, fmt.Errorf("store: remove holder key: %w", err)
		}
		removed = append(removed, h.Thumbprint)
	}
	for _, k := range keys {
		if had[k.Thumbprint] {
			continue
		}
		if err := insertHolderKey(ctx, tx, agent, k, now); err != nil {
			return nil, nil, err
		}
		added = append(added, k.Thumbprint)
	}
	slices.Sort(added)
	slices.Sort(removed)
	return added, removed, nil
}

// insertHolderKey binds key k to agent; a key bound to another agent is a
// conflict.
func insertHolderKey(ctx context.Context, tx *sqlx.Tx, agent int64, k issuer.HolderKey, now time.Time) error {
	conflict := func(err error) error {
		return &issuer.Error{Code: issuer.CodeConflict, Message: fmt.Sprintf("the holder key %s is bound to another agent", k.Thumbprint), Err: err}
	}
	var owner []int64
	if err := sel(ctx, tx, &owner, `SELECT agent_id FROM agent_holder_keys WHERE thumbprint = ?`, k.Thumbprint); err != nil {
		return fmt.Errorf("store: read holder key: %w", err)
	}
	if len(owner) > 0 {
		return conflict(nil)
	}
	_, err := exec(ctx, tx, `INSERT INTO agent_holder_keys (thumbprint, agent_id, jwk, alg, created_at) VALUES (?, ?, ?, ?, ?)`,
		k.Thumbprint, agent, string(k.JWK), k.Algorithm, now)
	if err != nil && uniqueViolation(err) {
		return conflict(err)
	}
	if err != nil {
		return fmt.Errorf("store: add holder key: %w", err)
	}
	return nil
}

// HolderKeys returns p's holder keys, in byte order of thumbprint.
func (db *DB) HolderKeys(ctx context.Context, p issuer.Principal) ([]issuer.HolderKey, error) {
	return holderKeysOf(ctx, db.x, p.Key)
}

// holderKeysOf reads agent's holder keys, in byte order of thumbprint
// (sorted here: a PostgreSQL collation may order text otherwise).
func holderKeysOf(ctx context.Context, q sqlx.ExtContext, agent int64) ([]issuer.HolderKey, error) {
	var rows []struct {
		Thumbprint string    `db:"thumbprint"`
		Alg        string    `db:"alg"`
		JWK        string    `db:"jwk"`
		CreatedAt  time.Time `db:"created_at"`
	}
	if err := sel(ctx, q, &rows, `SELECT thumbprint, alg, jwk, created_at FROM agent_holder_keys WHERE agent_id = ?`, agent); err != nil {
		return nil, fmt.Errorf("store: read holder keys: %w", err)
	}
	out := make([]issuer.HolderKey, len(rows))
	for i, r := range rows {
		out[i] = issuer.HolderKey{Thumbprint: r.Thumbprint, Algorithm: r.Alg, JWK: json.RawMessage(r.JWK), CreatedAt: r.CreatedAt.UTC()}
	}
	slices.SortFunc(out, func(a, b issuer.HolderKey) int { return cmp.Compare(a.Thumbprint, b.Thumbprint) })
	return out, nil
}

// loadHolderKeys reads the thumbprints of agent's holder keys, in byte
// order: a subject's HolderKeys.
func loadHolderKeys(ctx context.Context, tx *sqlx.Tx, agent int64) ([]string, error) {
	var out []string
	if err := sel(ctx, tx, &out, `SELECT thumbprint FROM agent_holder_keys WHERE agent_id = ?`, agent); err != nil {
		return nil, fmt.Errorf("store: read holder keys: %w", err)
	}
	slices.Sort(out)
	return out, nil
}
