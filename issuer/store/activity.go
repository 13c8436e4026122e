package store

import (
	"context"
	"fmt"

	"github.com/jmoiron/sqlx"

	"github.com/remnant/passportkit/issuer"
	"github.com/remnant/passportkit/issuer/service"
)

// counterColumn returns the column of agent_activity_counters that keeps
// c, refusing any other name: it is written into SQL.
func counterColumn(c service.ActivityCounter) (string, error) {
	switch c {
	case service.CountPublished, service.CountRetrievals, service.CountConsultations, service.CountFeedbackGiven:
		return string(c), nil
	}
	return "", fmt.Errorf("store: no activity counter %q", c)
}

// activityChange returns the statement that adds w.N (negative to remove)
// to one of an agent's counters. An addition creates the agent's row when
// it has none; a removal only follows an addition, so it finds the row.
func activityChange(w service.ActivityWrite) (string, []any, error) {
	col, err := counterColumn(w.Counter)
	if err != nil {
		return "", nil, err
	}
	if w.N < 0 {
		return `UPDATE agent_activity_counters SET ` + col + ` = ` + col + ` - ? WHERE agent_id = ?`, []any{-w.N, w.Agent}, nil
	}
	return `INSERT INTO agent_activity_counters (agent_id, ` + col + `) VALUES (?, ?)
		ON CONFLICT (agent_id) DO UPDATE SET ` + col + ` = agent_activity_counters.` + col + ` + excluded.` + col, []any{w.Agent, w.N}, nil
}

// activityRecount reads the agent's stored counters (zero when it has none
// yet) side by side with the same figures counted from history, as the
// write paths count them: a private memory is neither published nor
// retrieved in these figures.
const activityRecount = `SELECT a.public_id,
	COALESCE(c.memories_published, 0) AS memories_published,
	COALESCE(c.retrievals, 0) AS retrievals,
	COALESCE(c.consultations, 0) AS consultations,
	COALESCE(c.feedback_given, 0) AS feedback_given,
	(SELECT COUNT(*) FROM memories m WHERE m.author_id = a.id AND m.status = 'active' AND m.visibility = 'public') AS counted_published,
	(SELECT COUNT(*) FROM retrievals r JOIN memories m ON m.id = r.memory_id
		WHERE r.agent_id = a.id AND r.receipt_id IS NULL AND m.visibility = 'public') AS counted_retrievals,
	(SELECT COUNT(*) FROM receipts rc WHERE rc.agent_id = a.id) AS counted_consultations,
	(SELECT COUNT(*) FROM feedback f WHERE f.evaluator_id = a.id AND f.direct)
		+ (SELECT COUNT(*) FROM consultation_feedback cf WHERE cf.agent_id = a.id) AS counted_feedback
	FROM agents a LEFT JOIN agent_activity_counters c ON c.agent_id = a.id`

// CheckActivity recounts every agent's activity from history, in one
// consistent read, and returns the agents whose stored counters differ. It
// reads all of history: an operator's consistency check, not a request
// path.
func (db *DB) CheckActivity(ctx context.Context) ([]service.ActivityDrift, error) {
	var rows []struct {
		PublicID string `db:"public_id"`
		P        int    `db:"memories_published"`
		R        int    `db:"retrievals"`
		C        int    `db:"consultations"`
		F        int    `db:"feedback_given"`
		CP       int    `db:"counted_published"`
		CR       int    `db:"counted_retrievals"`
		CC       int    `db:"counted_consultations"`
		CF       int    `db:"counted_feedback"`
	}
	err := db.inTx(ctx, func(tx *sqlx.Tx) error {
		rows = rows[:0]
		return sel(ctx, tx, &rows, activityRecount+` ORDER BY a.id`)
	})
	if err != nil {
		return nil, fmt.Errorf("store: recount activity: %w", err)
	}
	var out []service.ActivityDrift
	for _, r := range rows {
		s := issuer.AgentStats{MemoriesPublished: r.P, Retrievals: r.R, Consultations: r.C, FeedbackGiven: r.F}
		c := issuer.AgentStats{MemoriesPublished: r.CP, Retrievals: r.CR, Consultations: r.CC, FeedbackGiven: r.CF}
		if s != c {
			out = append(out, service.ActivityDrift{Agent: issuer.AgentID(r.PublicID), Stored: s, Counted: c})
		}
	}
	return out, nil
}

// RebuildActivity sets every agent's activity counters to the counts of
// its history, in one transaction, and returns how many agents changed.
func (db *DB) RebuildActivity(ctx context.Context) (int, error) {
	var changed int
	err := db.inTx(ctx, func(tx *sqlx.Tx) error {
		var drift []struct {
			Key int64 `db:"id"`
			P   int   `db:"p"`
			R   int   `db:"r"`
			C   int   `db:"c"`
			F   int   `db:"f"`
		}
		if err := sel(ctx, tx, &drift, `SELECT id, counted_published AS p, counted_retrievals AS r,
			counted_consultations AS c, counted_feedback AS f FROM (`+activityRecountKeyed+`) t
			WHERE memories_published <> counted_published OR retrievals <> counted_retrievals
				OR consultations <> counted_consultations OR feedback_given <> counted_feedback`); err != nil {
			return fmt.Errorf("store: recount activity: %w", err)
		}
		for _, d := range drift {
			if _, err := exec(ctx, tx, `INSERT INTO agent_activity_counters (agent_id, memories_published, retrievals, consultations, feedback_given)
				VALUES (?, ?, ?, ?, ?) ON CONFLICT (agent_id) DO UPDATE SET memories_published = excluded.memories_published,
				retrievals = excluded.retrievals, consultations = excluded.consultations, feedback_given = excluded.feedback_given`,
				d.Key, d.P, d.R, d.C, d.F); err != nil {
				return fmt.Errorf("store: rebuild activity: %w", err)
			}
		}
		changed = len(drift)
		return nil
	})
	return changed, err
}

// activityRecountKeyed is activityRecount with the agent's key.
var activityRecountKeyed = `SELECT a.id,` + activityRecount[len(`SELECT`):]
