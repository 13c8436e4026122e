package verifier_test

import (
	"bytes"
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"math/bits"
	"slices"
	"strings"
	"testing"

	"github.com/remnant/passportkit/passport"
)

// honestFloor is the work SPEC.md requires of any verifier of one bundle,
// and nothing else: the Ed25519 verification of the JWS signing input
// (§11.2 step 8), and one SHA-256 over each input that must be hashed — the
// passport body for passportHash (step 11), every skill passport without
// its assessmentHash member (§4.14, step 13), every disclosed leaf with its
// 0x00 prefix and every interior Merkle node that must be computed with its
// 0x01 prefix (§6, step 18). Its inputs are derived from the bundle as
// SPEC.md describes them, without the verifier, and checked against the
// signed values when they are built, so that the floor provably does the
// hashing a verifier must; the timed part only hashes and verifies.
type honestFloor struct {
	input, sig []byte
	// hashes are the inputs of every SHA-256 the bundle requires.
	hashes [][]byte
	// bytes is their total length; leaves and nodes count the Merkle hashes.
	bytes, leaves, nodes int
}

// newHonestFloor derives the floor of bundle.
func newHonestFloor(tb testing.TB, bundle []byte) *honestFloor {
	tb.Helper()
	var b passport.Bundle
	if err := json.Unmarshal(bundle, &b); err != nil {
		tb.Fatal(err)
	}
	parts := strings.Split(b.Credential, ".")
	sig, err := base64.RawURLEncoding.DecodeString(parts[2])
	if err != nil {
		tb.Fatal(err)
	}
	f := &honestFloor{input: []byte(parts[0] + "." + parts[1]), sig: sig}
	var snap passport.Snapshot
	if err := json.Unmarshal(b.Snapshot, &snap); err != nil {
		tb.Fatal(err)
	}
	f.add(tb, snap.Passport, snap.PassportHash, "passportHash")
	var body struct {
		SkillPassports []json.RawMessage `json:"skillPassports"`
		EvidenceRoot   string            `json:"evidenceRoot"`
		EvidenceCount  int               `json:"evidenceCount"`
	}
	if err := json.Unmarshal(snap.Passport, &body); err != nil {
		tb.Fatal(err)
	}
	for _, sp := range body.SkillPassports {
		// The signed bytes without the member and the comma before it: in
		// canonical order assessmentHash follows assessment.
		const member = `,"assessmentHash":"`
		i := bytes.Index(sp, []byte(member))
		if i < 0 {
			tb.Fatal("a skill passport without assessmentHash")
		}
		end := i + len(member) + 64
		want := string(sp[i+len(member) : end])
		f.add(tb, append(bytes.Clone(sp[:i]), sp[end+1:]...), want, "assessmentHash")
	}
	f.addTree(tb, b.Evidence, body.EvidenceCount, body.EvidenceRoot)
	return f
}

// add appends one hash input and checks that it hashes to want (hex).
func (f *honestFloor) add(tb testing.TB, in []byte, want, what string) []byte {
	tb.Helper()
	sum := sha256.Sum256(in)
	if want != "" && hex.EncodeToString(sum[:]) != want {
		tb.Fatalf("floor: the %s input does not hash to the signed value", what)
	}
	f.hashes = append(f.hashes, in)
	f.bytes += len(in)
	return sum[:]
}

