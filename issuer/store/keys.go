package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/jmoiron/sqlx"

	"github.com/remnant/passportkit/issuer"
)

// NewSigningKey is the public half of a signing key to record.
type NewSigningKey struct {
	KID       string // RFC 7638 thumbprint
	Alg       string // EdDSA or ES256
	PublicJWK string // canonical public JWK
}

// KeyChange is the outcome of an activation: the key now active and the
// key it replaced, if any, now retired.
type KeyChange struct {
	Active  issuer.SigningKey
	Retired *issuer.SigningKey
}

// keyColumns lists issuer_keys in the order SigningKey scans them.
const keyColumns = `kid, alg, public_jwk, status, created_at, not_before, not_after, publish_until`

// keyTime is the precision of key windows: trust files write times to the
// second (SPEC §1), so the database keeps exactly what is published.
func (db *DB) keyTime() time.Time { return db.now().UTC().Truncate(time.Second) }

// SigningKeys returns every recorded signing key, oldest first.
func (db *DB) SigningKeys(ctx context.Context) ([]issuer.SigningKey, error) {
	var keys []issuer.SigningKey
	if err := sel(ctx, db.x, &keys, `SELECT `+keyColumns+` FROM issuer_keys ORDER BY created_at, kid`); err != nil {
		return nil, fmt.Errorf("store: signing keys: %w", err)
	}
	return normaliseKeys(keys), nil
}

// AddSigningKey records k as a ready key: known, neither signing nor
// published. A kid already recorded is a conflict.
func (db *DB) AddSigningKey(ctx context.Context, k NewSigningKey) (issuer.SigningKey, error) {
	var out issuer.SigningKey
	err := db.inTx(ctx, func(tx *sqlx.Tx) error {
		if err := db.lockKeys(ctx, tx); err != nil {
			return err
		}
		if _, err := keyByKID(ctx, tx, k.KID); err == nil {
			return issuer.Errorf(issuer.CodeConflict, "key %s is already recorded", k.KID)
		} else if !errors.Is(err, sql.ErrNoRows) {
			return err
		}
		out = issuer.SigningKey{KID: k.KID, Alg: k.Alg, PublicJWK: k.PublicJWK, Status: issuer.KeyReady, CreatedAt: db.keyTime()}
		return insertKey(ctx, tx, &out)
	})
	return out, db.keyError(err)
}

// ActivateSigningKey makes k the active signing key, in one transaction: a
// ready key is activated, an unrecorded one is recorded and activated, and
// the key active until now, if any, is retired with its window closed now
// and published for publishFor more. An active or retired k is a conflict.
// Concurrent activations are serialised: exactly one key is active after
// each.
func (db *DB) ActivateSigningKey(ctx context.Context, k NewSigningKey, publishFor time.Duration) (KeyChange, error) {
	var out KeyChange
	err := db.inTx(ctx, func(tx *sqlx.Tx) error {
		out = KeyChange{}
		if err := db.lockKeys(ctx, tx); err != nil {
			return err
		}
		now := db.keyTime()
		cur, err := keyByKID(ctx, tx, k.KID)
		switch {
		case errors.Is(err, sql.ErrNoRows):
			cur = issuer.SigningKey{KID: k.KID, Alg: k.Alg, PublicJWK: k.PublicJWK, Status: issuer.KeyReady, CreatedAt: now}
			if err := insertKey(ctx, tx, &cur); err != nil {
				return err
			}
		case err != nil:
			return err
		case cur.Status == issuer.KeyActive:
			return issuer.Errorf(issuer.CodeConflict, "key %s is already active", k.KID)
		case cur.Status == issuer.KeyRetired:
			return issuer.Errorf(issuer.CodeConflict, "key %s is retired, and a retired key never signs again: generate a new key", k.KID)
		}
		var prev issuer.SigningKey
		err = get(ctx, tx, &prev, `SELECT `+keyColumns+` FROM issuer_keys WHERE status = 'active'`)
		switch {
		case errors.Is(err, sql.ErrNoRows):
		case err != nil:
			return fmt.Errorf("store: active key: %w", err)
		default:
			if err := retireKey(ctx, tx, &prev, now, publishFor); err != nil {
				return err
			}
			out.Retired = &prev
		}
		if _, err := exec(ctx, tx, `UPDATE issuer_keys SET status = 'active', not_before = ? WHERE kid = ?`, now, k.KID); err != nil {
			return fmt.Errorf("store: activate key: %w", err)
		}
		cur.Status, cur.NotBefore = issuer.KeyActive, &now
		out.Active = cur
		return nil
	})
	return out, db.keyError(err)
}

