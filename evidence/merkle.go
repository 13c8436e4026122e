package evidence

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"math/bits"
)

// Hash is a SHA-256 digest: a leaf hash, an interior node or a tree head.
// Its text form is 64 lower-case hexadecimal digits.
type Hash [sha256.Size]byte

// ParseHash parses the text form of a Hash: exactly 64 lower-case hex digits.
func ParseHash(s string) (Hash, error) { return parseHash(s) }

// ParseHashBytes is ParseHash for text held in a byte slice.
func ParseHashBytes(b []byte) (Hash, error) { return parseHash(b) }

func parseHash[T string | []byte](s T) (Hash, error) {
	var h Hash
	if len(s) != 2*len(h) {
		return h, fmt.Errorf("evidence: hash must be %d hex digits, got %d characters", 2*len(h), len(s))
	}
	// Eight digits a word: each byte must be '0'–'9' or 'a'–'f'. With the
	// high bit of every byte set, the subtractions borrow within bytes
	// only, and each leaves a byte's high bit set when the byte is at
	// least the one subtracted.
	const ones, high = 0x0101010101010101, 0x8080808080808080
	bad := uint64(0)
	for i := range 8 {
		x := uint64(s[8*i]) | uint64(s[8*i+1])<<8 | uint64(s[8*i+2])<<16 | uint64(s[8*i+3])<<24 |
			uint64(s[8*i+4])<<32 | uint64(s[8*i+5])<<40 | uint64(s[8*i+6])<<48 | uint64(s[8*i+7])<<56
		y := x | high
		digit := (y - ones*'0') &^ (y - ones*('9'+1))
		letter := (y - ones*'a') &^ (y - ones*('f'+1))
		bad |= x&high | ^(digit|letter)&high
		// Each byte's value, the first digit of a pair in the high
		// nibble of its byte.
		v := x&(ones*0x0f) + (letter&high)>>7*9
		v = (v<<4 | v>>8) & 0x00ff00ff00ff00ff
		v = (v | v>>8) & 0x0000ffff0000ffff
		binary.LittleEndian.PutUint32(h[4*i:], uint32(v|v>>16))
	}
	if bad != 0 {
		return Hash{}, errors.New("evidence: hash has a character that is not a lower-case hex digit")
	}
	return h, nil
}

// String returns the text form of h.
func (h Hash) String() string { return hex.EncodeToString(h[:]) }

// MarshalText implements encoding.TextMarshaler.
func (h Hash) MarshalText() ([]byte, error) { return []byte(h.String()), nil }

// UnmarshalText implements encoding.TextUnmarshaler with ParseHash's rules.
func (h *Hash) UnmarshalText(b []byte) error {
	v, err := ParseHash(string(b))
	if err != nil {
		return err
	}
	*h = v
	return nil
}

// LeafHash returns the RFC 9162 hash of one leaf: SHA-256(0x00 || data).
// For passport evidence, data is the canonical JSON of one record.
func LeafHash(data []byte) Hash {
	var h LeafHasher
	return h.Sum(data)
}

// LeafHasher computes leaf hashes, reusing one digest across calls, so
// that once it has made its digest it allocates nothing. The zero value is
// ready to use; it is not safe for concurrent use.
type LeafHasher struct {
	d   hash.Hash
	sum Hash // what the digest writes into
}

// leafPrefix is the byte that starts every leaf's hash input.
var leafPrefix = []byte{0x00}

// Sum returns the leaf hash of data, as LeafHash does.
func (l *LeafHasher) Sum(data []byte) Hash {
	if l.d == nil {
		l.d = sha256.New()
	} else {
		l.d.Reset()
	}
	l.d.Write(leafPrefix)
	l.d.Write(data)
	l.d.Sum(l.sum[:0])
	return l.sum
}

// nodeHash returns SHA-256(0x01 || left || right).
func nodeHash(left, right Hash) Hash {
	var buf [1 + 2*sha256.Size]byte
	buf[0] = 0x01
	copy(buf[1:], left[:])
	copy(buf[1+sha256.Size:], right[:])
	return sha256.Sum256(buf[:])
}

// EmptyRoot is the head of a tree with no leaves: SHA-256 of nothing.
var EmptyRoot = Hash(sha256.Sum256(nil))

// Tree is an RFC 9162 Merkle tree over a fixed list of leaf hashes, kept
// whole so that proofs for many leaves cost O(log n) each.
type Tree struct {
	levels [][]Hash // levels[0] are the leaves; the last level holds the head
	// text holds the text form of every node below the head, level after
	// level, once IsProofText has needed it; at[l] is where level l starts.
	text []byte
	at   []int
	// above is the array the levels above the leaves share.
	above []Hash
}

