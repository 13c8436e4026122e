// Package store keeps the issuer's records in PostgreSQL or in an embedded
// SQLite file. It implements the stores that issuer/service declares
// ([github.com/remnant/passportkit/issuer/service.Store] and
// [github.com/remnant/passportkit/issuer/service.AdminStore]) and the one
// issuer/keyring declares ([github.com/remnant/passportkit/issuer/keyring.Store]).
//
// The rules live in the service. For every write the service decides (a
// publication, a retrieval, a consultation, a validation or outcome
// report, a moderation, declared capabilities, holder keys, and an
// operator's change of an agent), the store reads what the decision needs
// (memories with their status and visibility, positions and aggregates,
// the relations of other authors' records to the changed ones) and writes
// the plan the service decided (rows, revision tokens, activity counts,
// audit events) through its executor, deciding nothing. What is left here
// is what a query must apply as it reads (which agents and memories a
// public read may show, in the statement that finds them, so that hidden
// and unknown answer alike), the signing keys' records as the keyring
// changes them under their lock, and the rebuilds of derived records
// (reputation, activity counters) from history.
//
// Open selects the engine from the URL: postgres:// or postgresql:// for
// PostgreSQL (through pgx), anything else is the path of a SQLite file
// (through modernc.org/sqlite, pure Go). Both engines run the same SQL apart
// from the schema files and row locks, and one behavioural test suite runs
// against both, through the service.
//
// # The SQLite file
//
// The database holds private memories, so Open creates a missing SQLite
// file with mode 0600 whatever the umask (SQLite gives the -wal and -shm
// files it keeps beside it the same mode), and refuses a database file,
// -wal or -shm file that its group or others may read or write with a
// [*PermissionError] naming each and the chmod that fixes it, as the key
// directory does. Names SQLite reads as no file (":memory:") or as a URI
// ("file:…") are refused.
//
// # Transactions
//
// Every write is one transaction. A use case the service decides is two
// calls of its executor: one read of everything the decision needs, and
// one write of the plan. A validation's read first locks the global
// aggregate rows of the authors involved and of the evaluator (in key
// order); a moderation's and an agent change's lock the memory's or the
// agent's row. The author's row
// serialises all changes to one author's reputation; the evaluator's row
// serialises the positive budget the two share. On PostgreSQL the locks are
// SELECT … FOR UPDATE and each call is one pipelined pgx batch (BEGIN with
// the reads, COMMIT with the writes); on SQLite the transaction takes the
// write lock at BEGIN (BEGIN IMMEDIATE) and the statements run one by one.
// Submissions read and write only the rows of the positions, their budgets
// and the affected authors' aggregates, never the journal, so their cost
// does not grow with history.
//
// # Reading from a replica
//
// On PostgreSQL, [Options.ReadURL] names a streaming replica. The reads of
// discovery (the index's pages and status), of search (its candidates,
// their signals and the reader's trust graph) and of a passport's
// assembly ([DB.LoadSubject]) go to it. Every write, every transaction of
// the executor, the revision checks ([DB.SubjectRevision],
// [DB.RevisionOf]), the indexer's reads, the feed and every other read go
// to the primary. A subject read on the replica carries the revision read
// in its own snapshot, and is kept only when the primary's revision, read
// after it, is the same; otherwise (the replica is behind, or did not
// answer) it is read again on the primary. So a passport assembled from
// the replica describes the revision its caller read on the primary or a
// later one, as without a replica, and never claims a revision it did not
// read. A discovery page or a search answer read on the replica shows the
// replica's state: the primary's as it stood a replication lag ago, each
// index row beside the revision the replica holds.
package store

import (
	"context"
	"crypto/rand"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	_ "github.com/jackc/pgx/v5/stdlib" // registers the "pgx" driver
	"github.com/jmoiron/sqlx"
	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"

	"github.com/remnant/passportkit/issuer"
)

// Engine names a database engine.
type Engine string

// The engines.
const (
	Postgres Engine = "postgres"
	SQLite   Engine = "sqlite"
)

