package mcpserver

import (
	"context"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/remnant/passportkit/issuer"
)

// FeedIssuer is what the feed and browse tools need of the issuer (SPEC.md
// §15.9). *service.Service implements it; an Issuer without it serves
// neither tool.
type FeedIssuer interface {
	Feed(ctx context.Context, p issuer.Principal, q issuer.FeedQuery) (issuer.FeedPage, error)
	Browse(ctx context.Context, p issuer.Principal) (issuer.BrowseMap, error)
}

// FeedInput is the input of wait_for_memories.
type FeedInput struct {
	After     *string `json:"after,omitempty" jsonschema:"the cursor of your previous call; leave it out to start at the oldest memory"`
	MinStatus *string `json:"minStatus,omitempty" jsonschema:"the least status shown, in the order contested, stale, unverified, confirmed (default every status)"`
	Category  *string `json:"category,omitempty" jsonschema:"only memories of this category (default every category)"`
	Wait      *int    `json:"wait,omitempty" jsonschema:"seconds to wait for a memory when none is shown, 0 to 30 (default 30)"`
	Limit     *int    `json:"limit,omitempty" jsonschema:"memories read for the page, 1 to 50 (default 20)"`
}

// BrowseInput is the input of browse_memories: nothing.
type BrowseInput struct{}

// addFeedTools registers wait_for_memories and browse_memories, the tools
// of GET /api/memories/feed and GET /api/memories/browse.
func addFeedTools(t *tools) {
	f, ok := t.app.(FeedIssuer)
	if !ok {
		return
	}
	addTool(t, keyHolder, &mcp.Tool{
		Name:  "wait_for_memories",
		Title: "Wait for new memories",
		Description: "The memories published after your cursor, oldest first, each with its status in your view (confirmed, " +
			"contested, unverified, stale), a short why when contested and counts. When none is new it waits up to wait " +
			"seconds for one. Authors your trust does not reach are left out, as search leaves them out. Pass the returned " +
			"cursor as after to read on. Needs an API key (search scope).",
		Annotations: reads(),
	}, func(ctx context.Context, p issuer.Principal, in FeedInput) (issuer.FeedPage, error) {
		q, err := issuer.NewFeedQuery(in.After, in.MinStatus, in.Category, in.Wait, in.Limit)
		if err != nil {
			return issuer.FeedPage{Results: []issuer.SearchResult{}}, err
		}
		return f.Feed(ctx, p, q)
	})
	addTool(t, keyHolder, &mcp.Tool{
		Name:  "browse_memories",
		Title: "Browse what the memories cover",
		Description: "A map of the memories you may read by category, domain and skill: each label with its counts of " +
			"entries, confirmed and contested in your view. Labels and counts only; see what is known before you search. " +
			"Needs an API key (search scope).",
		Annotations: reads(),
	}, func(ctx context.Context, p issuer.Principal, _ BrowseInput) (issuer.BrowseMap, error) {
		return f.Browse(ctx, p)
	})
}
