package demoworld

import (
	"fmt"
	"math/rand/v2"
	"slices"

	"github.com/remnant/passportkit/evidence"
	"github.com/remnant/passportkit/issuer"
)

// DefaultSeed is the seed of the world the README and docs/demo.md walk through.
const DefaultSeed = 1

// Role says what an agent is in the world, so that the command can point a
// newcomer at the interesting ones.
type Role string

// The roles.
const (
	// RoleMain: the agent whose passport the demo issues.
	RoleMain Role = "main"
	// RoleEvaluator: an agent of a distinct operator that uses the main
	// agent's memories and reports what happened.
	RoleEvaluator Role = "evaluator"
	// RoleContradicter: an agent that publishes a memory contradicting one
	// of the main agent's.
	RoleContradicter Role = "contradicter"
	// RoleRing: one of several agents of one operator praising each other.
	RoleRing Role = "ring"
	// RoleDeclarer: an agent with declared capabilities and nothing else.
	RoleDeclarer Role = "declarer"
)

// Operator is a known owner of agents.
type Operator struct {
	Name string
}

// Agent is one agent of the world.
type Agent struct {
	Name        string
	Description string
	// Operator indexes World.Operators.
	Operator int
	Role     Role
}

// Link is one lineage link of a memory to an earlier memory of the world.
type Link struct {
	Kind issuer.LinkKind
	// Memory indexes World.Memories; it is published earlier.
	Memory int
}

// Memory is one memory of the world.
type Memory struct {
	// Author indexes World.Agents.
	Author   int
	Category string
	Title    string
	Content  string
	// Skill is the appliesTo skill, as the author wrote it.
	Skill string
	// Context is the appliesTo task context.
	Context evidence.Context
	Links   []Link
	// Private marks a research memory only its author reads: it may be
	// linked as an ancestor, and is never shown, counted or validated.
	Private bool
	// Digest marks consolidated knowledge (kind digest): its sources are
	// its LinkRefs links.
	Digest bool
}

// StepKind is what a step does.
type StepKind string

// The step kinds.
const (
	// StepPublish: Agent publishes Memory.
	StepPublish StepKind = "publish"
	// StepConsume: Agent retrieves Memory (the consumption an outcome
	// report or a validation requires).
	StepConsume StepKind = "consume"
	// StepOutcome: Agent reports Outcome for Memory in Context.
	StepOutcome StepKind = "outcome"
	// StepCorroborate and StepContradict: Agent validates Memory.
	StepCorroborate StepKind = "corroborate"
	StepContradict  StepKind = "contradict"
	// StepDeclare: Agent declares Capabilities.
	StepDeclare StepKind = "declare"
)

// Step is one act of one agent, on a day of the world's timeline.
type Step struct {
	// DaysAgo places the step on the timeline: that many days before the
	// day the world is built.
	DaysAgo int
	Kind    StepKind
	// Agent indexes World.Agents: who acts.
	Agent int
	// Memory indexes World.Memories, for every kind but StepDeclare.
	Memory       int
	Outcome      evidence.Outcome
	Context      evidence.Context
	Capabilities []string
	// Refused, when set, is the reason the validation policy refuses the
	// step at submission: the world includes it to show the refusal.
	Refused string
	// Reason is a validation's reason: a corroboration with one confirms
	// with evidence (SPEC.md §15.4).
	Reason string
}

// World is a synthetic issuer population: who exists and, in order, what
// they did.
type World struct {
	Seed      uint64
	Operators []Operator
	Agents    []Agent
	Memories  []Memory
	// Steps are ordered oldest first; steps of one day keep their order.
	Steps []Step
}

// Main returns the index of the main agent.
func (w *World) Main() int { return w.first(RoleMain) }

// Reader returns the index of the agent whose view of the memories the
// demo shows: the first evaluator, which took no part in confirming the
// digest.
func (w *World) Reader() int { return w.first(RoleEvaluator) }

// KnowledgeQuery is a search that the digest answers first, as a knowledge
// entry, in the reader's view.
const KnowledgeQuery = "index"

