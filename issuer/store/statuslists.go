package store

import (
	"context"
	"database/sql"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/jmoiron/sqlx"

	"github.com/remnant/passportkit/issuer"
	"github.com/remnant/passportkit/issuer/service"
)

// openList is the status list this process reserves entries in.
type openList struct {
	key  int64
	name issuer.StatusListID
}

// reserveCandidates is how many random indexes one reservation offers.
// The first free one is taken: each is drawn uniformly from the whole
// list, so the first free one is uniform among the free indexes
// (rejection sampling). A list is never more than half full, so all of
// them are taken with probability at most 2^-16, and the reservation is
// then tried again.
const reserveCandidates = 16

// maxReserveAttempts bounds the attempts of one reservation: each either
// reserves, or finds the list half full and opens the next, or finds
// every candidate taken.
const maxReserveAttempts = 8

// ReserveStatusEntry reserves a valid entry of the open status list, at an
// index drawn uniformly at random among its free ones, in one statement
// (SPEC.md §19.4). A list half full takes no more reservations: the first
// reservation to find it so opens the next list.
func (db *DB) ReserveStatusEntry(ctx context.Context) (service.StatusSlot, error) {
	l := db.statusList.Load()
	for range maxReserveAttempts {
		if l == nil {
			var err error
			if l, err = db.openStatusList(ctx); err != nil {
				return service.StatusSlot{}, err
			}
			db.statusList.Store(l)
		}
		idx, err := db.reserveIn(ctx, l)
		if err == nil {
			return service.StatusSlot{List: l.name, Idx: idx}, nil
		}
		if !errors.Is(err, sql.ErrNoRows) {
			return service.StatusSlot{}, fmt.Errorf("store: reserve status entry: %w", err)
		}
		l = nil // half full, or every candidate taken: look again
	}
	return service.StatusSlot{}, issuer.Errorf(issuer.CodeUnavailable, "no free status list entry was found; retry")
}

// reserveIn inserts the first free one of reserveCandidates random
// indexes of list l, unless l is half full; sql.ErrNoRows when it
// inserted none.
func (db *DB) reserveIn(ctx context.Context, l *openList) (int, error) {
	var draws [reserveCandidates * 4]byte
	if _, err := io.ReadFull(db.rand, draws[:]); err != nil {
		return 0, err
	}
	args := make([]any, 0, reserveCandidates+3)
	args = append(args, db.timestamp())
	for i := range reserveCandidates {
		args = append(args, binary.BigEndian.Uint32(draws[4*i:])%service.StatusListCapacity)
	}
	args = append(args, l.key)
	var idx int
	err := sqlx.GetContext(ctx, db.x, &idx, db.x.Rebind(reserveSQL[db.engine]), args...)
	return idx, err
}

// reserveSQL is the reservation statement of each engine.
var reserveSQL = map[Engine]string{SQLite: reserveStatement("?"), Postgres: reserveStatement("CAST(? AS TIMESTAMPTZ)")}

// reserveStatement is the reservation statement, with at the placeholder
// of the reservation time: the candidates are a VALUES list of (rank,
// index), whose columns both engines name column1 and column2; a
// candidate taken meanwhile by a concurrent reservation makes the insert
// do nothing, which reads as a miss.
func reserveStatement(at string) string {
	values := make([]string, reserveCandidates)
	for i := range values {
		values[i] = fmt.Sprintf("(%d, CAST(? AS INTEGER))", i)
	}
	return `INSERT INTO status_entries (list_id, idx, updated_at)
		SELECT l.id, c.column2, ` + at + ` FROM (VALUES ` + strings.Join(values, ", ") + `) AS c, status_lists l
		WHERE l.id = ? AND l.used < l.capacity / 2
			AND NOT EXISTS (SELECT 1 FROM status_entries e WHERE e.list_id = l.id AND e.idx = c.column2)
		ORDER BY c.column1 LIMIT 1
		ON CONFLICT DO NOTHING RETURNING idx`
}

