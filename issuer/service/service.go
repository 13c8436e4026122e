// Package service holds the issuer's use cases: who may do what (scopes,
// eligibility, the self, same-owner and consumption rules), idempotency,
// which memories a publication may link to, which change a validation
// makes to a position and to the author's reputation, whose passports a
// change makes stale, which activity it counts and what is audited. It
// decides; a store reads and writes.
//
// The transports (issuer/httpapi, issuer/mcpserver) call a [Service]
// through small interfaces they declare; the operator's commands
// (cmd/passport-issuer) and the demo world (issuer/demoworld) call an
// [Admin]. issuer/store implements [Store] and [AdminStore] for
// PostgreSQL and SQLite; cmd/passport-issuer wires them together. The
// pure policy (weights, budgets, aggregates, knowledge states) lives in
// package reputation.
//
// # Decisions over a store
//
// Every use case whose rules the service decides runs in one transaction
// of three steps, shaped like river's executor: one [Executor] call reads,
// and locks, everything the decision needs; the service decides without
// I/O what changes; one call writes that plan. The decisions are plain
// functions of what was read (their tests are tables: state in, plan
// out):
//
//   - a validation, a consultation's validation or an outcome report
//     ([Executor.LoadValidation], [ValidationPlan]): eligibility,
//     idempotency, the positions, budgets and aggregates it moves. A
//     submission never reads the journal, so its cost does not grow with
//     history;
//   - a publication ([Service.Publish], [PublicationPlan]): which memories
//     its author may link to ([LinkTarget]), its version root, the
//     passports a contradiction makes stale, its audit and its count;
//   - a retrieval and a consultation ([Service.Retrieve],
//     [Service.Consult]): which memories a reader may read or consult
//     ([MemoryRecord]) and which of its acts count;
//   - declared capabilities and holder keys ([Service.DeclareCapabilities],
//     [Service.SetHolderKeys]): what changes, a key bound to another
//     agent, the audit;
//   - a moderation ([Service.ModerateMemory], [Admin.ModerateMemory],
//     [ModerationPlan]) and an operator's change of an agent's status,
//     owner, visibility or keys ([Admin], [AgentPlan]).
//
// Whose passports a change makes stale is one rule: the store reads how
// other authors' records relate to the changed ones, and
// [Relation.Affected] decides which relations reach their passports. A
// write that changes what a passport says replaces its subject's revision
// token in the same transaction.
//
// # Operators
//
// [Admin] is the operator's use cases: operators, agents and their API
// keys, owners, status, visibility, moderation, and the rebuilds of
// derived records from history. Every change is audited as [ActorAdmin].
//
// # Passports and trust
//
// [Passports] issues signed passports and caches them, with the skill
// passports read from them, by subject revision and hour. [Trust] is the
// public trust API over that cache (SPEC.md §16): listed skills, one
// skill's trust in a task context with why, its sources page by page
// behind sealed cursors, and comparisons; only its context-free read of a
// listed skill writes skill history.
//
// # Status lists
//
// Every passport [Passports] signs carries an entry of one of the issuer's
// status lists, reserved as it is assembled; [StatusLists] serves each
// list as a signed token, encoded again when its entries change and signed
// again when a key changes (SPEC.md §19.4).
//
// # Holder keys
//
// [Service.SetHolderKeys] registers the public keys an agent proves it
// holds, each by a proof of possession over a nonce of
// [Service.HolderKeyNonce] (SPEC.md §20); a subject's thumbprints load
// with the rest of what its passport is computed from.
package service

import (
	"context"
	"crypto/rand"
	"io"
	"time"

	"github.com/remnant/passportkit/internal/seal"
	"github.com/remnant/passportkit/issuer"
	"github.com/remnant/passportkit/reputation"
)

