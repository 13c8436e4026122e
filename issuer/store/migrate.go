package store

import (
	"context"
	"fmt"
	"io/fs"

	"github.com/pressly/goose/v3"
	"github.com/pressly/goose/v3/lock"

	"github.com/remnant/passportkit/issuer"
	"github.com/remnant/passportkit/migrations"
)

// provider returns the goose migration provider for db's engine, with
// extra options (tests only).
func (db *DB) provider() (*goose.Provider, error) {
	dialect, dir := goose.DialectPostgres, "postgres"
	if db.engine == SQLite {
		dialect, dir = goose.DialectSQLite3, "sqlite"
	}
	fsys, err := fs.Sub(migrations.FS, dir)
	if err != nil {
		return nil, fmt.Errorf("store: migrations: %w", err)
	}
	opts := []goose.ProviderOption{goose.WithDisableGlobalRegistry(true)}
	if db.engine == Postgres {
		// Replicas starting together take turns.
		locker, err := lock.NewPostgresSessionLocker()
		if err != nil {
			return nil, fmt.Errorf("store: migrations: %w", err)
		}
		opts = append(opts, goose.WithSessionLocker(locker))
	}
	p, err := goose.NewProvider(dialect, db.x.DB, fsys, opts...)
	if err != nil {
		return nil, fmt.Errorf("store: migrations: %w", err)
	}
	return p, nil
}

// Migration is one applied migration.
type Migration struct {
	Version int64
	Name    string
}

// Migrate applies every pending migration and returns those it applied.
func (db *DB) Migrate(ctx context.Context) ([]Migration, error) {
	p, err := db.provider()
	if err != nil {
		return nil, err
	}
	results, err := p.Up(ctx)
	if err != nil {
		return nil, fmt.Errorf("store: migrate: %w", err)
	}
	out := make([]Migration, len(results))
	for i, r := range results {
		out[i] = Migration{Version: r.Source.Version, Name: r.Source.Path}
	}
	return out, nil
}

// SchemaVersion returns the database's schema version and the version this
// release expects.
func (db *DB) SchemaVersion(ctx context.Context) (current, want int64, err error) {
	p, err := db.provider()
	if err != nil {
		return 0, 0, err
	}
	sources := p.ListSources()
	want = sources[len(sources)-1].Version
	// A database never migrated has no version table; reading it must not
	// create one.
	exists, err := db.tableExists(ctx, versionTable)
	if err != nil || !exists {
		return 0, want, err
	}
	current, err = p.GetDBVersion(ctx)
	if err != nil {
		return 0, 0, fmt.Errorf("store: schema version: %w", err)
	}
	return current, want, nil
}

// CheckSchema verifies that the schema is exactly the one this release
// expects, without changing anything. Production start-up runs it instead
// of migrating.
func (db *DB) CheckSchema(ctx context.Context) error {
	current, want, err := db.SchemaVersion(ctx)
	if err != nil {
		return err
	}
	switch {
	case current == 0:
		return issuer.Errorf(issuer.CodeConflict, "the database has no schema yet: run `passport-issuer migrate`, or start `passport-issuer serve` in development")
	case current < want:
		return issuer.Errorf(issuer.CodeConflict, "the database schema is at version %d and this release needs %d: back up the database, stop writers and run `passport-issuer migrate`", current, want)
	case current > want:
		return issuer.Errorf(issuer.CodeConflict, "the database schema is at version %d, newer than this release's %d: run the matching release", current, want)
	}
	return nil
}

// versionTable is goose's record of applied migrations.
const versionTable = "goose_db_version"

// tableExists reports whether a table of that name is visible.
func (db *DB) tableExists(ctx context.Context, name string) (bool, error) {
	query := "SELECT COUNT(*) FROM sqlite_master WHERE type = 'table' AND name = ?"
	if db.engine == Postgres {
		query = "SELECT COUNT(*) FROM pg_catalog.pg_tables WHERE schemaname = current_schema() AND tablename = ?"
	}
	var n int
	if err := get(ctx, db.x, &n, query, name); err != nil {
		return false, fmt.Errorf("store: schema version: %w", err)
	}
	return n > 0, nil
}
