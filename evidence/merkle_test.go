package evidence

import (
	"bytes"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/remnant/passportkit/internal/extdata"
)

// The RFC 6962 / 9162 reference tree used by the external probes.
var referenceLeaves = []string{"", "00", "10", "2021", "3031", "40414243", "5051525354555657", "606162636465666768696a6b6c6d6e6f"}

var referenceRoots = []string{
	"6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d",
	"fac54203e7cc696cf0dfcb42c92a1d9dbaf70ad9e621f4bd8d98662f00e3c125",
	"aeb6bcfe274b70a14fb067a5e5578264db0fa9b51af5e0ba159158f329e06e77",
	"d37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7",
	"4e3bbb1f7b478dcfe71fb631631519a3bca12c9aefca1612bfce4c13a86264d4",
	"76e67dadbcdf1e10e1b74ddc608abd2f98dfb16fbce75277b5232a127f2087ef",
	"ddb89be403809e325750d3d263cd78929c2942b7942a34b77e122c9594a74c8c",
	"5dc9da79a70659a9ad559cb701ded9a2ab9d823aad2f4960cfe370eff4604328",
}

func referenceLeafHashes(t *testing.T) []Hash {
	var hs []Hash
	for _, l := range referenceLeaves {
		b, err := hex.DecodeString(l)
		if err != nil {
			t.Fatal(err)
		}
		hs = append(hs, LeafHash(b))
	}
	return hs
}

func TestReferenceRoots(t *testing.T) {
	leaves := referenceLeafHashes(t)
	for n := 1; n <= len(leaves); n++ {
		if got := Root(leaves[:n]).String(); got != referenceRoots[n-1] {
			t.Errorf("root of %d leaves = %s, want %s", n, got, referenceRoots[n-1])
		}
	}
	if got := Root(nil).String(); got != "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855" {
		t.Errorf("empty root = %s", got)
	}
	if got := LeafHash([]byte("L123456")).String(); got != "395aa064aa4c29f7010acfe3f25db9485bbd4b91897b6ad7ad547639252b4d56" {
		t.Errorf("LeafHash(L123456) = %s", got)
	}
}

// TestProofsRoundTrip checks every proof of every tree up to 70 leaves.
func TestProofsRoundTrip(t *testing.T) {
	for n := 1; n <= 70; n++ {
		var leaves []Hash
		for i := range n {
			leaves = append(leaves, LeafHash([]byte(fmt.Sprint(i))))
		}
		tree := NewTree(leaves)
		root := tree.Root()
		if root != rootRecursive(leaves) {
			t.Fatalf("n=%d: iterative root differs from the recursive definition", n)
		}
		for i := range n {
			p, err := tree.Proof(i)
			if err != nil {
				t.Fatal(err)
			}
			if err := VerifyInclusion(uint64(i), uint64(n), leaves[i], p, root); err != nil {
				t.Fatalf("n=%d i=%d: %v", n, i, err)
			}
			if i+1 < n {
				if err := VerifyInclusion(uint64(i), uint64(n), leaves[i+1], p, root); !errors.Is(err, ErrRootMismatch) {
					t.Fatalf("n=%d i=%d: wrong leaf accepted: %v", n, i, err)
				}
			}
			checkIsProof(t, tree, i, p)
		}
	}
}

// checkIsProof checks that IsProof and IsProofText accept the audit path p of leaf i and
// refuses the proofs that differ from it: a hash changed, one left out or
// one added, and p for every other leaf whose audit path differs.
func checkIsProof(t *testing.T, tree *Tree, i int, p []Hash) {
	t.Helper()
	n := tree.Size()
	// both asks IsProof and IsProofText, with the proof in text form,
	// and fails when they disagree.
	both := func(i int, p []Hash) bool {
		t.Helper()
		text := make([][]byte, len(p))
		for k, h := range p {
			text[k] = []byte(h.String())
		}
		got, want := tree.IsProofText(i, text), tree.IsProof(i, p)
		if got != want {
			t.Fatalf("n=%d i=%d: IsProofText says %v, IsProof %v", n, i, got, want)
		}
		if len(p) > 0 {
			text[0] = bytes.ToUpper(text[0])
			if tree.IsProofText(i, text) && bytes.ContainsAny(text[0], "ABCDEF") {
				t.Fatalf("n=%d i=%d: a hash in upper case is accepted", n, i)
			}
		}
		return got
	}
	if !both(i, p) {
		t.Fatalf("n=%d i=%d: the audit path is refused", n, i)
	}
	for k := range p {
		q := append([]Hash(nil), p...)
		q[k][31] ^= 1
		if both(i, q) {
			t.Fatalf("n=%d i=%d: a changed hash %d is accepted", n, i, k)
		}
	}
	if len(p) > 0 && both(i, p[:len(p)-1]) {
		t.Fatalf("n=%d i=%d: a short proof is accepted", n, i)
	}
	if both(i, append(append([]Hash(nil), p...), tree.Root())) {
		t.Fatalf("n=%d i=%d: a long proof is accepted", n, i)
	}
	if both(-1, p) || both(n, p) {
		t.Fatalf("n=%d: an index outside the tree is accepted", n)
	}
	for j := range n {
		q, _ := tree.Proof(j)
		if got, want := both(j, p), slices.Equal(p, q); got != want {
			t.Fatalf("n=%d: the audit path of %d as a proof of %d: IsProof says %v", n, i, j, got)
		}
	}
}

