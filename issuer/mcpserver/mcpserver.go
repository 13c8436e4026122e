// Package mcpserver serves the issuer's validation tools over MCP, with the
// official Go SDK and the streamable HTTP transport. It shares the store,
// and therefore every position, rule and idempotency key, with the HTTP API.
//
// The tools are:
//
//   - feedback_memory: validate a retrieved memory, with the same fields as
//     the HTTP endpoint plus memoryId;
//   - get_memory_validations: a memory's validation summary;
//   - get_agent_profile: the calling agent's own profile;
//   - get_agent_reputation: an agent's reputation explanation, paginated.
//
// [Handler] expects the HTTP layer in front of it to have authenticated the
// bearer key and put the principal in the request context
// ([issuer.NewContext]); the HTTP API does so. The handler bounds each
// message itself and answers every transport error with problem details
// that also carry the JSON-RPC error response (see the README's MCP
// section): malformed JSON is -32700, a message that is not a valid request
// -32600, both with status 400; a request for an unknown method gets an
// ordinary JSON-RPC -32601 response.
package mcpserver

import (
	"context"
	"encoding/json"
	"log/slog"
	"net/http"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/remnant/passportkit/issuer"
	"github.com/remnant/passportkit/issuer/store"
)

// MaxMessage bounds one MCP request body.
const MaxMessage = 128 << 10

// principalExtra is the TokenInfo.Extra key holding the principal.
const principalExtra = "principal"

type tools struct {
	db  *store.DB
	log *slog.Logger
}

// newServer returns the MCP server with the issuer's tools over db.
func newServer(db *store.DB, logger *slog.Logger, version string) *mcp.Server {
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	t := &tools{db: db, log: logger}
	s := mcp.NewServer(&mcp.Implementation{Name: "passportkit-issuer", Version: version}, &mcp.ServerOptions{Logger: logger})
	mcp.AddTool(s, &mcp.Tool{
		Name: "feedback_memory",
		Description: "Record your validation of a memory you have retrieved: one of corroborate, contradict, useful, " +
			"not_useful, used_successfully, used_unsuccessfully, with an optional reason; or the legacy verdict " +
			"(confirm, contradict, outdated, irrelevant) with a note. One current position per memory: a new type " +
			"replaces your previous one. Returns the position and the memory's validation summary.",
	}, t.feedbackMemory)
	mcp.AddTool(s, &mcp.Tool{
		Name:        "get_memory_validations",
		Description: "The validation summary of a memory: its knowledge state and the counts and weights of current positions. It describes recorded evidence, not truth.",
	}, t.memoryValidations)
	mcp.AddTool(s, &mcp.Tool{
		Name:        "get_agent_profile",
		Description: "Your own agent profile: trust level, reputation score, domain reputations, activity and scopes.",
	}, t.agentProfile)
	mcp.AddTool(s, &mcp.Tool{
		Name:        "get_agent_reputation",
		Description: "An agent's reputation explanation: aggregates, domains, policy version and a page of reputation events (newest first). Optional domain filter; limit at most 50, offset at most 1000.",
	}, t.agentReputation)
	return s
}

// Handler returns the streamable HTTP handler for the tools. It is
// stateless: any replica can answer any request.
func Handler(db *store.DB, logger *slog.Logger, version string) http.Handler {
	server := newServer(db, logger, version)
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return server }, &mcp.StreamableHTTPOptions{
		Stateless:           true,
		JSONResponse:        true,
		Logger:              logger,
		MaxRequestBodyBytes: MaxMessage,
	})
	verify := func(ctx context.Context, _ string, r *http.Request) (*auth.TokenInfo, error) {
		p, ok := issuer.FromContext(r.Context())
		if !ok {
			return nil, auth.ErrInvalidToken
		}
		scopes := make([]string, len(p.Scopes))
		for i, s := range p.Scopes {
			scopes[i] = string(s)
		}
		return &auth.TokenInfo{Scopes: scopes, UserID: string(p.AgentID), Extra: map[string]any{principalExtra: p}}, nil
	}
	return transport{next: auth.RequireBearerToken(verify, &auth.RequireBearerTokenOptions{AllowMissingExpiration: true})(h)}
}

// principal returns the authenticated agent of a tool call.
func principal(req *mcp.CallToolRequest) (issuer.Principal, error) {
	if req.Extra != nil && req.Extra.TokenInfo != nil {
		if p, ok := req.Extra.TokenInfo.Extra[principalExtra].(issuer.Principal); ok {
			return p, nil
		}
	}
	return issuer.Principal{}, issuer.Errorf(issuer.CodeUnauthorized, "an API key is required as a bearer token")
}

// toolError is the body of a failed tool call: the stable code and a
// message for the caller.
type toolError struct {
	Code   issuer.Code `json:"code"`
	Detail string      `json:"detail"`
}

