// Package service holds the issuer's use cases: who may do what (scopes,
// eligibility, the self, same-owner and consumption rules), idempotency,
// what is audited, and which change a validation makes to a position and
// to the author's reputation. It decides; a [Store] reads and writes.
//
// The transports (issuer/httpapi, issuer/mcpserver) call a [Service]
// through small interfaces they declare; issuer/store implements [Store]
// for PostgreSQL and SQLite; cmd/passport-issuer wires them together. The
// pure policy (weights, budgets, aggregates, knowledge states) lives in
// package reputation.
//
// # Validations
//
// A validation runs in one transaction of three steps:
// [Executor.LoadValidation] reads and locks everything the submission needs,
// the service decides without I/O what changes, and
// [Executor.WriteValidation] writes that plan. A submission never reads
// the journal, so its cost does not grow with history.
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
}

// New returns the service over st.
func New(st Store, opts Options) *Service {
	s := &Service{store: st, now: opts.Now, rand: opts.Rand, search: newSearchState(opts.Search), observer: opts.Observer, cursors: opts.Cursors, issuerID: opts.Issuer}
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

// Publish records a new memory by p (publish scope).
func (s *Service) Publish(ctx context.Context, p issuer.Principal, pub issuer.Publication) (issuer.Memory, error) {
	if err := p.Require(issuer.ScopePublish); err != nil {
		return issuer.Memory{}, err
	}
	return s.store.Publish(ctx, p, pub)
}

// Retrieve returns a visible memory and records p's retrieval of it
// (search scope).
func (s *Service) Retrieve(ctx context.Context, p issuer.Principal, id issuer.MemoryID) (issuer.Memory, error) {
	if err := p.Require(issuer.ScopeSearch); err != nil {
		return issuer.Memory{}, err
	}
	return s.store.Retrieve(ctx, p, id)
}

// Consult records p's consultation of several memories and returns its
// receipt (search scope).
func (s *Service) Consult(ctx context.Context, p issuer.Principal, ids []issuer.MemoryID) (issuer.Receipt, error) {
	if err := p.Require(issuer.ScopeSearch); err != nil {
		return issuer.Receipt{}, err
	}
	return s.store.Consult(ctx, p, ids)
}

// Validations returns a visible memory's knowledge summary (search scope).
func (s *Service) Validations(ctx context.Context, p issuer.Principal, id issuer.MemoryID) (reputation.Summary, error) {
	if err := p.Require(issuer.ScopeSearch); err != nil {
		return reputation.Summary{}, err
	}
	return s.store.Validations(ctx, p, id)
}

// ModerateMemory changes a memory's visibility on behalf of p (admin
// scope) and returns its previous status.
func (s *Service) ModerateMemory(ctx context.Context, p issuer.Principal, mem issuer.MemoryID, m issuer.Moderation) (issuer.MemoryStatus, error) {
	if err := p.Require(issuer.ScopeAdmin); err != nil {
		return "", err
	}
	return s.store.ModerateMemory(ctx, string(p.AgentID), mem, m)
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
