package service

import (
	"context"
	"crypto/rand"
	"io"
	"time"

	"github.com/remnant/passportkit/issuer"
	"github.com/remnant/passportkit/reputation"
)

// Transactor runs transactions over an [Executor].
type Transactor interface {
	// InTx runs fn in one transaction and commits it when fn returns nil.
	// It may run fn again after a transient conflict, so fn must have no
	// effect outside the transaction. ex is valid only during fn.
	InTx(ctx context.Context, fn func(ctx context.Context, ex Executor) error) error
}

// AdminStore is what the operator's use cases need of a database: the
// transactions whose rules [Admin] decides, and the maintenance that
// recomputes derived records from history. issuer/store implements it for
// both engines.
type AdminStore interface {
	Transactor
	// RebuildReputation recomputes an author's aggregates, evaluator
	// counters and memory summaries from its journal and current
	// positions, rewriting only the derived rows that differ, and audits
	// the rebuild. progress, when not nil, is called with the entries
	// replayed so far and the total.
	RebuildReputation(ctx context.Context, agent issuer.AgentID, progress func(done, total int)) (RebuildReport, error)
	// CheckActivity recounts every agent's activity from history, in one
	// consistent read, and returns the agents whose stored counters
	// differ.
	CheckActivity(ctx context.Context) ([]ActivityDrift, error)
	// RebuildActivity sets every agent's activity counters to the counts
	// of its history, in one transaction, and returns how many changed.
	RebuildActivity(ctx context.Context) (int, error)
}

// RebuildReport summarises a reputation rebuild.
type RebuildReport struct {
	Agent  issuer.AgentID
	Events int // journal entries replayed
	// Domains is the number of domains with journal entries.
	Domains int
	// Corrected counts derived rows (aggregates, evaluator counters and
	// memory summaries) that differed from what the journal implies and
	// were rewritten. Zero means the incremental state was exact.
	Corrected int
	// Memories is the number of the author's memories whose summaries were
	// checked.
	Memories int
	Score    reputation.Milli
	Trust    reputation.TrustLevel
}

// ActivityDrift is an agent whose stored activity counters differ from the
// counts of its history.
type ActivityDrift struct {
	Agent   issuer.AgentID
	Stored  issuer.AgentStats
	Counted issuer.AgentStats
}

// AdminOptions configure an [Admin]. The zero value is ready to use.
type AdminOptions struct {
	// Now returns the current time; time.Now when nil.
	Now func() time.Time
	// Rand is the source of identifiers, API keys and revision tokens;
	// crypto/rand when nil.
	Rand io.Reader
}

// Admin is the operator's use cases: operators, agents and their keys,
// owners, status and visibility, moderation, and the rebuilds of derived
// records. Every change is audited under [ActorAdmin]. cmd/passport-issuer
// and the demo world call it; no transport does.
type Admin struct {
	st   AdminStore
	now  func() time.Time
	rand io.Reader
}

// NewAdmin returns the operator's use cases over st.
func NewAdmin(st AdminStore, opts AdminOptions) *Admin {
	a := &Admin{st: st, now: opts.Now, rand: opts.Rand}
	if a.now == nil {
		a.now = time.Now
	}
	if a.rand == nil {
		a.rand = rand.Reader
	}
	return a
}

// timestamp returns the current time in UTC at the microsecond precision
// both engines keep.
func (a *Admin) timestamp() time.Time { return a.now().UTC().Truncate(time.Microsecond) }

// CreateOperator records a new operator, a known owner of agents.
func (a *Admin) CreateOperator(ctx context.Context, name string) (issuer.OperatorID, error) {
	name, err := issuer.CleanOperatorName(name)
	if err != nil {
		return "", err
	}
	id, err := issuer.NewOperatorID(a.rand)
	if err != nil {
		return "", err
	}
	err = a.st.InTx(ctx, func(ctx context.Context, ex Executor) error {
		return ex.WriteNewOperator(ctx, &NewOperatorPlan{Now: a.timestamp(), ID: id, Name: name,
			Audit: &AuditWrite{Actor: ActorAdmin, Action: "operator.created", Subject: string(id), Detail: map[string]any{"name": name}}})
	})
	return id, err
}

// CreateAgent records a new agent with one API key, and its owner binding
// when an operator is named. Its identifier is drawn before its key.
func (a *Admin) CreateAgent(ctx context.Context, in NewAgent) (CreatedAgent, error) {
	in, err := checkNewAgent(in)
	if err != nil {
		return CreatedAgent{}, err
	}
	var out CreatedAgent
	if out.ID, err = issuer.NewAgentID(a.rand); err != nil {
		return CreatedAgent{}, err
	}
	if out.Key, err = issuer.NewAPIKey(a.rand); err != nil {
		return CreatedAgent{}, err
	}
	err = a.st.InTx(ctx, func(ctx context.Context, ex Executor) error {
		st := &AgentState{}
		if in.Operator != "" {
			var err error
			if st, err = ex.LoadAgent(ctx, AgentQuery{Operator: in.Operator}); err != nil {
				return err
			}
		}
		plan, err := planNewAgent(in, st, out, a.timestamp())
		if err != nil {
			return err
		}
		return ex.WriteNewAgent(ctx, plan)
	})
	if err != nil {
		return CreatedAgent{}, err
	}
	return out, nil
}

