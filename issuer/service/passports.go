package service

import (
	"cmp"
	"context"
	"crypto/rand"
	"fmt"
	"io"
	"regexp"
	"sync"
	"time"

	"github.com/remnant/passportkit/issuer"
	"github.com/remnant/passportkit/issuer/issuing"
	"github.com/remnant/passportkit/passport"
)

// SubjectStore is what issuing needs of a database: a subject's evidence
// and revision token ([SubjectSource]), and the archive of issued
// passports. issuer/store implements it for PostgreSQL and SQLite.
type SubjectStore interface {
	SubjectSource
	// SaveIssuedPassport keeps an issued passport until purgeAfter.
	SaveIssuedPassport(ctx context.Context, p IssuedPassport, purgeAfter time.Time) error
	// IssuedEvidence returns the evidence file of passport hash issued to
	// id; not_found when unknown, another agent's, purged, or when id has
	// no public profile.
	IssuedEvidence(ctx context.Context, id issuer.AgentID, hash string) ([]byte, error)
}

// ActiveKey gives the issuer's identifier and its active signing key.
// *keyring.Keyring implements it.
type ActiveKey interface {
	Issuer() string
	Active(ctx context.Context) (*passport.Signer, issuer.SigningKey, error)
}

// IssuedPassport is an issued passport as the archive keeps it.
type IssuedPassport struct {
	PassportHash string
	Subject      issuer.AgentID
	IssuedAt     time.Time
	ExpiresAt    time.Time
	KID          string
	// EvidenceFile is the canonical evidence file (SPEC.md §5.1).
	EvidenceFile []byte
}

// Passport lifetimes and retention.
const (
	// DefaultPassportValidity is a passport's lifetime when
	// PassportOptions.Validity is zero.
	DefaultPassportValidity = 24 * time.Hour
	// DefaultEvidenceRetention is how long an issued passport's evidence
	// file stays available after the passport expires, when
	// PassportOptions.Retention is zero.
	DefaultEvidenceRetention = 7 * 24 * time.Hour
)

// PassportOptions configure [Passports]. The zero value is ready to use.
type PassportOptions struct {
	// Now returns the current time; time.Now when nil.
	Now func() time.Time
	// Rand is the source of per-passport pseudonym keys; crypto/rand when
	// nil.
	Rand io.Reader
	// Validity is a passport's lifetime; DefaultPassportValidity when zero.
	Validity time.Duration
	// Retention is how long an evidence file is kept after its passport
	// expires; DefaultEvidenceRetention when zero.
	Retention time.Duration
	// Observer, when set, learns of cache lookups and issued passports
	// (metrics).
	Observer PassportObserver
}

// Passports is the issuing use case: it issues a subject's passport with
// the active key, keeps its evidence file, and caches the signed passport
// by subject revision and hour, so that within one hour an unchanged
// subject is served the same signed bundle (and the same ETag). After a key
// rotation a cached passport signed by the previous key is served until
// its hour ends or its subject changes; it verifies, as rotation keeps the
// previous key published while what it signed is unexpired.
type Passports struct {
	st        SubjectStore
	keys      ActiveKey
	now       func() time.Time
	rand      io.Reader
	validity  time.Duration
	retention time.Duration
	cache     *cache
	observer  PassportObserver
}

// NewPassports returns the issuing use case over st, signing with keys.
func NewPassports(st SubjectStore, keys ActiveKey, opts PassportOptions) *Passports {
	p := &Passports{
		st: st, keys: keys, now: opts.Now, rand: opts.Rand,
		validity:  cmp.Or(opts.Validity, DefaultPassportValidity),
		retention: cmp.Or(opts.Retention, DefaultEvidenceRetention),
		cache:     newCache(),
		observer:  opts.Observer,
	}
	if p.observer == nil {
		p.observer = unobserved{}
	}
	if p.now == nil {
		p.now = time.Now
	}
	if p.rand == nil {
		p.rand = rand.Reader
	}
	return p
}

// PseudonymKeySize is the size of a per-passport pseudonym key.
const PseudonymKeySize = 32

// issuedDraft is one cached passport: assembled once, signed once per
// disclosure, its evidence file kept once.
type issuedDraft struct {
	draft  *issuing.Draft
	signer issuing.Signer
	kid    string

	mu     sync.Mutex
	signed map[issuing.Disclosure]signResult
	saved  bool
}

type signResult struct {
	issued *issuing.Issued
	err    error
}

// Issue returns the passport of the agent id with the records d discloses.
// An unknown agent, and one without a public profile (private, unlisted or
// suspended), is not_found; a bundle over passport.MaxBundleSize is
// too_large with an *issuing.BundleTooLargeError inside.
func (p *Passports) Issue(ctx context.Context, id issuer.AgentID, d issuing.Disclosure) (*issuing.Issued, error) {
	d, err := issuing.ParseDisclosure(string(d))
	if err != nil {
		return nil, err
	}
	rev, err := p.st.SubjectRevision(ctx, id)
	if err != nil {
		return nil, err
	}
	e, err := p.draft(ctx, id, rev, p.now().UTC())
	if err != nil {
		return nil, err
	}
	is, err := p.sign(ctx, id, e, d)
	if err != nil {
		return nil, err
	}
	p.observer.ObserveIssued(d)
	return is, nil
}

