package store

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/jmoiron/sqlx"

	"github.com/remnant/passportkit/issuer"
	"github.com/remnant/passportkit/issuer/service"
)

var _ service.HolderKeyStore = (*DB)(nil)

// loadHolderKeyState locks agent's row, so that two replacements of one
// agent's set take turns, then reads its holder keys and the agents the
// keys named by thumbprints are bound to, in one batch of two statements.
func loadHolderKeyState(ctx context.Context, br batchRunner, agent int64, thumbprints []string) (*service.HolderKeyState, error) {
	st := &service.HolderKeyState{Owners: map[string]int64{}}
	var b batch
	b.read(func(r rows) error {
		var id int64
		return r.Scan(&id)
	}, `SELECT id FROM agents WHERE id = ?`+br.rowLock(), agent)
	// One statement reads the agent's keys and those of the keys named.
	args := []any{agent}
	for _, t := range thumbprints {
		args = append(args, t)
	}
	named := "NULL"
	if len(thumbprints) > 0 {
		named = placeholders(len(thumbprints))
	}
	b.read(func(r rows) error {
		var k issuer.HolderKey
		var owner int64
		var jwk string
		if err := r.Scan(&k.Thumbprint, &owner, &k.Algorithm, &jwk, &k.CreatedAt); err != nil {
			return err
		}
		k.JWK, k.CreatedAt = json.RawMessage(jwk), k.CreatedAt.UTC()
		if owner == agent {
			st.Held = append(st.Held, k)
		}
		if slices.Contains(thumbprints, k.Thumbprint) {
			st.Owners[k.Thumbprint] = owner
		}
		return nil
	}, `SELECT thumbprint, agent_id, alg, jwk, created_at FROM agent_holder_keys
		WHERE agent_id = ? OR thumbprint IN (`+named+`)`, args...)
	if err := br.run(ctx, b, false); err != nil {
		return nil, fmt.Errorf("store: read holder keys: %w", err)
	}
	return st, nil
}

// writeHolderKeys writes plan in one batch. A key another agent bound
// since it was read is refused by the primary key: issuer.CodeConflict.
func writeHolderKeys(ctx context.Context, br batchRunner, plan *service.HolderKeyPlan) error {
	var b batch
	b.deleteNamed("agent_holder_keys", "thumbprint", plan.Agent, plan.Remove)
	var added []string
	if len(plan.Add) > 0 {
		args := make([]any, 0, 5*len(plan.Add))
		for _, k := range plan.Add {
			args = append(args, k.Thumbprint, plan.Agent, string(k.JWK), k.Algorithm, k.CreatedAt)
			added = append(added, k.Thumbprint)
		}
		b.insertRows("agent_holder_keys", "thumbprint, agent_id, jwk, alg, created_at", "(?, ?, ?, ?, ?)", len(plan.Add), args)
	}
	b.revisions(plan.Revisions, plan.Now)
	if err := b.audit(plan.Audit, plan.Now); err != nil {
		return err
	}
	err := br.run(ctx, b, true)
	if err != nil && uniqueViolation(err) {
		return &issuer.Error{Code: issuer.CodeConflict, Err: err,
			Message: fmt.Sprintf("the holder key %s is bound to another agent", strings.Join(added, " or "))}
	}
	if err != nil {
		return fmt.Errorf("store: set holder keys: %w", err)
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
