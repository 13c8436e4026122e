package verifier

import (
	"encoding/json"
	"strconv"

	"github.com/remnant/passportkit/evidence"
	"github.com/remnant/passportkit/internal/cjson"
	"github.com/remnant/passportkit/passport"
)

// evidence checks the disclosed evidence in three passes, so that a bundle
// with several faults gets one reason (SPEC.md §11.2 step 18): first the
// shape of every entry in order (evidence_malformed), then the root
// (evidence_root_mismatch), then each entry in order, its proof
// (evidence_proof_invalid) and then its numbers (json_not_canonical).
func (r *run) evidence() *passport.Error {
	entries := r.bufs.entries[:0]
	text := r.bufs.proofText[:0]
	defer func() {
		clear(text) // they point into the input
		r.bufs.entries, r.bufs.proofText = entries[:0], text[:0]
	}()
	last := -1
	for e := range r.disclosed.Elements() {
		var index, leaf, proof cjson.Value
		n := 0
		for k, val := range e.Members() {
			n++
			switch string(name(k)) {
			case "index":
				index = val
			case "leaf":
				leaf = val
			case "proof":
				proof = val
			}
		}
		i, ok := index.Int()
		switch {
		case e.Kind() != cjson.Object || n != 3 || leaf.Kind() != cjson.Object || proof.Kind() != cjson.Array:
			return fail(passport.ReasonEvidence, "entry %d must hold exactly index, leaf (an object) and proof (an array)", len(entries))
		case !ok || i < 0 || i >= int64(r.count):
			return fail(passport.ReasonEvidence, "entry %d: index must be an integer below evidenceCount %d", len(entries), r.count)
		case int(i) <= last:
			return fail(passport.ReasonEvidence, "entry %d: indices must increase", len(entries))
		case proof.Len() > evidence.MaxProofLen:
			return fail(passport.ReasonEvidence, "entry %d: a proof holds at most %d hashes", len(entries), evidence.MaxProofLen)
		}
		start := len(text)
		for h := range proof.Elements() {
			s, ok := h.RawText()
			if !ok {
				return fail(passport.ReasonEvidence, "entry %d: proof hashes must be strings", len(entries))
			}
			text = append(text, s)
		}
		last = int(i)
		entries = append(entries, entry{index: int(i), leaf: leaf, proof: [2]int{start, len(text)}})
	}
	if r.count == 0 && r.root != evidence.EmptyRoot {
		return fail(passport.ReasonEvidenceRoot, "evidenceRoot is not the root of an empty tree")
	}
	hasher := &r.bufs.hasher
	// tree is the whole tree when every leaf is disclosed: its head must
	// be the root, and each proof must then be its leaf's audit path in
	// it, which a comparison of text settles without decoding or hashing
	// (evidence.Tree.IsProofText): a proof equal to the path's text is
	// also well formed. When every proof is, the proofs are not decoded.
	var tree *evidence.Tree
	if len(entries) == r.count && r.count > 0 {
		tree = &r.bufs.tree
		hashes := r.bufs.hashes[:0]
		for i := range entries {
			entries[i].hash = hasher.Sum(entries[i].leaf.Raw())
			hashes = append(hashes, entries[i].hash)
		}
		r.bufs.hashes = hashes
		tree.Reset(hashes)
		if tree.Root() == r.root && r.everyPath(tree, entries, text) {
			return r.disclose(entries, false)
		}
	}
	// Otherwise the passes as SPEC.md orders them: every proof hash's
	// form, the root, then the proofs.
	proofs := r.bufs.proofs[:0]
	defer func() { r.bufs.proofs = proofs[:0] }()
	for k, s := range text {
		ph, err := evidence.ParseHashBytes(s)
		if err != nil {
			return fail(passport.ReasonEvidence, "entry %d: a proof hash must be 64 lower-case hex digits", entryOf(entries, k))
		}
		proofs = append(proofs, ph)
	}
	if tree != nil && tree.Root() != r.root {
		return fail(passport.ReasonEvidenceRoot, "the disclosed leaves do not form a tree with root evidenceRoot")
	}
	// batch checks the proofs by hashing: all of them when some leaf is
	// not disclosed; otherwise, from the first proof that is not its
	// leaf's audit path on, after the earlier ones, so that its outcome
	// and its error are what checking every proof by hashing gives.
	var batch *evidence.Batch
	for k, e := range entries {
		proof := proofs[e.proof[0]:e.proof[1]]
		if tree == nil {
			e.hash = hasher.Sum(e.leaf.Raw())
			entries[k].hash = e.hash
		}
		if tree == nil || batch != nil || !tree.IsProof(e.index, proof) {
			if batch == nil {
				batch = evidence.NewBatch(uint64(r.count), r.root)
				for _, d := range entries[:k] {
					if err := batch.Verify(uint64(d.index), d.hash, proofs[d.proof[0]:d.proof[1]]); err != nil {
						return fail(passport.ReasonEvidenceProof, "leaf %d: %v", d.index, err)
					}
				}
			}
			if err := batch.Verify(uint64(e.index), e.hash, proof); err != nil {
				return fail(passport.ReasonEvidenceProof, "leaf %d: %v", e.index, err)
			}
		}
		// A leaf's numbers are checked once its proof verified, in entry
		// order, before the next proof.
		if err := r.doc.CheckNumbers(e.leaf); err != nil {
			return asError(passport.JSONError(err))
		}
	}
	return r.disclose(entries, true)
}

// disclose checks, unless checked, each leaf's numbers in entry order
// (json_not_canonical), and records the leaves as the result's.
func (r *run) disclose(entries []entry, checked bool) *passport.Error {
	r.leaves = make([]Leaf, 0, len(entries))
	for _, e := range entries {
		if !checked {
			if err := r.doc.CheckNumbers(e.leaf); err != nil {
				return asError(passport.JSONError(err))
			}
		}
		r.leaves = append(r.leaves, Leaf{Index: e.index, Record: json.RawMessage(e.leaf.Raw())})
	}
	r.detail = strconv.Itoa(len(entries)) + " of " + strconv.Itoa(r.count) + " leaves disclosed"
	return nil
}

// everyPath reports whether every entry's proof is, as text, its leaf's
// audit path in tree.
func (r *run) everyPath(tree *evidence.Tree, entries []entry, text [][]byte) bool {
	for _, e := range entries {
		if !tree.IsProofText(e.index, text[e.proof[0]:e.proof[1]]) {
			return false
		}
	}
	return true
}

// entryOf is the position of the entry that holds proof hash k.
func entryOf(entries []entry, k int) int {
	for i, e := range entries {
		if k < e.proof[1] {
			return i
		}
	}
	return len(entries)
}

// entry is one disclosed evidence leaf as the evidence check reads it.
type entry struct {
	index int
	leaf  cjson.Value
	proof [2]int // its hashes, a range of buffers.proofs
	hash  evidence.Hash
}
