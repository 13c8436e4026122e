package service

import (
	"cmp"
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"sync"
	"time"

	lru "github.com/hashicorp/golang-lru/v2"

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
	// ReserveStatusEntry reserves a valid entry for a passport about to be
	// signed, at an index drawn uniformly at random among the free ones
	// of the current status list, opening a new list once the current one
	// is half full (SPEC.md §19.4).
	ReserveStatusEntry(ctx context.Context) (StatusSlot, error)
}

// ActiveKey gives the issuer's identifier and its active signing key.
// *keyring.Keyring implements it.
type ActiveKey interface {
	Issuer() string
	// SigningNow returns the active key's signer and record, and a time,
	// to the second, inside the key's window whatever key change commits
	// meanwhile: the key and the time are decided together.
	SigningNow(ctx context.Context) (*passport.Signer, issuer.SigningKey, time.Time, error)
}

// IssuedPassport is an issued passport as the archive keeps it.
type IssuedPassport struct {
	PassportHash string
	Subject      issuer.AgentID
	IssuedAt     time.Time
	ExpiresAt    time.Time
	KID          string
	// Status is the passport's status list entry; nil when it has none.
	Status *StatusSlot
	// EvidenceFile is the canonical evidence file (SPEC.md §5.1).
	EvidenceFile []byte
	// PreviewMemories are the memories the source previews' records name;
	// their bodies are kept while the passport is unexpired (SPEC.md
	// §15.10).
	PreviewMemories []string
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
// by revision ([PassportRevision]: the subject's revision token and the
// keys epoch) and hour, so that within one hour an unchanged subject is
// served the same signed bundle (and the same ETag) while no key changes.
// A key activation, rotation, retirement or withdrawal changes the keys
// epoch: from its commit on, no process serves a passport it cached
// before, and the next is signed by the key then active. A passport is
// issued at the time its signing key was decided at ([ActiveKey]), or at
// its subject's time when later. When the issuer identifier is a URL
// ([StatusListsEnabled]), every passport built to be signed carries a
// status list entry reserved for it as it is assembled (one statement);
// the drafts of the discovery index carry none.
//
// A passport describes one state of the store: its subject is read in one
// snapshot, and it is cached under the revision token read in that
// snapshot, never under a token read before or after it. Requests that
// miss the cache for the same revision and hour share one build.
//
// Besides the cache of current passports it keeps recently signed
// passports by passportHash, so that several reads can be pinned to one
// passport ([issuer.TrustQuery.Passport]), and the last passport built for
// each subject, which [Passports.Latest] shows while a newer one is built.
type Passports struct {
	st        SubjectStore
	keys      ActiveKey
	now       func() time.Time
	rand      io.Reader
	validity  time.Duration
	retention time.Duration
	cache     *cache
	builds    flights[string, *issuedDraft]
	signed    *lru.Cache[string, *issuedDraft]         // by passportHash
	last      *lru.Cache[issuer.AgentID, *issuedDraft] // the last built, by subject
	observer  PassportObserver
	// statusLists is whether passports carry a status list entry: the
	// issuer identifier is a URL the lists' URIs extend.
	statusLists bool
}

// Bounds of the passports kept besides the cache: signed ones by
// passportHash, and the last one built per subject. Most are the cache's
// own; each may hold a whole collection, so the bounds are small: a pin
// needs to outlive one page's reads, not more.
const (
	keptSigned = 64
	keptLast   = 64
)

// NewPassports returns the issuing use case over st, signing with keys.
func NewPassports(st SubjectStore, keys ActiveKey, opts PassportOptions) *Passports {
	p := &Passports{
		st: st, keys: keys, now: opts.Now, rand: opts.Rand,
		validity:  cmp.Or(opts.Validity, DefaultPassportValidity),
		retention: cmp.Or(opts.Retention, DefaultEvidenceRetention),
		cache:     newCache(),
		signed:    mustLRU[string, *issuedDraft](keptSigned),
		last:      mustLRU[issuer.AgentID, *issuedDraft](keptLast),
		observer:  opts.Observer,

		statusLists: keys != nil && StatusListsEnabled(keys.Issuer()),
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
	status *StatusSlot

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
	return againIfWithdrawn(func() (*issuing.Issued, error) {
		e, err := p.current(ctx, id)
		if err != nil {
			return nil, err
		}
		return p.issue(ctx, id, e, d)
	})
}

// ErrSigningKeyWithdrawn is the cause the store gives when it refuses to
// keep a passport whose signing key was withdrawn after it signed: the
// withdrawal revokes only what is kept by then, so such a passport is never
// served. A SubjectStore wraps it in an unavailable issuer.Error.
var ErrSigningKeyWithdrawn = errors.New("service: the signing key was withdrawn")

// againIfWithdrawn runs issue, and once more when its passport's signing
// key was withdrawn meanwhile: the keys epoch has changed, so the second
// run builds a new passport with the key active then.
func againIfWithdrawn(issue func() (*issuing.Issued, error)) (*issuing.Issued, error) {
	is, err := issue()
	if errors.Is(err, ErrSigningKeyWithdrawn) {
		return issue()
	}
	return is, err
}

// issue signs e for d and counts the passport issued.
func (p *Passports) issue(ctx context.Context, id issuer.AgentID, e *issuedDraft, d issuing.Disclosure) (*issuing.Issued, error) {
	is, err := p.sign(ctx, id, e, d)
	if err != nil {
		return nil, err
	}
	p.observer.ObserveIssued(d)
	return is, nil
}

// current returns the hour's passport of id's current revision: the
// cached one when the revision read now has one, else a fresh one, which
// may describe a later revision than the one read (a write committed
// meanwhile) but never an earlier one.
func (p *Passports) current(ctx context.Context, id issuer.AgentID) (*issuedDraft, error) {
	rev, err := p.st.SubjectRevision(ctx, id)
	if err != nil {
		return nil, err
	}
	return p.draft(ctx, id, rev, p.now().UTC())
}

// draft returns the cached assembled passport of id at revision rev for
// now's hour; when there is none it assembles one from a new snapshot and
// caches it under the revision and hour it describes. Concurrent misses
// of one revision and hour share one assembly.
func (p *Passports) draft(ctx context.Context, id issuer.AgentID, rev string, now time.Time) (*issuedDraft, error) {
	if e, ok := p.cached(id, rev, now); ok {
		return e, nil
	}
	f, _ := p.build(ctx, id, rev, now)
	return f.wait(ctx)
}

// cached returns the cached passport of id at revision rev for now's hour.
func (p *Passports) cached(id issuer.AgentID, rev string, now time.Time) (*issuedDraft, bool) {
	v, ok := p.cache.get(id, cacheKey{revision: rev, context: "passport", hour: hourBucket(now)})
	p.observer.ObserveCacheLookup(CachePassport, ok)
	if !ok {
		return nil, false
	}
	return v.(*issuedDraft), true
}

// build starts, or joins, the assembly of id's passport for a reader that
// read revision rev at now; joined reports that another request had
// started it. The passport is cached under the revision and hour it
// describes, and becomes the subject's last built passport. The assembly
// outlives a caller that gives up: others may share it.
func (p *Passports) build(ctx context.Context, id issuer.AgentID, rev string, now time.Time) (f *flight[string, *issuedDraft], joined bool) {
	key := string(id) + "\x00" + rev + "\x00" + strconv.FormatInt(hourBucket(now), 10)
	return p.builds.start(key, func() (*issuedDraft, error) {
		built, err := p.assemble(context.WithoutCancel(ctx), id)
		if err != nil {
			return nil, err
		}
		at := built.draft.Passport.IssuedAt.UTC()
		kept := p.cache.add(id, cacheKey{revision: built.draft.Revision, context: "passport", hour: hourBucket(at)}, built).(*issuedDraft)
		if prev, ok := p.last.Get(id); !ok || !prev.draft.Passport.IssuedAt.After(kept.draft.Passport.IssuedAt.Time) {
			p.last.Add(id, kept)
		}
		return kept, nil
	})
}

// Latest returns the passport of the agent id to show on a page, with the
// records d discloses: the current one when it is built, and otherwise,
// while another request builds the current one (the subject changed since
// its last passport), the last passport built for id in this hour, if there
// is one and no key changed since; else it builds the current one and
// waits for it. Either is one state of the store. A page that shows it
// reads everything else pinned to its passportHash
// ([issuer.TrustQuery.Passport]). Errors are those of [Passports.Issue].
func (p *Passports) Latest(ctx context.Context, id issuer.AgentID, d issuing.Disclosure) (*issuing.Issued, error) {
	d, err := issuing.ParseDisclosure(string(d))
	if err != nil {
		return nil, err
	}
	return againIfWithdrawn(func() (*issuing.Issued, error) {
		rev, err := p.st.SubjectRevision(ctx, id)
		if err != nil {
			return nil, err
		}
		now := p.now().UTC()
		e, ok := p.cached(id, rev, now)
		if !ok {
			f, joined := p.build(ctx, id, rev, now)
			prev, held := p.last.Get(id)
			if e = prev; !joined || !held || hourBucket(prev.draft.Passport.IssuedAt.UTC()) != hourBucket(now) ||
				keysEpoch(prev.draft.Revision) != keysEpoch(rev) {
				if e, err = f.wait(ctx); err != nil {
					return nil, err
				}
			}
		}
		return p.issue(ctx, id, e, d)
	})
}

// pinned returns the passport hash issued to id, when it is still held.
func (p *Passports) pinned(id issuer.AgentID, hash string) (*issuedDraft, error) {
	if e, ok := p.signed.Get(hash); ok && e.draft.Passport.Subject.ID == string(id) {
		return e, nil
	}
	return nil, issuer.Errorf(issuer.CodeUnavailable, "the passport this read is pinned to is no longer held; read the agent's passport again")
}

// mustLRU returns an LRU cache of size entries; size is positive.
func mustLRU[K comparable, V any](size int) *lru.Cache[K, V] {
	c, err := lru.New[K, V](size)
	if err != nil {
		panic(err)
	}
	return c
}

// assemble loads id's subject in one snapshot, then decides the signing
// key and the time together ([ActiveKey]), and assembles a fresh passport
// issued at that time, or at the subject's At when later (truncated to the
// second, as the key's window is), with the key that will sign it.
func (p *Passports) assemble(ctx context.Context, id issuer.AgentID) (*issuedDraft, error) {
	sub, err := p.loadPublic(ctx, id)
	if err != nil {
		return nil, err
	}
	signer, k, at, err := p.keys.SigningNow(ctx)
	if err != nil {
		return nil, err
	}
	if at.Before(sub.At) {
		at = sub.At
	}
	slot, ref, err := p.reserveStatus(ctx)
	if err != nil {
		return nil, err
	}
	draft, err := p.assembleAt(sub, at.UTC().Truncate(time.Second), ref)
	if err != nil {
		return nil, err
	}
	return &issuedDraft{draft: draft, signer: signer, kid: k.KID, status: slot, signed: map[issuing.Disclosure]signResult{}}, nil
}

// reserveStatus reserves the status list entry of a passport about to be
// signed, and returns it with the passport's status member; nil and nil
// when the issuer keeps no lists.
func (p *Passports) reserveStatus(ctx context.Context) (*StatusSlot, *passport.StatusRef, error) {
	if !p.statusLists {
		return nil, nil, nil
	}
	slot, err := p.st.ReserveStatusEntry(ctx)
	if err != nil {
		return nil, nil, err
	}
	uri, _ := StatusListURI(p.keys.Issuer(), slot.List)
	return &slot, &passport.StatusRef{StatusList: passport.StatusListRef{Idx: slot.Idx, URI: uri}}, nil
}

// assembleUnsigned loads id's subject in one snapshot and assembles a
// fresh, unsigned passport of it, issued at the second of the subject's At
// (the time read once the snapshot was pinned, so no record in it is
// later); the draft's Revision is the revision it describes.
func (p *Passports) assembleUnsigned(ctx context.Context, id issuer.AgentID) (*issuing.Draft, error) {
	sub, err := p.loadPublic(ctx, id)
	if err != nil {
		return nil, err
	}
	return p.assembleAt(sub, sub.At.UTC().Truncate(time.Second), nil)
}

// loadPublic loads id's subject in one snapshot; a subject without a
// public profile is not_found.
func (p *Passports) loadPublic(ctx context.Context, id issuer.AgentID) (*issuing.Subject, error) {
	sub, err := p.st.LoadSubject(ctx, id, p.now)
	if err != nil {
		return nil, err
	}
	if sub.Visibility != issuer.VisibilityPublic || sub.Status != issuer.AgentActive {
		return nil, issuer.Errorf(issuer.CodeNotFound, "agent %s not found", id)
	}
	return sub, nil
}

// assembleAt assembles sub's passport issued at at, with its evidence
// collected as of at (no record of the snapshot is later) and status as
// its status member.
func (p *Passports) assembleAt(sub *issuing.Subject, at time.Time, status *passport.StatusRef) (*issuing.Draft, error) {
	pk := make([]byte, PseudonymKeySize)
	if _, err := io.ReadFull(p.rand, pk); err != nil {
		return nil, fmt.Errorf("service: pseudonym key: %w", err)
	}
	c, err := issuing.Collect(sub, pk, at)
	if err != nil {
		return nil, err
	}
	return issuing.Assemble(sub, c, issuing.Options{Issuer: p.keys.Issuer(), IssuedAt: at, Validity: p.validity, Status: status})
}

// unsigned returns the assembled passport of id at revision rev as of
// now, for a reader that signs nothing (the discovery index): the cached
// draft of that revision and hour when there is one, else a fresh assembly
// (of rev or a later revision, as its Revision says) that is neither
// cached nor dependent on a signing key, so that indexing every subject
// neither evicts the passports being served nor needs a key.
func (p *Passports) unsigned(ctx context.Context, id issuer.AgentID, rev string, now time.Time) (*issuing.Draft, error) {
	key := cacheKey{revision: rev, context: "passport", hour: hourBucket(now)}
	if v, ok := p.cache.get(id, key); ok {
		return v.(*issuedDraft).draft, nil
	}
	return p.assembleUnsigned(ctx, id)
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
			PassportHash: is.PassportHash, Subject: id, KID: e.kid, Status: e.status, EvidenceFile: is.EvidenceFile, PreviewMemories: is.PreviewMemories,
			IssuedAt: is.Passport.IssuedAt.UTC(), ExpiresAt: is.Passport.ExpiresAt.UTC(),
		}
		if err := p.st.SaveIssuedPassport(ctx, rec, rec.ExpiresAt.Add(p.retention)); err != nil {
			return nil, err
		}
		e.saved = true
		p.signed.Add(is.PassportHash, e)
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
// PostgreSQL, replicas learn of each other's writes, and of every key
// change, as "", through LISTEN/NOTIFY, see store.DB.ListenRevisions).
// Correctness does not depend on it: entries are keyed by the revision
// read on every request, so an entry of an older revision or keys epoch is
// never served; invalidation frees it early.
func (p *Passports) Invalidate(id issuer.AgentID) {
	if id == "" {
		p.cache.clear()
		return
	}
	p.cache.invalidate(id)
}

// Cached returns how many subjects and passports the cache holds.
func (p *Passports) Cached() (subjects, passports int) { return p.cache.len() }
