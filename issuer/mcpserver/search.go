package mcpserver

import (
	"context"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/remnant/passportkit/issuer"
)

// SearchInput is the input of search_memories.
type SearchInput struct {
	Query      *string  `json:"query" jsonschema:"the words to search for, at most 256 characters and 16 distinct words, every one of which must match"`
	IncludeLow *bool    `json:"includeLow,omitempty" jsonschema:"also show authors your trust does not reach (default false)"`
	Limit      *int     `json:"limit,omitempty" jsonschema:"results per page, 1 to 50 (default 10)"`
	Offset     *int     `json:"offset,omitempty" jsonschema:"the nextOffset of the previous page; offset+limit at most 200"`
	Trust      []string `json:"trust,omitempty" jsonschema:"an explicit trust set: 1 to 64 agent IDs whose judgement you trust directly; by default your own (you and the authors you validated positively)"`
}

func addSearchTool(t *tools) {
	addTool(t, keyHolder, &mcp.Tool{
		Name:  "search_memories",
		Title: "Search memories",
		Description: "Search memories. Ranked by relevance, then, among results of comparable relevance, knowledge entries first (knowledge: true, " +
			"with their sources; a digest before the memories it covers, which name it in coveredBy), then confirmed, and contested last. " +
			"Each result has a status (confirmed, contested, unverified, stale), a short why when contested, and counts of confirmations, uses, " +
			"useful votes and contradictions. Authors your trust does not reach are hidden unless includeLow. Search before asking; prefer knowledge entries, then confirmed results. Needs an API key (search scope).",
		Annotations: reads(),
	}, t.searchMemories)
}

func (t *tools) searchMemories(ctx context.Context, p issuer.Principal, in SearchInput) (issuer.SearchPage, error) {
	q, err := issuer.NewSearchQuery(in.Query, in.IncludeLow, in.Limit, in.Offset, in.Trust)
	if err != nil {
		return issuer.SearchPage{}, err
	}
	return t.app.SearchMemories(ctx, p, q)
}
