package store

import (
	"context"

	"github.com/pressly/goose/v3"
)

// MigrateMissing applies every migration not recorded as applied, even one
// older than the database's version: a test that forgets a migration to
// run it again uses it.
func (db *DB) MigrateMissing(ctx context.Context) ([]Migration, error) {
	return db.migrate(ctx, goose.WithAllowOutofOrder(true))
}

// The statements of a find_agents page, for the tests of their plans.
const (
	SkillPageSQL   = skillPageSQL
	ListingPageSQL = listingPageSQL
)
