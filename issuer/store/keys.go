package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/jmoiron/sqlx"

	"github.com/remnant/passportkit/issuer"
	"github.com/remnant/passportkit/issuer/keyring"
	"github.com/remnant/passportkit/issuer/service"
)

var _ keyring.Store = (*DB)(nil)

// keyColumns lists issuer_keys in the order SigningKey scans them.
const keyColumns = `kid, alg, public_jwk, status, created_at, not_before, not_after, publish_until`

// keyTime is the precision of key windows: trust files write times to the
// second (SPEC §1), so the database keeps exactly what is published.
func (db *DB) keyTime() time.Time { return db.now().UTC().Truncate(time.Second) }

// SigningKeys returns every recorded signing key, oldest first.
func (db *DB) SigningKeys(ctx context.Context) ([]issuer.SigningKey, error) {
	return signingKeys(ctx, db.x)
}

func signingKeys(ctx context.Context, q sqlx.ExtContext) ([]issuer.SigningKey, error) {
	var keys []issuer.SigningKey
	if err := sel(ctx, q, &keys, `SELECT `+keyColumns+` FROM issuer_keys ORDER BY created_at, kid`); err != nil {
		return nil, fmt.Errorf("store: signing keys: %w", err)
	}
	return normaliseKeys(keys), nil
}

// activeKey reads the active key; sql.ErrNoRows when none is.
func activeKey(ctx context.Context, q sqlx.ExtContext) (issuer.SigningKey, error) {
	var k issuer.SigningKey
	if err := get(ctx, q, &k, `SELECT `+keyColumns+` FROM issuer_keys WHERE status = 'active'`); err != nil {
		return k, err
	}
	return normaliseKeys([]issuer.SigningKey{k})[0], nil
}

// AddSigningKey records k as a ready key: known, neither signing nor
// published. A kid already recorded is a conflict.
func (db *DB) AddSigningKey(ctx context.Context, k keyring.KeyRecord) (issuer.SigningKey, error) {
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
		return insertKey(ctx, tx, k, &out)
	})
	return out, db.keyError(err)
}

