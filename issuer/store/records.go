package store

import (
	"context"
	"fmt"

	"github.com/remnant/passportkit/issuer"
	"github.com/remnant/passportkit/issuer/service"
)

// SubjectRevision returns a listed agent's current revision: the
// service.PassportRevision of its revision token ("" when no write has
// changed its evidence yet) and the keys epoch, read in one statement. An
// unknown agent and one that is unlisted, private or suspended are
// not_found alike, after the same one statement that yields no row.
func (db *DB) SubjectRevision(ctx context.Context, id issuer.AgentID) (string, error) {
	return db.revision(ctx, id, `a.public_id = ? AND `+listedNow)
}

// RevisionOf returns an agent's current revision, whatever its status
// or visibility, for the discovery indexer, which enters a hidden agent as
// not listed. An unknown agent is not_found.
func (db *DB) RevisionOf(ctx context.Context, id issuer.AgentID) (string, error) {
	return db.revision(ctx, id, `a.public_id = ?`)
}

// revisionColumns reads, on the agent row a, its revision token and the
// keys epoch: the two halves of a service.PassportRevision, in one
// statement. LoadSubject's first statement reads them too.
const revisionColumns = `COALESCE(r.revision, '') AS revision, COALESCE((SELECT epoch FROM issuer_keys_epoch), '') AS keys_epoch`

// revision reads the revision of the agent id, which the condition where
// on the agent row a finds with id as its one parameter.
func (db *DB) revision(ctx context.Context, id issuer.AgentID, where string) (string, error) {
	var rev []struct {
		Subject string `db:"revision"`
		Keys    string `db:"keys_epoch"`
	}
	err := sel(ctx, db.x, &rev, `SELECT `+revisionColumns+` FROM agents a
		LEFT JOIN skill_trust_revisions r ON r.agent_id = a.id WHERE `+where, id)
	if err != nil {
		return "", fmt.Errorf("store: read revision: %w", err)
	}
	if len(rev) == 0 {
		return "", issuer.Errorf(issuer.CodeNotFound, "agent %s not found", id)
	}
	return service.PassportRevision(rev[0].Subject, rev[0].Keys), nil
}

// loadCapabilities reads the capabilities agent declares.
func loadCapabilities(ctx context.Context, br batchRunner, agent int64) ([]string, error) {
	var have []string
	var b batch
	b.read(func(r rows) error {
		var name string
		err := r.Scan(&name)
		have = append(have, name)
		return err
	}, `SELECT name FROM agent_capabilities WHERE agent_id = ?`, agent)
	if err := br.run(ctx, b, false); err != nil {
		return nil, fmt.Errorf("store: read capabilities: %w", err)
	}
	return have, nil
}

// writeCapabilities writes plan in one batch: one statement removes, one
// declares.
func writeCapabilities(ctx context.Context, br batchRunner, plan *service.CapabilitiesPlan) error {
	var b batch
	b.deleteNamed("agent_capabilities", "name", plan.Agent, plan.Remove)
	if len(plan.Add) > 0 {
		args := make([]any, 0, 3*len(plan.Add))
		for _, c := range plan.Add {
			args = append(args, plan.Agent, c, plan.Now)
		}
		b.insertRows("agent_capabilities", "agent_id, name, declared_at", "(?, ?, ?)", len(plan.Add), args)
	}
	b.revisions(plan.Revisions, plan.Now)
	if err := b.audit(plan.Audit, plan.Now); err != nil {
		return err
	}
	if err := br.run(ctx, b, true); err != nil {
		return fmt.Errorf("store: declare capabilities: %w", err)
	}
	return nil
}
