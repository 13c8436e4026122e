package store

import (
	"context"
	"fmt"

	"github.com/jmoiron/sqlx"

	"github.com/remnant/passportkit/issuer"
)

// activityCounter names a column of agent_activity_counters: the figures
// of issuer.AgentStats, kept by the writes that change them so that a
// profile reads one row instead of counting the agent's history.
type activityCounter string

// The activity counters.
const (
	// countPublished counts the agent's public, active memories: Publish
	// of a public memory adds one, moderation of a public memory away from
	// active removes one and back to active adds one. A private memory is
	// never counted.
	countPublished activityCounter = "memories_published"
	// countRetrievals counts full retrievals of public memories outside
	// consultations; an author reading its own private memory is not
	// counted.
	countRetrievals activityCounter = "retrievals"
	// countConsultations counts receipts.
	countConsultations activityCounter = "consultations"
	// countFeedbackGiven counts the memories validated directly (once per
	// memory, when its position first becomes direct) plus the
	// consultations validated (once per receipt, at its first validation).
	countFeedbackGiven activityCounter = "feedback_given"
)

// increment is the statement that adds its second argument to the counter
// of the agent its first argument names, creating the agent's row when it
// has none.
func (c activityCounter) increment() string {
	return `INSERT INTO agent_activity_counters (agent_id, ` + string(c) + `) VALUES (?, ?)
		ON CONFLICT (agent_id) DO UPDATE SET ` + string(c) + ` = agent_activity_counters.` + string(c) + ` + excluded.` + string(c)
}

// addActivity adds n (positive or negative) to one of agent's counters in
// the caller's transaction. The row is created by the first increment; a
// decrement only follows an increment, so it finds the row.
func addActivity(ctx context.Context, tx sqlx.ExtContext, agent int64, c activityCounter, n int) error {
	var err error
	if n >= 0 {
		_, err = exec(ctx, tx, c.increment(), agent, n)
	} else {
		_, err = exec(ctx, tx, `UPDATE agent_activity_counters SET `+string(c)+` = `+string(c)+` - ? WHERE agent_id = ?`, -n, agent)
	}
	if err != nil {
		return fmt.Errorf("store: count %s: %w", c, err)
	}
	return nil
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

// ActivityDrift is an agent whose stored activity counters differ from the
// counts of its history.
type ActivityDrift struct {
	Agent   issuer.AgentID
	Stored  issuer.AgentStats
	Counted issuer.AgentStats
}

// CheckActivity recounts every agent's activity from history, in one
// consistent read, and returns the agents whose stored counters differ. It
// reads all of history: an operator's consistency check, not a request
// path.
func (db *DB) CheckActivity(ctx context.Context) ([]ActivityDrift, error) {
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
	var out []ActivityDrift
	for _, r := range rows {
		s := issuer.AgentStats{MemoriesPublished: r.P, Retrievals: r.R, Consultations: r.C, FeedbackGiven: r.F}
		c := issuer.AgentStats{MemoriesPublished: r.CP, Retrievals: r.CR, Consultations: r.CC, FeedbackGiven: r.CF}
		if s != c {
			out = append(out, ActivityDrift{Agent: issuer.AgentID(r.PublicID), Stored: s, Counted: c})
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
