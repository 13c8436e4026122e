package service

import (
	"io"
	"slices"

	"github.com/remnant/passportkit/issuer"
)

// ActorAdmin is the audit actor of operator commands.
const ActorAdmin = "admin"

// RelatedQuery names the records whose relations to other authors a
// store reads: an agent's (all its memories and acts) or one memory's.
type RelatedQuery struct {
	Agent  issuer.AgentID
	Memory issuer.MemoryID
}

// Relation is one way another author's records involve the records a
// change touches: an agent's (all its memories and acts) or one memory's.
// A store reads relations as facts; [Relation.Affected] decides which make
// the other author's passport stale.
type Relation struct {
	Author int64
	Kind   RelationKind
	// Link is the lineage link's kind, for RelatedLinkingTo and
	// RelatedLinkedFrom.
	Link issuer.LinkKind
}

// RelationKind says which way a [Relation] runs.
type RelationKind string

// The relations.
const (
	// RelatedLinkingTo: a memory of Author links to one of the records'
	// memories, by lineage or contradiction.
	RelatedLinkingTo RelationKind = "linking_to"
	// RelatedLinkedFrom: one of the records' memories links to a memory of
	// Author.
	RelatedLinkedFrom RelationKind = "linked_from"
	// RelatedActedOn: the agent validated, or reported an outcome on, a
	// memory of Author.
	RelatedActedOn RelationKind = "acted_on"
)

// Affected reports whether a change to the records makes r.Author's
// passport stale. A passport names the memories its subject's memories
// link to, so a change of their visibility or of their author's status
// reaches every author linking to them; a contradiction is evidence about
// the contradicted memory's author too. An agent's validations and
// outcome reports weigh by whether their evaluator and the author share
// an operator, so a change of the agent's owner (ownership) reaches the
// authors it acted on as well.
func (r Relation) Affected(ownership bool) bool {
	switch r.Kind {
	case RelatedLinkingTo:
		return true
	case RelatedLinkedFrom:
		return r.Link == issuer.LinkContradicts
	case RelatedActedOn:
		return ownership
	}
	return false
}

// staleSubjects returns the subjects whose passports a change to self's
// records (or to one of its memories) makes stale: self and every author
// the relations affect, each once, in key order so that concurrent
// changes write revision rows in one order.
func staleSubjects(self int64, related []Relation, ownership bool) []int64 {
	out := []int64{self}
	for _, r := range related {
		if r.Affected(ownership) && !slices.Contains(out, r.Author) {
			out = append(out, r.Author)
		}
	}
	slices.Sort(out)
	return out
}

// newRevisions draws a new revision token for each agent.
func newRevisions(rand io.Reader, agents []int64) ([]RevisionWrite, error) {
	out := make([]RevisionWrite, 0, len(agents))
	for _, a := range agents {
		tok, err := NewRevisionToken(rand)
		if err != nil {
			return nil, err
		}
		out = append(out, RevisionWrite{Agent: a, Token: tok})
	}
	return out, nil
}

// ActivityCounter names one of an agent's activity figures
// ([issuer.AgentStats]), kept by the writes that change them so that a
// profile reads one row instead of counting the agent's history.
type ActivityCounter string

// The activity counters.
const (
	// CountPublished counts the agent's public, active memories: the
	// publication of a public memory adds one, moderation of a public
	// memory away from active removes one and back to active adds one. A
	// private memory is never counted.
	CountPublished ActivityCounter = "memories_published"
	// CountRetrievals counts full retrievals of public memories outside
	// consultations; an author reading its own private memory is not
	// counted.
	CountRetrievals ActivityCounter = "retrievals"
	// CountConsultations counts receipts.
	CountConsultations ActivityCounter = "consultations"
	// CountFeedbackGiven counts the memories validated directly (once per
	// memory, when its position first becomes direct) plus the
	// consultations validated (once per receipt, at its first validation).
	CountFeedbackGiven ActivityCounter = "feedback_given"
)

// ActivityWrite adds N (negative to remove) to an agent's counter. A
// removal only follows an addition, so it finds the agent's row.
type ActivityWrite struct {
	Agent   int64
	Counter ActivityCounter
	N       int
}