func (w *World) first(r Role) int {
	return slices.IndexFunc(w.Agents, func(a Agent) bool { return a.Role == r })
}

// OfRole returns the indices of the agents of role r.
func (w *World) OfRole(r Role) []int {
	var out []int
	for i, a := range w.Agents {
		if a.Role == r {
			out = append(out, i)
		}
	}
	return out
}

// The skills of the world's memories, each chosen to show one kind of
// skill passport (see Generate). Skills of one skills-1 family share
// evidence (SPEC.md §4.3), so each kind lives in its own family.
const (
	SkillEstimated = "PostgreSQL indexing"
	SkillAlias     = "postgres indexing" // folds to SkillEstimated under skills-1
	SkillThin      = "PostgreSQL replication"
	SkillContested = "MCP server development"
	SkillStale     = "SQLite query optimization"
	SkillRing      = "PostgreSQL query optimization"
	SkillDeclared  = "Kubernetes operators" // not in skills-1: declared only
	// SkillUpkeep is the skill of the evaluators' own notes, which the
	// reader uses: what puts them in the reader's trust.
	SkillUpkeep = "PostgreSQL maintenance"
)

// Generate returns the world of seed: the same seed gives the same world.
// The seed chooses names, dates and which reports go which way; the shape
// is fixed, so that every seed shows the same kinds of skill passport in
// the main agent's passport:
//
//   - SkillEstimated: memories in four lineage clusters (one a superseded
//     version, one extended by another), used by agents of five distinct
//     operators in distinct contexts, mostly successfully, with a partial
//     outcome and corroborations: enough effective binary outcomes (SPEC.md
//     §4.7) for an estimate;
//   - SkillThin: a partial, an uncertain and a single success: an
//     insufficient evidence, with its sibling's evidence counted at 0.2;
//   - SkillContested: a memory, derived from a private research note that
//     is never shown, that another author contradicts, once with a memory of
//     its own and once with a validation, never withdrawn;
//   - SkillStale: a memory whose outcomes are all more than two years old;
//   - SkillDeclared: declared, never observed.
//
// The main agent also consolidates its SkillEstimated memories in a
// digest, which evaluators of two operators other than its own and the
// reader's confirm with evidence in the last month. The reader has used
// notes of both (SkillUpkeep), so its trust reaches them: in its view
// (SPEC.md §15.11) the digest is a knowledge entry, found first by
// [KnowledgeQuery].
//
// Besides, a ring of three agents of one operator praise one another's
// memories, and the validation policy refuses every attempt at submission;
// and one agent declares capabilities and does nothing else.
func Generate(seed uint64) *World {
	g := &generator{r: rand.New(rand.NewPCG(seed, 0x70617373706f7274)), w: &World{Seed: seed}} // "passport"
	c := g.cast()
	m := g.memories(c)
	g.timeline(c, m)
	return g.finish(c)
}

// generator draws one world from its random source. The world's cast,
// memories and timeline are drawn in that order, so that a seed always
// gives the same world.
type generator struct {
	r     *rand.Rand
	w     *World
	ops   []string // the operators' names, in the order they are created
	steps []Step
}

// cast is who acts in the world, by index of World.Agents.
type cast struct {
	main, contradicter, declarer int
	evaluators, ring             []int
}

// memories are the world's memories, by index of World.Memories.
type memories struct {
	partial1, partial2, brin, covering, gin, hash int
	slots, sqlite, notes, toolErrors, rebuttal    int
	ring                                          []int
	digest                                        int
	upkeep                                        []int
}

func (g *generator) pick(names []string) string { return names[g.r.IntN(len(names))] }

// jitter is days plus up to spread more.
func (g *generator) jitter(days, spread int) int { return days + g.r.IntN(spread+1) }

// op adds the next operator.
func (g *generator) op() int {
	g.w.Operators = append(g.w.Operators, Operator{Name: g.ops[len(g.w.Operators)]})
	return len(g.w.Operators) - 1
}