// rootRecursive is RFC 9162's MTH written as the definition reads.
func rootRecursive(leaves []Hash) Hash {
	switch len(leaves) {
	case 0:
		return EmptyRoot
	case 1:
		return leaves[0]
	}
	k := 1
	for k*2 < len(leaves) {
		k *= 2
	}
	return nodeHash(rootRecursive(leaves[:k]), rootRecursive(leaves[k:]))
}

type inclusionProbe struct {
	LeafIdx  uint64   `json:"leafIdx"`
	TreeSize uint64   `json:"treeSize"`
	Root     string   `json:"root"`
	LeafHash string   `json:"leafHash"`
	Proof    []string `json:"proof"`
	Desc     string   `json:"desc"`
	WantErr  bool     `json:"wantErr"`
}

// TestInclusionProbes runs every external inclusion probe. A hash that is not
// 32 bytes cannot be represented as a Hash, so such probes fail at decoding,
// which counts as the error they want.
func TestInclusionProbes(t *testing.T) {
	dir := extdata.Path(t, "merkle", "inclusion")
	count := 0
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".json") {
			return err
		}
		count++
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		var p inclusionProbe
		if err := json.Unmarshal(b, &p); err != nil {
			return fmt.Errorf("%s: %v", path, err)
		}
		rel, _ := filepath.Rel(dir, path)
		t.Run(rel, func(t *testing.T) {
			err := verifyProbe(p)
			if gotErr := err != nil; gotErr != p.WantErr {
				t.Errorf("%s: error %v, wantErr %v", p.Desc, err, p.WantErr)
			}
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if count < 90 {
		t.Fatalf("only %d probes found", count)
	}
}

func verifyProbe(p inclusionProbe) error {
	decode := func(s string) (Hash, error) {
		var h Hash
		b, err := base64.StdEncoding.DecodeString(s)
		if err != nil {
			return h, err
		}
		if len(b) != len(h) {
			return h, fmt.Errorf("hash of %d bytes", len(b))
		}
		copy(h[:], b)
		return h, nil
	}
	root, err := decode(p.Root)
	if err != nil {
		return err
	}
	leaf, err := decode(p.LeafHash)
	if err != nil {
		return err
	}
	var proof []Hash
	for _, s := range p.Proof {
		h, err := decode(s)
		if err != nil {
			return err
		}
		proof = append(proof, h)
	}
	return VerifyInclusion(p.LeafIdx, p.TreeSize, leaf, proof, root)
}

func TestParseHash(t *testing.T) {
	good := strings.Repeat("ab", 32)
	if h, err := ParseHash(good); err != nil || h.String() != good {
		t.Errorf("ParseHash(%s) = %v, %v", good, h, err)
	}
	for _, bad := range []string{"", strings.Repeat("AB", 32), strings.Repeat("ab", 31), strings.Repeat("ab", 32) + "0", strings.Repeat("zz", 32)} {
		if _, err := ParseHash(bad); err == nil {
			t.Errorf("ParseHash(%q) accepted", bad)
		}
	}
	// Every byte value at every position of a valid hash, against
	// encoding/hex with lower-case digits only, in both forms.
	base := []byte("0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef")
	for pos := range base {
		for c := range 256 {
			in := bytes.Clone(base)
			in[pos] = byte(c)
			want, werr := hex.DecodeString(string(in))
			if bytes.ContainsAny(in, "ABCDEF") {
				werr = errors.New("upper case")
			}
			for _, got := range []func() (Hash, error){func() (Hash, error) { return ParseHash(string(in)) }, func() (Hash, error) { return ParseHashBytes(in) }} {
				h, err := got()
				if (err == nil) != (werr == nil) || err == nil && !bytes.Equal(h[:], want) {
					t.Fatalf("%q: %x, %v; encoding/hex %x, %v", in, h, err, want, werr)
				}
			}
		}
	}
}

func TestProofErrors(t *testing.T) {
	leaves := referenceLeafHashes(t)
	tree := NewTree(leaves)
	p, _ := tree.Proof(3)
	if err := VerifyInclusion(8, 8, leaves[3], p, tree.Root()); !errors.Is(err, ErrIndexOutOfRange) {
		t.Errorf("index 8 of 8: %v", err)
	}
	if err := VerifyInclusion(3, 8, leaves[3], p[:2], tree.Root()); !errors.Is(err, ErrProofSize) {
		t.Errorf("short proof: %v", err)
	}
	if err := VerifyInclusion(3, 8, leaves[3], append(p, p[0]), tree.Root()); !errors.Is(err, ErrProofSize) {
		t.Errorf("long proof: %v", err)
	}
	if _, err := tree.Proof(8); err == nil {
		t.Errorf("Proof(8) of 8 leaves succeeded")
	}
}

// TestBatch checks Batch against VerifyInclusion on random disclosures of
// trees up to 100 leaves, with and without tampering.
func TestBatch(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for n := 1; n <= 100; n++ {
		var leaves []Hash
		for i := range n {
			leaves = append(leaves, LeafHash([]byte(fmt.Sprint("leaf", i))))
		}
		tree := NewTree(leaves)
		for trial := range 20 {
			var idx []int
			for i := range n {
				if rng.IntN(3) == 0 || trial == 0 {
					idx = append(idx, i)
				}
			}
			b := NewBatch(uint64(n), tree.Root())
			tamper := -1
			if trial%2 == 1 && len(idx) > 0 {
				tamper = rng.IntN(len(idx))
			}
			for k, i := range idx {
				p, _ := tree.Proof(i)
				p = append([]Hash(nil), p...)
				leaf := leaves[i]
				if k == tamper {
					switch {
					case len(p) > 0 && rng.IntN(2) == 0:
						p[rng.IntN(len(p))][5] ^= 1
					default:
						leaf[0] ^= 1
					}
				}
				want := VerifyInclusion(uint64(i), uint64(n), leaf, p, tree.Root())
				got := b.Verify(uint64(i), leaf, p)
				if (got == nil) != (want == nil) {
					t.Fatalf("n=%d leaf %d (tampered %v): batch %v, single %v", n, i, k == tamper, got, want)
				}
				if got != nil {
					break
				}
			}
		}
	}
}

func TestBatchOrder(t *testing.T) {
	leaves := referenceLeafHashes(t)
	tree := NewTree(leaves)
	b := NewBatch(8, tree.Root())
	p3, _ := tree.Proof(3)
	p2, _ := tree.Proof(2)
	if err := b.Verify(3, leaves[3], p3); err != nil {
		t.Fatal(err)
	}
	if err := b.Verify(2, leaves[2], p2); err == nil {
		t.Fatal("a decreasing index was accepted")
	}
	if err := b.Verify(5, leaves[5], p3); err == nil {
		t.Fatal("a failed batch accepted another leaf")
	}
}

// TestTreeReset: a tree reset over other leaves, larger or smaller, is the
// tree NewTree builds over them, proofs in text included.
func TestTreeReset(t *testing.T) {
	var reused Tree
	for _, n := range []int{5, 1, 33, 0, 2, 17, 64, 3} {
		leaves := make([]Hash, n)
		for i := range leaves {
			leaves[i] = LeafHash([]byte{byte(n), byte(i)})
		}
		fresh := NewTree(leaves)
		reused.Reset(leaves)
		if reused.Root() != fresh.Root() || reused.Size() != n {
			t.Fatalf("n=%d: reset tree's head differs", n)
		}
		for i := range n {
			p, _ := fresh.Proof(i)
			q, _ := reused.Proof(i)
			text := make([][]byte, len(p))
			for k, h := range p {
				text[k] = []byte(h.String())
			}
			if !slices.Equal(p, q) || !reused.IsProofText(i, text) {
				t.Fatalf("n=%d i=%d: reset tree's proof differs", n, i)
			}
		}
	}
}
