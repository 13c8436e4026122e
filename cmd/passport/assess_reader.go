package main

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/remnant/passportkit/evidence"
	"github.com/remnant/passportkit/skilltrust"
)

// maxReaderTrustSet bounds --reader.
const maxReaderTrustSet = 1000

// readerView is the reader's view of one evidence file beside the issuer's:
// the same assessment computed over the subject's own records and the
// records of the reporters the reader trusts, and nothing else. Reporters
// are per-passport pseudonyms (SPEC.md §5.2), so a reader names them as they
// appear in this evidence: the trust set means "these reporters of this
// passport", never an actor across passports.
type readerView struct {
	// TrustSet is the reader's trust set as given, sorted.
	TrustSet []string `json:"trustSet"`
	// UnknownTrustSet lists trust-set pseudonyms that report nothing in
	// this evidence.
	UnknownTrustSet []string `json:"unknownTrustSet"`
	// Records counts the evidence; Kept those the reader's view keeps
	// (the subject's own and the trusted reporters'); Dropped the rest.
	Records int             `json:"records"`
	Kept    int             `json:"kept"`
	Dropped int             `json:"dropped"`
	Skills  []assessedSkill `json:"skills"`
}

// checkReaderTrustSet validates --reader: 1 to maxReaderTrustSet reporter
// pseudonyms (act_…), each once.
func checkReaderTrustSet(ids []string) ([]string, error) {
	ids = slices.DeleteFunc(slices.Clone(ids), func(s string) bool { return strings.TrimSpace(s) == "" })
	if len(ids) == 0 {
		return nil, fmt.Errorf("assess: --reader is empty: a trust set names the reporters (act_… pseudonyms, as this evidence records them) whose reports you trust")
	}
	if len(ids) > maxReaderTrustSet {
		return nil, fmt.Errorf("assess: --reader lists %d reporters, more than %d", len(ids), maxReaderTrustSet)
	}
	out := slices.Clone(ids)
	slices.Sort(out)
	for i, id := range out {
		if !strings.HasPrefix(id, "act_") || len(id) > 68 || len(id) < 5 {
			return nil, fmt.Errorf("assess: --reader: %q is not a reporter pseudonym (act_…)", id)
		}
		if i > 0 && out[i-1] == id {
			return nil, fmt.Errorf("assess: --reader lists %s twice", id)
		}
	}
	return out, nil
}

// readerSubject returns the subject as the reader sees it: the records of
// the subject itself and of the trusted reporters. A reporter's records
// reference only its own (mirrorOf, resolves), so the subset is a valid set.
func readerSubject(set *evidence.Set, trust []string) (*evidence.Set, *readerView, error) {
	view := &readerView{TrustSet: trust, UnknownTrustSet: []string{}}
	seen := map[string]bool{}
	var kept []evidence.Record
	for _, r := range set.Records() {
		view.Records++
		trusted := slices.Contains(trust, r.Reporter)
		if trusted {
			seen[r.Reporter] = true
		}
		if trusted || r.Ownership == evidence.OwnershipSelf {
			kept = append(kept, r)
		}
	}
	for _, id := range trust {
		if !seen[id] {
			view.UnknownTrustSet = append(view.UnknownTrustSet, id)
		}
	}
	view.Kept, view.Dropped = len(kept), view.Records-len(kept)
	sub, err := evidence.NewSet(kept, set.Truncated())
	if err != nil {
		return nil, nil, fmt.Errorf("assess: the reader's view: %w", err)
	}
	return sub, view, nil
}

// assessReader fills each agent's reader view.
func assessReader(out *assessOutput, sets []*evidence.Set, trust []string, skills []string, task evidence.Context, at evidence.Date) error {
	for i, set := range sets {
		sub, view, err := readerSubject(set, trust)
		if err != nil {
			return err
		}
		cmp, err := skilltrust.Compare([]skilltrust.Subject{{Name: out.Agents[i].Evidence, Evidence: sub}}, skills, task, at)
		if err != nil {
			return fmt.Errorf("assess: %w (reason %s)", err, skilltrust.CodeInvalidTask)
		}
		for _, a := range cmp.Agents[0].Assessments {
			sp, err := a.SkillPassport()
			if err != nil {
				return err
			}
			view.Skills = append(view.Skills, assessedSkill{Assessment: a, SkillPassport: sp})
		}
		out.Agents[i].Reader = view
	}
	return nil
}

// printReaderViews writes, per agent and skill, the issuer's view and the
// reader's view side by side.
func printReaderViews(w io.Writer, out assessOutput) {
	for _, agent := range out.Agents {
		v := agent.Reader
		if v == nil {
			continue
		}
		fmt.Fprintf(w, "%s — issuer's view and reader's view\n", agent.Evidence)
		fmt.Fprintf(w, "  reader's trust set: %s; reports nothing here: %s\n", strings.Join(v.TrustSet, ", "), orNone(v.UnknownTrustSet))
		fmt.Fprintf(w, "  records: %d in the evidence, %d kept (the subject's own and trusted reporters'), %d dropped\n", v.Records, v.Kept, v.Dropped)
		fmt.Fprintf(w, "  %-24s %-44s %s\n", "skill", "issuer's view", "reader's view")
		for i, s := range agent.Skills {
			r := v.Skills[i].Assessment
			a := s.Assessment
			fmt.Fprintf(w, "  %-24s %-44s %s\n", a.Skill, viewLine(a), viewLine(r))
		}
		fmt.Fprintln(w)
	}
}

func viewLine(a *skilltrust.Assessment) string {
	est := "N/A"
	if a.Estimate != nil {
		est = fmt.Sprintf("%.3f", a.Estimate.Midpoint)
	}
	return fmt.Sprintf("%s, %s, estimate %s, %d operators", a.State, a.EvidenceLevel, est, a.Effective.Operators)
}

func orNone(s []string) string {
	if len(s) == 0 {
		return "none"
	}
	return strings.Join(s, ", ")
}