// agent adds an agent.
func (g *generator) agent(name, desc string, operator int, role Role) int {
	g.w.Agents = append(g.w.Agents, Agent{Name: name, Description: desc, Operator: operator, Role: role})
	return len(g.w.Agents) - 1
}

// cast adds the operators and agents: the main agent's operator, five
// independent evaluators' operators, the contradicter's, the ring's and
// the declarer's.
func (g *generator) cast() cast {
	g.ops = shuffled(g.r, []string{"Northwind Data", "Harbour Analytics", "Juniper Systems", "Kestrel Labs",
		"Meridian Ops", "Orchard Cloud", "Quarry Logistics", "Saffron Retail", "Tidewater Health", "Umber Finance"})
	var c cast
	mainOp := g.op()
	c.main = g.agent(g.pick([]string{"Index Whisperer", "Query Gardener", "Plan Reader"}),
		"Tunes PostgreSQL indexes and reports what worked.", mainOp, RoleMain)
	evalOps := []int{g.op(), g.op(), g.op(), g.op(), g.op()}
	for i, name := range shuffled(g.r, []string{"Billing Bot", "Catalog Sync", "Fraud Screen", "Ledger Close",
		"Report Builder", "Search Relevance"})[:6] {
		// The first operator runs two evaluators: one operator's agents
		// count as one independent source (SPEC.md §4.6 operator caps).
		c.evaluators = append(c.evaluators, g.agent(name, "Runs database workloads for its operator.", evalOps[max(0, i-1)], RoleEvaluator))
	}
	c.contradicter = g.agent(g.pick([]string{"Protocol Skeptic", "Transport Auditor"}),
		"Reviews MCP servers and the advice about them.", g.op(), RoleContradicter)
	ringOp := g.op()
	for _, name := range []string{"Echo One", "Echo Two", "Echo Three"} {
		c.ring = append(c.ring, g.agent(name, "Writes query tips; its siblings agree with everything.", ringOp, RoleRing))
	}
	c.declarer = g.agent(g.pick([]string{"Claims Everything", "Brochure Agent"}),
		"Declares many capabilities; has done nothing observable yet.", g.op(), RoleDeclarer)
	return c
}

// mem adds a memory.
func (g *generator) mem(m Memory) int {
	g.w.Memories = append(g.w.Memories, m)
	return len(g.w.Memories) - 1
}

// taskContext is a task context of three dimensions.
func taskContext(env, workload, version string) evidence.Context {
	return evidence.Context{Environment: env, Workload: workload, Version: version}
}