// addTree appends the leaf hashes of the disclosed records and the
// interior nodes on their paths to the root (RFC 9162 §2.1: a subtree of n
// leaves splits at the largest power of two below n); a sibling not on
// those paths comes from an inclusion proof. The root must come out as
// the signed evidenceRoot.
func (f *honestFloor) addTree(tb testing.TB, disclosed []passport.Disclosure, n int, root string) {
	tb.Helper()
	leaves := map[int][]byte{}      // a disclosed leaf's index → its hash
	siblings := map[[2]int][]byte{} // a subtree [lo, hi) off the paths → its hash, from a proof
	indices := make([]int, len(disclosed))
	for k, d := range disclosed {
		indices[k] = d.Index
		leaves[d.Index] = f.add(tb, append([]byte{0}, d.Leaf...), "", "leaf")
		f.leaves++
		// The audit path, nearest sibling first, names the siblings of the
		// subtrees from the leaf up.
		var path [][2]int
		for lo, hi := 0, n; hi-lo > 1; {
			k := lo + splitPoint(hi-lo)
			if d.Index < k {
				path, hi = append(path, [2]int{k, hi}), k
			} else {
				path, lo = append(path, [2]int{lo, k}), k
			}
		}
		if len(path) != len(d.Proof) {
			tb.Fatalf("floor: leaf %d has a proof of %d hashes, its path %d", d.Index, len(d.Proof), len(path))
		}
		for i, p := range d.Proof {
			siblings[path[len(path)-1-i]] = bytes.Clone(p[:])
		}
	}
	// holds reports whether a disclosed leaf lies in [lo, hi): such a
	// subtree's head must be computed.
	holds := func(lo, hi int) bool {
		i, _ := slices.BinarySearch(indices, lo)
		return i < len(indices) && indices[i] < hi
	}
	var node func(lo, hi int) []byte
	node = func(lo, hi int) []byte {
		switch {
		case !holds(lo, hi):
			return siblings[[2]int{lo, hi}]
		case hi-lo == 1:
			return leaves[lo]
		}
		k := lo + splitPoint(hi-lo)
		h := f.add(tb, append(append([]byte{1}, node(lo, k)...), node(k, hi)...), "", "node")
		f.nodes++
		return h
	}
	var got []byte
	switch {
	case n == 0:
		empty := sha256.Sum256(nil)
		got = empty[:]
	case len(disclosed) == 0:
		tb.Fatal("floor: a tree with no disclosed leaf")
	default:
		got = node(0, n)
	}
	if hex.EncodeToString(got) != root {
		tb.Fatal("floor: the tree's head is not the signed evidenceRoot")
	}
}

// splitPoint is the largest power of two below n, for n > 1.
func splitPoint(n int) int { return 1 << (bits.Len(uint(n-1)) - 1) }

// run does the floor's work once with the standard library, the signature
// checked by verify.
func (f *honestFloor) run(tb testing.TB, verify func(input, sig []byte) bool) {
	if !verify(f.input, f.sig) {
		tb.Fatal("floor: bad signature")
	}
	for _, in := range f.hashes {
		sha256.Sum256(in)
	}
}

// stdVerify is the standard library's Ed25519 verification under pub.
func stdVerify(pub ed25519.PublicKey) func(input, sig []byte) bool {
	return func(input, sig []byte) bool { return ed25519.Verify(pub, input, sig) }
}

// TestHonestFloorCoversTheTree checks the floor's Merkle accounting: every
// leaf disclosed costs n leaf hashes and n−1 nodes; one leaf of n costs its
// path, ⌈log2 n⌉ nodes at most.
func TestHonestFloorCoversTheTree(t *testing.T) {
	f := newBenchFixture(t)
	for _, n := range []int{1, 2, 3, 7, 8, 13} {
		var recs []json.RawMessage
		for i := range n {
			recs = append(recs, benchRecord(i))
		}
		all := make([]int, n)
		for i := range all {
			all[i] = i
		}
		for _, tc := range []struct {
			disclose            []int
			wantLeaves, maxNode int
		}{
			{all, n, n - 1},
			{[]int{n - 1}, 1, bits.Len(uint(n - 1))},
		} {
			b, err := passport.NewSigner(f.key).Sign(benchPassport(1, 1), recs, tc.disclose)
			if err != nil {
				t.Fatal(err)
			}
			fl := newHonestFloor(t, b)
			if fl.leaves != tc.wantLeaves || fl.nodes > tc.maxNode || (len(tc.disclose) == n && fl.nodes != n-1) {
				t.Errorf("n=%d disclose %v: %d leaves, %d nodes", n, tc.disclose, fl.leaves, fl.nodes)
			}
		}
	}
}
