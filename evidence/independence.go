package evidence

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base32"
	"hash"
	"io"
	"sync"
)

// Independence: a record's reporter is an actor, owned by an operator as
// registered at the time of the event. Actors, operators and the pool of
// reporters of unknown ownership are kept apart (Set.Keys interns them);
// the assessor caps each.
// Distinct registered operators do not prove distinct people, and the
// builder, model family, host, framework, project and dataset axes are not
// recorded by any source yet, so nothing here claims them.

// checkReporters checks that the subject is one actor: every record whose
// ownership is self has the same reporter, and that reporter appears in no
// record under another ownership. A later change of an actor's owner shows
// as records with different operators; it never rewrites earlier ones.
func checkReporters(records []Record) error {
	subject := ""
	for _, r := range records {
		if r.Ownership != OwnershipSelf {
			continue
		}
		if subject != "" && r.Reporter != subject {
			return invalid(CodeInconsistentReporter, r.ID, "two reporters, %s and %s, are both the subject", subject, r.Reporter)
		}
		subject = r.Reporter
	}
	if subject == "" {
		return nil
	}
	for _, r := range records {
		if r.Reporter == subject && r.Ownership != OwnershipSelf {
			return invalid(CodeInconsistentReporter, r.ID, "the subject %s appears with %s ownership", subject, r.Ownership)
		}
	}
	return nil
}

// Pseudonyms issues the opaque identifiers of one passport's records. The
// same internal identifier always maps to the same pseudonym under one key,
// and to unrelated ones under different keys, so pseudonyms cannot be
// linked across passports. The key is secret and fresh for each passport.
// A Pseudonyms is safe for concurrent use.
type Pseudonyms struct {
	mu  sync.Mutex
	mac hash.Hash // HMAC-SHA-256 under the key, reset before each use
	sum []byte
}

// NewPseudonyms returns a pseudonym issuer keyed by key, which should hold
// at least 32 random bytes.
func NewPseudonyms(key []byte) *Pseudonyms {
	return &Pseudonyms{mac: hmac.New(sha256.New, append([]byte(nil), key...))}
}

var pseudoEncoding = base32.NewEncoding("abcdefghijklmnopqrstuvwxyz234567").WithPadding(base32.NoPadding)

func (p *Pseudonyms) issue(prefix, internal string) string {
	// One HMAC per issuer, reset for each identifier: a passport names
	// thousands of records, and keying an HMAC costs two SHA-256 blocks.
	p.mu.Lock()
	defer p.mu.Unlock()
	p.mac.Reset()
	io.WriteString(p.mac, prefix)
	p.mac.Write([]byte{0})
	io.WriteString(p.mac, internal)
	p.sum = p.mac.Sum(p.sum[:0])
	var out [len("mem_") + 24]byte
	n := copy(out[:], prefix)
	pseudoEncoding.Encode(out[n:], p.sum[:15])
	return string(out[:n+pseudoEncoding.EncodedLen(15)])
}

// Record returns the pseudonym ("ev_...") of an internal record identifier.
func (p *Pseudonyms) Record(internal string) string { return p.issue("ev_", internal) }

// Actor returns the pseudonym ("act_...") of an internal agent identifier.
func (p *Pseudonyms) Actor(internal string) string { return p.issue("act_", internal) }

// Operator returns the pseudonym ("op_...") of an internal operator
// identifier.
func (p *Pseudonyms) Operator(internal string) string { return p.issue("op_", internal) }

// Memory returns the pseudonym ("mem_...") of an internal memory identifier.
func (p *Pseudonyms) Memory(internal string) string { return p.issue("mem_", internal) }