// DefaultURL is the database used when none is given: a SQLite file in the
// working directory.
const DefaultURL = "passportkit.db"

// Options configure a [DB]. The zero value is ready to use.
type Options struct {
	// Now returns the current time; time.Now when nil.
	Now func() time.Time
	// Rand is the source of identifiers and keys; crypto/rand when nil.
	Rand io.Reader
	// Logger receives internal failures; discarded when nil.
	Logger *slog.Logger
	// MaxOpenConns bounds the connection pool; 10 when zero.
	MaxOpenConns int
	// WrapConnector, when set, wraps the engine's driver connector; tests
	// use it to count the statements a use case sends. Every transaction
	// then runs through it, statement by statement, on PostgreSQL too.
	WrapConnector func(driver.Connector) driver.Connector
	// ReadURL, when set, is the postgres:// URL of a streaming replica of
	// the PostgreSQL database Open connects to: the reads that may lag go
	// to it (see "Reading from a replica" in the package documentation).
	// Its pool has MaxOpenConns connections too.
	ReadURL string
}

// DB is an open store.
type DB struct {
	x *sqlx.DB
	// r is the pool of the reads that may lag: the replica's, or x when
	// there is none.
	r      *sqlx.DB
	engine Engine
	now    func() time.Time
	rand   io.Reader
	log    *slog.Logger
	// wrapped is set when the driver connector is wrapped
	// (Options.WrapConnector): transactions then run through database/sql
	// only, so that the wrapper sees every statement.
	wrapped bool
	// writer is a one-slot semaphore serialising this process's SQLite
	// write transactions. SQLite admits one writer at a time; waiting here
	// is cheaper and fairer than SQLite's sleeping busy handler, which
	// remains for writers in other processes.
	writer chan struct{}
	// subjectsKept and subjectsAgain count the subjects LoadSubject kept
	// as the replica read them, and read again on the primary.
	subjectsKept, subjectsAgain atomic.Int64
	// statusList is the status list this process reserves entries in;
	// nil until the first reservation.
	statusList atomic.Pointer[openList]
}

var bindSQLite sync.Once

// Open connects to the database named by dsn (see the package
// documentation) and checks that it answers. It does not migrate. A
// SQLite file is created private, and refused when it is not.
func Open(ctx context.Context, dsn string, opts Options) (*DB, error) {
	db := &DB{now: opts.Now, rand: opts.Rand, log: opts.Logger, wrapped: opts.WrapConnector != nil, writer: make(chan struct{}, 1)}
	if db.now == nil {
		db.now = time.Now
	}
	if db.rand == nil {
		db.rand = rand.Reader
	}
	if db.log == nil {
		db.log = slog.New(slog.DiscardHandler)
	}
	maxConns := opts.MaxOpenConns
	if maxConns == 0 {
		maxConns = 10
	}
	if opts.ReadURL != "" {
		switch {
		case !postgresURL(dsn):
			return nil, errors.New("store: a read replica needs a PostgreSQL database, not a SQLite file")
		case !postgresURL(opts.ReadURL):
			return nil, errors.New("store: a read replica must be named by a postgres:// URL")
		}
	}
	var err error
	switch {
	case postgresURL(dsn):
		db.engine = Postgres
		db.x, err = openWrapped("pgx", dsn, opts.WrapConnector)
	default:
		db.engine = SQLite
		bindSQLite.Do(func() { sqlx.BindDriver("sqlite", sqlx.QUESTION) })
		path := strings.TrimPrefix(dsn, "sqlite:")
		// SQLite reads ":memory:" and "file:" names as no file or as a
		// URI: the file that prepareSQLiteFile protects must be the one
		// SQLite opens.
		if path == "" || strings.ContainsAny(path, "?#") || path == ":memory:" || strings.HasPrefix(path, "file:") {
			return nil, fmt.Errorf("store: %q is not a usable SQLite file path", dsn)
		}
		if err := prepareSQLiteFile(path); err != nil {
			return nil, err
		}
		q := url.Values{
			"_busy_timeout": {"10000"},
			"_journal_mode": {"WAL"},
			"_synchronous":  {"NORMAL"},
			"_foreign_keys": {"1"},
			"_txlock":       {"immediate"},
		}
		db.x, err = openWrapped("sqlite", path+"?"+q.Encode(), opts.WrapConnector)
	}
	if err != nil {
		return nil, fmt.Errorf("store: open: %w", err)
	}
	db.x.SetMaxOpenConns(maxConns)
	db.x.SetMaxIdleConns(maxConns)
	if err := db.x.PingContext(ctx); err != nil {
		db.x.Close()
		return nil, fmt.Errorf("store: connect to %s database: %w", db.engine, err)
	}
	db.r = db.x
	if opts.ReadURL != "" {
		if db.r, err = db.openReader(ctx, opts.ReadURL, maxConns, opts.WrapConnector); err != nil {
			db.x.Close()
			return nil, err
		}
	}
	return db, nil
}

