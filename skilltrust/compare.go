package skilltrust

import (
	"fmt"

	"github.com/remnant/passportkit/evidence"
)

// Subject is one agent in a comparison: a caller-chosen name and its
// evidence.
type Subject struct {
	Name     string
	Evidence *evidence.Set
}

// Comparison puts up to MaxCompareAgents agents' assessments of up to
// MaxCompareSkills skills side by side, in the order given. It ranks
// nothing.
type Comparison struct {
	Agents []ComparedAgent `json:"agents"`
}

// ComparedAgent is one row of a comparison: the agent's assessments, in the
// order of the skills asked for.
type ComparedAgent struct {
	Name        string        `json:"name"`
	Assessments []*Assessment `json:"assessments"`
}

// Compare assesses each skill for each subject in ctx as of at, keeping the
// input order of both.
func Compare(subjects []Subject, skills []string, ctx evidence.Context, at evidence.Date) (*Comparison, error) {
	switch {
	case len(subjects) == 0 || len(subjects) > MaxCompareAgents:
		return nil, fmt.Errorf("%w: a comparison takes 1 to %d agents, not %d", ErrTask, MaxCompareAgents, len(subjects))
	case len(skills) == 0 || len(skills) > MaxCompareSkills:
		return nil, fmt.Errorf("%w: a comparison takes 1 to %d skills, not %d", ErrTask, MaxCompareSkills, len(skills))
	}
	c := &Comparison{Agents: make([]ComparedAgent, 0, len(subjects))}
	for _, s := range subjects {
		row := ComparedAgent{Name: s.Name}
		for _, sk := range skills {
			a, err := Assess(s.Evidence, Task{Skill: sk, Context: ctx}, at)
			if err != nil {
				return nil, err
			}
			row.Assessments = append(row.Assessments, a)
		}
		c.Agents = append(c.Agents, row)
	}
	return c, nil
}
