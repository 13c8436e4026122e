package skilltrust

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/remnant/passportkit/evidence"
	"github.com/remnant/passportkit/passport"
)

// Recomputation statuses.
const (
	// RecomputeMatch: the recomputed skill passport equals the one signed.
	RecomputeMatch = "match"
	// RecomputeDiffers: the recomputed skill passport differs.
	RecomputeDiffers = "differs"
	// RecomputeUnverifiable: every leaf is disclosed, but they are not
	// valid evidence for the skill passport (malformed records, or no
	// assessment date), so its figures cannot follow from them.
	RecomputeUnverifiable = "unverifiable"
	// RecomputeNotDisclosed: some of the passport's evidence is not
	// disclosed, and an undisclosed record could change any figure.
	RecomputeNotDisclosed = "not_disclosed"
)

// Recomputed is the result of recomputing one skill passport.
type Recomputed struct {
	Skill  string `json:"skill"`
	Status string `json:"status"`
	// Detail says why, for people.
	Detail string `json:"detail,omitempty"`
	// Differences names the members that differ.
	Differences []string `json:"differences,omitempty"`
}

// Recompute re-derives each skill passport of a verified passport from its
// disclosed evidence: leaves maps leaf index to the leaf's canonical JSON,
// and count is the passport's evidenceCount. A skill passport is recomputed
// only when every leaf is disclosed. Each is assessed as of its assessedAt,
// for its skill with no task context, from a set marked truncated exactly
// when the skill passport names the truncated_collection limitation (which
// can only weaken what it claims).
//
// Recompute assumes skill passports of the trust model version this package
// writes; RecomputeAs takes the version the passport names.
func Recompute(skills []passport.SkillPassport, count int, leaves map[int][]byte) []Recomputed {
	return RecomputeAs(passport.TrustModelVersion, skills, count, leaves)
}

// RecomputeAs is Recompute for skill passports of the trust model version
// a passport names ("" for a passport from before the trust model, read as
// 2.0). Each is recomputed in that version's form (SkillPassportAs). A
// skill passport of a later minor version than this package knows is
// compared on the members this package writes other than assessmentHash,
// which also covers the members it does not know; the detail of its match
// says that members added later, and the hash, were not recomputed.
func RecomputeAs(version string, skills []passport.SkillPassport, count int, leaves map[int][]byte) []Recomputed {
	out := make([]Recomputed, 0, len(skills))
	if _, err := trustModelMinor(version); err != nil {
		for _, sp := range skills {
			out = append(out, Recomputed{Skill: sp.Skill, Status: RecomputeUnverifiable, Detail: err.Error()})
		}
		return out
	}
	status := func(sp passport.SkillPassport, s, format string, a ...any) {
		out = append(out, Recomputed{Skill: sp.Skill, Status: s, Detail: fmt.Sprintf(format, a...)})
	}
	if len(leaves) != count {
		for _, sp := range skills {
			status(sp, RecomputeNotDisclosed, "%d of the passport's %d evidence records are disclosed", len(leaves), count)
		}
		return out
	}
	recs := make([]evidence.Record, count)
	var parseErr error
	for i := range count {
		leaf, ok := leaves[i]
		if !ok {
			parseErr = fmt.Errorf("leaf %d is missing", i)
			break
		}
		r, err := evidence.ParseRecord(leaf)
		if err != nil {
			parseErr = fmt.Errorf("leaf %d: %w", i, err)
			break
		}
		recs[i] = r
	}
	sets := map[bool]*evidence.Set{}
	setFor := func(truncated bool) (*evidence.Set, error) {
		if s, ok := sets[truncated]; ok {
			return s, nil
		}
		s, err := evidence.NewSet(recs, truncated)
		if err != nil {
			return nil, err
		}
		sets[truncated] = s
		return s, nil
	}
	for _, sp := range skills {
		if parseErr != nil {
			status(sp, RecomputeUnverifiable, "the evidence is not a valid evidence set: %v", parseErr)
			continue
		}
		at, err := evidence.ParseDate(sp.AssessedAt)
		if err != nil {
			status(sp, RecomputeUnverifiable, "assessedAt: %v", err)
			continue
		}
		set, err := setFor(slices.Contains(sp.Limitations, string(LimitTruncated)))
		if err != nil {
			status(sp, RecomputeUnverifiable, "the evidence is not a valid evidence set: %v", err)
			continue
		}
		a, err := Assess(set, Task{Skill: sp.Skill}, at)
		if err != nil {
			status(sp, RecomputeUnverifiable, "%v", err)
			continue
		}
		again, err := a.SkillPassportAs(version)
		if err != nil {
			status(sp, RecomputeUnverifiable, "%v", err)
			continue
		}
		later := laterMinor(version)
		if later {
			// The signed hash covers members this package does not know,
			// so it cannot be recomputed: the verifier checked it over the
			// signed bytes, and the members it covers are compared here.
			sp.AssessmentHash, again.AssessmentHash = "", ""
		}
		diff, err := differences(sp, again)
		switch {
		case err != nil:
			status(sp, RecomputeUnverifiable, "%v", err)
		case len(diff) > 0:
			out = append(out, Recomputed{Skill: sp.Skill, Status: RecomputeDiffers, Differences: diff,
				Detail: fmt.Sprintf("recomputed from the evidence, the skill passport differs in %v", diff)})
		case later:
			status(sp, RecomputeMatch, "members added after trust model %s, and the assessmentHash that covers them, are not recomputed", passport.TrustModelVersion)
		default:
			out = append(out, Recomputed{Skill: sp.Skill, Status: RecomputeMatch})
		}
	}
	return out
}

// laterMinor reports whether version is a later minor version than the one
// this package writes.
func laterMinor(version string) bool {
	_, minor, _ := strings.Cut(version, ".")
	_, latest, _ := strings.Cut(passport.TrustModelVersion, ".")
	m, err1 := strconv.Atoi(minor)
	l, err2 := strconv.Atoi(latest)
	return err1 == nil && err2 == nil && m > l
}

// differences names the members of two skill passports whose canonical
// JSON differs, sorted.
func differences(signed, recomputed passport.SkillPassport) ([]string, error) {
	members := func(sp passport.SkillPassport) (map[string]json.RawMessage, error) {
		b, err := passport.Marshal(sp)
		if err != nil {
			return nil, err
		}
		var m map[string]json.RawMessage
		return m, json.Unmarshal(b, &m)
	}
	a, err := members(signed)
	if err != nil {
		return nil, err
	}
	b, err := members(recomputed)
	if err != nil {
		return nil, err
	}
	var diff []string
	for k, v := range a {
		if !bytes.Equal(v, b[k]) {
			diff = append(diff, k)
		}
	}
	for k := range b {
		if _, ok := a[k]; !ok {
			diff = append(diff, k)
		}
	}
	slices.Sort(diff)
	return diff, nil
}