// NewTree builds the tree over leaves. An odd node at the end of a level is
// carried up unchanged, never duplicated, as RFC 9162 requires.
func NewTree(leaves []Hash) *Tree {
	t := &Tree{}
	t.Reset(leaves)
	return t
}

// Reset makes t the tree over leaves, as NewTree does, reusing the memory
// t holds. The tree keeps leaves.
func (t *Tree) Reset(leaves []Hash) {
	// The levels above the leaves share one array.
	levels, nodes := 1, 0
	for n := len(leaves); n > 1; n = (n + 1) / 2 {
		levels, nodes = levels+1, nodes+(n+1)/2
	}
	if len(t.above) < nodes {
		t.above = make([]Hash, nodes)
	}
	above := t.above
	t.levels = append(t.levels[:0], leaves)
	t.at = t.at[:0]
	for level := leaves; len(level) > 1; {
		next := above[: (len(level)+1)/2 : (len(level)+1)/2]
		above = above[len(next):]
		for i := 0; i+1 < len(level); i += 2 {
			next[i/2] = nodeHash(level[i], level[i+1])
		}
		if len(level)%2 == 1 {
			next[len(next)-1] = level[len(level)-1]
		}
		t.levels = append(t.levels, next)
		level = next
	}
}

// Size returns the number of leaves.
func (t *Tree) Size() int { return len(t.levels[0]) }

// Root returns the tree head, EmptyRoot for a tree with no leaves.
func (t *Tree) Root() Hash {
	top := t.levels[len(t.levels)-1]
	if len(top) == 0 {
		return EmptyRoot
	}
	return top[0]
}

// Proof returns the inclusion proof for the leaf at index: the audit path of
// RFC 9162 §2.1.3.1, nearest sibling first.
func (t *Tree) Proof(index int) ([]Hash, error) {
	if index < 0 || index >= t.Size() {
		return nil, fmt.Errorf("evidence: leaf index %d outside a tree of %d leaves", index, t.Size())
	}
	var proof []Hash
	for _, level := range t.levels[:len(t.levels)-1] {
		if sib := index ^ 1; sib < len(level) {
			proof = append(proof, level[sib])
		}
		index /= 2
	}
	return proof, nil
}

// IsProof reports whether proof is, hash for hash, the audit path of the
// leaf at index that Proof returns. Such a proof verifies against the
// tree's head; any other proof does not, unless SHA-256 collides. A holder
// of the whole tree thus checks a proof by comparing instead of hashing,
// and needs VerifyInclusion or a Batch only to explain a proof that
// differs.
func (t *Tree) IsProof(index int, proof []Hash) bool {
	if index < 0 || index >= t.Size() {
		return false
	}
	n := 0
	for _, level := range t.levels[:len(t.levels)-1] {
		if sib := index ^ 1; sib < len(level) {
			if n == len(proof) || proof[n] != level[sib] {
				return false
			}
			n++
		}
		index /= 2
	}
	return n == len(proof)
}

// IsProofText is IsProof for a proof given as text, one element a hash:
// it reports whether each is exactly the text form (64 lower-case hex
// digits) of the audit path's hash. A proof it accepts is therefore also
// well formed. The text of the tree's nodes is written once, at the first
// call, so checking the proofs of every leaf costs one encoding of the
// tree and a comparison per proof hash, where parsing each proof hash
// would cost a decoding of each.
func (t *Tree) IsProofText(index int, proof [][]byte) bool {
	if index < 0 || index >= t.Size() {
		return false
	}
	if len(t.at) == 0 {
		t.writeText()
	}
	n := 0
	for l, level := range t.levels[:len(t.levels)-1] {
		if sib := index ^ 1; sib < len(level) {
			at := t.at[l] + 2*sha256.Size*sib
			if n == len(proof) || string(proof[n]) != string(t.text[at:at+2*sha256.Size]) {
				return false
			}
			n++
		}
		index /= 2
	}
	return n == len(proof)
}

// writeText writes the text form of every node below the head.
func (t *Tree) writeText() {
	nodes := 0
	t.at = t.at[:0]
	for _, level := range t.levels[:len(t.levels)-1] {
		t.at = append(t.at, 2*sha256.Size*nodes)
		nodes += len(level)
	}
	if cap(t.text) < 2*sha256.Size*nodes {
		t.text = make([]byte, 2*sha256.Size*nodes)
	}
	t.text = t.text[:2*sha256.Size*nodes]
	for l, level := range t.levels[:len(t.levels)-1] {
		for i := range level {
			at := t.at[l] + 2*sha256.Size*i
			hex.Encode(t.text[at:at+2*sha256.Size], level[i][:])
		}
	}
}