// memories adds the memories: SkillEstimated's four lineage clusters
// (partial2 supersedes partial1, gin extends covering; covering is filed
// under an alias of the skill), one memory each for the thin, stale and
// contested skills, the private note the contested one derives from, the
// rebuttal that contradicts it, and the ring's tips.
func (g *generator) memories(c cast) memories {
	var m memories
	pg := "postgresql"
	m.partial1 = g.mem(Memory{Author: c.main, Category: pg, Skill: SkillEstimated, Context: taskContext("production", "oltp", ""),
		Title:   "Partial indexes for hot tenant queries",
		Content: "Index only the rows the hot path reads: CREATE INDEX ... WHERE tenant_status = 'active'. Check the planner uses it with EXPLAIN before dropping the full index."})
	m.partial2 = g.mem(Memory{Author: c.main, Category: pg, Skill: SkillEstimated, Context: taskContext("production", "oltp", "16"),
		Title:   "Partial indexes for hot tenant queries (revised for PostgreSQL 16)",
		Content: "As before, and on 16 prefer a partial index over a filtered expression index: the planner proves the predicate more often.",
		Links:   []Link{{Kind: issuer.LinkSupersedes, Memory: m.partial1}}})
	m.brin = g.mem(Memory{Author: c.main, Category: pg, Skill: SkillEstimated, Context: taskContext("", "analytics", ""),
		Title:   "BRIN instead of B-tree on append-only event tables",
		Content: "On tables appended in time order, a BRIN index on the timestamp is a thousand times smaller than a B-tree and nearly as fast for range scans."})
	m.covering = g.mem(Memory{Author: c.main, Category: pg, Skill: SkillAlias, Context: taskContext("production", "", ""),
		Title:   "Covering indexes with INCLUDE for index-only scans",
		Content: "Add the selected columns with INCLUDE so the scan never visits the heap; watch the visibility map, or the index-only scan still reads the heap."})
	m.gin = g.mem(Memory{Author: c.main, Category: pg, Skill: SkillEstimated, Context: taskContext("production", "", ""),
		Title:   "GIN with jsonb_path_ops for containment queries",
		Content: "For @> on jsonb, a GIN index with jsonb_path_ops is a third of the default opclass and faster; it cannot serve key-existence queries.",
		Links:   []Link{{Kind: issuer.LinkExtends, Memory: m.covering}}})
	m.hash = g.mem(Memory{Author: c.main, Category: pg, Skill: SkillEstimated, Context: taskContext("", "oltp", ""),
		Title:   "Hash indexes for long equality keys",
		Content: "For equality lookups on long text keys a hash index stays small where a B-tree grows with the key; it is WAL-logged since PostgreSQL 10."})
	m.slots = g.mem(Memory{Author: c.main, Category: pg, Skill: SkillThin, Context: taskContext("production", "", "15"),
		Title:   "Alert on WAL retained by logical replication slots",
		Content: "An inactive slot retains WAL until the disk fills; alert on pg_replication_slots.wal_status and on retained bytes."})
	m.sqlite = g.mem(Memory{Author: c.main, Category: "sqlite", Skill: SkillStale, Context: taskContext("embedded", "", ""),
		Title:   "Checkpoint the WAL from a background connection",
		Content: "Run PRAGMA wal_checkpoint(TRUNCATE) from a background connection so writers never pay for it."})
	m.notes = g.mem(Memory{Author: c.main, Category: "mcp", Skill: SkillContested, Private: true,
		Title:   "Research notes: tool errors seen in three MCP clients",
		Content: "Private notes; the published memory below is distilled from them."})
	m.toolErrors = g.mem(Memory{Author: c.main, Category: "mcp", Skill: SkillContested, Context: taskContext("", "", ""),
		Title:   "Report tool failures as protocol errors",
		Content: "When a tool fails, answer the call with a JSON-RPC error so that every client notices.",
		Links:   []Link{{Kind: issuer.LinkDerivedFrom, Memory: m.notes}}})
	m.rebuttal = g.mem(Memory{Author: c.contradicter, Category: "mcp", Skill: SkillContested,
		Title:   "Report tool failures in the tool result, not as protocol errors",
		Content: "A tool failure is a result with isError set, so that the model sees it and can recover; a JSON-RPC error means the call itself was malformed.",
		Links:   []Link{{Kind: issuer.LinkContradicts, Memory: m.toolErrors}}})
	for i, a := range c.ring {
		m.ring = append(m.ring, g.mem(Memory{Author: a, Category: pg, Skill: SkillRing,
			Title:   fmt.Sprintf("Rewrite OR as UNION ALL (tip %d)", i+1),
			Content: "Rewriting an OR across two indexed columns as UNION ALL lets each branch use its index."}))
	}
	refs := func(ms ...int) []Link {
		var out []Link
		for _, x := range ms {
			out = append(out, Link{Kind: issuer.LinkRefs, Memory: x})
		}
		return out
	}
	m.digest = g.mem(Memory{Author: c.main, Category: pg, Skill: SkillEstimated, Context: taskContext("production", "", ""), Digest: true,
		Title:   "Pick the PostgreSQL index by access pattern: partial, BRIN, covering or hash",
		Content: "A partial index for hot subsets, BRIN for append-only time ranges, INCLUDE columns for index-only scans, hash for long equality keys; check each with EXPLAIN before dropping the index it replaces.",
		Links:   refs(m.partial2, m.brin, m.covering, m.hash)})
	m.upkeep = []int{
		g.mem(Memory{Author: c.evaluators[2], Category: pg, Skill: SkillUpkeep, Context: taskContext("production", "analytics", ""),
			Title:   "Partition event tables by month and detach the old partitions",
			Content: "Range-partition append-only event tables by month: detaching and dropping an old partition is instant, where a DELETE of old rows bloats the table."}),
		g.mem(Memory{Author: c.evaluators[3], Category: pg, Skill: SkillUpkeep, Context: taskContext("production", "batch", ""),
			Title:   "ANALYZE right after a bulk load",
			Content: "Run ANALYZE on a table as soon as a bulk load commits: autovacuum's statistics lag behind, and the planner picks poor plans until they catch up."}),
	}
	return m
}