// postgresURL reports whether dsn names a PostgreSQL database.
func postgresURL(dsn string) bool {
	return strings.HasPrefix(dsn, "postgres://") || strings.HasPrefix(dsn, "postgresql://")
}

// openReader opens and checks the pool of a replica at dsn.
func (db *DB) openReader(ctx context.Context, dsn string, maxConns int, wrap func(driver.Connector) driver.Connector) (*sqlx.DB, error) {
	r, err := openWrapped("pgx", dsn, wrap)
	if err != nil {
		return nil, fmt.Errorf("store: open the read replica: %w", err)
	}
	r.SetMaxOpenConns(maxConns)
	r.SetMaxIdleConns(maxConns)
	if err := r.PingContext(ctx); err != nil {
		r.Close()
		return nil, fmt.Errorf("store: connect to the read replica: %w", err)
	}
	return r, nil
}

// openWrapped opens a pool on the named driver, through wrap when given.
func openWrapped(name, dsn string, wrap func(driver.Connector) driver.Connector) (*sqlx.DB, error) {
	if wrap == nil {
		return sqlx.Open(name, dsn)
	}
	probe, err := sql.Open(name, dsn)
	if err != nil {
		return nil, err
	}
	drv := probe.Driver()
	probe.Close()
	var c driver.Connector = dsnConnector{drv, dsn}
	if dc, ok := drv.(driver.DriverContext); ok {
		if c, err = dc.OpenConnector(dsn); err != nil {
			return nil, err
		}
	}
	return sqlx.NewDb(sql.OpenDB(wrap(c)), name), nil
}

// dsnConnector is the connector of a driver without its own.
type dsnConnector struct {
	drv driver.Driver
	dsn string
}

func (c dsnConnector) Connect(context.Context) (driver.Conn, error) { return c.drv.Open(c.dsn) }
func (c dsnConnector) Driver() driver.Driver                        { return c.drv }

// Engine reports which engine db uses.
func (db *DB) Engine() Engine { return db.engine }

// Close closes the connection pools.
func (db *DB) Close() error {
	if db.r != db.x {
		db.r.Close()
	}
	return db.x.Close()
}

// Stats returns the connection pool's statistics (open, in-use and idle
// connections, waits for a connection), for metrics. Both engines pool
// through database/sql.
func (db *DB) Stats() sql.DBStats { return db.x.Stats() }

// ReplicaSubjects reports how many subjects [DB.LoadSubject] kept as the
// replica read them, and how many it read again on the primary (the
// replica was behind, or did not answer); both are zero without a replica.
func (db *DB) ReplicaSubjects() (kept, again int64) {
	return db.subjectsKept.Load(), db.subjectsAgain.Load()
}

// UnsafeSQL returns the underlying connection pool, for tests and
// benchmarks that inspect or seed tables directly. Writes through it bypass
// every rule of the store.
func (db *DB) UnsafeSQL() *sqlx.DB { return db.x }

// timestamp returns the current time in UTC at the microsecond precision
// both engines keep.
func (db *DB) timestamp() time.Time { return db.now().UTC().Truncate(time.Microsecond) }

// forUpdate is the row-lock clause of the engine. SQLite has none: its
// transactions take the database write lock at BEGIN.
func (db *DB) forUpdate() string {
	if db.engine == Postgres {
		return " FOR UPDATE"
	}
	return ""
}

