package service

import (
	"io"
	"time"

	"github.com/remnant/passportkit/issuer"
)

// AgentQuery names what an operator's change of an agent reads.
type AgentQuery struct {
	// Agent is the agent changed, read and locked; empty for none.
	Agent issuer.AgentID
	// Operator, when set, is an operator to find.
	Operator issuer.OperatorID
	// Owner reads the agent's current owner, and APIKeys its API keys.
	Owner, APIKeys bool
	// Related, for a change that changes something, reads the agent's
	// relations to other authors (its acts included) once the change is
	// decided on the agent alone.
	Related bool
}

// AgentState is what a store read for an [AgentQuery].
type AgentState struct {
	// Agent is the agent, locked until the transaction ends; nil when it
	// does not exist.
	Agent *AgentRecord
	// Operator is the key of the operator named; 0 when it does not exist
	// or none was named.
	Operator int64
	// Owner is the key of the agent's current owner; 0 for none.
	Owner int64
	// Related are the agent's relations to other authors, when the query
	// asks for them and the change changes something.
	Related []Relation
	// LiveKeys counts the agent's API keys not revoked. LatestScopes are
	// the scopes of its most recent key, as stored; nil when it has none.
	LiveKeys     int
	LatestScopes *string
}

// AgentRecord is an agent as operators' changes need it.
type AgentRecord struct {
	Key        int64
	Status     issuer.AgentStatus
	Visibility issuer.Visibility
}

// AgentPlan is everything an operator's change of an agent writes; an
// empty field changes nothing.
type AgentPlan struct {
	Now        time.Time
	Agent      int64
	Status     issuer.AgentStatus
	Visibility issuer.Visibility
	// Owner, when not 0, closes the agent's current owner binding and
	// binds it to this operator from now on.
	Owner int64
	// APIKey, when set, revokes every live key of the agent and records
	// this one.
	APIKey    *APIKeyWrite
	Revisions []RevisionWrite
	Audit     *AuditWrite
}

// APIKeyWrite records an API key by its hash, with its scopes as stored.
type APIKeyWrite struct {
	Hash   string
	Scopes string
}

// NewAgentPlan records a new agent: its row, its empty reputation, its
// first API key and, when Operator is not 0, its owner binding.
type NewAgentPlan struct {
	Now         time.Time
	ID          issuer.AgentID
	Name        string
	Description string
	Visibility  issuer.Visibility
	APIKey      APIKeyWrite
	Operator    int64
	Audit       *AuditWrite
}

// NewOperatorPlan records a new operator.
type NewOperatorPlan struct {
	Now   time.Time
	ID    issuer.OperatorID
	Name  string
	Audit *AuditWrite
}

// NewAgent describes an agent to create.
type NewAgent struct {
	Name        string
	Description string
	// Operator, if set, becomes the agent's owner from now on.
	Operator issuer.OperatorID
	// Scopes of the agent's first key; [issuer.DefaultScopes] when empty.
	Scopes []issuer.Scope
	// Visibility of the profile; public when empty.
	Visibility issuer.Visibility
}

// CreatedAgent is a new agent and its first key. The key is not stored and
// cannot be shown again.
type CreatedAgent struct {
	ID  issuer.AgentID
	Key issuer.APIKey
}

// checkNewAgent returns in with its text cleaned and its defaults applied,
// or the refusal.
func checkNewAgent(in NewAgent) (NewAgent, error) {
	var err error
	if in.Name, err = issuer.CleanAgentName(in.Name); err != nil {
		return in, err
	}
	if in.Description, err = issuer.CleanAgentDescription(in.Description); err != nil {
		return in, err
	}
	if len(in.Scopes) == 0 {
		in.Scopes = issuer.DefaultScopes
	}
	if in.Scopes, err = issuer.ParseScopes(issuer.FormatScopes(in.Scopes)); err != nil {
		return in, err
	}
	if in.Visibility == "" {
		in.Visibility = issuer.VisibilityPublic
	}
	if _, err := issuer.ParseVisibility(string(in.Visibility)); err != nil {
		return in, err
	}
	return in, nil
}

// planNewAgent decides the writes of a new agent, in as checkNewAgent
// returns it, given the operator it names as st holds it: an operator
// named but unknown is not_found.
func planNewAgent(in NewAgent, st *AgentState, created CreatedAgent, now time.Time) (*NewAgentPlan, error) {
	detail := map[string]any{"name": in.Name, "scopes": in.Scopes, "visibility": in.Visibility}
	plan := &NewAgentPlan{Now: now, ID: created.ID, Name: in.Name, Description: in.Description, Visibility: in.Visibility,
		APIKey: APIKeyWrite{Hash: created.Key.Hash(), Scopes: issuer.FormatScopes(in.Scopes)},
		Audit:  &AuditWrite{Actor: ActorAdmin, Action: "agent.created", Subject: string(created.ID), Detail: detail}}
	if in.Operator != "" {
		if st.Operator == 0 {
			return nil, issuer.Errorf(issuer.CodeNotFound, "operator %s not found", in.Operator)
		}
		plan.Operator = st.Operator
		detail["operator"] = in.Operator
	}
	return plan, nil
}