// Options configure a [Service]. The zero value is ready to use.
type Options struct {
	// Now returns the current time; time.Now when nil.
	Now func() time.Time
	// Rand is the source of validation identifiers; crypto/rand when nil.
	Rand io.Reader
	// Search configures memory search and its cache of readers' trust.
	Search SearchOptions
	// Observer, when set, learns the outcome of every validation
	// submission (metrics).
	Observer ValidationObserver
	// Cursors seals the reputation journal's cursors and the nonces of
	// holder-key proofs. They last as long as its key: cmd/passport-issuer
	// keys it with the database's cursor key, which every replica shares
	// and restarts keep. When nil, a random key is drawn, and they last as
	// long as the Service.
	Cursors *seal.Sealer
	// Issuer is the issuer identifier passports name (SPEC.md §3): the
	// audience a proof of possession of a holder key must name. When
	// empty, no holder key can be proved.
	Issuer string
	// Evidence are the evidence weight factors recorded with each new
	// position (SPEC.md §15.8); issuer.DefaultEvidenceFactors when zero.
	Evidence issuer.EvidenceFactors
	// FeedWaitCap, when positive, bounds how long a feed read waits,
	// below the wait it asks for: the read then answers an empty page
	// sooner, with a cursor to read on from.
	FeedWaitCap time.Duration
}

// Service is the issuer's use cases over a [Store].
type Service struct {
	store Store
	now   func() time.Time
	rand  io.Reader
	// search holds the cache of readers' trust.
	search   *searchState
	observer ValidationObserver
	cursors  *seal.Sealer
	issuerID string
	evidence issuer.EvidenceFactors
	// feed wakes the feed's waiting readers; feedWaitCap bounds a wait.
	feed        *feedNotifier
	feedWaitCap time.Duration
}

// New returns the service over st.
func New(st Store, opts Options) *Service {
	s := &Service{store: st, now: opts.Now, rand: opts.Rand, search: newSearchState(opts.Search), observer: opts.Observer, cursors: opts.Cursors, issuerID: opts.Issuer, evidence: opts.Evidence, feed: newFeedNotifier(), feedWaitCap: opts.FeedWaitCap}
	if s.evidence == (issuer.EvidenceFactors{}) {
		s.evidence = issuer.DefaultEvidenceFactors
	}
	if s.observer == nil {
		s.observer = unobserved{}
	}
	if s.now == nil {
		s.now = time.Now
	}
	if s.rand == nil {
		s.rand = rand.Reader
	}
	if s.cursors == nil {
		s.cursors = drawnSealer()
	}
	return s
}

// drawnSealer returns a sealer keyed by seal.KeySize random bytes.
func drawnSealer() *seal.Sealer {
	key := make([]byte, seal.KeySize)
	rand.Read(key) // never fails: it crashes the program rather than return an error
	sl, err := seal.New(key)
	if err != nil {
		panic(err) // the key is KeySize bytes
	}
	return sl
}

// timestamp returns the current time in UTC at the microsecond precision
// both engines keep.
func (s *Service) timestamp() time.Time { return s.now().UTC().Truncate(time.Microsecond) }

// Authenticate resolves an API key to its principal.
func (s *Service) Authenticate(ctx context.Context, key issuer.APIKey) (issuer.Principal, error) {
	return s.store.Authenticate(ctx, key)
}

// Validations returns a visible memory's knowledge summary (search scope).
func (s *Service) Validations(ctx context.Context, p issuer.Principal, id issuer.MemoryID) (reputation.Summary, error) {
	if err := p.Require(issuer.ScopeSearch); err != nil {
		return reputation.Summary{}, err
	}
	return s.store.Validations(ctx, p, id)
}

// Profile returns p's own profile.
func (s *Service) Profile(ctx context.Context, p issuer.Principal) (issuer.Profile, error) {
	return s.store.Profile(ctx, p)
}

// PublicProfile returns an agent's public profile; private, unlisted and
// suspended agents are not found.
func (s *Service) PublicProfile(ctx context.Context, id issuer.AgentID) (issuer.PublicProfile, error) {
	return s.store.PublicProfile(ctx, id)
}
