package mcpserver

import (
	"context"
	"encoding/json"
	"strconv"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/remnant/passportkit/evidence"
	"github.com/remnant/passportkit/issuer"
)

// AgentFinder answers find_agents: registry discovery by skill evidence
// (SPEC.md §17). *service.Discovery implements it.
type AgentFinder interface {
	FindAgents(ctx context.Context, q issuer.FindAgentsQuery) (issuer.FindAgentsPage, error)
}

// WithDiscovery serves find_agents over f. Give it the finder
// GET /api/public/agents serves, so that a cursor of either transport
// works on the other.
func WithDiscovery(f AgentFinder) Option { return func(c *config) { c.discovery = f } }

// findAgentsDescription tells an agent what find_agents' order rests on
// and how to read its results.
const findAgentsDescription = "Find agents by their evidence for a skill, as GET /api/public/agents answers: the agents whose " +
	"passports list the skill, best first. The order rests on each agent's skill passport for that skill (in your task's " +
	"context when you give one) and on nothing else: the evidence level (STRONG, MODERATE, LOW, VERY_LOW), then the " +
	"estimate's lower bound, higher first, an estimate of null (N/A: too little independent evidence) last within its level, " +
	"then the agent id. It is never a global score: evidence counts only as far as it bears on this skill, and neither a " +
	"declared capability nor praise from the agent's own operator lifts an agent. contested (unresolved contradictions) " +
	"and stale (old evidence) are labelled, not demoted: weigh them yourself. Each result has a one-line why. Results are " +
	"evidence recorded about the agents and weighed by the issuer's published rules, not an endorsement: check one with " +
	"get_skill_trust before relying on it. " +
	giveContext + "Without skill, the registry's legacy listing by global reputation, which is not skill evidence (basis " +
	"says which). limit 1 to 100 (default 20); pass the page's nextCursor as cursor, with the same skill and context, for " +
	"the next page (the HTTP route's cursors work too). freshness says how far the index lags the records."

// addFindAgentsTool registers find_agents when discovery is configured.
// Its arguments are the members of the route's query string, read as
// [issuer.FindAgentsRequest], so that an unknown member is refused as an
// unknown parameter is.
func addFindAgentsTool(t *tools) {
	if t.cfg.discovery == nil {
		return
	}
	addTool(t, anyone, &mcp.Tool{
		Name:        "find_agents",
		Title:       "Find agents by skill evidence",
		Description: findAgentsDescription,
		InputSchema: findAgentsSchema(),
		Annotations: reads(),
	}, t.findAgents)
}

func (t *tools) findAgents(ctx context.Context, _ issuer.Principal, in issuer.FindAgentsRequest) (issuer.FindAgentsPage, error) {
	q, err := in.Query()
	if err != nil {
		return issuer.FindAgentsPage{}, err
	}
	return t.cfg.discovery.FindAgents(ctx, q)
}

// findAgentsSchema is the input schema of find_agents: the query's members
// with their bounds.
func findAgentsSchema() *jsonschema.Schema {
	s := schemaFor[issuer.FindAgentsRequest]("find_agents")
	p := s.Properties
	boundTerm(p["skill"])
	p["skill"].Description = "the skill term, such as PostgreSQL indexing; without it, the legacy listing by global reputation"
	p["limit"].Minimum, p["limit"].Maximum = number(1), number(issuer.MaxFindAgentsLimit)
	p["limit"].Default = json.RawMessage(strconv.Itoa(issuer.DefaultFindAgentsLimit))
	p["limit"].Description = "results per page, 1 to " + strconv.Itoa(issuer.MaxFindAgentsLimit)
	p["cursor"].MinLength, p["cursor"].MaxLength, p["cursor"].Pattern = integer(1), integer(issuer.MaxFindAgentsCursor), cursorPattern
	p["cursor"].Description = "the nextCursor of the previous page of the same query"
	for _, dim := range evidence.Dimensions {
		p[dim].MaxLength = integer(issuer.MaxClaimBytes)
		p[dim].Description = "your task's " + dim + " (only with skill): a label of at most " + strconv.Itoa(issuer.MaxClaimBytes) +
			" bytes, not blank"
	}
	return s
}
