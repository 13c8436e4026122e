package store

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/jmoiron/sqlx"

	"github.com/remnant/passportkit/issuer"
	"github.com/remnant/passportkit/issuer/service"
)

var (
	_ service.Store      = (*DB)(nil)
	_ service.AdminStore = (*DB)(nil)
	_ service.Executor   = executor{}
)

// InTx runs fn in one transaction, retrying transient conflicts. On
// PostgreSQL the executor talks to pgx directly and sends each call as one
// pipelined batch: BEGIN with the first read, COMMIT with the writes. On
// SQLite, and on PostgreSQL under a wrapped connector (which must see every
// statement), it runs the same statements one by one through database/sql.
func (db *DB) InTx(ctx context.Context, fn func(ctx context.Context, ex service.Executor) error) error {
	if db.engine == Postgres && !db.wrapped {
		return db.retry(ctx, func() error { return db.pgTx(ctx, fn) })
	}
	e := &sqlExecutor{lock: db.forUpdate(), notifies: db.engine == Postgres}
	err := db.inTx(ctx, func(tx *sqlx.Tx) error {
		e.tx, e.after = tx, nil
		return fn(ctx, executor{e})
	})
	if err != nil {
		return err
	}
	for _, s := range e.after {
		if _, err := db.x.ExecContext(ctx, db.x.Rebind(s.query), s.args...); err != nil {
			db.afterCommitFailed(ctx, err)
		}
	}
	return nil
}

// afterCommitFailed logs the failure of a statement sent after its
// transaction committed: the write stands, and the caller is told it
// succeeded.
func (db *DB) afterCommitFailed(ctx context.Context, err error) {
	db.log.WarnContext(ctx, "store: statement after commit failed", "err", err)
}

// executor is the store's service.Executor: each call is one batch of
// statements on its transaction's runner.
type executor struct{ br batchRunner }

func (e executor) LoadValidation(ctx context.Context, q service.ValidationQuery) (*service.ValidationState, error) {
	return loadValidation(ctx, e.br, q)
}

func (e executor) WriteValidation(ctx context.Context, plan *service.ValidationPlan) error {
	return writeValidation(ctx, e.br, plan)
}

func (e executor) LoadPublication(ctx context.Context, q service.PublicationQuery) (*service.PublicationState, error) {
	return loadPublication(ctx, e.br, q)
}

func (e executor) WritePublication(ctx context.Context, plan *service.PublicationPlan) (issuer.Memory, error) {
	return writePublication(ctx, e.br, plan)
}

func (e executor) LoadModeration(ctx context.Context, mem issuer.MemoryID) (*service.ModerationState, error) {
	return loadModeration(ctx, e.br, mem)
}

func (e executor) WriteModeration(ctx context.Context, plan *service.ModerationPlan) error {
	return writeModeration(ctx, e.br, plan)
}

func (e executor) LoadAgent(ctx context.Context, q service.AgentQuery) (*service.AgentState, error) {
	return loadAgent(ctx, e.br, q)
}

func (e executor) LoadRelated(ctx context.Context, q service.RelatedQuery) ([]service.Relation, error) {
	return loadRelated(ctx, e.br, q)
}

func (e executor) WriteAgent(ctx context.Context, plan *service.AgentPlan) error {
	return writeAgent(ctx, e.br, plan)
}

func (e executor) WriteNewAgent(ctx context.Context, plan *service.NewAgentPlan) error {
	return writeNewAgent(ctx, e.br, plan)
}

func (e executor) WriteNewOperator(ctx context.Context, plan *service.NewOperatorPlan) error {
	return writeNewOperator(ctx, e.br, plan)
}

func (e executor) LoadRetrieval(ctx context.Context, mem issuer.MemoryID, reader int64) (*service.RetrievalState, error) {
	return loadRetrieval(ctx, e.br, mem, reader)
}

func (e executor) WriteRetrieval(ctx context.Context, plan *service.RetrievalPlan) error {
	return writeRetrieval(ctx, e.br, plan)
}

func (e executor) LoadConsultation(ctx context.Context, mems []issuer.MemoryID) (*service.ConsultationState, error) {
	return loadConsultation(ctx, e.br, mems)
}

func (e executor) WriteConsultation(ctx context.Context, plan *service.ConsultationPlan) error {
	return writeConsultation(ctx, e.br, plan)
}

func (e executor) LoadPassportStatus(ctx context.Context, hash string) (*service.PassportStatusState, error) {
	return loadPassportStatus(ctx, e.br, hash)
}

func (e executor) WritePassportStatus(ctx context.Context, plan *service.PassportStatusPlan) error {
	return writePassportStatus(ctx, e.br, plan)
}

func (e executor) LoadCapabilities(ctx context.Context, agent int64) ([]string, error) {
	return loadCapabilities(ctx, e.br, agent)
}

func (e executor) WriteCapabilities(ctx context.Context, plan *service.CapabilitiesPlan) error {
	return writeCapabilities(ctx, e.br, plan)
}

func (e executor) LoadHolderKeys(ctx context.Context, agent int64, thumbprints []string) (*service.HolderKeyState, error) {
	return loadHolderKeyState(ctx, e.br, agent, thumbprints)
}

func (e executor) WriteHolderKeys(ctx context.Context, plan *service.HolderKeyPlan) error {
	return writeHolderKeys(ctx, e.br, plan)
}

// stmt is one statement of a batch, with ? placeholders. scan reads its
// rows; nil for a statement without rows. An afterCommit statement is a
// PostgreSQL notification: the runner sends it outside the transaction,
// right after the transaction commits, and only then; on SQLite, which
// has no notifications, not at all. Its failure is logged, not returned.
type stmt struct {
	query       string
	args        []any
	scan        func(r rows) error
	afterCommit bool
}

