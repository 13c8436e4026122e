package store

import (
	"bytes"
	"compress/gzip"
	"context"
	"fmt"
	"io"
	"slices"
	"sync"
	"time"

	"github.com/jmoiron/sqlx"
	kgzip "github.com/klauspost/compress/gzip"

	"github.com/remnant/passportkit/evidence"
	"github.com/remnant/passportkit/issuer"
	"github.com/remnant/passportkit/issuer/service"
)

// SaveIssuedPassport keeps an issued passport and its evidence file
// (compressed) until purgeAfter, with the status list entry reserved for
// it, in one transaction that also deletes the passports whose purge time
// has passed. Saving the same passport hash again changes nothing.
func (db *DB) SaveIssuedPassport(ctx context.Context, p service.IssuedPassport, purgeAfter time.Time) error {
	// klauspost/compress writes standard gzip at about half the time of
	// compress/gzip at BestSpeed, and smaller (BenchmarkCompressEvidence);
	// IssuedEvidence reads it with the standard library.
	buf := bytes.NewBuffer(make([]byte, 0, len(p.EvidenceFile)/4))
	zw := gzipWriters.Get().(*kgzip.Writer)
	defer gzipWriters.Put(zw)
	zw.Reset(buf)
	if _, err := zw.Write(p.EvidenceFile); err != nil {
		return fmt.Errorf("store: compress evidence: %w", err)
	}
	if err := zw.Close(); err != nil {
		return fmt.Errorf("store: compress evidence: %w", err)
	}
	var (
		statusList *issuer.StatusListID
		statusIdx  *int
	)
	if p.Status != nil {
		statusList, statusIdx = &p.Status.List, &p.Status.Idx
	}
	now := db.timestamp()
	return db.inTx(ctx, func(tx *sqlx.Tx) error {
		if err := db.checkSigningKey(ctx, tx, p.KID, now); err != nil {
			return err
		}
		a, err := db.loadAgent(ctx, tx, p.Subject)
		if err != nil {
			return err
		}
		if _, err := exec(ctx, tx, `DELETE FROM issued_passport_previews WHERE passport_hash IN
			(SELECT passport_hash FROM issued_passports WHERE purge_after < ?)`, now); err != nil {
			return fmt.Errorf("store: purge issued passports: %w", err)
		}
		if _, err := exec(ctx, tx, `DELETE FROM issued_passports WHERE purge_after < ?`, now); err != nil {
			return fmt.Errorf("store: purge issued passports: %w", err)
		}
		_, err = exec(ctx, tx, `INSERT INTO issued_passports (passport_hash, agent_id, issued_at, expires_at, purge_after, kid, evidence_gz, status_list_id, status_idx)
			VALUES (?, ?, ?, ?, ?, ?, ?, (SELECT id FROM status_lists WHERE name = ?), ?) ON CONFLICT (passport_hash) DO NOTHING`,
			p.PassportHash, a.Key, p.IssuedAt.UTC(), p.ExpiresAt.UTC(), purgeAfter.UTC(), p.KID, buf.Bytes(), statusList, statusIdx)
		if err != nil {
			return fmt.Errorf("store: save issued passport: %w", err)
		}
		// The memories the source previews name keep their bodies while
		// the passport is unexpired; a pseudonym matches none. One
		// statement for every 500 of them, not one each.
		for chunk := range slices.Chunk(p.PreviewMemories, 500) {
			query, args, err := sqlx.In(`INSERT INTO issued_passport_previews (passport_hash, memory_id)
				SELECT ?, id FROM memories WHERE public_id IN (?) ON CONFLICT DO NOTHING`, p.PassportHash, chunk)
			if err == nil {
				_, err = exec(ctx, tx, query, args...)
			}
			if err != nil {
				return fmt.Errorf("store: save passport previews: %w", err)
			}
		}
		return nil
	})
}

// gzipWriters holds evidence compressors for reuse: each holds about a
// megabyte of state, which a fresh writer allocates and clears.
var gzipWriters = sync.Pool{New: func() any {
	zw, _ := kgzip.NewWriterLevel(io.Discard, kgzip.BestSpeed)
	return zw
}}

// IssuedEvidence returns the evidence file of the passport hash issued to
// the agent id. A hash unknown, issued to another agent, purged or past its
// purge time, and an agent without a public profile (private, unlisted or
// suspended) are all not_found.
func (db *DB) IssuedEvidence(ctx context.Context, id issuer.AgentID, hash string) ([]byte, error) {
	var gz []byte
	err := get(ctx, db.x, &gz, `SELECT p.evidence_gz FROM issued_passports p JOIN agents a ON a.id = p.agent_id
		WHERE p.passport_hash = ? AND a.public_id = ? AND a.status = 'active' AND a.visibility = 'public' AND p.purge_after >= ?`,
		hash, id, db.timestamp())
	if err != nil {
		return nil, notFound(err, "agent %s has no kept passport %s", id, hash)
	}
	zr, err := gzip.NewReader(bytes.NewReader(gz))
	if err != nil {
		return nil, fmt.Errorf("store: issued evidence: %w", err)
	}
	b, err := io.ReadAll(io.LimitReader(zr, evidence.MaxFileSize+1))
	if err != nil {
		return nil, fmt.Errorf("store: issued evidence: %w", err)
	}
	if len(b) > evidence.MaxFileSize {
		return nil, fmt.Errorf("store: issued evidence of %s is over %d bytes", hash, evidence.MaxFileSize)
	}
	return b, nil
}

// checkSigningKey refuses, inside tx, to keep a passport signed by kid once
// kid is withdrawn (its publication ended at its withdrawal): the key may
// have been withdrawn between signing and keeping, and its withdrawal
// revokes only what is kept by then. On PostgreSQL the transaction first
// holds the keys epoch row FOR SHARE, which every key change updates
// first, so a withdrawal either commits before the check, which then
// refuses, or waits for this transaction and revokes the passport it
// keeps. The check is a statement of its own: one that waited for the lock
// would still read the key as its own snapshot had it. On SQLite the write
// transaction already excludes a key change.
func (db *DB) checkSigningKey(ctx context.Context, tx *sqlx.Tx, kid string, now time.Time) error {
	if db.engine == Postgres {
		var epoch string
		if err := get(ctx, tx, &epoch, `SELECT epoch FROM issuer_keys_epoch FOR SHARE`); err != nil {
			return fmt.Errorf("store: lock keys epoch: %w", err)
		}
	}
	var withdrawn []string
	if err := sel(ctx, tx, &withdrawn, `SELECT kid FROM issuer_keys
		WHERE kid = ? AND publish_until IS NOT NULL AND publish_until <= ?`, kid, now); err != nil {
		return fmt.Errorf("store: check signing key: %w", err)
	}
	if len(withdrawn) > 0 {
		return &issuer.Error{Code: issuer.CodeUnavailable, Err: service.ErrSigningKeyWithdrawn,
			Message: "the passport's signing key was withdrawn while it was issued; ask again"}
	}
	return nil
}
