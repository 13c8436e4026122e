package store_test

import (
	"context"
	"database/sql/driver"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/remnant/passportkit/issuer"
	"github.com/remnant/passportkit/issuer/store"
	"github.com/remnant/passportkit/issuer/store/storetest"
)

// statementCounter wraps a driver connector and counts what each
// connection sends to the database: statements, BEGIN and COMMIT. On
// PostgreSQL each is one round trip.
type statementCounter struct {
	inner driver.Connector
	n     atomic.Int64
}

func (c *statementCounter) Connect(ctx context.Context) (driver.Conn, error) {
	conn, err := c.inner.Connect(ctx)
	if err != nil {
		return nil, err
	}
	return &countingConn{Conn: conn, n: &c.n}, nil
}

func (c *statementCounter) Driver() driver.Driver { return c.inner.Driver() }

// countingConn forwards every optional interface the drivers implement.
type countingConn struct {
	driver.Conn
	n *atomic.Int64
}

type countingTx struct {
	driver.Tx
	n *atomic.Int64
}

func (t countingTx) Commit() error { t.n.Add(1); return t.Tx.Commit() }

func (c *countingConn) BeginTx(ctx context.Context, opts driver.TxOptions) (driver.Tx, error) {
	c.n.Add(1)
	tx, err := c.Conn.(driver.ConnBeginTx).BeginTx(ctx, opts)
	if err != nil {
		return nil, err
	}
	return countingTx{tx, c.n}, nil
}

func (c *countingConn) ExecContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Result, error) {
	e, ok := c.Conn.(driver.ExecerContext)
	if !ok {
		return nil, driver.ErrSkip
	}
	c.n.Add(1)
	return e.ExecContext(ctx, query, args)
}

func (c *countingConn) QueryContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Rows, error) {
	q, ok := c.Conn.(driver.QueryerContext)
	if !ok {
		return nil, driver.ErrSkip
	}
	c.n.Add(1)
	return q.QueryContext(ctx, query, args)
}

func (c *countingConn) PrepareContext(ctx context.Context, query string) (driver.Stmt, error) {
	// A prepared statement's execution is counted as one statement.
	c.n.Add(1)
	if p, ok := c.Conn.(driver.ConnPrepareContext); ok {
		return p.PrepareContext(ctx, query)
	}
	return c.Conn.Prepare(query)
}

func (c *countingConn) CheckNamedValue(v *driver.NamedValue) error {
	if nc, ok := c.Conn.(driver.NamedValueChecker); ok {
		return nc.CheckNamedValue(v)
	}
	return driver.ErrSkip
}

func (c *countingConn) Ping(ctx context.Context) error {
	if p, ok := c.Conn.(driver.Pinger); ok {
		return p.Ping(ctx)
	}
	return nil
}

func (c *countingConn) ResetSession(ctx context.Context) error {
	if r, ok := c.Conn.(driver.SessionResetter); ok {
		return r.ResetSession(ctx)
	}
	return nil
}

func (c *countingConn) IsValid() bool {
	if v, ok := c.Conn.(driver.Validator); ok {
		return v.IsValid()
	}
	return true
}

// openCounted opens a fresh store whose statements are counted.
func openCounted(t *testing.T, engine store.Engine) (*store.DB, *statementCounter) {
	t.Helper()
	var counter *statementCounter
	db := storetest.Open(t, engine, store.Options{WrapConnector: func(c driver.Connector) driver.Connector {
		counter = &statementCounter{inner: c}
		return counter
	}})
	return db, counter
}

// afterCommit is the number of statements a write that changes subjects
// sends after its COMMIT on engine: PostgreSQL's revision notification
// (migration 00019), none on SQLite.
func afterCommit(engine store.Engine) int64 {
	if engine == store.Postgres {
		return 1
	}
	return 0
}

// A consultation sends the same number of statements whatever the number
// of memories it activates: 1 + 3N before it was batched.
func TestConsultStatementsConstantInMemories(t *testing.T) {
	t.Parallel()
	for _, engine := range storetest.Engines(t) {
		t.Run(string(engine), func(t *testing.T) {
			db, counter := openCounted(t, engine)
			f := newFixture(t, db)
			author, reader, app := f.agent("author"), f.agent("reader"), svc(db)
			var mems []issuer.MemoryID
			for range issuer.MaxConsultedMemories {
				mems = append(mems, f.publish(author, "sql"))
			}
			cost := map[int]int64{}
			for _, n := range []int{1, 2, issuer.MaxConsultedMemories} {
				before := counter.n.Load()
				r, err := app.Consult(f.ctx, reader, mems[:n])
				if err != nil {
					t.Fatal(err)
				}
				cost[n] = counter.n.Load() - before
				if len(r.Memories) != n {
					t.Fatalf("receipt lists %d memories, want %d", len(r.Memories), n)
				}
				if got := f.count(`SELECT COUNT(*) FROM retrievals r JOIN receipts c ON c.id = r.receipt_id WHERE c.public_id = ?`, r.ID); got != n {
					t.Fatalf("%d retrievals recorded, want %d", got, n)
				}
			}
			t.Logf("%s: statements per consultation of 1, 2, %d memories: %v", engine, issuer.MaxConsultedMemories, cost)
			if cost[1] != cost[issuer.MaxConsultedMemories] || cost[1] != cost[2] || cost[1] > 7 {
				t.Fatalf("statements per consultation by memories: %v; want the same small number for each", cost)
			}
		})
	}
}

