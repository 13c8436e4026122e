package evidence

import (
	"errors"
	"fmt"
	"math/bits"
	"math/rand/v2"
	"testing"
)

// refBatch is Batch as first written, which hashes every node on a path
// up to where it meets the previous path: an oracle for TestBatchOracle.
type refBatch struct {
	size, last uint64
	root       Hash
	started    bool
	failed     bool
	at         []pathNode
}

func newRefBatch(size uint64, root Hash) *refBatch {
	return &refBatch{size: size, root: root, at: make([]pathNode, bits.Len64(size)+1)}
}

func (b *refBatch) Verify(index uint64, leaf Hash, proof []Hash) error {
	if b.failed {
		return errors.New("evidence: batch already failed")
	}
	err := b.verify(index, leaf, proof)
	if err != nil {
		b.failed = true
	}
	return err
}

func (b *refBatch) verify(index uint64, leaf Hash, proof []Hash) error {
	if index >= b.size {
		return ErrIndexOutOfRange
	}
	if b.started && index <= b.last {
		return errors.New("evidence: batch indices must increase")
	}
	if len(proof) > MaxProofLen {
		return ErrProofSize
	}
	fn, sn := index, b.size-1
	r := leaf
	level := 0
	merged := false
	for _, p := range proof {
		if sn == 0 {
			return ErrProofSize
		}
		prev := &b.at[level]
		if !merged && b.started && prev.ok && prev.fn == fn {
			if prev.hash != r {
				return ErrRootMismatch
			}
			merged = true
		}
		if merged {
			if !prev.ok || prev.fn != fn || prev.sibling != p {
				return ErrRootMismatch
			}
		} else {
			prev.fn, prev.hash, prev.sibling, prev.ok = fn, r, p, true
		}
		shifted := 0
		if fn&1 == 1 || fn == sn {
			if !merged {
				r = nodeHash(p, r)
			}
			for fn&1 == 0 && fn != 0 {
				fn >>= 1
				sn >>= 1
				shifted++
			}
		} else if !merged {
			r = nodeHash(r, p)
		}
		fn >>= 1
		sn >>= 1
		level += shifted + 1
		if level >= len(b.at) {
			return ErrProofSize
		}
	}
	if sn != 0 {
		return ErrProofSize
	}
	if !merged && r != b.root {
		return ErrRootMismatch
	}
	b.started, b.last = true, index
	return nil
}

// TestBatchOracle runs Batch and the oracle side by side on the proofs of
// random subsets of leaves, true and changed in every way, and requires the
// same outcome, error for error.
func TestBatchOracle(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for n := 1; n <= 90; n++ {
		var leaves []Hash
		for i := range n {
			leaves = append(leaves, LeafHash([]byte(fmt.Sprint("leaf", i))))
		}
		tree := NewTree(leaves)
		for trial := range 40 {
			var idx []int
			for i := range n {
				if rng.IntN(1+trial%4) == 0 {
					idx = append(idx, i)
				}
			}
			b, ref := NewBatch(uint64(n), tree.Root()), newRefBatch(uint64(n), tree.Root())
			for k, i := range idx {
				p, _ := tree.Proof(i)
				p = append([]Hash(nil), p...)
				leaf, index := leaves[i], uint64(i)
				if trial > 0 && rng.IntN(max(2, len(idx))) == 0 {
					switch rng.IntN(8) {
					case 0:
						if len(p) > 0 {
							p[rng.IntN(len(p))][rng.IntN(32)] ^= 1 << rng.IntN(8)
						}
					case 1:
						leaf[rng.IntN(32)] ^= 1
					case 2:
						if len(p) > 0 {
							p = p[:len(p)-1]
						}
					case 3:
						p = append(p, leaves[rng.IntN(n)])
					case 4:
						if k > 0 {
							p, _ = tree.Proof(idx[k-1])
						}
					case 5:
						if len(p) > 1 {
							j := rng.IntN(len(p) - 1)
							p[j], p[j+1] = p[j+1], p[j]
						}
					case 6:
						index = uint64(rng.IntN(n + 1))
					case 7:
						leaf = leaves[rng.IntN(n)]
					}
				}
				got, want := b.Verify(index, leaf, p), ref.Verify(index, leaf, p)
				if fmt.Sprint(got) != fmt.Sprint(want) {
					t.Fatalf("n=%d trial %d leaf %d: Batch %v, oracle %v", n, trial, i, got, want)
				}
			}
		}
	}
}