// draft returns the cached assembled passport of id at revision rev for
// now's hour, assembling it when missing.
func (p *Passports) draft(ctx context.Context, id issuer.AgentID, rev string, now time.Time) (*issuedDraft, error) {
	key := cacheKey{revision: rev, context: "passport", hour: hourBucket(now)}
	v, ok := p.cache.get(id, key)
	p.observer.ObserveCacheLookup(CachePassport, ok)
	if ok {
		return v.(*issuedDraft), nil
	}
	built, err := p.assemble(ctx, id, now)
	if err != nil {
		return nil, err
	}
	return p.cache.add(id, key, built).(*issuedDraft), nil
}

// assemble loads and assembles a fresh passport for id, issued at now,
// with the active key that will sign it.
func (p *Passports) assemble(ctx context.Context, id issuer.AgentID, now time.Time) (*issuedDraft, error) {
	draft, err := p.build(ctx, id, now)
	if err != nil {
		return nil, err
	}
	signer, k, err := p.keys.Active(ctx)
	if err != nil {
		return nil, err
	}
	return &issuedDraft{draft: draft, signer: signer, kid: k.KID, signed: map[issuing.Disclosure]signResult{}}, nil
}

// build loads and assembles a fresh, unsigned passport for id, issued at
// now. The subject is read as of now exactly, and the passport says it was
// issued at now's second: a record made earlier in that second is
// included. A subject without a public profile is not_found.
func (p *Passports) build(ctx context.Context, id issuer.AgentID, now time.Time) (*issuing.Draft, error) {
	sub, err := p.st.LoadSubject(ctx, id, now)
	if err != nil {
		return nil, err
	}
	if sub.Visibility != issuer.VisibilityPublic || sub.Status != issuer.AgentActive {
		return nil, issuer.Errorf(issuer.CodeNotFound, "agent %s not found", id)
	}
	pk := make([]byte, PseudonymKeySize)
	if _, err := io.ReadFull(p.rand, pk); err != nil {
		return nil, fmt.Errorf("service: pseudonym key: %w", err)
	}
	c, err := issuing.Collect(sub, pk, now)
	if err != nil {
		return nil, err
	}
	return issuing.Assemble(sub, c, issuing.Options{Issuer: p.keys.Issuer(), IssuedAt: now.Truncate(time.Second), Validity: p.validity})
}

// unsigned returns the assembled passport of id at revision rev as of
// now, for a reader that signs nothing (the discovery index): the cached
// draft of that revision and hour when there is one, else a fresh assembly
// that is neither cached nor dependent on a signing key, so that indexing
// every subject neither evicts the passports being served nor needs a key.
func (p *Passports) unsigned(ctx context.Context, id issuer.AgentID, rev string, now time.Time) (*issuing.Draft, error) {
	key := cacheKey{revision: rev, context: "passport", hour: hourBucket(now)}
	if v, ok := p.cache.get(id, key); ok {
		return v.(*issuedDraft).draft, nil
	}
	return p.build(ctx, id, now)
}

// sign signs the cached draft for d once, and keeps its evidence file the
// first time any disclosure of it is signed.
func (p *Passports) sign(ctx context.Context, id issuer.AgentID, e *issuedDraft, d issuing.Disclosure) (*issuing.Issued, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	r, ok := e.signed[d]
	if !ok {
		r.issued, r.err = e.draft.Sign(e.signer, d)
		e.signed[d] = r
	}
	if r.err != nil {
		return nil, r.err
	}
	if !e.saved {
		is := r.issued
		rec := IssuedPassport{
			PassportHash: is.PassportHash, Subject: id, KID: e.kid, EvidenceFile: is.EvidenceFile,
			IssuedAt: is.Passport.IssuedAt.UTC(), ExpiresAt: is.Passport.ExpiresAt.UTC(),
		}
		if err := p.st.SaveIssuedPassport(ctx, rec, rec.ExpiresAt.Add(p.retention)); err != nil {
			return nil, err
		}
		e.saved = true
	}
	return r.issued, nil
}

// passportHashPattern is the form of a passportHash (SPEC.md §3).
var passportHashPattern = regexp.MustCompile(`^[0-9a-f]{64}$`)

// Evidence returns the complete evidence file of the passport hash issued
// to id. A malformed hash is invalid; an unknown one, another agent's, one
// purged after its retention, and any of an agent without a public profile
// are not_found.
func (p *Passports) Evidence(ctx context.Context, id issuer.AgentID, hash string) ([]byte, error) {
	if !passportHashPattern.MatchString(hash) {
		return nil, issuer.Errorf(issuer.CodeInvalid, "passportHash must be 64 lower-case hex digits (SPEC.md §7)")
	}
	return p.st.IssuedEvidence(ctx, id, hash)
}

// Invalidate drops every cached passport of id, and of every subject when
// id is "". It is what a notification of a changed revision calls (on
// PostgreSQL, replicas learn of each other's writes through LISTEN/NOTIFY,
// see store.DB.ListenRevisions). Correctness does not depend on it: entries
// are keyed by the revision token read on every request, so an entry of an
// older revision is never served; invalidation frees it early.
func (p *Passports) Invalidate(id issuer.AgentID) {
	if id == "" {
		p.cache.clear()
		return
	}
	p.cache.invalidate(id)
}

// Cached returns how many subjects and passports the cache holds.
func (p *Passports) Cached() (subjects, passports int) { return p.cache.len() }
