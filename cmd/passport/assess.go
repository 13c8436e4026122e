package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/remnant/passportkit/evidence"
	"github.com/remnant/passportkit/internal/cli"
	"github.com/remnant/passportkit/passport"
	"github.com/remnant/passportkit/skilltrust"
)

// assessCmd computes skill assessments offline from evidence files.
type assessCmd struct {
	Evidence []string          `name:"evidence" required:"" placeholder:"FILE" help:"Evidence file (SPEC.md §5); repeat to compare up to 5 agents."`
	Skill    []string          `name:"skill" required:"" placeholder:"SKILL" help:"Skill to assess; repeat for up to 5 skills."`
	Context  map[string]string `name:"context" mapsep:"none" placeholder:"KEY=VALUE" help:"Task context label (domain, environment, protocol, version, workload, constraints); repeatable."`
	At       string            `name:"at" placeholder:"YYYY-MM-DD" help:"Assessment date (default: today, UTC)."`
	JSON     bool              `name:"json" help:"Print the assessments and skill passports as JSON."`
	Reader   []string          `name:"reader" sep:"," placeholder:"ACTOR,..." help:"The reader's trust set: reporter pseudonyms (act_...) as this evidence records them. Shows the issuer's view beside the reader's: the same assessment over the subject's own records and those reporters' only."`
}

// assessOutput is the JSON the command prints: a comparison in input order,
// each assessment with the skill passport it serialises to.
type assessOutput struct {
	Agents []assessedAgent `json:"agents"`
}

type assessedAgent struct {
	Evidence string          `json:"evidence"`
	Skills   []assessedSkill `json:"skills"`
	// Reader is the reader's view, with --reader.
	Reader *readerView `json:"readerView,omitempty"`
}

type assessedSkill struct {
	Assessment    *skilltrust.Assessment `json:"assessment"`
	SkillPassport passport.SkillPassport `json:"skillPassport"`
}

func (c *assessCmd) Run(e *env) error {
	var task evidence.Context
	for k, v := range c.Context {
		if !task.Set(k, v) {
			return cli.Usage(fmt.Errorf("assess: unknown context dimension %q (want one of %s)", k, strings.Join(evidence.Dimensions, ", ")))
		}
	}
	at, err := assessDate(c.At)
	if err != nil {
		return cli.Usage(err)
	}
	var trust []string
	if c.Reader != nil {
		if trust, err = checkReaderTrustSet(c.Reader); err != nil {
			return cli.Usage(err)
		}
	}
	subjects := make([]skilltrust.Subject, 0, len(c.Evidence))
	sets := make([]*evidence.Set, 0, len(c.Evidence))
	for _, path := range c.Evidence {
		set, err := readEvidence(path)
		if err != nil {
			return cli.Usage(err)
		}
		subjects = append(subjects, skilltrust.Subject{Name: path, Evidence: set})
		sets = append(sets, set)
	}
	cmp, err := skilltrust.Compare(subjects, c.Skill, task, at)
	if err != nil {
		return cli.Usage(fmt.Errorf("assess: %w (reason %s)", err, skilltrust.CodeInvalidTask))
	}
	out := assessOutput{Agents: make([]assessedAgent, 0, len(cmp.Agents))}
	for _, row := range cmp.Agents {
		agent := assessedAgent{Evidence: row.Name}
		for _, a := range row.Assessments {
			sp, err := a.SkillPassport()
			if err != nil {
				return err
			}
			agent.Skills = append(agent.Skills, assessedSkill{Assessment: a, SkillPassport: sp})
		}
		out.Agents = append(out.Agents, agent)
	}
	if trust != nil {
		if err := assessReader(&out, sets, trust, c.Skill, task, at); err != nil {
			return cli.Usage(err)
		}
	}
	if c.JSON {
		enc := json.NewEncoder(e.stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(out)
	}
	if err := printAssessments(e.stdout, out); err != nil {
		return err
	}
	printReaderViews(e.stdout, out)
	return nil
}

// assessDate parses --at, defaulting to today in UTC: the one place the
// clock is read.
func assessDate(s string) (evidence.Date, error) {
	if s == "" {
		s = time.Now().UTC().Format(time.DateOnly)
	}
	d, err := evidence.ParseDate(s)
	if err != nil {
		return evidence.Date{}, fmt.Errorf("assess: --at: %w", err)
	}
	return d, nil
}

// readEvidence reads and parses an evidence file, bounded before parsing.
func readEvidence(path string) (*evidence.Set, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("assess: %w", err)
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, evidence.MaxFileSize+1))
	if err != nil {
		return nil, fmt.Errorf("assess: %s: %w", path, err)
	}
	set, err := evidence.Parse(b)
	if err != nil {
		var ee *evidence.Error
		if errors.As(err, &ee) {
			return nil, fmt.Errorf("assess: %s: %w (reason %s)", path, err, ee.Code)
		}
		return nil, fmt.Errorf("assess: %s: %w", path, err)
	}
	return set, nil
}

