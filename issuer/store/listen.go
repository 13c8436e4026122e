package store

import (
	"context"
	"database/sql/driver"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5/stdlib"

	"github.com/remnant/passportkit/issuer"
)

// RevisionChannel is the PostgreSQL notification channel on which every
// change of a subject's revision token is announced, with the subject's
// public id as payload (migration 00007), and every change of the keys
// epoch, with an empty payload: every subject's passport changed
// (migration 00013).
const RevisionChannel = "passportkit_subject_revision"

// ListenRevisions calls changed with the public id of every subject whose
// revision token changes in any process on the database, and with "" at
// every key change (activation, rotation, retirement, withdrawal), until
// ctx ends; it returns nil then. On PostgreSQL it holds one connection listening on
// [RevisionChannel]; after a lost connection it reconnects and calls
// changed with "" (anything may have changed meanwhile). On SQLite it
// returns at once: SQLite has no notifications, and caches stay correct
// through the revision token read on every request.
func (db *DB) ListenRevisions(ctx context.Context, changed func(issuer.AgentID)) error {
	if db.engine != Postgres {
		return nil
	}
	for delay := 100 * time.Millisecond; ; {
		err := db.listenOnce(ctx, changed)
		if ctx.Err() != nil {
			return nil
		}
		db.log.WarnContext(ctx, "store: revision notifications interrupted; reconnecting", "err", err, "in", delay)
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(delay):
		}
		delay = min(2*delay, 10*time.Second)
		changed("")
	}
}

// listenOnce listens on one connection until it fails or ctx ends.
func (db *DB) listenOnce(ctx context.Context, changed func(issuer.AgentID)) error {
	c, err := db.x.Conn(ctx)
	if err != nil {
		return fmt.Errorf("store: listen: %w", err)
	}
	defer c.Close()
	return c.Raw(func(dc any) error {
		conn := dc.(*stdlib.Conn).Conn()
		if _, err := conn.Exec(ctx, "LISTEN "+RevisionChannel); err != nil {
			return fmt.Errorf("store: listen: %w", err)
		}
		for {
			n, err := conn.WaitForNotification(ctx)
			if err != nil {
				// A wait ended by ctx closes the connection, and a
				// listening one must not serve queries again: the pool
				// discards it either way.
				return errors.Join(fmt.Errorf("store: listen: %w", err), driver.ErrBadConn)
			}
			changed(issuer.AgentID(n.Payload))
		}
	})
}