// publish adds the publication of memory m.
func (g *generator) publish(daysAgo, m int) {
	g.steps = append(g.steps, Step{DaysAgo: daysAgo, Kind: StepPublish, Agent: g.w.Memories[m].Author, Memory: m})
}

// use adds who's consumption of memory m and its outcome report a few
// days later.
func (g *generator) use(daysAgo, who, m int, o evidence.Outcome, ctx evidence.Context) {
	g.steps = append(g.steps,
		Step{DaysAgo: daysAgo + 2, Kind: StepConsume, Agent: who, Memory: m},
		Step{DaysAgo: daysAgo, Kind: StepOutcome, Agent: who, Memory: m, Outcome: o, Context: ctx})
}

// validate adds who's consumption of memory m and its validation of kind
// k, which the issuer refuses with the code refused when it is not "".
func (g *generator) validate(daysAgo, who, m int, k StepKind, refused string) {
	g.steps = append(g.steps,
		Step{DaysAgo: daysAgo + 1, Kind: StepConsume, Agent: who, Memory: m},
		Step{DaysAgo: daysAgo, Kind: k, Agent: who, Memory: m, Refused: refused})
}

// timeline adds the world's steps. SkillEstimated's evidence is from the
// last three months, so that decay (SPEC.md §4.5) leaves an estimate.
func (g *generator) timeline(c cast, m memories) {
	ev := c.evaluators
	g.publish(g.jitter(1150, 20), m.sqlite)
	g.publish(g.jitter(400, 30), m.partial1)
	g.publish(g.jitter(330, 20), m.brin)
	g.publish(g.jitter(300, 20), m.hash)
	g.publish(g.jitter(250, 20), m.covering)
	g.publish(g.jitter(220, 5), m.gin)
	g.publish(g.jitter(200, 10), m.partial2)
	g.publish(g.jitter(170, 5), m.notes)
	g.publish(g.jitter(150, 10), m.toolErrors)
	g.publish(g.jitter(130, 10), m.slots)

	// SkillStale: outcomes 800 to 1,000 days ago, none since.
	g.use(g.jitter(1000, 30), ev[2], m.sqlite, evidence.OutcomeSuccess, taskContext("embedded", "oltp", ""))
	g.use(g.jitter(900, 30), ev[3], m.sqlite, evidence.OutcomeSuccess, taskContext("mobile", "", ""))
	g.use(g.jitter(800, 20), ev[4], m.sqlite, evidence.OutcomeFailure, taskContext("embedded", "analytics", ""))

	// SkillEstimated: each evaluator uses three of the four clusters, each
	// in its own context, so that no operator-and-context group (cap 1)
	// swallows another report. In each cluster one seeded report is a
	// failure; one evaluator reports a partial outcome instead.
	envs := []string{"production", "staging", "ci"}
	loads := []string{"oltp", "analytics", "batch"}
	versions := []string{"14", "15", "16", "17"}
	clusters := [][]int{{m.partial1, m.partial2}, {m.brin}, {m.covering, m.gin}, {m.hash}}
	for ci, cl := range clusters {
		fail := g.r.IntN(len(ev))
		for ei, e := range ev {
			if (ei+ci)%4 == 3 {
				continue
			}
			mem := cl[(ei+ci)%len(cl)]
			o := evidence.OutcomeSuccess
			switch {
			case ei == fail:
				o = evidence.OutcomeFailure
			case ci == 0 && ei == len(ev)-1:
				o = evidence.OutcomePartial
			}
			g.use(g.jitter(10+10*ei+4*ci, 8), e, mem, o, taskContext(envs[(ei+ci)%3], loads[(ei+2*ci)%3], versions[ci]))
		}
	}
	// Corroborations: agreement, not outcomes.
	g.validate(g.jitter(60, 10), c.contradicter, m.brin, StepCorroborate, "")
	g.validate(g.jitter(45, 10), c.contradicter, m.covering, StepCorroborate, "")

	// SkillThin: a partial, an uncertain and one success.
	g.use(g.jitter(40, 5), ev[0], m.slots, evidence.OutcomePartial, taskContext("production", "", "15"))
	g.use(g.jitter(30, 5), ev[2], m.slots, evidence.OutcomeUncertain, taskContext("staging", "", "16"))
	g.use(g.jitter(20, 5), ev[4], m.slots, evidence.OutcomeSuccess, taskContext("production", "", "16"))

	// SkillContested: one success, then a contradicting memory and a
	// contradicting validation, neither withdrawn.
	g.use(g.jitter(120, 10), ev[1], m.toolErrors, evidence.OutcomeSuccess, taskContext("", "", ""))
	g.publish(g.jitter(70, 10), m.rebuttal)
	g.validate(g.jitter(50, 10), ev[3], m.toolErrors, StepContradict, "")

	// The ring: each member publishes, then tries to praise the others.
	for i, a := range c.ring {
		g.publish(g.jitter(100, 10), m.ring[i])
		for _, b := range c.ring {
			if b != a {
				g.validate(g.jitter(80, 10), b, m.ring[i], StepCorroborate, string(issuer.CodeSameOwner))
			}
		}
	}
	// One outside agent did use a ring memory, once.
	g.use(g.jitter(15, 5), ev[5], m.ring[0], evidence.OutcomeSuccess, taskContext("production", "oltp", ""))

	// The main agent declares what it believes it can do.
	g.steps = append(g.steps, Step{DaysAgo: g.jitter(380, 10), Kind: StepDeclare, Agent: c.main,
		Capabilities: []string{SkillEstimated, SkillContested, SkillDeclared}})

	// The digest, drawn last so that the rest of a seed's world stays as
	// it was: published last month, then confirmed with evidence by
	// evaluators of two operators other than the reader's and the main
	// agent's, whose notes the reader has used.
	for i, n := range m.upkeep {
		g.publish(g.jitter(90, 20), n)
		g.use(g.jitter(50, 10), c.evaluators[0], n, evidence.OutcomeSuccess, taskContext("production", []string{"analytics", "batch"}[i], ""))
	}
	g.publish(g.jitter(25, 5), m.digest)
	g.corroborate(g.jitter(12, 4), ev[2], m.digest, "Followed it on our event and tenant tables; each index type behaved as stated.")
	g.corroborate(g.jitter(6, 3), ev[3], m.digest, "Checked the four sources against our workloads with EXPLAIN; the summary holds.")
}

// corroborate adds who's consumption of memory m and its corroboration
// with reason, a confirmation with evidence.
func (g *generator) corroborate(daysAgo, who, m int, reason string) {
	g.validate(daysAgo, who, m, StepCorroborate, "")
	g.steps[len(g.steps)-1].Reason = reason
}

// finish orders the steps, oldest first, and ends the world with the
// declarer's declarations, all it ever does: Build creates the declarer
// just before them, so that its existence marks a finished world.
func (g *generator) finish(c cast) *World {
	steps := g.steps
	slices.SortStableFunc(steps, func(a, b Step) int { return b.DaysAgo - a.DaysAgo })
	g.w.Steps = append(steps, Step{DaysAgo: min(2, steps[len(steps)-1].DaysAgo), Kind: StepDeclare, Agent: c.declarer,
		Capabilities: []string{SkillThin, SkillContested, SkillDeclared}})
	return g.w
}

func shuffled(r *rand.Rand, s []string) []string {
	s = slices.Clone(s)
	r.Shuffle(len(s), func(i, j int) { s[i], s[j] = s[j], s[i] })
	return s
}
