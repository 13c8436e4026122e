package service

import (
	"context"
	"time"

	"github.com/remnant/passportkit/issuer"
)

// DefaultSweepBatch is how many bodies one transaction of a storage sweep
// evicts when SweepOptions.Batch is zero.
const DefaultSweepBatch = 500

// MaxSweepBatch bounds SweepOptions.Batch.
const MaxSweepBatch = 10_000

// SweepOptions configures a storage sweep (SPEC.md §15.10).
type SweepOptions struct {
	// Budget is the bytes of memory contents and artifact bodies the
	// issuer keeps; a sweep evicts bodies until what is held fits.
	Budget int64
	// Batch is how many bodies one transaction evicts; 0 is
	// DefaultSweepBatch.
	Batch int
	// DryRun reports what the sweep would evict and writes nothing.
	DryRun bool
}

// Check validates the options.
func (o SweepOptions) Check() error {
	if o.Budget < 0 {
		return issuer.Errorf(issuer.CodeInvalid, "the storage budget is negative")
	}
	if o.Batch < 0 || o.Batch > MaxSweepBatch {
		return issuer.Errorf(issuer.CodeInvalid, "the sweep batch must be between 1 and %d", MaxSweepBatch)
	}
	return nil
}

// SweepReport says what a storage sweep found and did.
type SweepReport struct {
	// Budget is the budget swept to.
	Budget int64 `json:"budget"`
	// HeldBefore and HeldAfter are the bytes of bodies held before and
	// after the sweep (after: as it would be, on a dry run).
	HeldBefore int64 `json:"heldBefore"`
	HeldAfter  int64 `json:"heldAfter"`
	// Memories and Artifacts count the bodies evicted (or, on a dry run,
	// that would be); MemoryBytes and ArtifactBytes their sizes.
	Memories      int   `json:"memories"`
	MemoryBytes   int64 `json:"memoryBytes"`
	Artifacts     int   `json:"artifacts"`
	ArtifactBytes int64 `json:"artifactBytes"`
	// Batches counts the transactions written.
	Batches int `json:"batches"`
	// OverBudget reports that what is held still exceeds the budget: the
	// rest is bodies the issuer guarantees to keep.
	OverBudget bool `json:"overBudget"`
	// DryRun repeats the option.
	DryRun bool `json:"dryRun"`
	// At is when the sweep ran.
	At time.Time `json:"at"`
}

// StorageSweeper evicts bodies above a storage budget (SPEC.md §15.10).
type StorageSweeper interface {
	SweepStorage(ctx context.Context, o SweepOptions) (SweepReport, error)
}