// A memory named twice in one consultation is refused before anything is
// written, so one consultation never records an activation twice.
func TestConsultRefusesDuplicateMemories(t *testing.T) {
	storetest.Run(t, func(t *testing.T, db *store.DB) {
		f := newFixture(t, db)
		author, reader := f.agent("author"), f.agent("reader")
		a, b := f.publish(author, "sql"), f.publish(author, "go")
		before := snapshot(t, db)
		_, err := svc(db).Consult(f.ctx, reader, []issuer.MemoryID{a, b, a})
		wantCode(t, err, issuer.CodeInvalid)
		if changed := diffSnapshots(before, snapshot(t, db)); len(changed) != 0 {
			t.Fatalf("a refused consultation changed %v", changed)
		}
		// An unknown memory is named in the refusal, in request order.
		_, err = svc(db).Consult(f.ctx, reader, []issuer.MemoryID{a, "mem_aaaaaaaaaaaaaaaaaaaaaaaaaa", b})
		wantCode(t, err, issuer.CodeNotFound)
		if want := "mem_aaaaaaaaaaaaaaaaaaaaaaaaaa"; !strings.Contains(err.Error(), want) {
			t.Fatalf("refusal %q does not name %s", err, want)
		}
	})
}

// A publication sends the same number of statements whatever the number
// of its links and of the authors it contradicts, BEGIN and COMMIT
// included: 7 without links, 10 with; 8 and 11 + N before the service
// planned it, N the authors contradicted. On PostgreSQL one more follows
// the COMMIT: the revision notification (see afterCommit).
func TestPublishStatementsConstantInLinks(t *testing.T) {
	t.Parallel()
	for _, engine := range storetest.Engines(t) {
		t.Run(string(engine), func(t *testing.T) {
			notify := afterCommit(engine)
			db, counter := openCounted(t, engine)
			f := newFixture(t, db)
			author, app := f.agent("author"), svc(db)
			var targets []issuer.MemoryID
			for i := range 8 {
				targets = append(targets, f.publish(f.agent(fmt.Sprint("other ", i)), "sql"))
			}
			cost := map[int]int64{}
			for _, n := range []int{0, 1, 8} {
				pub := issuer.Publication{Category: "sql", Domain: "sql", Title: "t", Content: "c", Confidence: 500}
				for _, id := range targets[:n] {
					pub.Links = append(pub.Links, issuer.Link{Kind: issuer.LinkContradicts, Target: id})
				}
				before := counter.n.Load()
				m, err := app.Publish(f.ctx, author, pub)
				if err != nil {
					t.Fatal(err)
				}
				cost[n] = counter.n.Load() - before
				if len(m.Contradicts) != n {
					t.Fatalf("the memory contradicts %v, want %d memories", m.Contradicts, n)
				}
			}
			t.Logf("%s: statements per publication with 0, 1, 8 contradictions: %v", engine, cost)
			if cost[1] != cost[8] || cost[0] > 7+notify || cost[1] > 10+notify {
				t.Fatalf("statements per publication by links: %v; want at most %d without links and %d with any number", cost, 7+notify, 10+notify)
			}
		})
	}
}

// An agent's status change and a memory's moderation send the same number
// of statements whatever the number of other authors whose passports they
// make stale, BEGIN and COMMIT included: 7 and 8; 7 + N and 8 + N before
// the service planned them, N the authors made stale. On PostgreSQL one
// more follows the COMMIT: the revision notification (see afterCommit).
func TestStaleSubjectsStatementsConstant(t *testing.T) {
	t.Parallel()
	for _, engine := range storetest.Engines(t) {
		t.Run(string(engine), func(t *testing.T) {
			notify := afterCommit(engine)
			db, counter := openCounted(t, engine)
			f := newFixture(t, db)
			var readers []issuer.Principal
			for i := range 8 {
				readers = append(readers, f.agent(fmt.Sprint("reader ", i)))
			}
			suspend, moderate := map[int]int64{}, map[int]int64{}
			for _, n := range []int{1, 8} {
				subject := f.agent(fmt.Sprint("subject ", n))
				mem := f.publish(subject, "sql")
				for _, r := range readers[:n] {
					if _, err := svc(db).Publish(f.ctx, r, issuer.Publication{Category: "sql", Domain: "sql", Title: "t", Content: "c",
						Confidence: 500, Links: []issuer.Link{{Kind: issuer.LinkDerivedFrom, Target: mem}}}); err != nil {
						t.Fatal(err)
					}
				}
				before := counter.n.Load()
				if _, err := f.admin.ModerateMemory(f.ctx, mem, issuer.Moderation{Status: issuer.MemoryQuarantined}); err != nil {
					t.Fatal(err)
				}
				moderate[n] = counter.n.Load() - before
				before = counter.n.Load()
				if err := f.admin.SetAgentStatus(f.ctx, subject.AgentID, issuer.AgentSuspended); err != nil {
					t.Fatal(err)
				}
				suspend[n] = counter.n.Load() - before
			}
			t.Logf("%s: statements with 1 and 8 dependent authors: status change %v, moderation %v", engine, suspend, moderate)
			if suspend[1] != suspend[8] || moderate[1] != moderate[8] || suspend[1] > 7+notify || moderate[1] > 8+notify {
				t.Fatalf("statements by dependent authors: status change %v, moderation %v; want the same small number for each", suspend, moderate)
			}
		})
	}
}
