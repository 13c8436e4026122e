// Package storetest opens fresh, migrated stores for tests, on every engine
// available: SQLite always, PostgreSQL when PASSPORT_TEST_DATABASE_URL names
// a database. When PASSPORTKIT_CI is set (.ci/run sets it) PostgreSQL is
// required, and a missing URL fails the test; elsewhere the PostgreSQL half
// is skipped with a notice. The generic CI variable, which every hosted CI
// sets, changes nothing. Under -short (the fast lane) only SQLite is
// tested.
//
// Each PostgreSQL store lives in its own schema, dropped when the test ends;
// each SQLite store is a file in the test's temporary directory.
// [StartReplicated] starts a PostgreSQL primary and a streaming replica of
// its own, for the reads a store sends to a replica.
package storetest

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/remnant/passportkit/internal/seal"
	"github.com/remnant/passportkit/issuer"
	"github.com/remnant/passportkit/issuer/service"
	"github.com/remnant/passportkit/issuer/store"
	"github.com/remnant/passportkit/reputation"
)

// EnvURL names the environment variable holding the PostgreSQL test URL.
const EnvURL = "PASSPORT_TEST_DATABASE_URL"

// EnvRequired names the environment variable that makes the tests' outside
// services required (PostgreSQL here, Chromium for the pages) instead of
// skipped: .ci/run sets it.
const EnvRequired = "PASSPORTKIT_CI"

// Required reports whether EnvRequired is set.
func Required() bool { return os.Getenv(EnvRequired) != "" }

var notice, shortNotice sync.Once

// Engines returns the engines to test on.
func Engines(t testing.TB) []store.Engine {
	t.Helper()
	if testing.Short() {
		shortNotice.Do(func() {
			fmt.Fprintln(os.Stderr, "storetest: -short: only SQLite is tested; the full lane tests PostgreSQL too")
		})
		return []store.Engine{store.SQLite}
	}
	if os.Getenv(EnvURL) != "" {
		return []store.Engine{store.SQLite, store.Postgres}
	}
	if Required() {
		t.Fatalf("storetest: %s is not set, and %s requires the PostgreSQL tests", EnvURL, EnvRequired)
	}
	notice.Do(func() {
		fmt.Fprintf(os.Stderr, "storetest: %s is not set: PostgreSQL tests are SKIPPED; only SQLite is tested\n", EnvURL)
	})
	return []store.Engine{store.SQLite}
}

// Run runs f once per engine, as subtests named after the engines, each with
// a fresh store. It marks t parallel: stores share nothing.
func Run(t *testing.T, f func(t *testing.T, db *store.DB)) {
	t.Helper()
	t.Parallel()
	for _, e := range Engines(t) {
		t.Run(string(e), func(t *testing.T) {
			f(t, Open(t, e, store.Options{}))
		})
	}
	switch {
	case testing.Short():
		t.Run(string(store.Postgres), func(t *testing.T) { t.Skip("-short tests SQLite only") })
	case os.Getenv(EnvURL) == "":
		t.Run(string(store.Postgres), func(t *testing.T) {
			t.Skipf("%s is not set", EnvURL)
		})
	}
}

// Open returns a fresh, migrated store on engine, closed and removed when t
// ends. Options without a logger log to t.
func Open(t testing.TB, engine store.Engine, opts store.Options) *store.DB {
	t.Helper()
	db := OpenEmpty(t, engine, opts)
	if _, err := db.Migrate(context.Background()); err != nil {
		t.Fatalf("storetest: %v", err)
	}
	return db
}

// URL returns the --db value of a fresh, empty database on engine,
// removed when t ends: a SQLite file, or a PostgreSQL schema of its own.
func URL(t testing.TB, engine store.Engine) string {
	t.Helper()
	switch engine {
	case store.SQLite:
		return filepath.Join(t.TempDir(), "test.db")
	case store.Postgres:
		return postgresSchema(t)
	}
	t.Fatalf("storetest: unknown engine %q", engine)
	return ""
}

