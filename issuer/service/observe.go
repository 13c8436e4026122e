package service

import (
	"github.com/remnant/passportkit/issuer"
	"github.com/remnant/passportkit/issuer/issuing"
)

// ValidationKind names what a validation submission validates.
type ValidationKind string

// The kinds of validation submission.
const (
	ValidationMemory  ValidationKind = "memory_feedback"  // a direct validation of a memory
	ValidationReceipt ValidationKind = "receipt_feedback" // a validation of a consultation
	ValidationOutcome ValidationKind = "outcome"          // an outcome report
)

// ValidationObserver learns the outcome of every validation submission the
// service decides, over either transport (metrics). A body the transport's
// decoder refuses never reaches the service, so it is not observed here.
// Its method runs on the request's goroutine: it must be quick and must not
// block.
type ValidationObserver interface {
	// ObserveValidation reports one submission: accepted when err is nil
	// (replayed when an earlier response under the same idempotency key was
	// returned), else refused or failed with err.
	ObserveValidation(kind ValidationKind, via issuer.Transport, replayed bool, err error)
}

// CacheEntry names what a cache lookup of [Passports] looked for.
type CacheEntry string

// The cached entries.
const (
	CachePassport CacheEntry = "passport" // a subject's assembled passport
	CacheSkill    CacheEntry = "skill"    // a skill passport for one task context
)

// PassportObserver learns of the passport cache's lookups and of every
// passport served (metrics). The hit ratio of an entry is its hits over its
// lookups. Its methods run on the request's goroutine: they must be quick
// and must not block.
type PassportObserver interface {
	// ObserveCacheLookup reports one lookup of entry in the cache.
	ObserveCacheLookup(entry CacheEntry, hit bool)
	// ObserveIssued reports one passport bundle returned by
	// [Passports.Issue] with disclosure d, from the cache or freshly signed.
	ObserveIssued(d issuing.Disclosure)
}

// unobserved observes nothing: the observer of a service configured
// without one.
type unobserved struct{}

func (unobserved) ObserveValidation(ValidationKind, issuer.Transport, bool, error) {}
func (unobserved) ObserveCacheLookup(CacheEntry, bool)                             {}
func (unobserved) ObserveIssued(issuing.Disclosure)                                {}