// openStatusList returns the newest status list when it is less than half
// full, and otherwise opens a new one, in one transaction that other
// openings wait for.
func (db *DB) openStatusList(ctx context.Context) (*openList, error) {
	var out *openList
	err := db.inTx(ctx, func(tx *sqlx.Tx) error {
		if db.engine == Postgres {
			if _, err := tx.ExecContext(ctx, `LOCK TABLE status_lists IN SHARE ROW EXCLUSIVE MODE`); err != nil {
				return fmt.Errorf("store: lock status lists: %w", err)
			}
		}
		var newest struct {
			Key      int64               `db:"id"`
			Name     issuer.StatusListID `db:"name"`
			Used     int                 `db:"used"`
			Capacity int                 `db:"capacity"`
		}
		err := get(ctx, tx, &newest, `SELECT id, name, used, capacity FROM status_lists ORDER BY id DESC LIMIT 1`)
		switch {
		case err == nil && newest.Used < newest.Capacity/2:
			out = &openList{key: newest.Key, name: newest.Name}
			return nil
		case err != nil && !errors.Is(err, sql.ErrNoRows):
			return fmt.Errorf("store: newest status list: %w", err)
		}
		name, err := issuer.NewStatusListID(db.rand)
		if err != nil {
			return err
		}
		key, err := insertID(ctx, tx, `INSERT INTO status_lists (name, bits, capacity, created_at) VALUES (?, ?, ?, ?)`,
			name, service.StatusListBits, service.StatusListCapacity, db.timestamp())
		if err != nil {
			return fmt.Errorf("store: open status list: %w", err)
		}
		out = &openList{key: key, name: name}
		return nil
	})
	return out, err
}

// StatusListVersion returns the version of list id's entries and the keys
// epoch, in one statement. An unknown list is not_found.
func (db *DB) StatusListVersion(ctx context.Context, id issuer.StatusListID) (service.StatusListVersion, error) {
	var v struct {
		Entries   int64  `db:"version"`
		KeysEpoch string `db:"epoch"`
	}
	err := get(ctx, db.x, &v, `SELECT l.version, k.epoch FROM status_lists l, issuer_keys_epoch k WHERE l.name = ?`, id)
	if err != nil {
		return service.StatusListVersion{}, notFound(err, "no status list %s", id)
	}
	return service.StatusListVersion(v), nil
}

// StatusListState returns list id as its entries stand: its version, read
// first, then every entry that is not valid, which may be later than the
// version says (never earlier). An unknown list is not_found.
func (db *DB) StatusListState(ctx context.Context, id issuer.StatusListID) (service.StatusListState, error) {
	var l struct {
		Key      int64 `db:"id"`
		Version  int64 `db:"version"`
		Bits     int   `db:"bits"`
		Capacity int   `db:"capacity"`
	}
	if err := get(ctx, db.x, &l, `SELECT id, version, bits, capacity FROM status_lists WHERE name = ?`, id); err != nil {
		return service.StatusListState{}, notFound(err, "no status list %s", id)
	}
	var rows []struct {
		Idx    int   `db:"idx"`
		Status uint8 `db:"status"`
	}
	if err := sel(ctx, db.x, &rows, `SELECT idx, status FROM status_entries WHERE list_id = ? AND status <> 0`, l.Key); err != nil {
		return service.StatusListState{}, fmt.Errorf("store: status list %s: %w", id, err)
	}
	out := service.StatusListState{Version: l.Version, Bits: l.Bits, Capacity: l.Capacity, Set: make([]service.StatusEntry, len(rows))}
	for i, r := range rows {
		st, ok := issuer.PassportStatusOf(r.Status)
		if !ok {
			return service.StatusListState{}, fmt.Errorf("store: status list %s: entry %d holds %d", id, r.Idx, r.Status)
		}
		out.Set[i] = service.StatusEntry{Idx: r.Idx, Status: st}
	}
	return out, nil
}

