package store

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/jmoiron/sqlx"

	"github.com/remnant/passportkit/issuer"
	"github.com/remnant/passportkit/issuer/service"
)

var _ service.FeedStore = (*DB)(nil)

// candidateColumns are the columns of a candidateRow, of memory m by
// author a: what search, the feed and browsing read of a memory.
const candidateColumns = `m.id, m.public_id, m.author_id, a.public_id AS author_public_id, a.visibility AS author_visibility,
	m.title, m.category, m.domain, m.created_at, m.kind, m.evicted_at IS NOT NULL AS evicted`

// candidateRow is a memory as search, the feed and browsing read it.
type candidateRow struct {
	Key       int64           `db:"id"`
	ID        issuer.MemoryID `db:"public_id"`
	Author    int64           `db:"author_id"`
	AuthorID  issuer.AgentID  `db:"author_public_id"`
	AuthorVis string          `db:"author_visibility"`
	Title     string          `db:"title"`
	Category  string          `db:"category"`
	Domain    string          `db:"domain"`
	CreatedAt time.Time       `db:"created_at"`
	Kind      string          `db:"kind"`
	Evicted   bool            `db:"evicted"`
}

// feedColumns are the columns of a feedRow.
const feedColumns = candidateColumns + `, m.applies_claim`

// feedRow is one candidate row of browsing, with the skill it applies to.
type feedRow struct {
	candidateRow
	Applies string `db:"applies_claim"`
}

// candidate returns the row as viewer sees it: a private author is named
// to itself only.
func (r candidateRow) candidate(viewer int64) service.SearchCandidate {
	c := service.SearchCandidate{Key: r.Key, ID: r.ID, Author: r.Author, Title: r.Title,
		Category: r.Category, Domain: r.Domain, CreatedAt: r.CreatedAt.UTC(), Evicted: r.Evicted}
	if r.Kind == string(issuer.KindDigest) {
		c.Kind = issuer.KindDigest
	}
	if r.Author == viewer || r.AuthorVis == string(issuer.VisibilityPublic) {
		c.AuthorID = r.AuthorID
	}
	return c
}

// FeedCandidates returns the at most max memories viewer may read whose
// key is above after, in the given domain unless it is "", in key order
// (the order of publication), and whether more follow.
func (db *DB) FeedCandidates(ctx context.Context, viewer, after int64, domain string, max int) ([]service.SearchCandidate, bool, error) {
	var rows []candidateRow
	if err := sel(ctx, db.x, &rows, `SELECT `+candidateColumns+`
		FROM memories m JOIN agents a ON a.id = m.author_id
		WHERE m.id > ? AND (? = '' OR m.domain = ?) AND `+readableMatch+`
		ORDER BY m.id LIMIT ?`, after, domain, domain, viewer, max+1); err != nil {
		return nil, false, fmt.Errorf("store: feed: %w", err)
	}
	more := len(rows) > max
	if more {
		rows = rows[:max]
	}
	out := make([]service.SearchCandidate, len(rows))
	for i, r := range rows {
		out[i] = r.candidate(viewer)
	}
	return out, more, nil
}

// BrowseCandidates returns the at most max newest memories viewer may
// read, with the skill each applies to ("" for none), and whether more
// are readable.
func (db *DB) BrowseCandidates(ctx context.Context, viewer int64, max int) ([]service.BrowseCandidate, bool, error) {
	var rows []feedRow
	if err := sel(ctx, db.x, &rows, `SELECT `+feedColumns+`
		FROM memories m JOIN agents a ON a.id = m.author_id
		WHERE `+readableMatch+`
		ORDER BY m.id DESC LIMIT ?`, viewer, max+1); err != nil {
		return nil, false, fmt.Errorf("store: browse: %w", err)
	}
	more := len(rows) > max
	if more {
		rows = rows[:max]
	}
	out := make([]service.BrowseCandidate, len(rows))
	for i, r := range rows {
		var claim issuer.AppliesTo
		if err := json.Unmarshal([]byte(r.Applies), &claim); err != nil {
			return nil, false, fmt.Errorf("store: browse: memory %s applies to: %w", r.ID, err)
		}
		out[i] = service.BrowseCandidate{SearchCandidate: r.candidate(viewer), Skill: claim.Skill}
	}
	return out, more, nil
}

// ReaderAgents returns the agents named by key or by public ID, whatever
// their status or visibility, with when each was first seen.
func (db *DB) ReaderAgents(ctx context.Context, keys []int64, ids []issuer.AgentID) ([]service.ReaderAgent, error) {
	var out []service.ReaderAgent
	for _, q := range []struct {
		where string
		arg   any
		n     int
	}{{"a.id", keys, len(keys)}, {"a.public_id", ids, len(ids)}} {
		if q.n == 0 {
			continue
		}
		query, args, err := sqlx.In(`SELECT a.id, a.public_id, a.created_at FROM agents a WHERE `+q.where+` IN (?) ORDER BY a.id`, q.arg)
		if err != nil {
			return nil, err
		}
		var rows []struct {
			Key   int64          `db:"id"`
			ID    issuer.AgentID `db:"public_id"`
			Since time.Time      `db:"created_at"`
		}
		if err := sel(ctx, db.x, &rows, query, args...); err != nil {
			return nil, fmt.Errorf("store: reader agents: %w", err)
		}
		for _, r := range rows {
			out = append(out, service.ReaderAgent{Key: r.Key, ID: r.ID, Since: r.Since.UTC()})
		}
	}
	return out, nil
}
