package main

import (
	"encoding/json"
	"fmt"

	"github.com/remnant/passportkit/evidence"
	"github.com/remnant/passportkit/passport"
	"github.com/remnant/passportkit/verifier"
)

// EvidenceFileCheck is the outcome of checking an evidence file against a
// verified passport (SPEC.md §5.8): its records' tree head must be the
// signed evidenceRoot, and a passportHash it names must be the passport's.
type EvidenceFileCheck struct {
	OK      bool            `json:"ok"`
	Reason  passport.Reason `json:"reason"`
	Detail  string          `json:"detail"`
	Records int             `json:"records"`
	Root    string          `json:"evidenceRoot,omitempty"`
}

// evidenceFileMembers are the members of an issued passport's evidence
// file that name what it belongs to; evidence.Parse ignores them.
type evidenceFileMembers struct {
	EvidenceRoot string `json:"evidenceRoot"`
	PassportHash string `json:"passportHash"`
}

// checkEvidenceFile checks file against the verified passport res and, when
// it belongs to it, returns every leaf by index for recomputation.
func checkEvidenceFile(res *verifier.Result, file []byte) (EvidenceFileCheck, map[int][]byte) {
	fail := func(r passport.Reason, format string, a ...any) (EvidenceFileCheck, map[int][]byte) {
		return EvidenceFileCheck{Reason: r, Detail: fmt.Sprintf(format, a...)}, nil
	}
	if len(file) > evidence.MaxFileSize {
		return fail(passport.ReasonEvidence, "the evidence file is over %d bytes", evidence.MaxFileSize)
	}
	set, err := evidence.Parse(file)
	if err != nil {
		return fail(passport.ReasonEvidence, "%v", err)
	}
	var named evidenceFileMembers
	if err := json.Unmarshal(file, &named); err != nil {
		return fail(passport.ReasonEvidence, "%v", err)
	}
	recs := set.Records()
	leaves := make(map[int][]byte, len(recs))
	hashes := make([]evidence.Hash, len(recs))
	var lh evidence.LeafHasher
	for i, r := range recs {
		leaf, err := r.Canonical()
		if err != nil {
			return fail(passport.ReasonEvidence, "evidence[%d]: %v", i, err)
		}
		leaves[i], hashes[i] = leaf, lh.Sum(leaf)
	}
	root := evidence.NewTree(hashes).Root().String()
	switch {
	case named.PassportHash != "" && named.PassportHash != res.PassportHash:
		return fail(passport.ReasonHashMismatch, "the evidence file belongs to passport %s, not %s", named.PassportHash, res.PassportHash)
	case root != res.EvidenceRoot:
		return fail(passport.ReasonEvidenceRoot, "the %d records of the evidence file have the root %s; the passport signs %s", len(recs), root, res.EvidenceRoot)
	case named.EvidenceRoot != "" && named.EvidenceRoot != root:
		return fail(passport.ReasonEvidenceRoot, "the evidence file names the root %s; its records have %s", named.EvidenceRoot, root)
	}
	return EvidenceFileCheck{OK: true, Reason: passport.ReasonOK, Records: len(recs), Root: root,
		Detail: fmt.Sprintf("%d records; their root is the signed evidenceRoot", len(recs))}, leaves
}
