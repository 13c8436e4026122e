// Package migrations holds the issuer's database schema as goose migrations,
// one folder per dialect: postgres/ for PostgreSQL and sqlite/ for the
// embedded SQLite store. Both folders describe the same schema and carry the
// same version numbers.
//
// Migrations only go up. Reputation history is append-only, and dropping it
// is not a supported way back: restore the backup taken before the upgrade,
// with the matching release, instead.
package migrations

import "embed"

// FS holds the folders postgres and sqlite.
//
//go:embed postgres/*.sql sqlite/*.sql
var FS embed.FS