// OpenEmpty is like Open but leaves the database unmigrated.
func OpenEmpty(t testing.TB, engine store.Engine, opts store.Options) *store.DB {
	t.Helper()
	ctx := context.Background()
	dsn := URL(t, engine)
	if opts.Logger == nil {
		opts.Logger = Logger(t)
	}
	db, err := store.Open(ctx, dsn, opts)
	if err != nil {
		t.Fatalf("storetest: %v", err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// postgresSchema creates a schema for t and returns a URL whose connections
// use it. The schema is dropped when t ends.
func postgresSchema(t testing.TB) string {
	t.Helper()
	base := os.Getenv(EnvURL)
	if base == "" {
		if Required() {
			t.Fatalf("storetest: %s is not set, and %s requires the PostgreSQL tests", EnvURL, EnvRequired)
		}
		t.Skipf("storetest: %s is not set", EnvURL)
	}
	u, err := url.Parse(base)
	if err != nil {
		t.Fatalf("storetest: %s: %v", EnvURL, err)
	}
	var b [8]byte
	rand.Read(b[:])
	schema := "t_" + hex.EncodeToString(b[:])
	admin := adminPool(t, base)
	if _, err := admin.Exec(`CREATE SCHEMA ` + schema); err != nil {
		t.Fatalf("storetest: create schema: %v", err)
	}
	t.Cleanup(func() {
		if _, err := admin.Exec(`DROP SCHEMA ` + schema + ` CASCADE`); err != nil {
			t.Errorf("storetest: drop schema %s: %v", schema, err)
		}
	})
	q := u.Query()
	q.Set("search_path", schema)
	u.RawQuery = q.Encode()
	return u.String()
}

var (
	adminOnce sync.Once
	admin     *sql.DB
	adminErr  error
)

// adminPool returns the pool that creates and drops test schemas, shared by
// every test in the process: new PostgreSQL connections are slow to set up.
func adminPool(t testing.TB, url string) *sql.DB {
	t.Helper()
	adminOnce.Do(func() {
		admin, adminErr = sql.Open("pgx", url)
		if adminErr == nil {
			admin.SetMaxIdleConns(2)
		}
	})
	if adminErr != nil {
		t.Fatalf("storetest: %v", adminErr)
	}
	return admin
}

// Sealer returns the sealer of db's cursors, as cmd/passport-issuer builds
// it: keyed by the database's cursor key.
func Sealer(t testing.TB, db *store.DB) *seal.Sealer {
	t.Helper()
	s, err := dbSealer(db)
	if err != nil {
		t.Fatalf("storetest: %v", err)
	}
	return s
}

// dbSealer returns the sealer keyed by db's cursor key.
func dbSealer(db *store.DB) (*seal.Sealer, error) {
	key, err := db.CursorKey(context.Background())
	if err != nil {
		return nil, err
	}
	return seal.New(key)
}

// Issuer is the issuer identifier of the services [Service] returns.
const Issuer = "https://issuer.test"

// Service returns the issuer's use cases over db, as cmd/passport-issuer
// wires them: cursors sealed with the database's cursor key, so that two
// services over one database accept each other's, and [Issuer] as the
// issuer identifier. It panics when the key cannot be read.
func Service(db *store.DB) *service.Service {
	s, err := dbSealer(db)
	if err != nil {
		panic(fmt.Sprintf("storetest: %v", err))
	}
	return service.New(db, service.Options{Cursors: s, Issuer: Issuer})
}

// Admin returns the operator's use cases over db, as cmd/passport-issuer
// wires them.
func Admin(db *store.DB) *service.Admin { return service.NewAdmin(db, service.AdminOptions{}) }

// Agent creates an agent called name on db, holding every scope, and
// returns it as its API key authenticates.
func Agent(t testing.TB, db *store.DB, name string) issuer.Principal {
	t.Helper()
	ctx := context.Background()
	created, err := Admin(db).CreateAgent(ctx, service.NewAgent{Name: name, Scopes: issuer.AllScopes})
	if err != nil {
		t.Fatal(err)
	}
	p, err := db.Authenticate(ctx, created.Key)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// CommitFloor returns the rate of single-row write transactions (one audit
// row each) that clients concurrent clients achieve on db, n transactions
// in all: the cost of a durable commit on this machine, now, as a baseline
// for benchmarks to report ratios against.
func CommitFloor(b *testing.B, db *store.DB, clients, n int) float64 {
	b.Helper()
	x := db.UnsafeSQL()
	var wg sync.WaitGroup
	var failed atomic.Value
	start := time.Now()
	for c := range clients {
		wg.Go(func() {
			for i := c; i < n; i += clients {
				tx, err := x.Beginx()
				if err == nil {
					_, err = tx.Exec(tx.Rebind(`INSERT INTO audit_events (actor, action, subject, created_at) VALUES ('bench', 'floor', 'x', ?)`), time.Now().UTC())
					if err == nil {
						err = tx.Commit()
					} else {
						tx.Rollback()
					}
				}
				if err != nil {
					failed.Store(err)
					return
				}
			}
		})
	}
	wg.Wait()
	if err, ok := failed.Load().(error); ok {
		b.Fatal(err)
	}
	return float64(n) / time.Since(start).Seconds()
}

// Journal gives author a reputation journal on db, through the service: a
// public memory in each of categories, retrieved and then corroborated by
// each of evaluators in turn, so that the journal holds one entry per
// evaluator and category, the last corroboration newest.
func Journal(t testing.TB, db *store.DB, author issuer.Principal, evaluators []issuer.Principal, categories ...string) {
	t.Helper()
	ctx, app := context.Background(), Service(db)
	for _, c := range categories {
		m, err := app.Publish(ctx, author, issuer.Publication{Category: c, Domain: reputation.NormalizeDomain(c), Title: "A finding about " + c,
			Content: "What was found about " + c + ".", Confidence: 500})
		if err != nil {
			t.Fatalf("storetest: %v", err)
		}
		for _, ev := range evaluators {
			if _, err := app.Retrieve(ctx, ev, m.ID); err != nil {
				t.Fatalf("storetest: %v", err)
			}
			if _, _, err := app.SubmitFeedback(ctx, ev, m.ID, issuer.Feedback{Type: reputation.Corroborate}, issuer.TransportHTTP); err != nil {
				t.Fatalf("storetest: %v", err)
			}
		}
	}
}

// ForgedCursors returns, by name, variants of cursor, a hidden token db's
// sealer sealed for purpose, that no route may accept: one character
// altered, the last one cut, one added, padding added, a line break
// inserted, and its payload sealed for another purpose, with another key
// and as a plain token.
func ForgedCursors(t testing.TB, db *store.DB, purpose, cursor string) map[string]string {
	t.Helper()
	sl := Sealer(t, db)
	payload, err := sl.OpenHidden(purpose, cursor)
	if err != nil {
		t.Fatalf("storetest: %q is not a cursor of %s: %v", cursor, purpose, err)
	}
	other, err := seal.New(make([]byte, seal.KeySize))
	if err != nil {
		t.Fatalf("storetest: %v", err)
	}
	altered, mid := []byte(cursor), len(cursor)/2
	if altered[mid] = 'A'; cursor[mid] == 'A' {
		altered[mid] = 'B'
	}
	return map[string]string{
		"altered":              string(altered),
		"truncated":            cursor[:len(cursor)-1],
		"extended":             cursor + "A",
		"padded":               cursor + "=",
		"another purpose":      Sealer(t, db).Seal(purpose+"-other", payload),
		"another issuer's key": other.Seal(purpose, payload),
	}
}

// Principal creates an agent named name on db, with the default scopes
// and no operator, and returns it as its API key authenticates.
func Principal(t testing.TB, db *store.DB, name string) issuer.Principal {
	t.Helper()
	ctx := context.Background()
	a, err := Admin(db).CreateAgent(ctx, service.NewAgent{Name: name})
	if err != nil {
		t.Fatalf("storetest: %v", err)
	}
	p, err := db.Authenticate(ctx, a.Key)
	if err != nil {
		t.Fatalf("storetest: %v", err)
	}
	return p
}
