package store

import (
	"context"
	"database/sql/driver"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/stdlib"
	"github.com/jmoiron/sqlx"

	"github.com/remnant/passportkit/issuer/service"
)

// pgExecutor runs a transaction on a pgx connection taken from the
// database/sql pool, sending each batch of statements as one pipelined
// round trip: BEGIN travels with the first batch and COMMIT with the last.
type pgExecutor struct {
	conn      *pgx.Conn
	begun     bool
	committed bool
}

// pgTx runs fn in one transaction on a native pgx connection.
func (db *DB) pgTx(ctx context.Context, fn func(ctx context.Context, ex service.Executor) error) error {
	c, err := db.x.Conn(ctx)
	if err != nil {
		return fmt.Errorf("store: connection: %w", err)
	}
	defer c.Close()
	return c.Raw(func(dc any) error {
		e := &pgExecutor{conn: dc.(*stdlib.Conn).Conn()}
		err := fn(ctx, executor{e})
		switch {
		case err == nil && e.begun && !e.committed:
			_, err = e.conn.Exec(ctx, "COMMIT")
		case err != nil && e.begun && !e.committed:
			if _, rerr := e.conn.Exec(context.WithoutCancel(ctx), "ROLLBACK"); rerr != nil {
				// The connection is in an unknown state: let the pool
				// discard it.
				return errors.Join(err, driver.ErrBadConn)
			}
		}
		return err
	})
}

func (e *pgExecutor) rowLock() string { return " FOR UPDATE" }

func (e *pgExecutor) run(ctx context.Context, stmts []stmt, last bool) error {
	if e.committed {
		return errors.New("store: the transaction has ended")
	}
	if len(stmts) == 0 && (!last || !e.begun) {
		// Nothing to send: BEGIN travels with the next batch, and a
		// transaction never begun has nothing to commit.
		return nil
	}
	b := &pgx.Batch{}
	if !e.begun {
		b.Queue("BEGIN")
	}
	for _, s := range stmts {
		b.Queue(sqlx.Rebind(sqlx.DOLLAR, s.query), s.args...)
	}
	if last {
		b.Queue("COMMIT")
	}
	res := e.conn.SendBatch(ctx, b)
	err := e.results(res, stmts, last)
	if cerr := res.Close(); err == nil {
		err = cerr
	}
	e.begun = true
	if err == nil && last {
		e.committed = true
	}
	return err
}

func (e *pgExecutor) results(res pgx.BatchResults, stmts []stmt, last bool) error {
	if !e.begun {
		if _, err := res.Exec(); err != nil {
			return err
		}
	}
	for _, s := range stmts {
		if s.scan == nil {
			if _, err := res.Exec(); err != nil {
				return err
			}
			continue
		}
		r, err := res.Query()
		if err != nil {
			return err
		}
		err = scanAll(r, s.scan)
		r.Close()
		if err == nil {
			err = r.Err()
		}
		if err != nil {
			return err
		}
	}
	if last {
		if _, err := res.Exec(); err != nil {
			return err
		}
	}
	return nil
}