// RetireSigningKey takes the key kid out of signing, in one transaction:
// its window closes now and it stays published for publishFor more (a key
// that never signed is not published at all). A publishFor of zero
// withdraws the key from publication at once, and may also shorten the
// publication of a key already retired. An unknown kid is not_found;
// retiring a retired key again without shortening is a conflict.
func (db *DB) RetireSigningKey(ctx context.Context, kid string, publishFor time.Duration) (issuer.SigningKey, error) {
	var out issuer.SigningKey
	err := db.inTx(ctx, func(tx *sqlx.Tx) error {
		if err := db.lockKeys(ctx, tx); err != nil {
			return err
		}
		k, err := keyByKID(ctx, tx, kid)
		if err != nil {
			return notFound(err, "no signing key has kid %q: `passport-issuer keys list` shows the recorded keys", kid)
		}
		now := db.keyTime()
		if k.Status == issuer.KeyRetired {
			if publishFor != 0 || !k.PublishUntil.After(now) {
				return issuer.Errorf(issuer.CodeConflict, "key %s is already retired", kid)
			}
			if _, err := exec(ctx, tx, `UPDATE issuer_keys SET publish_until = ? WHERE kid = ?`, now, kid); err != nil {
				return fmt.Errorf("store: withdraw key: %w", err)
			}
			k.PublishUntil = &now
			out = k
			return nil
		}
		if k.Status == issuer.KeyReady {
			publishFor = 0
		}
		if err := retireKey(ctx, tx, &k, now, publishFor); err != nil {
			return err
		}
		out = k
		return nil
	})
	return out, db.keyError(err)
}

// lockKeys serialises key changes. On SQLite the write lock taken at BEGIN
// already does.
func (db *DB) lockKeys(ctx context.Context, tx *sqlx.Tx) error {
	if db.engine != Postgres {
		return nil
	}
	if _, err := tx.ExecContext(ctx, `LOCK TABLE issuer_keys IN SHARE ROW EXCLUSIVE MODE`); err != nil {
		return fmt.Errorf("store: lock keys: %w", err)
	}
	return nil
}

// keyError reports a violation of the one-active-key index, which the lock
// makes unreachable, as a conflict rather than an internal fault.
func (db *DB) keyError(err error) error {
	if err != nil && uniqueViolation(err) {
		return &issuer.Error{Code: issuer.CodeConflict, Message: "another key change happened at the same time; retry", Err: err}
	}
	return err
}

func keyByKID(ctx context.Context, q sqlx.ExtContext, kid string) (issuer.SigningKey, error) {
	var k issuer.SigningKey
	err := get(ctx, q, &k, `SELECT `+keyColumns+` FROM issuer_keys WHERE kid = ?`, kid)
	if err == nil {
		k = normaliseKeys([]issuer.SigningKey{k})[0]
	}
	return k, err
}

func insertKey(ctx context.Context, q sqlx.ExtContext, k *issuer.SigningKey) error {
	if _, err := exec(ctx, q, `INSERT INTO issuer_keys (kid, alg, public_jwk, status, created_at) VALUES (?, ?, ?, ?, ?)`,
		k.KID, k.Alg, k.PublicJWK, k.Status, k.CreatedAt); err != nil {
		return fmt.Errorf("store: record key: %w", err)
	}
	return nil
}

// retireKey closes k's window at now and publishes it until now+publishFor.
func retireKey(ctx context.Context, q sqlx.ExtContext, k *issuer.SigningKey, now time.Time, publishFor time.Duration) error {
	until := now.Add(publishFor)
	if _, err := exec(ctx, q, `UPDATE issuer_keys SET status = 'retired', not_after = ?, publish_until = ? WHERE kid = ?`, now, until, k.KID); err != nil {
		return fmt.Errorf("store: retire key: %w", err)
	}
	k.Status, k.NotAfter, k.PublishUntil = issuer.KeyRetired, &now, &until
	return nil
}

// normaliseKeys puts every time in UTC, whatever zone the driver read.
func normaliseKeys(keys []issuer.SigningKey) []issuer.SigningKey {
	utc := func(t *time.Time) *time.Time {
		if t == nil {
			return nil
		}
		u := t.UTC()
		return &u
	}
	for i := range keys {
		k := &keys[i]
		k.CreatedAt = k.CreatedAt.UTC()
		k.NotBefore, k.NotAfter, k.PublishUntil = utc(k.NotBefore), utc(k.NotAfter), utc(k.PublishUntil)
	}
	return keys
}

// ActivateFirstSigningKey records k and makes it active only when no key is
// active, in one transaction, and reports whether it did: of several
// processes starting at once, one activates its key and the others use it.
func (db *DB) ActivateFirstSigningKey(ctx context.Context, k NewSigningKey) (issuer.SigningKey, bool, error) {
	var (
		out       issuer.SigningKey
		activated bool
	)
	err := db.inTx(ctx, func(tx *sqlx.Tx) error {
		activated = false
		if err := db.lockKeys(ctx, tx); err != nil {
			return err
		}
		var n int
		if err := get(ctx, tx, &n, `SELECT COUNT(*) FROM issuer_keys WHERE status = 'active'`); err != nil {
			return fmt.Errorf("store: active key: %w", err)
		}
		if n > 0 {
			return nil
		}
		now := db.keyTime()
		out = issuer.SigningKey{KID: k.KID, Alg: k.Alg, PublicJWK: k.PublicJWK, Status: issuer.KeyReady, CreatedAt: now}
		if err := insertKey(ctx, tx, &out); err != nil {
			return err
		}
		if _, err := exec(ctx, tx, `UPDATE issuer_keys SET status = 'active', not_before = ? WHERE kid = ?`, now, k.KID); err != nil {
			return fmt.Errorf("store: activate key: %w", err)
		}
		out.Status, out.NotBefore, activated = issuer.KeyActive, &now, true
		return nil
	})
	return out, activated, db.keyError(err)
}
