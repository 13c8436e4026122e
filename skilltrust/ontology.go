package skilltrust

import (
	"bytes"
	"embed"
	"encoding/json"
	"fmt"
	"strings"
	"sync"

	"github.com/remnant/passportkit/evidence"
)

// Applicability of evidence about one skill to a task about another, under
// skills-1. These are conservative, versioned policy gates, not learned
// probabilities.
const (
	ApplicabilityExact         = 1.0  // the same normalised skill
	ApplicabilityChildToParent = 0.75 // evidence on a child, task on its parent
	ApplicabilityParentToChild = 0.35 // evidence on a parent, task on its child
	ApplicabilitySibling       = 0.2  // two children of one parent
)

//go:embed ontology/*.json
var ontologyFiles embed.FS

// Skill is a normalised skill term.
type Skill struct {
	// Name is the canonical name of a known skill ("PostgreSQL indexing"),
	// or the normalised term itself for an unknown one.
	Name string `json:"name"`
	// Known reports whether the ontology defines the skill.
	Known bool `json:"known"`
	// Parent is the canonical name of the skill's parent, if any.
	Parent string `json:"parent,omitempty"`
}

// Ontology is a versioned skill vocabulary: canonical skills in a tree, and
// aliases folding other spellings into them. Its data is embedded and
// immutable; a change of meaning is a new version, never an edit.
type Ontology struct {
	version string
	skills  map[string]Skill // by normalised name
	aliases map[string]string
	longest int // words in the longest alias
}

// ontologyFile is the JSON form of an ontology.
type ontologyFile struct {
	Version string `json:"version"`
	Skills  []struct {
		Name   string `json:"name"`
		Parent string `json:"parent,omitempty"`
	} `json:"skills"`
	Aliases []struct {
		From string `json:"from"`
		To   string `json:"to"`
	} `json:"aliases"`
}

// skills1 is parsed on first use, not at package initialisation: a
// program that links skilltrust but assesses nothing (passport verify)
// does not pay for it.
var skills1 = sync.OnceValue(func() *Ontology { return mustLoadOntology("ontology/skills-1.json") })

// Skills1 returns the skills-1 ontology.
func Skills1() *Ontology { return skills1() }

func mustLoadOntology(name string) *Ontology {
	b, err := ontologyFiles.ReadFile(name)
	if err != nil {
		panic(err)
	}
	o, err := parseOntology(b)
	if err != nil {
		panic(fmt.Sprintf("skilltrust: embedded %s: %v", name, err))
	}
	return o
}

// parseOntology reads and checks an ontology file: every name and alias is
// already in normal form apart from letter case, names are unique, and a
// parent is defined before its children, so the skills form a tree.
func parseOntology(b []byte) (*Ontology, error) {
	var f ontologyFile
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&f); err != nil {
		return nil, err
	}
	if f.Version == "" {
		return nil, fmt.Errorf("no version")
	}
	o := &Ontology{version: f.Version, skills: map[string]Skill{}, aliases: map[string]string{}}
	for _, s := range f.Skills {
		key := evidence.NormalizeLabel(s.Name)
		if key == "" || key != strings.ToLower(s.Name) {
			return nil, fmt.Errorf("skill %q is not in normal form", s.Name)
		}
		if _, dup := o.skills[key]; dup {
			return nil, fmt.Errorf("skill %q is defined twice", s.Name)
		}
		if s.Parent != "" {
			p, ok := o.skills[evidence.NormalizeLabel(s.Parent)]
			if !ok || p.Name != s.Parent {
				return nil, fmt.Errorf("skill %q: parent %q is not defined before it", s.Name, s.Parent)
			}
		}
		o.skills[key] = Skill{Name: s.Name, Known: true, Parent: s.Parent}
	}
	for _, a := range f.Aliases {
		from, to := evidence.NormalizeLabel(a.From), evidence.NormalizeLabel(a.To)
		if from == "" || from != a.From || to == "" || to != a.To {
			return nil, fmt.Errorf("alias %q -> %q is not in normal form", a.From, a.To)
		}
		if _, dup := o.aliases[from]; dup {
			return nil, fmt.Errorf("alias %q is defined twice", a.From)
		}
		o.aliases[from] = to
		o.longest = max(o.longest, strings.Count(from, " ")+1)
	}
	return o, nil
}

// Version returns the ontology's version, such as "skills-1".
func (o *Ontology) Version() string { return o.version }

// Normalize maps a skill term to its skill: the term is put in normal form
// (evidence.NormalizeLabel), aliases are folded word-wise in one left-to-
// right pass preferring the longest alias at each word, and the result is
// looked up. An unknown term normalises to itself and is never assigned to
// another skill.
func (o *Ontology) Normalize(term string) Skill {
	words := strings.Split(evidence.NormalizeLabel(term), " ")
	out := make([]string, 0, len(words))
	for i := 0; i < len(words); {
		n := min(o.longest, len(words)-i)
		for ; n > 0; n-- {
			if to, ok := o.aliases[strings.Join(words[i:i+n], " ")]; ok {
				out = append(out, to)
				break
			}
		}
		if n == 0 {
			out = append(out, words[i])
			n = 1
		}
		i += n
	}
	key := strings.Join(out, " ")
	if s, ok := o.skills[key]; ok {
		return s
	}
	return Skill{Name: key}
}

// Applicability returns how far evidence about skill e applies to a task
// about skill t: 1 for the same skill, ApplicabilityChildToParent when e is
// a child of t, ApplicabilityParentToChild when e is t's parent,
// ApplicabilitySibling for two children of one parent, and 0 otherwise,
// including for grandparents and for any pair with an unknown skill that is
// not the same term.
func Applicability(e, t Skill) float64 {
	switch {
	case e.Name == t.Name:
		return ApplicabilityExact
	case !e.Known || !t.Known:
		return 0
	case e.Parent == t.Name:
		return ApplicabilityChildToParent
	case t.Parent == e.Name:
		return ApplicabilityParentToChild
	case e.Parent != "" && e.Parent == t.Parent:
		return ApplicabilitySibling
	}
	return 0
}