// loadPassportStatus reads the status entry of the issued passport hash,
// locking the entry's row on PostgreSQL; when there is none, a second
// statement counts the passports kept under hash.
func loadPassportStatus(ctx context.Context, br batchRunner, hash string) (*service.PassportStatusState, error) {
	st := &service.PassportStatusState{}
	lock := ""
	if br.rowLock() != "" {
		lock = " FOR UPDATE OF e"
	}
	var b batch
	var raw uint8
	b.read(func(r rows) error {
		e := &service.StatusEntryRecord{}
		if err := r.Scan(&e.Subject, &e.List, &e.ListID, &e.Index, &raw); err != nil {
			return err
		}
		st.Entry = e
		return nil
	}, `SELECT p.agent_id, e.list_id, l.name, e.idx, e.status
		FROM issued_passports p JOIN status_entries e ON e.list_id = p.status_list_id AND e.idx = p.status_idx
		JOIN status_lists l ON l.id = e.list_id WHERE p.passport_hash = ?`+lock, hash)
	if err := br.run(ctx, b, false); err != nil {
		return nil, fmt.Errorf("store: passport %s: %w", hash, err)
	}
	if e := st.Entry; e != nil {
		var ok bool
		if e.Status, ok = issuer.PassportStatusOf(raw); !ok {
			return nil, fmt.Errorf("store: passport %s: its entry holds %d", hash, raw)
		}
		return st, nil
	}
	b = b[:0]
	b.read(func(r rows) error {
		var n int
		err := r.Scan(&n)
		st.Kept = n > 0
		return err
	}, `SELECT COUNT(*) FROM issued_passports WHERE passport_hash = ?`, hash)
	if err := br.run(ctx, b, false); err != nil {
		return nil, fmt.Errorf("store: passport %s: %w", hash, err)
	}
	return st, nil
}

// writePassportStatus writes plan in one batch.
func writePassportStatus(ctx context.Context, br batchRunner, plan *service.PassportStatusPlan) error {
	var b batch
	b.add(`UPDATE status_entries SET status = ?, reason = ?, updated_at = ? WHERE list_id = ? AND idx = ?`,
		plan.Status.Value(), plan.Reason, plan.Now, plan.List, plan.Index)
	b.add(`UPDATE status_lists SET version = version + 1 WHERE id = ?`, plan.List)
	b.revisions(plan.Revisions, plan.Now)
	if err := b.audit(plan.Audit, plan.Now); err != nil {
		return err
	}
	if err := br.run(ctx, b, true); err != nil {
		return fmt.Errorf("store: set passport status: %w", err)
	}
	return nil
}

// revokeSignedBy revokes, inside q, the transaction of the withdrawal of
// key kid at now, every kept passport kid signed that is not revoked yet,
// changing the version of each list it touches, and audits how many
// (passports.revoked_by_withdrawal). A passport purged after its
// retention has expired long ago and is left as it is.
func revokeSignedBy(ctx context.Context, q sqlx.ExtContext, kid string, now time.Time) (int64, error) {
	const signed = `SELECT 1 FROM issued_passports p WHERE p.kid = ?
		AND p.status_list_id = status_entries.list_id AND p.status_idx = status_entries.idx`
	if _, err := exec(ctx, q, `UPDATE status_lists SET version = version + 1 WHERE id IN (
		SELECT list_id FROM status_entries WHERE status <> 1 AND EXISTS (`+signed+`))`, kid); err != nil {
		return 0, fmt.Errorf("store: revoke what key %s signed: %w", kid, err)
	}
	res, err := exec(ctx, q, `UPDATE status_entries SET status = 1, reason = ?, updated_at = ?
		WHERE status <> 1 AND EXISTS (`+signed+`)`, "signing key "+kid+" withdrawn", now, kid)
	if err != nil {
		return 0, fmt.Errorf("store: revoke what key %s signed: %w", kid, err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return 0, fmt.Errorf("store: revoke what key %s signed: %w", kid, err)
	}
	return n, audit(ctx, q, now, service.ActorAdmin, "passports.revoked_by_withdrawal", kid, map[string]int64{"revoked": n})
}
