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
// round trip: BEGIN travels with the first batch and COMMIT with the last,
// followed by the afterCommit statements of every batch, kept in after.
type pgExecutor struct {
	db        *DB
	conn      *pgx.Conn
	begun     bool
	committed bool
	after     []stmt
}

// pgTx runs fn in one transaction on a native pgx connection.
func (db *DB) pgTx(ctx context.Context, fn func(ctx context.Context, ex service.Executor) error) error {
	c, err := db.x.Conn(ctx)
	if err != nil {
		return fmt.Errorf("store: connection: %w", err)
	}
	defer c.Close()
	return c.Raw(func(dc any) error {
		e := &pgExecutor{db: db, conn: dc.(*stdlib.Conn).Conn()}
		err := fn(ctx, executor{e})
		switch {
		case err == nil && e.begun && !e.committed:
			err = e.run(ctx, nil, true)
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
	var sent []stmt
	for _, s := range stmts {
		if s.afterCommit {
			e.after = append(e.after, s)
		} else {
			sent = append(sent, s)
		}
	}
	if len(sent) == 0 && (!last || !e.begun) {
		// Nothing to send: BEGIN travels with the next batch, and a
		// transaction never begun has nothing to commit.
		return nil
	}
	b := &pgx.Batch{}
	if !e.begun {
		b.Queue("BEGIN")
	}
	queue := func(ss []stmt) {
		for _, s := range ss {
			b.Queue(sqlx.Rebind(sqlx.DOLLAR, s.query), s.args...)
		}
	}
	queue(sent)
	if last {
		// A failed statement makes PostgreSQL skip the rest of the
		// batch: the statements after COMMIT run only after a commit.
		b.Queue("COMMIT")
		queue(e.after)
	}
	res := e.conn.SendBatch(ctx, b)
	err := e.results(res, sent, last)
	e.begun = true
	if err != nil || !last {
		if cerr := res.Close(); err == nil {
			err = cerr
		}
		return err
	}
	e.committed = true
	for range e.after {
		if _, err := res.Exec(); err != nil {
			e.db.afterCommitFailed(ctx, err)
			break
		}
	}
	res.Close() // the error, if any, was the failed statement's
	return nil
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