// rows is what database/sql's and pgx's result sets have in common.
type rows interface {
	Next() bool
	Scan(dest ...any) error
	Err() error
}

// batchRunner runs statements in order, in one round trip where it can.
// The last batch of a transaction has last set.
type batchRunner interface {
	run(ctx context.Context, batch []stmt, last bool) error
	// rowLock is the row-lock clause of the runner's engine: SQLite has
	// none, its transactions take the database write lock at BEGIN.
	rowLock() string
}

// sqlExecutor runs batches statement by statement in a database/sql
// transaction, whose row-lock clause is lock. On PostgreSQL (notifies)
// it keeps the afterCommit statements in after, for [DB.InTx] to send
// once the transaction has committed.
type sqlExecutor struct {
	tx       *sqlx.Tx
	lock     string
	notifies bool
	after    []stmt
}

func (e *sqlExecutor) rowLock() string { return e.lock }

func (e *sqlExecutor) run(ctx context.Context, batch []stmt, _ bool) error {
	for _, s := range batch {
		if s.afterCommit {
			if e.notifies {
				e.after = append(e.after, s)
			}
			continue
		}
		q := e.tx.Rebind(s.query)
		if s.scan == nil {
			if _, err := e.tx.ExecContext(ctx, q, s.args...); err != nil {
				return err
			}
			continue
		}
		r, err := e.tx.QueryContext(ctx, q, s.args...)
		if err != nil {
			return err
		}
		err = scanAll(r, s.scan)
		r.Close()
		if err != nil {
			return err
		}
	}
	return nil
}

func scanAll(r rows, scan func(rows) error) error {
	for r.Next() {
		if err := scan(r); err != nil {
			return err
		}
	}
	return r.Err()
}

// batch collects the statements of one executor call.
type batch []stmt

// add appends a statement without rows.
func (b *batch) add(query string, args ...any) { *b = append(*b, stmt{query: query, args: args}) }

// read appends a statement whose rows scan reads.
func (b *batch) read(scan func(r rows) error, query string, args ...any) {
	*b = append(*b, stmt{query: query, args: args, scan: scan})
}

// valueRows returns n copies of row, comma separated: the VALUES of a
// multi-row insert.
func valueRows(row string, n int) string {
	return strings.TrimSuffix(strings.Repeat(row+", ", n), ", ")
}

// insertRows appends one INSERT of n rows into table (cols), each row
// written as row with its arguments in args, row after row.
func (b *batch) insertRows(table, cols, row string, n int, args []any) {
	b.add(`INSERT INTO `+table+` (`+cols+`) VALUES `+valueRows(row, n), args...)
}

// deleteNamed appends one DELETE of agent's rows of table whose column
// col is one of names; nothing for no names.
func (b *batch) deleteNamed(table, col string, agent int64, names []string) {
	if len(names) == 0 {
		return
	}
	args := []any{agent}
	for _, n := range names {
		args = append(args, n)
	}
	b.add(`DELETE FROM `+table+` WHERE agent_id = ? AND `+col+` IN (`+placeholders(len(names))+`)`, args...)
}

// revisions replaces the revision tokens of revs' subjects, in one
// statement, and on PostgreSQL announces each subject's public ID on
// [RevisionChannel] once the transaction has committed. The subjects are
// distinct.
//
// The announcement is sent after the commit, not inside the transaction:
// PostgreSQL holds its notification queue's lock from a notifying
// transaction's commit until its WAL flush has ended, so notifying
// transactions would commit one at a time.
func (b *batch) revisions(revs []service.RevisionWrite, now time.Time) {
	if len(revs) == 0 {
		return
	}
	args := make([]any, 0, 3*len(revs))
	agents := make([]any, 0, len(revs))
	for _, r := range revs {
		args = append(args, r.Agent, r.Token, now)
		agents = append(agents, r.Agent)
	}
	b.add(`INSERT INTO skill_trust_revisions (agent_id, revision, updated_at) VALUES `+valueRows("(?, ?, ?)", len(revs))+`
		ON CONFLICT (agent_id) DO UPDATE SET revision = excluded.revision, updated_at = excluded.updated_at`, args...)
	*b = append(*b, stmt{query: `SELECT pg_notify('` + RevisionChannel + `', public_id) FROM agents WHERE id IN (` + placeholders(len(agents)) + `)`,
		args: agents, afterCommit: true})
}

// audit appends a, when not nil, to the audit log.
func (b *batch) audit(a *service.AuditWrite, now time.Time) error {
	if a == nil {
		return nil
	}
	detail, err := encodeDetail(a.Detail)
	if err != nil {
		return err
	}
	b.add(`INSERT INTO audit_events (actor, action, subject, detail, created_at) VALUES (?, ?, ?, ?, ?)`, a.Actor, a.Action, a.Subject, detail, now)
	return nil
}

// activity moves the activity counters ws name.
func (b *batch) activity(ws []service.ActivityWrite) error {
	for _, w := range ws {
		q, args, err := activityChange(w)
		if err != nil {
			return err
		}
		b.add(q, args...)
	}
	return nil
}

func placeholders(n int) string {
	b := make([]byte, 0, 3*n)
	for i := range n {
		if i > 0 {
			b = append(b, ", "...)
		}
		b = append(b, '?')
	}
	return string(b)
}

// encodeDetail encodes an audit event's detail.
func encodeDetail(detail any) (string, error) {
	b, err := json.Marshal(detail)
	if err != nil {
		return "", fmt.Errorf("store: audit detail: %w", err)
	}
	return string(b), nil
}
