package skilltrust

import (
	"cmp"
	"slices"

	"github.com/remnant/passportkit/evidence"
)

// scope restricts an assessment to the records that can be relevant to its
// task: order lists them latest first, then by id, as Set.ByDate does, and
// later counts every record of the set dated after the assessment day.
// clusters, when set, are the set's lineage clusters as of the assessment
// day, computed once for all of AssessSkills' tasks.
type scope struct {
	order    []int
	later    int
	clusters *evidence.Clusters
}

// AssessSkills assesses each task from set as of at, as Assess does task by
// task, with the same results, in one pass over the evidence: the records
// are grouped by normalised skill once, and each task reads only the groups
// whose skill applies to it. An issuer assesses all of a subject's skills
// this way; 50 skills at the collection limits cost little more than one.
func AssessSkills(set *evidence.Set, tasks []Task, at evidence.Date) ([]*Assessment, error) {
	out := make([]*Assessment, 0, len(tasks))
	err := eachScope(set, tasks, at, func(task Task, sc *scope) error {
		a, err := assess(set, task, at, sc)
		if err != nil {
			return err
		}
		out = append(out, a)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// eachScope calls f for each task, in order, with the scope of the records
// that can be relevant to it; the records are grouped by normalised skill
// once for all tasks.
func eachScope(set *evidence.Set, tasks []Task, at evidence.Date, f func(Task, *scope) error) error {
	o := Skills1()
	type group struct {
		skill Skill
		order []int // record indices, in Set.ByDate order
	}
	var groups []*group
	byTerm := map[string]*group{} // raw term -> its normalised skill's group
	byName := map[string]*group{}
	rank := make([]int, len(set.Records())) // position in Set.ByDate
	later := 0
	recs := set.Records()
	for pos, i := range set.ByDate() {
		rank[i] = pos
		r := &recs[i]
		if at.Sub(r.Date) < 0 {
			later++
		}
		g, ok := byTerm[r.Skill]
		if !ok {
			sk := o.Normalize(r.Skill)
			if g, ok = byName[sk.Name]; !ok {
				g = &group{skill: sk}
				byName[sk.Name] = g
				groups = append(groups, g)
			}
			byTerm[r.Skill] = g
		}
		g.order = append(g.order, i)
	}

	clusters := set.ClustersAsOf(at)
	for _, task := range tasks {
		ts := o.Normalize(task.Skill)
		var relevant [][]int
		for _, g := range groups {
			if Applicability(g.skill, ts) > 0 {
				relevant = append(relevant, g.order)
			}
		}
		var order []int
		if len(relevant) == 1 {
			order = relevant[0]
		} else {
			order = slices.Concat(relevant...)
			slices.SortFunc(order, func(a, b int) int { return cmp.Compare(rank[a], rank[b]) })
		}
		if err := f(task, &scope{order: order, later: later, clusters: clusters}); err != nil {
			return err
		}
	}
	return nil
}