// maxAttempts bounds how often a transaction is retried after a
// serialisation failure, deadlock or busy database.
const maxAttempts = 5

// inTx runs fn in a transaction and commits it, retrying transient
// conflicts. fn must have no effect outside the transaction.
func (db *DB) inTx(ctx context.Context, fn func(tx *sqlx.Tx) error) error {
	return db.retry(ctx, func() error { return db.tryTx(ctx, fn) })
}

// retry runs one attempt of a transaction, and runs it again after a
// transient conflict, up to maxAttempts times.
func (db *DB) retry(ctx context.Context, attempt func() error) error {
	var err error
	for n := 1; n <= maxAttempts; n++ {
		err = attempt()
		if err == nil || !transient(err) || ctx.Err() != nil {
			return err
		}
		db.log.DebugContext(ctx, "store: retrying transaction", "attempt", n, "err", err)
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(time.Duration(n*n) * 5 * time.Millisecond):
		}
	}
	return &issuer.Error{Code: issuer.CodeUnavailable, Message: "the store is busy; retry later", Err: err}
}

func (db *DB) tryTx(ctx context.Context, fn func(tx *sqlx.Tx) error) error {
	if db.engine == SQLite {
		select {
		case db.writer <- struct{}{}:
			defer func() { <-db.writer }()
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	tx, err := db.x.BeginTxx(ctx, nil)
	if err != nil {
		return fmt.Errorf("store: begin: %w", err)
	}
	if err := fn(tx); err != nil {
		tx.Rollback()
		return err
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("store: commit: %w", err)
	}
	return nil
}

// transient reports whether err is a conflict that a retry may resolve.
func transient(err error) bool {
	if pe, ok := errors.AsType[*pgconn.PgError](err); ok {
		// serialization_failure, deadlock_detected, and an idempotency key
		// that a concurrent request recorded first: the retry replays it.
		return pe.Code == "40001" || pe.Code == "40P01" || pe.Code == "23505" && pe.TableName == "validation_requests"
	}
	if se, ok := errors.AsType[*sqlite.Error](err); ok {
		c := se.Code() & 0xff
		return c == sqlite3.SQLITE_BUSY || c == sqlite3.SQLITE_LOCKED
	}
	return false
}

// uniqueViolation reports whether err is a unique-constraint violation.
func uniqueViolation(err error) bool {
	if pe, ok := errors.AsType[*pgconn.PgError](err); ok {
		return pe.Code == "23505"
	}
	if se, ok := errors.AsType[*sqlite.Error](err); ok {
		return se.Code() == sqlite3.SQLITE_CONSTRAINT_UNIQUE || se.Code() == sqlite3.SQLITE_CONSTRAINT_PRIMARYKEY
	}
	return false
}

// The query helpers take SQL with ? placeholders and rebind it for the
// engine.

func get(ctx context.Context, q sqlx.ExtContext, dest any, query string, args ...any) error {
	return sqlx.GetContext(ctx, q, dest, q.Rebind(query), args...)
}

func sel(ctx context.Context, q sqlx.ExtContext, dest any, query string, args ...any) error {
	return sqlx.SelectContext(ctx, q, dest, q.Rebind(query), args...)
}

func exec(ctx context.Context, q sqlx.ExtContext, query string, args ...any) (sql.Result, error) {
	return q.ExecContext(ctx, q.Rebind(query), args...)
}

// insertID runs an INSERT … RETURNING id and returns the new key.
func insertID(ctx context.Context, q sqlx.ExtContext, query string, args ...any) (int64, error) {
	var id int64
	err := sqlx.GetContext(ctx, q, &id, q.Rebind(query+" RETURNING id"), args...)
	return id, err
}

// notFound reports sql.ErrNoRows as a caller-facing not_found error and
// wraps anything else.
func notFound(err error, format string, args ...any) error {
	if errors.Is(err, sql.ErrNoRows) {
		return issuer.Errorf(issuer.CodeNotFound, format, args...)
	}
	return err
}
