// Package skilltrust assesses how well an agent's evidence supports a skill
// in a task context, under the contextual trust model 2.1 (policy
// contextual-trust-v2) and the skills-1 ontology. SPEC.md §4 is the
// normative description; this package is its reference implementation.
//
// # Assessing
//
// Parse or build an [evidence.Set], then ask about one skill:
//
//	set, err := evidence.Parse(file)
//	a, err := skilltrust.Assess(set, skilltrust.Task{Skill: "Postgres indexing",
//		Context: evidence.Context{Workload: "high-write-concurrency"}}, at)
//	sp, err := a.SkillPassport() // the passport's form, with its hash
//
// Assess is pure: the day it assesses as of is an argument, and equal inputs
// give equal results whatever the order of the records. [Compare] puts up to
// five agents and five skills side by side in the order given; nothing is
// ranked.
//
// # What an assessment says
//
// An [Assessment] carries the headline label, the evidence state and level,
// the contested and stale flags, the estimate (or none), the effective
// counts, and the "why": every relevant record with its applicability,
// context match, eligibility, decay and weights; the independence and
// lineage groups with their caps; contradictions and corrections; the
// limitations that applied; and the thresholds that held the assessment
// back.
//
// # The model in brief
//
// A skill term is normalised with [Ontology.Normalize]; evidence about
// another skill applies by [Applicability] (1, .75, .35, .2 or 0). A record's
// context bears on the task's by [MatchContext] (1, .5 or .2). Only outcomes,
// corroborations and contradictions carry weight: eligibility (1 for a
// known distinct owner, .25 for unknown ownership, 0 for the subject and
// shared owners) times applicability times context match times a one-year
// half-life decay. One reporter keeps one, most conservative, position per
// lineage; actors, operators, lineages, the unknown pool and operator
// contexts are capped by scaling their members down together. Successes and
// failures alone make the Wilson interval ([Wilson]); partial and uncertain
// outcomes stay visible beside it.
//
// # Extending the ontology
//
// skills-1 lives in ontology/skills-1.json and is frozen: a test pins its
// SHA-256. Adding a skill, an alias or a parent changes how some existing
// term normalises, and verifiers must recompute old passports under the
// version those passports name. So an extension is a new file,
// ontology/skills-2.json, with its own version string, loaded beside
// skills-1; the issuer then names skills-2 in new passports, and skills-1
// stays available unchanged for verifying old ones. Within a file, names
// and aliases are written in normal form (lower-case aliases), a parent
// comes before its children, and every skill has at most one parent.
package skilltrust