// BindOwner makes op the owner of agent from now on. The agent's previous
// binding, if any, is closed, not removed: ownership history stays, so a
// change of owner cannot make earlier siblings independent.
func (a *Admin) BindOwner(ctx context.Context, op issuer.OperatorID, agent issuer.AgentID) error {
	return a.change(ctx, AgentQuery{Agent: agent, Operator: op, Owner: true, Related: true}, func(st *AgentState) (*AgentPlan, error) {
		return planOwner(st, op, agent, a.timestamp(), a.rand)
	})
}

// SetAgentStatus suspends or reactivates an agent. A suspended agent cannot
// act, and its profile and memories are hidden.
func (a *Admin) SetAgentStatus(ctx context.Context, agent issuer.AgentID, status issuer.AgentStatus) error {
	if _, err := issuer.ParseAgentStatus(string(status)); err != nil {
		return err
	}
	return a.change(ctx, AgentQuery{Agent: agent, Related: true}, func(st *AgentState) (*AgentPlan, error) {
		return planStatus(st, agent, status, a.timestamp(), a.rand)
	})
}

// SetAgentVisibility changes who may see an agent's public profile and
// passport: a private or unlisted agent leaves discovery at once, and its
// cached passports are never served again.
func (a *Admin) SetAgentVisibility(ctx context.Context, agent issuer.AgentID, vis issuer.Visibility) error {
	if _, err := issuer.ParseVisibility(string(vis)); err != nil {
		return err
	}
	return a.change(ctx, AgentQuery{Agent: agent}, func(st *AgentState) (*AgentPlan, error) {
		return planVisibility(st, agent, vis, a.timestamp(), a.rand)
	})
}

// RotateKey revokes every key of agent and issues a new one, with the given
// scopes or, when none are given, those of its most recent key. The new key
// is returned once and not stored.
func (a *Admin) RotateKey(ctx context.Context, agent issuer.AgentID, scopes []issuer.Scope) (issuer.APIKey, error) {
	key, err := issuer.NewAPIKey(a.rand)
	if err != nil {
		return "", err
	}
	if len(scopes) > 0 {
		if scopes, err = issuer.ParseScopes(issuer.FormatScopes(scopes)); err != nil {
			return "", err
		}
	}
	err = a.change(ctx, AgentQuery{Agent: agent, APIKeys: true}, func(st *AgentState) (*AgentPlan, error) {
		return planKeyRotation(st, agent, key, scopes, a.timestamp())
	})
	if err != nil {
		return "", err
	}
	return key, nil
}

// change runs one change of an agent in one transaction: it reads what q
// names, lets decide plan the writes (none for a change that changes
// nothing) and writes them. When q asks for the agent's relations, they
// are read only once decide has planned a change on the agent alone, and
// decide runs again with them: a change that changes nothing reads no
// more than the agent.
func (a *Admin) change(ctx context.Context, q AgentQuery, decide func(*AgentState) (*AgentPlan, error)) error {
	return a.st.InTx(ctx, func(ctx context.Context, ex Executor) error {
		st, err := ex.LoadAgent(ctx, q)
		if err != nil {
			return err
		}
		plan, err := decide(st)
		if err != nil || plan == nil {
			return err
		}
		if q.Related {
			if st.Related, err = ex.LoadRelated(ctx, RelatedQuery{Agent: q.Agent}); err != nil {
				return err
			}
			if plan, err = decide(st); err != nil {
				return err
			}
		}
		return ex.WriteAgent(ctx, plan)
	})
}

// ModerateMemory changes a memory's visibility as the operator and returns
// its previous status. Reputation already earned through the memory
// stays; the public explanation hides references to a memory that is not
// active.
func (a *Admin) ModerateMemory(ctx context.Context, mem issuer.MemoryID, m issuer.Moderation) (issuer.MemoryStatus, error) {
	return moderate(ctx, a.st, a.timestamp, a.rand, ActorAdmin, mem, m)
}

// RebuildReputation reconstructs an author's reputation from its journal;
// see [AdminStore.RebuildReputation].
func (a *Admin) RebuildReputation(ctx context.Context, agent issuer.AgentID, progress func(done, total int)) (RebuildReport, error) {
	return a.st.RebuildReputation(ctx, agent, progress)
}

// CheckActivity returns the agents whose activity counters differ from
// history; see [AdminStore.CheckActivity].
func (a *Admin) CheckActivity(ctx context.Context) ([]ActivityDrift, error) {
	return a.st.CheckActivity(ctx)
}

// RebuildActivity corrects every agent's activity counters from history;
// see [AdminStore.RebuildActivity].
func (a *Admin) RebuildActivity(ctx context.Context) (int, error) {
	return a.st.RebuildActivity(ctx)
}