// agentNotFound is the refusal of a change of an unknown agent.
func agentNotFound(agent issuer.AgentID) error {
	return issuer.Errorf(issuer.CodeNotFound, "agent %s not found", agent)
}

// planOwner decides the writes of binding agent to op from now on: none
// when op owns it already. The passports of the agent and of every author
// its owner reaches ([Relation.Affected], acts included) become stale.
func planOwner(st *AgentState, op issuer.OperatorID, agent issuer.AgentID, now time.Time, rand io.Reader) (*AgentPlan, error) {
	switch {
	case st.Operator == 0:
		return nil, issuer.Errorf(issuer.CodeNotFound, "operator %s not found", op)
	case st.Agent == nil:
		return nil, agentNotFound(agent)
	case st.Owner == st.Operator:
		return nil, nil
	}
	revs, err := newRevisions(rand, staleSubjects(st.Agent.Key, st.Related, true))
	if err != nil {
		return nil, err
	}
	return &AgentPlan{Now: now, Agent: st.Agent.Key, Owner: st.Operator, Revisions: revs,
		Audit: &AuditWrite{Actor: ActorAdmin, Action: "agent.owner_bound", Subject: string(agent), Detail: map[string]any{"operator": op}}}, nil
}

// planStatus decides the writes of a change of agent's status: none when
// it has the status already. The passports of the agent and of every
// author its status reaches ([Relation.Affected]) become stale.
func planStatus(st *AgentState, agent issuer.AgentID, status issuer.AgentStatus, now time.Time, rand io.Reader) (*AgentPlan, error) {
	if st.Agent == nil {
		return nil, agentNotFound(agent)
	}
	if st.Agent.Status == status {
		return nil, nil
	}
	revs, err := newRevisions(rand, staleSubjects(st.Agent.Key, st.Related, false))
	if err != nil {
		return nil, err
	}
	return &AgentPlan{Now: now, Agent: st.Agent.Key, Status: status, Revisions: revs,
		Audit: &AuditWrite{Actor: ActorAdmin, Action: "agent.status_changed", Subject: string(agent),
			Detail: map[string]any{"from": st.Agent.Status, "to": status}}}, nil
}

// planVisibility decides the writes of a change of agent's visibility:
// none when it has the visibility already. Only the agent's own passport
// becomes stale: its memories' visibility is their own.
func planVisibility(st *AgentState, agent issuer.AgentID, vis issuer.Visibility, now time.Time, rand io.Reader) (*AgentPlan, error) {
	if st.Agent == nil {
		return nil, agentNotFound(agent)
	}
	if st.Agent.Visibility == vis {
		return nil, nil
	}
	revs, err := newRevisions(rand, staleSubjects(st.Agent.Key, nil, false))
	if err != nil {
		return nil, err
	}
	return &AgentPlan{Now: now, Agent: st.Agent.Key, Visibility: vis, Revisions: revs,
		Audit: &AuditWrite{Actor: ActorAdmin, Action: "agent.visibility_changed", Subject: string(agent),
			Detail: map[string]any{"from": st.Agent.Visibility, "to": vis}}}, nil
}

// planKeyRotation decides the writes of replacing agent's keys by key,
// with scopes or, when none are given, those of its most recent key. Its
// passport is unchanged: keys are not evidence.
func planKeyRotation(st *AgentState, agent issuer.AgentID, key issuer.APIKey, scopes []issuer.Scope, now time.Time) (*AgentPlan, error) {
	if st.Agent == nil {
		return nil, agentNotFound(agent)
	}
	stored := issuer.FormatScopes(scopes)
	if len(scopes) == 0 {
		if st.LatestScopes == nil {
			return nil, issuer.Errorf(issuer.CodeNotFound, "agent %s has no key to take scopes from; name them", agent)
		}
		stored = *st.LatestScopes
	}
	return &AgentPlan{Now: now, Agent: st.Agent.Key, APIKey: &APIKeyWrite{Hash: key.Hash(), Scopes: stored},
		Audit: &AuditWrite{Actor: ActorAdmin, Action: "agent.key_rotated", Subject: string(agent),
			Detail: map[string]any{"revoked": st.LiveKeys, "scopes": stored}}}, nil
}
