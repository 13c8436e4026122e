package store_test

import (
	"context"
	"database/sql/driver"
	"slices"
	"testing"
	"time"

	"github.com/remnant/passportkit/issuer"
	"github.com/remnant/passportkit/issuer/store"
	"github.com/remnant/passportkit/issuer/store/storetest"
	"github.com/remnant/passportkit/reputation"
)

// A validation announces the revision of the subject it changes once it
// has committed, sent by the store after the COMMIT (migration 00019), on
// the pipelined path and on the statement-by-statement one.
func TestValidationAnnouncesRevisionAfterCommit(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: needs PostgreSQL")
	}
	t.Parallel()
	if !slices.Contains(storetest.Engines(t), store.Postgres) {
		t.Skip("PostgreSQL only: SQLite has no notifications")
	}
	// One schema, written through two handles, listened to on the first.
	ctx := context.Background()
	dsn := storetest.URL(t, store.Postgres)
	open := func(opts store.Options) *store.DB {
		db, err := store.Open(ctx, dsn, opts)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { db.Close() })
		return db
	}
	listener := open(store.Options{})
	if _, err := listener.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	wrapped := open(store.Options{WrapConnector: func(c driver.Connector) driver.Connector { return &statementCounter{inner: c} }})
	for name, db := range map[string]*store.DB{"pipelined": listener, "wrapped": wrapped} {
		t.Run(name, func(t *testing.T) {
			f := newFixture(t, db)
			author, evaluator := f.agent("author"), f.agent("evaluator")
			mem := f.publish(author, "sql")
			f.retrieve(evaluator, mem)

			ctx, stop := context.WithCancel(ctx)
			announced := make(chan issuer.AgentID, 256)
			listening := make(chan error, 1)
			go func() { listening <- listener.ListenRevisions(ctx, func(id issuer.AgentID) { announced <- id }) }()
			defer func() { stop(); <-listening }()
			time.Sleep(200 * time.Millisecond) // the listener's LISTEN

			f.validate(evaluator, mem, reputation.Corroborate, "")
			timeout := time.After(30 * time.Second)
			for {
				select {
				case id := <-announced:
					if id == author.AgentID {
						return
					}
				case <-timeout:
					t.Fatalf("no announcement of %s after its memory's validation", author.AgentID)
				}
			}
		})
	}
}
