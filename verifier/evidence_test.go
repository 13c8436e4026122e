package verifier_test

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/remnant/passportkit/evidence"
	"github.com/remnant/passportkit/passport"
)

// TestEvidenceProofsAllDisclosed pins the outcome of the evidence check
// when every leaf is disclosed, where each proof is compared with its
// leaf's audit path instead of hashed: for proofs changed in every way,
// the result must be what checking every proof in order with an
// evidence.Batch gives, reason and detail alike.
func TestEvidenceProofsAllDisclosed(t *testing.T) {
	f := newBenchFixture(t)
	var recs []json.RawMessage
	var disclose []int
	for i := range 11 {
		recs = append(recs, benchRecord(i))
		disclose = append(disclose, i)
	}
	signed, err := passport.NewSigner(f.key).Sign(benchPassport(1, 1), recs, disclose)
	if err != nil {
		t.Fatal(err)
	}
	var good passport.Bundle
	if err := json.Unmarshal(signed, &good); err != nil {
		t.Fatal(err)
	}
	if res := f.verify(t, signed); !res.Verified {
		t.Fatalf("the bundle does not verify: %s", res.Reason)
	}
	var root evidence.Hash
	var snap struct {
		Passport struct {
			EvidenceRoot evidence.Hash `json:"evidenceRoot"`
		} `json:"passport"`
	}
	if err := json.Unmarshal(good.Snapshot, &snap); err != nil {
		t.Fatal(err)
	}
	root = snap.Passport.EvidenceRoot
	proofOf := func(d passport.Disclosure) []evidence.Hash { return append([]evidence.Hash(nil), d.Proof...) }
	edits := map[string]func(ds []passport.Disclosure, k int){
		"a bit of the first hash": func(ds []passport.Disclosure, k int) { ds[k].Proof[0][0] ^= 1 },
		"a bit of the last hash":  func(ds []passport.Disclosure, k int) { ds[k].Proof[len(ds[k].Proof)-1][31] ^= 0x80 },
		"the last hash left out":  func(ds []passport.Disclosure, k int) { ds[k].Proof = ds[k].Proof[:len(ds[k].Proof)-1] },
		"a hash added":            func(ds []passport.Disclosure, k int) { ds[k].Proof = append(proofOf(ds[k]), ds[k].Proof[0]) },
		"the root added":          func(ds []passport.Disclosure, k int) { ds[k].Proof = append(proofOf(ds[k]), root) },
		"the next leaf's proof":   func(ds []passport.Disclosure, k int) { ds[k].Proof = proofOf(ds[(k+1)%len(ds)]) },
		"two hashes swapped": func(ds []passport.Disclosure, k int) {
			p := proofOf(ds[k])
			p[0], p[1] = p[1], p[0]
			ds[k].Proof = p
		},
	}
	for name, edit := range edits {
		for k := range good.Evidence {
			t.Run(fmt.Sprintf("%s/entry %d", name, k), func(t *testing.T) {
				b := good
				b.Evidence = make([]passport.Disclosure, len(good.Evidence))
				for i, d := range good.Evidence {
					d.Proof = proofOf(d)
					b.Evidence[i] = d
				}
				edit(b.Evidence, k)
				want := batchOutcome(t, b.Evidence, root)
				in, err := b.Encode()
				if err != nil {
					t.Fatal(err)
				}
				res := f.verify(t, in)
				got := ""
				for _, c := range res.Checks {
					if c.Name == "evidence" && !c.OK {
						got = string(c.Reason) + ": " + c.Detail
					}
				}
				if got != want {
					t.Fatalf("evidence check %q, want %q", got, want)
				}
			})
		}
	}
}

// batchOutcome is the evidence check's outcome from hashing every proof in
// order with one evidence.Batch.
func batchOutcome(t *testing.T, ds []passport.Disclosure, root evidence.Hash) string {
	t.Helper()
	b := evidence.NewBatch(uint64(len(ds)), root)
	for _, d := range ds {
		canon, err := passport.Canonicalize(d.Leaf)
		if err != nil {
			t.Fatal(err)
		}
		if err := b.Verify(uint64(d.Index), evidence.LeafHash(canon), d.Proof); err != nil {
			return fmt.Sprintf("%s: leaf %d: %v", passport.ReasonEvidenceProof, d.Index, err)
		}
	}
	return ""
}