// fail turns err into a tool result with isError set. Internal faults are
// logged and described generically.
func (t *tools) fail(ctx context.Context, tool string, err error) (*mcp.CallToolResult, any, error) {
	code := issuer.ErrorCode(err)
	if code == issuer.CodeInternal || code == issuer.CodeUnavailable {
		t.log.ErrorContext(ctx, "mcp tool failed", "tool", tool, "err", err)
	}
	b, _ := json.Marshal(toolError{Code: code, Detail: issuer.ErrorMessage(err)})
	return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: string(b)}}}, nil, nil
}

// FeedbackInput is the input of feedback_memory.
type FeedbackInput struct {
	MemoryID       string  `json:"memoryId" jsonschema:"the memory to validate (mem_…); retrieve it first"`
	Type           *string `json:"type,omitempty" jsonschema:"corroborate, contradict, useful, not_useful, used_successfully or used_unsuccessfully"`
	Reason         *string `json:"reason,omitempty" jsonschema:"why, at most 1000 characters; kept private"`
	Verdict        *string `json:"verdict,omitempty" jsonschema:"legacy alternative to type: confirm, contradict, outdated or irrelevant"`
	Note           *string `json:"note,omitempty" jsonschema:"legacy alternative to reason, with verdict"`
	IdempotencyKey *string `json:"idempotencyKey,omitempty" jsonschema:"1 to 200 characters; a retry with the same key and input returns the recorded response"`
}

func (t *tools) feedbackMemory(ctx context.Context, req *mcp.CallToolRequest, in FeedbackInput) (*mcp.CallToolResult, any, error) {
	const tool = "feedback_memory"
	p, err := principal(req)
	if err != nil {
		return t.fail(ctx, tool, err)
	}
	if err := p.Require(issuer.ScopeFeedback); err != nil {
		return t.fail(ctx, tool, err)
	}
	id, err := issuer.ParseMemoryID(in.MemoryID)
	if err != nil {
		return t.fail(ctx, tool, err)
	}
	fb, err := issuer.FeedbackRequest{Type: in.Type, Reason: in.Reason, Verdict: in.Verdict, Note: in.Note, IdempotencyKey: in.IdempotencyKey}.Normalize()
	if err != nil {
		return t.fail(ctx, tool, err)
	}
	res, _, err := t.db.SubmitFeedback(ctx, p, id, fb, issuer.TransportMCP)
	if err != nil {
		return t.fail(ctx, tool, err)
	}
	return nil, res, nil
}

// MemoryInput names a memory.
type MemoryInput struct {
	MemoryID string `json:"memoryId" jsonschema:"the memory (mem_…)"`
}

func (t *tools) memoryValidations(ctx context.Context, req *mcp.CallToolRequest, in MemoryInput) (*mcp.CallToolResult, any, error) {
	const tool = "get_memory_validations"
	p, err := principal(req)
	if err != nil {
		return t.fail(ctx, tool, err)
	}
	id, err := issuer.ParseMemoryID(in.MemoryID)
	if err != nil {
		return t.fail(ctx, tool, err)
	}
	sum, err := t.db.Validations(ctx, p, id)
	if err != nil {
		return t.fail(ctx, tool, err)
	}
	return nil, sum, nil
}

// ProfileInput is the empty input of get_agent_profile.
type ProfileInput struct{}

func (t *tools) agentProfile(ctx context.Context, req *mcp.CallToolRequest, _ ProfileInput) (*mcp.CallToolResult, any, error) {
	const tool = "get_agent_profile"
	p, err := principal(req)
	if err != nil {
		return t.fail(ctx, tool, err)
	}
	pr, err := t.db.Profile(ctx, p)
	if err != nil {
		return t.fail(ctx, tool, err)
	}
	return nil, pr, nil
}

// ReputationInput is the input of get_agent_reputation.
type ReputationInput struct {
	PublicID string  `json:"publicId" jsonschema:"the agent (agt_…)"`
	Domain   *string `json:"domain,omitempty" jsonschema:"only this domain, normalised like memory categories"`
	Limit    *int    `json:"limit,omitempty" jsonschema:"events per page, 1 to 50 (default 20)"`
	Offset   *int    `json:"offset,omitempty" jsonschema:"events to skip, at most 1000"`
}

func (t *tools) agentReputation(ctx context.Context, req *mcp.CallToolRequest, in ReputationInput) (*mcp.CallToolResult, any, error) {
	const tool = "get_agent_reputation"
	p, err := principal(req)
	if err != nil {
		return t.fail(ctx, tool, err)
	}
	id, err := issuer.ParseAgentID(in.PublicID)
	if err != nil {
		return t.fail(ctx, tool, err)
	}
	q, err := issuer.NewReputationQuery(in.Domain, in.Limit, in.Offset)
	if err != nil {
		return t.fail(ctx, tool, err)
	}
	rep, err := t.db.Reputation(ctx, p, id, q)
	if err != nil {
		return t.fail(ctx, tool, err)
	}
	return nil, rep, nil
}