// Root returns the RFC 9162 tree head over leaves.
func Root(leaves []Hash) Hash { return NewTree(leaves).Root() }

// Errors from VerifyInclusion.
var (
	// ErrIndexOutOfRange: the leaf index is not below the tree size.
	ErrIndexOutOfRange = errors.New("evidence: leaf index outside the tree")
	// ErrProofSize: the proof has the wrong number of hashes for its index
	// and tree size.
	ErrProofSize = errors.New("evidence: inclusion proof has the wrong length")
	// ErrRootMismatch: the proof leads to a different tree head.
	ErrRootMismatch = errors.New("evidence: inclusion proof does not lead to the root")
)

// MaxProofLen is the longest inclusion proof of any tree: one hash per level
// of a tree of 2^63 leaves.
const MaxProofLen = 63

// VerifyInclusion checks that leaf is the leaf at index in the tree of the
// given size whose head is root, following RFC 9162 §2.1.3.2.
func VerifyInclusion(index, size uint64, leaf Hash, proof []Hash, root Hash) error {
	got, err := RootFromInclusion(index, size, leaf, proof)
	if err != nil {
		return err
	}
	if got != root {
		return ErrRootMismatch
	}
	return nil
}

// RootFromInclusion returns the tree head that an inclusion proof for leaf
// at index leads to, or an error when the proof's shape does not fit the
// index and size.
func RootFromInclusion(index, size uint64, leaf Hash, proof []Hash) (Hash, error) {
	if index >= size {
		return Hash{}, ErrIndexOutOfRange
	}
	if len(proof) > MaxProofLen {
		return Hash{}, ErrProofSize
	}
	fn, sn := index, size-1
	r := leaf
	for _, p := range proof {
		if sn == 0 {
			return Hash{}, ErrProofSize
		}
		if fn&1 == 1 || fn == sn {
			r = nodeHash(p, r)
			for fn&1 == 0 && fn != 0 {
				fn >>= 1
				sn >>= 1
			}
		} else {
			r = nodeHash(r, p)
		}
		fn >>= 1
		sn >>= 1
	}
	if sn != 0 {
		return Hash{}, ErrProofSize
	}
	return r, nil
}

// Batch checks inclusion proofs for several leaves of one tree, in
// increasing index order. Where a leaf's path meets the previous leaf's, the
// rest of its proof must repeat the previous proof, which is compared
// instead of hashed again; where it arrives beside the previous path's
// node with the same two children, their parent is the node that path
// reached, taken instead of hashed. Checking k proofs costs one hash per
// distinct interior node on their paths, not k·log n.
type Batch struct {
	size, last uint64
	root       Hash
	started    bool
	failed     bool
	// at[l] is the node the previous path reached after l shifts: its
	// index, its hash, and the sibling the proof supplied there.
	at []pathNode
}

type pathNode struct {
	fn      uint64
	hash    Hash
	sibling Hash
	ok      bool
}

// NewBatch returns a Batch for the tree of the given size and head.
func NewBatch(size uint64, root Hash) *Batch {
	return &Batch{size: size, root: root, at: make([]pathNode, bits.Len64(size)+1)}
}

// Verify checks that leaf is at index, which must exceed the previous
// call's index, as VerifyInclusion does. After an error the Batch refuses
// every further leaf.
func (b *Batch) Verify(index uint64, leaf Hash, proof []Hash) error {
	if b.failed {
		return errors.New("evidence: batch already failed")
	}
	err := b.verify(index, leaf, proof)
	if err != nil {
		b.failed = true
	}
	return err
}

func (b *Batch) verify(index uint64, leaf Hash, proof []Hash) error {
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
		// known says that this node is the right child of the one the
		// previous path took here, with the same two children: their
		// parent is the node that path reached one level up, if it is
		// still recorded there, and needs no hashing.
		known := !merged && b.started && prev.ok && fn&1 == 1 && prev.fn == fn-1 && prev.sibling == r && prev.hash == p
		if merged {
			if !prev.ok || prev.fn != fn || prev.sibling != p {
				return ErrRootMismatch
			}
		} else {
			prev.fn, prev.hash, prev.sibling, prev.ok = fn, r, p, true
		}
		shifted := 0
		if fn&1 == 1 || fn == sn {
			if up := level + 1; known && up < len(b.at) && b.at[up].ok && b.at[up].fn == fn>>1 {
				r = b.at[up].hash
			} else if !merged {
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
