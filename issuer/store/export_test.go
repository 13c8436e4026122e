package store

import "context"

// The statements of a find_agents page, for the tests of their plans.
const (
	SkillPageSQL   = skillPageSQL
	ListingPageSQL = listingPageSQL
	RecentPageSQL  = recentPageSQL
)

// ApplyMigration applies the one migration version, whatever versions the
// database holds after it: for the tests of one migration's effect.
func (db *DB) ApplyMigration(ctx context.Context, version int64) error {
	p, err := db.provider()
	if err != nil {
		return err
	}
	_, err = p.ApplyVersion(ctx, version, true)
	return err
}