// printAssessments writes the human form: per agent and skill, the headline,
// the estimate, the counts, and why.
func printAssessments(w io.Writer, out assessOutput) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	for _, agent := range out.Agents {
		for _, s := range agent.Skills {
			a := s.Assessment
			fmt.Fprintf(tw, "%s — %s (%s, %s)\n", agent.Evidence, a.Skill, a.Ontology, a.Policy)
			fmt.Fprintf(tw, "  assessment\t%s\n", a.Assessment)
			fmt.Fprintf(tw, "  state\t%s (contested: %t, stale: %t)\n", a.State, a.Contested, a.Stale)
			fmt.Fprintf(tw, "  evidence level\t%s\n", a.EvidenceLevel)
			if a.Estimate != nil {
				fmt.Fprintf(tw, "  estimate\t%.3f [%.3f, %.3f] (policy-adjusted interval, not a probability of success)\n",
					a.Estimate.Midpoint, a.Estimate.Lower, a.Estimate.Upper)
			} else {
				fmt.Fprintf(tw, "  estimate\tN/A\n")
			}
			ef := a.Effective
			fmt.Fprintf(tw, "  effective\tN %.3f, S %.3f, F %.3f; partial %.3f, uncertain %.3f; observations %.3f\n",
				ef.Binary, ef.Successes, ef.Failures, ef.Partial, ef.Uncertain, ef.Observations)
			fmt.Fprintf(tw, "  independent\t%d operators, %d validators, %d contexts\n", ef.Operators, ef.Validators, ef.Contexts)
			fmt.Fprintf(tw, "  visibility\t%s\n", a.Visibility)
			fmt.Fprintf(tw, "  calibration\t%s\n", a.Calibration.Status)
			for _, t := range a.HeldBackBy {
				fmt.Fprintf(tw, "  held back by\t%s: %.3f of %.3f\n", t.Name, t.Actual, t.Required)
			}
			for _, c := range a.Contradictions {
				fmt.Fprintf(tw, "  contradiction\t%s %s (eligible: %t)\n", c.ID, c.Status, c.Eligible)
			}
			for _, c := range a.Corrections {
				fmt.Fprintf(tw, "  correction\t%s %s after %s\n", c.ID, c.Type, c.After)
			}
			if len(a.Limitations) > 0 {
				fmt.Fprint(tw, "  limitations\t")
				for i, l := range a.Limitations {
					if i > 0 {
						fmt.Fprint(tw, ", ")
					}
					fmt.Fprint(tw, l)
				}
				fmt.Fprintln(tw)
			}
			fmt.Fprintf(tw, "  sources\t%d relevant records\n", len(a.Sources))
			for _, src := range a.Sources {
				what := string(src.Type)
				if src.Outcome != "" {
					what += " " + string(src.Outcome)
				}
				fmt.Fprintf(tw, "    %s\t%s\t%s\t%s\tweight %.4f\tapplies %.2f\tcontext %.2f\t%s\n",
					src.ID, src.Date, what, src.Quality, src.Weight, src.Applicability, src.ContextMatch.Value, src.Role)
			}
			fmt.Fprintf(tw, "  assessment hash\t%s\n\n", s.SkillPassport.AssessmentHash)
		}
	}
	return tw.Flush()
}
