package main

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/remnant/passportkit/skilltrust"
	"github.com/remnant/passportkit/verifier"
)

// recomputeSkills re-derives every skill passport of a verified bundle from
// its disclosed evidence (SPEC.md §4.15), or from leaves, every leaf of a
// checked evidence file, when not nil.
func recomputeSkills(res *verifier.Result, leaves map[int][]byte) ([]skilltrust.Recomputed, error) {
	p, err := res.Decode()
	if err != nil {
		return nil, err
	}
	if leaves == nil {
		leaves = make(map[int][]byte, len(res.Evidence))
		for _, l := range res.Evidence {
			leaves[l.Index] = l.Record
		}
	}
	return skilltrust.RecomputeAs(p.TrustModelVersion, p.SkillPassports, p.EvidenceCount, leaves), nil
}

// printEvidenceFile writes the evidence file's check.
func printEvidenceFile(w io.Writer, c *EvidenceFileCheck) {
	if c.OK {
		fmt.Fprintf(w, "\nevidence file: ok, %s\n", c.Detail)
		return
	}
	fmt.Fprintf(w, "\nevidence file: FAIL %s: %s\n", c.Reason, c.Detail)
}

// printRecomputed writes one line per skill passport.
func printRecomputed(w io.Writer, rs []skilltrust.Recomputed) {
	fmt.Fprintf(w, "\nrecompute: %d skill passports\n", len(rs))
	for _, r := range rs {
		line := fmt.Sprintf("  %-13s %s", r.Status, r.Skill)
		if r.Detail != "" {
			line += ": " + r.Detail
		}
		fmt.Fprintln(w, line)
	}
}

// recomputeError fails a verification whose recomputed skill passports
// differ from the signed ones or cannot follow from the evidence; skills
// whose evidence is not all disclosed are reported, not failed.
func recomputeError(rs []skilltrust.Recomputed) error {
	var bad []string
	for _, r := range rs {
		if r.Status == skilltrust.RecomputeDiffers || r.Status == skilltrust.RecomputeUnverifiable {
			bad = append(bad, fmt.Sprintf("%s (%s: %s)", r.Skill, r.Status, r.Detail))
		}
	}
	if len(bad) == 0 {
		return nil
	}
	return errors.New("recompute: " + strings.Join(bad, "; "))
}