// ActivateSigningKey makes k the active signing key, in one transaction: a
// ready key is activated, an unrecorded one is recorded and activated, and
// the key active until now, if any, is retired with its window closed now
// and published for publishFor more. An active or retired k is a conflict.
// Concurrent activations are serialised: exactly one key is active after
// each. It changes the keys epoch.
func (db *DB) ActivateSigningKey(ctx context.Context, k keyring.KeyRecord, publishFor time.Duration) (keyring.KeyChange, error) {
	var out keyring.KeyChange
	err := db.inTx(ctx, func(tx *sqlx.Tx) error {
		out = keyring.KeyChange{}
		now, err := db.changeKeys(ctx, tx)
		if err != nil {
			return err
		}
		cur, err := keyByKID(ctx, tx, k.KID)
		switch {
		case errors.Is(err, sql.ErrNoRows):
			cur = issuer.SigningKey{KID: k.KID, Alg: k.Alg, PublicJWK: k.PublicJWK, Status: issuer.KeyReady, CreatedAt: now}
			if err := insertKey(ctx, tx, k, &cur); err != nil {
				return err
			}
		case err != nil:
			return err
		case cur.Status == issuer.KeyActive:
			return issuer.Errorf(issuer.CodeConflict, "key %s is already active", k.KID)
		case cur.Status == issuer.KeyRetired:
			return issuer.Errorf(issuer.CodeConflict, "key %s is retired, and a retired key never signs again: generate a new key", k.KID)
		}
		prev, err := activeKey(ctx, tx)
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
// retiring a retired key again without shortening is a conflict. It
// changes the keys epoch: once it returns, no process serves a passport
// it cached before (SPEC.md §5.9).
func (db *DB) RetireSigningKey(ctx context.Context, kid string, publishFor time.Duration) (issuer.SigningKey, error) {
	var out issuer.SigningKey
	err := db.inTx(ctx, func(tx *sqlx.Tx) error {
		now, err := db.changeKeys(ctx, tx)
		if err != nil {
			return err
		}
		k, err := keyByKID(ctx, tx, kid)
		if err != nil {
			return notFound(err, "no signing key has kid %q: `passport-issuer keys list` shows the recorded keys", kid)
		}
		switch {
		case k.Status == issuer.KeyReady:
			err = retireKey(ctx, tx, &k, now, 0)
		case k.Status == issuer.KeyRetired && (publishFor != 0 || !k.PublishUntil.After(now)):
			return issuer.Errorf(issuer.CodeConflict, "key %s is already retired", kid)
		case publishFor == 0:
			err = withdrawKey(ctx, tx, &k, now)
		default:
			err = retireKey(ctx, tx, &k, now, publishFor)
		}
		out = k
		return err
	})
	return out, db.keyError(err)
}

// withdrawKey retires k, an active or retired key, and ends its
// publication at now: what it signed stops verifying for whoever fetches
// the trust file again. A retired key keeps the window it had. It is the
// one place a withdrawal is written, inside the transaction that changes
// the keys epoch, and it revokes there every kept passport the key signed
// (revokeSignedBy).
func withdrawKey(ctx context.Context, q sqlx.ExtContext, k *issuer.SigningKey, now time.Time) error {
	if _, err := exec(ctx, q, `UPDATE issuer_keys SET status = 'retired', not_after = COALESCE(not_after, ?), publish_until = ?
		WHERE kid = ?`, now, now, k.KID); err != nil {
		return fmt.Errorf("store: withdraw key: %w", err)
	}
	if k.NotAfter == nil {
		k.NotAfter = &now
	}
	k.Status, k.PublishUntil = issuer.KeyRetired, &now
	_, err := revokeSignedBy(ctx, q, k.KID, now)
	return err
}

// changeKeys begins a key change inside tx: it serialises it with every
// other key change and then takes its time with newKeysEpoch.
func (db *DB) changeKeys(ctx context.Context, tx *sqlx.Tx) (time.Time, error) {
	if err := db.lockKeys(ctx, tx); err != nil {
		return time.Time{}, err
	}
	return db.newKeysEpoch(ctx, tx)
}

// newKeysEpoch replaces the keys epoch inside tx, a key change holding the
// keys lock, and only then returns the time of the change, to the second:
// the epoch row's update waits for every issuance holding it (see
// ActiveSigningKey).
func (db *DB) newKeysEpoch(ctx context.Context, tx *sqlx.Tx) (time.Time, error) {
	epoch, err := service.NewRevisionToken(db.rand)
	if err != nil {
		return time.Time{}, err
	}
	res, err := exec(ctx, tx, `UPDATE issuer_keys_epoch SET epoch = ?`, epoch)
	if err != nil {
		return time.Time{}, fmt.Errorf("store: change keys epoch: %w", err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return time.Time{}, fmt.Errorf("store: change keys epoch: %w", err)
	}
	if n != 1 {
		return time.Time{}, errors.New("store: change keys epoch: the epoch row is missing: the schema is damaged")
	}
	return db.keyTime(), nil
}

// ActiveSigningKey returns the active key and the current time, taken
// while no key change can commit: the time lies inside the key's window,
// to the second, for any key change serialises after or before it
// (SPEC.md §10.1). On PostgreSQL the transaction holds the keys epoch row
// FOR SHARE, which every key change must lock (by its UPDATE) before it
// takes its own time, and reads the key in a statement after the lock;
// on SQLite it holds the database write lock, which every key change
// holds for its whole transaction, in this process and in any other. With
// no active key it is not_found.
func (db *DB) ActiveSigningKey(ctx context.Context) (issuer.SigningKey, time.Time, error) {
	var (
		k   issuer.SigningKey
		now time.Time
	)
	err := db.inTx(ctx, func(tx *sqlx.Tx) error {
		if db.engine == Postgres {
			var epoch string
			if err := get(ctx, tx, &epoch, `SELECT epoch FROM issuer_keys_epoch FOR SHARE`); err != nil {
				return fmt.Errorf("store: lock keys epoch: %w", err)
			}
		}
		var err error
		if k, err = activeKey(ctx, tx); err != nil {
			return notFound(err, "no signing key is active")
		}
		now = db.now().UTC()
		return nil
	})
	if err != nil {
		return issuer.SigningKey{}, time.Time{}, err
	}
	return k, now, nil
}

// WithSigningKeysLocked runs fn with every recorded key while no key can
// be recorded or changed, in a transaction that writes nothing: the
// keyring reconciles its key directory with the records there. fn may run
// again when the transaction is retried.
func (db *DB) WithSigningKeysLocked(ctx context.Context, fn func([]issuer.SigningKey) error) error {
	return db.inTx(ctx, func(tx *sqlx.Tx) error {
		if err := db.lockKeys(ctx, tx); err != nil {
			return err
		}
		keys, err := signingKeys(ctx, tx)
		if err != nil {
			return err
		}
		return fn(keys)
	})
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

// insertKey records k, after running nk's Prepare.
func insertKey(ctx context.Context, q sqlx.ExtContext, nk keyring.KeyRecord, k *issuer.SigningKey) error {
	if nk.Prepare != nil {
		if err := nk.Prepare(); err != nil {
			return err
		}
	}
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
// An activation changes the keys epoch.
func (db *DB) ActivateFirstSigningKey(ctx context.Context, k keyring.KeyRecord) (issuer.SigningKey, bool, error) {
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
		now, err := db.newKeysEpoch(ctx, tx)
		if err != nil {
			return err
		}
		out = issuer.SigningKey{KID: k.KID, Alg: k.Alg, PublicJWK: k.PublicJWK, Status: issuer.KeyReady, CreatedAt: now}
		if err := insertKey(ctx, tx, k, &out); err != nil {
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
